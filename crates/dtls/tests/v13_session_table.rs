//! The DTLS 1.3 server endpoint keeps its sessions in the same session
//! table, with the same admission rules, as the 1.2 server: half-open limit, half-open timeout, per-address cap and eviction.
//! Before, `Server13` only counted its sessions: sixteen cookie-verified
//! ClientHellos from one address that went silent filled it, and a
//! legitimate client was refused until their sessions' own retransmissions
//! gave up (about two minutes).

use std::net::SocketAddr;
use std::sync::Arc;

use dtls::session_table::{Limits, Policy};
use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::Server13;
use dtls::Session;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const IDENTITY: &[u8] = b"Client_identity";
const PSK: &[u8] = &[7; 16];

fn at(host: u8, port: u16) -> SocketAddr {
    SocketAddr::from(([10, 0, 0, host], port))
}

fn server(config: ServerConfig13) -> Server13<ChaCha20Rng> {
    Server13::new(Arc::new(config), ChaCha20Rng::seed_from_u64(1), 0).unwrap()
}

fn client(seed: u64) -> Connection13 {
    let c = ClientConfig13::psk(Config13::default(), IDENTITY, PSK);
    Connection13::client(Arc::new(c), &mut ChaCha20Rng::seed_from_u64(seed), 0).unwrap()
}

/// Datagrams between `c` at `from` and the server at `now` until nothing
/// moves; what the server sends to other addresses is dropped.
fn exchange(s: &mut Server13<ChaCha20Rng>, c: &mut Connection13, from: SocketAddr, now: u64) {
    for _ in 0..10 {
        let mut moved = false;
        while let Some(d) = c.poll_transmit(now) {
            s.handle_datagram(now, from, &d);
            moved = true;
        }
        while let Some(t) = s.poll_transmit(now) {
            if t.destination == from {
                c.handle_datagram(now, &t.payload);
            }
            moved = true;
        }
        if !moved {
            return;
        }
    }
}

/// From `from`: ClientHello, the HelloRetryRequest, ClientHello with the
/// cookie (the server now holds a half-open handshake), then silence.
fn silent_after_cookie(s: &mut Server13<ChaCha20Rng>, from: SocketAddr, seed: u64, now: u64) {
    let mut c = client(seed);
    let hello = c.poll_transmit(now).unwrap();
    s.handle_datagram(now, from, &hello);
    let hrr = s.poll_transmit(now).expect("HelloRetryRequest");
    c.handle_datagram(now, &hrr.payload);
    let with_cookie = c.poll_transmit(now).unwrap();
    s.handle_datagram(now, from, &with_cookie);
    while s.poll_transmit(now).is_some() {}
}

fn guarded() -> ServerConfig13 {
    let mut config = ServerConfig13::psk(Config13::default(), IDENTITY, PSK);
    config.set_session_limits(Limits::guarded(16), Policy::EvictHalfOpen);
    config
}

#[test]
fn sixteen_silent_handshakes_from_one_address_do_not_lock_out_new_clients() {
    let mut s = server(guarded());
    // one handshake per 100 ms from the address (the per-host rate)
    for i in 0..16 {
        let now = u64::from(i) * 100_000;
        silent_after_cookie(&mut s, at(1, 1000 + i), 100 + u64::from(i), now);
    }
    // a new client from another address, then one from the attacker's
    for (from, seed) in [(at(2, 5000), 5), (at(1, 5000), 6)] {
        let mut c = client(seed);
        exchange(&mut s, &mut c, from, 2_000_000);
        assert!(c.is_established(), "client at {from} locked out");
    }
    let stats = s.stats();
    // four sessions per address at most: each silent hello past the fourth,
    // and the client from the attacker's address, pushed out that
    // address's oldest half-open handshake (as the 1.2 server does)
    assert_eq!(stats.evicted, 13, "{stats:?}");
    assert_eq!(stats.refused_full, 0);
}

