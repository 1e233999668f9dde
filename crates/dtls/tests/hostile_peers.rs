//! Hostile or broken peers, sans-IO: a peer that repeats its flight in a
//! tight loop, clients that go silent after the cookie exchange, a client
//! that restarts from the same address, records reordered around
//! ChangeCipherSpec, wrong keys and alerts.

mod common;

use common::*;
use dtls::Config;
use dtls::Session;

/// `datagram` with every record's sequence number rewritten to `seq`,
/// `seq + 1`, … (epoch-0 records are plaintext: what a peer's genuine
/// retransmission looks like).
fn resequenced(datagram: &[u8], seq: u64) -> Vec<u8> {
    let mut d = datagram.to_vec();
    let mut at = 0;
    let mut seq = seq;
    while at + 13 <= d.len() {
        d[at + 5..at + 11].copy_from_slice(&seq.to_be_bytes()[2..]);
        seq += 1;
        at += 13 + usize::from(u16::from_be_bytes([d[at + 11], d[at + 12]]));
    }
    d
}

/// A client that has sent its final flight (ClientKeyExchange … Finished),
/// which never reached the server; and the server's flight it answered.
fn client_waiting_for_finished() -> (Pair, Vec<u8>) {
    let mut p = Pair::psk(Config::default(), Config::default(), 7);
    p.tamper = Some(Box::new(
        |c2s, i, d| {
            if c2s && i >= 2 {
                vec![]
            } else {
                vec![d]
            }
        },
    ));
    p.run_until(0, |p| p.c2s.len() >= 3);
    assert_eq!(p.c2s.len(), 3, "hello, hello with cookie, final flight");
    let server_flight = p.s2c.last().unwrap().clone();
    (p, server_flight)
}

#[test]
fn a_flight_repeated_in_a_tight_loop_is_answered_once_per_timer_interval() {
    let (mut p, flight) = client_waiting_for_finished();
    let t0 = p.now;
    // The server's ServerHello … ServerHelloDone again, 1000 times within
    // one second (a peer that answers each of our resends at once).
    let mut resent_at = Vec::new();
    for i in 0..1000u64 {
        let now = t0 + i * 1000;
        p.client
            .handle_datagram(now, &resequenced(&flight, 100 + 10 * i));
        while p.client.poll_transmit(now).is_some() {
            resent_at.push(now);
        }
    }
    // RFC 6347 §4.2.4: the first repeat means our flight was lost and is
    // answered at once; further repeats within the timer interval (1 s)
    // are not.
    assert_eq!(resent_at, vec![t0], "one resend for 1000 repeats in 1 s");
    // After the interval a repeat is answered again.
    let later = t0 + 1_000_000;
    p.client
        .handle_datagram(later, &resequenced(&flight, 20_000));
    assert!(p.client.poll_transmit(later).is_some());
}

#[test]
fn a_silent_half_open_handshake_is_dropped_at_the_half_open_timeout() {
    let mut server = dtls::ServerConfig::psk(Config::default(), IDENTITY, PSK);
    // a timeout shorter than the server's own retransmissions last (its
    // flight would otherwise fail first and free the slot on its own)
    server.set_session_limits(
        dtls::session_table::Limits {
            half_open_timeout_us: Some(30_000_000),
            ..dtls::session_table::Limits::guarded(16)
        },
        dtls::session_table::Policy::EvictHalfOpen,
    );
    let timeout = server.half_open_timeout_us;
    let mut p = Pair::new(
        dtls::ClientConfig::psk(Config::default(), IDENTITY, PSK),
        server,
        32,
    );
    p.run_until(0, |p| p.server.session_count() == 1);
    // created within a few one-way delays (10 ms each) before `now`
    let created = p.now;
    p.loss = Some((rng(0), 1.0));
    p.run_until(created + timeout - 100_000, |_| false);
    assert_eq!(p.server.session_count(), 1, "kept until its timeout");
    p.run_until(created + timeout, |_| false);
    assert_eq!(p.server.session_count(), 0, "dropped at its timeout");
    assert_eq!(p.server.stats().expired_half_open, 1);
}

