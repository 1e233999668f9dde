//! A seeded loopback relay between one client and one server: a constant
//! one-way delay, the loss of a chosen datagram (the n-th in one
//! direction), and random loss drawn from a seeded generator. It counts
//! every datagram and byte the endpoints put on the wire, lost ones too,
//! which is what "bytes on the wire" of a lossy handshake means.
//!
//! Written here in Rust, one thread, so the delay it adds is not bound by a
//! Python interpreter's scheduling.

use std::collections::VecDeque;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

use crate::Error;

/// Which way a datagram travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the client (whoever sent the first datagram) to the server.
    ClientToServer,
    /// From the server back to the client.
    ServerToClient,
}

/// What the relay does to the datagrams it forwards.
#[derive(Clone, Debug)]
pub struct RelayOptions {
    /// The server the client's datagrams go to.
    pub upstream: SocketAddr,
    /// Added to every datagram, each way.
    pub one_way_delay: Duration,
    /// Lose the n-th (1-based) datagram going this way.
    pub drop_nth: Option<(Direction, u64)>,
    /// Probability of losing any datagram, each way, independently.
    pub loss: f64,
    /// Seed of the random losses.
    pub seed: u64,
}

/// Datagrams and bytes one direction carried; `dropped_*` included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WayCounts {
    /// Datagrams the sender put on the wire.
    pub datagrams: u64,
    /// Their UDP payload bytes.
    pub bytes: u64,
    /// Datagrams the relay lost.
    pub dropped_datagrams: u64,
    /// Their bytes.
    pub dropped_bytes: u64,
}

/// Both directions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RelayCounts {
    /// Client to server.
    pub client_to_server: WayCounts,
    /// Server to client.
    pub server_to_client: WayCounts,
}

/// A running relay; stops when dropped or by [`Relay::stop`].
#[derive(Debug)]
pub struct Relay {
    addr: SocketAddr,
    counts: Arc<Mutex<RelayCounts>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Relay {
    /// Bind on 127.0.0.1 (any port) and start forwarding to `upstream`.
    pub fn start(opts: RelayOptions) -> Result<Relay, Error> {
        if !(0.0..=1.0).contains(&opts.loss) {
            return Err(Error::Config(format!(
                "loss = {}: a probability in [0, 1]",
                opts.loss
            )));
        }
        let sock = UdpSocket::bind("127.0.0.1:0")?;
        let addr = sock.local_addr()?;
        let counts = Arc::new(Mutex::new(RelayCounts::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (c, s) = (counts.clone(), stop.clone());
        let thread = std::thread::spawn(move || forward(sock, opts, c, s));
        Ok(Relay {
            addr,
            counts,
            stop,
            thread: Some(thread),
        })
    }

    /// Where the client sends to.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// What was carried so far.
    pub fn counts(&self) -> RelayCounts {
        *self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stop forwarding (datagrams still delayed are not sent).
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop();
    }
}

fn forward(
    sock: UdpSocket,
    opts: RelayOptions,
    counts: Arc<Mutex<RelayCounts>>,
    stop: Arc<AtomicBool>,
) {
    let mut rng = ChaCha20Rng::seed_from_u64(opts.seed);
    let mut client: Option<SocketAddr> = None;
    let mut seen = [0u64; 2];
    // a constant delay keeps arrival order: a FIFO of (due, to, bytes)
    let mut queue: VecDeque<(Instant, SocketAddr, Vec<u8>)> = VecDeque::new();
    let mut buf = vec![0u8; 65536];
    const IDLE: Duration = Duration::from_millis(5);
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        while queue.front().is_some_and(|(due, _, _)| *due <= now) {
            let (_, to, d) = queue.pop_front().expect("front checked");
            let _ = sock.send_to(&d, to);
        }
        let wait = queue.front().map_or(IDLE, |(due, _, _)| {
            due.saturating_duration_since(now).min(IDLE)
        });
        if sock
            .set_read_timeout(Some(wait.max(Duration::from_micros(100))))
            .is_err()
        {
            return;
        }
        let Ok((n, from)) = sock.recv_from(&mut buf) else {
            continue;
        };
        let (to, way) = if from == opts.upstream {
            match client {
                Some(c) => (c, Direction::ServerToClient),
                None => continue,
            }
        } else {
            client = Some(from);
            (opts.upstream, Direction::ClientToServer)
        };
        let i = way as usize;
        seen[i] += 1;
        let lose = opts.drop_nth == Some((way, seen[i]))
            || (opts.loss > 0.0 && unit(&mut rng) < opts.loss);
        {
            let mut c = counts.lock().unwrap_or_else(|e| e.into_inner());
            let w = match way {
                Direction::ClientToServer => &mut c.client_to_server,
                Direction::ServerToClient => &mut c.server_to_client,
            };
            w.datagrams += 1;
            w.bytes += n as u64;
            if lose {
                w.dropped_datagrams += 1;
                w.dropped_bytes += n as u64;
            }
        }
        if !lose {
            queue.push_back((Instant::now() + opts.one_way_delay, to, buf[..n].to_vec()));
        }
    }
}

/// A uniform draw in [0, 1) from the top 53 bits.
fn unit(rng: &mut ChaCha20Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}
