//! Hostile input: replays, flipped bits, truncation, random bytes, hello
//! floods. The server must create no state, and nothing may panic.

mod common;

use std::sync::Arc;

use common::*;
use dtls::Session;
use dtls::{Config, Event, Server, ServerConfig};
use rand_core::Rng;

fn established() -> Pair {
    let mut p = Pair::psk(Config::default(), Config::default(), 30);
    p.handshake();
    assert!(p.client.is_established() && p.server_established());
    p
}

/// Send one application record from the client and return its datagram.
fn app_datagram(p: &mut Pair, msg: &[u8]) -> Vec<u8> {
    p.client.send(msg).unwrap();
    p.client.poll_transmit(p.now).unwrap()
}

fn server_app_events(p: &mut Pair) -> Vec<Vec<u8>> {
    let mut v = vec![];
    while let Some((_, e)) = p.server.poll_event() {
        if let Event::ApplicationData(d) = e {
            v.push(d);
        }
    }
    v
}

fn dropped(p: &Pair) -> u64 {
    p.server
        .session(&client_addr())
        .unwrap()
        .stats()
        .records_dropped
}

#[test]
fn replayed_record_is_dropped() {
    let mut p = established();
    let d = app_datagram(&mut p, b"once");
    p.server.handle_datagram(p.now, client_addr(), &d);
    assert_eq!(server_app_events(&mut p), vec![b"once".to_vec()]);
    let before = dropped(&p);
    for _ in 0..3 {
        p.server.handle_datagram(p.now, client_addr(), &d);
    }
    assert!(
        server_app_events(&mut p).is_empty(),
        "a replay was delivered"
    );
    assert_eq!(dropped(&p), before + 3);
    assert_eq!(p.server.session_count(), 1);
    assert!(p.server_established());
}

#[test]
fn old_record_outside_window_is_dropped_and_reordering_inside_accepted() {
    let mut p = established();
    let first = app_datagram(&mut p, b"0");
    let mut later = vec![];
    for i in 1..=70u8 {
        later.push(app_datagram(&mut p, &[i]));
    }
    // deliver 70 newer records, then the first (65+ behind): dropped
    for d in &later[..69] {
        p.server.handle_datagram(p.now, client_addr(), d);
    }
    assert_eq!(server_app_events(&mut p).len(), 69);
    p.server.handle_datagram(p.now, client_addr(), &first);
    assert!(server_app_events(&mut p).is_empty());
    // the 70th arrives late but within the window: accepted
    let _ = later
        .pop()
        .map(|d| p.server.handle_datagram(p.now, client_addr(), &d));
    assert_eq!(server_app_events(&mut p), vec![vec![70u8]]);
}

#[test]
fn flipped_bits_are_dropped_silently() {
    let mut p = established();
    let d = app_datagram(&mut p, b"integrity");
    for i in 0..d.len() * 8 {
        let mut m = d.clone();
        m[i / 8] ^= 1 << (i % 8);
        p.server.handle_datagram(p.now, client_addr(), &m);
    }
    let got = server_app_events(&mut p);
    // Only a flip in the 13-byte header's sequence-number bits that still
    // authenticate is impossible: every flip must be rejected.
    assert!(got.is_empty(), "{got:?}");
    assert!(
        p.server_established(),
        "established session survives forgeries"
    );
    // the original still works afterwards
    p.server.handle_datagram(p.now, client_addr(), &d);
    assert_eq!(server_app_events(&mut p), vec![b"integrity".to_vec()]);
}

#[test]
fn truncated_datagrams_are_dropped() {
    let mut p = established();
    let d = app_datagram(&mut p, b"truncate me");
    for n in 0..d.len() {
        p.server.handle_datagram(p.now, client_addr(), &d[..n]);
    }
    assert!(server_app_events(&mut p).is_empty());
    assert!(p.server_established());
    // truncated handshake datagrams from a new address: no state
    for d in p.c2s.clone() {
        for n in 0..d.len() {
            p.server
                .handle_datagram(p.now, "10.9.9.9:9".parse().unwrap(), &d[..n]);
        }
    }
    assert_eq!(p.server.session_count(), 1);
}

