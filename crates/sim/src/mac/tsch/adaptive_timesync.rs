//! Contiki-NG's adaptive time synchronisation (os/net/mac/tsch/
//! tsch-adaptive-timesync.c, on by default: tsch-conf.h
//! `TSCH_ADAPTIVE_TIMESYNC` 1): from the corrections its time source
//! gives, a node learns how fast its clock drifts from the source's and
//! compensates it between resynchronisations; once it has learnt from
//! `NUM_TIMESYNC_ENTRIES` measurements the keep-alive timeout stretches to
//! `TSCH_MAX_KEEPALIVE_TIMEOUT`.
//!
//! The rules, as `tsch_timesync_update` and `timesync_learn_drift_ticks`
//! have them:
//! - a correction from another time source than the last starts afresh
//!   (nothing learnt);
//! - otherwise the time since the last correction adds up; once it is at
//!   least 4 s (`4 * TSCH_SLOTS_PER_SECOND` slots) the drift over it, the
//!   correction plus what was compensated or corrected meanwhile, divided
//!   by it, is one measurement; the drift compensated is the mean of the
//!   last 8 measurements (`timesync_entry_add`);
//! - a shorter time only adds the correction to what was compensated.
//!
//! Units: ns and parts per billion (Contiki-NG: rtimer ticks and ppm ·
//! 256); the node applies the drift continuously
//! (`tsch_timesync_adaptive_compensate`), here as its clock line's slope.

use crate::{NodeId, Time};

/// `NUM_TIMESYNC_ENTRIES` (tsch-adaptive-timesync.c).
pub const NUM_TIMESYNC_ENTRIES: usize = 8;

/// The least time a measurement spans: `4 * TSCH_SLOTS_PER_SECOND` slots.
pub const MIN_LEARNING_US: Time = 4_000_000;

/// One node's learnt drift against its time source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AdaptiveTimesync {
    source: Option<NodeId>,
    drift_ppb: i64,
    entries: [i64; NUM_TIMESYNC_ENTRIES],
    count: usize,
    pos: usize,
    since_learning_us: Time,
    compensated_ns: i64,
}

impl AdaptiveTimesync {
    /// Forget everything (`tsch_adaptive_timesync_reset`).
    pub fn reset(&mut self) {
        *self = AdaptiveTimesync::default();
    }

    /// The drift compensated (ppb; positive: the node moves its boundaries
    /// later and later).
    pub fn drift_ppb(&self) -> i64 {
        self.drift_ppb
    }

    /// Measurements it has learnt from (at most [`NUM_TIMESYNC_ENTRIES`]).
    pub fn entries(&self) -> usize {
        self.count
    }

    /// What the compensation moved the boundaries over `dt_us` (ns).
    pub fn compensate(&mut self, dt_us: Time) -> i64 {
        if self.source.is_none() || self.drift_ppb == 0 {
            return 0;
        }
        let ns = (i128::from(self.drift_ppb) * i128::from(dt_us) / 1_000_000) as i64;
        self.compensated_ns += ns;
        ns
    }

    /// A correction of `correction_ns` from `source`, `delta_us` after the
    /// last one; true when the drift is accurate (learnt from
    /// [`NUM_TIMESYNC_ENTRIES`] measurements already: the keep-alive
    /// timeout goes to its maximum).
    pub fn update(&mut self, source: NodeId, delta_us: Time, correction_ns: i64) -> bool {
        if self.source != Some(source) {
            self.reset();
            self.source = Some(source);
            return false;
        }
        self.since_learning_us += delta_us;
        if self.since_learning_us < MIN_LEARNING_US {
            self.compensated_ns += correction_ns;
            return false;
        }
        let real = i128::from(correction_ns + self.compensated_ns);
        let sample = (real * 1_000_000 / i128::from(self.since_learning_us)) as i64;
        self.compensated_ns = 0;
        self.since_learning_us = 0;
        self.add(sample)
    }

    fn add(&mut self, sample: i64) -> bool {
        self.entries[self.pos] = sample;
        let accurate = self.count >= NUM_TIMESYNC_ENTRIES;
        if !accurate {
            self.count += 1;
        }
        self.pos = (self.pos + 1) % NUM_TIMESYNC_ENTRIES;
        let sum: i64 = self.entries[..self.count].iter().sum();
        self.drift_ppb = sum / self.count as i64;
        accurate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_the_drift_and_is_accurate_after_eight_measurements() {
        let mut a = AdaptiveTimesync::default();
        // the first correction from a source only starts learning
        assert!(!a.update(7, 10_000_000, -200_000));
        assert_eq!(a.drift_ppb(), 0);
        // a clock 20 ppm fast of its source is corrected by -200 µs every
        // 10 s: -200 000 ns · 10^6 / 10 000 000 µs = -20 000 ppb
        assert!(!a.update(7, 10_000_000, -200_000));
        assert_eq!((a.drift_ppb(), a.entries()), (-20_000, 1));
        // compensated from then on: 10 s later nothing is left to correct,
        // and the measurement (0 + the 200 µs compensated) is the same
        assert_eq!(a.compensate(10_000_000), -200_000);
        assert!(!a.update(7, 10_000_000, 0));
        assert_eq!((a.drift_ppb(), a.entries()), (-20_000, 2));
        // two corrections 2 s apart make one measurement over 4 s: the
        // first only adds up (-40 000 compensated, -10 000 corrected) ...
        a.compensate(2_000_000);
        assert!(!a.update(7, 2_000_000, -10_000));
        assert_eq!(a.entries(), 2);
        // ... the second ends it: (-10 000 - 90 000) ns / 4 s = -25 000 ppb
        a.compensate(2_000_000);
        assert!(!a.update(7, 2_000_000, -10_000));
        assert_eq!(a.entries(), 3);
        assert_eq!(a.drift_ppb(), (-20_000 - 20_000 - 25_000) / 3);
        for _ in 3..NUM_TIMESYNC_ENTRIES {
            assert!(!a.update(7, 4_000_000, 0));
        }
        assert_eq!(a.entries(), NUM_TIMESYNC_ENTRIES);
        // the ninth: accurate, the keep-alive timeout may grow
        assert!(a.update(7, 4_000_000, 0));
        // another source: forgotten
        assert!(!a.update(8, 4_000_000, 0));
        assert_eq!((a.drift_ppb(), a.entries()), (0, 0));
    }
}