#[test]
fn a_client_restarting_mid_handshake_from_the_same_address_is_served_at_once() {
    let mut p = Pair::psk(Config::default(), Config::default(), 40);
    // hello, cookie, hello with cookie: the server holds a half-open
    // handshake; the client's final flight never arrives (it reboots).
    p.tamper = Some(Box::new(
        |c2s, i, d| {
            if c2s && i == 2 {
                vec![]
            } else {
                vec![d]
            }
        },
    ));
    p.run_until(0, |p| p.c2s.len() >= 3);
    assert_eq!(p.server.session_count(), 1);
    p.tamper = None;
    // Same address, fresh random, message_seq 0 again.
    let ccfg = std::sync::Arc::new(dtls::ClientConfig::psk(Config::default(), IDENTITY, PSK));
    p.client = dtls::Connection::client(ccfg, &mut rng(4321), p.now).unwrap();
    p.client_events.clear();
    let restart = p.now;
    p.handshake();
    assert!(p.client.is_established() && p.server_established());
    assert!(
        p.now - restart < 200_000,
        "restart served after {} µs",
        p.now - restart
    );
    assert_eq!(p.server.stats().sessions_created, 2);
    p.exchange(b"after the restart");
}

#[test]
fn finished_arriving_before_change_cipher_spec_is_buffered_both_ways() {
    // tinyDTLS sends ChangeCipherSpec and Finished in separate datagrams;
    // here each side's Finished overtakes its CCS. Our stack keeps the early
    // Finished (RFC 6347 §4.1); with the tinydtls policy it would end the
    // handshake as tinyDTLS 0.8.2 does (tests/tinydtls_timer.rs).
    let cfg = Config {
        retransmit: dtls::RetransmitPolicy::RFC6347,
        ..Config::tinydtls_like()
    };
    let mut p = Pair::psk(cfg.clone(), cfg, 50);
    let held: std::rc::Rc<std::cell::RefCell<[Option<Vec<u8>>; 2]>> = Default::default();
    p.tamper = Some(Box::new(move |c2s, _, d| {
        let mut held = held.borrow_mut();
        let slot = &mut held[usize::from(c2s)];
        if d[0] == 20 {
            *slot = Some(d);
            return vec![];
        }
        let mut out = vec![d];
        out.extend(slot.take());
        out
    }));
    p.handshake();
    assert!(p.client.is_established() && p.server_established());
    let server = p.server.session(&client_addr()).unwrap();
    assert_eq!(
        (
            p.client.stats().retransmissions,
            server.stats().retransmissions
        ),
        (0, 0),
        "no retransmission needed"
    );
    p.exchange(b"in order again");
}

fn alerts_received(events: &[dtls::Event]) -> Vec<dtls::AlertDescription> {
    events
        .iter()
        .filter_map(|e| match e {
            dtls::Event::AlertReceived(a) => Some(a.description),
            _ => None,
        })
        .collect()
}

#[test]
fn a_wrong_psk_is_alerted_at_the_first_failed_finished() {
    // A client that never resends (tinyDTLS's timer, its first retransmission
    // would come after 2 s) must still learn why.
    let mut p = Pair::new(
        dtls::ClientConfig::psk(Config::tinydtls_like(), IDENTITY, &[0xEE; 16]),
        dtls::ServerConfig::psk(Config::tinydtls_like(), IDENTITY, PSK),
        60,
    );
    p.run_until(1_000_000, |p| p.failed_client().is_some());
    assert_eq!(p.failed_server(), Some(&dtls::Error::BadRecordMac));
    assert_eq!(
        p.failed_client(),
        Some(&dtls::Error::AlertReceived(
            dtls::AlertDescription::BadRecordMac
        ))
    );
    assert_eq!(p.client.stats().retransmissions, 0);
}

#[test]
fn an_unknown_psk_identity_looks_like_a_wrong_key_unless_revealed() {
    for reveal in [false, true] {
        let mut server = dtls::ServerConfig::psk(Config::default(), IDENTITY, PSK);
        server.reveal_unknown_psk_identity = reveal;
        let client = dtls::ClientConfig::psk(Config::default(), b"nobody", PSK);
        let mut p = Pair::new(client, server, 61);
        p.run_until(10_000_000, |p| p.failed_client().is_some());
        let expected = if reveal {
            dtls::AlertDescription::UnknownPskIdentity
        } else {
            dtls::AlertDescription::BadRecordMac
        };
        assert_eq!(
            alerts_received(&p.client_events),
            vec![expected],
            "reveal {reveal}"
        );
    }
}
