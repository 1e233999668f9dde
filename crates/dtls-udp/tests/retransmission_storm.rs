//! A peer that answers every datagram of ours by repeating its last flight
//! (wolfSSL does so when it cannot decrypt our Finished) must not drive our
//! client into a retransmission storm: over real UDP on loopback.

mod common;

use std::net::UdpSocket;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use dtls::{Config, Server, ServerConfig};
use dtls_udp::{run_client, ClientOptions};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// `datagram` with its records renumbered from `seq` (a genuine
/// retransmission: epoch-0 records are plaintext).
fn resequenced(datagram: &[u8], seq: u64) -> Vec<u8> {
    let mut d = datagram.to_vec();
    let (mut at, mut seq) = (0, seq);
    while at + 13 <= d.len() {
        d[at + 5..at + 11].copy_from_slice(&seq.to_be_bytes()[2..]);
        seq += 1;
        at += 13 + usize::from(u16::from_be_bytes([d[at + 11], d[at + 12]]));
    }
    d
}

/// Our sans-IO server until it has sent its ServerHello … ServerHelloDone;
/// from then on every datagram from the client is answered with that flight
/// again at once and never reaches the server. Returns the port and a handle
/// giving the number of datagrams received from the client in `run_for`.
fn repeating_peer(run_for: Duration) -> (u16, std::thread::JoinHandle<u64>) {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = sock.local_addr().unwrap().port();
    sock.set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let h = std::thread::spawn(move || {
        let cfg = Arc::new(ServerConfig::psk(Config::default(), IDENTITY, PSK));
        let mut server = Server::new(cfg, ChaCha20Rng::seed_from_u64(1), 0).unwrap();
        let start = Instant::now();
        let mut flight: Option<Vec<u8>> = None;
        let (mut received, mut seq) = (0u64, 1000u64);
        let mut buf = vec![0u8; 65536];
        while start.elapsed() < run_for {
            let Ok((n, from)) = sock.recv_from(&mut buf) else {
                continue;
            };
            received += 1;
            if let Some(f) = &flight {
                let _ = sock.send_to(&resequenced(f, seq), from);
                seq += 8;
                continue;
            }
            let now = start.elapsed().as_micros() as u64;
            server.handle_datagram(now, from, &buf[..n]);
            while let Some(t) = server.poll_transmit(now) {
                let _ = sock.send_to(&t.payload, t.destination);
                if server.session_count() == 1 {
                    flight = Some(t.payload);
                }
            }
        }
        received
    });
    (port, h)
}

#[test]
fn a_peer_repeating_its_flight_gets_at_most_one_resend_per_timer_interval() {
    let run_for = Duration::from_secs(3);
    let (port, peer) = repeating_peer(run_for + Duration::from_secs(1));
    let mut opts = ClientOptions::psk(addr(port), Config::default(), IDENTITY, PSK);
    opts.handshake_timeout = run_for;
    opts.seed = Some(3);
    let r = run_client(&opts);
    assert!(matches!(r, Err(dtls_udp::Error::HandshakeTimeout)), "{r:?}");
    let received = peer.join().unwrap();
    // In 3 s with the RFC 6347 timer (1 s, then 2 s): two hellos and the
    // final flight, its timer retransmission at 1 s, and at most one resend
    // on the peer's repeats per interval started (at 0, 1 and 3 s): 7 at
    // most. Without the limit: tens of thousands.
    assert!(
        (3..=7).contains(&received),
        "{received} datagrams from our client in 3 s"
    );
}
