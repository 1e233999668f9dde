//! Applications: what runs on top of UDP on each node.

pub mod dtls;
pub mod echo;
pub mod frames;
pub mod periodic;

use std::any::Any;

use crate::net::Udp;
use crate::timer::{Schedule, Token};
use crate::world::{Cx, Layer};
use crate::{NodeId, Time};

/// The well-known DTLS port (CoAPs).
pub const DTLS_PORT: u16 = 5684;
/// Port of the ping-like echo service.
pub const ECHO_PORT: u16 = 7;

pub trait App {
    fn start(&mut self, cx: &mut AppCx);
    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp);
    /// A timer armed through the app's [`TimerTable`](crate::timer::TimerTable) fired.
    fn on_timer(&mut self, cx: &mut AppCx, token: Token);
    /// For the driver to read results back.
    fn as_any(&self) -> &dyn Any;
}

/// A node with nothing above UDP (a pure forwarder).
pub struct Idle;

impl App for Idle {
    fn start(&mut self, _: &mut AppCx) {}
    fn on_udp(&mut self, _: &mut AppCx, _: Udp) {}
    fn on_timer(&mut self, _: &mut AppCx, _: Token) {}
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// An application's view: its node's clock, timers, CPU, and a UDP socket.
pub struct AppCx<'a> {
    cx: Cx<'a>,
    out: &'a mut Vec<Udp>,
}

impl<'a> AppCx<'a> {
    pub fn new(cx: Cx<'a>, out: &'a mut Vec<Udp>) -> Self {
        AppCx { cx, out }
    }

    pub fn now(&self) -> Time {
        self.cx.now()
    }

    pub fn node(&self) -> NodeId {
        self.cx.node
    }

    pub fn charge_cpu(&mut self, us: u64) {
        self.cx.charge_cpu(us);
    }

    pub fn send(&mut self, dst: NodeId, src_port: u16, dst_port: u16, payload: Vec<u8>) {
        let src = self.cx.node;
        self.out.push(Udp {
            src,
            src_port,
            dst,
            dst_port,
            hop_limit: crate::net::HOP_LIMIT,
            payload,
        });
    }
}

/// An application's timers go to the engine's queue through its [`AppCx`].
impl Schedule for AppCx<'_> {
    fn schedule(&mut self, at: Time, token: Token) {
        self.cx.set_timer(at, Layer::App, token);
    }
}
