//! Staying synchronised: each node's crystal drifts, so the slot boundaries
//! it keeps move away from its time source's; it resynchronises on what it
//! hears from that source, sends keep-alives when it hears nothing, and
//! leaves the network when it has not resynchronised for too long (IEEE
//! 802.15.4-2015 §6.3.6; RFC 8180 §7; Contiki-NG 4.9 os/net/mac/tsch/).
//!
//! The rules, each as Contiki-NG 4.9 has it:
//!
//! - **Offset, in closed form.** Slot events stay on the network's
//!   boundaries; a node's boundaries stand `offset` from them, a straight
//!   line from its last resynchronisation ([`crate::clock::ClockLine`]).
//!   A frame is received only if its sender's transmit start, on the
//!   receiver's clock, falls within the guard (±macTsRxWait / 2 around
//!   the expected instant: the receiver listens from TsRxOffset for
//!   TsRxWait, tsch-slot-operation.c `tsch_rx_slot`, and the sender sends
//!   at TsTxOffset, TsRxOffset + TsRxWait / 2 in the 10 ms template of
//!   tsch-timeslot-timing.c). An Enhanced ACK is timed from the frame it
//!   answers, so the offset does not decide whether it is heard.
//! - **Resynchronisation on a frame** for this node or broadcast (an EB,
//!   a data frame) from the time source: the node takes its boundaries
//!   from the frame's arrival (`tsch_rx_slot`: `drift_correction =
//!   -estimated_drift` when `n->is_time_source`), measured in whole
//!   rtimer ticks (the one timing error modelled).
//! - **Resynchronisation on an ACK** from the time source: it carries the
//!   time correction IE (IEEE 802.15.4-2015 §7.4.2.7), the source's
//!   measure of how far off the frame came, applied truncated to
//!   ±TsRxWait / 4 (`tsch_tx_slot`, `SYNC_IE_BOUND`).
//! - **Keep-alives**: every resynchronisation (and the association) arms
//!   the keep-alive timer at a draw in [0.9, 1) of TSCH_KEEPALIVE_TIMEOUT
//!   (tsch.c `tsch_keepalive_process_pending`); when it fires the node
//!   queues an empty unicast data frame to its time source (tsch.c
//!   `keepalive_send`). A keep-alive never acknowledged switches the time
//!   source to the last other neighbour an EB was heard from, if any, and
//!   sends a keep-alive to it at once (tsch.c `keepalive_packet_sent`,
//!   `resynchronize`).
//! - **Desynchronisation**: a node whose last resynchronisation is more
//!   than TSCH_DESYNC_THRESHOLD old leaves the network (tsch-slot-operation.c,
//!   the check after each active slot; here at the first slot boundary
//!   past the threshold), drops what it had queued (tsch.c `tsch_reset`,
//!   `tsch_queue_reset`) and scans again ([`super::scan`]).
//! - **Rejoin**: it synchronises on the first EB it hears, as on power-on,
//!   and keeps its keys: Contiki-NG's `tsch_reset` clears the queues, the
//!   time source and the timing, not the link-layer keys; a 6TiSCH node
//!   that joined by CoJP keeps the link-layer key set the JRC delivered
//!   until the JRC sends another (RFC 9031 §8 as remembered; not yet
//!   checked against its text), so it does not join again and beacons again as soon
//!   as it is synchronised.
//!
//! - **Adaptive time synchronisation** (on by default, as in Contiki-NG):
//!   the drift from the time source is learnt from its corrections and
//!   compensated ([`super::adaptive_timesync`]); once learnt, the
//!   keep-alive timeout is `TSCH_MAX_KEEPALIVE_TIMEOUT` (60 s), and back to
//!   TSCH_KEEPALIVE_TIMEOUT on a new time source (tsch-queue.c
//!   `tsch_queue_update_time_source`). Corrections are measured in whole
//!   rtimer ticks (`US_TO_RTIMERTICKS`).

use wpan::Address;

use super::adaptive_timesync::AdaptiveTimesync;
use super::queues::{FrameKind, Pending};
use super::scan::{self, ScanConfig, Scanner};
use super::{Kind, Tsch};
use crate::channel::airtime_us;
use crate::clock::{ClockLine, Crystal};
use crate::mac::common::draw_below;
use crate::mac::frame::heard;
use crate::mac::security::node_of_extended;
use crate::world::{Cx, Received};
use crate::{NodeId, Time};

