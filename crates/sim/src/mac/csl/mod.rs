//! Coordinated sampled listening, CSL (IEEE 802.15.4-2015 §6.12.2), as
//! OpenThread runs it for Thread 1.2 synchronized sleepy end devices
//! (SSEDs), with Thread's data polling for sleepy end devices.
//!
//! A node with one neighbour that is not the server is a sleepy end device
//! (a child); every other node is awake with its receiver on when idle (a
//! parent or router). The child samples the channel once every CSL period
//! for a window around its sample time; the window widens with the time
//! since it last synchronised with its parent, by both clocks' accuracy and
//! uncertainty (OpenThread sub_mac_csl_receiver.cpp `GetCslWindowEdges`):
//! half-width = elapsed x (ppm + ppm) / 10^6 + uncertainty + uncertainty,
//! from `min_receive_on_ahead + receive_time_ahead` more before the sample
//! to `min_receive_on_after` more after it, each side at most half a
//! period. A frame under way when the window closes is received whole.
//!
//! Every frame the child sends carries a CSL IE (phase and period, in units
//! of ten symbols, filled in at transmission): from it the parent knows the
//! child's samples and sends it frames synchronised, the frame's MHR
//! starting at a sample (§6.12.2.4.1), after one CCA; a frame not
//! acknowledged is tried again at the next sample. One frame goes per
//! sample (no frame-pending bursts within a window). A parent that has not
//! yet heard a CSL IE holds the child's frames (indirect transmission)
//! until the child's next frame or data poll: a poll is acknowledged with
//! the frame-pending bit and the frames follow while the child listens
//! `poll_wait` (the first exchange unsynchronised). With a CSL period of 0
//! the child is a plain sleepy end device that polls only. The child's
//! last synchronisation is the ACK of a frame it sent with its CSL IE, or a
//! frame from its parent that it acknowledged.
//!
//! Between awake nodes and from a child to its parent: unslotted CSMA/CA,
//! ACKs and `max_retries` retries (IEEE 802.15.4-2006 §7.5.1.4).
//!
//! Each node counts its CSL times on its own drifting clock
//! ([`crate::clock::Crystal`], drawn within `crystal_tolerance_ppm`): the
//! child its samples, the parent the child's samples it predicts from the
//! last CSL IE (the frame's start as the parent's clock saw it plus the
//! phase). A frame aimed by a stale or drifted prediction that starts
//! outside the child's widened window is not heard, goes unacknowledged
//! and is retried at the next sample; crystals within the advertised
//! accuracy never miss. Short intervals (CCA, turnaround, ACK wait) run
//! on true time: their error is a fraction of a microsecond.
//!
//! Frames with a CSL IE are 2015 frames, and so are the parent's
//! synchronised frames to a child; a 2015 frame is answered with an
//! Enh-Ack (OpenThread `TxFrame::GenerateEnhAck`: the frame's source as
//! destination, no source, 7 bytes), a child's carrying its CSL IE
//! (13 bytes): the parent re-learns the child's phase from it
//! (OpenThread `Mac::ProcessCsl` on the ACK), so its prediction is never
//! older than the last exchange. An ACK begun within macAckWaitDuration is
//! received whole. With link security the Enh-Ack is sealed like a data
//! frame; its receiver reads the CSL IE from the clear header without
//! checking the MIC.
//!
//! A first frame to a child whose phase the parent does not know goes by
//! indirect transmission at the child's next data poll (or as soon as a
//! frame with its CSL IE arrives), never by a wake-up frame sequence:
//! OpenThread's `IndirectSender` hands a sleepy child's frames to its
//! `DataPollHandler`, and its `CslTxScheduler` serves only children marked
//! CSL-synchronised by `ProcessCsl` (as read in the openthread
//! repository's src/core/mac and thread directories; the scheduler's
//! filter as recalled, not re-read). A Thread SSED tells its parent its
//! phase in the MLE Child Update Request that turns CSL on, so the case
//! the wake-up sequence serves (§6.12.2.4.2, rules kept in [`timing`])
//! does not arise in the handshakes simulated here.
//!
//! Not modelled: wake-up frame sequences (above), and CSL on a channel
//! other than the PAN's.

