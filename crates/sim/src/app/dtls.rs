//! DTLS applications: the `dtls` crate's client and server, unchanged,
//! driven in virtual time, in DTLS 1.2 or 1.3 ([`super::dtls_version`]).
//!
//! Cryptography takes CPU time on a constrained node: after every call into
//! the stack the operations it performed (its own counters) are charged at
//! the platform's cost, and what the call produced leaves the node only when
//! that computation is over — an ECDHE handshake on an MSP430 spends
//! seconds in the CPU, not on the air.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use dtls::endpoint::Version;
use dtls::{CryptoOps, Endpoint, Event, Session, Stats};
use rand_chacha::ChaCha8Rng;

use super::dtls_trace::Cursor;
use super::dtls_version::{ClientSetup, ServerSetup};
use super::record::{HandshakeRecord, Record, SlotFreed};
use super::sessions::{SlotGuard, Verdict};
use super::{AppCx, DTLS_PORT};
use crate::app::pause::{Pause, Pauses};
use crate::clock::TickClock;
use crate::net::{node_port, sockaddr, Udp};
use crate::node::app::App;
use crate::node::cpu::{Cpu, CryptoCost};
use crate::rng::{stream, Purpose};
use crate::timer::{TimerTable, Token};
use crate::{NodeId, Time};

pub(super) fn diff(now: &CryptoOps, before: &CryptoOps) -> CryptoOps {
    now.since(before)
}

crate::timer_kinds! {
    /// The timers of the DTLS client and server applications.
    pub(super) enum Kind {
        /// Release what the CPU has finished; each arming fires ([`Cpu::flush`]
        /// sends whatever is due by then).
        Send,
        /// Start the next handshake; each arming fires.
        Next,
        /// The DTLS connection's (or server's) retransmission timer; re-armed
        /// whenever the connection asks for a new deadline.
        Retransmit,
        /// The ping under way counts as lost; re-armed by every ping.
        PingTimeout,
        /// A session's holding time is over: close it.
        Release,
        /// Send the next application record of a held session.
        Data,
        /// The server's next half-open handshake or idle session times out.
        Expire,
        /// A closing client repeats its unanswered close_notify.
        CloseRepeat,
        /// The client gives the handshake up: nothing left to resend and
        /// nothing heard for `give_up_idle_us`; re-armed as that changes.
        GiveUp,
    }
}

/// The stack's retransmission deadline as the node's timer sees it.
///
/// The stack starts its timer when it builds a flight, at the time of the
/// input that caused it; the flight leaves only when the CPU has finished
/// the flight's cryptography (`ready`). A real stack starts the timer as
/// it sends (tinyDTLS's `dtls_send_multi` reads the clock after building
/// the record), so a deadline set by this input is moved on by the CPU
/// time; without this, an ECDHE flight on a slow MCU would time out before
/// it went on air.
#[derive(Debug, Default)]
pub(super) struct RetransmitDeadline {
    /// The stack's last deadline, as it gave it.
    stack: Option<Time>,
    /// When the node's timer fires for it.
    armed: Option<Time>,
}

impl RetransmitDeadline {
    /// When to fire for the stack's `deadline`, read after an input at
    /// `now` whose output leaves at `ready`; None: no timer.
    pub(super) fn update(
        &mut self,
        deadline: Option<Time>,
        now: Time,
        ready: Time,
    ) -> Option<Time> {
        if deadline != self.stack {
            self.stack = deadline;
            self.armed = deadline.map(|t| t + ready.saturating_sub(now));
        }
        self.armed
    }
}

/// What the client does once a handshake has completed.
#[derive(Debug, Clone, PartialEq)]
pub enum AfterHandshake {
    /// close_notify, pause, next handshake.
    Close,
    /// Drop the session without a word, pause, next handshake (the Cooja
    /// oracles' firmware: `dtls_hard_reset`).
    Drop,
    /// Send `count` application records of `payload` bytes, each after the
    /// previous echo came back (or `timeout_us` passed), recording RTTs; then close.
    Ping {
        payload: usize,
        count: u32,
        timeout_us: Time,
    },
    /// Keep the session and start no other handshake: a node that has
    /// joined is secured (the join storm; a failed handshake is still
    /// followed by a pause and another).
    Keep,
}

