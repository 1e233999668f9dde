//! The library's default server (`ServerConfig::psk`, no session limits
//! set) frees the slot of a handshake that goes silent after the cookie
//! exchange: a peer cannot hold a slot forever by default.

mod common;

use common::*;
use dtls::session_table::HALF_OPEN_TIMEOUT_US;
use dtls::Config;

/// The handshake message in `datagram` (one record, one whole handshake
/// message, epoch 0) but its last 8 bytes, as its first fragment: record
/// and fragment lengths rewritten, message length kept (RFC 6347 §4.2.3).
/// A ClientHello's cookie comes before its cipher suites, so the fragment
/// carries the whole cookie.
fn first_fragment(datagram: &[u8]) -> Vec<u8> {
    const RECORD_HEADER: usize = 13;
    const HANDSHAKE_HEADER: usize = 12;
    let body = datagram.len() - RECORD_HEADER - HANDSHAKE_HEADER;
    let part = body - 8;
    let mut d = datagram[..RECORD_HEADER + HANDSHAKE_HEADER + part].to_vec();
    let record_len = (HANDSHAKE_HEADER + part) as u16;
    d[11..13].copy_from_slice(&record_len.to_be_bytes());
    // fragment_length: the last three bytes of the handshake header
    let at = RECORD_HEADER + 9;
    d[at..at + 3].copy_from_slice(&(part as u32).to_be_bytes()[1..]);
    d
}

#[test]
fn a_silent_first_fragment_frees_its_slot_at_the_default_half_open_timeout() {
    let mut p = Pair::psk(Config::default(), Config::default(), 18);
    // hello (answered with a cookie), then only the first fragment of the
    // hello with the cookie; nothing more of the client ever arrives.
    p.tamper = Some(Box::new(|c2s, i, d| match (c2s, i) {
        (true, 1) => vec![first_fragment(&d)],
        (true, i) if i > 1 => vec![],
        _ => vec![d],
    }));
    p.run_until(0, |p| p.c2s.len() >= 2);
    assert_eq!(p.server.session_count(), 1, "the fragment took a slot");
    let taken = p.now;
    p.run_until(taken + HALF_OPEN_TIMEOUT_US - 100_000, |_| false);
    assert_eq!(p.server.session_count(), 1, "kept until its timeout");
    p.run_until(taken + HALF_OPEN_TIMEOUT_US, |_| false);
    assert_eq!(p.server.session_count(), 0, "freed at its timeout");
    assert_eq!(p.server.stats().expired_half_open, 1);
}
