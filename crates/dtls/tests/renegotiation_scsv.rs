//! RFC 5746 §3.4: a client offers secure renegotiation with the empty
//! renegotiation_info extension or the TLS_EMPTY_RENEGOTIATION_INFO_SCSV
//! cipher suite value, and a server that sees either answers with the
//! extension. Our 1.2 client sent neither when the extension was off (the
//! command line's setting), so a server that answers it anyway (pion, on
//! resumption) made it abort. It now offers the SCSV
//! (as the common stacks do) and takes the server's answer to it.

mod common;

use common::*;
use dtls::{Config, Session};

fn without_the_extension() -> Config {
    let mut c = Config::default();
    c.extensions.renegotiation_info = false;
    c
}

/// The cipher suites of the first ClientHello (record 13, handshake 12,
/// version 2, random 32, then session_id, cookie, suites).
fn offered_suites(hello: &[u8]) -> Vec<u16> {
    let mut at = 13 + 12 + 2 + 32;
    at += 1 + usize::from(hello[at]);
    at += 1 + usize::from(hello[at]);
    let n = usize::from(u16::from_be_bytes([hello[at], hello[at + 1]]));
    hello[at + 2..at + 2 + n]
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect()
}

#[test]
fn a_client_without_the_extension_offers_the_scsv_and_takes_the_answer() {
    let mut p = Pair::psk(without_the_extension(), Config::default(), 31);
    p.run_until(5_000_000, |p| p.client.is_established());
    assert!(p.client.is_established(), "{:?}", p.client_events);
    assert!(offered_suites(&p.c2s[0]).contains(&0x00ff));
}

#[test]
fn the_scsv_can_be_left_out() {
    let mut c = without_the_extension();
    c.extensions.renegotiation_scsv = false;
    let mut p = Pair::psk(c, Config::default(), 32);
    p.run_until(5_000_000, |p| p.client.is_established());
    assert!(p.client.is_established());
    assert!(!offered_suites(&p.c2s[0]).contains(&0x00ff));
}
