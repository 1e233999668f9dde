//! Slotted CSMA/CA in a contention access period (802.15.4-2006
//! §7.5.1.4): one engine per superframe the node takes part in (its
//! parent's, for frames up and polls; its own, for indirect frames down),
//! each running one transaction at a time from backoff to acknowledgement.

use super::{ifs_us, BeaconMac, Kind, CW0};
use crate::channel::{airtime_us, EmissionId};
use crate::energy::RadioState;
use crate::mac::address::{short_addr, PAN_ID};
use crate::mac::common::draw_below;
use crate::mac::phy;
use crate::world::Cx;
use crate::{NodeId, Time};
use wpan::frame::{Address, Repr};

/// One superframe's contention access period, as this node knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cap {
    pub(super) sf_start: Time,
    /// First backoff boundary after the beacon.
    pub(super) start: Time,
    /// End of the last CAP slot (slot 15: the end of the active period).
    pub(super) end: Time,
}

impl Cap {
    /// The first backoff boundary of this superframe at or after `t`.
    pub(super) fn boundary(&self, t: Time) -> Time {
        let bp = phy::UNIT_BACKOFF_US;
        self.sf_start + t.saturating_sub(self.sf_start).div_ceil(bp) * bp
    }
}

/// Which superframe a CSMA engine works in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    /// The parent's superframe: direct frames up, polls.
    Up,
    /// This node's own superframe: indirect frames down.
    Down,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum What {
    Data,
    Poll,
    Indirect(NodeId),
}

pub(super) struct Transaction {
    pub(super) what: What,
    pub(super) frame: Vec<u8>,
    pub(super) seq: u8,
    pub(super) retries: u32,
    /// When securing it is done.
    pub(super) ready_at: Time,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Idle,
    /// Waiting for the next CAP (no beacon yet, or the countdown paused).
    WaitCap,
    Backoff,
    Cca,
    /// Both CCAs clear; transmit on the next boundary.
    Tx,
    Sending(EmissionId),
    AwaitAck,
    /// A poll was acknowledged with the frame pending bit: listen for the frame.
    AwaitData,
}

/// The slotted CSMA/CA state of one transaction.
pub(super) struct Engine {
    pub(super) step: Step,
    pub(super) tx: Option<Transaction>,
    pub(super) nb: u32,
    pub(super) be: u32,
    pub(super) cw: u32,
    /// Backoff periods still to count down (paused across CAPs).
    pub(super) backoff_left: u64,
    /// At the next CAP, draw a new backoff rather than resume the countdown.
    pub(super) redraw: bool,
}

impl Engine {
    pub(super) fn new() -> Self {
        Engine {
            step: Step::Idle,
            tx: None,
            nb: 0,
            be: 0,
            cw: CW0,
            backoff_left: 0,
            redraw: false,
        }
    }
}

pub(super) struct Direct {
    pub(super) frame: Vec<u8>,
    pub(super) seq: u8,
    pub(super) ready_at: Time,
}

impl BeaconMac {
    pub(super) fn cap(&self, side: Side) -> Option<Cap> {
        match side {
            Side::Up => self.parent_cap,
            Side::Down => self.own_cap,
        }
    }

    pub(super) fn timer_kind(side: Side) -> Kind {
        match side {
            Side::Up => Kind::Up,
            Side::Down => Kind::Down,
        }
    }

    /// Start the next transaction of `side` if its engine is free and no
    /// acknowledgement of this node is still to go out (the frame it
    /// acknowledges ends its sender's transaction; a new one starts after).
    pub(super) fn kick(&mut self, cx: &mut Cx, side: Side) {
        if self.engine(side).step != Step::Idle
            || self.ack_due.is_some()
            || self.ack_on_air.is_some()
        {
            return;
        }
        let tx = match side {
            Side::Up => self.next_up(cx),
            Side::Down => self.next_down(cx),
        };
        let Some(tx) = tx else {
            return;
        };
        let min_be = self.p.min_be;
        let e = self.engine(side);
        e.tx = Some(tx);
        e.nb = 0;
        e.be = min_be;
        e.cw = CW0;
        self.begin_backoff(cx, side);
    }

    /// Draw a backoff and count it down (or wait for a CAP to draw it in).
    pub(super) fn begin_backoff(&mut self, cx: &mut Cx, side: Side) {
        let active = self.cap(side).is_some_and(|c| cx.now() < c.end);
        if !active {
            let e = self.engine(side);
            e.step = Step::WaitCap;
            e.redraw = true;
            return;
        }
        let be = self.engine(side).be;
        let draw = draw_below(cx, 1u64 << be);
        let e = self.engine(side);
        e.backoff_left = draw;
        e.redraw = false;
        e.cw = CW0;
        self.countdown(cx, side);
    }