mod params;
pub mod timing;

pub use params::CslParams;

use std::collections::{HashMap, VecDeque};

use wpan::frame::{command_id, Address, BodyRef, FrameType, FrameVersion, Repr};
use wpan::ie::HeaderIe;

use super::address::{addressed_to, short_addr, LinkAddressing, PAN_ID};
use super::common::{draw_below, DataReceiver};
use super::frame::{ack_frame, data_repr, heard, max_data_payload, seal, Parsed};
use super::phy;
use super::security::NodeSecurity;
use super::{Mac, MacStats};
use crate::channel::{airtime_us, EmissionId};
use crate::clock::Crystal;
use crate::energy::RadioState;
use crate::timer::{TimerTable, Token};
use crate::world::{Cx, Received};
use crate::{NodeId, Time};

crate::timer_kinds! {
    enum Kind {
        /// A sample window opens.
        WindowOpen,
        /// A sample window closes.
        WindowClose,
        /// The frame under way at a window's close has had time to end.
        HoldEnd,
        /// The next step of a send (backoff, CCA, turnaround, ACK wait, CSL wait).
        Step,
        /// An ACK's turnaround.
        AckTurnaround,
        /// A data poll is due.
        Poll,
        /// The frame a poll was told of did not come.
        PollWaitEnd,
    }
}

/// Header IE element ID of the CSL IE (IEEE 802.15.4-2015 Table 7-7).
pub const CSL_IE_ID: u8 = wpan::ie::id::CSL;

/// Bytes a frame gains by carrying the CSL IE: its descriptor (2), phase
/// (2) and period (2), and the header termination 2 before the payload (2).
pub const CSL_IE_BYTES: usize = 2 + 2 + 2 + 2;

/// SHR (preamble 4, SFD 1) and PHR (1) on the air before the MHR: 6 x 32 µs.
pub const SHR_PHR_US: Time = 6 * 32;

/// Longest frame on the air (127-byte PSDU): how long a frame under way can
/// keep a closing window open.
const LONGEST_FRAME_US: Time = (phy::MAX_PSDU as Time + 6) * 32;

/// A node's place in a CSL network.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Role {
    /// A sleepy end device's parent; None: the node is awake.
    pub parent: Option<NodeId>,
    /// The sleepy end devices whose frames this node holds and sends.
    pub children: Vec<NodeId>,
}

/// The roles of a network's nodes: each node with a single neighbour, other
/// than `server`, is a sleepy end device of that neighbour.
pub fn roles(topology: &crate::topology::Topology, server: NodeId) -> Vec<Role> {
    let n = topology.nodes();
    let mut neighbours = vec![Vec::new(); n];
    for (from, to, _) in topology.links() {
        if !neighbours[from].contains(&to) {
            neighbours[from].push(to);
        }
    }
    let mut roles = vec![Role::default(); n];
    for node in 0..n {
        if node != server && neighbours[node].len() == 1 {
            let parent = neighbours[node][0];
            roles[node].parent = Some(parent);
            roles[parent].children.push(node);
        }
    }
    // two sleepy devices cannot be each other's parent
    for node in 0..n {
        if let Some(parent) = roles[node].parent {
            if roles[parent].parent == Some(node) && parent < node {
                roles[node].parent = None;
                roles[parent].children.retain(|&c| c != node);
            }
        }
    }
    roles
}

/// What the parent knows of a child's samples: one of them, and the
/// period, both counted on the parent's own clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Samples {
    anchor: Time,
    period: Time,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum What {
    Data,
    Poll,
}

struct Pending {
    to: NodeId,
    payload: Vec<u8>,
    seq: u8,
    what: What,
    retries: u32,
    /// Answers a poll: the child listens now, send it directly.
    direct: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    Backoff,
    /// Waiting for the CCA before a CSL transmission at `sample`.
    CslWait {
        sample: Time,
    },
    Cca {
        csl: bool,
    },
    Turnaround,
    Sending(EmissionId),
    AwaitAck,
}

