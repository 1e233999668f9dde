//! ContikiMAC radio duty cycling (Dunkels, SICS technical report T2011:13,
//! 2011), as Contiki 3.0's `core/net/mac/contikimac/contikimac.c` does it,
//! under Contiki 3.0's `csma` (`core/net/mac/csma.c`).
//!
//! Every node wakes once per cycle (the check interval, CI) at its own
//! phase and makes `cca_count` clear channel assessments `cca_sleep` apart
//! (`powercycle`, contikimac.c lines 376-393). Energy in one of them keeps
//! the radio on (`packet_seen`); fast sleep turns it off again after
//! `fast_sleep_periods` CCA periods if no frame is being received, and in
//! any case `listen_after_detect` after the detection (lines 395-451). A
//! received frame turns the radio off (`input_packet`, lines 892-925),
//! unless its frame-pending bit says more follow (a burst: the radio stays
//! on for `burst_deadline`).
//!
//! A sender has no strobes: after `tx_cca` of CCAs (any energy: a
//! collision, lines 620-648) it repeats the whole data frame, `copy_gap`
//! apart, until the receiver acknowledges one or the train has lasted
//! `strobe_time` = CI + 2·CHECK_TIME (lines 663-732). The receiver, which
//! woke on one copy, receives the next whole and acknowledges it
//! `ack_delay` after its end. The sender looks for the ACK `ack_check`
//! after each copy ends; an ACK that starts later is found only after the
//! next copy (lines 706-729). Any other frame heard then ends the train as
//! a collision. Packets queued behind an acknowledged one for the same
//! neighbour follow at once as a burst (`qsend_list`, lines 797-866): the
//! frame-pending bit set, no CCA, a train of at most `burst_strobe_time`.
//!
//! Above it, csma (csma.c `packet_sent`, lines 203-314): a train without an
//! ACK counts as a transmission, a collision does not; either is retried
//! after CI + random % (2^min(transmissions, 3) · CI) clock ticks; after
//! `max_transmissions` unacknowledged trains the packet is dropped; the next
//! packet of a neighbour's queue waits one CI (`free_packet`). On a Cooja
//! mote (`cooja_mote_ticks`) these ctimers count whole clock ticks and run
//! on the mote's tick, as X-MAC's do (`mac::cooja_mote`).
//!
//! Not modelled: phase optimisation (Contiki 3.0 compiles it out by default:
//! core/contiki-default-conf.h line 256 sets
//! CONTIKIMAC_CONF_WITH_PHASE_OPTIMIZATION to 0), broadcast trains (dtlsim's
//! network layer sends only unicast), and fast sleep's silence rule (radio
//! off after MAX_SILENCE_PERIODS clear CCAs, line 426: the gaps between
//! copies are shorter than that).

mod params;
mod queues;

pub use params::ContikimacParams;

use wpan::frame::FrameType;

use super::address::addressed_to;
use super::common::{draw_below, DataReceiver};
use super::cooja_mote::{ctimer_due, on_cooja_tick, COOJA_TICK_US};
use super::frame::{ack_frame, data_repr, heard, max_data_payload, seal, Parsed};
use super::security::NodeSecurity;
use super::{Mac, MacStats};
use crate::channel::EmissionId;
use crate::energy::RadioState;
use crate::timer::{TimerTable, Token};
use crate::world::{Cx, Received};
use crate::{NodeId, Time};
use queues::{Outcome, Queues};

crate::timer_kinds! {
    enum Kind {
        /// The start of a cycle's wake-up (its first CCA).
        Wake,
        /// The end of one CCA of a wake-up.
        CcaEnd,
        /// The start of the next CCA of a wake-up.
        CcaNext,
        /// Fast sleep: no frame started after a detection.
        FastSleep,
        /// The end of LISTEN_TIME_AFTER_PACKET_DETECTED.
        ListenEnd,
        /// No next frame of a burst arrived in time.
        BurstEnd,
        /// A neighbour queue's csma timer (each arming fires; the queues
        /// know which are due).
        Csma,
        /// The end of the sender's CCAs: the train starts.
        TxCcaEnd,
        /// The sender has read the ACK (or the copy after it has ended).
        TrainAcked,
        /// The receiver's ACK is due.
        Ack,
    }
}

/// Transaction length of an immediate ACK (3 bytes + FCS), on the air.
const ACK_PSDU: usize = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rx {
    /// Radio off between wake-ups (or doing the CCAs of one).
    Asleep,
    /// Energy seen: listening for the frame.
    Detected { since: Time },
    /// A frame with the frame-pending bit arrived: more follow.
    Burst,
}

