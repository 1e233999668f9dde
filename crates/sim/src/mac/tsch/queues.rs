//! A TSCH node's transmit queues, kept as Contiki-NG keeps them
//! (os/net/mac/tsch/tsch-queue.c, read at release v4.9): one FIFO per
//! neighbour, all drawing their frames from one shared pool.
//!
//! - The pool bounds the frames of all neighbours together: `packet_memb`
//!   has `QUEUEBUF_NUM` entries (os/net/queuebuf.h: `QUEUEBUF_CONF_NUM`,
//!   8 by default, os/contiki-default-conf.h; the OpenMote-CC2538 platform
//!   keeps it) and each queued frame holds one ([`POOL_FRAMES`]).
//! - Each neighbour's queue is a ring of `TSCH_QUEUE_NUM_PER_NEIGHBOR`
//!   entries, by default `QUEUEBUF_CONF_NUM` rounded up to a power of two
//!   in [4, 256] (os/net/mac/tsch/tsch-conf.h; [`per_neighbour_default`]).
//! - `tsch_queue_add_packet` refuses a frame when the neighbour's ring is
//!   full or the pool is exhausted (`memb_alloc` fails): the frame is
//!   dropped and the sender told MAC_TX_QUEUE_FULL (tsch.c `send_packet`).
//! - A cell addressed to a neighbour serves that neighbour's queue, its head
//!   first (`tsch_queue_get_packet_for_nbr`); a shared cell serves, after
//!   the broadcast queue, the first neighbour without a TX link of its own
//!   whose backoff has expired (`tsch_queue_get_unicast_packet_for_any`).
//!   Contiki-NG walks its neighbour table there, whose order is the order
//!   of a table shared with RPL and IPv6 neighbour state (os/net/nbr-table.c)
//!   dtlsim does not have; the frames' arrival order stands in for it, with
//!   a frame tried once first among all (as it stays first in its ring).
//!
//! One addition is not Contiki-NG's: 6P messages (RFC 8480) are queued with
//! priority, as the 6TiSCH simulator, whose MSF is RFC 9033's reference,
//! queues them (SimEngine/Mote/sixp.py `_tsch_enqueue` calls
//! SimEngine/Mote/tsch.py `Tsch.enqueue` with priority=True): ahead of the
//! data frames of the same neighbour and, when there is no room, in place
//! of the newest data frame not on the air, which is dropped. Contiki-NG's
//! 6top (os/net/mac/tsch/sixtop/sixtop.c `sixtop_output`) hands a 6P
//! message to `NETSTACK_MAC.send` like any frame, so a relay whose pool is
//! full of forwarded traffic cannot ask for the cells that would drain it;
//! RFC 8480 and RFC 9033 say nothing of queueing (as recalled). OpenWSN,
//! the other implementation of the MSF authors, reserves queue entries for
//! 6top's own frames instead (openqueue.c `HIGH_PRIORITY_QUEUE_ENTRY`).
//!
//! Written by hand: a fixed pool with per-key rings and this service rule
//! is a few lines over `VecDeque`, which no queueing crate offers as such.

use std::collections::{BTreeMap, VecDeque};

use crate::NodeId;

/// Frames the pool holds for all neighbours together (Contiki-NG's
/// `QUEUEBUF_NUM` default, os/net/queuebuf.h and os/contiki-default-conf.h).
pub const POOL_FRAMES: usize = 8;

/// Contiki-NG's default `TSCH_QUEUE_NUM_PER_NEIGHBOR` for a pool of `pool`
/// frames: the next power of two, at least 4 and at most 256
/// (os/net/mac/tsch/tsch-conf.h).
pub const fn per_neighbour_default(pool: usize) -> usize {
    let p = pool.next_power_of_two();
    if p < 4 {
        4
    } else if p > 256 {
        256
    } else {
        p
    }
}

/// What a queued frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// the layers above's payload
    Data,
    /// a 6P request in a 6top IE (sent only in autonomous cells, RFC 9033 §3)
    SixpRequest,
    /// a 6P response: its link-layer fate completes the transaction
    SixpResponse,
}