pub struct Csl {
    p: CslParams,
    role: Role,
    state: State,
    queue: VecDeque<Pending>,
    /// A child's frames until its parent knows its samples or it polls.
    held: HashMap<NodeId, VecDeque<Pending>>,
    synced: HashMap<NodeId, Samples>,
    nb: u32,
    be: u32,
    seq: u8,
    timers: TimerTable<Kind>,
    ack_due: Option<u8>,
    /// Whom the ACK due answers, and whether its frame was a 2015 one
    /// (answered with an Enh-Ack, OpenThread `GenerateEnhAck`).
    ack_to: NodeId,
    ack_enhanced: bool,
    /// The ACK wait was extended once for a frame under way.
    ack_wait_extended: bool,
    /// The frame-pending bit of the ACK due.
    ack_pending_bit: bool,
    ack_on_air: Option<EmissionId>,
    /// The frame on the air carries this node's CSL IE.
    sent_csl_ie: bool,
    /// This node's crystal and the true time its clock started: every
    /// CSL time below (samples, the last sync, a child's samples) is
    /// counted on this clock, converted to true time only to set a timer.
    crystal: Crystal,
    clock_origin: Time,
    // a sleepy end device's receiver (its own clock)
    anchor: Time,
    last_sync: Time,
    sample: Time,
    in_window: bool,
    holding: bool,
    poll_wait: bool,
    receiver: DataReceiver,
    security: Option<NodeSecurity>,
    stats: MacStats,
}

impl Csl {
    pub fn new(p: CslParams, role: Role) -> Self {
        Csl {
            p,
            role,
            state: State::Idle,
            queue: VecDeque::new(),
            held: HashMap::new(),
            synced: HashMap::new(),
            nb: 0,
            be: p.min_be,
            seq: 0,
            timers: TimerTable::new(),
            ack_due: None,
            ack_to: 0,
            ack_enhanced: false,
            ack_wait_extended: false,
            ack_pending_bit: false,
            ack_on_air: None,
            sent_csl_ie: false,
            crystal: p.crystal.unwrap_or(Crystal::PERFECT),
            clock_origin: 0,
            anchor: 0,
            last_sync: 0,
            sample: 0,
            in_window: false,
            holding: false,
            poll_wait: false,
            receiver: DataReceiver::default(),
            security: p.security.map(NodeSecurity::new),
            stats: MacStats::default(),
        }
    }

    fn sleepy(&self) -> bool {
        self.role.parent.is_some()
    }

    fn samples(&self) -> bool {
        self.sleepy() && self.p.period_us > 0
    }

    /// This node's clock reading at true time `t`.
    fn local(&self, t: Time) -> Time {
        self.clock_origin + self.crystal.nominal_duration(t - self.clock_origin)
    }

    /// The true time at which this node's clock reads `l`.
    fn true_at(&self, l: Time) -> Time {
        self.clock_origin + self.crystal.true_duration(l - self.clock_origin)
    }

    /// The sample window around `sample`, widened for the time since the
    /// last synchronisation (OpenThread `GetCslWindowEdges`), on this
    /// node's clock.
    pub fn window(&self, sample: Time) -> (Time, Time) {
        let p = &self.p;
        let elapsed = sample.saturating_sub(self.last_sync);
        let semi = timing::drift_us(elapsed, 2 * p.accuracy_ppm, 2 * p.uncertainty_us);
        let half = p.period_us / 2;
        let ahead = (semi + p.min_receive_on_ahead_us + p.receive_time_ahead_us).min(half);
        let after = (semi + p.min_receive_on_after_us).min(half);
        (sample.saturating_sub(ahead), sample + after)
    }

    fn schedule_window(&mut self, cx: &mut Cx, sample: Time) {
        self.sample = sample;
        let (open, _) = self.window(sample);
        let at = self.true_at(open).max(cx.now());
        self.timers.set(cx, Kind::WindowOpen, at);
    }

    fn listen(&mut self, cx: &mut Cx) {
        if cx.radio() == RadioState::Off {
            cx.set_radio(RadioState::Listen);
        }
    }