#[derive(Debug, Clone, Copy)]
struct Train {
    to: NodeId,
    seq: u8,
    /// None during the CCAs before it.
    emission: Option<EmissionId>,
    start: Time,
    period: Time,
    airtime: Time,
    /// Sent as part of a burst (the receiver is awake: no CCA).
    receiver_awake: bool,
    /// Its frame has the frame-pending bit set.
    pending: bool,
    /// Decided before the train ended (ACK read, collision).
    outcome: Option<Outcome>,
}

pub struct Contikimac {
    p: ContikimacParams,
    phase: Time,
    /// Which CCA of the current wake-up runs.
    cca_index: u32,
    rx: Rx,
    train: Option<Train>,
    queues: Queues,
    seq: u8,
    timers: TimerTable<Kind>,
    ack_due: Option<u8>,
    ack_on_air: Option<EmissionId>,
    receiver: DataReceiver,
    security: Option<NodeSecurity>,
    stats: MacStats,
}

impl Contikimac {
    pub fn new(p: ContikimacParams) -> Self {
        Contikimac {
            p,
            phase: 0,
            cca_index: 0,
            rx: Rx::Asleep,
            train: None,
            queues: Queues::new(p.queue_capacity, p.neighbour_queues),
            seq: 0,
            timers: TimerTable::new(),
            ack_due: None,
            ack_on_air: None,
            receiver: DataReceiver::default(),
            security: p.security.map(NodeSecurity::new),
            stats: MacStats::default(),
        }
    }

    fn period(&self) -> Time {
        self.p.cca_check_us + self.p.cca_sleep_us
    }

    /// Radio off, unless something still needs it on.
    fn sleep_radio(&mut self, cx: &mut Cx) {
        if self.train.is_none() && self.rx == Rx::Asleep && cx.radio() != RadioState::Tx {
            cx.set_radio(RadioState::Off);
        }
    }

    fn end_listening(&mut self, cx: &mut Cx) {
        self.rx = Rx::Asleep;
        self.timers.stop(Kind::FastSleep);
        self.timers.stop(Kind::ListenEnd);
        self.timers.stop(Kind::BurstEnd);
        self.sleep_radio(cx);
    }

    // ---- the receiver's duty cycle ----

    fn wake(&mut self, cx: &mut Cx) {
        let now = cx.now();
        self.timers
            .set(cx, Kind::Wake, now + self.p.check_interval_us);
        // powercycle skips its CCAs while sending or in a burst
        if self.train.is_some() || self.rx != Rx::Asleep {
            return;
        }
        self.cca_index = 0;
        self.cca_start(cx);
    }

    fn cca_start(&mut self, cx: &mut Cx) {
        if self.p.cca_check_us > 0 {
            cx.set_radio(RadioState::Listen);
        }
        let now = cx.now();
        let at = match self.p.cooja_mote_ticks {
            // a Cooja mote runs on whole milliseconds counted from the last
            // frame edge it heard (every frame end in range wakes it): the
            // CCA runs at the first such tick, and senses the instant
            true => match cx.last_frame_end_heard(now) {
                Some(edge) => edge + (now - edge).div_ceil(COOJA_TICK_US) * COOJA_TICK_US + 1,
                None => now + 1,
            },
            false => now + self.p.cca_check_us,
        };
        self.timers.set(cx, Kind::CcaEnd, at);
    }

    fn cca_end(&mut self, cx: &mut Cx) {
        if self.train.is_some() || self.rx != Rx::Asleep {
            return;
        }
        // a CCA of no duration (a 1 kHz rtimer: CCA_CHECK_TIME 0) senses the instant
        let busy = cx.channel_busy(self.p.cca_check_us.max(1));
        if busy {
            let now = cx.now();
            self.rx = Rx::Detected { since: now };
            cx.set_radio(RadioState::Listen);
            let fast = now + u64::from(self.p.fast_sleep_periods) * self.period();
            self.timers.set(cx, Kind::FastSleep, fast);
            self.timers
                .set(cx, Kind::ListenEnd, now + self.p.listen_after_detect_us);
            return;
        }
        self.sleep_radio(cx);
        self.cca_index += 1;
        if self.cca_index < self.p.cca_count {
            let at = cx.now() + self.p.cca_sleep_us;
            self.timers.set(cx, Kind::CcaNext, at);
        }
    }

    // ---- the sender ----