    /// Count the remaining backoff periods down inside the CAP, pausing at
    /// its end if they do not all fit.
    pub(super) fn countdown(&mut self, cx: &mut Cx, side: Side) {
        let bp = phy::UNIT_BACKOFF_US;
        let Some(cap) = self.cap(side) else {
            self.defer(cx, side, false);
            return;
        };
        let ready = self.engine(side).tx.as_ref().map_or(0, |t| t.ready_at);
        let b = cap.boundary(cx.now().max(ready).max(cap.start));
        let room = cap.end.saturating_sub(b) / bp;
        let left = self.engine(side).backoff_left;
        if left <= room {
            self.engine(side).step = Step::Backoff;
            self.timers.set(cx, Self::timer_kind(side), b + left * bp);
        } else {
            self.engine(side).backoff_left = left - room;
            self.defer(cx, side, false);
        }
    }

    /// The transaction waits for the next CAP. An indirect frame waits for
    /// the next poll instead: its device stops listening after this CAP.
    pub(super) fn defer(&mut self, cx: &mut Cx, side: Side, redraw: bool) {
        self.timers.stop(Self::timer_kind(side));
        if side == Side::Down {
            self.down.step = Step::Idle;
            self.down.tx = None;
            self.update_radio(cx);
            return;
        }
        self.up.step = Step::WaitCap;
        self.up.redraw = redraw;
        self.update_radio(cx);
    }

    /// A CAP of `side` began: resume what waited for it.
    pub(super) fn cap_started(&mut self, cx: &mut Cx, side: Side) {
        match self.engine(side).step {
            Step::WaitCap => {
                if self.engine(side).redraw {
                    self.begin_backoff(cx, side);
                } else {
                    self.countdown(cx, side);
                }
            }
            Step::Idle => self.kick(cx, side),
            _ => {}
        }
    }

    /// The backoff is over: go on if the whole transaction fits in the CAP.
    pub(super) fn backoff_done(&mut self, cx: &mut Cx, side: Side) {
        let now = cx.now();
        let Some(cap) = self.cap(side) else {
            return self.defer(cx, side, true);
        };
        let Some(len) = self.engine(side).tx.as_ref().map(|t| t.frame.len()) else {
            return;
        };
        // §7.5.1.1: CCAs, frame, acknowledgement and IFS all inside the CAP
        let cw = u64::from(self.engine(side).cw);
        let end =
            now + cw * phy::UNIT_BACKOFF_US + airtime_us(len) + phy::ACK_WAIT_US + ifs_us(len);
        if end > cap.end {
            return self.defer(cx, side, true);
        }
        self.engine(side).step = Step::Cca;
        self.timers
            .set(cx, Self::timer_kind(side), now + phy::CCA_US);
        self.update_radio(cx);
    }

    pub(super) fn cca_done(&mut self, cx: &mut Cx, side: Side) {
        let busy = cx.radio() == RadioState::Tx || cx.channel_busy(phy::CCA_US);
        if busy {
            return self.channel_busy(cx, side);
        }
        let Some(cap) = self.cap(side) else {
            return self.defer(cx, side, true);
        };
        let next = cap.boundary(cx.now());
        let e = self.engine(side);
        e.cw -= 1;
        if e.cw == 0 {
            e.step = Step::Tx;
            self.timers.set(cx, Self::timer_kind(side), next);
        } else {
            self.timers
                .set(cx, Self::timer_kind(side), next + phy::CCA_US);
        }
    }

    /// CCA found the channel busy: back off with a larger exponent, or give up.
    pub(super) fn channel_busy(&mut self, cx: &mut Cx, side: Side) {
        let (max_be, max_backoffs) = (self.p.max_be, self.p.max_backoffs);
        let e = self.engine(side);
        e.nb += 1;
        e.be = (e.be + 1).min(max_be);
        e.cw = CW0;
        if e.nb > max_backoffs {
            // channel access failure
            self.finish(cx, side, false);
        } else {
            self.begin_backoff(cx, side);
            self.update_radio(cx);
        }
    }

    pub(super) fn transmit(&mut self, cx: &mut Cx, side: Side) {
        if cx.radio() == RadioState::Tx {
            // this node's own acknowledgement is on the air
            return self.channel_busy(cx, side);
        }
        let Some((frame, what)) = self
            .engine(side)
            .tx
            .as_ref()
            .map(|t| (t.frame.clone(), t.what))
        else {
            return;
        };
        match what {
            What::Poll => self.stats.data_requests_sent += 1,
            What::Data | What::Indirect(_) => {
                self.stats.data_frames_sent += 1;
                self.stats.data_bytes_sent += frame.len() as u64;
            }
        }
        cx.charge_cpu(self.p.frame_processing_us);
        let id = cx.transmit(frame);
        self.engine(side).step = Step::Sending(id);
    }