    /// A sleepy device's radio off, unless something needs it on.
    fn sleep_radio(&mut self, cx: &mut Cx) {
        if !self.sleepy() || cx.radio() == RadioState::Tx {
            return;
        }
        let sending = matches!(
            self.state,
            State::Cca { .. } | State::Turnaround | State::Sending(_) | State::AwaitAck
        );
        let busy = self.in_window
            || self.holding
            || self.poll_wait
            || self.ack_due.is_some()
            || self.ack_on_air.is_some();
        if !sending && !busy {
            cx.set_radio(RadioState::Off);
        }
    }

    // ---- sending ----

    fn next_attempt(&mut self, cx: &mut Cx) {
        if self.state != State::Idle {
            return;
        }
        let Some(head) = self.queue.front() else {
            self.sleep_radio(cx);
            return;
        };
        match (head.direct, self.synced.get(&head.to).copied()) {
            (false, Some(s)) => self.csl_attempt(cx, s),
            _ => {
                self.nb = 0;
                self.be = self.p.min_be;
                self.backoff(cx);
            }
        }
    }

    /// A synchronised transmission: the frame's MHR at the child's first
    /// sample that leaves time for a CCA and the turnaround, as this
    /// node's clock predicts it (the child's clock drifts from it; a frame
    /// outside the child's window goes unacknowledged and is retried).
    fn csl_attempt(&mut self, cx: &mut Cx, s: Samples) {
        let lead = phy::CCA_US + phy::TURNAROUND_US + SHR_PHR_US;
        let now = self.local(cx.now());
        let sample = timing::next_sample(now + lead, s.anchor, s.period);
        self.state = State::CslWait { sample };
        let at = self.true_at(sample - lead).max(cx.now());
        self.timers.set(cx, Kind::Step, at);
    }

    fn backoff(&mut self, cx: &mut Cx) {
        let slots = draw_below(cx, 1u64 << self.be);
        self.state = State::Backoff;
        let at = cx.now() + slots * phy::UNIT_BACKOFF_US;
        self.timers.set(cx, Kind::Step, at);
        self.sleep_radio(cx);
    }

    fn give_up_or_retry(&mut self, cx: &mut Cx) {
        let head = self.queue.front_mut().expect("an attempt has a frame");
        if head.retries < self.p.max_retries {
            head.retries += 1;
            self.stats.retransmissions += 1;
        } else {
            self.queue.pop_front();
            self.stats.drops += 1;
        }
        self.state = State::Idle;
        self.next_attempt(cx);
    }

    fn cca_done(&mut self, cx: &mut Cx, csl: bool) {
        let busy = cx.radio() == RadioState::Tx || cx.channel_busy(phy::CCA_US);
        if !busy {
            self.state = State::Turnaround;
            let at = cx.now() + phy::TURNAROUND_US;
            self.timers.set(cx, Kind::Step, at);
            return;
        }
        if csl {
            // the sample is taken: try at the next one, as a retry
            self.give_up_or_retry(cx);
            return;
        }
        self.nb += 1;
        self.be = (self.be + 1).min(self.p.max_be);
        if self.nb > self.p.max_backoffs {
            self.queue.pop_front();
            self.stats.drops += 1;
            self.state = State::Idle;
            self.next_attempt(cx);
        } else {
            self.backoff(cx);
        }
    }

    /// The CSL IE this node's frame starting now carries: the time to its
    /// next sample and its period, in units of ten symbols (its clock).
    fn csl_ie(&self, now: Time) -> HeaderIe {
        let now = self.local(now);
        let sample = timing::next_sample(now, self.anchor, self.p.period_us);
        let phase = timing::phase_units(now, sample);
        let period = u16::try_from(self.p.period_us / timing::UNIT_US)
            .expect("a CSL period fits the IE's 16 bits");
        HeaderIe::csl(phase, period)
    }

