//! The Trickle algorithm (RFC 6206 §4), sans-IO, times in integer µs.
//!
//! Parameters (§4.1): the minimum interval Imin, the maximum Imax =
//! Imin * 2^doublings, and the redundancy constant k. State: the current
//! interval length I, the transmission instant t inside it and the counter c.
//! The rules of §4.2:
//! 1. on start, I is set in [Imin, Imax] (here: Imin) and an interval begins;
//! 2. when an interval begins, c = 0 and t is uniform in [I/2, I);
//! 3. a consistent transmission heard increments c;
//! 4. at t, the node transmits iff c < k (k = 0 stands for infinity, §4.1);
//! 5. when the interval expires, I doubles up to Imax and a new one begins;
//! 6. an inconsistency heard (or an external event, §4.2 last paragraph)
//!    with I > Imin resets I to Imin and begins a new interval; with I =
//!    Imin it does nothing.
//!
//! The owner asks [`Trickle::deadline`] when to call back and calls
//! [`Trickle::on_deadline`] at that instant.

use crate::rng::UniformBelow;
use crate::Time;

/// Trickle parameters (RFC 6206 §4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrickleConfig {
    /// Imin in µs
    pub imin_us: Time,
    /// number of doublings of Imin giving Imax
    pub doublings: u32,
    /// redundancy constant k; 0 means infinity (always transmit)
    pub k: u32,
}

impl TrickleConfig {
    /// RPL's DIO timer defaults (RFC 6550 §8.3.1 and §17):
    /// DIOIntervalMin 3 -> Imin = 2^3 ms, DIOIntervalDoublings 20,
    /// DIORedundancyConstant 10.
    pub const RPL_DEFAULT: TrickleConfig = TrickleConfig {
        imin_us: 8_000,
        doublings: 20,
        k: 10,
    };

    /// Imax in µs (saturating).
    pub fn imax_us(&self) -> Time {
        self.imin_us
            .checked_shl(self.doublings)
            .filter(|v| v >> self.doublings == self.imin_us)
            .unwrap_or(Time::MAX)
    }
}

/// What happened at a deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrickleFired {
    /// t was reached with c < k: transmit now (rule 4)
    Transmit,
    /// t was reached with c >= k: suppressed (rule 4)
    Suppressed,
    /// the interval ended and a doubled one began (rule 5)
    NewInterval,
}

/// One Trickle timer.
#[derive(Debug, Clone)]
pub struct Trickle {
    cfg: TrickleConfig,
    /// current interval length I
    interval_us: Time,
    /// start of the current interval
    start: Time,
    /// transmission instant t, absolute
    t_at: Time,
    /// whether t of this interval has passed
    fired: bool,
    /// consistent transmissions heard in this interval
    c: u32,
    /// transmissions made / suppressed so far (for the per-node counts)
    transmitted: u64,
    suppressed: u64,
}

impl Trickle {
    /// Start the timer at `now` (rule 1, with I = Imin).
    pub fn start(cfg: TrickleConfig, now: Time, rng: &mut impl UniformBelow) -> Trickle {
        let mut tr = Trickle {
            cfg,
            interval_us: cfg.imin_us,
            start: now,
            t_at: now,
            fired: false,
            c: 0,
            transmitted: 0,
            suppressed: 0,
        };
        tr.begin_interval(now, rng);
        tr
    }

    /// Rule 2.
    fn begin_interval(&mut self, at: Time, rng: &mut impl UniformBelow) {
        let half = self.interval_us / 2;
        self.start = at;
        self.t_at = at + half + rng.below(self.interval_us - half);
        self.fired = false;
        self.c = 0;
    }

    /// When the owner must call [`Trickle::on_deadline`] next.
    pub fn deadline(&self) -> Time {
        if self.fired {
            self.start + self.interval_us
        } else {
            self.t_at
        }
    }

    /// Handle the deadline reached at `now` (rules 4 and 5).
    pub fn on_deadline(&mut self, now: Time, rng: &mut impl UniformBelow) -> Option<TrickleFired> {
        if !self.fired && now >= self.t_at {
            self.fired = true;
            return Some(if self.cfg.k == 0 || self.c < self.cfg.k {
                self.transmitted += 1;
                TrickleFired::Transmit
            } else {
                self.suppressed += 1;
                TrickleFired::Suppressed
            });
        }
        let end = self.start + self.interval_us;
        if self.fired && now >= end {
            self.interval_us = self.interval_us.saturating_mul(2).min(self.cfg.imax_us());
            // the next interval begins where this one ended, not at a late call
            self.begin_interval(end, rng);
            return Some(TrickleFired::NewInterval);
        }
        None
    }

    /// Rule 3: a consistent transmission was heard.
    pub fn hear_consistent(&mut self) {
        self.c = self.c.saturating_add(1);
    }