/// Contiki-NG's `TSCH_KEEPALIVE_TIMEOUT` = 12 · CLOCK_SECOND (tsch-conf.h:
/// "Time to desynch assuming a drift of 40 PPM (80 PPM between two nodes)
/// and guard time of +/-1ms: 12.5s").
pub const DEFAULT_KEEPALIVE_TIMEOUT_US: Time = 12_000_000;

/// Contiki-NG's `TSCH_DESYNC_THRESHOLD` = 2 · `TSCH_MAX_KEEPALIVE_TIMEOUT`
/// = 2 · 60 s (tsch-conf.h).
pub const DEFAULT_DESYNC_THRESHOLD_US: Time = 120_000_000;

/// Clock drift and what keeps a node synchronised despite it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyncParams {
    /// Each node's crystal is off by a uniform draw within ± this many ppm.
    pub crystal_tolerance_ppm: f64,
    /// A node pinned to this crystal instead (tests); None: drawn.
    pub crystal: Option<Crystal>,
    /// TSCH_KEEPALIVE_TIMEOUT.
    pub keepalive_timeout_us: Time,
    /// TSCH_DESYNC_THRESHOLD.
    pub desync_threshold_us: Time,
    /// How far a frame's start may be off the expected instant on the
    /// receiver's clock and still be heard: TsRxWait / 2.
    pub guard_us: Time,
    /// The time source becomes the node's routing parent (its next hop to
    /// the root) once a frame from it is heard (the parent is then part of
    /// the network, as RPL's preferred parent is once its DIO is heard;
    /// Contiki-NG tsch-rpl.c `tsch_rpl_callback_parent_switch`); until
    /// then, and always when false, the EB sender it synchronised to.
    pub parent_time_source: bool,
    /// That parent, per node (set when the network is built).
    pub preferred_source: Option<NodeId>,
    /// Learn and compensate the drift from the time source
    /// ([`super::adaptive_timesync`], tsch-conf.h `TSCH_ADAPTIVE_TIMESYNC`).
    pub adaptive: bool,
    /// The keep-alive timeout once the drift is learnt
    /// (`TSCH_MAX_KEEPALIVE_TIMEOUT`).
    pub max_keepalive_timeout_us: Time,
    /// The node measures a frame's arrival, and so every correction, in
    /// whole ticks of its rtimer at this rate (0: exactly).
    pub rtimer_hz: u64,
}

impl SyncParams {
    /// Contiki-NG's timeouts and the guard of the template `rx_wait_us`.
    pub fn contiki(crystal_tolerance_ppm: f64, rx_wait_us: Time) -> Self {
        SyncParams {
            crystal_tolerance_ppm,
            crystal: None,
            keepalive_timeout_us: DEFAULT_KEEPALIVE_TIMEOUT_US,
            desync_threshold_us: DEFAULT_DESYNC_THRESHOLD_US,
            guard_us: rx_wait_us / 2,
            parent_time_source: false,
            preferred_source: None,
            adaptive: true,
            // tsch-conf.h: 60 · CLOCK_SECOND
            max_keepalive_timeout_us: 60_000_000,
            // the cc2538's RTIMER_ARCH_SECOND (arch/cpu/cc2538/rtimer-arch.h)
            rtimer_hz: 32_768,
        }
    }

    /// `ns` as the node measures it: whole rtimer ticks (`US_TO_RTIMERTICKS`
    /// rounds to the nearest), back in ns (rounded to the nearest).
    pub fn measured_ns(&self, ns: i64) -> i64 {
        if self.rtimer_hz == 0 {
            return ns;
        }
        let hz = i128::from(self.rtimer_hz);
        let ns = i128::from(ns);
        let ticks = (2 * ns * hz + ns.signum() * 1_000_000_000) / 2_000_000_000;
        ((ticks * 2_000_000_000 + ticks.signum() * hz) / (2 * hz)) as i64
    }

    /// The keep-alive delay for a draw `u` in `0..timeout / 10`: within
    /// [0.9, 1) of the timeout; a timeout under 10 ticks is less one
    /// (tsch.c `tsch_keepalive_process_pending`; a tick here is 1 µs).
    pub fn keepalive_delay_us(&self, u: Time) -> Time {
        keepalive_delay_us(self.keepalive_timeout_us, u)
    }
}

