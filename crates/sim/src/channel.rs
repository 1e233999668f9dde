//! The shared medium: who is on the air when, and whether a frame survives.
//!
//! An [`Emission`] is a frame on the air — or a train of identical frames
//! repeated every `period` (an X-MAC strobe train), so a train costs one
//! entry however long it lasts. A frame is received by a node that listened
//! through its whole airtime, heard no other emission overlapping it (no
//! capture: both frames are lost), and whose per-frame delivery draw
//! succeeded.
//!
//! Carrier sense has one rule, [`Channel::sensed`]: each other sender on
//! the air brings the radio the power of its link — under [`Signals`] its
//! received power, added as mW against the CCA threshold; otherwise the
//! link's level, within the receiving range (PDR > 0) or heard only
//! (PDR 0) — and the radio's question ([`Sense`]) says which level makes
//! the channel busy and whether its own emission counts.
//!
//! With [`Signals`] (a signal medium, [`crate::medium::LogDistanceLine`])
//! the powers decide instead: a frame is received with the chance
//! [`crate::radio::frame_success`] gives at its SINR, interferers added as
//! power over the stretch they overlap it and the capture rule applied.

use std::rc::Rc;

use crate::radio::{self, Capture};
use crate::rng::{mix, unit_interval};
use crate::topology::Topology;
use crate::{NodeId, Time};

pub type EmissionId = u64;

/// One frame, or `count` copies of it starting every `period`.
#[derive(Debug, Clone)]
pub struct Emission {
    pub id: EmissionId,
    pub src: NodeId,
    pub start: Time,
    /// Airtime of one frame (SHR + PHR + PSDU).
    pub airtime: Time,
    /// Start-to-start distance of the copies (= airtime for a single frame).
    pub period: Time,
    /// Number of copies; a train can be cut short with [`Channel::truncate`].
    pub count: u64,
    pub frame: Rc<[u8]>,
    /// Radio channel (frequency) it is sent on; only the same channel hears it.
    pub channel: u8,
}

impl Emission {
    /// Start of copy `i`.
    pub fn copy_start(&self, i: u64) -> Time {
        self.start + i * self.period
    }

    /// End of the last copy.
    pub fn end(&self) -> Time {
        self.copy_start(self.count.saturating_sub(1)) + self.airtime
    }

    /// Does any copy's airtime intersect `[a, b)`?
    pub fn overlaps(&self, a: Time, b: Time) -> bool {
        self.copies_overlapping(a, b).is_some()
    }

    /// The first and last copy whose airtime intersects `[a, b)`, if any.
    pub fn copies_overlapping(&self, a: Time, b: Time) -> Option<(u64, u64)> {
        if self.count == 0 || b <= self.start || a >= self.end() || a >= b {
            return None;
        }
        // first copy ending after a
        let first = if a < self.start + self.airtime {
            0
        } else {
            (a - self.start - self.airtime) / self.period + 1
        };
        // last copy starting before b
        let last = ((b - self.start).div_ceil(self.period) - 1).min(self.count - 1);
        (first <= last).then_some((first, last))
    }
}

/// Airtime of a PSDU of `psdu_len` bytes at 250 kbit/s: (SHR + PHR + PSDU) × 32 µs.
pub fn airtime_us(psdu_len: usize) -> Time {
    (6 + psdu_len as Time) * 32
}

/// How long a frame of a given length is on the air.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Airtime {
    /// IEEE 802.15.4 at 250 kbit/s: [`airtime_us`].
    #[default]
    Standard,
    /// Cooja's native motes running Contiki 3.0 (the Cooja oracle,
    /// reference/cooja): ContikiRadio.java (line 346) puts a frame on the
    /// air for 8 bits per byte at 250 kbit/s of the bytes the firmware
    /// hands the radio, with no SHR, PHR or FCS (cooja-radio.c adds none),
    /// so a frame dtlsim builds with `len` bytes (FCS included) is on the
    /// air for (`len` − 2) · 32 µs. The bytes are the scenario's to get
    /// right: the oracle's firmware names both ends by 8-byte link
    /// addresses (`mac.xmac.extended_addresses`) and writes 6LoWPAN's
    /// context byte for context 0 (`mac.xmac.contiki_context_byte`), so a
    /// strobe is 25 bytes here and Cooja's 23-byte one on the air, 0.736
    /// ms, and a 67-byte ClientHello record is a 98-byte frame at one hop
    /// (3.136 ms), as the oracle's radio log shows.
    Cooja,
}

