//! DTLS 1.2 connection IDs (RFC 9146): negotiation (both ways, zero
//! length, refused), tls12_cid records on the wire, and a peer that
//! changes address keeping its session at the endpoint only when a newer
//! record authenticates.

mod common;

use common::{client_addr, Pair};
use dtls::Session;
use dtls::{CipherSuite, Config, Event};
use std::net::SocketAddr;

fn with_cid(cid_len: Option<usize>) -> Config {
    Config {
        cid_len,
        cipher_suites: vec![CipherSuite::PskAes128Ccm8],
        ..Config::default()
    }
}

fn connected(client: Option<usize>, server: Option<usize>) -> Pair {
    let mut p = Pair::psk(with_cid(client), with_cid(server), 9);
    p.handshake();
    assert!(p.client.is_established() && p.server_established());
    p.exchange(b"ping");
    p
}

/// Length of a PSK-CCM8 application record carrying `n` bytes: header,
/// CID, explicit nonce, DTLSInnerPlaintext (data and type byte), tag.
fn cid_record_len(cid: usize, n: usize) -> usize {
    13 + cid + 8 + n + 1 + 8
}

#[test]
fn cids_both_ways_put_tls12_cid_records_on_the_wire() {
    let p = connected(Some(4), Some(3));
    assert!(p.client.cid_negotiated());
    assert!(p.server.session(&client_addr()).unwrap().cid_negotiated());
    let to_server = p.c2s.last().unwrap();
    let to_client = p.s2c.last().unwrap();
    assert_eq!(to_server[0], 25);
    assert_eq!(to_server.len(), cid_record_len(3, 4));
    assert_eq!(to_client[0], 25);
    assert_eq!(to_client.len(), cid_record_len(4, 4));
}

#[test]
fn zero_length_cid_keeps_ordinary_records_that_way() {
    // The client wants no CID: the server sends ordinary records.
    let p = connected(Some(0), Some(2));
    assert!(p.client.cid_negotiated());
    assert_eq!(p.c2s.last().unwrap()[0], 25);
    assert_eq!(p.c2s.last().unwrap().len(), cid_record_len(2, 4));
    assert_eq!(p.s2c.last().unwrap()[0], 23);
    assert_eq!(p.s2c.last().unwrap().len(), 13 + 8 + 4 + 8);
}

#[test]
fn server_without_cid_ignores_the_offer() {
    let p = connected(Some(4), None);
    assert!(!p.client.cid_negotiated());
    assert_eq!(p.c2s.last().unwrap()[0], 23);
    assert_eq!(p.s2c.last().unwrap()[0], 23);
}

#[test]
fn a_client_without_cid_is_unaffected_by_a_cid_server() {
    let p = connected(None, Some(4));
    assert!(!p.client.cid_negotiated());
    assert_eq!(p.c2s.last().unwrap()[0], 23);
}

fn delivered(p: &mut Pair, from: SocketAddr, d: &[u8]) -> Vec<Event> {
    p.now += 1_000;
    p.server.handle_datagram(p.now, from, d);
    let mut out = Vec::new();
    while let Some((a, e)) = p.server.poll_event() {
        assert_eq!(a, from);
        out.push(e);
    }
    out
}

#[test]
fn session_follows_a_new_address_only_on_a_newer_authenticated_record() {
    let mut p = connected(Some(4), Some(5));
    let moved: SocketAddr = "[fe80::2]:40000".parse().unwrap();
    let elsewhere: SocketAddr = "[fe80::3]:40001".parse().unwrap();
    p.client.send(b"from a new port").unwrap();
    let d = p.client.poll_transmit(p.now).unwrap();
    // a forged record with the right CID does not authenticate: no move
    let mut forged = d.clone();
    *forged.last_mut().unwrap() ^= 1;
    forged[10] = forged[10].wrapping_add(1); // newer sequence number
    assert!(delivered(&mut p, elsewhere, &forged).is_empty());
    assert!(p.server.session(&client_addr()).is_some());
    assert_eq!(p.server.stats().address_changes, 0);
    // the real one moves the session
    let got = delivered(&mut p, moved, &d);
    assert_eq!(
        got,
        vec![Event::ApplicationData(b"from a new port".to_vec())]
    );
    assert!(p.server.session(&client_addr()).is_none());
    assert!(p.server.session(&moved).is_some());
    assert_eq!(p.server.stats().address_changes, 1);
    // a replay of it from elsewhere is dropped and moves nothing
    assert!(delivered(&mut p, elsewhere, &d).is_empty());
    assert!(p.server.session(&moved).is_some());
    assert_eq!(p.server.stats().address_changes, 1);
    // the server answers at the new address
    p.server.send(moved, b"pong").unwrap();
    let t = p.server.poll_transmit(p.now).unwrap();
    assert_eq!(t.destination, moved);
    p.client.handle_datagram(p.now, &t.payload);
    let ev: Vec<Event> = std::iter::from_fn(|| p.client.poll_event()).collect();
    assert!(ev.contains(&Event::ApplicationData(b"pong".to_vec())));
}

#[test]
fn without_cid_a_new_address_is_a_stranger() {
    let mut p = connected(None, None);
    p.client.send(b"x").unwrap();
    let d = p.client.poll_transmit(p.now).unwrap();
    let moved: SocketAddr = "[fe80::2]:40000".parse().unwrap();
    assert!(delivered(&mut p, moved, &d).is_empty());
    assert!(p.server.session(&moved).is_none());
    assert_eq!(p.server.stats().dropped, 1);
}

#[test]
fn cid_lengths_above_the_rfc_bound_are_refused() {
    let cfg = dtls::ClientConfig::psk(with_cid(Some(256)), b"id", &[1; 16]);
    let mut rng = common::rng(1);
    assert!(dtls::Connection::client(std::sync::Arc::new(cfg), &mut rng, 0).is_err());
}
