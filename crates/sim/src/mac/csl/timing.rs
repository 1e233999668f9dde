//! Coordinated sampled listening, CSL (IEEE 802.15.4-2015 §6.12.2): the
//! timing rules a CSL receiver and its senders share, as pure functions
//! (the MAC in the parent module drives the radio with them).
//!
//! A CSL receiver samples the channel for a short window once every CSL
//! period. A sender that knows the receiver's phase (from the CSL IE of a
//! frame it heard) sends its frame so that it starts at the next
//! sample ("synchronised transmission"); a sender that does not sends a
//! wake-up frame sequence covering a whole period, each wake-up frame
//! telling the time left to the payload frame (rendezvous time), so the
//! receiver's next sample hears one of them wherever it falls.
//!
//! OpenThread's CSL for Thread 1.2 sleepy end devices names the parameters
//! that matter: the period and phase in units of ten symbols, each side's
//! clock accuracy in ppm and scheduling uncertainty in units of 10 µs, how
//! early the receiver wakes before a sample, and how long it listens at
//! least.

use crate::channel::airtime_us;
use crate::mac::phy::SYMBOL_US;
use crate::Time;

/// The unit of the CSL IE's period and phase: ten symbols, 160 µs
/// (the CSL IE, §7.4.2).
pub const UNIT_US: Time = 10 * SYMBOL_US;

/// The start of the receiver's first sample at or after `now`, its samples
/// starting at `anchor` and every `period_us` after.
pub fn next_sample(now: Time, anchor: Time, period_us: Time) -> Time {
    assert!(period_us > 0, "a CSL period is positive");
    if now <= anchor {
        return anchor;
    }
    anchor + (now - anchor).div_ceil(period_us) * period_us
}

/// The CSL phase a frame starting at `frame_start` carries: the time from
/// its first symbol to the receiver's next sample, in whole units of ten
/// symbols (rounded down: the receiver's early wake-up absorbs the rest).
pub fn phase_units(frame_start: Time, sample: Time) -> u16 {
    let units = sample.saturating_sub(frame_start) / UNIT_US;
    u16::try_from(units).expect("a CSL phase fits the IE's 16 bits")
}

/// How far the two clocks can have drifted apart `elapsed_us` after the
/// last synchronisation, plus both sides' scheduling uncertainty: the
/// half-width by which the receiver widens its sample window on each side.
pub fn drift_us(elapsed_us: Time, ppm_sum: u32, uncertainty_us: Time) -> Time {
    (elapsed_us * Time::from(ppm_sum)).div_ceil(1_000_000) + uncertainty_us
}

/// The receiver's listening window around a sample: it wakes `ahead_us`
/// (radio ramp-up, scheduling) plus the drift before the sample and stays
/// at least `min_on_us` plus the drift after it.
pub fn receive_window(sample: Time, drift: Time, ahead_us: Time, min_on_us: Time) -> (Time, Time) {
    (
        sample.saturating_sub(ahead_us + drift),
        sample + min_on_us + drift,
    )
}

/// A wake-up frame sequence: frames of `wuf_psdu` bytes back to back with
/// `gap_us` between them, enough to cover one CSL period so that any
/// sample of the receiver hears at least one whole frame.
pub struct WakeUpSequence {
    /// Wake-up frames sent.
    pub frames: u64,
    /// From the first wake-up frame's start to the payload frame's start.
    pub duration_us: Time,
}

/// The sequence for a receiver sampling every `period_us` for a window of
/// `window_us`: one frame and gap must fit in the window, and the frames
/// must span the period.
pub fn wake_up_sequence(
    period_us: Time,
    window_us: Time,
    wuf_psdu: usize,
    gap_us: Time,
) -> WakeUpSequence {
    let step = airtime_us(wuf_psdu) + gap_us;
    assert!(
        window_us >= step,
        "a sample window must hold one wake-up frame and its gap"
    );
    let frames = period_us.div_ceil(step);
    WakeUpSequence {
        frames,
        duration_us: frames * step,
    }
}

/// The rendezvous time the `index`-th wake-up frame (from 0) carries: from
/// its end to the payload frame's start, in units of ten symbols.
pub fn rendezvous_units(seq: &WakeUpSequence, index: u64, wuf_psdu: usize, gap_us: Time) -> u64 {
    let step = airtime_us(wuf_psdu) + gap_us;
    let end = index * step + airtime_us(wuf_psdu);
    (seq.duration_us - end) / UNIT_US
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One synchronised CSL exchange by hand. A receiver samples every
    /// 500 ms = 3,125 units of 160 µs, its samples starting at t = 1.0 s.
    /// A sender that heard its CSL IE 10 s ago has a frame ready at
    /// t = 2.7 s:
    /// - next sample: (2.7 s - 1.0 s) / 0.5 s = 3.4, rounded up to 4
    ///   periods, 1.0 s + 4 x 0.5 s = 3.0 s = 3,000,000 µs;
    /// - a frame starting at 2.7 s announces phase 300,000 / 160 = 1,875 units;
    /// - both crystals +/-20 ppm (sum 40), 10 s since sync:
    ///   10,000,000 x 40 / 1,000,000 = 400 µs, plus uncertainty 2 x 100 µs
    ///   (each side's 10 units of 10 µs) = 600 µs of drift;
    /// - the receiver wakes 320 µs ahead (OpenThread's default receive-time
    ///   ahead) plus the drift: 3,000,000 - 920 = 2,999,080 µs, and listens
    ///   until 3,000,000 + 3,000 (minimum receive-on) + 600 = 3,003,600 µs.
    #[test]
    fn a_synchronised_exchange_by_hand() {
        let period = 3_125 * UNIT_US;
        assert_eq!(period, 500_000);
        let sample = next_sample(2_700_000, 1_000_000, period);
        assert_eq!(sample, 3_000_000);
        assert_eq!(phase_units(2_700_000, sample), 1_875);
        let drift = drift_us(10_000_000, 40, 200);
        assert_eq!(drift, 600);
        assert_eq!(
            receive_window(sample, drift, 320, 3_000),
            (2_999_080, 3_003_600)
        );
        // a sample exactly on the anchor grid is its own next sample
        assert_eq!(next_sample(3_000_000, 1_000_000, period), 3_000_000);
    }

    /// The unsynchronised case by hand: wake-up frames of 15 bytes take
    /// (6 + 15) x 32 = 672 µs on air; with a 192 µs turnaround gap one step
    /// is 864 µs. Covering a 500 ms period: 500,000 / 864 = 578.7, so 579
    /// frames and 579 x 864 = 500,256 µs to the payload. The last frame
    /// ends 672 µs after its start at 578 x 864 = 499,392 µs, i.e. at
    /// 500,064 µs: rendezvous 192 µs = 1 unit (rounded down); the first
    /// ends at 672 µs: (500,256 - 672) / 160 = 3,122.4, i.e. 3,122 units.
    #[test]
    fn a_wake_up_sequence_by_hand() {
        let seq = wake_up_sequence(500_000, 1_000, 15, 192);
        assert_eq!((seq.frames, seq.duration_us), (579, 500_256));
        assert_eq!(rendezvous_units(&seq, 578, 15, 192), 1);
        assert_eq!(rendezvous_units(&seq, 0, 15, 192), 3_122);
    }
}
