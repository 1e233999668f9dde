//! A ping-like exchange over plain UDP: the client sends `payload` bytes to
//! the echo port, the server sends them back, the client records each RTT
//! (or the loss).

use super::record::Record;
use super::{AppCx, ECHO_PORT};
use crate::net::Udp;
use crate::node::app::App;
use crate::timer::{TimerTable, Token};
use crate::{NodeId, Time};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PingParams {
    pub server: NodeId,
    pub payload: usize,
    pub count: u32,
    pub first_at: Time,
    /// A ping not answered by then counts as lost; the next one goes.
    pub timeout_us: Time,
    pub pause_us: Time,
}

const CLIENT_PORT: u16 = 49152;

crate::timer_kinds! {
    enum Kind {
        /// Send the next ping; each arming fires.
        Next,
        /// The ping under way counts as lost; re-armed by every ping, so only
        /// the latest ping's timeout is current.
        Timeout,
    }
}

pub struct PingClient {
    p: PingParams,
    seq: u64,
    sent_at: Option<Time>,
    timers: TimerTable<Kind>,
    /// Pings answered or lost so far.
    finished: u32,
}

impl PingClient {
    pub fn new(p: PingParams) -> Self {
        PingClient {
            p,
            seq: 0,
            sent_at: None,
            timers: TimerTable::new(),
            finished: 0,
        }
    }

    pub fn done(&self) -> bool {
        self.finished >= self.p.count
    }

    fn ping(&mut self, cx: &mut AppCx) {
        if self.done() {
            return;
        }
        self.seq += 1;
        let mut data = vec![0u8; self.p.payload];
        for (d, s) in data.iter_mut().zip(self.seq.to_be_bytes()) {
            *d = s;
        }
        let now = cx.now();
        self.sent_at = Some(now);
        cx.send(self.p.server, CLIENT_PORT, ECHO_PORT, data);
        self.timers.set(cx, Kind::Timeout, now + self.p.timeout_us);
    }

    fn next_after(&mut self, cx: &mut AppCx) {
        let at = cx.now() + self.p.pause_us;
        self.timers.add(cx, Kind::Next, at);
    }
}

impl App<Record> for PingClient {
    fn start(&mut self, cx: &mut AppCx) {
        let at = self.p.first_at;
        self.timers.add(cx, Kind::Next, at);
    }

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        let mut seq = [0u8; 8];
        for (s, d) in seq.iter_mut().zip(&udp.payload) {
            *s = *d;
        }
        let ours = udp.payload.len() < 8 || u64::from_be_bytes(seq) == self.seq;
        if let (true, Some(sent)) = (ours, self.sent_at) {
            self.sent_at = None;
            self.finished += 1;
            cx.record(Record::PingAnswered {
                rtt_us: cx.now() - sent,
            });
            self.next_after(cx);
        }
    }

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        match self.timers.fired(token) {
            Some(Kind::Timeout) if self.sent_at.take().is_some() => {
                self.finished += 1;
                cx.record(Record::PingLost);
                self.next_after(cx);
            }
            Some(Kind::Next) => self.ping(cx),
            Some(Kind::Timeout) | None => {}
        }
    }
}

/// Sends every datagram on the echo port back to where it came from.
pub struct EchoServer;

impl App<Record> for EchoServer {
    fn start(&mut self, _: &mut AppCx) {}

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        if udp.dst_port == ECHO_PORT {
            cx.send(udp.src, ECHO_PORT, udp.src_port, udp.payload);
        }
    }

    fn on_timer(&mut self, _: &mut AppCx, _: Token) {}
}
