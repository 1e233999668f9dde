//! A join server that goes down and comes back (`sessions.server_down_s`):
//! the DTLS server, EDHOC responder or CoJP JRC behind the border router
//! crashes or is unplugged for a while. Written once, around whichever
//! server application the workload runs, at the one place every datagram
//! and timer of the server node's application passes.
//!
//! While it is down the server hears nothing and sends nothing: a datagram
//! reaching it is dropped and counted ([`Record::ServerDownDrop`]); the
//! network under it (the border router's MAC, RPL, its beacons) keeps
//! running. Its crash throws its state away: half-open and established
//! DTLS or EDHOC sessions, the cookie secret, the slot table, CoAP's
//! deduplication cache (RFC 7252 §4.5 keeps it for EXCHANGE_LIFETIME in
//! memory), and whatever answers its CPU had not sent yet. It comes back as
//! a server just started, built anew from the scenario ([`Rebuild`]):
//! what it was provisioned with (its PSKs and credentials, the JRC's
//! network keys) is the same, and the randomness a restarted process draws
//! is fresh.
//!
//! What a JRC must keep across a reboot (RFC 9031's OSCORE persistency
//! rule, as recalled, its text not readable from this machine: the mutable
//! parts of each pledge's OSCORE context, its Sender Sequence Number by the
//! technique of RFC 8613 Appendix B.1.1, and its Replay Window, written to
//! persistent memory) has no counterpart here: the JRC of `app::cojp`
//! answers every well-formed Join Request and keeps no replay window, so
//! there is nothing of it to lose. The pledges keep their own sequence
//! numbers (they do not reboot). A retransmitted request the JRC had
//! answered before it crashed is answered again after it comes back, where
//! a JRC keeping its replay window would refuse it as a replay and the
//! pledge would try again with a new request after its pause.
//!
//! The armings of a life thrown away still fire (events stay in the
//! queue): each life tags its timers ([`AppCx::set_timer_tag`]) and a
//! firing of another life's is dropped.

use crate::app::record::Record;
use crate::app::AppCx;
use crate::net::Udp;
use crate::node::app::App;
use crate::run::RunError;
use crate::timer::{TimerTable, Token};
use crate::Time;

/// Builds the server anew for its `life`-th life (2 and on: the first is
/// built with the workload's other applications, where a setting that
/// cannot be built is refused; a later life is built from the same).
pub(crate) type Rebuild = Box<dyn Fn(u32) -> Result<Box<dyn App<Record>>, RunError>>;

crate::timer_kinds! {
    /// The outage's own timers.
    enum Kind {
        /// A window begins: the server goes down.
        Down,
        /// A window ends: the server comes back.
        Up,
    }
}

/// The tag of the wrapper's own timers; each life of the server tags its
/// own with its number, from 1.
const OWN: u32 = 0;

/// A server that is down in `windows` (virtual time, from, to).
pub(crate) struct ServerOutage {
    windows: Vec<(Time, Time)>,
    /// The next window to begin or end.
    next: usize,
    rebuild: Rebuild,
    /// None while down.
    server: Option<Box<dyn App<Record>>>,
    /// The first life, until it starts (at power-on, or when a window
    /// that began at power-on ends).
    first: Option<Box<dyn App<Record>>>,
    life: u32,
    /// A DTLS 1.2 server with a slot table: its table empties when it
    /// goes down (its occupancy is read from the records).
    slot_table: bool,
    timers: TimerTable<Kind>,
}

impl ServerOutage {
    pub(crate) fn new(
        windows: Vec<(Time, Time)>,
        first: Box<dyn App<Record>>,
        rebuild: Rebuild,
        slot_table: bool,
    ) -> Self {
        ServerOutage {
            windows,
            next: 0,
            rebuild,
            server: None,
            first: Some(first),
            life: 0,
            slot_table,
            timers: TimerTable::new(),
        }
    }

    /// Run `f` on the server of this life, its timers tagged with it.
    fn with_server(&mut self, cx: &mut AppCx, f: impl FnOnce(&mut dyn App<Record>, &mut AppCx)) {
        if let Some(server) = self.server.as_mut() {
            let before = cx.set_timer_tag(self.life);
            f(server.as_mut(), cx);
            cx.set_timer_tag(before);
        }
    }

    /// A new life of the server, started now. (Were a later life's
    /// settings refused, which the first life's passing rules out, the
    /// server would stay down.)
    fn come_up(&mut self, cx: &mut AppCx) {
        self.life += 1;
        self.server = match self.first.take() {
            Some(first) => Some(first),
            None => (self.rebuild)(self.life).ok(),
        };
        self.with_server(cx, |s, cx| s.start(cx));
    }

    /// Arm the next edge: the end of the window under way, or the start
    /// of the next.
    fn arm(&mut self, cx: &mut AppCx) {
        let Some(&(from, to)) = self.windows.get(self.next) else {
            return;
        };
        let before = cx.set_timer_tag(OWN);
        if self.server.is_some() {
            self.timers.set(cx, Kind::Down, from.max(cx.now()));
        } else {
            self.timers.set(cx, Kind::Up, to.max(cx.now()));
        }
        cx.set_timer_tag(before);
    }
}

impl App<Record> for ServerOutage {
    fn start(&mut self, cx: &mut AppCx) {
        let now = cx.now();
        // down from power-on: the first life starts when the window ends
        if self.windows.first().is_some_and(|&(from, _)| from <= now) {
            cx.record(Record::ServerDown);
        } else {
            self.come_up(cx);
        }
        self.arm(cx);
    }

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        if self.server.is_none() {
            cx.record(Record::ServerDownDrop { from: udp.src });
            return;
        }
        self.with_server(cx, |s, cx| s.on_udp(cx, udp));
    }

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        if token.tag() != OWN {
            if token.tag() == self.life {
                self.with_server(cx, |s, cx| s.on_timer(cx, token));
            }
            return; // an arming of a life thrown away
        }
        match self.timers.fired(token) {
            Some(Kind::Down) if self.server.is_some() => {
                self.server = None;
                cx.record(Record::ServerDown);
                if self.slot_table {
                    cx.record(Record::SlotsTaken { taken: 0 });
                }
            }
            Some(Kind::Up) if self.server.is_none() => {
                self.next += 1;
                cx.record(Record::ServerUp);
                self.come_up(cx);
            }
            _ => return,
        }
        self.arm(cx);
    }

    fn on_run_end(&mut self, cx: &mut AppCx, why: &str) {
        self.with_server(cx, |s, cx| s.on_run_end(cx, why));
    }

    fn release(&mut self, cx: &mut AppCx) {
        self.with_server(cx, |s, cx| s.release(cx));
    }
}
