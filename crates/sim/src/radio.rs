//! Signal-level radio physics for the media beyond per-link delivery
//! ratios: path loss, per-link shadowing, power sums, the packet
//! error rate of IEEE 802.15.4's 2.4 GHz O-QPSK DSSS PHY at a SINR, the
//! capture rule, and the 6TiSCH simulator's Pister-hack connectivity model.
//!
//! Pure functions only: the channel decides when to ask them. Every random
//! figure is a function of a named stream's key and the link, never of the
//! order of events (see [`crate::rng`]).

use rand::Rng;

use crate::rng::{mix, stream, unit_interval, Purpose, NETWORK};
use crate::NodeId;

/// Speed of light in vacuum, m/s (SI definition).
pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;

/// Centre frequency of IEEE 802.15.4 2.4 GHz channel `k` (11..=26):
/// 2405 + 5 (k − 11) MHz (IEEE 802.15.4-2006 §6.1.2.1). `None` for a
/// channel outside the band.
pub fn channel_frequency_hz(channel: u8) -> Option<f64> {
    (11..=26)
        .contains(&channel)
        .then(|| (2405.0 + 5.0 * f64::from(channel - 11)) * 1e6)
}

/// Free-space path loss (Friis, isotropic antennas): 20 log10(4π d / λ) dB.
pub fn free_space_loss_db(distance_m: f64, frequency_hz: f64) -> f64 {
    let wavelength = SPEED_OF_LIGHT / frequency_hz;
    20.0 * (4.0 * std::f64::consts::PI * distance_m / wavelength).log10()
}

/// Log-distance path loss: PL(d) = PL(d0) + 10 n log10(d / d0) dB
/// (Rappaport, Wireless Communications, 2nd ed., eq. 4.68). Free space is
/// this model with n = 2 and PL(d0) the Friis loss at d0, so it is not a
/// kind of its own: one formula, one set of keys.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogDistance {
    /// Loss at the reference distance, dB.
    pub reference_loss_db: f64,
    /// Reference distance d0, m.
    pub reference_distance_m: f64,
    /// Path-loss exponent n.
    pub exponent: f64,
}

impl LogDistance {
    /// Free space at `frequency_hz`, referenced to 1 m.
    pub fn free_space(frequency_hz: f64) -> Self {
        LogDistance {
            reference_loss_db: free_space_loss_db(1.0, frequency_hz),
            reference_distance_m: 1.0,
            exponent: 2.0,
        }
    }

    /// Mean loss at `distance_m` (no shadowing). Distances below the
    /// reference distance get the reference loss: the model is a far-field
    /// one and must not turn into a gain.
    pub fn loss_db(&self, distance_m: f64) -> f64 {
        let d = distance_m.max(self.reference_distance_m);
        self.reference_loss_db + 10.0 * self.exponent * (d / self.reference_distance_m).log10()
    }
}

/// The static random word of the link between `a` and `b` (either way
/// round) in a replication, from the named `Shadowing` stream alone.
fn link_draw(seed: u64, replication: u64, a: NodeId, b: NodeId) -> u64 {
    let key = stream(seed, replication, NETWORK, Purpose::Shadowing).next_u64();
    let (lo, hi) = (a.min(b) as u64, a.max(b) as u64);
    mix(key ^ mix(lo.wrapping_mul(0x1_0000_0001) ^ hi.rotate_left(32)))
}

/// Log-normal shadowing of the link between `a` and `b`, dB: a normal draw
/// of standard deviation `sigma_db`, static for a replication and the same
/// both ways (the obstacles between two nodes are the same either way).
/// It is a function of (seed, replication, link) alone.
pub fn shadowing_db(seed: u64, replication: u64, a: NodeId, b: NodeId, sigma_db: f64) -> f64 {
    shadowing_in_period_db(shadowing_key(seed, replication, a, b), 0, sigma_db)
}

