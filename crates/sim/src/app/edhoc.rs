//! EDHOC applications: the `edhoc` crate's initiator (the CoAP client) and
//! responder (the CoAP server), carried over CoAP as RFC 9528 appendix A.2
//! describes, in virtual time:
//!
//! - request 1: POST /.well-known/edhoc, payload CBOR `true` then message_1;
//! - its piggybacked response, 2.04 Changed: message_2;
//! - request 2: POST /.well-known/edhoc, payload C_R then message_3;
//! - its piggybacked response, 2.04 Changed, empty: the handshake is over
//!   for the client (the server's keys were ready when it answered).
//!
//! Through a join proxy ([`super::join_proxy`]) the initiator asks its
//! neighbour on the link with Proxy-Scheme and Uri-Host, and the responder
//! tells its initiators apart by the C_R it gives each (the shortest not
//! in use, RFC 9528 section 3.3.2) rather than by their address, which is
//! the proxy's.
//!
//! Both requests are Confirmable: CoAP's retransmission (RFC 7252 section
//! 4.2, the `coap` crate) is EDHOC's reliability layer, and the server
//! answers a duplicate with the response it cached (section 4.5). As in
//! the DTLS applications, the crypto each party performed is charged at
//! the platform's cost and its output leaves the node when the CPU is done.

use coap::message::{code, content_format, option, uint, Message, Type};
use coap::reliability::{Outcome, Params, Requester};
use dtls::CryptoOps;
use rand::{Rng, RngExt};
use rand_chacha::ChaCha8Rng;

use super::coap_server::{CoapServer, Incoming};
use super::dtls::Kind;
use super::join_proxy::{for_join_proxy, EDHOC_HOST, JOIN_PORT};
use super::record::{HandshakeRecord, Record};
use super::AppCx;
use crate::app::pause::{Pause, Pauses};
use crate::clock::TickClock;
use crate::net::{sockaddr, sockaddr_on_link, Udp};
use crate::node::app::App;
use crate::node::cpu::{Cpu, CryptoCost};
use crate::rng::{stream, Purpose};
use crate::timer::{TimerTable, Token};
use crate::trace::ProtocolRow;
use crate::{NodeId, Time};

/// The CoAP port (RFC 7252 section 6.1).
pub const COAP_PORT: u16 = 5683;
/// The client's source port.
const CLIENT_PORT: u16 = 49152;
/// The EDHOC resource (RFC 9528 section 10.10).
const WELL_KNOWN: &[u8] = b".well-known";
const EDHOC: &[u8] = b"edhoc";
/// CBOR `true`: the prefix of a request carrying message_1 (RFC 9528 appendix A.2).
const CBOR_TRUE: u8 = 0xf5;

/// An EDHOC run's settings: the protocol's and CoAP's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EdhocSetup {
    pub edhoc: edhoc::Config,
    pub coap: Params,
    /// Token length (RFC 7252 section 5.3.1), 0 to 8 bytes.
    pub token_bytes: usize,
}

#[derive(Debug, Clone)]
pub struct EdhocClientParams {
    pub server: NodeId,
    /// The neighbour the initiator joins through, its join proxy, asked
    /// on the link with the proxy options (the lake-authz draft's
    /// appendix "Use with Constrained Join Protocol (CoJP)": Proxy-Scheme
    /// "coap", Uri-Host "ake-authz.arpa"); the server itself when it is
    /// the neighbour. None: requests routed to the server.
    pub proxy: Option<NodeId>,
    pub setup: EdhocSetup,
    pub handshakes: u32,
    pub first_at: Time,
    pub pause: Pause,
    /// Stop after the first handshake that succeeds (a join; a failed one
    /// is still followed by a pause and another).
    pub until_success: bool,
    pub cost: CryptoCost,
    pub seed: u64,
    pub replication: u64,
    pub timer_tick_us: Time,
}

/// The crypto an EDHOC party performed, in the simulator's counters
/// (P-256 key generation and ECDH are one scalar multiplication each).
fn crypto_ops(o: &edhoc::Ops) -> CryptoOps {
    CryptoOps {
        aes_blocks: o.aes_blocks,
        sha256_compressions: o.sha256_compressions,
        ecdh_ops: o.p256_ecdh,
        ..CryptoOps::default()
    }
}

