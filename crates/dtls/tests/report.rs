//! The numbers the issue asks for: bytes on the wire (UDP payload) and
//! datagrams of a full PSK-CCM8 handshake with the tightest settings and
//! with tinyDTLS-like settings, and the session state sizes. Run with
//! `--nocapture` to see the table.
//!
//! Reference (measured with tshark on loopback): OpenSSL 3.0 `s_client`
//! sends 6 datagrams, 625 B for a full PSK-CCM8 handshake. Target ≤ 460 B.

mod common;

use common::*;
use dtls::Session;
use dtls::{ClientConfig, Config, MessageKind, ServerConfig};

struct Measured {
    datagrams: usize,
    bytes: usize,
    client_hs_state: usize,
    server_hs_state: usize,
    client_state: usize,
    server_state: usize,
    client_compact: (usize, usize),
}

fn measure(client: Config, server: Config, cookie_len: usize) -> (Measured, Pair) {
    let mut s = ServerConfig::psk(server, IDENTITY, PSK);
    s.cookie_len = cookie_len;
    let mut p = Pair::new(ClientConfig::psk(client, IDENTITY, PSK), s, 1);
    let client_compact_hs = p.client.compact_state_bytes();
    // Largest state seen while the handshake runs: step datagram by
    // datagram and measure after each delivery.
    let (mut chs, mut shs) = (p.client.state_bytes(), 0);
    while !(p.client.is_established() && p.server_established()) {
        let mut moved = false;
        if let Some(d) = p.client.poll_transmit(p.now) {
            p.c2s.push(d.clone());
            p.server.handle_datagram(p.now, client_addr(), &d);
            moved = true;
        } else if let Some(t) = p.server.poll_transmit(p.now) {
            p.s2c.push(t.payload.clone());
            p.client.handle_datagram(p.now, &t.payload);
            moved = true;
        }
        assert!(moved, "handshake stalled");
        if !p.client.is_established() {
            chs = chs.max(p.client.state_bytes());
        }
        if let Some(s) = p.server.session(&client_addr()) {
            if !s.is_established() {
                shs = shs.max(s.state_bytes());
            }
        }
    }
    p.handshake();
    assert!(p.client.is_established() && p.server_established());
    let (datagrams, bytes) = p.handshake_bytes();
    let m = Measured {
        datagrams,
        bytes,
        client_hs_state: chs,
        server_hs_state: shs,
        client_state: p.client.state_bytes(),
        server_state: p.server.session(&client_addr()).unwrap().state_bytes(),
        client_compact: (p.client.compact_state_bytes(), client_compact_hs),
    };
    (m, p)
}

fn print(name: &str, m: &Measured, p: &Pair) {
    eprintln!("== {name}");
    eprintln!(
        "   handshake: {} datagrams, {} B UDP payload (c→s {} B in {} dg, s→c {} B in {} dg)",
        m.datagrams,
        m.bytes,
        p.c2s.iter().map(Vec::len).sum::<usize>(),
        p.c2s.len(),
        p.s2c.iter().map(Vec::len).sum::<usize>(),
        p.s2c.len()
    );
    for (k, b, n) in p.client.stats().sent.iter() {
        eprintln!("   client sent {:<20} {b:>4} B in {n} records", k.name());
    }
    for (k, b, n) in p.client.stats().received.iter() {
        eprintln!("   client recv {:<20} {b:>4} B in {n} records", k.name());
    }
    eprintln!("   client crypto: {:?}", p.client.stats().crypto);
    eprintln!(
        "   state (this implementation, struct + heap): client {} B established / {} B max during handshake; server session {} B / {} B",
        m.client_state, m.client_hs_state, m.server_state, m.server_hs_state
    );
    eprintln!(
        "   state (compact C layout of the same fields): {} B established / {} B during handshake (tinydtls: 240 + 72 B, 352 B)",
        m.client_compact.0, m.client_compact.1
    );
}

#[test]
fn handshake_bytes_tightest_settings() {
    let (m, p) = measure(Config::tightest_psk_ccm8(), Config::tightest_psk_ccm8(), 16);
    print(
        "PSK-CCM8, tightest (packed flights, no extensions, 16 B cookie)",
        &m,
        &p,
    );
    assert_eq!(m.datagrams, 6);
    assert!(m.bytes <= 460, "{} B", m.bytes);
    assert_eq!(m.bytes, 458);
    let (m8, p8) = measure(Config::tightest_psk_ccm8(), Config::tightest_psk_ccm8(), 8);
    print("PSK-CCM8, tightest with an 8 B cookie", &m8, &p8);
    assert_eq!(m8.bytes, 442);
}

#[test]
fn handshake_bytes_tinydtls_like_settings() {
    let (m, p) = measure(Config::tinydtls_like(), Config::tinydtls_like(), 16);
    print(
        "PSK-CCM8, tinyDTLS-like (one record per datagram, EMS)",
        &m,
        &p,
    );
    assert_eq!(m.datagrams, 10);
    assert_eq!(m.bytes, 476);
    assert_eq!(
        p.client.stats().sent.bytes(MessageKind::ChangeCipherSpec),
        14
    );
}

#[test]
fn handshake_bytes_default_settings() {
    let (m, p) = measure(Config::default(), Config::default(), 16);
    print(
        "default config (all suites offered, EMS, renegotiation_info)",
        &m,
        &p,
    );
    assert_eq!(m.datagrams, 6);
}