/// [`SyncParams::keepalive_delay_us`] for a timeout of `t` µs.
pub fn keepalive_delay_us(t: Time, u: Time) -> Time {
    if t >= 10 {
        t - t / 10 + u
    } else {
        t.saturating_sub(1)
    }
}

/// What one node's synchronisation came to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncStats {
    pub crystal_ppb: i64,
    /// Keep-alives queued to the time source.
    pub keepalives_sent: u64,
    /// Keep-alives given up on unacknowledged.
    pub keepalives_failed: u64,
    /// Resynchronisations on a frame or an ACK from the time source.
    pub resyncs: u64,
    /// Times the node left the network for want of resynchronisation.
    pub desyncs: u64,
    /// Times it synchronised again after leaving.
    pub rejoins: u64,
    /// Frames for it (or broadcast) that began outside its guard (not heard).
    pub guard_misses: u64,
    /// The largest offset to its time source found at a resynchronisation
    /// (µs, rounded up).
    pub max_offset_us: u64,
    /// Switches of the time source after a failed keep-alive.
    pub source_switches: u64,
}

/// One node's synchronisation state, kept by its [`super::Tsch`].
#[derive(Debug, Clone)]
pub(super) struct SyncState {
    pub p: SyncParams,
    pub crystal: Crystal,
    /// Where its boundaries stand (also told to the world, for its
    /// neighbours' receptions).
    pub line: ClockLine,
    pub time_source: Option<NodeId>,
    /// The last resynchronisation (or the association).
    pub last_sync: Time,
    /// The last neighbour other than the time source an EB came from, and
    /// its join metric (tsch.c `last_eb_nbr_addr`, `last_eb_nbr_jp`).
    pub last_eb_other: Option<(NodeId, u8)>,
    /// Resynchronisations on a received frame since the association
    /// (tsch.c `sync_count`).
    pub since_association: u64,
    /// It left the network and has not synchronised again yet.
    pub left: bool,
    /// When the keep-alive timer fires next, if it is armed.
    pub keepalive_at: Option<Time>,
    /// The keep-alive timeout now (tsch.c `tsch_current_ka_timeout`).
    pub keepalive_timeout_us: Time,
    pub adaptive: AdaptiveTimesync,
    pub stats: SyncStats,
}

impl SyncState {
    pub fn new(p: SyncParams) -> Self {
        let crystal = p.crystal.unwrap_or(Crystal::PERFECT);
        SyncState {
            p,
            crystal,
            line: ClockLine {
                error_ppb: crystal.error_ppb(),
                ..ClockLine::default()
            },
            time_source: None,
            last_sync: 0,
            last_eb_other: None,
            since_association: 0,
            left: false,
            keepalive_at: None,
            keepalive_timeout_us: p.keepalive_timeout_us,
            adaptive: AdaptiveTimesync::default(),
            stats: SyncStats {
                crystal_ppb: crystal.error_ppb(),
                ..SyncStats::default()
            },
        }
    }

    /// The node's crystal, drawn (`unit` uniform in [0, 1)) unless pinned.
    pub fn draw_crystal(&mut self, unit: f64) {
        if self.p.crystal.is_none() {
            self.crystal = Crystal::within(self.p.crystal_tolerance_ppm, unit);
        }
        self.line.error_ppb = self.crystal.error_ppb();
        self.stats.crystal_ppb = self.crystal.error_ppb();
    }

    pub fn offset_ns(&self, t: Time) -> i64 {
        self.line.offset_ns_at(t)
    }

    /// Does a frame whose sender's boundaries stand `sender_ns` off the
    /// network's begin within this node's guard at `t`?
    pub fn hears(&self, sender_ns: i64, t: Time) -> bool {
        let apart = sender_ns.abs_diff(self.offset_ns(t));
        apart <= self.p.guard_us * 1_000
    }

    /// Take the source's boundaries, `source_ns` off at `t`, as measured
    /// in rtimer ticks and less what `bound_ns` allows (None: all of it);
    /// with adaptive time synchronisation, learn from it. The correction
    /// applied.
    pub fn resync(&mut self, t: Time, source_ns: i64, bound_ns: Option<i64>) -> i64 {
        let own = self.offset_ns(t);
        let wanted = source_ns - own;
        let measured = self.p.measured_ns(wanted);
        let applied = match bound_ns {
            Some(b) => measured.clamp(-b, b),
            None => measured,
        };
        if let Some(source) = self.time_source.filter(|_| self.p.adaptive) {
            self.adaptive.compensate(t.saturating_sub(self.line.at));
            let delta = t.saturating_sub(self.last_sync);
            if self.adaptive.update(source, delta, applied) {
                // accurate: tsch-adaptive-timesync.c `timesync_entry_add`
                self.keepalive_timeout_us = self.p.max_keepalive_timeout_us;
            }
        }
        self.line = ClockLine {
            at: t,
            offset_ns: own + applied,
            error_ppb: self.crystal.error_ppb() + self.adaptive.drift_ppb(),
        };
        self.last_sync = t;
        self.stats.resyncs += 1;
        let off_us = wanted.unsigned_abs().div_ceil(1_000);
        self.stats.max_offset_us = self.stats.max_offset_us.max(off_us);
        applied
    }