fn post(message_id: u16, token: &[u8], payload: Vec<u8>) -> Message {
    Message::new(Type::Confirmable, code::POST, message_id, token)
        .with_option(option::URI_PATH, WELL_KNOWN.to_vec())
        .with_option(option::URI_PATH, EDHOC.to_vec())
        .with_option(
            option::CONTENT_FORMAT,
            uint(u32::from(content_format::CID_EDHOC_CBOR_SEQ)),
        )
        .with_payload(payload)
}

/// A CoAP message to the trace: its type and code (RFC 7252 section 3),
/// Message ID in the `seq` column. `kind` is "tx", "rx" or "retransmit".
fn coap_row(
    kind: &'static str,
    datagram: &[u8],
    peer: NodeId,
    outcome: &'static str,
) -> ProtocolRow {
    let (message, seq) = match Message::parse(datagram) {
        Ok(m) => {
            let name = match (m.ty, m.code) {
                (Type::Confirmable, code::POST) => "CON POST",
                (Type::Acknowledgement, code::CHANGED) => "ACK 2.04 Changed",
                (Type::Acknowledgement, code::BAD_REQUEST) => "ACK 4.00 Bad Request",
                (Type::Confirmable, _) => "CON",
                (Type::NonConfirmable, _) => "NON",
                (Type::Acknowledgement, _) => "ACK",
                (Type::Reset, _) => "RST",
            };
            (name, Some(u64::from(m.message_id)))
        }
        Err(_) => ("", None),
    };
    ProtocolRow {
        layer: "coap",
        kind,
        message,
        bytes: Some(datagram.len() as u64),
        peer: Some(peer),
        outcome,
        epoch: None,
        seq,
    }
}

/// An EDHOC message to the trace ("message_1" … "message_3", RFC 9528
/// section 5), with its own length (without the CoAP payload's prefix).
fn edhoc_row(
    kind: &'static str,
    message: &'static str,
    bytes: usize,
    peer: NodeId,
    outcome: &'static str,
) -> ProtocolRow {
    ProtocolRow {
        layer: "edhoc",
        kind,
        message,
        bytes: Some(bytes as u64),
        peer: Some(peer),
        outcome,
        epoch: None,
        seq: None,
    }
}

enum Step {
    /// message_1 sent, waiting for message_2.
    AwaitM2(edhoc::Initiator),
    /// message_3 sent, waiting for its acknowledgement.
    AwaitM3Ack,
}

pub struct EdhocClient {
    p: EdhocClientParams,
    clock: TickClock,
    rng: ChaCha8Rng,
    cpu: Cpu,
    timers: TimerTable<Kind>,
    coap: Requester,
    step: Option<Step>,
    current: Option<HandshakeRecord>,
    ops_before: edhoc::Ops,
    message_id: u16,
    finished: u32,
    /// The Message ID the trace saw leave last: its next copy is a
    /// retransmission.
    traced_id: Option<u16>,
    pauses: Pauses,
}

impl EdhocClient {
    pub fn new(p: EdhocClientParams, node: NodeId) -> Self {
        EdhocClient {
            pauses: Pauses::new(p.pause, p.seed, p.replication, node),
            clock: TickClock::new(p.timer_tick_us, p.seed, p.replication, node),
            rng: stream(p.seed, p.replication, node as u64, Purpose::Dtls),
            coap: Requester::new(p.setup.coap),
            p,
            cpu: Cpu::default(),
            timers: TimerTable::new(),
            step: None,
            current: None,
            ops_before: edhoc::Ops::default(),
            message_id: 0,
            finished: 0,
            traced_id: None,
        }
    }

    pub(crate) fn begin(&mut self, cx: &mut AppCx) {
        let now = cx.now();
        let index = self.finished;
        cx.record(Record::HandshakeStarted { index });
        self.current = Some(HandshakeRecord::started(index, now));
        self.coap = Requester::new(self.p.setup.coap);
        self.ops_before = edhoc::Ops::default();
        let started = edhoc::Initiator::new(self.p.setup.edhoc, self.rng.next_u64())
            .and_then(|mut i| i.message_1().map(|m1| (i, m1)));
        match started {
            Ok((initiator, m1)) => {
                let ops = initiator.ops();
                let mut payload = vec![CBOR_TRUE];
                payload.extend_from_slice(&m1);
                self.step = Some(Step::AwaitM2(initiator));
                self.send_request(cx, ops, payload, ("message_1", m1.len()));
            }
            Err(e) => self.finish(cx, Some(format!("EDHOC: {e:?}"))),
        }
    }

