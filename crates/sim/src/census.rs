//! The event census: how many events of each kind a run processed, for
//! the performance note (where the events per handshake go). Kept only
//! when asked for ([`crate::run::run_census`]); a run without it does
//! one branch per event more.

use std::collections::BTreeMap;

/// Events counted by a label: `phy rx <outcome>` for a copy judged at a
/// hearer, `phy tx-end` (and `phy tx-end stale` for a train cut before
/// its planned end), `net deliver`, `mac <kind>` / `mac <kind> stale` for
/// a MAC timer (or interrupt) by its kind, `app timer`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Census {
    pub counts: BTreeMap<String, u64>,
}

impl Census {
    pub fn count(&mut self, label: &str) {
        match self.counts.get_mut(label) {
            Some(n) => *n += 1,
            None => {
                self.counts.insert(label.to_owned(), 1);
            }
        }
    }

    /// Add another run's counts.
    pub fn add(&mut self, other: &Census) {
        for (label, n) in &other.counts {
            *self.counts.entry(label.clone()).or_insert(0) += n;
        }
    }

    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }
}