impl Airtime {
    pub fn of(self, frame: &[u8]) -> Time {
        match self {
            Airtime::Standard => airtime_us(frame.len()),
            Airtime::Cooja => (frame.len() as Time).saturating_sub(2) * 32,
        }
    }
}

/// Received powers between every pair of nodes and the receiver's
/// thresholds, for a signal medium.
#[derive(Debug, Clone)]
pub struct Signals {
    nodes: usize,
    /// `rx_dbm[src * nodes + dst]`; −∞ for a node itself.
    rx_dbm: Vec<f64>,
    rx_mw: Vec<f64>,
    noise_dbm: f64,
    sensitivity_dbm: f64,
    cca_threshold_mw: f64,
    capture: Capture,
    /// Shadowing re-drawn every period; None: the powers above hold
    /// throughout.
    varying: Option<Varying>,
}

/// Powers whose shadowing is re-drawn every `period_us`
/// ([`radio::shadowing_in_period_db`]): a frame or a carrier-sense window
/// takes the draw of the period it starts in.
#[derive(Debug, Clone)]
pub struct Varying {
    /// `mean_dbm[src * nodes + dst]`: the power without shadowing.
    pub mean_dbm: Vec<f64>,
    /// Each link's key for its draws ([`radio::shadowing_key`]), by the
    /// same index.
    pub keys: Vec<u64>,
    pub sigma_db: f64,
    pub period_us: Time,
}

impl Signals {
    pub fn new(
        nodes: usize,
        rx_dbm: Vec<f64>,
        noise_dbm: f64,
        sensitivity_dbm: f64,
        cca_threshold_dbm: f64,
        capture: Capture,
    ) -> Self {
        let rx_mw = rx_dbm.iter().map(|&p| radio::dbm_to_mw(p)).collect();
        Signals {
            nodes,
            rx_dbm,
            rx_mw,
            noise_dbm,
            sensitivity_dbm,
            cca_threshold_mw: radio::dbm_to_mw(cca_threshold_dbm),
            capture,
            varying: None,
        }
    }

    /// Re-draw the shadowing every `varying.period_us` (its draw for period
    /// 0 must be the one `rx_dbm` was built with).
    pub fn varying(mut self, varying: Varying) -> Self {
        self.varying = (varying.period_us > 0).then_some(varying);
        self
    }

    /// The power `dst` receives from `src` (in the first shadowing period).
    pub fn rx_dbm(&self, src: NodeId, dst: NodeId) -> f64 {
        self.rx_dbm[src * self.nodes + dst]
    }

    /// The power `dst` receives from `src` at `t`.
    pub fn rx_dbm_at(&self, src: NodeId, dst: NodeId, t: Time) -> f64 {
        let i = src * self.nodes + dst;
        match &self.varying {
            None => self.rx_dbm[i],
            Some(v) => {
                let period = t / v.period_us;
                v.mean_dbm[i] - radio::shadowing_in_period_db(v.keys[i], period, v.sigma_db)
            }
        }
    }

    /// [`Signals::rx_dbm_at`] in mW.
    fn rx_mw_at(&self, src: NodeId, dst: NodeId, t: Time) -> f64 {
        match &self.varying {
            None => self.rx_mw[src * self.nodes + dst],
            Some(_) => radio::dbm_to_mw(self.rx_dbm_at(src, dst, t)),
        }
    }
}

/// Why a frame was not received under a signal medium.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalLoss {
    /// Below the receiver's sensitivity.
    TooWeak,
    /// The capture rule, or the receiver's own transmission.
    Collided,
}

