//! Session resumption by session ID (RFC 5246 §7.3): the abbreviated
//! handshake when the server still holds the session, the full one when it
//! does not, in virtual time and under loss.

mod common;

use std::sync::Arc;

use common::*;
use dtls::{ClientConfig, Config, Connection, Event, ResumableSession, ServerConfig, Session};

fn server(cache: usize) -> ServerConfig {
    let mut s = ServerConfig::psk(Config::default(), IDENTITY, PSK);
    s.session_cache = cache;
    s
}

fn client_config() -> Arc<ClientConfig> {
    Arc::new(ClientConfig::psk(Config::default(), IDENTITY, PSK))
}

/// A pair after one full handshake with a server caching `cache` sessions.
fn first(cache: usize, seed: u64) -> Pair {
    let mut p = Pair::new(ClientConfig::clone(&client_config()), server(cache), seed);
    p.handshake();
    p.exchange(b"first");
    p
}

/// The same client comes back (same address, a fresh hello offering
/// `session`): run its handshake on the same server, from clean counters.
fn again(p: &mut Pair, session: ResumableSession, seed: u64) {
    let mut r = rng(seed);
    p.client = Connection::client_resuming(client_config(), session, &mut r, p.now).unwrap();
    p.client_events.clear();
    p.server_events.clear();
    p.c2s.clear();
    p.s2c.clear();
    p.handshake();
}

#[test]
fn a_returning_client_resumes_with_the_abbreviated_handshake() {
    let mut p = first(4, 1);
    assert!(!p.client.resumed());
    let (full_datagrams, full_bytes) = p.handshake_bytes();
    let session = p.client.resumable_session().cloned().expect("an ID");
    assert_eq!(session.session_id.len(), 32);
    assert_eq!(p.server.cached_sessions(), 1);
    again(&mut p, session.clone(), 2);
    assert!(p.client.resumed());
    let s = p.server.session(&client_addr()).unwrap();
    assert!(s.resumed() && s.is_established());
    // hello, HelloVerifyRequest, hello with cookie, ServerHello + CCS +
    // Finished, CCS + Finished: fewer datagrams and bytes than the full one
    let (datagrams, bytes) = p.handshake_bytes();
    assert!(
        datagrams < full_datagrams,
        "{datagrams} vs {full_datagrams}"
    );
    assert!(bytes < full_bytes, "{bytes} vs {full_bytes}");
    // the session stays resumable under its ID, and keys are fresh
    assert_eq!(p.client.resumable_session(), Some(&session));
    p.exchange(b"resumed");
    assert_eq!(p.client_events[0], Event::Connected);
}

#[test]
fn a_server_without_a_cache_gives_no_id_and_runs_the_full_handshake() {
    let p = first(0, 3);
    assert_eq!(p.client.resumable_session(), None);
    assert_eq!(p.server.cached_sessions(), 0);
}

#[test]
fn an_id_the_server_forgot_gets_the_full_handshake_under_a_new_id() {
    let p = first(4, 4);
    let session = p.client.resumable_session().cloned().unwrap();
    // a restarted server: same configuration, empty cache
    let mut p2 = Pair::new(ClientConfig::clone(&client_config()), server(4), 5);
    again(&mut p2, session.clone(), 6);
    assert!(!p2.client.resumed());
    assert!(p2.client.is_established());
    let new = p2.client.resumable_session().unwrap();
    assert_ne!(new.session_id, session.session_id);
    p2.exchange(b"full again");
}

#[test]
fn the_cache_keeps_the_newest_sessions() {
    let mut p = first(1, 7);
    let old = p.client.resumable_session().cloned().unwrap();
    // another full handshake (no ID offered) pushes the first one out
    let mut r = rng(8);
    p.client = Connection::client(client_config(), &mut r, p.now).unwrap();
    p.handshake();
    assert_eq!(p.server.cached_sessions(), 1);
    again(&mut p, old, 9);
    assert!(!p.client.resumed());
}

#[test]
fn an_abbreviated_handshake_survives_loss() {
    for seed in 10..30 {
        let mut p = first(4, seed);
        let session = p.client.resumable_session().cloned().unwrap();
        p.loss = Some((rng(seed + 100), 0.3));
        again(&mut p, session, seed + 200);
        assert!(
            p.client.is_established() && p.server_established(),
            "seed {seed}"
        );
        assert!(p.client.resumed(), "seed {seed}");
        p.loss = None;
        p.exchange(b"after loss");
    }
}

#[test]
fn a_session_made_with_the_extended_master_secret_needs_it_again() {
    let p = first(4, 40);
    let mut session = p.client.resumable_session().cloned().unwrap();
    assert!(
        session.extended_master_secret,
        "both sides offer EMS by default"
    );
    // the client claims the session had no EMS: the server must not resume
    session.extended_master_secret = false;
    let mut p = p;
    let mut r = rng(41);
    let mut cfg = ClientConfig::clone(&client_config());
    cfg.config.extensions.extended_master_secret = false;
    p.client = Connection::client_resuming(Arc::new(cfg), session, &mut r, p.now).unwrap();
    p.c2s.clear();
    p.s2c.clear();
    p.handshake();
    assert!(p.client.is_established());
    assert!(!p.client.resumed());
}