    /// Rule 6: an inconsistency was heard (or an external event, such as a
    /// new DODAG version or a parent change in RPL, RFC 6550 §8.3).
    pub fn hear_inconsistent(&mut self, now: Time, rng: &mut impl UniformBelow) {
        if self.interval_us > self.cfg.imin_us {
            self.interval_us = self.cfg.imin_us;
            self.begin_interval(now, rng);
        }
    }

    /// Current interval length I in µs.
    pub fn interval_us(&self) -> Time {
        self.interval_us
    }

    /// Consistent transmissions heard in this interval.
    pub fn counter(&self) -> u32 {
        self.c
    }

    /// Transmissions made and suppressed since start.
    pub fn counts(&self) -> (u64, u64) {
        (self.transmitted, self.suppressed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Scripted;

    fn script(v: &[u64]) -> Scripted {
        Scripted::new(v)
    }

    const CFG: TrickleConfig = TrickleConfig {
        imin_us: 8_000,
        doublings: 2,
        k: 1,
    };

    #[test]
    fn imax_from_doublings() {
        // 8 ms * 2^2 = 32 ms; RPL default 8 ms * 2^20 = 8_388_608 ms
        assert_eq!(CFG.imax_us(), 32_000);
        assert_eq!(TrickleConfig::RPL_DEFAULT.imax_us(), 8_388_608_000);
        let huge = TrickleConfig {
            imin_us: 1 << 40,
            doublings: 30,
            k: 1,
        };
        assert_eq!(huge.imax_us(), Time::MAX);
    }

    #[test]
    fn sequence_with_doubling_and_suppression() {
        // start at 1000: I = 8000, t = 1000 + 4000 + 1234 = 6234
        let mut r = script(&[1234, 0, 15_999, 500, 7]);
        let mut tr = Trickle::start(CFG, 1_000, &mut r);
        assert_eq!(tr.deadline(), 6_234);
        assert_eq!(tr.on_deadline(6_233, &mut r), None);
        assert_eq!(tr.on_deadline(6_234, &mut r), Some(TrickleFired::Transmit));
        // interval end 1000 + 8000 = 9000; I = 16000, t = 9000 + 8000 + 0
        assert_eq!(tr.deadline(), 9_000);
        assert_eq!(
            tr.on_deadline(9_000, &mut r),
            Some(TrickleFired::NewInterval)
        );
        assert_eq!((tr.interval_us(), tr.deadline()), (16_000, 17_000));
        // one consistent message heard: c = 1 = k -> suppressed
        tr.hear_consistent();
        assert_eq!(
            tr.on_deadline(17_000, &mut r),
            Some(TrickleFired::Suppressed)
        );
        // end 9000 + 16000 = 25000, called late at 26000: the new interval
        // still starts at 25000; I = 32000 = Imax, t = 25000 + 16000 + 15999
        assert_eq!(
            tr.on_deadline(26_000, &mut r),
            Some(TrickleFired::NewInterval)
        );
        assert_eq!((tr.interval_us(), tr.deadline()), (32_000, 56_999));
        assert_eq!(tr.counter(), 0);
        assert_eq!(tr.on_deadline(56_999, &mut r), Some(TrickleFired::Transmit));
        // end 57000: I stays at Imax 32000, t = 57000 + 16000 + 500
        assert_eq!(
            tr.on_deadline(57_000, &mut r),
            Some(TrickleFired::NewInterval)
        );
        assert_eq!((tr.interval_us(), tr.deadline()), (32_000, 73_500));
        // inconsistency at 60000: I back to 8000, t = 60000 + 4000 + 7
        tr.hear_inconsistent(60_000, &mut r);
        assert_eq!((tr.interval_us(), tr.deadline()), (8_000, 64_007));
        // a second inconsistency with I = Imin changes nothing (no draw made)
        tr.hear_inconsistent(61_000, &mut r);
        assert_eq!(tr.deadline(), 64_007);
        assert_eq!(tr.counts(), (2, 1));
    }

    #[test]
    fn k_zero_never_suppresses() {
        let cfg = TrickleConfig { k: 0, ..CFG };
        let mut r = script(&[0]);
        let mut tr = Trickle::start(cfg, 0, &mut r);
        for _ in 0..100 {
            tr.hear_consistent();
        }
        assert_eq!(tr.on_deadline(4_000, &mut r), Some(TrickleFired::Transmit));
    }

    #[test]
    fn seeded_stream_is_reproducible_and_in_range() {
        use crate::rng::{stream, Purpose};
        let run = || {
            let mut rng = stream(7, 0, 3, Purpose::Mac);
            let mut tr = Trickle::start(TrickleConfig::RPL_DEFAULT, 0, &mut rng);
            let mut out = Vec::new();
            for _ in 0..40 {
                let at = tr.deadline();
                let i = tr.interval_us();
                let s = tr.start;
                if !tr.fired {
                    assert!(at >= s + i / 2 && at < s + i, "t outside [I/2, I)");
                }
                tr.on_deadline(at, &mut rng);
                out.push(at);
            }
            out
        };
        let a = run();
        assert_eq!(a, run());
        assert!(a.windows(2).all(|w| w[0] <= w[1]));
    }
}
