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

/// Where a TSCH node's slot boundaries stand against the network's, as a
/// straight line: `offset_ns` at true time `at`, growing by its crystal's
/// error from there (a slow crystal, positive ppb, lengthens every slot,
/// so its boundaries come later and later). The simulator keeps every
/// node's slot events on the network's boundaries and judges a reception
/// by the difference of two such lines, in closed form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockLine {
    /// True time of the line's anchor (the last synchronisation).
    pub at: Time,
    /// Offset at the anchor, in nanoseconds (late: positive).
    pub offset_ns: i64,
    /// The node's crystal error, in parts per billion.
    pub error_ppb: i64,
}

impl ClockLine {
    /// The offset at true time `t` (at or after the anchor), in ns: a clock
    /// `error_ppb` off gains `error_ppb` ns per second, i.e. `Δt[µs] ·
    /// error_ppb / 10^6` ns.
    pub fn offset_ns_at(&self, t: Time) -> i64 {
        let dt = i128::from(t.saturating_sub(self.at));
        let grown = dt * i128::from(self.error_ppb) / 1_000_000;
        self.offset_ns.saturating_add(grown as i64)
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
    fn two_crystals_drift_apart_by_the_difference_of_their_errors() {
        // +20 ppm and -20 ppm synchronised at 1 s with no offset: 10 s later
        // one is 10 000 000 µs · 20e-6 = 200 µs late, the other 200 µs early
        let slow = ClockLine {
            at: 1_000_000,
            offset_ns: 0,
            error_ppb: 20_000,
        };
        let fast = ClockLine {
            error_ppb: -20_000,
            ..slow
        };
        assert_eq!(slow.offset_ns_at(11_000_000), 200_000);
        assert_eq!(fast.offset_ns_at(11_000_000), -200_000);
        // 400 µs apart: 40 ppm of 10 s
        let apart = slow.offset_ns_at(11_000_000) - fast.offset_ns_at(11_000_000);
        assert_eq!(apart, 400_000);
        // before the anchor the line has not grown yet
        assert_eq!(slow.offset_ns_at(0), 0);
        // an anchor offset carries on: 3 µs early, then +1 ppm for 2 s
        let l = ClockLine {
            at: 0,
            offset_ns: -3_000,
            error_ppb: 1_000,
        };
        assert_eq!(l.offset_ns_at(2_000_000), -1_000);
    }

    #[test]
    fn draws_span_the_tolerance() {
        assert_eq!(Crystal::within(20.0, 0.0).error_ppb(), -20_000);
        assert_eq!(Crystal::within(20.0, 0.5).error_ppb(), 0);
        assert_eq!(Crystal::within(20.0, 0.75).error_ppb(), 10_000);
        assert_eq!(Crystal::within(0.0, 0.9), Crystal::PERFECT);
    }
}