    /// Serve a neighbour queue whose csma timer has expired, if the radio
    /// is free.
    fn serve(&mut self, cx: &mut Cx) {
        if self.train.is_some() {
            return;
        }
        let now = cx.now();
        let Some(to) = self.queues.due(now) else {
            return;
        };
        // qsend_list: no sending during a burst; send_packet: none while a
        // frame is being received (both MAC_TX_COLLISION)
        let receiving = matches!(self.rx, Rx::Detected { .. }) && cx.channel_busy(1);
        if self.rx == Rx::Burst || receiving {
            self.after_send(cx, to, Outcome::Collision);
            return;
        }
        self.end_listening(cx);
        self.start_send(cx, to, false);
    }

    fn start_send(&mut self, cx: &mut Cx, to: NodeId, receiver_awake: bool) {
        let node = cx.node;
        let mut cpu = 0;
        // qsend_list creates (and secures) every queued frame in advance,
        // each with the frame-pending bit when another follows it
        let security = &mut self.security;
        let addressing = self.p.addressing;
        self.queues.build(to, |payload, seq, pending| {
            let secured = security.is_some();
            let mut repr = data_repr(addressing, seq, node, to, payload, secured);
            repr.frame_pending = pending;
            let (frame, c) = seal(security.as_mut(), node, repr, None);
            cpu += c;
            frame
        });
        cx.charge_cpu(cpu);
        let (frame, seq, pending) = self
            .queues
            .head_frame(to)
            .expect("a due queue has a packet");
        let now = cx.now() + cpu;
        let airtime = cx.w.channel.airtime.of(&frame);
        self.train = Some(Train {
            to,
            seq,
            emission: None,
            start: now,
            period: airtime + self.p.copy_gap_us,
            airtime,
            receiver_awake,
            pending,
            outcome: None,
        });
        if receiver_awake {
            self.start_train(cx);
        } else {
            // the CCAs before the train, radio on for them
            cx.set_radio(RadioState::Listen);
            self.timers.set(cx, Kind::TxCcaEnd, now + self.p.tx_cca_us);
        }
    }

    fn start_train(&mut self, cx: &mut Cx) {
        let train = self.train.as_mut().expect("a send in progress");
        let to = train.to;
        let (frame, _, _) = self.queues.head_frame(to).expect("the packet being sent");
        let longest = if train.receiver_awake {
            self.p.burst_strobe_time_us
        } else {
            self.p.strobe_time_us
        };
        // the loop starts a copy while less than the longest train has passed
        let copies = longest.div_ceil(train.period).max(1);
        train.start = cx.now();
        let period = train.period;
        train.emission = Some(cx.transmit_train(frame, period, copies));
    }

    fn tx_cca_end(&mut self, cx: &mut Cx) {
        if cx.channel_busy(self.p.tx_cca_us.max(1)) {
            let to = self.train.take().expect("a send in progress").to;
            self.sleep_radio(cx);
            self.after_send(cx, to, Outcome::Collision);
            return;
        }
        self.start_train(cx);
    }

    /// The ACK for the train, read at `ack_end`: the train stops after the
    /// copy it answered, or after the next one when it came later than the
    /// sender looked.
    fn acked(&mut self, cx: &mut Cx, ack_end: Time) {
        let p = self.p;
        let t = self.train.as_mut().expect("acknowledging a train");
        let Some(id) = t.emission else { return };
        let ack_start = ack_end.saturating_sub(cx.w.channel.airtime.of(&[0; ACK_PSDU]));
        // the last copy that had ended when the ACK began
        let answered = (ack_start.saturating_sub(t.start + t.airtime)) / t.period;
        let answered_end = t.start + answered * t.period + t.airtime;
        let started_by_now = (cx.now() - t.start) / t.period + 1;
        let copies = if ack_start <= answered_end + p.ack_check_us {
            answered + 1
        } else {
            answered + 2
        };
        let end = cx.end_train(id, copies.max(started_by_now));
        t.outcome = Some(Outcome::Ok);
        let done = end.max(cx.now());
        self.timers.set(cx, Kind::TrainAcked, done);
    }

    /// Another frame heard between copies: the ACK read fails, a collision
    /// (contikimac.c lines 711-728); the train ends after the copy on the air.
    fn collided(&mut self, cx: &mut Cx) {
        let t = self.train.as_mut().expect("a train");
        let (Some(id), None) = (t.emission, t.outcome) else {
            return;
        };
        let started_by_now = (cx.now() - t.start) / t.period + 1;
        let end = cx.end_train(id, started_by_now);
        t.outcome = Some(Outcome::Collision);
        let done = end.max(cx.now());
        self.timers.set(cx, Kind::TrainAcked, done);
    }