    /// The ACK due: an Imm-Ack to a 2006 frame; to a 2015 one an Enh-Ack
    /// (IEEE 802.15.4-2015 §6.7.4.2, OpenThread `GenerateEnhAck`) to its
    /// sender, carrying this node's CSL IE if it samples (Thread 1.2: the
    /// parent re-learns the child's phase from every Enh-Ack, OpenThread
    /// `Mac::ProcessCsl` on the ACK frame). Secured like data frames when
    /// the link is, with the CPU time that takes.
    fn ack_frame(&mut self, cx: &mut Cx, seq: u8) -> (Vec<u8>, Time) {
        if !self.ack_enhanced {
            return (ack_frame(seq, self.ack_pending_bit), 0);
        }
        let ies = if self.samples() {
            vec![self.csl_ie(cx.now())]
        } else {
            Vec::new()
        };
        let dst = Address::Short(short_addr(self.ack_to));
        let repr = Repr::enh_ack_with(seq, dst, self.ack_pending_bit, ies);
        seal(self.security.as_mut(), cx.node, repr, None)
    }

    /// The head of the queue on the air: built and secured now (the CSL IE's
    /// phase is only known now; OpenThread's radio drivers secure such
    /// frames as they send them).
    fn transmit_head(&mut self, cx: &mut Cx) {
        if cx.radio() == RadioState::Tx {
            // our own ACK is on the air: start over
            self.state = State::Idle;
            self.next_attempt(cx);
            return;
        }
        let node = cx.node;
        let now = cx.now();
        let ie = self.samples().then(|| self.csl_ie(now));
        let head = self.queue.front().expect("an attempt has a frame");
        let mut repr = match head.what {
            What::Data => data_repr(
                LinkAddressing::Short,
                head.seq,
                node,
                head.to,
                head.payload.clone(),
                self.security.is_some(),
            ),
            What::Poll => Repr::data_request(
                head.seq,
                PAN_ID,
                Address::Short(short_addr(head.to)),
                Address::Short(short_addr(node)),
            ),
        };
        self.sent_csl_ie = ie.is_some();
        if !head.direct && self.synced.contains_key(&head.to) {
            // a synchronised frame to a CSL receiver is a 2015 frame, so
            // that its Enh-Ack brings the receiver's CSL IE back
            repr.version = FrameVersion::V2015;
        }
        if let Some(ie) = ie {
            repr.version = FrameVersion::V2015;
            repr.header_ies.push(ie);
        }
        let what = head.what;
        let (frame, cpu) = seal(self.security.as_mut(), node, repr, None);
        cx.charge_cpu(cpu + self.p.frame_processing_us);
        match what {
            What::Data => {
                self.stats.data_frames_sent += 1;
                self.stats.data_bytes_sent += frame.len() as u64;
            }
            What::Poll => self.stats.data_requests_sent += 1,
        }
        let id = cx.transmit(frame);
        self.state = State::Sending(id);
    }

    fn acked(&mut self, cx: &mut Cx, frame_pending: bool) {
        self.timers.stop(Kind::Step);
        let head = self
            .queue
            .pop_front()
            .expect("awaiting an ACK for the head");
        if self.sent_csl_ie {
            // OpenThread UpdateCslLastSyncTimestamp(TxFrame, AckFrame)
            self.last_sync = self.local(cx.now());
        }
        if head.what == What::Poll && frame_pending {
            self.poll_wait = true;
            let at = cx.now() + self.p.poll_wait_us;
            self.timers.set(cx, Kind::PollWaitEnd, at);
        }
        self.state = State::Idle;
        self.next_attempt(cx);
        self.sleep_radio(cx);
    }

    fn enqueue(&mut self, cx: &mut Cx, pending: Pending) {
        let child = self.role.children.contains(&pending.to);
        if child && !self.synced.contains_key(&pending.to) {
            self.held.entry(pending.to).or_default().push_back(pending);
            return;
        }
        self.queue.push_back(pending);
        self.next_attempt(cx);
    }

    // ---- receiving ----