impl FrameKind {
    /// Queued ahead of data, and in place of it when there is no room.
    pub fn priority(self) -> bool {
        self != FrameKind::Data
    }
}

pub struct Pending {
    pub dst: NodeId,
    /// MAC payload, or a 6top IE's content; the frame is built (and
    /// secured, sec1) in each slot it is tried in.
    pub payload: Vec<u8>,
    pub seq: u8,
    pub retries: u32,
    pub kind: FrameKind,
}

struct Entry {
    /// order among all queued frames: the lower first (arrival order, a
    /// frame tried or given priority moved before all)
    order: i64,
    p: Pending,
}

/// What became of a frame offered to the queues.
#[derive(Debug, PartialEq, Eq)]
pub enum Offered {
    Queued,
    /// no room: the frame offered was dropped
    Refused,
    /// queued with priority in place of this data frame, dropped
    Displaced {
        dst: NodeId,
    },
}

/// A frame's place: its neighbour and its index in that neighbour's queue.
pub type Place = (NodeId, usize);

pub struct TxQueues {
    pool: usize,
    per_neighbour: usize,
    queues: BTreeMap<NodeId, VecDeque<Entry>>,
    len: usize,
    next_back: i64,
    next_front: i64,
    /// the neighbour whose head frame is being tried in this slot
    in_flight: Option<NodeId>,
}

