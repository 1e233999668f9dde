//! Clients that pass the cookie exchange and go silent must not lock new
//! clients out of our server: over real UDP on loopback.

mod common;

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use dtls::session_table::{Limits, Policy};
use dtls::Session;
use dtls::{ClientConfig, Config, Connection, ServerConfig};
use dtls_udp::{run_client, ClientOptions};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// From a fresh port on 127.0.0.1: ClientHello, the HelloVerifyRequest,
/// ClientHello with the cookie (the server now holds a half-open
/// handshake), then silence. Returns the socket so the port stays taken.
fn silent_after_cookie(server: SocketAddr, seed: u64) -> UdpSocket {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.connect(server).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let cfg = Arc::new(ClientConfig::psk(Config::default(), IDENTITY, PSK));
    let mut conn = Connection::client(cfg, &mut ChaCha20Rng::seed_from_u64(seed), 0).unwrap();
    let hello = conn.poll_transmit(0).unwrap();
    sock.send(&hello).unwrap();
    let mut buf = [0u8; 2048];
    let n = sock.recv(&mut buf).expect("HelloVerifyRequest");
    conn.handle_datagram(0, &buf[..n]);
    let with_cookie = conn.poll_transmit(0).unwrap();
    sock.send(&with_cookie).unwrap();
    // the server's flight: it has created the session
    sock.recv(&mut buf).expect("ServerHello … ServerHelloDone");
    sock
}

#[test]
fn sixteen_silent_handshakes_from_one_ip_do_not_lock_out_new_clients() {
    let mut config = ServerConfig::psk(Config::default(), IDENTITY, PSK);
    config.set_session_limits(Limits::guarded(16), Policy::EvictHalfOpen);
    let (port, server) = our_server(config, 1, stop_after_sessions_ended(20, 2));
    // one handshake per 100 ms from an address is all the guarded server
    // starts (Limits::guarded's per-host rate): the silent ones are paced
    // so each takes a slot, as a patient attacker's would
    let _silent: Vec<UdpSocket> = (0..16)
        .map(|i| {
            std::thread::sleep(Duration::from_millis(110));
            silent_after_cookie(addr(port), 100 + i)
        })
        .collect();
    // A new client from another address, then one from the attacker's.
    for (bind, seed) in [("127.0.0.2:0", 5), ("127.0.0.1:0", 6)] {
        let mut opts = ClientOptions::psk(addr(port), Config::default(), IDENTITY, PSK);
        opts.bind = Some(bind.parse().unwrap());
        opts.handshake_timeout = Duration::from_secs(5);
        opts.seed = Some(seed);
        let c = run_client(&opts);
        assert!(c.is_ok(), "client from {bind} locked out: {:?}", c.err());
        assert_eq!(c.unwrap().received, opts.messages, "echo from {bind}");
    }
    let s = server.join().unwrap();
    assert_eq!(s.handshakes.len(), 2);
    // Four half-open handshakes per address at most: each silent hello
    // past the fourth, and the legitimate client from 127.0.0.1, pushed
    // out that address's oldest half-open handshake.
    assert_eq!(s.endpoint.evicted, 13, "{:?}", s.endpoint);
    assert_eq!(s.endpoint.refused_full, 0);
}