    /// A child's CSL IE in a frame from `from` that ended at `end`: its
    /// samples on this node's clock (the frame's start as this clock saw
    /// it, plus the phase), and its held frames on their way.
    fn child_heard(&mut self, cx: &mut Cx, from: NodeId, frame_len: usize, end: Time, ies: &[u8]) {
        let Ok((ies, _, _)) = HeaderIe::parse_list(ies) else {
            return;
        };
        let Some((phase, period)) = ies.iter().find_map(HeaderIe::csl_fields) else {
            return;
        };
        let phase = Time::from(phase);
        let period = Time::from(period) * timing::UNIT_US;
        if period == 0 {
            self.synced.remove(&from);
            return;
        }
        let start = self.local(end).saturating_sub(airtime_us(frame_len));
        self.synced.insert(
            from,
            Samples {
                anchor: start + phase * timing::UNIT_US,
                period,
            },
        );
        if let Some(held) = self.held.remove(&from) {
            self.queue.extend(held);
            self.next_attempt(cx);
        }
    }

    /// A poll from a child: acknowledged with the frame-pending bit when
    /// frames wait for it, which then go directly while it listens.
    fn polled(&mut self, cx: &mut Cx, from: NodeId, rx_at: Time, seq: u8, enhanced: bool) {
        let held = self.held.remove(&from).unwrap_or_default();
        let queued = self.queue.iter().any(|p| p.to == from);
        self.schedule_ack(cx, rx_at, from, seq, enhanced);
        self.ack_pending_bit = !held.is_empty() || queued;
        for mut p in held.into_iter().rev() {
            p.direct = true;
            // behind the frame in flight, if any
            let at = usize::from(self.state != State::Idle).min(self.queue.len());
            self.queue.insert(at, p);
        }
        for p in self.queue.iter_mut().filter(|p| p.to == from) {
            p.direct = true;
        }
        self.next_attempt(cx);
    }

    /// This node's crystal, unless pinned: a uniform draw within the
    /// tolerance (as X-MAC's nodes draw theirs).
    fn draw_crystal(&mut self, cx: &mut Cx) {
        use rand::RngExt;
        if self.p.crystal.is_none() && self.p.crystal_tolerance_ppm > 0.0 {
            let unit: f64 = cx.rng().random();
            self.crystal = Crystal::within(self.p.crystal_tolerance_ppm, unit);
        }
    }

    /// An ACK of frame `seq` from `to`, received at `rx_at`; `enhanced`:
    /// that frame was a 2015 one.
    fn schedule_ack(&mut self, cx: &mut Cx, rx_at: Time, to: NodeId, seq: u8, enhanced: bool) {
        self.ack_due = Some(seq);
        self.ack_to = to;
        self.ack_enhanced = enhanced;
        self.timers
            .set(cx, Kind::AckTurnaround, rx_at + phy::TURNAROUND_US);
    }
}

impl Mac for Csl {
    fn start(&mut self, cx: &mut Cx) {
        let now = cx.now();
        // the clock starts reading the true time; it drifts from there
        self.clock_origin = now;
        self.last_sync = now;
        if !self.sleepy() {
            self.draw_crystal(cx);
            cx.set_radio(RadioState::Listen);
            return;
        }
        cx.set_radio(RadioState::Off);
        if self.samples() {
            let phase = match self.p.phase_us {
                Some(p) => p % self.p.period_us,
                None => draw_below(cx, self.p.period_us),
            };
            self.anchor = now + phase;
        }
        if self.p.poll_period_us > 0 {
            let first = draw_below(cx, self.p.poll_period_us);
            self.timers.set(cx, Kind::Poll, now + first);
        }
        // after the phase and poll draws, which keep their values
        self.draw_crystal(cx);
        if self.samples() {
            self.schedule_window(cx, self.anchor);
        }
    }

    fn send(&mut self, cx: &mut Cx, next_hop: NodeId, payload: Vec<u8>) {
        self.seq = self.seq.wrapping_add(1);
        let pending = Pending {
            to: next_hop,
            payload,
            seq: self.seq,
            what: What::Data,
            retries: 0,
            direct: false,
        };
        self.enqueue(cx, pending);
    }