#[derive(Debug, Clone)]
pub struct ClientParams {
    pub server: NodeId,
    pub port: u16,
    pub config: ClientSetup,
    pub handshakes: u32,
    pub first_at: Time,
    pub pause: Pause,
    /// Give a handshake up once the stack has nothing left to resend and
    /// the server has sent nothing for this long, checked every second of
    /// the handshake (the Cooja oracles' firmware: 60 s); None: wait.
    pub give_up_idle_us: Option<Time>,
    pub after: AfterHandshake,
    pub cost: CryptoCost,
    pub seed: u64,
    pub replication: u64,
    /// Granularity of the node's software timers (0: exact).
    pub timer_tick_us: Time,
}

pub struct DtlsClient {
    p: ClientParams,
    clock: TickClock,
    rng: ChaCha8Rng,
    conn: Option<Box<dyn Session>>,
    cpu: Cpu,
    deadline: RetransmitDeadline,
    current: Option<HandshakeRecord>,
    crypto_before: CryptoOps,
    timers: TimerTable<Kind>,
    pings_left: u32,
    ping_sent_at: Option<Time>,
    ping_seq: u64,
    /// Connected, waiting for the server's ACK of the final flight (1.3).
    awaiting_ack: bool,
    /// Handshakes ended so far.
    finished: u32,
    /// What of the connection's messages the trace has (None: no trace).
    traced: Option<Cursor>,
    pauses: Pauses,
    /// When the handshake under way last heard the server (or began).
    last_rx: Time,
}

impl DtlsClient {
    pub fn new(mut p: ClientParams, node: NodeId) -> Self {
        let rng = stream(p.seed, p.replication, node as u64, Purpose::Dtls);
        p.config = p.config.for_node();
        let pauses = Pauses::new(p.pause, p.seed, p.replication, node);
        DtlsClient {
            clock: TickClock::new(p.timer_tick_us, p.seed, p.replication, node),
            p,
            rng,
            conn: None,
            cpu: Cpu::default(),
            deadline: RetransmitDeadline::default(),
            current: None,
            crypto_before: CryptoOps::default(),
            timers: TimerTable::new(),
            pings_left: 0,
            ping_sent_at: None,
            ping_seq: 0,
            awaiting_ack: false,
            finished: 0,
            traced: None,
            pauses,
            last_rx: 0,
        }
    }

    pub fn done(&self) -> bool {
        self.finished >= self.p.handshakes
    }

    /// Record the handshake that ended (one record per handshake).
    fn record_end(&mut self, cx: &mut AppCx, record: HandshakeRecord) {
        self.finished += 1;
        cx.record(Record::HandshakeEnded(Box::new(record)));
    }

    fn src_port(&self) -> u16 {
        // a fresh ephemeral port per handshake: a new association for the server
        49152 + (self.finished as u16 % 16384)
    }

    fn begin(&mut self, cx: &mut AppCx) {
        let now = cx.now();
        self.awaiting_ack = false;
        self.last_rx = now;
        match self.p.config.connect(&mut self.rng, now) {
            Ok(conn) => {
                if cx.tracing() {
                    self.traced = Some(Cursor::new(cx, conn.state_name(), self.p.server));
                }
                self.conn = Some(conn);
                self.crypto_before = CryptoOps::default();
                let index = self.finished;
                self.current = Some(HandshakeRecord::started(index, now));
                cx.record(Record::HandshakeStarted { index });
                self.pump(cx);
            }
            Err(e) => {
                // no connection: a handshake that fails as it starts
                let index = self.finished;
                cx.record(Record::HandshakeStarted { index });
                self.current = Some(HandshakeRecord::started(index, now));
                self.finish(cx, now, Some(e.to_string()));
            }
        }
    }