    /// Synchronised on an EB from `source` (association, or rejoin): its
    /// boundaries are the source's, `source_ns` off at `t`.
    pub fn associate(&mut self, t: Time, source: NodeId, source_ns: i64) {
        self.line = ClockLine {
            at: t,
            offset_ns: source_ns,
            error_ppb: self.crystal.error_ppb(),
        };
        self.time_source = Some(source);
        self.last_sync = t;
        self.last_eb_other = None;
        self.since_association = 0;
        // tsch.c `tsch_disassociate` forgot the drift; a new time source
        // resets the keep-alive timeout (tsch-queue.c
        // `tsch_queue_update_time_source`)
        self.adaptive.reset();
        self.keepalive_timeout_us = self.p.keepalive_timeout_us;
        if std::mem::take(&mut self.left) {
            self.stats.rejoins += 1;
        }
    }

    /// A new time source: the keep-alive timeout back to its default
    /// (tsch-queue.c `tsch_queue_update_time_source`); what was learnt is
    /// forgotten at its first correction.
    pub fn switch_source(&mut self, node: NodeId) {
        if self.time_source != Some(node) {
            self.time_source = Some(node);
            self.keepalive_timeout_us = self.p.keepalive_timeout_us;
        }
    }

    /// When the node leaves if it has not resynchronised by then: the first
    /// slot boundary past the threshold.
    pub fn desync_at(&self, slot_us: Time) -> Time {
        (self.last_sync + self.p.desync_threshold_us) / slot_us * slot_us + slot_us
    }
}

impl Tsch {
    /// The node's time source from now on (the EB sender it synchronised
    /// to until then; RPL makes it the preferred parent, Contiki-NG
    /// tsch-rpl.c `tsch_rpl_callback_parent_switch`). Nothing without
    /// clock drift.
    pub fn set_time_source(&mut self, node: NodeId) {
        if let Some(s) = self.sync.as_mut() {
            s.switch_source(node);
        }
    }

    /// The node's time source (None: without clock drift, the root, or
    /// not synchronised).
    pub fn time_source(&self) -> Option<NodeId> {
        self.sync.as_ref().and_then(|s| s.time_source)
    }

    /// Power-on: the node's crystal is drawn, and its boundaries start
    /// on the network's (the root's define them).
    pub(super) fn sync_power_on(&mut self, cx: &mut Cx) {
        use rand::RngExt;
        let Some(s) = self.sync.as_mut() else {
            return;
        };
        if s.p.crystal.is_none() && s.p.crystal_tolerance_ppm > 0.0 {
            let unit: f64 = cx.rng().random();
            s.draw_crystal(unit);
        }
        let now = cx.now();
        s.line = ClockLine {
            at: now,
            offset_ns: 0,
            error_ppb: s.crystal.error_ppb(),
        };
        s.last_sync = now;
        cx.set_clock_line(s.line);
    }

    /// Synchronised by a scan on an EB from `source` (its extended
    /// address): its boundaries are the source's, which becomes the time
    /// source (tsch.c `tsch_associate`), and keep-alives start.
    pub(super) fn sync_associated(&mut self, cx: &mut Cx, source: u64) {
        let now = cx.now();
        let Some(src) = node_of_extended(source) else {
            return;
        };
        let src_ns = cx.clock_offset_ns(src, now);
        let Some(s) = self.sync.as_mut() else {
            return;
        };
        let rejoins = s.stats.rejoins;
        s.associate(now, src, src_ns);
        cx.set_clock_line(s.line);
        if s.stats.rejoins > rejoins {
            if let Some(r) = self.tx_results.as_mut() {
                r.1.rejoined = true;
            }
        }
        self.sync_rearm(cx);
    }

