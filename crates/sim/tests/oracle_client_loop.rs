//! The Cooja oracles' client loop (reference/cooja, fw/dtls-node.c) as a
//! workload: handshakes back to back after 1 s + U(0, 1 s), no
//! close_notify, a server holding one peer that a new session replaces,
//! and a handshake given up after 60 s of silence with nothing to resend.

mod common;

use dtls::session_table::Policy;
use dtls::{ClientConfig, Config, ServerConfig};
use sim::mac::csma::CsmaParams;
use sim::row::Value;
use sim::run::run_traced;
use sim::scenario::{MacSpec, Scenario, TopologySpec, Workload};
use sim::trace::Trace;

const PSK: &[u8] = b"0123456789abcdef";
const S: u64 = 1_000_000;

/// `count` tinyDTLS handshakes over one CSMA hop, the server holding one
/// session (a newcomer evicts it), pauses of 1 s + U(0, `jitter_us`).
fn oracle_loop(count: u32, jitter_us: u64, close_notify: bool) -> Scenario {
    let config = Config::tinydtls_like();
    let mut server = ServerConfig::psk(config.clone(), b"id", PSK);
    server.max_sessions = 1;
    server.eviction = Policy::EvictOldest;
    let workload = Workload::Handshakes {
        client: ClientConfig::psk(config, b"id", PSK),
        server,
        count,
        pause_us: S,
        pause_jitter_us: jitter_us,
    };
    let mut s = common::scenario(
        TopologySpec::line(2, 1.0),
        1,
        MacSpec::Csma(CsmaParams::default()),
        workload,
        3,
    );
    s.close_notify = close_notify;
    s.give_up_idle_us = Some(60 * S);
    s
}

/// When the client sent each DTLS message of `name`.
fn client_sent(trace: &Trace, name: &str) -> Vec<u64> {
    trace
        .events
        .iter()
        .filter(|e| e.node == 0 && e.layer == "dtls" && e.kind == "tx" && e.message == name)
        .map(|e| e.at)
        .collect()
}

#[test]
fn the_oracle_client_drops_its_session_silently_and_pauses_one_to_two_seconds() {
    let (with_close, trace) = run_traced(&oracle_loop(4, S, true), 0, 100_000).unwrap();
    assert_eq!(
        client_sent(&trace, "Alert").len(),
        4,
        "one close_notify each"
    );
    let (silent, trace) = run_traced(&oracle_loop(4, S, false), 0, 100_000).unwrap();
    assert!(client_sent(&trace, "Alert").is_empty());
    for rows in [&with_close.rows, &silent.rows] {
        assert_eq!(rows.len(), 4);
        assert!(rows
            .iter()
            .all(|r| common::get(r, "success") == Value::Bool(true)));
    }
    // Each first ClientHello after the first comes 1 s + U(0, 1 s) after
    // the previous handshake ended (its last message, the server's
    // Finished, received): pauses within [1, 2) s, not all equal.
    let hellos = client_sent(&trace, "ClientHello");
    let finished: Vec<u64> = trace
        .events
        .iter()
        .filter(|e| e.node == 0 && e.layer == "dtls" && e.kind == "rx" && e.message == "Finished")
        .map(|e| e.at)
        .collect();
    assert_eq!(finished.len(), 4);
    let starts: Vec<u64> = finished[..3]
        .iter()
        .map(|&end| *hellos.iter().find(|&&h| h > end).unwrap())
        .collect();
    let pauses: Vec<u64> = starts.iter().zip(&finished).map(|(s, e)| s - e).collect();
    assert!(pauses.iter().all(|p| (S..2 * S).contains(p)), "{pauses:?}");
    assert!(pauses.windows(2).any(|w| w[0] != w[1]), "{pauses:?}");
}

#[test]
fn a_session_held_by_the_one_slot_is_replaced_by_the_next_handshake() {
    // Without a close_notify the server still holds each finished session
    // in its one slot when the next handshake's cookie exchange is done:
    // evict-oldest gives the slot to the newcomer, and every handshake
    // completes. Refusing instead, the second and later would fail.
    let (r, _) = run_traced(&oracle_loop(3, 0, false), 0, 100_000).unwrap();
    assert!(r
        .rows
        .iter()
        .all(|row| common::get(row, "success") == Value::Bool(true)));
    let mut refusing = oracle_loop(3, 0, false);
    if let Workload::Handshakes { server, .. } = &mut refusing.workload {
        server.eviction = Policy::Refuse;
    }
    let (r, _) = run_traced(&refusing, 0, 100_000).unwrap();
    let ok: Vec<bool> = r
        .rows
        .iter()
        .map(|row| common::get(row, "success") == Value::Bool(true))
        .collect();
    assert_eq!(ok, [true, false, false]);
}

#[test]
fn a_client_with_nothing_to_resend_gives_up_after_60_s_of_silence() {
    // The server's Finished is lost: tinyDTLS's client cleared its queue on
    // the server's ChangeCipherSpec and has no timer left, and the server
    // never resends its last flight. The firmware gives up once nothing is
    // queued and nothing was heard for more than 60 s, checked every
    // second from the handshake's start: 61 s after the ChangeCipherSpec,
    // rounded up to the next whole second of the handshake.
    let s = oracle_loop(1, 0, false);
    let clean = sim::run::run_replication(&s, 0, true, &[]).unwrap();
    let frames = clean.frames.unwrap();
    // the server's data frames (CSMA's 5-byte ACKs aside): HelloVerifyRequest,
    // ServerHello, ServerHelloDone, ChangeCipherSpec, Finished
    let data: Vec<_> = frames
        .iter()
        .filter(|f| f.node == 1 && f.frame.len() > 5)
        .collect();
    assert_eq!(data.len(), 5);
    // the Finished and every CSMA retry of it
    let jam: Vec<_> = (0..8).map(|k| (1, data[4].ordinal + k)).collect();
    let lost = sim::run::run_replication(&s, 0, false, &jam).unwrap();
    let row = &lost.rows[0];
    assert_eq!(common::get(row, "success"), Value::Bool(false));
    let Value::Text(why) = common::get(row, "failure") else {
        panic!("no failure text")
    };
    assert!(why.starts_with("given up"), "{why}");
    let Value::Float(duration) = common::get(row, "give_up_s") else {
        panic!("no duration")
    };
    // the ChangeCipherSpec arrived within the first second of the handshake
    assert!((61.0..=62.0).contains(&duration), "{duration}");
}