    /// After any input: charge the crypto it took, queue its output for when
    /// the CPU is done, re-arm the DTLS timer, and handle events.
    fn pump(&mut self, cx: &mut AppCx) {
        let Some(conn) = self.conn.as_mut() else {
            return;
        };
        let ops = diff(&conn.stats().crypto, &self.crypto_before);
        self.crypto_before = conn.stats().crypto;
        let cpu_us = self.p.cost.of(&ops);
        if let Some(r) = self.current.as_mut() {
            r.client_crypto_us += cpu_us;
        }
        let ready = self.cpu.run(cx, cpu_us);
        let to = sockaddr(self.p.server, self.p.port);
        let mut traced_out = Vec::new();
        while let Some(d) = conn.poll_transmit(cx.now()) {
            if let Some(r) = self.current.as_mut().filter(|r| !r.success) {
                r.datagrams.push((true, d.len()));
            }
            if self.traced.is_some() {
                traced_out.push(d.clone());
            }
            self.cpu.send_at(ready, to, d);
        }
        let now = cx.now();
        if let Some(t) = self.deadline.update(conn.poll_timeout(), now, ready) {
            let at = self.clock.round_up(t.max(ready));
            self.timers.set(cx, Kind::Retransmit, at);
        }
        let idle = conn.poll_timeout().is_none() && !conn.is_established();
        if let (true, Some(r), Some(limit)) = (idle, self.current.as_ref(), self.p.give_up_idle_us)
        {
            // checked once a second from the handshake's start, and only a
            // silence longer than the limit counts (the firmware's `>`)
            let start = r.started_at;
            let due = self.last_rx + limit + 1;
            let at = start + (due - start).div_ceil(1_000_000) * 1_000_000;
            self.timers.set(cx, Kind::GiveUp, at);
        }
        if let Some(t) = self.traced.as_mut() {
            let view = Some((conn.stats(), conn.state_name()));
            let out: Vec<&[u8]> = traced_out.iter().map(Vec::as_slice).collect();
            Cursor::advance(Some(t), cx, view, self.p.server, &out, ready);
        }
        let mut events = Vec::new();
        while let Some(e) = conn.poll_event() {
            events.push(e);
        }
        let settled = conn.peer_has_final_flight();
        let port = self.src_port();
        self.cpu.flush(cx, &mut self.timers, Kind::Send, port);
        if self.awaiting_ack && settled {
            self.awaiting_ack = false;
            self.connected(cx, ready);
        }
        for e in events {
            if let (Event::Connected, Some(r)) = (&e, self.current.as_mut()) {
                r.keys_at.get_or_insert(ready);
            }
            match e {
                Event::Connected if settled => self.connected(cx, ready),
                Event::Connected => self.awaiting_ack = true,
                Event::ApplicationData(d) => self.echo_back(cx, ready, &d),
                Event::Failed(err) => {
                    if self.current.as_ref().is_some_and(|r| !r.success) {
                        self.finish(cx, ready, Some(err.to_string()));
                    }
                }
                Event::AlertReceived(_) | Event::Closed => {}
            }
        }
    }

    fn connected(&mut self, cx: &mut AppCx, at: Time) {
        let stats = self
            .conn
            .as_ref()
            .map(|c| c.stats().clone())
            .unwrap_or_default();
        if let Some(r) = self.current.as_mut() {
            r.success = true;
            r.ended_at = at;
            r.client = stats;
        }
        match self.p.after {
            AfterHandshake::Close => self.close_and_continue(cx, at),
            AfterHandshake::Drop => self.end_and_continue(cx, at, false),
            AfterHandshake::Keep => {
                if let Some(r) = self.current.take() {
                    self.record_end(cx, r);
                }
                self.p.handshakes = self.finished;
            }
            AfterHandshake::Ping { count, .. } => {
                self.pings_left = count;
                self.ping(cx);
            }
        }
    }

    fn ping(&mut self, cx: &mut AppCx) {
        let AfterHandshake::Ping {
            payload,
            timeout_us,
            ..
        } = self.p.after
        else {
            return;
        };
        if self.pings_left == 0 {
            let now = cx.now();
            return self.close_and_continue(cx, now);
        }
        self.pings_left -= 1;
        self.ping_seq += 1;
        let mut data = vec![0u8; payload];
        for (i, b) in self.ping_seq.to_be_bytes().iter().enumerate().take(payload) {
            data[i] = *b;
        }
        let now = cx.now();
        self.ping_sent_at = Some(now);
        if let Some(conn) = self.conn.as_mut() {
            if conn.send(&data).is_ok() {
                self.pump(cx);
            }
        }
        self.timers.set(cx, Kind::PingTimeout, now + timeout_us);
    }

    fn echo_back(&mut self, cx: &mut AppCx, at: Time, data: &[u8]) {
        let mut seq = [0u8; 8];
        for (i, b) in data.iter().take(8).enumerate() {
            seq[i] = *b;
        }
        let expected = data.len() < 8 || u64::from_be_bytes(seq) == self.ping_seq;
        if let (true, Some(sent)) = (expected, self.ping_sent_at.take()) {
            if let Some(r) = self.current.as_mut() {
                r.rtts_us.push(at - sent);
            }
            self.ping(cx);
        }
    }

    fn close_and_continue(&mut self, cx: &mut AppCx, at: Time) {
        self.end_and_continue(cx, at, true);
    }

