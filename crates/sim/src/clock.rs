//! A node's own clock. Its crystal runs fast or slow by a few parts per
//! million, so a period counted on it lasts a little more or less than
//! nominal in the simulator's true time, and two nodes' periods drift apart.
//! Without it, every node's schedule keeps the same phase to every other
//! forever and an unlucky alignment of two senders repeats on every retry.
//!
//! Its software clock ([`TickClock`]) counts in ticks: a timer set in
//! software fires on the next tick.

use crate::rng::{stream, Purpose};
use crate::{NodeId, Time};

/// A crystal's frequency error, in parts per billion (positive: slow, its
/// periods last longer than nominal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Crystal {
    error_ppb: i64,
}

impl Crystal {
    pub const PERFECT: Crystal = Crystal { error_ppb: 0 };

    pub fn with_error_ppb(error_ppb: i64) -> Self {
        Crystal { error_ppb }
    }

    /// A crystal whose error is `unit` of the way across
    /// `[-tolerance, +tolerance]` (`unit` in [0, 1), a uniform draw).
    pub fn within(tolerance_ppm: f64, unit: f64) -> Self {
        let ppb = (2.0 * unit - 1.0) * tolerance_ppm * 1000.0;
        Crystal {
            error_ppb: ppb.round() as i64,
        }
    }

    pub fn error_ppb(self) -> i64 {
        self.error_ppb
    }

    /// How long `nominal_us` counted on this clock lasts in true time
    /// (rounded to the microsecond).
    pub fn true_duration(self, nominal_us: Time) -> Time {
        const BILLION: i128 = 1_000_000_000;
        let scaled = i128::from(nominal_us) * (BILLION + i128::from(self.error_ppb));
        ((scaled + BILLION / 2) / BILLION) as Time
    }

    /// How much this clock counts while `true_us` pass in true time (the
    /// inverse of [`Crystal::true_duration`], rounded to the microsecond).
    pub fn nominal_duration(self, true_us: Time) -> Time {
        const BILLION: i128 = 1_000_000_000;
        let rate = BILLION + i128::from(self.error_ppb);
        ((i128::from(true_us) * BILLION + rate / 2) / rate) as Time
    }
}

/// The node's software clock: timers fire on its ticks (Contiki's etimer
/// runs on `CLOCK_SECOND` = 128 ticks/s on MSP430 motes), at a phase of its
/// own, so a deadline is rounded up to the next tick.
#[derive(Debug, Clone, Copy)]
pub struct TickClock {
    tick_us: Time,
    phase_us: Time,
}

impl TickClock {
    pub fn new(tick_us: Time, seed: u64, replication: u64, node: NodeId) -> Self {
        use rand::RngExt;
        let phase_us = if tick_us == 0 {
            0
        } else {
            stream(seed, replication, node as u64, Purpose::App).random_range(0..tick_us)
        };
        TickClock { tick_us, phase_us }
    }

    pub fn round_up(&self, t: Time) -> Time {
        if self.tick_us == 0 || t <= self.phase_us {
            return t;
        }
        // saturating: "never" (Time::MAX) stays never instead of wrapping
        (t - self.phase_us)
            .div_ceil(self.tick_us)
            .checked_mul(self.tick_us)
            .and_then(|d| self.phase_us.checked_add(d))
            .unwrap_or(Time::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_crystal_lengthens_every_period_by_its_error() {
        // +20 ppm: 500 ms last 500 ms + 500,000 x 20e-6 = 500.010 ms
        let c = Crystal::with_error_ppb(20_000);
        assert_eq!(c.true_duration(500_000), 500_010);
        // -20 ppm: 4 s last 4,000,000 - 80 = 3,999,920 us
        assert_eq!(
            Crystal::with_error_ppb(-20_000).true_duration(4_000_000),
            3_999_920
        );
        assert_eq!(Crystal::PERFECT.true_duration(123_457), 123_457);
        // rounding: 1 us at +20 ppm is 1.00002 us, still 1
        assert_eq!(c.true_duration(1), 1);
    }

    #[test]
    fn a_clock_counts_true_time_back_to_its_own() {
        // +50 ppm: 9,000,450 us of true time are 9,000,450 / 1.00005 =
        // 9,000,000 us counted; -50 ppm: 1,320 / 0.99995 = 1,320.07, so 1,320
        assert_eq!(
            Crystal::with_error_ppb(50_000).nominal_duration(9_000_450),
            9_000_000
        );
        assert_eq!(
            Crystal::with_error_ppb(-50_000).nominal_duration(1_320),
            1_320
        );
        assert_eq!(Crystal::PERFECT.nominal_duration(77), 77);
    }

    #[test]
    fn draws_span_the_tolerance() {
        assert_eq!(Crystal::within(20.0, 0.0).error_ppb(), -20_000);
        assert_eq!(Crystal::within(20.0, 0.5).error_ppb(), 0);
        assert_eq!(Crystal::within(20.0, 0.75).error_ppb(), 10_000);
        assert_eq!(Crystal::within(0.0, 0.9), Crystal::PERFECT);
    }
}