#[test]
fn random_bytes_create_no_state() {
    let mut p = established();
    let mut r = rng(99);
    for i in 0..5000u32 {
        let n = (r.next_u32() % 300) as usize;
        let mut d = vec![0u8; n];
        r.fill_bytes(&mut d);
        if i % 2 == 0 && n > 13 {
            // look like a DTLS handshake record to get past the first checks
            d[0] = 22;
            d[1] = 0xfe;
            d[2] = 0xfd;
        }
        let from = format!("10.0.{}.{}:{}", i % 200, i % 7, 1000 + i % 5)
            .parse()
            .unwrap();
        p.server.handle_datagram(p.now, from, &d);
        p.server.handle_datagram(p.now, client_addr(), &d);
        p.client.handle_datagram(p.now, &d);
    }
    assert_eq!(p.server.session_count(), 1);
    assert!(p.server_established() && p.client.is_established());
    p.exchange(b"still fine");
}

#[test]
fn client_hello_flood_without_cookie_creates_no_state() {
    let cfg = Arc::new(ServerConfig::psk(Config::default(), IDENTITY, PSK));
    let mut server = Server::new(cfg, rng(5), 0).unwrap();
    let ccfg = Arc::new(dtls::ClientConfig::psk(Config::default(), IDENTITY, PSK));
    let mut r = rng(6);
    let n = 5000u32;
    for i in 0..n {
        let mut c = dtls::Connection::client(ccfg.clone(), &mut r, 0).unwrap();
        let hello = c.poll_transmit(0).unwrap();
        let from = format!("10.{}.{}.{}:5684", i >> 16, (i >> 8) & 255, i & 255)
            .parse()
            .unwrap();
        server.handle_datagram(u64::from(i), from, &hello);
        // and a hello with a forged cookie
        let mut forged = hello.clone();
        let cookie_len_at = 13 + 12 + 2 + 32 + 1;
        forged[cookie_len_at] = 16;
        forged.splice(cookie_len_at + 1..cookie_len_at + 1, [0xAA; 16]);
        let len = u16::from_be_bytes([forged[11], forged[12]]) + 16;
        forged[11..13].copy_from_slice(&len.to_be_bytes());
        for off in [14usize, 22] {
            // handshake length and fragment_length (24-bit)
            let v = u32::from_be_bytes([0, forged[off], forged[off + 1], forged[off + 2]]) + 16;
            forged[off..off + 3].copy_from_slice(&v.to_be_bytes()[1..]);
        }
        server.handle_datagram(u64::from(i), from, &forged);
    }
    assert_eq!(server.session_count(), 0);
    assert_eq!(server.stats().hello_verify_requests, 2 * u64::from(n));
    assert!(server.poll_timeout().is_none(), "no timers, no state");
    let mut hvr = 0;
    while let Some(t) = server.poll_transmit(0) {
        assert!(
            t.payload.len() < 80,
            "HelloVerifyRequest must be small (no amplification)"
        );
        hvr += 1;
    }
    assert_eq!(hvr, 2 * n);
}

#[test]
fn cookie_is_bound_to_the_address() {
    let mut p = Pair::psk(Config::default(), Config::default(), 31);
    // run the cookie exchange, then replay the client's second hello from
    // another address
    p.handshake();
    let ch2 = p.c2s[1].clone();
    p.server
        .handle_datagram(p.now, "192.0.2.1:4444".parse().unwrap(), &ch2);
    assert_eq!(p.server.session_count(), 1);
    assert_eq!(p.server.stats().hello_verify_requests, 2);
}

#[test]
fn server_handshake_state_expires_when_client_vanishes() {
    let mut p = Pair::psk(Config::default(), Config::default(), 32);
    // deliver hello, HVR, hello-with-cookie; then cut the link
    p.run_until(0, |p| p.server.session_count() == 1);
    assert_eq!(p.server.session_count(), 1);
    p.loss = Some((rng(0), 1.0));
    p.run_until(3_600_000_000, |_| false);
    assert_eq!(
        p.server.session_count(),
        0,
        "half-open session must time out"
    );
}