/// The key of link `a`–`b`'s shadowing draws (either way round), kept by a
/// medium that re-draws them ([`shadowing_in_period_db`]).
pub fn shadowing_key(seed: u64, replication: u64, a: NodeId, b: NodeId) -> u64 {
    link_draw(seed, replication, a, b)
}

/// Time-varying shadowing as a piecewise-constant re-draw (block
/// shadowing): in period `period` (0, 1, 2 …) of a fixed length the link
/// has an independent normal draw of standard deviation `sigma_db`; period
/// 0 is the static draw ([`shadowing_db`]). A function of (link key,
/// period) alone, so it does not depend on which frames asked before.
/// Log-normal shadowing itself: Rappaport, Wireless Communications, 2nd
/// ed., §4.9.2 (as recalled); independent re-draws per period are this
/// model's simplification, not a measured correlation.
pub fn shadowing_in_period_db(key: u64, period: u64, sigma_db: f64) -> f64 {
    let draw = if period == 0 {
        key
    } else {
        mix(key ^ mix(period))
    };
    // Box–Muller from two uniforms; 1 − u keeps the logarithm finite.
    let u1 = 1.0 - unit_interval(mix(draw));
    let u2 = unit_interval(mix(draw ^ 0x5bd1_e995));
    sigma_db * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// dBm to mW.
pub fn dbm_to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

/// mW to dBm.
pub fn mw_to_dbm(mw: f64) -> f64 {
    10.0 * mw.log10()
}

/// SINR in dB of a signal of `signal_dbm` against the noise floor and the
/// interferers, all added as power (mW), never as dB.
pub fn sinr_db(signal_dbm: f64, noise_dbm: f64, interferers_dbm: &[f64]) -> f64 {
    let disturbance: f64 =
        dbm_to_mw(noise_dbm) + interferers_dbm.iter().copied().map(dbm_to_mw).sum::<f64>();
    signal_dbm - mw_to_dbm(disturbance)
}

/// Bit error rate of the 2.4 GHz O-QPSK DSSS PHY at a linear SINR:
/// BER = (8/15)(1/16) Σ_{k=2}^{16} (−1)^k C(16,k) exp(20 SINR (1/k − 1))
/// (IEEE 802.15.4-2006 Annex E.4.1.8, eq. E.2; 16-ary orthogonal
/// signalling of 32-chip sequences).
pub fn oqpsk_ber(sinr_linear: f64) -> f64 {
    let mut binom = 1.0; // C(16, 0)
    let mut sum = 0.0;
    for k in 1..=16u32 {
        binom = binom * f64::from(17 - k) / f64::from(k);
        if k >= 2 {
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            sum += sign * binom * (20.0 * sinr_linear * (1.0 / f64::from(k) - 1.0)).exp();
        }
    }
    (8.0 / 15.0 / 16.0 * sum).clamp(0.0, 0.5)
}

/// Packet error rate of a frame of `octets` octets at `sinr_db`: every bit
/// independent, PER = 1 − (1 − BER)^(8 · octets).
pub fn oqpsk_per(sinr_db: f64, octets: usize) -> f64 {
    let ber = oqpsk_ber(10f64.powf(sinr_db / 10.0));
    1.0 - (1.0 - ber).powf(8.0 * octets as f64)
}

/// The capture rule, "first lock with preamble take-over": a receiver
/// synchronises on the first frame whose signal it can detect and keeps it
/// while that frame's SINR stays at or above `threshold_db`; a later frame
/// takes the receiver over only if it starts during the locked frame's
/// synchronisation header (preamble and SFD, 5 octets = 160 µs at
/// 250 kb/s, IEEE 802.15.4-2006 §6.3.1) and is `threshold_db` stronger.
/// Why this rule: a CC2420-class receiver searches for a preamble only
/// until it has found an SFD, then demodulates that frame to its end, so a
/// stronger frame after the SFD can only corrupt the locked one, never be
/// received itself (CC2420 datasheet §"Frame format"/"RX", as recalled).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capture {
    /// SINR a locked frame must keep, and the margin a take-over needs, dB.
    pub threshold_db: f64,
    /// Length of the synchronisation header, µs.
    pub sync_header_us: u64,
}

