//! Always-on unslotted CSMA/CA with link-layer ACKs and retries
//! (IEEE 802.15.4-2006 §7.5.1.4): the no-duty-cycling baseline.
//!
//! The radio listens all the time. A payload waits a random backoff of
//! `0..2^BE − 1` unit backoff periods, then a CCA; a busy channel raises BE
//! (up to `max_be`) and tries again, up to `max_backoffs` times. After the
//! frame the sender waits macAckWaitDuration for the ACK and retries the
//! whole procedure up to `max_retries` times. The receiver answers after
//! aTurnaroundTime and drops duplicates (same source and sequence number).

use std::collections::VecDeque;

use wpan::frame::FrameType;

use super::address::{addressed_to, LinkAddressing};
use super::common::{draw_below, queued_data_frame, DataReceiver};
use super::frame::{ack_frame, heard, max_data_payload, Parsed};
use super::phy;
use super::security::{LinkSecurity, NodeSecurity};
use super::{Mac, MacStats};
use crate::channel::EmissionId;
use crate::energy::RadioState;
use crate::timer::{TimerTable, Token};
use crate::world::{Cx, Received};
use crate::{NodeId, Time};

crate::timer_kinds! {
    enum Kind {
        /// The next step of the CSMA procedure (backoff, CCA, ACK wait); one at a time.
        Step,
        /// An ACK's turnaround: each fires (the ACK to send is in `ack_due`).
        AckTurnaround,
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CsmaParams {
    pub min_be: u32,
    pub max_be: u32,
    pub max_backoffs: u32,
    pub max_retries: u32,
    /// One backoff slot (IEEE 802.15.4-2006 aUnitBackoffPeriod, 20 symbols =
    /// 320 µs; Contiki-NG's csma counts it in clock ticks, see the scenario key).
    pub backoff_unit_us: Time,
    /// CPU time to handle one frame (from the platform file).
    pub frame_processing_us: Time,
    /// IEEE 802.15.4 security of data frames, if any.
    pub security: Option<LinkSecurity>,
}

impl Default for CsmaParams {
    /// IEEE 802.15.4-2006 defaults: macMinBE 3, macMaxBE 5,
    /// macMaxCSMABackoffs 4, macMaxFrameRetries 3.
    fn default() -> Self {
        CsmaParams {
            min_be: 3,
            max_be: 5,
            max_backoffs: 4,
            max_retries: 3,
            backoff_unit_us: phy::UNIT_BACKOFF_US,
            frame_processing_us: 0,
            security: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    /// Waiting out a backoff; the CCA follows.
    Backoff,
    /// Sensing the channel for CCA_US.
    Cca,
    /// RX→TX turnaround before the frame.
    Turnaround,
    Sending(EmissionId),
    /// Frame sent, listening for its ACK.
    AwaitAck,
}

struct Pending {
    frame: Vec<u8>,
    seq: u8,
    retries: u32,
    /// When securing it is done (the CSMA procedure starts then).
    ready_at: Time,
}

pub struct Csma {
    p: CsmaParams,
    state: State,
    queue: VecDeque<Pending>,
    nb: u32,
    be: u32,
    seq: u8,
    timers: TimerTable<Kind>,
    /// ACKs to send after the turnaround, and the emission of the one on air.
    ack_due: Option<u8>,
    ack_on_air: Option<EmissionId>,
    receiver: DataReceiver,
    security: Option<NodeSecurity>,
    stats: MacStats,
}

impl Csma {
    pub fn new(p: CsmaParams) -> Self {
        Csma {
            p,
            state: State::Idle,
            queue: VecDeque::new(),
            nb: 0,
            be: p.min_be,
            seq: 0,
            timers: TimerTable::new(),
            ack_due: None,
            ack_on_air: None,
            receiver: DataReceiver::default(),
            security: p.security.map(NodeSecurity::new),
            stats: MacStats::default(),
        }
    }

    fn arm(&mut self, cx: &mut Cx, at: Time) {
        self.timers.set(cx, Kind::Step, at);
    }

    /// Start (or restart after a failed attempt) the CSMA procedure for the head of the queue.
    fn begin_attempt(&mut self, cx: &mut Cx) {
        self.nb = 0;
        self.be = self.p.min_be;
        self.backoff(cx);
    }

    fn backoff(&mut self, cx: &mut Cx) {
        let slots = draw_below(cx, 1u64 << self.be);
        self.state = State::Backoff;
        let ready = self.queue.front().map_or(0, |p| p.ready_at);
        let at = cx.now().max(ready) + slots * self.p.backoff_unit_us;
        self.arm(cx, at);
    }

    fn next_frame(&mut self, cx: &mut Cx) {
        self.state = State::Idle;
        if !self.queue.is_empty() {
            self.begin_attempt(cx);
        }
    }

    fn give_up_or_retry(&mut self, cx: &mut Cx) {
        let head = self.queue.front_mut().expect("an attempt has a frame");
        if head.retries < self.p.max_retries {
            head.retries += 1;
            self.stats.retransmissions += 1;
            self.begin_attempt(cx);
        } else {
            self.queue.pop_front();
            self.stats.drops += 1;
            self.next_frame(cx);
        }
    }
}

impl Mac for Csma {
    fn start(&mut self, cx: &mut Cx) {
        cx.set_radio(RadioState::Listen);
    }

    fn send(&mut self, cx: &mut Cx, next_hop: NodeId, payload: Vec<u8>) {
        self.seq = self.seq.wrapping_add(1);
        let (frame, ready_at) = queued_data_frame(
            cx,
            self.security.as_mut(),
            LinkAddressing::Short,
            self.seq,
            next_hop,
            payload,
        );
        self.queue.push_back(Pending {
            frame,
            seq: self.seq,
            retries: 0,
            ready_at,
        });
        if self.state == State::Idle {
            self.begin_attempt(cx);
        }
    }

    fn on_timer(&mut self, cx: &mut Cx, token: Token) {
        match self.timers.fired(token) {
            None => return,
            Some(Kind::AckTurnaround) => {
                if let Some(seq) = self.ack_due.take() {
                    if cx.radio() != RadioState::Tx {
                        self.ack_on_air = Some(cx.transmit(ack_frame(seq, false)));
                        self.stats.acks_sent += 1;
                    }
                }
                return;
            }
            Some(Kind::Step) => {}
        }
        match self.state {
            State::Backoff => {
                self.state = State::Cca;
                let at = cx.now() + phy::CCA_US;
                self.arm(cx, at);
            }
            State::Cca => {
                if cx.radio() == RadioState::Tx || cx.channel_busy(phy::CCA_US) {
                    self.nb += 1;
                    self.be = (self.be + 1).min(self.p.max_be);
                    if self.nb > self.p.max_backoffs {
                        self.queue.pop_front();
                        self.stats.drops += 1;
                        self.next_frame(cx);
                    } else {
                        self.backoff(cx);
                    }
                } else {
                    self.state = State::Turnaround;
                    let at = cx.now() + phy::TURNAROUND_US;
                    self.arm(cx, at);
                }
            }
            State::Turnaround => {
                if cx.radio() == RadioState::Tx {
                    // our own ACK is on the air: sense again
                    self.backoff(cx);
                    return;
                }
                let head = self.queue.front().expect("an attempt has a frame");
                let frame = head.frame.clone();
                self.stats.data_frames_sent += 1;
                self.stats.data_bytes_sent += frame.len() as u64;
                cx.charge_cpu(self.p.frame_processing_us);
                let id = cx.transmit(frame);
                self.state = State::Sending(id);
            }
            State::AwaitAck => self.give_up_or_retry(cx),
            State::Idle | State::Sending(_) => {}
        }
    }

    fn on_frame(&mut self, cx: &mut Cx, rx: Received) {
        let Some(view) = heard(&rx.frame) else {
            return;
        };
        if view.frame_type() != FrameType::Ack && !addressed_to(view.dst_addr(), cx.node) {
            return; // not for us: dropped before anything is allocated
        }
        let Some(parsed) = Parsed::of_heard(view) else {
            return;
        };
        if parsed.is_ack() {
            if self.state == State::AwaitAck {
                let head = self.queue.front().expect("awaiting an ACK for the head");
                if parsed.seq() == Some(head.seq) {
                    self.timers.stop(Kind::Step); // cancel the ACK timeout
                    self.queue.pop_front();
                    self.next_frame(cx);
                }
            }
            return;
        }
        if !parsed.is_for(cx.node) {
            return;
        }
        let seq = parsed.seq().unwrap_or(0);
        if parsed.repr.ack_request {
            self.ack_due = Some(seq);
            let at = rx.at + phy::TURNAROUND_US;
            self.timers.add(cx, Kind::AckTurnaround, at);
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
            return;
        }
        if self.state == State::Sending(emission) {
            self.state = State::AwaitAck;
            let at = cx.now() + phy::ACK_WAIT_US;
            self.arm(cx, at);
        }
    }

    fn max_payload(&self) -> usize {
        max_data_payload(self.security.as_ref(), LinkAddressing::Short)
    }

    fn security_stats(&self) -> Option<super::security::SecurityStats> {
        self.security.as_ref().map(|s| s.stats)
    }

    fn queued(&self) -> usize {
        self.queue.len()
    }

    fn stats(&self) -> MacStats {
        self.stats
    }
}
