//! What runs on a node above UDP, as the engine sees it: an [`App`] driven
//! through its [`AppCx`] (its node's clock, timers, CPU, a UDP socket), and
//! the run's [`Recorder`] of what the applications report.
//!
//! What they report (`R`) is the applications' own vocabulary
//! ([`crate::app::record`]); the engine keeps it without reading it.

use crate::net::Udp;
use crate::timer::{Schedule, Token};
use crate::trace::ProtocolRow;
use crate::world::{Cx, Layer};
use crate::{NodeId, Time};

/// An application reporting `R`s.
pub trait App<R> {
    fn start(&mut self, cx: &mut AppCx<R>);
    fn on_udp(&mut self, cx: &mut AppCx<R>, udp: Udp);
    /// A timer armed through the app's [`TimerTable`](crate::timer::TimerTable) fired.
    fn on_timer(&mut self, cx: &mut AppCx<R>, token: Token);
    /// The run ends (out of time): record what is still under way, as
    /// failed for `why`, if it counts.
    fn on_run_end(&mut self, _cx: &mut AppCx<R>, _why: &str) {}
    /// An application held back at start may begin now (the sessions
    /// workload's join after the parent); others ignore it.
    fn release(&mut self, _cx: &mut AppCx<R>) {}
    /// The join rate (bytes per second) this node's own join was given,
    /// which it enforces as a join proxy: a CoJP pledge's Join Response
    /// carries it (RFC 9031's Configuration). None: none given (not
    /// joined yet, no such parameter, or not a CoJP join).
    fn configured_join_rate(&self) -> Option<f64> {
        None
    }
}

/// A node with nothing above UDP (a pure forwarder).
pub struct Idle;

impl<R> App<R> for Idle {
    fn start(&mut self, _: &mut AppCx<R>) {}
    fn on_udp(&mut self, _: &mut AppCx<R>, _: Udp) {}
    fn on_timer(&mut self, _: &mut AppCx<R>, _: Token) {}
}

/// An application's view: its node's clock, timers, CPU, a UDP socket, and
/// the run's recorder.
pub struct AppCx<'a, R> {
    cx: Cx<'a>,
    out: &'a mut Vec<Udp>,
    recorder: &'a mut Recorder<R>,
    /// What the timers armed through this context are tagged with (see
    /// [`Self::set_timer_tag`]).
    tag: u32,
}

impl<'a, R> AppCx<'a, R> {
    pub fn new(cx: Cx<'a>, out: &'a mut Vec<Udp>, recorder: &'a mut Recorder<R>) -> Self {
        AppCx {
            cx,
            out,
            recorder,
            tag: 0,
        }
    }

    /// Tag the timers armed from now on with `tag` (returns the tag it
    /// replaces): an application that restarts another (a server that goes
    /// down and comes back) tells its new life's timers from the armings
    /// of the life it threw away, which still fire ([`Token::tag`]).
    pub fn set_timer_tag(&mut self, tag: u32) -> u32 {
        std::mem::replace(&mut self.tag, tag)
    }

    /// Report an event of interest, now, at this node.
    pub fn record(&mut self, record: R) {
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
    pub fn trace(&mut self, at: Time, row: ProtocolRow) {
        let node = self.cx.node;
        if let Some(t) = self.cx.w.trace.as_mut() {
            t.push(row.at(at, node));
        }
    }

    /// [`Self::trace`] for a row stamped at a later moment than now (a
    /// record that leaves when the CPU has sealed it).
    pub fn trace_stamped(&mut self, at: Time, row: ProtocolRow) {
        let node = self.cx.node;
        if let Some(t) = self.cx.w.trace.as_mut() {
            t.push_stamped(row.at(at, node));
        }
    }

    pub fn node(&self) -> NodeId {
        self.cx.node
    }

    /// The neighbour whose Enhanced Beacon this node last associated on
    /// (TSCH formation; None without it or before): a pledge's join proxy.
    pub fn synced_on(&self) -> Option<NodeId> {
        self.cx.synced_on()
    }

    pub fn charge_cpu(&mut self, us: u64) {
        self.cx.charge_cpu(us);
    }

    pub fn send(&mut self, dst: NodeId, src_port: u16, dst_port: u16, payload: Vec<u8>) {
        let src = self.cx.node;
        self.out
            .push(Udp::new(src, src_port, dst, dst_port, payload));
    }

    /// Send to the neighbour `dst`'s link-local address, from this node's.
    pub fn send_on_link(&mut self, dst: NodeId, src_port: u16, dst_port: u16, payload: Vec<u8>) {
        let src = self.cx.node;
        self.out
            .push(Udp::on_link(src, src_port, dst, dst_port, payload));
    }
}

/// An application's timers go to the engine's queue through its [`AppCx`].
impl<R> Schedule for AppCx<'_, R> {
    fn schedule(&mut self, at: Time, token: Token) {
        self.cx.set_timer(at, Layer::App, token.tagged(self.tag));
    }
}

/// A record, where and when it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry<R> {
    pub at: Time,
    pub node: NodeId,
    pub record: R,
}

/// Every record of a run, in the order the events happened.
#[derive(Debug)]
pub struct Recorder<R> {
    entries: Vec<Entry<R>>,
}

impl<R> Default for Recorder<R> {
    fn default() -> Self {
        Recorder {
            entries: Vec::new(),
        }
    }
}

impl<R> Recorder<R> {
    pub fn push(&mut self, at: Time, node: NodeId, record: R) {
        self.entries.push(Entry { at, node, record });
    }

    pub fn entries(&self) -> &[Entry<R>] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many records match `f`.
    pub fn count(&self, f: impl Fn(&R) -> bool) -> usize {
        self.entries.iter().filter(|e| f(&e.record)).count()
    }
}
