//! The pause a client takes between two handshakes: a fixed part and an
//! optional uniform extra, or an exponential wait (a join's retry), drawn
//! from the client's own pause stream (so a run with neither draws nothing
//! and stays byte for byte as before).

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::rng::{stream, Purpose};
use crate::Time;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pause {
    pub fixed_us: Time,
    /// A uniform extra in [0, jitter_us); 0: none.
    pub jitter_us: Time,
    /// An exponential extra of this mean; 0: none.
    pub exponential_mean_us: f64,
}

impl Pause {
    pub fn new(fixed_us: Time, jitter_us: Time) -> Self {
        Pause {
            fixed_us,
            jitter_us,
            exponential_mean_us: 0.0,
        }
    }

    /// An exponential wait of mean `mean_us` (a node retrying a join as it
    /// first asked, after an exponential time).
    pub fn exponential(mean_us: f64) -> Self {
        Pause {
            exponential_mean_us: mean_us,
            ..Pause::fixed(0)
        }
    }

    pub fn fixed(fixed_us: Time) -> Self {
        Pause::new(fixed_us, 0)
    }
}

/// The pauses of one client node, in order.
#[derive(Debug)]
pub struct Pauses {
    pause: Pause,
    rng: ChaCha8Rng,
}

impl Pauses {
    pub fn new(pause: Pause, seed: u64, replication: u64, node: usize) -> Self {
        Pauses {
            pause,
            rng: stream(seed, replication, node as u64, Purpose::Pause),
        }
    }

    /// The next pause.
    pub fn next_us(&mut self) -> Time {
        if self.pause.exponential_mean_us > 0.0 {
            let extra =
                crate::app::sessions::exponential_us(&mut self.rng, self.pause.exponential_mean_us);
            return self.pause.fixed_us + extra;
        }
        if self.pause.jitter_us == 0 {
            return self.pause.fixed_us;
        }
        self.pause.fixed_us + self.rng.random_range(0..self.pause.jitter_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_extra_draws_nothing_and_an_extra_stays_in_its_window() {
        let mut fixed = Pauses::new(Pause::fixed(1_000_000), 1, 0, 3);
        assert!((0..10).all(|_| fixed.next_us() == 1_000_000));
        // 1 s + U[0, 1 s), as the Cooja oracles' firmware waits
        let mut p = Pauses::new(Pause::new(1_000_000, 1_000_000), 1, 0, 3);
        let draws: Vec<Time> = (0..1000).map(|_| p.next_us()).collect();
        assert!(draws.iter().all(|d| (1_000_000..2_000_000).contains(d)));
        let mean = draws.iter().sum::<Time>() as f64 / 1000.0;
        // the mean of 1000 uniform draws: 1.5 s ± 4 standard errors (289 ms / √1000)
        assert!(
            (mean - 1_500_000.0).abs() < 4.0 * 288_675.0 / 1000f64.sqrt(),
            "{mean}"
        );
        // another node, another stream
        let mut q = Pauses::new(Pause::new(1_000_000, 1_000_000), 1, 0, 4);
        assert_ne!(
            draws[..5],
            (0..5).map(|_| q.next_us()).collect::<Vec<_>>()[..]
        );
    }
}
