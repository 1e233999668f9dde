//! Applications: what runs on top of UDP on each node.

pub mod dtls;
pub mod dtls_trace;
pub mod dtls_version;
pub mod echo;
pub mod edhoc;
pub mod frames;
pub mod periodic;
pub mod record;
pub mod sessions;

use crate::net::Udp;
use crate::timer::{Schedule, Token};
use crate::world::{Cx, Layer};
use crate::{NodeId, Time};
use record::{Record, Recorder};

/// The well-known DTLS port (CoAPs).
pub const DTLS_PORT: u16 = 5684;
/// Port of the ping-like echo service.
pub const ECHO_PORT: u16 = 7;

pub trait App {
    fn start(&mut self, cx: &mut AppCx);
    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp);
    /// A timer armed through the app's [`TimerTable`](crate::timer::TimerTable) fired.
    fn on_timer(&mut self, cx: &mut AppCx, token: Token);
    /// The run ends (out of time): record what is still under way, as
    /// failed for `why`, if it counts.
    fn on_run_end(&mut self, _cx: &mut AppCx, _why: &str) {}
}

/// A node with nothing above UDP (a pure forwarder).
pub struct Idle;

impl App for Idle {
    fn start(&mut self, _: &mut AppCx) {}
    fn on_udp(&mut self, _: &mut AppCx, _: Udp) {}
    fn on_timer(&mut self, _: &mut AppCx, _: Token) {}
}

/// An application's view: its node's clock, timers, CPU, a UDP socket, and
/// the run's recorder.
pub struct AppCx<'a> {
    cx: Cx<'a>,
    out: &'a mut Vec<Udp>,
    recorder: &'a mut Recorder,
}

impl<'a> AppCx<'a> {
    pub fn new(cx: Cx<'a>, out: &'a mut Vec<Udp>, recorder: &'a mut Recorder) -> Self {
        AppCx { cx, out, recorder }
    }

    /// Report an event of interest, now, at this node.
    pub fn record(&mut self, record: Record) {
        let (at, node) = (self.cx.now(), self.cx.node);
        self.recorder.push(at, node, record);
    }

    pub fn now(&self) -> Time {
        self.cx.now()
    }

    /// Whether this run keeps a trace (what is traced costs nothing otherwise).
    pub fn tracing(&self) -> bool {
        self.cx.w.trace.is_some()
    }

    /// A protocol row of the trace at `at`, at this node (see
    /// [`crate::trace`]); nothing when no trace is kept.
    pub fn trace(&mut self, at: Time, row: crate::trace::ProtocolRow) {
        let node = self.cx.node;
        if let Some(t) = self.cx.w.trace.as_mut() {
            t.push(row.at(at, node));
        }
    }

    /// [`Self::trace`] for a row stamped at a later moment than now (a
    /// record that leaves when the CPU has sealed it).
    pub fn trace_stamped(&mut self, at: Time, row: crate::trace::ProtocolRow) {
        let node = self.cx.node;
        if let Some(t) = self.cx.w.trace.as_mut() {
            t.push_stamped(row.at(at, node));
        }
    }

    pub fn node(&self) -> NodeId {
        self.cx.node
    }

    pub fn charge_cpu(&mut self, us: u64) {
        self.cx.charge_cpu(us);
    }

    pub fn send(&mut self, dst: NodeId, src_port: u16, dst_port: u16, payload: Vec<u8>) {
        let src = self.cx.node;
        self.out
            .push(Udp::new(src, src_port, dst, dst_port, payload));
    }
}

/// An application's timers go to the engine's queue through its [`AppCx`].
impl Schedule for AppCx<'_> {
    fn schedule(&mut self, at: Time, token: Token) {
        self.cx.set_timer(at, Layer::App, token);
    }
}