    /// End the session (with a close_notify when `notify`) and go on.
    fn end_and_continue(&mut self, cx: &mut AppCx, at: Time, notify: bool) {
        if let Some(conn) = self.conn.as_mut().filter(|_| notify) {
            conn.close();
        }
        self.pump(cx);
        self.conn = None;
        if let Some(r) = self.current.take() {
            self.record_end(cx, r);
        }
        if !self.done() {
            let next = self.clock.round_up(at + self.pauses.next_us());
            self.timers.add(cx, Kind::Next, next);
        }
    }

    fn finish(&mut self, cx: &mut AppCx, at: Time, failure: Option<String>) {
        let stats = self
            .conn
            .as_ref()
            .map(|c| c.stats().clone())
            .unwrap_or_default();
        if let Some(mut r) = self.current.take() {
            r.success = false;
            r.ended_at = at;
            r.failure = failure;
            r.client = stats;
            self.record_end(cx, r);
        }
        self.conn = None;
        if !self.done() {
            let next = self.clock.round_up(at + self.pauses.next_us());
            self.timers.add(cx, Kind::Next, next);
        }
    }
}

impl App<Record> for DtlsClient {
    fn start(&mut self, cx: &mut AppCx) {
        if self.p.handshakes > 0 {
            let at = self.p.first_at;
            self.timers.add(cx, Kind::Next, at);
        }
    }

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        if udp.src != self.p.server || udp.dst_port != self.src_port() {
            return;
        }
        if let Some(r) = self.current.as_mut().filter(|r| !r.success) {
            r.datagrams.push((false, udp.payload.len()));
        }
        self.last_rx = cx.now();
        if let Some(conn) = self.conn.as_mut() {
            conn.handle_datagram(cx.now(), &udp.payload);
            if let Some(t) = self.traced.as_mut() {
                let stats = Some(conn.stats());
                Cursor::received(Some(t), cx, stats, udp.src, &udp.payload);
            }
            self.pump(cx);
        }
    }

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        match self.timers.fired(token) {
            Some(Kind::Send) => {
                let port = self.src_port();
                self.cpu.flush(cx, &mut self.timers, Kind::Send, port);
            }
            Some(Kind::Next) => self.begin(cx),
            Some(Kind::GiveUp) => {
                let now = cx.now();
                let limit = self.p.give_up_idle_us.unwrap_or(Time::MAX);
                let idle = (self.conn.as_ref())
                    .is_some_and(|c| c.poll_timeout().is_none() && !c.is_established());
                let in_progress = self.current.as_ref().is_some_and(|r| !r.success);
                if idle && in_progress && now - self.last_rx > limit {
                    let s = limit / 1_000_000;
                    self.finish(
                        cx,
                        now,
                        Some(format!(
                            "given up: nothing to resend, nothing heard for {s} s"
                        )),
                    );
                }
            }
            Some(Kind::PingTimeout) if self.ping_sent_at.take().is_some() => {
                self.ping(cx); // lost: go on with the next one
            }
            Some(Kind::Retransmit) => {
                if let Some(conn) = self.conn.as_mut() {
                    let resent = conn.stats().retransmissions;
                    conn.handle_timeout(cx.now());
                    if conn.stats().retransmissions > resent {
                        cx.record(Record::Retransmitted);
                    }
                    self.pump(cx);
                }
            }
            Some(
                Kind::PingTimeout | Kind::Release | Kind::Data | Kind::Expire | Kind::CloseRepeat,
            )
            | None => {}
        }
    }

    fn on_run_end(&mut self, cx: &mut AppCx, why: &str) {
        // a handshake under way counts as failed when the run ends
        let Some(r) = self.current.take_if(|r| !r.success) else {
            return;
        };
        let client = self
            .conn
            .as_ref()
            .map(|c| c.stats().clone())
            .unwrap_or_default();
        let record = HandshakeRecord {
            ended_at: cx.now(),
            failure: Some(why.to_string()),
            client,
            ..r
        };
        self.record_end(cx, record);
    }
}

#[derive(Debug, Clone)]
pub struct ServerParams {
    pub config: ServerSetup,
    pub cost: CryptoCost,
    /// Echo application data back (the ping server).
    pub echo: bool,
    pub seed: u64,
    pub replication: u64,
    /// Granularity of the node's software timers (0: exact).
    pub timer_tick_us: Time,
    /// A fixed table of session slots in front of the endpoint (the
    /// sessions workload); None: the endpoint's own `max_sessions` only.
    pub slots: Option<(session_table::Limits, session_table::Policy)>,
}