    /// Charge what the initiator computed since the last call, then send
    /// `payload` (carrying EDHOC's `message`: name, length) in a new
    /// Confirmable POST once the CPU is done.
    fn send_request(
        &mut self,
        cx: &mut AppCx,
        ops: edhoc::Ops,
        payload: Vec<u8>,
        message: (&'static str, usize),
    ) {
        let cpu_us = self.p.cost.of(&crypto_ops(&ops.since(&self.ops_before)));
        self.ops_before = ops;
        let ready = self.cpu.run(cx, cpu_us);
        let (name, bytes) = message;
        cx.trace_stamped(ready, edhoc_row("tx", name, bytes, self.p.server, "sent"));
        let token: Vec<u8> = (0..self.p.setup.token_bytes)
            .map(|_| self.rng.random())
            .collect();
        self.message_id = self.message_id.wrapping_add(1);
        let mut request = post(self.message_id, &token, payload);
        if self.p.proxy.is_some() {
            request = for_join_proxy(request, EDHOC_HOST);
        }
        let u: f64 = self.rng.random();
        self.coap.request(ready, &request, u);
        let keys_ready = matches!(self.step, Some(Step::AwaitM3Ack));
        if let Some(r) = self.current.as_mut() {
            r.client_crypto_us += cpu_us;
            r.client.crypto = crypto_ops(&ops);
            if keys_ready {
                // message_3 leaves: the initiator's OSCORE keys are derived
                r.keys_at = Some(ready);
            }
        }
        self.pump(cx, ready);
    }

    /// The join proxy asked now: with TSCH formation the neighbour whose
    /// Enhanced Beacon the node associated on (RFC 9031 §4-5: a pledge
    /// joins through a node whose EB it heard), else the one it was built
    /// with (its next hop on the computed routes).
    fn join_proxy(&self, cx: &AppCx) -> Option<NodeId> {
        self.p.proxy.map(|jp| cx.synced_on().unwrap_or(jp))
    }

    /// Queue what CoAP wants sent (at `ready` or later), re-arm its timer.
    fn pump(&mut self, cx: &mut AppCx, ready: Time) {
        let to = match self.join_proxy(cx) {
            Some(jp) => sockaddr_on_link(jp, JOIN_PORT),
            None => sockaddr(self.p.server, COAP_PORT),
        };
        while let Some(d) = self.coap.poll_transmit() {
            if let Some(r) = self.current.as_mut() {
                r.client.datagrams_sent += 1;
                r.client.bytes_sent += d.len() as u64;
                r.datagrams.push((true, d.len()));
            }
            if cx.tracing() {
                let id = Message::parse(&d).ok().map(|m| m.message_id);
                let kind = if id.is_some() && id == self.traced_id {
                    "retransmit"
                } else {
                    "tx"
                };
                self.traced_id = id;
                let row = coap_row(kind, &d, self.p.server, "sent");
                cx.trace_stamped(ready.max(cx.now()), row);
            }
            self.cpu.send_at(ready.max(cx.now()), to, d);
        }
        self.cpu
            .flush(cx, &mut self.timers, Kind::Send, CLIENT_PORT);
        match self.coap.poll_timeout() {
            Some(t) => self
                .timers
                .set(cx, Kind::Retransmit, self.clock.round_up(t)),
            None => self.timers.stop(Kind::Retransmit),
        }
        while let Some(outcome) = self.coap.poll_outcome() {
            match outcome {
                Outcome::GaveUp => {
                    self.finish(cx, Some("CoAP: MAX_RETRANSMIT reached".into()));
                }
                Outcome::Response(m) => self.on_response(cx, m),
            }
        }
    }

    fn on_response(&mut self, cx: &mut AppCx, m: Message) {
        if m.code != code::CHANGED {
            return self.finish(cx, Some(format!("CoAP response code {:#04x}", m.code)));
        }
        match self.step.take() {
            Some(Step::AwaitM2(mut initiator)) => match initiator.handle_message_2(&m.payload) {
                Ok((m3, c_r)) => {
                    let (now, server) = (cx.now(), self.p.server);
                    let row = edhoc_row("rx", "message_2", m.payload.len(), server, "accepted");
                    cx.trace(now, row);
                    let ops = initiator.ops();
                    self.step = Some(Step::AwaitM3Ack);
                    let mut payload = c_r;
                    payload.extend_from_slice(&m3);
                    self.send_request(cx, ops, payload, ("message_3", m3.len()));
                }
                Err(e) => {
                    let (now, server) = (cx.now(), self.p.server);
                    let row = edhoc_row("rx", "message_2", m.payload.len(), server, "refused");
                    cx.trace(now, row);
                    self.finish(cx, Some(format!("EDHOC message_2: {e:?}")))
                }
            },
            Some(Step::AwaitM3Ack) => self.finish(cx, None),
            None => {}
        }
    }

    fn finish(&mut self, cx: &mut AppCx, failure: Option<String>) {
        self.step = None;
        self.timers.stop(Kind::Retransmit);
        let Some(mut r) = self.current.take() else {
            return;
        };
        r.success = failure.is_none();
        r.failure = failure;
        r.ended_at = cx.now();
        r.client.retransmissions = self.coap.retransmissions;
        r.client.records_dropped = self.coap.dropped;
        self.finished += 1;
        let joined = r.success && self.p.until_success;
        cx.record(Record::HandshakeEnded(Box::new(r)));
        if self.finished < self.p.handshakes && !joined {
            let at = self.clock.round_up(cx.now() + self.pauses.next_us());
            self.timers.add(cx, Kind::Next, at);
        }
    }
}

impl App<Record> for EdhocClient {
    fn start(&mut self, cx: &mut AppCx) {
        if self.p.handshakes > 0 {
            let at = self.clock.round_up(self.p.first_at);
            self.timers.add(cx, Kind::Next, at);
        }
    }

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        if self.current.is_none() {
            return;
        }
        if let Some(r) = self.current.as_mut() {
            r.client.datagrams_received += 1;
            r.client.bytes_received += udp.payload.len() as u64;
            r.datagrams.push((false, udp.payload.len()));
        }
        if cx.tracing() {
            let now = cx.now();
            cx.trace(now, coap_row("rx", &udp.payload, udp.src, "received"));
        }
        self.coap.handle_datagram(&udp.payload);
        self.pump(cx, cx.now());
    }

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        match self.timers.fired(token) {
            Some(Kind::Next) => self.begin(cx),
            Some(Kind::Send) => self
                .cpu
                .flush(cx, &mut self.timers, Kind::Send, CLIENT_PORT),
            Some(Kind::Retransmit) => {
                let resent = self.coap.retransmissions;
                self.coap.handle_timeout(cx.now());
                if self.current.is_some() && self.coap.retransmissions > resent {
                    cx.record(Record::Retransmitted);
                }
                self.pump(cx, cx.now());
            }
            _ => {}
        }
    }

    fn on_run_end(&mut self, cx: &mut AppCx, why: &str) {
        if self.current.is_some() {
            self.finish(cx, Some(why.to_string()));
        }
    }
}

