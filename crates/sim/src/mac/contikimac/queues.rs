//! Contiki 3.0 csma's packet queues as ContikiMAC sees them (csma.c
//! `struct neighbor_queue`, `send_packet`, `packet_sent`, `free_packet`):
//! one queue per neighbour, at most `neighbours` of them at once, all
//! drawing from one pool of `capacity` packets; each queue counts its
//! transmissions and has its own csma timer (here: the time it is due).

use std::collections::VecDeque;

use crate::{NodeId, Time};

/// What one send of the RDC came to (contikimac.c `send_packet`'s return).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// MAC_TX_OK: a copy was acknowledged.
    Ok,
    /// MAC_TX_NOACK: the train ended unanswered.
    NoAck,
    /// MAC_TX_COLLISION: the channel was busy, or another frame was heard.
    Collision,
}

/// What csma does next with the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Try the head again after a backoff of exponent `exponent`.
    Retry { exponent: u32 },
    /// The head was given up after its last transmission; `more` packets wait.
    Dropped { more: bool },
    /// The head was sent; `more` packets wait.
    Freed { more: bool },
}

/// csma.c CSMA_MAX_BACKOFF_EXPONENT (line 70).
const MAX_BACKOFF_EXPONENT: u32 = 3;

struct Packet {
    payload: Vec<u8>,
    seq: u8,
    /// The frame as created and secured for its first train (it keeps its
    /// frame-pending bit on every retry: PACKETBUF_ATTR_IS_CREATED_AND_SECURED).
    built: Option<(Vec<u8>, bool)>,
}

struct Queue {
    to: NodeId,
    packets: VecDeque<Packet>,
    transmissions: u32,
    due: Option<Time>,
    /// Its timer counts clock ticks (csma.c `free_packet`'s and
    /// `packet_sent`'s waits), not one set to expire at once.
    on_clock: bool,
}

pub struct Queues {
    queues: Vec<Queue>,
    capacity: usize,
    neighbours: usize,
}

impl Queues {
    pub fn new(capacity: usize, neighbours: usize) -> Self {
        Queues {
            queues: Vec::new(),
            capacity,
            neighbours,
        }
    }

    pub fn len(&self) -> usize {
        self.queues.iter().map(|q| q.packets.len()).sum()
    }

    pub fn free(&self) -> usize {
        self.capacity.saturating_sub(self.len())
    }

    fn get(&mut self, to: NodeId) -> Option<&mut Queue> {
        self.queues.iter_mut().find(|q| q.to == to)
    }

    /// Queue a payload; None when the pool or the neighbour table is full
    /// (MAC_TX_ERR), else whether it is the first of its queue.
    pub fn push(&mut self, to: NodeId, payload: Vec<u8>, seq: u8) -> Option<bool> {
        if self.len() >= self.capacity {
            return None;
        }
        if self.get(to).is_none() {
            if self.queues.len() >= self.neighbours {
                return None;
            }
            self.queues.push(Queue {
                to,
                packets: VecDeque::new(),
                transmissions: 0,
                due: None,
                on_clock: false,
            });
        }
        let q = self.get(to).expect("just made");
        q.packets.push_back(Packet {
            payload,
            seq,
            built: None,
        });
        Some(q.packets.len() == 1)
    }

    /// Arm `to`'s csma timer to expire at `at`; `on_clock`: it counts
    /// clock ticks (see [`Queues::clock_due_now`]).
    pub fn set_due(&mut self, to: NodeId, at: Time, on_clock: bool) {
        if let Some(q) = self.get(to) {
            q.due = Some(at);
            q.on_clock = on_clock;
        }
    }

    /// A neighbour whose timer counting clock ticks expires exactly at `now`.
    pub fn clock_due_now(&self, now: Time) -> Option<NodeId> {
        (self.queues.iter())
            .find(|q| q.on_clock && q.due == Some(now) && !q.packets.is_empty())
            .map(|q| q.to)
    }

    /// The neighbour whose timer expired first by `now` (its timer is spent).
    pub fn due(&mut self, now: Time) -> Option<NodeId> {
        let q = (self.queues.iter_mut())
            .filter(|q| q.due.is_some_and(|d| d <= now) && !q.packets.is_empty())
            .min_by_key(|q| q.due)?;
        q.due = None;
        Some(q.to)
    }

    /// Create every frame of `to`'s queue not yet created, with
    /// `make(payload, seq, pending)` (pending: another packet follows it).
    pub fn build(&mut self, to: NodeId, mut make: impl FnMut(Vec<u8>, u8, bool) -> Vec<u8>) {
        let Some(q) = self.get(to) else { return };
        let n = q.packets.len();
        for (i, p) in q.packets.iter_mut().enumerate() {
            if p.built.is_none() {
                let pending = i + 1 < n;
                p.built = Some((make(p.payload.clone(), p.seq, pending), pending));
            }
        }
    }

    /// The head of `to`'s queue as created: frame, sequence number, pending bit.
    pub fn head_frame(&self, to: NodeId) -> Option<(Vec<u8>, u8, bool)> {
        let q = self.queues.iter().find(|q| q.to == to)?;
        let p = q.packets.front()?;
        let (frame, pending) = p.built.clone()?;
        Some((frame, p.seq, pending))
    }

    /// csma.c `packet_sent` for the head of `to`'s queue.
    pub fn sent(&mut self, to: NodeId, outcome: Outcome, max_transmissions: u32) -> Next {
        let Some(q) = self.get(to) else {
            return Next::Freed { more: false };
        };
        let give_up = match outcome {
            Outcome::Ok => false,
            Outcome::NoAck => {
                q.transmissions += 1;
                q.transmissions >= max_transmissions
            }
            // counted in `collisions`, not `transmissions`
            Outcome::Collision => false,
        };
        if outcome != Outcome::Ok && !give_up {
            return Next::Retry {
                exponent: q.transmissions.min(MAX_BACKOFF_EXPONENT),
            };
        }
        // free_packet
        q.packets.pop_front();
        q.transmissions = 0;
        let more = !q.packets.is_empty();
        if !more {
            self.queues.retain(|q| q.to != to);
        }
        if give_up {
            Next::Dropped { more }
        } else {
            Next::Freed { more }
        }
    }
}