#[test]
fn a_silent_handshake_frees_its_slot_at_the_half_open_timeout() {
    let mut config = ServerConfig13::psk(Config13::default(), IDENTITY, PSK);
    config.max_sessions = 1;
    config.half_open_timeout_us = 3_000_000;
    let mut s = server(config);
    silent_after_cookie(&mut s, at(1, 1000), 1, 0);
    assert_eq!(s.session_count(), 1);
    // refused while the slot is held (fatal handshake_failure)
    let mut early = client(2);
    exchange(&mut s, &mut early, at(2, 1000), 1_000_000);
    assert!(!early.is_established());
    assert_eq!(s.stats().refused_full, 1);
    // the server's timers (its flight resent at 1 s, then the half-open
    // timeout at 3 s, which frees the slot)
    while let Some(t) = s.poll_timeout().filter(|t| *t <= 3_000_000) {
        s.handle_timeout(t);
        while s.poll_transmit(t).is_some() {}
    }
    assert_eq!(s.session_count(), 0);
    assert_eq!(s.stats().expired_half_open, 1);
    let mut late = client(3);
    exchange(&mut s, &mut late, at(2, 1001), 3_000_000);
    assert!(late.is_established());
}

#[test]
fn the_default_refuses_when_full_as_the_12_server_does() {
    let config = ServerConfig13::psk(Config13::default(), IDENTITY, PSK);
    let twelve = dtls::ServerConfig::psk(dtls::Config::default(), IDENTITY, PSK);
    assert_eq!(config.session_limits(), twelve.session_limits());
    assert_eq!(config.eviction, twelve.eviction);
}

/// Sixteen clients complete their handshakes and vanish without a
/// close_notify the server hears. Before, they held the
/// table forever (no idle timeout by default, none on the command line):
/// every newcomer was refused. Guarded, a newcomer is admitted once they
/// have been silent 60 s (the longest-silent slot is taken), and the idle
/// timeout frees them all within the hour.
#[test]
fn vanished_clients_lock_no_one_out_for_longer_than_the_idle_bound() {
    use dtls::session_table::{IDLE_EVICTABLE_US, IDLE_TIMEOUT_US};
    let mut s = server(guarded());
    for i in 0..16u8 {
        let mut c = client(200 + u64::from(i));
        exchange(&mut s, &mut c, at(10 + i, 1000), 0);
        assert!(c.is_established());
    }
    let mut refused = client(7);
    exchange(&mut s, &mut refused, at(99, 1), 30_000_000);
    assert!(!refused.is_established());
    assert_eq!(s.stats().refused_full, 1);
    let mut admitted = client(8);
    exchange(&mut s, &mut admitted, at(99, 2), IDLE_EVICTABLE_US + 1);
    assert!(admitted.is_established());
    assert_eq!(s.stats().evicted, 1);
    assert!(
        s.session(&at(10, 1000)).is_none(),
        "the longest silent went"
    );
    // the idle timeout: the server wakes up for it and closes the rest
    while let Some(t) = s.poll_timeout().filter(|t| *t <= IDLE_TIMEOUT_US + 1) {
        s.handle_timeout(t);
        while s.poll_transmit(t).is_some() {}
    }
    assert_eq!(s.stats().expired_idle, 15);
    assert_eq!(s.session_count(), 1);
}

/// A device that reboots on the same port while its handshake is half-open:
/// its new ClientHello carries a new random, so it is a
/// new association that replaces the stale one once its cookie verifies
/// (RFC 6347 §4.2.8, which RFC 9147 §5.1 keeps). Before, every datagram
/// from the address went to the stale handshake, which ignored the new
/// hello: the device waited until that handshake gave up (about two
/// minutes); 1.2 took one round trip.
#[test]
fn a_device_restarting_on_the_same_port_replaces_its_stale_handshake() {
    let mut s = server(ServerConfig13::psk(Config13::default(), IDENTITY, PSK));
    let home = at(1, 1000);
    silent_after_cookie(&mut s, home, 1, 0);
    assert_eq!(s.session_count(), 1);
    let mut rebooted = client(2);
    exchange(&mut s, &mut rebooted, home, 3_000_000);
    assert!(
        rebooted.is_established(),
        "restart at once, not after the stale one gives up"
    );
    assert_eq!(s.session_count(), 1);
}