#[derive(Debug, Clone)]
pub struct EdhocServerParams {
    pub setup: EdhocSetup,
    /// Find a handshake by the C_R the responder gave it rather than by
    /// its client's address: behind a stateless join proxy every client
    /// has the proxy's address ([`super::join_proxy`]).
    pub by_connection_id: bool,
    pub cost: CryptoCost,
    pub seed: u64,
    pub replication: u64,
}

/// The responder: one EDHOC session per client address and port, or
/// (`by_connection_id`) per C_R.
pub struct EdhocServer {
    p: EdhocServerParams,
    rng: ChaCha8Rng,
    server: CoapServer,
    sessions: Vec<((NodeId, u16), edhoc::Responder, edhoc::Ops)>,
    /// By C_R: (C_R, responder, its ops, when message_2 was made).
    by_c_r: Vec<(Vec<u8>, edhoc::Responder, edhoc::Ops, Time)>,
    /// Requests that were not a well-formed EDHOC step (counted, dropped
    /// or answered 4.00).
    pub refused: u64,
}

impl EdhocServer {
    pub fn new(p: EdhocServerParams, node: NodeId) -> Self {
        let keep = (p.by_connection_id).then(|| p.setup.coap.exchange_lifetime_us());
        EdhocServer {
            rng: stream(p.seed, p.replication, node as u64, Purpose::Dtls),
            p,
            server: CoapServer::new(COAP_PORT).behind_proxies(keep),
            sessions: Vec::new(),
            by_c_r: Vec::new(),
            refused: 0,
        }
    }

