//! Periodic reporting, the traffic of a monitoring network: every node but
//! the sink sends a datagram to the sink every `interval_us`, from a random
//! phase; the sink counts what arrives and how late.

use rand::RngExt;

use super::record::Record;
use super::AppCx;
use crate::net::Udp;
use crate::node::app::App;
use crate::rng::{stream, Purpose};
use crate::timer::{TimerTable, Token};
use crate::{NodeId, Time};

const PORT: u16 = 7001;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReportParams {
    pub sink: NodeId,
    pub interval_us: Time,
    /// Datagram payload (≥ 8: the send time).
    pub payload: usize,
    pub seed: u64,
    pub replication: u64,
}

pub struct Reporter {
    p: ReportParams,
    timers: TimerTable<Kind>,
}

crate::timer_kinds! {
    enum Kind {
        /// Send the next report (one pending at a time).
        Report,
    }
}

impl Reporter {
    pub fn new(p: ReportParams) -> Self {
        Reporter {
            p,
            timers: TimerTable::new(),
        }
    }
}

impl App<Record> for Reporter {
    fn start(&mut self, cx: &mut AppCx) {
        let node = cx.node() as u64;
        let mut rng = stream(self.p.seed, self.p.replication, node, Purpose::App);
        let phase = rng.random_range(0..self.p.interval_us.max(1));
        self.timers.set(cx, Kind::Report, phase);
    }

    fn on_udp(&mut self, _: &mut AppCx, _: Udp) {}

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        if self.timers.fired(token).is_none() {
            return;
        }
        let now = cx.now();
        let mut payload = vec![0u8; self.p.payload.max(8)];
        payload[..8].copy_from_slice(&now.to_be_bytes());
        cx.send(self.p.sink, PORT, PORT, payload);
        cx.record(Record::ReportSent);
        self.timers.set(cx, Kind::Report, now + self.p.interval_us);
    }
}

/// The sink: records every report it receives.
#[derive(Default)]
pub struct Sink;

impl App<Record> for Sink {
    fn start(&mut self, _: &mut AppCx) {}

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        if udp.dst_port == PORT && udp.payload.len() >= 8 {
            let sent = u64::from_be_bytes(udp.payload[..8].try_into().expect("8 bytes"));
            cx.record(Record::ReportReceived {
                from: udp.src,
                sent_at: sent,
            });
        }
    }

    fn on_timer(&mut self, _: &mut AppCx, _: Token) {}
}
