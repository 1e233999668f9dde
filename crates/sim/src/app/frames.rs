//! A frame exchange for latency measurements: two nodes pass `frames`
//! datagrams back and forth (like the flights of a handshake), each sent
//! after a uniformly random wait within `max_wait_us` of the previous
//! one's arrival, so each frame reaches the MAC at a random phase — the
//! arrival the closed-form TSCH latency assumes. Each datagram carries its
//! index and send time; the receiver records its arrival.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::record::Record;
use super::AppCx;
use crate::net::Udp;
use crate::node::app::App;
use crate::rng::{stream, Purpose};
use crate::timer::{TimerTable, Token};
use crate::{NodeId, Time};

const PORT: u16 = 7000;

crate::timer_kinds! {
    enum Kind {
        /// Send the frame in `next`; each arming fires (the frame is taken once).
        Send,
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameParams {
    pub peer: NodeId,
    pub frames: u32,
    /// Datagram payload (≥ 12: index and send time).
    pub payload: usize,
    pub max_wait_us: Time,
    pub first_at: Time,
    /// Sends frame 0.
    pub initiator: bool,
    pub seed: u64,
    pub replication: u64,
}

pub struct FrameExchange {
    p: FrameParams,
    rng: ChaCha8Rng,
    next: Option<u32>,
    timers: TimerTable<Kind>,
}

impl FrameExchange {
    pub fn new(p: FrameParams, node: NodeId) -> Self {
        FrameExchange {
            rng: stream(p.seed, p.replication, node as u64, Purpose::App),
            next: None,
            timers: TimerTable::new(),
            p,
        }
    }

    fn schedule(&mut self, cx: &mut AppCx, index: u32, after: Time) {
        if index >= self.p.frames {
            return;
        }
        let wait = if self.p.max_wait_us == 0 {
            0
        } else {
            self.rng.random_range(0..self.p.max_wait_us)
        };
        self.next = Some(index);
        self.timers.add(cx, Kind::Send, after + wait);
    }
}

impl App<Record> for FrameExchange {
    fn start(&mut self, cx: &mut AppCx) {
        if self.p.initiator {
            let at = self.p.first_at;
            self.schedule(cx, 0, at);
        }
    }

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        if udp.dst_port != PORT || udp.payload.len() < 12 {
            return;
        }
        let index = u32::from_be_bytes(udp.payload[..4].try_into().expect("4 bytes"));
        let sent = u64::from_be_bytes(udp.payload[4..12].try_into().expect("8 bytes"));
        let now = cx.now();
        cx.record(Record::FrameDelivered {
            index,
            sent_at: sent,
        });
        self.schedule(cx, index + 1, now);
    }

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        if self.timers.fired(token) != Some(Kind::Send) {
            return;
        }
        if let Some(index) = self.next.take() {
            let mut payload = vec![0u8; self.p.payload.max(12)];
            payload[..4].copy_from_slice(&index.to_be_bytes());
            payload[4..12].copy_from_slice(&cx.now().to_be_bytes());
            cx.send(self.p.peer, PORT, PORT, payload);
        }
    }
}
