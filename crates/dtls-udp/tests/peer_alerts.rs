//! A peer's close_notify or fatal alert reaches the caller of our UDP client
//! as what it is, not as "not connected": over real UDP on loopback.

mod common;

use std::net::UdpSocket;
use std::time::Duration;

use common::*;
use dtls::v13::config::{ClientConfig13, Config13};
use dtls::{AlertDescription, Config};
use dtls_udp::{run_client, ClientOptions, ClientOptions13};

#[test]
fn close_notify_during_the_handshake_is_reported_as_such() {
    let e = client_error(&[(1, AlertDescription::CloseNotify.to_u8())]);
    assert_eq!(e, dtls::Error::ClosedByPeer);
    assert!(e.to_string().contains("close_notify"), "{e}");
}

#[test]
fn a_fatal_alert_during_the_handshake_is_reported_as_such() {
    let e = client_error(&[(2, AlertDescription::HandshakeFailure.to_u8())]);
    assert_eq!(
        e,
        dtls::Error::AlertReceived(AlertDescription::HandshakeFailure)
    );
}

/// A peer that answers the first datagram with one datagram of epoch-0
/// alert records, one per (`level`, `description`), in order.
fn alerting_peer_records(alerts: &[(u8, u8)]) -> (u16, std::thread::JoinHandle<()>) {
    alerting_peer_datagrams(&[alerts], Duration::ZERO)
}

/// A peer that answers the first datagram with `datagrams`, each of
/// epoch-0 alert records (`level`, `description`) in order, `gap` apart.
fn alerting_peer_datagrams(
    datagrams: &[&[(u8, u8)]],
    gap: Duration,
) -> (u16, std::thread::JoinHandle<()>) {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = sock.local_addr().unwrap().port();
    sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut seq = 0u8;
    let datagrams: Vec<Vec<u8>> = datagrams
        .iter()
        .map(|alerts| {
            let mut datagram = Vec::new();
            for (level, description) in alerts.iter() {
                // DTLSPlaintext (RFC 6347 §4.1): alert(21), DTLS 1.2, epoch
                // 0, 48-bit sequence number, length 2
                datagram.extend_from_slice(&[21, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, seq, 0, 2]);
                datagram.extend_from_slice(&[*level, *description]);
                seq += 1;
            }
            datagram
        })
        .collect();
    let h = std::thread::spawn(move || {
        let mut buf = [0u8; 2048];
        let (_, from) = sock.recv_from(&mut buf).unwrap();
        for (i, d) in datagrams.iter().enumerate() {
            if i > 0 {
                std::thread::sleep(gap);
            }
            sock.send_to(d, from).unwrap();
        }
    });
    (port, h)
}

/// A peer that aborts the handshake with close_notify
/// followed by handshake_failure (one datagram) was reported as having
/// closed the connection; it failed it, and says why.
#[test]
fn close_notify_then_a_fatal_alert_is_reported_as_the_failure() {
    let alerts = [
        (1, AlertDescription::CloseNotify.to_u8()),
        (2, AlertDescription::HandshakeFailure.to_u8()),
    ];
    let failed = dtls::Error::AlertReceived(AlertDescription::HandshakeFailure);
    assert_eq!(client_error(&alerts), failed);
    assert_eq!(client13_error(&alerts), failed);
}

/// A peer that aborts the handshake with close_notify in one datagram and
/// handshake_failure in the next, 100 ms later (well within the 1 s the
/// client waits before resending, RFC 6347 §4.2.4.1, RFC 9147 §5.8.2), was
/// reported as having closed the connection; the handshake failed, and the
/// alert says why (both versions).
#[test]
fn close_notify_then_a_fatal_alert_in_the_next_datagram_is_reported_as_the_failure() {
    let close: &[(u8, u8)] = &[(1, AlertDescription::CloseNotify.to_u8())];
    let failure: &[(u8, u8)] = &[(2, AlertDescription::HandshakeFailure.to_u8())];
    let gap = Duration::from_millis(100);
    let failed = dtls::Error::AlertReceived(AlertDescription::HandshakeFailure);
    let (port, peer) = alerting_peer_datagrams(&[close, failure], gap);
    assert_eq!(client_at(port), failed);
    peer.join().unwrap();
    let (port, peer) = alerting_peer_datagrams(&[close, failure], gap);
    assert_eq!(client13_at(port), failed);
    peer.join().unwrap();
}

/// A close_notify alone still fails the handshake as the close it is, once
/// the client waited for a reason as long as it waits before resending.
#[test]
fn close_notify_alone_fails_the_handshake_after_one_retransmission_wait() {
    for client in [client_at, client13_at] {
        let (port, peer) = alerting_peer_records(&[(1, AlertDescription::CloseNotify.to_u8())]);
        let t = std::time::Instant::now();
        assert_eq!(client(port), dtls::Error::ClosedByPeer);
        let waited = t.elapsed();
        assert!(
            waited >= Duration::from_millis(900) && waited < Duration::from_secs(4),
            "{waited:?}"
        );
        peer.join().unwrap();
    }
}

/// The error our DTLS 1.2 client ends with against a peer sending `alerts`.
fn client_error(alerts: &[(u8, u8)]) -> dtls::Error {
    let (port, peer) = alerting_peer_records(alerts);
    let e = client_at(port);
    peer.join().unwrap();
    e
}

/// The error our DTLS 1.2 PSK client ends with against a peer on `port`.
fn client_at(port: u16) -> dtls::Error {
    let mut opts = ClientOptions::psk(addr(port), Config::default(), IDENTITY, PSK);
    opts.handshake_timeout = Duration::from_secs(5);
    opts.seed = Some(1);
    dtls_error(run_client(&opts))
}

/// The same for our DTLS 1.3 client.
fn client13_error(alerts: &[(u8, u8)]) -> dtls::Error {
    let (port, peer) = alerting_peer_records(alerts);
    let e = client13_at(port);
    peer.join().unwrap();
    e
}

/// The error our DTLS 1.3 PSK client ends with against a peer on `port`.
fn client13_at(port: u16) -> dtls::Error {
    let config = ClientConfig13::psk(Config13::default(), IDENTITY, PSK);
    let mut opts = ClientOptions13::new(addr(port), config);
    opts.handshake_timeout = Duration::from_secs(5);
    opts.seed = Some(1);
    dtls_error(dtls_udp::run_client13(&opts))
}

fn dtls_error<T: std::fmt::Debug>(r: Result<T, dtls_udp::Error>) -> dtls::Error {
    match r {
        Err(dtls_udp::Error::Dtls(e)) => e,
        other => panic!("{other:?}"),
    }
}