/// What a radio asks its carrier sense: the one rule ([`Channel::busy`])
/// counts the power each other sender on the air brings it — the link's
/// power under [`Signals`], else the link's level: within the receiving
/// range (a link of PDR > 0) or heard only (PDR 0) — and the question says
/// from which level on it is busy and whether its own emission counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sense {
    /// Energy detection (CCA) over a window: the radio's own emission
    /// counts (it cannot listen while it sends) and so does every sender
    /// it hears at all, hear-only links included (a signal it cannot
    /// decode is still energy); under signals, their power against the
    /// CCA threshold.
    Energy,
    /// cooja-radio.c `radio_send`'s CCA (WITH_SEND_CCA), asked by a radio
    /// about to send: its own emission, the copy of its train it is about
    /// to send included, does not count, and only senders within its
    /// receiving range do: Cooja's UDGM gives such a radio a signal
    /// strength above cooja-radio.c's CCA threshold (UDGM.java
    /// `updateSignalStrengths`: −10 dBm at the sender falling to −95 dBm at
    /// the transmitting range; `CCA_SS_THRESHOLD` −95), and only such a
    /// radio. Under signals, their power against the CCA threshold.
    BeforeSending,
    /// Is a frame on the air that the radio can synchronise on (a receiver
    /// deciding whether to keep listening for one that began)? Without
    /// signals, a sender on a link that delivers frames: a hear-only link
    /// (UDGM's interference range) is energy, not a frame to lock on
    /// (Cooja's UDGM gives that receiver RECEPTION_INTERFERED, which its
    /// radio driver does not report as a packet being received, and the
    /// Cooja-NG oracle's radio log shows its idle wait ending as usual);
    /// under signals, a sender received
    /// at or above the sensitivity, whatever the CCA threshold: the radio
    /// locks on a preamble, not on energy, so a weak but decodable frame
    /// keeps it listening where energy detection would not.
    Frame,
}

pub struct Channel {
    topology: Topology,
    /// The signal medium's powers; None: links' PDRs and collisions.
    signals: Option<Signals>,
    /// How long each frame is on the air.
    pub airtime: Airtime,
    on_air: Vec<Emission>,
    next_id: EmissionId,
    /// Emissions that ended this long ago can no longer overlap a frame whose
    /// reception is still being judged.
    keep_us: Time,
    /// UDGM's per-transmission success ([`crate::medium`]): the ratio and
    /// the key of its draws; None: every transmission goes out.
    tx_success: Option<(f64, u64)>,
}

impl Channel {
    pub fn new(topology: Topology) -> Self {
        Channel {
            topology,
            airtime: Airtime::Standard,
            on_air: Vec::new(),
            next_id: 0,
            keep_us: airtime_us(127) * 2,
            tx_success: None,
            signals: None,
        }
    }

    /// Receive by SINR and sense energy with these powers.
    pub fn set_signals(&mut self, signals: Signals) {
        self.signals = Some(signals);
    }

    pub fn signals(&self) -> Option<&Signals> {
        self.signals.as_ref()
    }

    /// Under a signal medium: the chance that `node` decodes the copy
    /// `[a, b)` of emission `id`, given everything else audible on its
    /// channel then ([`radio::frame_success`]).
    pub fn sinr_success(
        &self,
        node: NodeId,
        id: EmissionId,
        a: Time,
        b: Time,
    ) -> Result<f64, SignalLoss> {
        let (Some(s), Some(frame)) = (&self.signals, self.get(id)) else {
            return Err(SignalLoss::Collided);
        };
        let mut interferers = Vec::new();
        for e in &self.on_air {
            if e.id == id || e.channel != frame.channel || !self.audible(e, node) {
                continue;
            }
            let Some((first, last)) = e.copies_overlapping(a, b) else {
                continue;
            };
            for i in (first..=last).filter(|&i| self.transmitted(e, i)) {
                if e.src == node {
                    return Err(SignalLoss::Collided); // it was sending
                }
                let start = e.copy_start(i);
                interferers.push((start, start + e.airtime, s.rx_dbm_at(e.src, node, a)));
            }
        }
        let signal = s.rx_dbm_at(frame.src, node, a);
        if signal < s.sensitivity_dbm {
            return Err(SignalLoss::TooWeak);
        }
        radio::frame_success(
            signal,
            a,
            b - a,
            &interferers,
            s.noise_dbm,
            s.sensitivity_dbm,
            s.capture,
        )
        .ok_or(SignalLoss::Collided)
    }

    /// Each transmission (each copy of a train) goes out with probability
    /// `ratio`, drawn once for all radios from `key` and the copy's
    /// identity; one that fails is neither received, nor disturbing, nor
    /// sensed (UDGM.java `createConnections`).
    pub fn set_tx_success(&mut self, ratio: f64, key: u64) {
        self.tx_success = (ratio < 1.0).then_some((ratio, key));
    }