    fn train_over(&mut self, cx: &mut Cx, outcome: Outcome) {
        let t = self.train.take().expect("a train");
        if t.emission.is_some() {
            // the copies whose start has come by the train's end
            let copies = cx.now().saturating_sub(t.start).div_ceil(t.period).max(1);
            let frame_len = self.queues.head_frame(t.to).map_or(0, |f| f.0.len());
            self.stats.data_frames_sent += copies;
            self.stats.data_bytes_sent += copies * frame_len as u64;
        }
        self.sleep_radio(cx);
        let burst_on = outcome == Outcome::Ok && t.pending;
        let to = t.to;
        self.after_send(cx, to, outcome);
        // qsend_list: an acknowledged frame with the pending bit is followed
        // at once by the next one of the queue, the receiver being awake
        if burst_on && self.queues.head_frame(to).is_some() {
            self.start_send(cx, to, true);
            return;
        }
        self.serve(cx);
    }

    /// csma.c `packet_sent` for the head of `to`'s queue.
    fn after_send(&mut self, cx: &mut Cx, to: NodeId, outcome: Outcome) {
        let now = cx.now();
        let tick = self.p.clock_tick_ns;
        let ci_ticks = (self.p.check_interval_us * 1000 / tick).max(1);
        let step = self.queues.sent(to, outcome, self.p.max_transmissions);
        let wait = match step {
            queues::Next::Retry { exponent } => {
                // CI + random_rand() % (2^e · CI), in clock ticks
                let spread = draw_below(cx, (1u64 << exponent) * ci_ticks);
                if outcome != Outcome::Collision {
                    self.stats.retransmissions += 1;
                }
                Some((ci_ticks + spread) * tick / 1000)
            }
            queues::Next::Dropped { more } => {
                self.stats.drops += 1;
                more.then_some(self.p.check_interval_us)
            }
            queues::Next::Freed { more } => more.then_some(self.p.check_interval_us),
        };
        let Some(wait) = wait else { return };
        // both are `ctimer_set` on the neighbour's transmit_timer (csma.c
        // lines 191 and 288): on a Cooja mote whole clock ticks from the
        // tick it is set in, then run on the mote's tick (`csma_on_tick`)
        let at = match self.p.cooja_mote_ticks {
            true => ctimer_due(now, wait),
            false => now + wait,
        };
        self.queues.set_due(to, at, self.p.cooja_mote_ticks);
        self.timers.add(cx, Kind::Csma, at);
    }

    /// With `cooja_mote_ticks`: a csma timer whose clock tick has come runs
    /// on the mote's tick after it, as X-MAC's does (see
    /// [`on_cooja_tick`]). Seen in the oracle's radio logs
    /// (reference/cooja-contikimac/debug, 1 and 2 hops): of the 84 trains
    /// that followed their sender's unanswered one, the 60 whose sender
    /// heard no frame meanwhile began whole milliseconds (plus the 4 ms of
    /// CCAs) after that train's end; of the 24 whose sender heard one, 23
    /// began whole milliseconds after the last frame end it heard and none
    /// whole milliseconds after its own train's end. True when
    /// the timer was moved to that tick.
    fn csma_on_tick(&mut self, cx: &mut Cx) -> bool {
        let now = cx.now();
        let Some(to) = self.queues.clock_due_now(now) else {
            return false;
        };
        let at = on_cooja_tick(cx, now, 0);
        // settled either way: at `at` it runs
        self.queues.set_due(to, at, false);
        if at == now {
            return false;
        }
        self.timers.add(cx, Kind::Csma, at);
        true
    }

    // ---- receiving ----

    fn on_data(&mut self, cx: &mut Cx, rx: &Received, parsed: Parsed) {
        let seq = parsed.seq().unwrap_or(0);
        if parsed.repr.ack_request {
            // contikimac.c CONTIKIMAC_SEND_SW_ACK (lines 954-972), or the
            // radio's automatic ACK: sent for repeats too
            self.ack_due = Some(seq);
            self.timers.set(cx, Kind::Ack, rx.at + self.p.ack_delay_us);
        }
        let burst = parsed.repr.frame_pending;
        self.receiver
            .accept(cx, self.security.as_mut(), &mut self.stats, rx, parsed, seq);
        if burst {
            self.rx = Rx::Burst;
            self.timers.stop(Kind::FastSleep);
            self.timers.stop(Kind::ListenEnd);
            self.timers
                .set(cx, Kind::BurstEnd, cx.now() + self.p.burst_deadline_us);
        } else {
            self.end_listening(cx);
        }
    }
}