/// What a receiver locked on one frame does when another one starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// The locked frame stays locked and survives the newcomer.
    Keep,
    /// The locked frame stays locked but drops below the threshold: lost.
    Corrupted,
    /// The newcomer takes the receiver over; the locked frame is lost.
    TakeOver,
}

impl Capture {
    /// A receiver locked on a frame of `locked_dbm` that began
    /// `since_start_us` ago meets a newcomer of `new_dbm`, with `noise_dbm`
    /// and `others_dbm` (everything else on the air) as background.
    pub fn arrival(
        &self,
        locked_dbm: f64,
        new_dbm: f64,
        since_start_us: u64,
        noise_dbm: f64,
        others_dbm: &[f64],
    ) -> Arrival {
        let mut with_new = others_dbm.to_vec();
        with_new.push(new_dbm);
        if since_start_us < self.sync_header_us {
            let mut with_locked = others_dbm.to_vec();
            with_locked.push(locked_dbm);
            if sinr_db(new_dbm, noise_dbm, &with_locked) >= self.threshold_db {
                return Arrival::TakeOver;
            }
        }
        if sinr_db(locked_dbm, noise_dbm, &with_new) >= self.threshold_db {
            Arrival::Keep
        } else {
            Arrival::Corrupted
        }
    }
}

/// What a receiver makes of one frame under the capture rule and the
/// interference around it: the chance it decodes the frame, or `None` when
/// the capture rule loses it outright.
///
/// `signal_dbm` starts at `start` and lasts `airtime_us`; each interferer
/// is `(start, end, power dBm)`, already cut to the copies on the air.
/// The rule ([`Capture`]): an interferer that began at or before the frame
/// and is decodable (at or above `sensitivity_dbm`) holds the receiver
/// unless the frame arrives within its synchronisation header and
/// `threshold_db` stronger; one that begins later, within the frame's
/// synchronisation header and `threshold_db` stronger, takes the receiver
/// over. A frame that keeps the receiver is lost when its SINR drops below
/// `threshold_db` at any moment; otherwise each stretch of constant
/// interference costs its bits at the O-QPSK bit error rate of its SINR,
/// interferers added as power (mW), over every bit of the frame on the air
/// (SHR, PHR and PSDU: 4 µs a bit at 250 kbit/s).
pub fn frame_success(
    signal_dbm: f64,
    start: u64,
    airtime_us: u64,
    interferers: &[(u64, u64, f64)],
    noise_dbm: f64,
    sensitivity_dbm: f64,
    capture: Capture,
) -> Option<f64> {
    if signal_dbm < sensitivity_dbm {
        return None;
    }
    let end = start + airtime_us;
    let thr = capture.threshold_db;
    for &(s, _, p) in interferers {
        let lead = |a: u64, b: u64| b.saturating_sub(a) < capture.sync_header_us;
        if s <= start {
            let takes_over = lead(s, start) && sinr_db(signal_dbm, noise_dbm, &[p]) >= thr;
            if p >= sensitivity_dbm && !takes_over {
                return None; // the receiver is locked on the earlier frame
            }
        } else if lead(start, s) && sinr_db(p, noise_dbm, &[signal_dbm]) >= thr {
            return None; // taken over in the synchronisation header
        }
    }
    let mut cuts: Vec<u64> = interferers
        .iter()
        .flat_map(|&(s, e, _)| [s, e])
        .filter(|&t| t > start && t < end)
        .chain([start, end])
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let (signal_mw, noise_mw) = (dbm_to_mw(signal_dbm), dbm_to_mw(noise_dbm));
    let mut log_ok = 0.0;
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let interference: f64 = interferers
            .iter()
            .filter(|&&(s, e, _)| s < b && e > a)
            .map(|&(_, _, p)| dbm_to_mw(p))
            .sum();
        let sinr = signal_mw / (noise_mw + interference);
        if interference > 0.0 && mw_to_dbm(sinr) < thr {
            return None;
        }
        let bits = (b - a) as f64 / 4.0;
        log_ok += bits * (1.0 - oqpsk_ber(sinr)).ln();
    }
    Some(log_ok.exp())
}