/// A DTLS server node over the endpoint of version `V`.
pub struct DtlsServer<V: Version> {
    server: Endpoint<V>,
    p: ServerParams,
    clock: TickClock,
    cpu: Cpu,
    deadline: RetransmitDeadline,
    crypto_before: CryptoOps,
    timers: TimerTable<Kind>,
    guard: Option<SlotGuard>,
    /// What of each session's doings the trace has (empty: no trace).
    traced: BTreeMap<SocketAddr, Cursor>,
}

impl<V: Version<Rng = ChaCha8Rng>> DtlsServer<V> {
    /// The server at `node` with `config` (`p.config`'s, in its version);
    /// `dtls_version::server_app` picks the version.
    pub fn new(
        config: std::sync::Arc<V::Config>,
        p: ServerParams,
        node: NodeId,
    ) -> Result<Self, dtls::Error> {
        let rng = stream(p.seed, p.replication, node as u64, Purpose::Dtls);
        let mut server = Endpoint::new(config, rng, 0)?;
        let guard = (p.slots).map(|(limits, policy)| SlotGuard::new(limits, policy, &mut server));
        Ok(DtlsServer {
            server,
            clock: TickClock::new(p.timer_tick_us, p.seed, p.replication, node),
            cpu: Cpu::default(),
            deadline: RetransmitDeadline::default(),
            crypto_before: CryptoOps::default(),
            timers: TimerTable::new(),
            guard,
            traced: BTreeMap::new(),
            p,
        })
    }

    /// Operations of the endpoint and every session so far.
    fn crypto_total(&self) -> CryptoOps {
        self.server.crypto_total()
    }

    fn pump(&mut self, cx: &mut AppCx) {
        let total = self.crypto_total();
        let ops = diff(&total, &self.crypto_before);
        self.crypto_before = total;
        let ready = self.cpu.run(cx, self.p.cost.of(&ops));
        let mut traced_out = Vec::new();
        while let Some(t) = self.server.poll_transmit(cx.now()) {
            if cx.tracing() {
                traced_out.push((t.destination, t.payload.clone()));
            }
            self.cpu.send_at(ready, t.destination, t.payload);
        }
        let mut echoes = Vec::new();
        // sessions the endpoint ended, and how (it forgets them at once)
        let mut ended = Vec::new();
        while let Some((peer, e)) = self.server.poll_event() {
            match e {
                Event::ApplicationData(d) if self.p.echo => echoes.push((peer, d)),
                Event::Closed => ended.push((peer, SlotFreed::Closed)),
                Event::Failed(_) => ended.push((peer, SlotFreed::Failed)),
                _ => {}
            }
        }
        if cx.tracing() {
            self.trace_sent(cx, &traced_out, ready);
            self.trace_ended(cx, &ended);
        }
        for (peer, d) in echoes {
            if self.server.send(peer, &d).is_ok() {
                let total = self.crypto_total();
                let ops = diff(&total, &self.crypto_before);
                self.crypto_before = total;
                let ready = self.cpu.run(cx, self.p.cost.of(&ops));
                while let Some(t) = self.server.poll_transmit(cx.now()) {
                    if cx.tracing() {
                        self.trace_sent(cx, &[(t.destination, t.payload.clone())], ready);
                    }
                    self.cpu.send_at(ready, t.destination, t.payload);
                }
            }
        }
        let now = cx.now();
        if let Some(t) = self.deadline.update(self.server.poll_timeout(), now, ready) {
            let at = self.clock.round_up(t.max(ready));
            self.timers.set(cx, Kind::Retransmit, at);
        }
        self.cpu.flush(cx, &mut self.timers, Kind::Send, DTLS_PORT);
        if let Some(guard) = self.guard.as_mut() {
            guard.sync(cx, &mut self.server, &ended);
            if let Some(at) = guard.next_expiry() {
                let at = self.clock.round_up(at);
                self.timers.set(cx, Kind::Expire, at);
            }
        }
    }
}