    /// The response to `request` when handshakes are found by C_R: a
    /// message_1 gets a new responder with the first C_R no live
    /// handshake holds ([`c_r_of`]); a message_3 is the handshake's whose
    /// C_R prefixes it. A handshake waiting longer than CoAP's
    /// EXCHANGE_LIFETIME (RFC 7252 §4.8.2: message_2's way back, the
    /// initiator's whole message_3 exchange) is forgotten: no message_3
    /// of its can come any more.
    fn respond_by_c_r(&mut self, now: Time, request: &Message) -> (Message, edhoc::Ops) {
        let reply = |code| Message::piggybacked(request, code);
        let bad = |s: &mut Self| {
            s.refused += 1;
            (reply(code::BAD_REQUEST), edhoc::Ops::default())
        };
        let lifetime = self.p.setup.coap.exchange_lifetime_us();
        self.by_c_r
            .retain(|(_, _, _, at)| now.saturating_sub(*at) <= lifetime);
        if request.payload.first() == Some(&CBOR_TRUE) {
            let message = &request.payload[1..];
            let c_r = (0..)
                .map(c_r_of)
                .find(|c| self.by_c_r.iter().all(|(held, ..)| held != c))
                .expect("an unbounded supply of identifiers");
            let Ok(mut responder) = edhoc::Responder::new(self.p.setup.edhoc, self.rng.next_u64())
            else {
                return bad(self);
            };
            return match responder.handle_message_1_as(message, &c_r) {
                Ok(m2) => {
                    let ops = responder.ops();
                    self.by_c_r.push((c_r, responder, ops, now));
                    let format = uint(u32::from(content_format::EDHOC_CBOR_SEQ));
                    let m = reply(code::CHANGED)
                        .with_option(option::CONTENT_FORMAT, format)
                        .with_payload(m2);
                    (m, ops)
                }
                Err(_) => bad(self),
            };
        }
        let Some((c_r, message)) = split_c_r(&request.payload) else {
            return bad(self);
        };
        let Some(at) = self.by_c_r.iter().position(|(held, ..)| held == c_r) else {
            return bad(self);
        };
        let (_, mut responder, before, _) = self.by_c_r.swap_remove(at);
        match responder.handle_message_3(message) {
            Ok(()) => (reply(code::CHANGED), responder.ops().since(&before)),
            Err(_) => bad(self),
        }
    }

    /// The response to `request` from `peer`, and the crypto it took.
    fn respond(&mut self, peer: (NodeId, u16), request: &Message) -> (Message, edhoc::Ops) {
        let reply = |code| Message::piggybacked(request, code);
        let bad = |s: &mut Self| {
            s.refused += 1;
            (reply(code::BAD_REQUEST), edhoc::Ops::default())
        };
        let Some((&prefix, message)) = request.payload.split_first() else {
            return bad(self);
        };
        if prefix == CBOR_TRUE {
            self.sessions.retain(|(p, _, _)| *p != peer);
            let Ok(mut responder) = edhoc::Responder::new(self.p.setup.edhoc, self.rng.next_u64())
            else {
                return bad(self);
            };
            return match responder.handle_message_1(message) {
                Ok(m2) => {
                    let ops = responder.ops();
                    self.sessions.push((peer, responder, ops));
                    let format = uint(u32::from(content_format::EDHOC_CBOR_SEQ));
                    let m = reply(code::CHANGED)
                        .with_option(option::CONTENT_FORMAT, format)
                        .with_payload(m2);
                    (m, ops)
                }
                Err(_) => bad(self),
            };
        }
        // C_R then message_3 (lakers' connection identifiers are one byte)
        let Some(at) = self.sessions.iter().position(|(p, _, _)| *p == peer) else {
            return bad(self);
        };
        let (_, mut responder, before) = self.sessions.swap_remove(at);
        match responder.handle_message_3(message) {
            Ok(()) => (reply(code::CHANGED), responder.ops().since(&before)),
            Err(_) => bad(self),
        }
    }
}