/// A radio's figures from its datasheet, as a platform file gives them.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RadioFigures {
    /// Lowest and highest programmable output power, dBm.
    pub tx_power_min_dbm: f64,
    pub tx_power_max_dbm: f64,
    /// Receiver sensitivity (1 % PER on 20-octet frames, the standard's
    /// reference), dBm.
    pub sensitivity_dbm: f64,
    /// CCA energy-detection threshold at its reset value, dBm.
    pub cca_threshold_dbm: f64,
    /// CCA hysteresis, dB. A single CCA sample (every MAC here takes one)
    /// compares with the threshold alone; kept for the record.
    pub cca_hysteresis_db: f64,
}

/// The 6TiSCH simulator's Pister-hack connectivity model: the RSSI of a
/// link is the free-space RSSI at 2.4 GHz lowered by a uniform draw in
/// [0, 40] dB, and its PDR is read off a measured RSSI→PDR table,
/// interpolated linearly between whole dBm (the simulator's
/// `Connectivity`/`Topology` modules; its table comes from the Berkeley
/// "dust" connectivity dataset). Figures as recalled from that simulator.
pub mod pister_hack {
    use super::*;

    /// Largest downward shift of the RSSI, dB (`PISTER_HACK_LOWER_SHIFT`).
    pub const LOWER_SHIFT_DB: f64 = 40.0;
    /// Frequency of the free-space loss, Hz (`TWO_DOT_FOUR_GHZ`).
    pub const FREQUENCY_HZ: f64 = 2.4e9;
    /// Transmit power, dBm (`TX_POWER`).
    pub const TX_POWER_DBM: f64 = 0.0;

    /// (RSSI dBm, PDR), the simulator's `RSSI_PDR_TABLE`; −97 dBm → 0 is
    /// the simulator's own closing point, not a measurement.
    pub const RSSI_PDR_TABLE: [(i32, f64); 19] = [
        (-97, 0.0000),
        (-96, 0.1494),
        (-95, 0.2340),
        (-94, 0.4071),
        (-93, 0.6359),
        (-92, 0.6866),
        (-91, 0.7476),
        (-90, 0.8603),
        (-89, 0.8702),
        (-88, 0.9324),
        (-87, 0.9427),
        (-86, 0.9562),
        (-85, 0.9611),
        (-84, 0.9739),
        (-83, 0.9745),
        (-82, 0.9844),
        (-81, 0.9854),
        (-80, 0.9903),
        (-79, 1.0000),
    ];

    /// The PDR at `rssi_dbm`: 0 below the table, 1 above it, linear
    /// between its whole-dBm rows.
    pub fn pdr(rssi_dbm: f64) -> f64 {
        let (first, last) = (RSSI_PDR_TABLE[0], RSSI_PDR_TABLE[RSSI_PDR_TABLE.len() - 1]);
        if rssi_dbm < f64::from(first.0) {
            return 0.0;
        }
        if rssi_dbm >= f64::from(last.0) {
            return 1.0;
        }
        let floor = rssi_dbm.floor();
        let i = (floor as i32 - first.0) as usize;
        let (low, high) = (RSSI_PDR_TABLE[i].1, RSSI_PDR_TABLE[i + 1].1);
        low + (high - low) * (rssi_dbm - floor)
    }

    /// The mean (unshifted) RSSI at `distance_m`.
    pub fn mean_rssi_dbm(distance_m: f64) -> f64 {
        TX_POWER_DBM - free_space_loss_db(distance_m, FREQUENCY_HZ)
    }