impl TxQueues {
    pub fn new(pool: usize, per_neighbour: usize) -> Self {
        TxQueues {
            pool,
            per_neighbour,
            queues: BTreeMap::new(),
            len: 0,
            next_back: 0,
            next_front: 0,
            in_flight: None,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn free(&self) -> usize {
        self.pool.saturating_sub(self.len)
    }

    fn queued_to(&self, dst: NodeId) -> usize {
        self.queues.get(&dst).map_or(0, VecDeque::len)
    }

    /// Queue `p` at the back of its neighbour's queue, or with priority
    /// (6P) ahead of that queue's data frames; see the module doc for room.
    pub fn offer(&mut self, p: Pending) -> Offered {
        let full = self.len >= self.pool || self.queued_to(p.dst) >= self.per_neighbour;
        if !p.kind.priority() {
            if full {
                return Offered::Refused;
            }
            self.next_back += 1;
            let order = self.next_back;
            self.queues
                .entry(p.dst)
                .or_default()
                .push_back(Entry { order, p });
            self.len += 1;
            return Offered::Queued;
        }
        let mut outcome = Offered::Queued;
        if full {
            // a full ring gives up its own newest data frame, else the pool its newest
            let own = self.queued_to(p.dst) >= self.per_neighbour;
            let Some(victim) = self.newest_data(own.then_some(p.dst)) else {
                return Offered::Refused;
            };
            self.remove(victim);
            outcome = Offered::Displaced { dst: victim.0 };
        }
        self.next_front -= 1;
        let order = self.next_front;
        // after the frame on the air, if it is this neighbour's head
        let skip = usize::from(self.in_flight == Some(p.dst));
        let q = self.queues.entry(p.dst).or_default();
        let at = (q.iter().skip(skip))
            .position(|e| !e.p.kind.priority())
            .map_or(q.len(), |i| i + skip);
        q.insert(at, Entry { order, p });
        self.len += 1;
        outcome
    }

    /// The newest data frame not on the air (of `dst` only, if given).
    fn newest_data(&self, dst: Option<NodeId>) -> Option<Place> {
        let mut best: Option<(i64, Place)> = None;
        for (&n, q) in &self.queues {
            if dst.is_some_and(|d| d != n) {
                continue;
            }
            for (i, e) in q.iter().enumerate() {
                let on_air = self.in_flight == Some(n) && i == 0;
                if !on_air && !e.p.kind.priority() && best.is_none_or(|(o, _)| e.order > o) {
                    best = Some((e.order, (n, i)));
                }
            }
        }
        best.map(|(_, at)| at)
    }

    /// The first frame to `dst` that `may` send.
    pub fn first_to(&self, dst: NodeId, may: impl Fn(&Pending) -> bool) -> Option<Place> {
        let q = self.queues.get(&dst)?;
        q.iter().position(|e| may(&e.p)).map(|i| (dst, i))
    }

    /// The first frame of all that `may` send: each neighbour's first such,
    /// the earliest of them.
    pub fn first_of_all(&self, may: impl Fn(&Pending) -> bool) -> Option<Place> {
        let mut best: Option<(i64, Place)> = None;
        for (&n, q) in &self.queues {
            if let Some((i, e)) = q.iter().enumerate().find(|(_, e)| may(&e.p)) {
                if best.is_none_or(|(o, _)| e.order < o) {
                    best = Some((e.order, (n, i)));
                }
            }
        }
        best.map(|(_, at)| at)
    }

    /// Try the frame at `at` in this slot: it goes to the head of its
    /// neighbour's queue and first of all, and is the one on the air.
    pub fn start_attempt(&mut self, at: Place) -> &Pending {
        self.next_front -= 1;
        let order = self.next_front;
        let q = self.queues.get_mut(&at.0).expect("a queued neighbour");
        let mut e = q.remove(at.1).expect("index");
        e.order = order;
        q.push_front(e);
        self.in_flight = Some(at.0);
        &q[0].p
    }

    /// The frame being tried in this slot.
    pub fn in_flight(&self) -> Option<&Pending> {
        let n = self.in_flight?;
        self.queues.get(&n).and_then(|q| q.front()).map(|e| &e.p)
    }

    pub fn in_flight_mut(&mut self) -> Option<&mut Pending> {
        let n = self.in_flight?;
        self.queues
            .get_mut(&n)
            .and_then(|q| q.front_mut())
            .map(|e| &mut e.p)
    }

    /// The attempt is over and its frame stays queued (for a retry).
    pub fn end_attempt(&mut self) {
        self.in_flight = None;
    }

    /// The attempt is over and its frame leaves the queue (sent or dropped).
    pub fn finish_attempt(&mut self) -> Option<Pending> {
        let n = self.in_flight.take()?;
        self.remove((n, 0))
    }

    fn remove(&mut self, at: Place) -> Option<Pending> {
        let q = self.queues.get_mut(&at.0)?;
        let e = q.remove(at.1)?;
        if q.is_empty() {
            self.queues.remove(&at.0);
        }
        self.len -= 1;
        Some(e.p)
    }

    /// Empty every queue (the node left the network: Contiki-NG's
    /// `tsch_queue_reset`, tsch-queue.c); how many frames were dropped.
    pub fn clear(&mut self) -> usize {
        let dropped = self.len;
        self.queues.clear();
        self.len = 0;
        self.in_flight = None;
        dropped
    }

    /// The neighbours frames wait for, in order.
    pub fn waiting_for(&self) -> impl Iterator<Item = NodeId> + '_ {
        (self.queues.iter())
            .filter(|(_, q)| !q.is_empty())
            .map(|(&n, _)| n)
    }

    /// Every queued frame, neighbour by neighbour (for tests).
    #[cfg(test)]
    pub fn frames(&self) -> impl Iterator<Item = &Pending> {
        self.queues.values().flat_map(|q| q.iter().map(|e| &e.p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(dst: NodeId, tag: u8, kind: FrameKind) -> Pending {
        Pending {
            dst,
            payload: vec![tag],
            seq: tag,
            retries: 0,
            kind,
        }
    }

    fn tags(q: &TxQueues, dst: NodeId) -> Vec<u8> {
        q.frames()
            .filter(|p| p.dst == dst)
            .map(|p| p.payload[0])
            .collect()
    }

    #[test]
    fn contiki_ngs_default_ring_is_the_pool_rounded_up_to_a_power_of_two() {
        // tsch-conf.h: QUEUEBUF_CONF_NUM 8 -> 8; Cooja's 64 -> 64; 5 -> 8; 2 -> 4; 300 -> 256
        assert_eq!(per_neighbour_default(POOL_FRAMES), 8);
        assert_eq!(per_neighbour_default(64), 64);
        assert_eq!(per_neighbour_default(5), 8);
        assert_eq!(per_neighbour_default(2), 4);
        assert_eq!(per_neighbour_default(300), 256);
    }

    #[test]
    fn the_pool_bounds_all_neighbours_together_and_a_ring_each() {
        let mut q = TxQueues::new(8, 4);
        for t in 0..5 {
            let want = if t < 4 {
                Offered::Queued
            } else {
                Offered::Refused
            };
            assert_eq!(q.offer(frame(1, t, FrameKind::Data)), want, "frame {t}");
        }
        for t in 10..15 {
            let want = if t < 14 {
                Offered::Queued
            } else {
                Offered::Refused
            };
            assert_eq!(q.offer(frame(2, t, FrameKind::Data)), want, "frame {t}");
        }
        // ring of 1 full at 4, of 2 full at 4: the pool of 8 is full too
        assert_eq!(q.len(), 8);
        assert_eq!(q.offer(frame(3, 20, FrameKind::Data)), Offered::Refused);
        assert_eq!(tags(&q, 1), [0, 1, 2, 3]);
        assert_eq!(tags(&q, 2), [10, 11, 12, 13]);
    }

    #[test]
    fn a_cell_to_a_neighbour_takes_its_queue_in_order_and_a_shared_one_the_oldest() {
        let mut q = TxQueues::new(8, 8);
        q.offer(frame(2, 0, FrameKind::Data));
        q.offer(frame(1, 1, FrameKind::Data));
        q.offer(frame(2, 2, FrameKind::Data));
        assert_eq!(q.first_to(2, |_| true), Some((2, 0)));
        assert_eq!(q.first_of_all(|_| true), Some((2, 0)));
        assert_eq!(q.first_of_all(|p| p.dst != 2), Some((1, 0)));
        // a frame tried once comes first of all, and stays while it is retried
        let tried = q.start_attempt((1, 0)).payload[0];
        assert_eq!(tried, 1);
        q.end_attempt();
        assert_eq!(q.first_of_all(|_| true), Some((1, 0)));
        q.start_attempt((1, 0));
        assert_eq!(q.finish_attempt().map(|p| p.payload[0]), Some(1));
        assert_eq!(q.first_of_all(|_| true), Some((2, 0)));
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn a_6p_message_goes_ahead_of_data_and_takes_the_newest_data_frames_room() {
        let mut q = TxQueues::new(4, 4);
        for t in 0..3 {
            q.offer(frame(1, t, FrameKind::Data));
        }
        q.offer(frame(2, 3, FrameKind::Data));
        // the frame to 1 at the head is on the air: it stays first
        q.start_attempt((1, 0));
        // full: the newest data frame (3, to 2) makes room for the request to 1
        assert_eq!(
            q.offer(frame(1, 9, FrameKind::SixpRequest)),
            Offered::Displaced { dst: 2 }
        );
        assert_eq!(tags(&q, 1), [0, 9, 1, 2]);
        assert_eq!(tags(&q, 2), Vec::<u8>::new());
        // the next: the newest data frame not on the air, 2 to 1
        assert_eq!(
            q.offer(frame(1, 8, FrameKind::SixpResponse)),
            Offered::Displaced { dst: 1 }
        );
        assert_eq!(tags(&q, 1), [0, 9, 8, 1]);
        q.offer(frame(1, 7, FrameKind::SixpRequest));
        assert_eq!(tags(&q, 1), [0, 9, 8, 7]);
        // nothing left to displace but the frame on the air: refused
        assert_eq!(
            q.offer(frame(1, 6, FrameKind::SixpRequest)),
            Offered::Refused
        );
        assert_eq!(q.len(), 4);
    }
}