impl Mac for Contikimac {
    fn start(&mut self, cx: &mut Cx) {
        self.phase = match self.p.phase_us {
            Some(p) => p % self.p.check_interval_us,
            None => {
                draw_below(
                    cx,
                    self.p.check_interval_us / self.p.rtimer_tick_us().max(1),
                ) * self.p.rtimer_tick_us().max(1)
            }
        };
        cx.set_radio(RadioState::Off);
        let at = cx.now() + self.phase;
        self.timers.set(cx, Kind::Wake, at);
    }

    fn send(&mut self, cx: &mut Cx, next_hop: NodeId, payload: Vec<u8>) {
        self.seq = self.seq.wrapping_add(1);
        match self.queues.push(next_hop, payload, self.seq) {
            None => {
                self.stats.drops += 1;
                self.stats.drops_queue_full += 1;
            }
            Some(first) => {
                if first {
                    // csma: the first packet of a queue goes at once (ctimer 0)
                    let now = cx.now();
                    self.queues.set_due(next_hop, now, false);
                    self.timers.add(cx, Kind::Csma, now);
                }
            }
        }
    }

    fn on_timer(&mut self, cx: &mut Cx, token: Token) {
        let Some(kind) = self.timers.fired(token) else {
            return;
        };
        match kind {
            Kind::Wake => self.wake(cx),
            Kind::CcaEnd => self.cca_end(cx),
            Kind::CcaNext => {
                if self.train.is_none() && self.rx == Rx::Asleep {
                    self.cca_start(cx);
                }
            }
            Kind::FastSleep => {
                // still receiving a frame: wait for it up to the listen time
                if matches!(self.rx, Rx::Detected { .. }) && !cx.channel_busy(1) {
                    self.end_listening(cx);
                }
            }
            Kind::ListenEnd => {
                if let Rx::Detected { .. } = self.rx {
                    self.end_listening(cx);
                }
            }
            Kind::BurstEnd => {
                if self.rx == Rx::Burst {
                    self.end_listening(cx);
                }
            }
            Kind::Csma => {
                if !self.csma_on_tick(cx) {
                    self.serve(cx)
                }
            }
            Kind::TxCcaEnd => {
                if self.train.is_some() {
                    self.tx_cca_end(cx);
                }
            }
            Kind::TrainAcked => {
                if let Some(outcome) = self.train.and_then(|t| t.outcome) {
                    self.train_over(cx, outcome);
                }
            }
            Kind::Ack => {
                if let Some(seq) = self.ack_due.take() {
                    if cx.radio() != RadioState::Tx {
                        self.ack_on_air = Some(cx.transmit(ack_frame(seq, false)));
                        self.stats.acks_sent += 1;
                    }
                }
            }
        }
    }

    fn on_frame(&mut self, cx: &mut Cx, rx: Received) {
        let Some(view) = heard(&rx.frame) else {
            return;
        };
        let is_ack = view.frame_type() == FrameType::Ack;
        if let Some(t) = self.train {
            if t.emission.is_some() && t.outcome.is_none() {
                let ours = is_ack && Parsed::of_heard(view).and_then(|p| p.seq()) == Some(t.seq);
                if ours {
                    self.acked(cx, rx.at);
                } else {
                    self.collided(cx);
                }
            }
            return;
        }
        if is_ack || !addressed_to(view.dst_addr(), cx.node) {
            // input_packet turns the radio off for any frame not in a burst
            if self.rx != Rx::Burst {
                self.end_listening(cx);
            }
            return;
        }
        let Some(parsed) = Parsed::of_heard(view) else {
            return;
        };
        if parsed.is_for(cx.node) {
            self.on_data(cx, &rx, parsed);
        }
    }

    fn on_tx_end(&mut self, cx: &mut Cx, emission: EmissionId) {
        if self.ack_on_air == Some(emission) {
            self.ack_on_air = None;
            self.sleep_radio(cx);
            return;
        }
        if let Some(t) = self.train {
            if t.emission == Some(emission) && t.outcome.is_none() {
                // the whole train went out unanswered
                self.train_over(cx, Outcome::NoAck);
            }
        }
    }

    fn max_payload(&self) -> usize {
        max_data_payload(self.security.as_ref(), self.p.addressing)
    }

    fn stats(&self) -> MacStats {
        self.stats
    }

    fn queued(&self) -> usize {
        self.queues.len()
    }

    fn free_frames(&self) -> Option<usize> {
        Some(self.queues.free())
    }

    fn security_stats(&self) -> Option<super::security::SecurityStats> {
        self.security.as_ref().map(|s| s.stats)
    }
}