/// The `n`-th connection identifier's bytes (RFC 9528 §3.3.2), shortest
/// first: the 48 one-byte integers 0..=23 and -1..=-24 (CBOR 0x00-0x17,
/// 0x20-0x37), then one-byte strings of the other 200 values (2 bytes in
/// CBOR), then two-byte strings.
fn c_r_of(n: usize) -> Vec<u8> {
    match n {
        0..=47 => vec![if n < 24 {
            n as u8
        } else {
            0x20 + (n - 24) as u8
        }],
        48..=247 => vec![0x38 + (n - 48) as u8],
        _ => (n as u16).to_be_bytes().to_vec(),
    }
}

/// A message_3 request's payload: C_R's bytes (as [`c_r_of`] gives them)
/// from its CBOR (a one-byte integer, or a byte string), and the rest.
fn split_c_r(payload: &[u8]) -> Option<(&[u8], &[u8])> {
    let (&head, rest) = payload.split_first()?;
    match head {
        0x00..=0x17 | 0x20..=0x37 => Some((&payload[..1], rest)),
        0x40..=0x57 => {
            let n = usize::from(head - 0x40);
            (rest.len() >= n).then(|| rest.split_at(n))
        }
        _ => None,
    }
}

/// The responder's EDHOC rows for one request and its response: the
/// message the request carried (message_1 after CBOR `true`, else
/// message_3 after C_R), accepted when answered 2.04, and message_2 when
/// the response carries one.
fn trace_step(cx: &mut AppCx, request: &Message, response: &Message, peer: NodeId, at: Time) {
    let Some((&prefix, message)) = request.payload.split_first() else {
        return;
    };
    let name = if prefix == CBOR_TRUE {
        "message_1"
    } else {
        "message_3"
    };
    let outcome = if response.code == code::CHANGED {
        "accepted"
    } else {
        "refused"
    };
    let now = cx.now();
    cx.trace(now, edhoc_row("rx", name, message.len(), peer, outcome));
    if prefix == CBOR_TRUE && response.code == code::CHANGED {
        let m2 = response.payload.len();
        cx.trace_stamped(at, edhoc_row("tx", "message_2", m2, peer, "sent"));
    }
}

impl App<Record> for EdhocServer {
    fn start(&mut self, _: &mut AppCx) {}

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        if udp.dst_port != COAP_PORT {
            return;
        }
        if cx.tracing() {
            let now = cx.now();
            cx.trace(now, coap_row("rx", &udp.payload, udp.src, "received"));
        }
        match self.server.receive(cx, &udp) {
            Incoming::Refused => {
                self.refused += 1;
                return;
            }
            Incoming::Cached { at, answer } => {
                if cx.tracing() {
                    cx.trace_stamped(at, coap_row("retransmit", &answer, udp.src, "cached"));
                }
            }
            Incoming::New(request) => {
                let (response, ops) = if self.p.by_connection_id {
                    self.respond_by_c_r(cx.now(), &request)
                } else {
                    self.respond((udp.src, udp.src_port), &request)
                };
                let cpu_us = self.p.cost.of(&crypto_ops(&ops));
                let datagram = response.emit();
                let at = self
                    .server
                    .answer(cx, &udp, request.message_id, datagram.clone(), cpu_us);
                if cx.tracing() {
                    trace_step(cx, &request, &response, udp.src, at);
                    cx.trace_stamped(at, coap_row("tx", &datagram, udp.src, "sent"));
                }
            }
        }
        self.server.flush(cx);
    }

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        self.server.on_timer(cx, token);
    }
}

#[cfg(test)]
mod tests {
    //! Malformed and truncated messages fed straight to the applications:
    //! counted and dropped (or refused with 4.00, or the handshake failed
    //! with a reason), never a panic.

    use super::*;
    use crate::app::test_support::sent;
    use crate::node::app::Recorder;
    use crate::topology::Topology;
    use crate::world::World;

    const CLIENT: NodeId = 0;
    const SERVER: NodeId = 1;

    fn setup() -> EdhocSetup {
        EdhocSetup {
            edhoc: edhoc::Config::default(),
            coap: Params::default(),
            token_bytes: 4,
        }
    }

