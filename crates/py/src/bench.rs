//! `dtlsim bench` cases that time Rust code without Python in the loop.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use dtls::Session;
use dtls::{ClientConfig, Config, Connection, Server, ServerConfig};
use pyo3::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// Full PSK-AES128-CCM8 handshakes (with the cookie exchange), client and
/// server in memory, `n` times; returns the wall-clock seconds taken.
#[pyfunction]
pub fn bench_dtls_handshakes(py: Python<'_>, n: u64) -> f64 {
    py.detach(|| {
        let config = Config::tightest_psk_ccm8();
        let c = Arc::new(ClientConfig::psk(config.clone(), b"id", &[7; 16]));
        let s = Arc::new(ServerConfig::psk(config, b"id", &[7; 16]));
        let peer: SocketAddr = "[fe80::1]:5684".parse().expect("literal");
        let start = Instant::now();
        for seed in 0..n {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let mut server =
                Server::new(s.clone(), ChaCha20Rng::seed_from_u64(!seed), 0).expect("valid config");
            let mut client = Connection::client(c.clone(), &mut rng, 0).expect("valid config");
            while !client.is_established() {
                while let Some(d) = client.poll_transmit(0) {
                    server.handle_datagram(0, peer, &d);
                }
                while let Some(t) = server.poll_transmit(0) {
                    client.handle_datagram(0, &t.payload);
                }
            }
        }
        start.elapsed().as_secs_f64()
    })
}

/// The event-loop floor: the least a discrete-event simulator can spend per
/// event. A binary heap of 16-byte events (virtual time, event id) holding
/// `pending` of them; each of `events` steps pops the earliest and pushes
/// its successor a pseudo-random delay later, doing no work. Returns the
/// wall-clock seconds taken, on one thread.
#[pyfunction]
pub fn bench_event_loop_floor(py: Python<'_>, events: u64, pending: u64) -> f64 {
    py.detach(|| {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut delay = move || {
            // xorshift64: cheap, so the heap's cost is what is timed
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % 1_000_000
        };
        let mut heap: BinaryHeap<Reverse<(u64, u64)>> = (0..pending.max(1))
            .map(|id| Reverse((delay(), id)))
            .collect();
        let mut seen = 0u64;
        let start = Instant::now();
        for _ in 0..events {
            let Some(Reverse((t, id))) = heap.pop() else {
                break;
            };
            seen = seen.wrapping_add(id);
            heap.push(Reverse((t + 1 + delay(), id)));
        }
        let taken = start.elapsed().as_secs_f64();
        std::hint::black_box(seen);
        taken
    })
}
