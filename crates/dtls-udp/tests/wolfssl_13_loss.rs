//! DTLS 1.3 against wolfSSL 5.9 with one handshake datagram lost on the way
//! (a relay drops it), both roles, ECDHE with a P-256 certificate so the
//! server's flight spans several datagrams (wolfSSL's server sends it in
//! two; ours is given a 256-byte MTU, else its flight fits in one). A lost datagram inside a flight
//! leaves a gap the receiver acknowledges around (RFC 9147 §7.1), so the
//! sender resends only what is missing without waiting for its timer; a
//! lost ServerHello leaves nothing to acknowledge (the rest cannot be
//! decrypted), so the timer resends (§5.8).
//!
//! Datagrams server → client: 1 HelloRetryRequest, 2 ServerHello and the
//! start of the encrypted flight, 3 more of it;
//! client → server: 1 and 2 the ClientHellos, 3 the client's Finished.

mod common;
mod common13;

use common::*;
use common13::*;

use dtls::v13::config::{ClientConfig13, Config13, Credential13, ServerConfig13};
use dtls::v13::suite::CipherSuite13;
use dtls::{CertificateVerifier, MessageKind};
use dtls_udp::{ClientReport13, HandshakeRecord13};

fn ccm8_ecdhe() -> Config13 {
    Config13 {
        suites: vec![CipherSuite13::Aes128Ccm8Sha256],
        ..Config13::default()
    }
}

/// Our certificate client to the wolfSSL server through a relay that drops
/// datagram `nth` going `direction`.
fn our_client_losing(direction: Direction, nth: u64, seed: u64) -> Option<ClientReport13> {
    if !have_wolfssl() || !have_openssl() {
        return None;
    }
    let (_dir, crt, key) = p256_cert_in("wolf13-loss");
    let (srv, port) = wolfssl_server13(&["--cipher", WOLF_CCM8, "--cert", &crt, "--key", &key]);
    let relay = drop_nth_relay(addr(port), direction, nth);
    let config =
        ClientConfig13::certificate(ccm8_ecdhe(), CertificateVerifier::Pinned(cert_der(&crt)));
    let report = our_client13(relay.addr, config, seed, "loss ping");
    assert_eq!(relay.dropped(), 1);
    assert_wolfssl_server_served(&srv, WOLF_CCM8, "loss ping");
    Some(report)
}

/// The wolfSSL client to our certificate server through a relay that
/// drops datagram `nth` going `direction`; our session's record.
fn wolfssl_client_losing(direction: Direction, nth: u64, seed: u64) -> Option<HandshakeRecord13> {
    if !have_wolfssl() || !have_openssl() {
        return None;
    }
    let (_dir, crt, key) = p256_cert_in("wolf13-loss");
    let mut small = ccm8_ecdhe();
    small.common.mtu = 256;
    let config = ServerConfig13::certificate(small, Credential13::x509(certified_key(&crt, &key)));
    let (port, h) = our_server(config, seed, stop_after_one_session(12));
    let relay = drop_nth_relay(addr(port), direction, nth);
    let mut cli = wolfssl_client13(
        relay.addr,
        "loss ping",
        &["--cipher", WOLF_CCM8, "--ca", &crt],
    );
    assert_wolfssl_client_done(&mut cli, WOLF_CCM8, "loss ping");
    assert_eq!(relay.dropped(), 1);
    let report = h.join().unwrap();
    assert_eq!(report.handshakes.len(), 1, "{report:?}\n{}", cli.output());
    assert_eq!(report.received[0].1, b"loss ping");
    Some(report.handshakes[0].clone())
}

#[test]
fn our_client_acknowledges_a_gap_in_the_wolfssl_flight() {
    if let Some(r) = our_client_losing(Direction::ServerToClient, 3, 1341) {
        // the ACK brought the missing records before our timer fired
        assert!(records(&r.stats.sent, MessageKind::Ack) >= 1, "{r:?}");
        assert_eq!(r.retransmissions, 0, "{r:?}");
    }
}

#[test]
fn our_client_resends_its_hello_when_the_server_hello_is_lost() {
    if let Some(r) = our_client_losing(Direction::ServerToClient, 2, 1342) {
        assert!(r.retransmissions >= 1, "{r:?}");
        assert_eq!(client_hellos_sent(&r.stats), 3, "{r:?}");
    }
}

#[test]
fn our_server_resends_what_wolfssl_acknowledged_as_missing() {
    if let Some(h) = wolfssl_client_losing(Direction::ServerToClient, 3, 1343) {
        // wolfSSL's ACK (after its quick timeout) listed what arrived; our
        // one resend carried only the rest: the messages of the datagrams
        // that arrived went once
        assert!(records(&h.stats.received, MessageKind::Ack) >= 1, "{h:?}");
        assert_eq!(h.stats.retransmissions, 1, "{h:?}");
        for once in [SERVER_HELLO, 8 /* EncryptedExtensions */] {
            assert_eq!(
                records(&h.stats.sent, MessageKind::Handshake(once)),
                1,
                "{h:?}"
            );
        }
    }
}

#[test]
fn our_server_resends_its_flight_when_the_server_hello_is_lost() {
    if let Some(h) = wolfssl_client_losing(Direction::ServerToClient, 2, 1344) {
        assert!(h.stats.retransmissions >= 1, "{h:?}");
    }
}

#[test]
fn our_server_completes_when_the_wolfssl_finished_is_lost() {
    if let Some(h) = wolfssl_client_losing(Direction::ClientToServer, 3, 1345) {
        // two Finished arrived in all (the lost one resent by wolfSSL),
        // one of them ours to read
        assert!(
            records(&h.stats.received, MessageKind::Handshake(20)) >= 1,
            "{h:?}"
        );
    }
}