/// The server's sessions to the trace (see [`Cursor`]).
impl<V: Version<Rng = ChaCha8Rng>> DtlsServer<V> {
    /// Rows for datagrams sent, and before them each session's new state
    /// and resent flight; a session not seen before starts its cursor.
    fn trace_sent(&mut self, cx: &mut AppCx, sent: &[(SocketAddr, Vec<u8>)], at: Time) {
        let peers: Vec<SocketAddr> = self.server.peers().copied().collect();
        for peer in peers {
            let node = node_port(&peer).0;
            let cursor = self.traced.entry(peer).or_default();
            let out: Vec<&[u8]> = sent
                .iter()
                .filter(|(to, _)| *to == peer)
                .map(|(_, d)| d.as_slice())
                .collect();
            let view = session_view(&self.server, &peer);
            Cursor::advance(Some(cursor), cx, view, node, &out, at);
        }
        // what no session sent (a HelloVerifyRequest, a refusal)
        for (to, d) in sent {
            if session_view(&self.server, to).is_none() {
                Cursor::advance(None, cx, None, node_port(to).0, &[d.as_slice()], at);
            }
        }
    }

    /// Sessions the endpoint ended and forgot: their last state.
    fn trace_ended(&mut self, cx: &mut AppCx, ended: &[(SocketAddr, SlotFreed)]) {
        for (peer, why) in ended {
            if let Some(cursor) = self.traced.remove(peer) {
                let state = match why {
                    SlotFreed::Closed => "Closed",
                    _ => "Failed",
                };
                cursor.ended(cx, state, node_port(peer).0);
            }
        }
        let server = &self.server;
        self.traced.retain(|peer, _| server.session(peer).is_some());
    }

    /// Rows for one datagram received from `from`.
    fn trace_received(&mut self, cx: &mut AppCx, from: SocketAddr, datagram: &[u8]) {
        let view = session_view(&self.server, &from).map(|(stats, _)| stats);
        let node = node_port(&from).0;
        // a session this datagram created: its state row follows its rows
        let cursor = view.map(|_| self.traced.entry(from).or_default());
        Cursor::received(cursor, cx, view, node, datagram);
    }
}

/// The session with `peer`, as a trace sees it: what it counted and the
/// state it is in (None: the endpoint holds no session there).
fn session_view<'a, V: Version>(
    server: &'a Endpoint<V>,
    peer: &SocketAddr,
) -> Option<(&'a Stats, &'static str)> {
    server.session(peer).map(|c| (c.stats(), c.state_name()))
}

impl<V: Version<Rng = ChaCha8Rng>> App<Record> for DtlsServer<V> {
    fn start(&mut self, _: &mut AppCx) {}

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        if udp.dst_port != DTLS_PORT {
            return;
        }
        let from = sockaddr(udp.src, udp.src_port);
        if let Some(guard) = self.guard.as_mut() {
            match guard.admit(cx, &self.server, from, &udp.payload) {
                Verdict::Pass => {}
                Verdict::Refuse(alert) => {
                    cx.send(udp.src, DTLS_PORT, udp.src_port, alert);
                    return;
                }
                // its close_notify leaves with this datagram's answer
                Verdict::Evict(victim) => self.server.close(victim),
            }
        }
        self.server.handle_datagram(cx.now(), from, &udp.payload);
        if cx.tracing() {
            self.trace_received(cx, from, &udp.payload);
        }
        self.pump(cx);
    }

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        match self.timers.fired(token) {
            Some(Kind::Send) => self.cpu.flush(cx, &mut self.timers, Kind::Send, DTLS_PORT),
            Some(Kind::Retransmit) => {
                self.server.handle_timeout(cx.now());
                self.pump(cx);
            }
            Some(Kind::Expire) => {
                let gone = self.guard.as_mut().map(|g| g.expire(cx));
                for peer in gone.unwrap_or_default() {
                    self.server.close(peer);
                }
                self.pump(cx);
            }
            // a server neither starts handshakes nor pings
            Some(
                Kind::Next
                | Kind::PingTimeout
                | Kind::Release
                | Kind::Data
                | Kind::CloseRepeat
                | Kind::GiveUp,
            )
            | None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RetransmitDeadline;

    #[test]
    fn a_deadline_set_by_an_input_starts_when_its_flight_leaves_the_cpu() {
        let mut d = RetransmitDeadline::default();
        // input at 10 s, 1 s timer, 0.6 s of ECDH before the flight leaves
        assert_eq!(
            d.update(Some(11_000_000), 10_000_000, 10_600_000),
            Some(11_600_000)
        );
        // a later input that leaves the stack's deadline alone keeps the armed time
        assert_eq!(
            d.update(Some(11_000_000), 10_700_000, 10_900_000),
            Some(11_600_000)
        );
        // no CPU time: the stack's deadline as it is
        assert_eq!(
            d.update(Some(13_600_000), 11_600_000, 11_600_000),
            Some(13_600_000)
        );
        assert_eq!(d.update(None, 12_000_000, 12_000_000), None);
    }
}