    /// After a resynchronisation: the next keep-alive and the desync
    /// deadline count from now (tsch.c `tsch_schedule_keepalive(0)`).
    fn sync_rearm(&mut self, cx: &mut Cx) {
        let Some(s) = self.sync.as_ref() else {
            return;
        };
        let desync_at = s.desync_at(self.p.template.slot_us);
        self.arm_keepalive(cx);
        self.timers.set(cx, Kind::Desync, desync_at.max(cx.now()));
    }

    /// The next keep-alive, a draw in [0.9, 1) of the timeout from now.
    fn arm_keepalive(&mut self, cx: &mut Cx) {
        let timeout = s_timeout(self);
        let now = cx.now();
        let at = if timeout > 0 {
            let u = draw_below(cx, timeout / 10);
            let delay = keepalive_delay_us(timeout, u);
            self.timers.set(cx, Kind::KeepAlive, now + delay);
            Some(now + delay)
        } else {
            self.timers.stop(Kind::KeepAlive); // a zero timeout sends none
            None
        };
        if let Some(s) = self.sync.as_mut() {
            s.keepalive_at = at;
        }
    }

    /// When the next keep-alive is due (None: none armed).
    pub fn keepalive_due(&self) -> Option<Time> {
        self.sync.as_ref().and_then(|s| s.keepalive_at)
    }

    /// The last resynchronisation (or association), with clock drift.
    pub fn last_sync(&self) -> Option<Time> {
        self.sync.as_ref().map(|s| s.last_sync)
    }

    /// Resynchronise on the time source, `source_ns` off at `t`, by all of
    /// it (`bound_ns` None) or at most `bound_ns`.
    fn sync_to_source(&mut self, cx: &mut Cx, t: Time, source_ns: i64, bound_ns: Option<i64>) {
        let Some(s) = self.sync.as_mut() else {
            return;
        };
        s.resync(t, source_ns, bound_ns);
        if bound_ns.is_none() {
            s.since_association += 1;
        }
        cx.set_clock_line(s.line);
        self.sync_rearm(cx);
    }

    /// A frame heard in a slot (not an ACK awaited): true if the node is
    /// done with it, either because it began outside the guard (not
    /// heard: counted) or because it is an EB (from the time source a
    /// resynchronisation, from another neighbour remembered for a switch).
    /// A frame from the time source for this node or broadcast
    /// resynchronises it first.
    pub(super) fn sync_screen(&mut self, cx: &mut Cx, rx: &Received) -> bool {
        let Some(s) = self.sync.as_mut() else {
            return false;
        };
        if self.awaiting_ack.is_some() {
            return false; // an ACK is timed from the frame it answers
        }
        let Some(view) = heard(&rx.frame) else {
            return false;
        };
        let dst = view.dst_addr();
        let broadcast = matches!(dst, Address::Short(0xffff) | Address::Absent);
        if !broadcast && !crate::mac::address::addressed_to(dst, cx.node) {
            return false; // not for this node: dropped as before, not counted
        }
        let start = rx.at.saturating_sub(airtime_us(rx.frame.len()));
        let sender_ns = cx.clock_offset_ns(rx.from, start);
        if !s.hears(sender_ns, start) {
            s.stats.guard_misses += 1;
            return true;
        }
        if s.p.preferred_source == Some(rx.from) && s.time_source != Some(rx.from) {
            // the routing parent is heard, so it is part of the network:
            // it becomes the time source, as RPL's preferred parent does
            // on its first DIO (tsch-rpl.c `tsch_rpl_callback_parent_switch`)
            s.switch_source(rx.from);
        }
        let from_source = s.time_source == Some(rx.from);
        let mpdu = wpan::fcs::check(&rx.frame).ok();
        let eb = mpdu.filter(|m| scan::claims_plain_eb(m)).map(scan::read_eb);
        if from_source {
            // the source's boundaries, measured from the frame's arrival
            self.sync_to_source(cx, start, sender_ns, None);
        } else if let (Some(Some((_, _, metric))), Some(s)) = (eb, self.sync.as_mut()) {
            s.last_eb_other = Some((rx.from, metric));
        }
        eb.is_some()
    }

