//! Contiki 2.7 csma's per-neighbour queues (csma.c `struct neighbor_queue`),
//! which X-MAC's packets wait in: at most `neighbours` neighbours have
//! packets queued at once, all queues draw from one pool of `capacity`
//! packet buffers, and each queue has its own transmit timer and retry
//! count. Which queue is served, and when its timer is re-armed, the MAC
//! decides ([`super::Xmac`]).

use std::cmp::Reverse;
use std::collections::VecDeque;

use crate::{NodeId, Time};

/// A packet as the MAC queued it.
pub(super) struct Pending {
    /// The data frame as it will go on the air (secured when configured).
    pub frame: Vec<u8>,
    /// When securing it is done.
    pub ready_at: Time,
}

/// One neighbour's packets (csma.c `struct neighbor_queue`), kept while it
/// has any.
pub(super) struct NeighbourQueue {
    dst: NodeId,
    pub packets: VecDeque<Pending>,
    /// When its `transmit_timer` expires: its head is tried then, or as
    /// soon after as the radio is free.
    due: Time,
    /// Order in which the timers were armed, for ties (see
    /// [`NeighbourQueues::next_due`]).
    armed: u64,
    /// When its timer was last armed.
    armed_at: Time,
    /// The timer is a ctimer counting clock ticks (csma.c `free_packet`'s
    /// and `packet_sent`'s waits), not one set to expire at once.
    on_clock: bool,
    /// Unanswered trains for the head (csma.c `transmissions`; collisions
    /// are not counted; reset for the next packet in `free_packet`).
    pub transmissions: u32,
}

/// Every neighbour queue of a node, in the order the neighbours got them
/// (csma.c `neighbor_list`).
pub(super) struct NeighbourQueues {
    queues: Vec<NeighbourQueue>,
    /// Packets the queues hold at most, together (csma.c
    /// MAX_QUEUED_PACKETS, one `packet_memb` pool).
    capacity: usize,
    /// Neighbours that can have packets queued at once.
    neighbours: usize,
    /// Transmit timers armed so far.
    timers_armed: u64,
}

impl NeighbourQueues {
    pub fn new(capacity: usize, neighbours: usize) -> Self {
        NeighbourQueues {
            queues: Vec::new(),
            capacity,
            neighbours,
            timers_armed: 0,
        }
    }

    /// Packets queued, over all neighbours.
    pub fn packets(&self) -> usize {
        self.queues.iter().map(|q| q.packets.len()).sum()
    }

    /// Every packet buffer of the pool is taken.
    pub fn full(&self) -> bool {
        self.packets() >= self.capacity
    }

    /// Queue `packet` for `dst`: in its queue, or a new one if a
    /// neighbour queue is free, with a packet buffer from the shared pool.
    /// Returns the length of `dst`'s queue, or None when either is lacking
    /// (csma.c `send_packet`: MAC_TX_ERR, the packet is dropped).
    pub fn push(&mut self, dst: NodeId, packet: Pending) -> Option<usize> {
        let has_queue = self.queues.iter().any(|q| q.dst == dst);
        if (!has_queue && self.queues.len() >= self.neighbours) || self.full() {
            return None;
        }
        if !has_queue {
            self.queues.push(NeighbourQueue {
                dst,
                packets: VecDeque::new(),
                due: 0,
                armed: 0,
                armed_at: 0,
                on_clock: false,
                transmissions: 0,
            });
        }
        let q = self.get_mut(dst).expect("queue found or made above");
        q.packets.push_back(packet);
        Some(q.packets.len())
    }

    pub fn get_mut(&mut self, dst: NodeId) -> Option<&mut NeighbourQueue> {
        self.queues.iter_mut().find(|q| q.dst == dst)
    }

    /// (Re)arm, at `now`, a neighbour queue's transmit timer to expire at
    /// `at` (csma.c `ctimer_set` on `transmit_timer`); `on_clock`: it
    /// counts clock ticks (see [`NeighbourQueues::on_clock`]).
    pub fn set_timer(&mut self, dst: NodeId, now: Time, at: Time, on_clock: bool) {
        self.timers_armed += 1;
        let armed = self.timers_armed;
        if let Some(q) = self.get_mut(dst) {
            q.due = at;
            q.armed = armed;
            q.armed_at = now;
            q.on_clock = on_clock;
        }
    }

    /// Whether `dst`'s transmit timer counts clock ticks: csma's wait for
    /// the next packet or a retry, not a send begun at once.
    pub fn on_clock(&self, dst: NodeId) -> bool {
        self.queues.iter().any(|q| q.dst == dst && q.on_clock)
    }

    /// When `dst`'s transmit timer was last armed.
    pub fn armed_at(&self, dst: NodeId) -> Option<Time> {
        self.queues
            .iter()
            .find(|q| q.dst == dst)
            .map(|q| q.armed_at)
    }

    /// The queue whose timer expires first. Ties go to the timer armed
    /// last: Contiki's etimer list puts a newly armed timer at its head
    /// (etimer.c `add_timer`) and `etimer_process` posts expired timers in
    /// list order.
    pub fn next_due(&self) -> Option<(NodeId, Time)> {
        self.queues
            .iter()
            .min_by_key(|q| (q.due, Reverse(q.armed)))
            .map(|q| (q.dst, q.due))
    }

    /// The head of `dst`'s queue has left it (csma.c `free_packet`): an
    /// emptied queue is freed; otherwise its count of transmissions starts
    /// again for the next packet, tried at `next_at` (`on_clock`: as for
    /// `set_timer`).
    pub fn head_done(&mut self, dst: NodeId, now: Time, next_at: Time, on_clock: bool) {
        match self.get_mut(dst) {
            Some(q) if q.packets.is_empty() => self.queues.retain(|q| q.dst != dst),
            Some(q) => {
                q.transmissions = 0;
                self.set_timer(dst, now, next_at, on_clock);
            }
            None => {}
        }
    }
}