    /// No acknowledgement: try again, or give up.
    pub(super) fn ack_timeout(&mut self, cx: &mut Cx, side: Side) {
        let Some(what) = self.engine(side).tx.as_ref().map(|t| t.what) else {
            return;
        };
        if let What::Indirect(child) = what {
            // it waits in the transaction queue for the next poll
            if let Some(i) = self.child_index(child) {
                if let Some(head) = self.indirect[i].front_mut() {
                    head.retries += 1;
                    if head.retries > self.p.max_retries {
                        self.indirect[i].pop_front();
                        self.stats.drops += 1;
                    } else {
                        self.stats.retransmissions += 1;
                    }
                }
            }
            self.engine(side).step = Step::Idle;
            self.engine(side).tx = None;
            self.kick(cx, side);
            self.update_radio(cx);
            return;
        }
        let max = self.p.max_retries;
        let retries = {
            let t = self.engine(side).tx.as_mut().expect("checked");
            t.retries += 1;
            t.retries
        };
        if retries > max {
            return self.finish(cx, side, false);
        }
        if what == What::Data {
            self.stats.retransmissions += 1;
        }
        let min_be = self.p.min_be;
        let e = self.engine(side);
        e.nb = 0;
        e.be = min_be;
        self.begin_backoff(cx, side);
        self.update_radio(cx);
    }

    /// The transaction is over (`ok`: acknowledged); start the next one.
    pub(super) fn finish(&mut self, cx: &mut Cx, side: Side, ok: bool) {
        self.timers.stop(Self::timer_kind(side));
        let tx = self.engine(side).tx.take();
        self.engine(side).step = Step::Idle;
        if let Some(tx) = tx {
            match tx.what {
                What::Data => {
                    self.up_queue.pop_front();
                    if !ok {
                        self.stats.drops += 1;
                    }
                }
                What::Indirect(child) => {
                    if let Some(i) = self.child_index(child) {
                        if ok {
                            self.indirect[i].pop_front();
                        }
                    }
                }
                What::Poll => {}
            }
        }
        self.kick(cx, side);
        self.update_radio(cx);
    }

    pub(super) fn acked(&mut self, cx: &mut Cx, side: Side, frame_pending: bool) {
        let Some(what) = self.engine(side).tx.as_ref().map(|t| t.what) else {
            return;
        };
        if what == What::Poll && frame_pending {
            let now = cx.now();
            let until = self
                .cap(side)
                .map_or(now, |c| c.end)
                .min(now + self.p.frame_wait());
            self.engine(side).step = Step::AwaitData;
            self.timers.set(cx, Self::timer_kind(side), until);
            self.update_radio(cx);
            return;
        }
        self.finish(cx, side, true);
    }

    pub(super) fn on_engine_timer(&mut self, cx: &mut Cx, side: Side) {
        match self.engine(side).step {
            Step::Backoff => self.backoff_done(cx, side),
            Step::Cca => self.cca_done(cx, side),
            Step::Tx => self.transmit(cx, side),
            Step::AwaitAck => self.ack_timeout(cx, side),
            Step::AwaitData => self.finish(cx, side, true),
            Step::Idle | Step::WaitCap | Step::Sending(_) => {}
        }
    }

    pub(super) fn engine(&mut self, side: Side) -> &mut Engine {
        match side {
            Side::Up => &mut self.up,
            Side::Down => &mut self.down,
        }
    }

    /// The superframe active at `t` (this node's own or its parent's), for
    /// aligning an acknowledgement on its backoff grid.
    pub(super) fn cap_at(&self, t: Time) -> Option<Cap> {
        let sd = self.p.superframe_duration_us();
        [self.own_cap, self.parent_cap]
            .into_iter()
            .flatten()
            .find(|c| c.sf_start <= t && t < c.sf_start + sd)
    }

    /// The next transaction of the device side: a poll, or a frame up.
    pub(super) fn next_up(&mut self, cx: &mut Cx) -> Option<Transaction> {
        let parent = self.parent()?;
        if self.poll_due {
            self.poll_due = false;
            let seq = self.next_seq();
            let frame = Repr::data_request(
                seq,
                PAN_ID,
                Address::Short(short_addr(parent)),
                Address::Short(short_addr(cx.node)),
            )
            .to_bytes_with_fcs()
            .expect("a data request always fits");
            return Some(Transaction {
                what: What::Poll,
                frame,
                seq,
                retries: 0,
                ready_at: cx.now(),
            });
        }
        let head = self.up_queue.front()?;
        Some(Transaction {
            what: What::Data,
            frame: head.frame.clone(),
            seq: head.seq,
            retries: 0,
            ready_at: head.ready_at,
        })
    }
}
