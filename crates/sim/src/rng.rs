//! Named random streams.
//!
//! A stream is a ChaCha8 generator whose 256-bit seed is the SHA-256 of
//! (scenario seed, replication, node, purpose). Nothing else feeds it, so the
//! draws of one node for one purpose do not depend on how many draws other
//! nodes or purposes made, on the order replications run, or on the worker.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};

/// What a stream is used for; each purpose of each node has its own stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// Frame delivery draws at a receiver.
    Channel,
    /// MAC backoffs, wake-up phases, cell placement.
    Mac,
    /// Application timing (pauses, start jitter).
    App,
    /// Randomness given to the DTLS stack (client random, cookies, keys).
    Dtls,
    /// Topology generation (positions, schedules shared by all nodes).
    Topology,
    /// CPU processing times.
    Cpu,
    /// A client's random pause between handshakes.
    Pause,
    /// Static per-link radio figures: shadowing, Pister-hack offsets.
    Shadowing,
    /// A node's routing protocol (RPL's Trickle, DAO and probing delays).
    Routing,
    /// A join proxy's key for the state it carries in its messages.
    JoinProxy,
    /// A node's power-on time within the scenario's power-on window.
    PowerOn,
}

impl Purpose {
    fn tag(self) -> u8 {
        match self {
            Purpose::Channel => 1,
            Purpose::Mac => 2,
            Purpose::App => 3,
            Purpose::Dtls => 4,
            Purpose::Topology => 5,
            Purpose::Cpu => 6,
            Purpose::Pause => 7,
            Purpose::Shadowing => 8,
            Purpose::Routing => 9,
            Purpose::JoinProxy => 10,
            Purpose::PowerOn => 11,
        }
    }
}

/// A stream for `node` (or `u64::MAX` for network-wide draws).
pub fn stream(seed: u64, replication: u64, node: u64, purpose: Purpose) -> ChaCha8Rng {
    let mut h = Sha256::new();
    h.update(b"dtlsim stream v1");
    h.update(seed.to_le_bytes());
    h.update(replication.to_le_bytes());
    h.update(node.to_le_bytes());
    h.update([purpose.tag()]);
    let digest: [u8; 32] = h.finalize().into();
    ChaCha8Rng::from_seed(digest)
}

/// SplitMix64's finaliser: a bijective mix of 64 bits. Draws that must not
/// depend on the order of events (a frame's delivery, a transmission's
/// success) are this mix of a stream's key and the frame's identity.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The top 53 bits as a uniform draw in [0, 1).
pub fn unit_interval(x: u64) -> f64 {
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// The stream for network-wide draws (topology, shared schedules).
pub const NETWORK: u64 = u64::MAX;

/// A uniform integer in `0..n` (0 when `n` is 0): the one kind of draw the
/// sans-IO protocol state machines (Trickle, 6P, MSF) make. Any stream is
/// one; a test can script the draws to check hand-computed sequences.
pub trait UniformBelow {
    /// A uniform draw in `0..n`.
    fn below(&mut self, n: u64) -> u64;
}

/// Draws scripted by a test: each `below(n)` pops the next value and checks
/// it is below `n`, so a sequence can be computed by hand.
#[cfg(test)]
pub(crate) struct Scripted(pub std::collections::VecDeque<u64>);

#[cfg(test)]
impl Scripted {
    pub(crate) fn new(v: &[u64]) -> Scripted {
        Scripted(v.iter().copied().collect())
    }
}

#[cfg(test)]
impl UniformBelow for Scripted {
    fn below(&mut self, n: u64) -> u64 {
        let v = self.0.pop_front().expect("script ran out of draws");
        assert!(v < n, "scripted draw {v} not below {n}");
        v
    }
}

impl<R: rand::Rng + ?Sized> UniformBelow for R {
    fn below(&mut self, n: u64) -> u64 {
        use rand::RngExt;
        if n == 0 {
            0
        } else {
            self.random_range(0..n)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn same_name_same_draws_different_name_different_draws() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = stream(1, 2, 3, Purpose::Mac);
                move |_| r.next_u64()
            })
            .collect();
        let mut again = stream(1, 2, 3, Purpose::Mac);
        assert!(a.iter().all(|&x| x == again.next_u64()));
        for other in [
            stream(2, 2, 3, Purpose::Mac),
            stream(1, 3, 3, Purpose::Mac),
            stream(1, 2, 4, Purpose::Mac),
            stream(1, 2, 3, Purpose::Channel),
        ] {
            let mut other = other;
            assert_ne!(other.next_u64(), a[0]);
        }
    }
}
