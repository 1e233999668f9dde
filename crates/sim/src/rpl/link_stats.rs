//! A link's ETX measured from the node's own unicast transmissions, as
//! Contiki-NG 4.9 measures it (os/net/link-stats.c, its default EWMA
//! estimator, `LINK_STATS_ETX_FROM_PACKET_COUNT` 0):
//!
//! - a frame acknowledged after `numtx` transmissions is a sample of
//!   `numtx * 128`; a frame never acknowledged one of
//!   `(numtx + ETX_NOACK_PENALTY) * 128` (`link_stats_packet_sent`);
//! - the first sample sets the ETX; later ones enter an EWMA with weight
//!   `EWMA_ALPHA` 10 % when the link is fresh, `EWMA_BOOTSTRAP_ALPHA` 25 %
//!   when not (`EWMA_SCALE` 100);
//! - fresh: the last transmission within `FRESHNESS_EXPIRATION_TIME`
//!   (10 min) and a freshness of at least `FRESHNESS_TARGET` 4, freshness
//!   growing by `numtx` per frame up to `FRESHNESS_MAX` 16 and halved every
//!   `FRESHNESS_HALF_LIFE` (15 min, the module's periodic timer);
//! - a neighbour first heard (`link_stats_input_callback`) starts at
//!   `ETX_DEFAULT` 2 (256): Contiki-NG guesses from the RSSI there
//!   (`LINK_STATS_INIT_ETX_FROM_RSSI`), and 256 is its value for an
//!   unknown RSSI; the simulator's links carry a delivery ratio, not an RSSI.

use crate::Time;

/// ETX fixed-point divisor (link-stats.h `LINK_STATS_ETX_DIVISOR`; RFC 6551).
pub const ETX_DIVISOR: u16 = 128;
/// Transmissions added to a sample whose frame was never acknowledged.
pub const ETX_NOACK_PENALTY: u32 = 12;
/// ETX of a neighbour heard but not yet sent to (RSSI unknown).
pub const ETX_DEFAULT: u16 = 2 * ETX_DIVISOR;
const EWMA_SCALE: u32 = 100;
const EWMA_ALPHA: u32 = 10;
const EWMA_BOOTSTRAP_ALPHA: u32 = 25;
const FRESHNESS_EXPIRATION_US: Time = 10 * 60 * 1_000_000;
/// Period of the freshness halving.
pub const FRESHNESS_HALF_LIFE_US: Time = 15 * 60 * 1_000_000;
const FRESHNESS_TARGET: u32 = 4;
const FRESHNESS_MAX: u32 = 16;

/// One neighbour's link statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// ETX * 128; 0 until heard or sent to
    etx: u16,
    freshness: u32,
    last_tx: Option<Time>,
    /// freshness halvings already applied (counted from time 0)
    halvings: u64,
}

impl LinkStats {
    /// The link's ETX * 128 (0: nothing known yet).
    pub fn etx(&self) -> u16 {
        self.etx
    }

    /// A frame from the neighbour was heard: an unknown link starts at
    /// [`ETX_DEFAULT`].
    pub fn heard(&mut self) {
        if self.etx == 0 {
            self.etx = ETX_DEFAULT;
        }
    }

    /// Apply the periodic halvings due by `now`.
    fn age(&mut self, now: Time) {
        let due = now / FRESHNESS_HALF_LIFE_US;
        let n = due.saturating_sub(self.halvings);
        self.halvings = due;
        self.freshness = if n >= 32 { 0 } else { self.freshness >> n };
    }

    /// Fresh statistics (`link_stats_is_fresh`): sent to within 10 min,
    /// freshness at least 4 (after the halvings due by `now`).
    pub fn is_fresh_at(&self, now: Time) -> bool {
        let mut aged = *self;
        aged.age(now);
        aged.is_fresh(now)
    }

    /// When a frame was last sent to the neighbour.
    pub fn last_tx(&self) -> Option<Time> {
        self.last_tx
    }

    fn is_fresh(&self, now: Time) -> bool {
        self.last_tx
            .is_some_and(|t| now.saturating_sub(t) < FRESHNESS_EXPIRATION_US)
            && self.freshness >= FRESHNESS_TARGET
    }

    /// A unicast frame to the neighbour ended after `numtx` transmissions,
    /// acknowledged or not (`link_stats_packet_sent` with MAC_TX_OK or
    /// MAC_TX_NOACK; a frame dropped for a full queue does not reach here).
    pub fn sent(&mut self, now: Time, acked: bool, numtx: u32) {
        self.age(now);
        // the time and freshness are updated first, then the alpha chosen
        self.last_tx = Some(now);
        self.freshness = (self.freshness + numtx).min(FRESHNESS_MAX);
        let fresh = self.is_fresh(now);
        let numtx = if acked {
            numtx
        } else {
            numtx + ETX_NOACK_PENALTY
        };
        let sample = (numtx * u32::from(ETX_DIVISOR)).min(u32::from(u16::MAX));
        self.etx = if self.etx == 0 {
            sample as u16
        } else {
            let alpha = if fresh {
                EWMA_ALPHA
            } else {
                EWMA_BOOTSTRAP_ALPHA
            };
            ((u32::from(self.etx) * (EWMA_SCALE - alpha) + sample * alpha) / EWMA_SCALE) as u16
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ewma_by_hand() {
        let mut l = LinkStats::default();
        l.heard();
        assert_eq!(l.etx(), 256);
        // freshness 1 < 4, not fresh: bootstrap alpha 25:
        // (256 * 75 + 128 * 25) / 100 = (19200 + 3200) / 100 = 224
        l.sent(1_000_000, true, 1);
        assert_eq!(l.etx(), 224);
        // freshness 3: bootstrap; 2 transmissions, acked:
        // (224 * 75 + 256 * 25) / 100 = (16800 + 6400) / 100 = 232
        l.sent(2_000_000, true, 2);
        assert_eq!(l.etx(), 232);
        // freshness 7 >= 4, sent just now: alpha 10; 4 transmissions, no
        // ACK: sample (4 + 12) * 128 = 2048;
        // (232 * 90 + 2048 * 10) / 100 = (20880 + 20480) / 100 = 413
        l.sent(3_000_000, false, 4);
        assert_eq!(l.etx(), 413);
        // (413 * 90 + 128 * 10) / 100 = (37170 + 1280) / 100 = 384
        l.sent(4_000_000, true, 1);
        assert_eq!(l.etx(), 384);
    }

    #[test]
    fn first_sample_sets_and_freshness_ages() {
        let mut l = LinkStats::default();
        l.sent(0, true, 3);
        assert_eq!(l.etx(), 384);
        // freshness 4: fresh, alpha 10: (384 * 90 + 128 * 10) / 100 = 358
        l.sent(1, true, 1);
        assert_eq!(l.etx(), 358);
        // an hour later: four halvings leave freshness 4 >> 4 = 0, + 1:
        // not fresh, alpha 25: (358 * 75 + 128 * 25) / 100 = 300
        l.sent(3_600_000_000, true, 1);
        assert_eq!(l.etx(), 300);
    }
}