    fn on_timer(&mut self, cx: &mut Cx, token: Token) {
        let Some(kind) = self.timers.fired(token) else {
            return;
        };
        match kind {
            Kind::WindowOpen => {
                self.in_window = true;
                self.listen(cx);
                let (_, close) = self.window(self.sample);
                let at = self.true_at(close).max(cx.now());
                self.timers.set(cx, Kind::WindowClose, at);
            }
            Kind::WindowClose => {
                self.in_window = false;
                if cx.radio() == RadioState::Listen && cx.channel_busy(1) {
                    // a frame under way: received whole (or given up after the longest)
                    self.holding = true;
                    let at = cx.now() + LONGEST_FRAME_US;
                    self.timers.set(cx, Kind::HoldEnd, at);
                }
                let next = self.sample + self.p.period_us;
                self.schedule_window(cx, next);
                self.sleep_radio(cx);
            }
            Kind::HoldEnd => {
                self.holding = false;
                self.sleep_radio(cx);
            }
            Kind::Poll => {
                let at = cx.now() + self.p.poll_period_us;
                self.timers.set(cx, Kind::Poll, at);
                let parent = self.role.parent.expect("only a sleepy device polls");
                let polling = self.queue.iter().any(|p| p.what == What::Poll);
                if !polling {
                    self.seq = self.seq.wrapping_add(1);
                    self.queue.push_back(Pending {
                        to: parent,
                        payload: Vec::new(),
                        seq: self.seq,
                        what: What::Poll,
                        retries: 0,
                        direct: true,
                    });
                    self.next_attempt(cx);
                }
            }
            Kind::PollWaitEnd => {
                self.poll_wait = false;
                self.sleep_radio(cx);
            }
            Kind::AckTurnaround => {
                if let Some(seq) = self.ack_due.take() {
                    if cx.radio() != RadioState::Tx {
                        let (frame, cpu) = self.ack_frame(cx, seq);
                        cx.charge_cpu(cpu);
                        self.ack_on_air = Some(cx.transmit(frame));
                        self.stats.acks_sent += 1;
                    } else {
                        self.sleep_radio(cx);
                    }
                }
            }
            Kind::Step => match self.state {
                State::Backoff => {
                    self.listen(cx);
                    self.state = State::Cca { csl: false };
                    let at = cx.now() + phy::CCA_US;
                    self.timers.set(cx, Kind::Step, at);
                }
                State::CslWait { .. } => {
                    self.listen(cx);
                    self.state = State::Cca { csl: true };
                    let at = cx.now() + phy::CCA_US;
                    self.timers.set(cx, Kind::Step, at);
                }
                State::Cca { csl } => self.cca_done(cx, csl),
                State::Turnaround => self.transmit_head(cx),
                State::AwaitAck => {
                    if !self.ack_wait_extended && cx.channel_busy(1) {
                        // an ACK begun within the wait is received whole
                        // (an Enh-Ack outlasts the Imm-Ack macAckWaitDuration counts)
                        self.ack_wait_extended = true;
                        let at = cx.now() + LONGEST_FRAME_US;
                        self.timers.set(cx, Kind::Step, at);
                    } else {
                        self.give_up_or_retry(cx);
                    }
                }
                State::Idle | State::Sending(_) => {}
            },
        }
    }