    /// The ACK of a frame sent to `from`: from the time source, its time
    /// correction IE resynchronises the node, truncated to TsRxWait / 4
    /// (tsch-slot-operation.c `SYNC_IE_BOUND`).
    pub(super) fn sync_on_ack(&mut self, cx: &mut Cx, from: NodeId) {
        let is_source = self
            .sync
            .as_ref()
            .is_some_and(|s| s.time_source == Some(from));
        if is_source {
            let now = cx.now();
            let bound = i64::try_from(self.p.template.rx_wait_us / 4).unwrap_or(i64::MAX);
            let source_ns = cx.clock_offset_ns(from, now);
            self.sync_to_source(cx, now, source_ns, Some(bound * 1_000));
        }
    }

    /// A frame given up on after its retries: a keep-alive to the time
    /// source never acknowledged moves the time source to the last other
    /// neighbour an EB came from and sends it a keep-alive at once, or,
    /// with none heard and no resynchronisation since the association,
    /// leaves the network (tsch.c `keepalive_packet_sent`, `resynchronize`).
    pub(super) fn sync_frame_dropped(&mut self, cx: &mut Cx, p: &Pending) {
        let Some(s) = self.sync.as_mut() else {
            return;
        };
        let keepalive = p.kind == FrameKind::Data && p.payload.is_empty();
        if !keepalive || s.time_source != Some(p.dst) {
            return;
        }
        s.stats.keepalives_failed += 1;
        match s.last_eb_other.take() {
            Some((other, metric)) => {
                s.switch_source(other);
                s.stats.source_switches += 1;
                if let Some(f) = self.formation.as_mut() {
                    f.hops = metric.saturating_add(1);
                }
                self.send_keepalive(cx);
            }
            None if s.since_association == 0 => self.leave(cx),
            None => self.arm_keepalive(cx),
        }
    }

    /// The keep-alive timer fired.
    pub(super) fn sync_keepalive_due(&mut self, cx: &mut Cx) {
        if let Some(s) = self.sync.as_mut() {
            s.keepalive_at = None;
        }
        if !self.scanning() {
            self.send_keepalive(cx);
        }
    }

    /// Queue an empty unicast data frame to the time source (tsch.c
    /// `keepalive_send`); with no room, try again after another delay.
    fn send_keepalive(&mut self, cx: &mut Cx) {
        let Some(ts) = self.sync.as_ref().and_then(|s| s.time_source) else {
            return; // the root, or no time source: none sent
        };
        if let Some(s) = self.sync.as_mut() {
            s.stats.keepalives_sent += 1;
        }
        if !self.enqueue(cx, ts, Vec::new(), FrameKind::Data) {
            self.arm_keepalive(cx);
        }
    }

    /// The desync deadline passed without a resynchronisation: leave, at
    /// a slot boundary with nothing on the air (else one slot later).
    pub(super) fn sync_desync_due(&mut self, cx: &mut Cx) {
        let root = self.formation.as_ref().is_none_or(|f| f.p.root);
        if root || self.scanning() || self.sync.is_none() {
            return;
        }
        let eb_busy = (self.formation.as_ref())
            .is_some_and(|f| f.eb_frame.is_some() || f.eb_on_air.is_some());
        let busy = self.sending.is_some()
            || self.awaiting_ack.is_some()
            || self.ack_due.is_some()
            || self.ack_on_air.is_some()
            || self.tx_frame.is_some()
            || eb_busy;
        if busy {
            let at = cx.now() + self.p.template.slot_us;
            self.timers.set(cx, Kind::Desync, at);
            return;
        }
        self.leave(cx);
    }

    /// Leave the network (tsch.c `tsch_disassociate`, `tsch_reset`): the
    /// slots stop, the queues are emptied, the time source forgotten, and
    /// the node scans again as at power-on, its keys kept.
    fn leave(&mut self, cx: &mut Cx) {
        let now = cx.now();
        self.charge_idle_listening(cx, now);
        for k in [
            Kind::Slot,
            Kind::TxData,
            Kind::AckListen,
            Kind::AckGiveUp,
            Kind::AckTimeout,
            Kind::RxGiveUp,
            Kind::TxAck,
            Kind::RxListen,
            Kind::TxBeacon,
            Kind::KeepAlive,
            Kind::Desync,
        ] {
            self.timers.stop(k);
        }
        self.next_slot_at = None;
        cx.wake_on_neighbour_send(None);
        let dropped = self.queues.clear() as u64;
        self.stats.drops += dropped;
        self.csma.clear();
        self.tx_frame = None;
        self.shared_attempt = None;
        self.parent_attempt = None;
        if let Some(r) = self.tx_results.as_mut() {
            r.1.left = true; // the routing layer is told (tsch-rpl.c)
        }
        if let Some(s) = self.sync.as_mut() {
            s.stats.desyncs += 1;
            s.left = true;
            s.time_source = None;
            s.last_eb_other = None;
            s.keepalive_at = None;
        }
        let cfg = self.scan_config();
        let Some(f) = self.formation.as_mut() else {
            return;
        };
        f.eb_frame = None;
        f.eb_on_air = None;
        f.next_eb_at = None;
        let (scanner, ev) = Scanner::start(cfg, now, cx.rng());
        f.scanner = Some(scanner);
        self.on_scan_event(cx, ev);
    }