#[test]
fn without_a_half_open_timeout_a_waiting_session_asks_for_no_timer() {
    // Found by fuzzing (fuzz/corpus/dtls12_server/regression-no-timer): a
    // session made by the cookie-carrying first fragment of a ClientHello
    // waits for the rest with no timer of its own; without a half-open
    // timeout (u64::MAX) the server then said "call handle_timeout at
    // the end of time" (Some(u64::MAX)) instead of "no timer", and a driver
    // that ran its clock to that deadline overflowed.
    let client = Config {
        max_fragment_len: 40,
        packing: dtls::RecordPacking::OneRecordPerDatagram,
        ..Config::default()
    };
    let mut server = dtls::ServerConfig::psk(Config::default(), IDENTITY, PSK);
    server.half_open_timeout_us = u64::MAX;
    let mut p = Pair::new(dtls::ClientConfig::psk(client, IDENTITY, PSK), server, 33);
    // of the hello with the cookie (message_seq 1) only the first fragment
    p.tamper = Some(Box::new(|c2s, _, d| {
        let later_fragment_of_second_hello =
            d.len() > 25 && d[13] == 1 && d[17..19] == [0, 1] && d[19..22] != [0, 0, 0];
        if c2s && later_fragment_of_second_hello {
            vec![]
        } else {
            vec![d]
        }
    }));
    p.run_until(0, |_| false);
    assert_eq!(p.server.session_count(), 1);
    assert_eq!(
        p.server.session(&client_addr()).unwrap().poll_timeout(),
        None
    );
    assert_eq!(
        p.server.poll_timeout(),
        None,
        "no timer, not one at the end of time"
    );
}

#[test]
fn late_duplicate_hello_does_not_kill_the_session_but_a_restart_replaces_it() {
    let mut p = established();
    let ch2 = p.c2s[1].clone();
    p.server.handle_datagram(p.now, client_addr(), &ch2);
    assert!(p.server_established(), "duplicate hello must not reset");
    p.exchange(b"still here");
    // The client restarts with a new random on the same address.
    let ccfg = Arc::new(dtls::ClientConfig::psk(Config::default(), IDENTITY, PSK));
    p.client = dtls::Connection::client(ccfg, &mut rng(1234), p.now).unwrap();
    p.client_events.clear();
    p.handshake();
    assert!(p.client.is_established() && p.server_established());
    assert_eq!(p.server.stats().sessions_created, 2);
    p.exchange(b"new session");
}

#[test]
fn unauthenticated_junk_cannot_kill_an_established_session() {
    let mut p = established();
    let mut junk = vec![
        // epoch-0 handshake record whose fragment header does not parse
        vec![22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 99, 0, 3, 1, 2, 3],
        // epoch-0 fatal alert, epoch-0 bad CCS, epoch-0 application data
        vec![21, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 100, 0, 2, 2, 40],
        vec![20, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 101, 0, 1, 7],
        vec![23, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 102, 0, 1, 7],
    ];
    // epoch-0 future handshake messages (would be buffered)
    for seq in 10u8..40 {
        let mut d = vec![22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 1, seq, 0, 12 + 4];
        d.extend_from_slice(&[1, 0, 0x10, 0, 0, 0, seq, 0, 0, 0, 0, 4, 9, 9, 9, 9]);
        junk.push(d);
    }
    let before = p.server.session(&client_addr()).unwrap().state_bytes();
    for d in &junk {
        p.server.handle_datagram(p.now, client_addr(), d);
        p.client.handle_datagram(p.now, d);
    }
    assert!(p.client.is_established() && p.server_established());
    assert_eq!(
        p.server.session(&client_addr()).unwrap().state_bytes(),
        before
    );
    p.exchange(b"unharmed");
}

#[test]
fn forged_plaintext_finished_does_not_trigger_retransmission() {
    let mut p = established();
    let before = p
        .server
        .session(&client_addr())
        .unwrap()
        .stats()
        .retransmissions;
    // epoch-0 handshake record claiming to be the client's Finished
    // (message_seq 3: hello, hello+cookie... the client's Finished is 3)
    let mut d = vec![22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 50, 0, 24];
    d.extend_from_slice(&[20, 0, 0, 12, 0, 3, 0, 0, 0, 0, 0, 12]);
    d.extend_from_slice(&[0; 12]);
    let sent = p.s2c.len();
    p.server.handle_datagram(p.now, client_addr(), &d);
    assert!(
        p.server.poll_transmit(p.now).is_none(),
        "no answer to a forgery"
    );
    assert_eq!(p.s2c.len(), sent);
    let s = p.server.session(&client_addr()).unwrap();
    assert_eq!(s.stats().retransmissions, before);
}