    fn on_frame(&mut self, cx: &mut Cx, rx: Received) {
        let Some(view) = heard(&rx.frame) else {
            return;
        };
        let is_ack = view.frame_type() == FrameType::Ack;
        if !is_ack && !addressed_to(view.dst_addr(), cx.node) {
            if self.holding {
                self.holding = false;
                self.sleep_radio(cx);
            }
            return; // not for us: dropped before anything is allocated
        }
        let Some(parsed) = Parsed::of_heard(view) else {
            return;
        };
        if parsed.is_ack() {
            let head = self.queue.front().map(|p| (p.seq, p.to));
            let ours = head.is_some_and(|(seq, _)| parsed.seq() == Some(seq));
            if self.state == State::AwaitAck && ours {
                let from_child = head.is_some_and(|(_, to)| to == rx.from);
                if from_child && self.role.children.contains(&rx.from) {
                    // a child's Enh-Ack: its phase afresh, before the next send
                    let ies = parsed.repr.header_ies;
                    self.child_heard(cx, rx.from, rx.frame.len(), rx.at, ies);
                }
                self.acked(cx, parsed.repr.frame_pending);
            }
            return;
        }
        if !parsed.is_for(cx.node) {
            return;
        }
        self.holding = false;
        if self.role.children.contains(&rx.from) {
            let ies = parsed.repr.header_ies;
            self.child_heard(cx, rx.from, rx.frame.len(), rx.at, ies);
        }
        let seq = parsed.seq().unwrap_or(0);
        let enhanced = parsed.repr.version == FrameVersion::V2015;
        if let BodyRef::Command { id, .. } = parsed.repr.body {
            if id == command_id::DATA_REQUEST && self.role.children.contains(&rx.from) {
                self.polled(cx, rx.from, rx.at, seq, enhanced);
            }
            return;
        }
        if parsed.repr.ack_request {
            self.schedule_ack(cx, rx.at, rx.from, seq, enhanced);
            self.ack_pending_bit = false;
        }
        if self.sleepy() {
            // OpenThread UpdateCslLastSyncTimestamp(RxFrame): a frame acknowledged
            self.last_sync = self.local(cx.now());
            if self.poll_wait && !parsed.repr.frame_pending {
                self.poll_wait = false;
                self.timers.stop(Kind::PollWaitEnd);
            }
        }
        self.receiver.accept(
            cx,
            self.security.as_mut(),
            &mut self.stats,
            &rx,
            parsed,
            seq,
        );
    }

    fn on_tx_end(&mut self, cx: &mut Cx, emission: EmissionId) {
        if self.ack_on_air == Some(emission) {
            self.ack_on_air = None;
            self.sleep_radio(cx);
            return;
        }
        if self.state == State::Sending(emission) {
            self.state = State::AwaitAck;
            self.ack_wait_extended = false;
            let at = cx.now() + phy::ACK_WAIT_US;
            self.timers.set(cx, Kind::Step, at);
        }
    }

    fn max_payload(&self) -> usize {
        // every node's frames leave room for the CSL IE a sleepy one adds
        max_data_payload(self.security.as_ref(), LinkAddressing::Short) - CSL_IE_BYTES
    }

    fn stats(&self) -> MacStats {
        self.stats
    }

    fn queued(&self) -> usize {
        self.queue.len() + self.held.values().map(VecDeque::len).sum::<usize>()
    }

    fn security_stats(&self) -> Option<super::security::SecurityStats> {
        self.security.as_ref().map(|s| s.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    #[test]
    fn leaves_other_than_the_server_are_sleepy_children() {
        // a line 0 - 1 - 2 - 3 with the server at 3: node 0 is node 1's child
        let r = roles(&Topology::line(4, 1.0).unwrap(), 3);
        assert_eq!(r[0].parent, Some(1));
        assert_eq!(r[1].children, vec![0]);
        assert!(r[1].parent.is_none() && r[2].parent.is_none() && r[3].parent.is_none());
        // two nodes: the client is the server's child
        let r = roles(&Topology::line(2, 1.0).unwrap(), 1);
        assert_eq!((r[0].parent, r[1].children.clone()), (Some(1), vec![0]));
    }

    /// The window widens with the time since the last sync, up to half a
    /// period each side: 10 s at 20 + 20 ppm is 400 us, + 2 x 100 us =
    /// 600 us; ahead 600 + 192 + 320 = 1,112 us, after 600 + 5,504 = 6,104
    /// us. After 2,000 s: 80,000 + 200 = 80,200 us; ahead 80,712, after
    /// 85,704. After 10,000 s: 400,200 us, more than half the 500 ms
    /// period: both cut to 250,000.
    #[test]
    fn the_window_widens_with_time_since_sync() {
        let mac = Csl::new(CslParams::openthread(), Role::default());
        let s = 10_000_000;
        assert_eq!(mac.window(s), (s - 1_112, s + 6_104));
        let s = 2_000_000_000;
        assert_eq!(mac.window(s), (s - 80_712, s + 85_704));
        let s = 10_000_000_000;
        assert_eq!(mac.window(s), (s - 250_000, s + 250_000));
    }
}