    /// How this node scans (the one rule for power-on and rejoin).
    pub(super) fn scan_config(&self) -> ScanConfig {
        let dwell_us = self.formation.as_ref().map_or(0, |f| f.p.scan_dwell_us);
        ScanConfig {
            channels: self.p.hopping.clone(),
            dwell_us,
            // Contiki-NG associates with the first EB it hears (as recalled)
            collect_us: 0,
            tx_offset_us: self.p.template.tx_offset_us,
            slot_us: self.p.template.slot_us,
        }
    }
}

/// The keep-alive timeout (0 without clock drift).
fn s_timeout(t: &Tsch) -> Time {
    t.sync.as_ref().map_or(0, |s| s.keepalive_timeout_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> SyncParams {
        SyncParams {
            crystal: Some(Crystal::with_error_ppb(20_000)),
            ..SyncParams::contiki(20.0, 2_200)
        }
    }

    #[test]
    fn keepalive_delays_span_nine_tenths_to_the_timeout() {
        let p = params();
        assert_eq!(p.guard_us, 1_100);
        assert_eq!(p.keepalive_delay_us(0), 10_800_000);
        assert_eq!(p.keepalive_delay_us(1_199_999), 11_999_999);
        let tiny = SyncParams {
            keepalive_timeout_us: 7,
            ..p
        };
        assert_eq!(tiny.keepalive_delay_us(0), 6);
    }

    #[test]
    fn a_frame_is_heard_only_within_the_guard() {
        // +20 ppm from 0: 1 100 µs late after 55 s, 1 100.02 µs at 55.001 s
        let s = SyncState::new(params());
        assert_eq!(s.offset_ns(55_000_000), 1_100_000);
        assert!(s.hears(0, 55_000_000));
        assert!(!s.hears(0, 55_001_000));
        // a sender as late is heard whatever the offset
        assert!(s.hears(1_100_020, 55_001_000));
    }

    #[test]
    fn an_ack_corrects_at_most_a_quarter_of_the_rx_wait() {
        let mut s = SyncState::new(params());
        // 40 s at +20 ppm: 800 µs late; the ACK's IE says so, truncated
        // to TsRxWait / 4 = 550 µs
        let applied = s.resync(40_000_000, 0, Some(550_000));
        assert_eq!(applied, -550_000);
        assert_eq!(s.offset_ns(40_000_000), 250_000);
        assert_eq!(s.stats.max_offset_us, 800);
        // a frame from the source corrects all of it, as measured in whole
        // 32 768 Hz ticks: 250 000 ns are 8.19 ticks, 8 ticks 244 141 ns
        s.resync(40_000_000, 0, None);
        assert_eq!(s.offset_ns(40_000_000), 250_000 - 244_141);
        assert_eq!(s.stats.resyncs, 2);
    }

    #[test]
    fn corrections_are_measured_in_whole_rtimer_ticks() {
        let p = params();
        // one tick of 32 768 Hz is 30 517.578 ns
        assert_eq!(p.measured_ns(30_000), 30_518);
        assert_eq!(p.measured_ns(-45_777), -61_035); // past -1.5 ticks
        assert_eq!(p.measured_ns(-45_776), -30_518); // short of it
        assert_eq!(p.measured_ns(15_000), 0);
        assert_eq!(p.measured_ns(0), 0);
        let exact = SyncParams { rtimer_hz: 0, ..p };
        assert_eq!(exact.measured_ns(12_345), 12_345);
    }

    #[test]
    fn leaves_at_the_first_slot_boundary_past_the_threshold() {
        let mut s = SyncState::new(params());
        s.associate(3_816, 0, 0);
        // 3 816 + 120 000 000 falls in the slot beginning 120 000 000
        assert_eq!(s.desync_at(10_000), 120_010_000);
    }
}