    /// Does every copy go out (no [`Channel::set_tx_success`] ratio below 1)?
    pub fn every_copy_goes_out(&self) -> bool {
        self.tx_success.is_none()
    }

    /// Did copy `copy` of `e` go out (see [`Channel::set_tx_success`])?
    pub fn transmitted(&self, e: &Emission, copy: u64) -> bool {
        self.tx_success
            .is_none_or(|(ratio, key)| unit_interval(mix(key ^ mix(e.id ^ mix(copy)))) < ratio)
    }

    /// Is some copy of `e` that went out on the air during `[a, b)`?
    pub fn on_air_during(&self, e: &Emission, a: Time, b: Time) -> bool {
        match (self.tx_success, e.copies_overlapping(a, b)) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(_), Some((first, last))) => (first..=last).any(|i| self.transmitted(e, i)),
        }
    }

    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// Put an emission on the air; returns its id.
    pub fn emit(
        &mut self,
        src: NodeId,
        start: Time,
        frame: Rc<[u8]>,
        period: Time,
        count: u64,
        channel: u8,
    ) -> EmissionId {
        let airtime = self.airtime.of(&frame);
        debug_assert!(count == 1 || period >= airtime, "copies of a train overlap");
        let id = self.next_id;
        self.next_id += 1;
        self.on_air.push(Emission {
            id,
            src,
            start,
            airtime,
            period: period.max(airtime),
            count,
            frame,
            channel,
        });
        id
    }

    /// Emissions are kept in the order of their ids (emitted in it, pruned
    /// in place), so one is found by bisection.
    fn index(&self, id: EmissionId) -> Option<usize> {
        self.on_air.binary_search_by_key(&id, |e| e.id).ok()
    }

    pub fn get(&self, id: EmissionId) -> Option<&Emission> {
        self.index(id).map(|i| &self.on_air[i])
    }

    /// Cut a train after `count` copies (its receiver answered).
    pub fn truncate(&mut self, id: EmissionId, count: u64) {
        if let Some(i) = self.index(id) {
            let e = &mut self.on_air[i];
            e.count = e.count.min(count);
        }
    }

    /// Forget emissions that can no longer matter.
    pub fn prune(&mut self, now: Time) {
        let keep = self.keep_us;
        self.on_air.retain(|e| e.end() + keep >= now);
    }

    /// Energy detection at `node` on `channel` over `[a, b)`
    /// ([`Sense::Energy`]).
    pub fn busy(&self, node: NodeId, a: Time, b: Time, channel: u8) -> bool {
        self.sensed(node, a, b, channel, Sense::Energy)
    }

    /// cooja-radio.c's CCA at `t` before `node` sends
    /// ([`Sense::BeforeSending`]).
    pub fn busy_before_sending(&self, node: NodeId, t: Time, channel: u8) -> bool {
        self.sensed(node, t, t + 1, channel, Sense::BeforeSending)
    }

    /// Carrier sense, the one rule: is `node` on the air itself (when the
    /// question counts that), or do the other emissions on `channel`
    /// during `[a, b)` bring it the question's level ([`Sense`])?
    pub fn sensed(&self, node: NodeId, a: Time, b: Time, channel: u8, question: Sense) -> bool {
        let mut mw = 0.0;
        for e in &self.on_air {
            if e.channel != channel || !self.on_air_during(e, a, b) {
                continue;
            }
            if e.src == node {
                if question != Sense::BeforeSending {
                    return true;
                }
                continue;
            }
            let Some(pdr) = self.topology.pdr(e.src, node) else {
                continue; // not heard at all
            };
            match (&self.signals, question) {
                (Some(s), Sense::Frame) => {
                    if s.rx_dbm_at(e.src, node, a) >= s.sensitivity_dbm {
                        return true;
                    }
                }
                (Some(s), _) => mw += s.rx_mw_at(e.src, node, a),
                (None, Sense::Energy) => return true,
                (None, Sense::BeforeSending | Sense::Frame) if pdr > 0.0 => return true,
                (None, Sense::BeforeSending | Sense::Frame) => {}
            }
        }
        question != Sense::Frame
            && self
                .signals
                .as_ref()
                .is_some_and(|s| mw >= s.cca_threshold_mw)
    }

    /// Whether `node` could be synchronising on a frame on the air during
    /// `[a, b)` on `channel` ([`Sense::Frame`]).
    pub fn frame_on_air(&self, node: NodeId, a: Time, b: Time, channel: u8) -> bool {
        self.sensed(node, a, b, channel, Sense::Frame)
    }

    /// Whether `node` hears `e` at all (its own emissions included). Asked
    /// last in the scans: most emissions on the air are already ruled out by
    /// their channel or their time, which is cheaper to check than a link.
    fn audible(&self, e: &Emission, node: NodeId) -> bool {
        e.src == node || self.topology.pdr(e.src, node).is_some()
    }

    /// Was the copy `[a, b)` of emission `id` disturbed at `node` by any other
    /// audible emission, or by `node`'s own transmissions?
    pub fn interfered(&self, node: NodeId, id: EmissionId, a: Time, b: Time) -> bool {
        let channel = self.get(id).map_or(0, |e| e.channel);
        self.on_air.iter().any(|e| {
            e.id != id
                && e.channel == channel
                && self.on_air_during(e, a, b)
                && self.audible(e, node)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frame(len: usize) -> Rc<[u8]> {
        vec![0u8; len].into()
    }

    #[test]
    fn cooja_airtime_is_the_bytes_handed_to_the_radio() {
        // a strobe with two 8-byte addresses and PAN ID compression: 21
        // header bytes, 2 of cxmac, 2 of FCS; Cooja counts 23 (0.736 ms)
        assert_eq!(Airtime::Cooja.of(&[0u8; 25]), 736);
        // no SHR, PHR or FCS on the air: 100 bytes with FCS are 98 · 32 µs
        assert_eq!(Airtime::Cooja.of(&[0u8; 100]), 98 * 32);
        // the standard airtime adds SHR and PHR and counts the FCS
        assert_eq!(Airtime::Standard.of(&[0u8; 100]), airtime_us(100));
    }

    #[test]
    fn airtime_by_hand() {
        assert_eq!(airtime_us(127), 4256); // IEEE 802.15.4 TsMaxTx for 127 bytes
        assert_eq!(airtime_us(5), 352); // an immediate ACK
    }

    #[test]
    fn train_overlap_by_hand() {
        let mut ch = Channel::new(Topology::line(3, 1.0).unwrap());
        // copies of 10 bytes (512 µs) every 1000 µs, 3 copies from t = 0:
        // on air [0,512) [1000,1512) [2000,2512)
        let id = ch.emit(0, 0, frame(10), 1000, 3, 0);
        let e = ch.get(id).unwrap().clone();
        assert_eq!(e.end(), 2512);
        assert!(e.overlaps(500, 600));
        assert!(!e.overlaps(512, 1000)); // the gap
        assert!(e.overlaps(999, 1001));
        assert!(!e.overlaps(2512, 9000));
        // node 1 hears node 0; node 2 does not (hidden)
        assert!(ch.busy(1, 1100, 1200, 0));
        assert!(!ch.busy(1, 1100, 1200, 5)); // another frequency
        assert!(!ch.busy(1, 600, 900, 0));
        assert!(!ch.busy(2, 0, 3000, 0));
        ch.truncate(id, 1);
        assert!(!ch.busy(1, 1100, 1200, 0));
    }

    #[test]
    fn a_cooja_radio_senses_only_frames_from_within_its_range() {
        // Cooja's default UDGM on a 40 m line: node 1 receives both ends,
        // nodes 0 and 2 (80 m apart) only disturb each other
        let udgm = crate::medium::Udgm {
            spacing_m: 40.0,
            tx_range_m: 50.0,
            interference_range_m: 100.0,
            success_ratio_tx: 1.0,
            success_ratio_rx: 1.0,
        };
        let mut ch = Channel::new(udgm.line(3).unwrap());
        ch.airtime = Airtime::Cooja;
        // a 25-byte strobe is Cooja's 23 bytes: 736 µs, on the air 1 000-1 736
        ch.emit(0, 1_000, frame(25), 0, 1, 0);
        assert!(ch.busy_before_sending(1, 1_000, 0));
        assert!(ch.busy_before_sending(1, 1_735, 0));
        assert!(!ch.busy_before_sending(1, 1_736, 0));
        assert!(
            !ch.busy_before_sending(2, 1_200, 0),
            "beyond the transmitting range"
        );
        // the same rule asked as energy detection: a hear-only sender
        // counts, and so does the radio's own frame
        assert!(ch.busy(2, 1_200, 1_300, 0), "heard, not decodable");
        assert!(ch.busy(0, 1_200, 1_300, 0), "its own frame");
        assert!(!ch.busy_before_sending(0, 1_200, 0), "its own frame");
        assert!(!ch.busy_before_sending(1, 1_200, 3), "another channel");
    }

    #[test]
    fn hidden_terminals_collide_at_the_middle_node() {
        let mut ch = Channel::new(Topology::line(3, 1.0).unwrap());
        let a = ch.emit(0, 0, frame(50), 0, 1, 0);
        let _b = ch.emit(2, 300, frame(50), 0, 1, 0);
        let e = ch.get(a).unwrap().clone();
        assert!(ch.interfered(1, a, e.start, e.end()));
        // the same frames on different channels do not collide
        let mut apart = Channel::new(Topology::line(3, 1.0).unwrap());
        let a = apart.emit(0, 0, frame(50), 0, 1, 0);
        let _b = apart.emit(2, 300, frame(50), 0, 1, 7);
        assert!(!apart.interfered(1, a, 0, airtime_us(50)));
        // node 0's own frame is not disturbed at node 0's neighbour 1 without b:
        let mut quiet = Channel::new(Topology::line(3, 1.0).unwrap());
        let a = quiet.emit(0, 0, frame(50), 0, 1, 0);
        assert!(!quiet.interfered(1, a, 0, airtime_us(50)));
    }

    #[test]
    fn a_transmission_that_fails_is_neither_received_nor_disturbing_nor_sensed() {
        // ratio 0: every transmission fails (UDGM.java returns a connection
        // with no destinations and no interfered radios)
        let mut ch = Channel::new(Topology::line(3, 1.0).unwrap());
        ch.set_tx_success(0.0, 7);
        let a = ch.emit(0, 0, frame(50), 0, 1, 0);
        let _b = ch.emit(2, 300, frame(50), 0, 1, 0);
        let e = ch.get(a).unwrap().clone();
        assert!(!ch.transmitted(&e, 0));
        assert!(!ch.interfered(1, a, e.start, e.end()));
        assert!(!ch.busy(1, 0, 3000, 0));
        // ratio 1 is the default: every transmission goes out
        ch.set_tx_success(1.0, 7);
        assert!(ch.transmitted(&e, 0));
        assert!(ch.interfered(1, a, e.start, e.end()));
    }

    #[test]
    fn transmissions_go_out_at_the_ratio_one_draw_per_copy() {
        let mut ch = Channel::new(Topology::line(2, 1.0).unwrap());
        ch.set_tx_success(0.7, 42);
        let id = ch.emit(0, 0, frame(10), 1000, 20_000, 0);
        let e = ch.get(id).unwrap().clone();
        let sent = (0..20_000).filter(|&i| ch.transmitted(&e, i)).count() as f64;
        // binomial(20 000, 0.7): sd 65; 4.5 sd either side
        assert!((sent - 14_000.0).abs() < 300.0, "{sent}");
        // a window over copies 3 and 4 is busy iff one of them went out
        let (a, b) = (e.copy_start(3) + 100, e.copy_start(4) + 100);
        assert_eq!(
            ch.busy(1, a, b, 0),
            ch.transmitted(&e, 3) || ch.transmitted(&e, 4)
        );
    }

    #[test]
    fn a_frame_below_the_sensitivity_keeps_no_receiver_listening() {
        // node 1 hears node 0 at −97 dBm: above the −101 dBm noise floor
        // (energy it could sum), below the −95 dBm sensitivity
        let mut rx = vec![f64::NEG_INFINITY; 4];
        (rx[1], rx[2]) = (-97.0, -97.0);
        let rule = Capture {
            threshold_db: 3.0,
            sync_header_us: 160,
        };
        let topology = Topology::from_links(2, &[(0, 1, 1.0), (1, 0, 1.0)]).unwrap();
        let mut ch = Channel::new(topology.clone());
        ch.set_signals(Signals::new(2, rx, -101.0, -95.0, -99.0, rule));
        ch.emit(0, 0, frame(20), 0, 1, 0);
        assert!(
            ch.busy(1, 100, 200, 0),
            "−97 dBm ≥ the −99 dBm CCA threshold"
        );
        assert!(!ch.frame_on_air(1, 100, 200, 0));
        // without signals, a frame on the air is what energy detection sees
        let mut plain = Channel::new(topology);
        plain.emit(0, 0, frame(20), 0, 1, 0);
        assert_eq!(
            plain.frame_on_air(1, 100, 200, 0),
            plain.busy(1, 100, 200, 0)
        );
        assert!(plain.frame_on_air(1, 100, 200, 0));
    }

    #[test]
    fn a_hear_only_link_is_energy_not_a_frame_to_lock_on() {
        // node 2 hears node 0 only as interference (PDR 0, UDGM's
        // interference range): the channel is busy, but no frame began
        let links = [
            (0, 1, 1.0),
            (1, 0, 1.0),
            (1, 2, 1.0),
            (2, 1, 1.0),
            (0, 2, 0.0),
        ];
        let topology = Topology::line_with_links(3, &links).unwrap();
        let mut ch = Channel::new(topology);
        ch.emit(0, 0, frame(20), 0, 1, 0);
        assert!(ch.busy(2, 100, 200, 0));
        assert!(!ch.frame_on_air(2, 100, 200, 0));
        assert!(ch.frame_on_air(1, 100, 200, 0), "node 1 decodes it");
    }

    #[test]
    fn carrier_sense_sees_energy_above_the_threshold_not_frames() {
        // Node 1 receives −90 dBm from node 0 and −85 dBm from node 2;
        // CCA threshold −87 dBm. One alone: −90 < −87 idle; node 2 alone
        // −85 ≥ −87 busy; both: 10 log10(1e-9 + 3.162e-9) = −83.8 busy.
        let mut rx = vec![f64::NEG_INFINITY; 9];
        rx[1] = -90.0; // 0 → 1
        rx[2 * 3 + 1] = -85.0; // 2 → 1
        rx[3] = -90.0; // 1 → 0
        rx[3 + 2] = -85.0; // 1 → 2
        let rule = Capture {
            threshold_db: 3.0,
            sync_header_us: 160,
        };
        let topology =
            Topology::from_links(3, &[(0, 1, 1.0), (1, 0, 1.0), (2, 1, 1.0), (1, 2, 1.0)]);
        let mut ch = Channel::new(topology.unwrap());
        ch.set_signals(Signals::new(3, rx, -101.0, -95.0, -87.0, rule));
        ch.emit(0, 0, frame(20), 0, 1, 0);
        assert!(!ch.busy(1, 100, 200, 0), "−90 dBm is below the threshold");
        // yet a receiver synchronises on it: −90 dBm ≥ the −95 dBm sensitivity
        assert!(ch.frame_on_air(1, 100, 200, 0));
        assert!(!ch.frame_on_air(1, 1_000, 1_100, 0), "after the frame");
        ch.emit(2, 1_000, frame(20), 0, 1, 0);
        assert!(ch.busy(1, 1_100, 1_200, 0), "−85 dBm is above it");
        let mut both = Channel::new(ch.topology().clone());
        both.set_signals(ch.signals().unwrap().clone());
        let a = both.emit(0, 0, frame(20), 0, 1, 0);
        both.emit(2, 0, frame(20), 0, 1, 1);
        assert!(
            !both.busy(1, 100, 200, 0),
            "the other is on another channel"
        );
        // node 1 decodes node 0's frame alone at SNR 11 dB: success ~1
        let p = both.sinr_success(1, a, 0, airtime_us(20)).unwrap();
        assert!((p - 1.0).abs() < 1e-9, "{p}");
        // its own transmission on the channel loses it
        both.emit(1, 300, frame(5), 0, 1, 0);
        assert_eq!(
            both.sinr_success(1, a, 0, airtime_us(20)),
            Err(SignalLoss::Collided)
        );
    }

    proptest! {
        #[test]
        fn overlap_matches_brute_force(
            start in 0u64..5000, len in 1usize..40, gap in 0u64..3000, count in 1u64..6,
            a in 0u64..20000, w in 1u64..3000,
        ) {
            let airtime = airtime_us(len);
            let e = Emission { id: 0, src: 0, start, airtime, period: airtime + gap, count,
                               frame: frame(len), channel: 0 };
            let brute = (0..count).any(|i| {
                let s = e.copy_start(i);
                s < a + w && s + airtime > a
            });
            prop_assert_eq!(e.overlaps(a, a + w), brute);
        }
    }
}