    fn client() -> EdhocClient {
        let p = EdhocClientParams {
            server: SERVER,
            proxy: None,
            setup: setup(),
            handshakes: 1,
            first_at: 0,
            pause: Pause::fixed(0),
            until_success: false,
            // free crypto: what a node sends leaves at once
            cost: CryptoCost::default(),
            seed: 1,
            replication: 0,
            timer_tick_us: 0,
        };
        EdhocClient::new(p, CLIENT)
    }

    fn server() -> EdhocServer {
        let p = EdhocServerParams {
            setup: setup(),
            by_connection_id: false,
            cost: CryptoCost::default(),
            seed: 1,
            replication: 0,
        };
        EdhocServer::new(p, SERVER)
    }

    fn datagram(src: NodeId, dst: NodeId, src_port: u16, dst_port: u16, payload: Vec<u8>) -> Udp {
        Udp::new(src, src_port, dst, dst_port, payload)
    }

    /// What `f` makes the app at `node` send.
    /// Empty, not CoAP, a CoAP header cut short, a request cut in half.
    /// (message_1 carries no integrity check: a flipped bit in it can make
    /// another well-formed message_1, so corruption is a cut here.)
    fn bad_inputs(good: &[u8]) -> Vec<Vec<u8>> {
        vec![
            Vec::new(),
            vec![0xff; 3],
            good[..3].to_vec(),
            good[..good.len() / 2].to_vec(),
        ]
    }

    #[test]
    fn the_responder_refuses_malformed_and_truncated_requests() {
        let mut world = World::new(Topology::line(2, 1.0).unwrap(), 1, 0);
        let mut rec = Recorder::default();
        let mut c = client();
        let m1 = sent(&mut world, &mut rec, CLIENT, |cx| c.begin(cx));
        let mut s = server();
        for bad in bad_inputs(&m1[0].payload) {
            let udp = datagram(CLIENT, SERVER, CLIENT_PORT, COAP_PORT, bad);
            sent(&mut world, &mut rec, SERVER, |cx| s.on_udp(cx, udp));
        }
        // a datagram that is not CoAP, or not a Confirmable request, is
        // dropped; a CoAP request whose EDHOC message does not parse is
        // answered 4.00 (Bad Request) and counted the same
        assert_eq!(s.refused, 4);
        assert!(s.sessions.is_empty());
    }

    #[test]
    fn the_initiator_drops_malformed_responses_and_fails_on_a_corrupted_message_2() {
        let mut world = World::new(Topology::line(2, 1.0).unwrap(), 1, 0);
        let mut rec = Recorder::default();
        let mut c = client();
        let mut s = server();
        let m1 = sent(&mut world, &mut rec, CLIENT, |cx| c.begin(cx));
        let udp = datagram(
            CLIENT,
            SERVER,
            CLIENT_PORT,
            COAP_PORT,
            m1[0].payload.clone(),
        );
        let reply = sent(&mut world, &mut rec, SERVER, |cx| s.on_udp(cx, udp));
        let m2 = reply[0].payload.clone();
        // not CoAP, or CoAP cut short: CoAP drops them and counts them
        for bad in [vec![0xff; 3], m2[..3].to_vec(), Vec::new()] {
            let udp = datagram(SERVER, CLIENT, COAP_PORT, CLIENT_PORT, bad);
            sent(&mut world, &mut rec, CLIENT, |cx| c.on_udp(cx, udp));
        }
        assert_eq!(c.coap.dropped, 3);
        assert!(c.current.is_some(), "still waiting for message_2");
        // a whole CoAP response whose message_2 is corrupted: EDHOC cannot
        // process it (RFC 9528 section 6: the protocol is discontinued)
        let mut corrupted = m2;
        let last = corrupted.len() - 1;
        corrupted[last] ^= 0x5a;
        let udp = datagram(SERVER, CLIENT, COAP_PORT, CLIENT_PORT, corrupted);
        sent(&mut world, &mut rec, CLIENT, |cx| c.on_udp(cx, udp));
        let ended: Vec<_> = rec
            .entries()
            .iter()
            .filter_map(|e| match &e.record {
                Record::HandshakeEnded(r) => Some(r.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(ended.len(), 1);
        assert!(!ended[0].success);
        let why = ended[0].failure.as_deref().unwrap_or_default();
        assert!(why.starts_with("EDHOC message_2"), "{why}");
        // the counter the handshake's row carries as client_records_dropped
        assert_eq!(ended[0].client.records_dropped, 3);
    }
}