    /// The RSSI of the link `a`–`b` at `distance_m`: the mean lowered by a
    /// uniform draw in [0, 40] dB, static per replication and reciprocal.
    pub fn rssi_dbm(seed: u64, replication: u64, a: NodeId, b: NodeId, distance_m: f64) -> f64 {
        // a word of its own, not the shadowing draw's
        let u = unit_interval(mix(!link_draw(seed, replication, a, b)));
        mean_rssi_dbm(distance_m) - LOWER_SHIFT_DB * u
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b} (tolerance {tol})");
    }

    #[test]
    fn free_space_link_budget_by_hand() {
        // Channel 11 = 2405 MHz, λ = 299792458 / 2.405e9 = 0.124654 m.
        // 10 m: 20 log10(4π·10 / 0.124654) = 20 log10(1008.10) = 60.070 dB.
        // 0 dBm out, 0 dBi antennas: −60.07 dBm in.
        let f = channel_frequency_hz(11).unwrap();
        close(f, 2.405e9, 1e-3);
        close(free_space_loss_db(10.0, f), 60.070, 5e-4);
        // Doubling the distance costs 20 log10 2 = 6.0206 dB.
        close(
            free_space_loss_db(20.0, f) - free_space_loss_db(10.0, f),
            6.0206,
            1e-4,
        );
        // The same budget through log-distance with n = 2.
        close(LogDistance::free_space(f).loss_db(10.0), 60.070, 5e-4);
        assert_eq!(channel_frequency_hz(26), Some(2.480e9));
        assert_eq!(channel_frequency_hz(10), None);
        assert_eq!(channel_frequency_hz(27), None);
    }

    #[test]
    fn log_distance_link_budget_by_hand() {
        // PL(1 m) = 40 dB, n = 3: at 100 m, 40 + 10·3·log10(100) = 100 dB;
        // at 50 m, 40 + 30·1.69897 = 90.969 dB. 0 dBm in → −100 dBm, a CC2420
        // (sensitivity −95 dBm) does not hear it; at 50 m it does.
        let m = LogDistance {
            reference_loss_db: 40.0,
            reference_distance_m: 1.0,
            exponent: 3.0,
        };
        close(m.loss_db(100.0), 100.0, 1e-9);
        close(m.loss_db(50.0), 90.969, 5e-4);
        // Below the reference distance: no gain.
        close(m.loss_db(0.1), 40.0, 1e-12);
    }

    #[test]
    fn interference_adds_in_milliwatts_not_decibels() {
        // Two −90 dBm interferers are −86.99 dBm together (2 · 1e-9 mW);
        // with a −100 dBm floor: 10 log10(2e-9 + 1e-10) = −86.778 dBm.
        // Signal −80 dBm → SINR 6.778 dB.
        close(sinr_db(-80.0, -100.0, &[-90.0, -90.0]), 6.778, 5e-4);
        close(mw_to_dbm(dbm_to_mw(-90.0) * 2.0), -86.990, 5e-4);
    }

    #[test]
    fn per_of_a_127_octet_frame_at_three_sinrs() {
        // Annex E's sum evaluated term by term (python, math.comb):
        // SINR −3 dB (0.50119): BER 1.64186e-2, PER 1 − (1−BER)^1016 ≈ 1.0000
        // SINR  0 dB (1):        BER 1.61527e-4, PER 0.151364
        // SINR  3 dB (1.99526):  BER 8.5972e-9,  PER 8.7347e-6
        close(oqpsk_ber(10f64.powf(-0.3)), 1.64186e-2, 1e-6);
        close(oqpsk_ber(1.0), 1.61527e-4, 1e-9);
        close(oqpsk_ber(10f64.powf(0.3)), 8.5972e-9, 1e-12);
        close(oqpsk_per(-3.0, 127), 0.99999995, 1e-7);
        close(oqpsk_per(0.0, 127), 0.151364, 1e-6);
        close(oqpsk_per(3.0, 127), 8.7347e-6, 1e-9);
        // A longer frame at the same SINR fails more often.
        assert!(oqpsk_per(0.0, 20) < oqpsk_per(0.0, 127));
    }

    #[test]
    fn capture_keeps_a_strong_frame_and_loses_a_weak_one() {
        let rule = Capture {
            threshold_db: 3.0,
            sync_header_us: 160,
        };
        let floor = -100.0;
        // Locked at −70 dBm, a −80 dBm hidden terminal arrives after the
        // SFD: SINR 10 log10(1e-7 / (1e-8 + 1e-10)) = 9.957 dB ≥ 3: kept.
        assert_eq!(rule.arrival(-70.0, -80.0, 500, floor, &[]), Arrival::Keep);
        // Locked at −80 dBm, a −78 dBm frame after the SFD: SINR −2 dB: lost,
        // and the newcomer cannot be received either.
        assert_eq!(
            rule.arrival(-80.0, -78.0, 500, floor, &[]),
            Arrival::Corrupted
        );
        // The same −78 dBm frame, 10 dB stronger than the locked −88 dBm
        // one and within its 160 µs preamble: takes over.
        assert_eq!(
            rule.arrival(-88.0, -78.0, 100, floor, &[]),
            Arrival::TakeOver
        );
        // Just after the preamble it cannot.
        assert_eq!(
            rule.arrival(-88.0, -78.0, 160, floor, &[]),
            Arrival::Corrupted
        );
    }

    const RULE: Capture = Capture {
        threshold_db: 3.0,
        sync_header_us: 160,
    };

    #[test]
    fn a_lone_frame_fails_at_the_ber_of_its_snr_over_every_bit() {
        // 20-octet PSDU: (6 + 20) · 32 = 832 µs = 208 bits. Signal −95 dBm,
        // noise −95 dBm: SNR 0 dB, BER 1.61527e-4 (Annex E, see above);
        // success (1 − 1.61527e-4)^208 = exp(208 · ln(0.999838473)) = 0.966958.
        let p = frame_success(-95.0, 0, 832, &[], -95.0, -100.0, RULE).unwrap();
        close(p, 0.966958, 2e-6);
        // Below the sensitivity the receiver never synchronises.
        assert_eq!(
            frame_success(-101.0, 0, 832, &[], -110.0, -100.0, RULE),
            None
        );
    }

    #[test]
    fn a_hidden_terminal_after_the_header_is_captured_under_a_strong_frame() {
        // Locked on −70 dBm from t = 0 (832 µs); a −80 dBm frame from
        // t = 400 to 1 232. SINR in [400, 832): 10 log10(1e-7 / (1e-8 +
        // 1e-10)) = 9.957 dB ≥ 3: kept; BER at 9.9 (linear) is
        // (8/15)(1/16)·C(16,2)·e^(−20·9.9/2)... ≈ 1e-42: success 1.
        let i = [(400, 1_232, -80.0)];
        let p = frame_success(-70.0, 0, 832, &i, -100.0, -95.0, RULE).unwrap();
        close(p, 1.0, 1e-12);
        // The weaker frame, locked second, is lost (the receiver holds the
        // first: non-capture for it).
        let j = [(0, 832, -70.0)];
        assert_eq!(
            frame_success(-80.0, 400, 832, &j, -100.0, -95.0, RULE),
            None
        );
        // Equal powers: SINR ≈ 0 dB < 3: both lost.
        let k = [(400, 1_232, -70.0)];
        assert_eq!(frame_success(-70.0, 0, 832, &k, -100.0, -95.0, RULE), None);
        // A stronger frame within the first's 160 µs header takes over...
        let late = [(0, 832, -88.0)];
        assert!(frame_success(-78.0, 100, 832, &late, -100.0, -95.0, RULE).is_some());
        // ...and the first one is lost to it.
        let over = [(100, 932, -78.0)];
        assert_eq!(
            frame_success(-88.0, 0, 832, &over, -100.0, -95.0, RULE),
            None
        );
        // An interferer below the sensitivity does not hold the receiver:
        // −99 dBm from t = 0 under a −80 dBm frame from t = 50, noise −101:
        // SINR 10 log10(1e-8 / (1.2589e-10 + 7.9433e-11)) = 16.87 dB: kept.
        let faint = [(0, 832, -99.0)];
        close(
            frame_success(-80.0, 50, 832, &faint, -101.0, -95.0, RULE).unwrap(),
            1.0,
            1e-12,
        );
    }

    #[test]
    fn interference_counts_only_while_it_lasts() {
        // Signal −90, noise −100, interferer −94 over the last 400 µs
        // (100 bits) of an 832 µs frame. Clean part: SNR 10 dB, BER ~1e-43.
        // Disturbed: SINR = 10 log10(1e-9 / (1e-10 + 3.98107e-10)) = 3.0268 dB
        // = 2.00760 linear; BER from Annex E: the k = 2 term
        // (8/15)(1/16)·120·e^(−20·2.0076/2) = 4 · 1.910e-9 = 7.641e-9, less
        // the k = 3 term (1/30)·560·e^(−26.77) = 0.044e-9: 7.60e-9;
        // success (1 − BER)^100 ≈ 1 − 7.6e-7.
        let i = [(432, 1_000, -94.0)];
        let p = frame_success(-90.0, 0, 832, &i, -100.0, -95.0, RULE).unwrap();
        let ber = oqpsk_ber(dbm_to_mw(-90.0) / (dbm_to_mw(-100.0) + dbm_to_mw(-94.0)));
        close(ber, 7.60e-9, 0.01e-9);
        close(p, (1.0 - ber).powf(100.0), 1e-15);
    }

    #[test]
    fn shadowing_is_static_reciprocal_and_named() {
        let a = shadowing_db(7, 0, 1, 2, 4.0);
        assert_eq!(a, shadowing_db(7, 0, 2, 1, 4.0));
        assert_eq!(a, shadowing_db(7, 0, 1, 2, 4.0));
        assert_ne!(a, shadowing_db(7, 1, 1, 2, 4.0));
        assert_ne!(a, shadowing_db(7, 0, 1, 3, 4.0));
        assert_eq!(shadowing_db(7, 0, 1, 2, 0.0), 0.0);
        // Over many links: mean ≈ 0, standard deviation ≈ sigma.
        let draws: Vec<f64> = (0..4000)
            .map(|b| shadowing_db(3, 0, 0, b + 1, 4.0))
            .collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let sd =
            (draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / draws.len() as f64).sqrt();
        close(mean, 0.0, 0.25);
        close(sd, 4.0, 0.2);
    }

    #[test]
    fn pister_hack_pdr_table() {
        use pister_hack::*;
        assert_eq!(pdr(-100.0), 0.0);
        assert_eq!(pdr(-97.0), 0.0);
        close(pdr(-96.0), 0.1494, 1e-12);
        close(pdr(-93.0), 0.6359, 1e-12);
        // halfway between −90 (0.8603) and −89 (0.8702): 0.86525
        close(pdr(-89.5), 0.86525, 1e-12);
        close(pdr(-80.0), 0.9903, 1e-12);
        assert_eq!(pdr(-79.0), 1.0);
        assert_eq!(pdr(-50.0), 1.0);
        // Free space at 2.4 GHz, 100 m: 20 log10(4π·100 / 0.124913) =
        // 80.05 dB, so the mean RSSI is −80.05 dBm and the shifted RSSI lies
        // in [−120.05, −80.05].
        close(mean_rssi_dbm(100.0), -80.05, 5e-3);
        let r = rssi_dbm(1, 0, 3, 4, 100.0);
        assert!((-120.06..=-80.04).contains(&r), "{r}");
        assert_eq!(r, rssi_dbm(1, 0, 4, 3, 100.0));
    }
}
