//! What applications report: one record per event of interest, with the
//! node and the time it happened (as the 6TiSCH simulator logs its runs).
//!
//! Applications write records through their [`AppCx`](super::AppCx);
//! workloads read them to stop a run and to build result rows, so no one
//! needs to know an application's insides; a traced run shows each as a
//! row of the trace ([`Record::trace_row`]).

use dtls::Stats;

use crate::node::app::Recorder;
use crate::trace::TraceEvent;
use crate::{NodeId, Time};

/// An event of interest to a workload.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// The DTLS client started handshake `index`.
    HandshakeStarted { index: u32 },
    /// A handshake ended: completed (and closed, or its pings done), failed,
    /// or cut off by the end of the run; with its times and counters.
    HandshakeEnded(Box<HandshakeRecord>),
    /// The client's retransmission timer resent a DTLS flight or a CoAP
    /// message (the handshakes workload tells a spurious one).
    Retransmitted,
    /// A ping's echo came back after `rtt_us`.
    PingAnswered { rtt_us: Time },
    /// A ping timed out.
    PingLost,
    /// Frame `index` of a frame exchange arrived; sent at `sent_at`.
    FrameDelivered { index: u32, sent_at: Time },
    /// A periodic report left its application.
    ReportSent,
    /// The sink received a report from `from`, sent at `sent_at`.
    ReportReceived { from: NodeId, sent_at: Time },
    /// `client` asked for a session (its handshake started).
    SessionRequested { client: NodeId },
    /// The server's table decided on a handshake of `client` past the
    /// cookie exchange.
    SlotDecision { client: NodeId, decision: Decision },
    /// Slots taken in the server's table changed to `taken`.
    SlotsTaken { taken: usize },
    /// The server's table gave `client` a slot.
    SlotTaken { client: NodeId },
    /// The server's table freed the slot of `client`.
    SlotFreed { client: NodeId, why: SlotFreed },
    /// `client`'s handshake completed after `handshake_us`, with
    /// `handshake_bytes` of UDP payload sent and received by the client;
    /// `resumed`: the abbreviated handshake (RFC 5246 §7.3).
    SessionEstablished {
        client: NodeId,
        handshake_us: Time,
        handshake_bytes: u64,
        resumed: bool,
    },
    /// A session (or a handshake) of `client` ended.
    SessionEnded { client: NodeId, end: SessionEnd },
    /// The server went down, its state lost (`sessions.server_down_s`).
    ServerDown,
    /// The server came back, its state anew.
    ServerUp,
    /// A datagram from `from` reached the server while it was down and
    /// was dropped.
    ServerDownDrop { from: NodeId },
    /// A join proxy did `event` with `bytes` of UDP payload of `pledge`'s
    /// join traffic ([`crate::app::join_proxy`]).
    JoinProxy {
        pledge: NodeId,
        event: ProxyEvent,
        bytes: u64,
    },
}

/// What a join proxy did with a datagram of a pledge's join traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProxyEvent {
    /// A pledge's request, sent on to the JRC with the pledge's state.
    Forwarded,
    /// A pledge's request over the join rate: dropped.
    DroppedRate,
    /// A JRC response, its state read back, relayed to the pledge.
    Relayed,
    /// Not a proxied CoAP request, or a response whose state does not
    /// open: dropped.
    Refused,
}

/// One handshake, as the client saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct HandshakeRecord {
    pub index: u32,
    pub success: bool,
    pub started_at: Time,
    pub ended_at: Time,
    pub failure: Option<String>,
    /// The client's counters for this handshake (datagrams, bytes, retransmissions, crypto).
    pub client: Stats,
    /// CPU time the client spent on cryptography in this handshake.
    pub client_crypto_us: Time,
    /// Round-trip times of the pings after the handshake (µs).
    pub rtts_us: Vec<Time>,
    /// When the client had its session keys and could send application
    /// data: DTLS 1.2 on the server's Finished; DTLS 1.3 on the server's
    /// Finished, as it sends its own (before the server's ACK of it, which
    /// `ended_at` waits for); EDHOC as message_3 leaves (RFC 9528 section
    /// 5.4.3: the initiator can derive OSCORE keys then).
    pub keys_at: Option<Time>,
    /// The handshake's datagrams as the client sent (true) and received
    /// (false) them, in order, with their UDP payload lengths: a run of one
    /// direction is a flight.
    pub datagrams: Vec<(bool, usize)>,
}

impl HandshakeRecord {
    /// Handshake `index`, started at `now`, under way.
    pub fn started(index: u32, now: Time) -> Self {
        HandshakeRecord {
            index,
            success: false,
            started_at: now,
            ended_at: now,
            failure: None,
            client: Stats::default(),
            client_crypto_us: 0,
            rtts_us: Vec::new(),
            keys_at: None,
            datagrams: Vec::new(),
        }
    }

    /// Bytes of each flight (a run of datagrams in one direction), in order.
    pub fn flight_bytes(&self) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        let mut last = None;
        for &(sent, len) in &self.datagrams {
            match out.last_mut() {
                Some(b) if last == Some(sent) => *b += len,
                _ => out.push(len),
            }
            last = Some(sent);
        }
        out
    }
}

/// The table's decision on one handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Admitted,
    /// Admitted in the slot of the session of this node, which ends.
    Evicted(NodeId),
    Refused,
}

/// Why the server's table freed a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotFreed {
    /// A close_notify ended the session.
    Closed,
    /// The handshake or the session failed (its retransmissions ran out,
    /// a fatal alert, a bad Finished).
    Failed,
    /// The endpoint forgot it otherwise (a cookie that did not verify, a
    /// new handshake from the same address).
    Forgotten,
    /// Taken over by a newcomer.
    Evicted,
    /// Half-open past the half-open timeout.
    HalfOpenTimeout,
    /// Silent past the idle timeout.
    IdleTimeout,
}

/// How a session of the sessions workload ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionEnd {
    /// Held for its time and closed by its client.
    Released,
    /// Closed by the server to free its slot.
    Evicted,
    /// The handshake or the session failed (refused, timed out, lost).
    Failed,
}

/// The run's records, read as this floor's.
impl Recorder<Record> {
    /// Ping results in order: the RTT, or None when lost.
    pub fn ping_rtts(&self) -> Vec<Option<Time>> {
        self.entries()
            .iter()
            .filter_map(|e| match e.record {
                Record::PingAnswered { rtt_us } => Some(Some(rtt_us)),
                Record::PingLost => Some(None),
                _ => None,
            })
            .collect()
    }
}

impl Record {
    /// This record as a row of the trace, made at `at` on `node`.
    pub fn trace_row(&self, at: Time, node: NodeId) -> TraceEvent {
        let (kind, peer, outcome) = self.kind_peer_outcome();
        TraceEvent {
            at,
            node,
            layer: "app",
            kind,
            emission: None,
            copy: None,
            bytes: None,
            peer,
            outcome,
            ..TraceEvent::default()
        }
    }

    /// The record's kind, its peer and its outcome, in the trace's words.
    fn kind_peer_outcome(&self) -> (&'static str, Option<NodeId>, &'static str) {
        match self {
            Record::HandshakeStarted { .. } => ("handshake_started", None, ""),
            Record::HandshakeEnded(h) => (
                "handshake_ended",
                None,
                if h.success { "success" } else { "failure" },
            ),
            Record::Retransmitted => ("retransmitted", None, ""),
            Record::PingAnswered { .. } => ("ping_answered", None, "success"),
            Record::PingLost => ("ping_lost", None, "failure"),
            Record::FrameDelivered { .. } => ("frame_delivered", None, "success"),
            Record::ReportSent => ("report_sent", None, ""),
            Record::ReportReceived { from, .. } => ("report_received", Some(*from), "success"),
            Record::SessionRequested { client } => ("session_requested", Some(*client), ""),
            Record::SlotDecision { client, decision } => (
                "slot_decision",
                Some(*client),
                match decision {
                    Decision::Admitted => "admitted",
                    Decision::Evicted(_) => "admitted_evicting",
                    Decision::Refused => "refused",
                },
            ),
            Record::SlotsTaken { .. } => ("slots_taken", None, ""),
            Record::SlotTaken { client } => ("slot_taken", Some(*client), ""),
            Record::SlotFreed { client, why } => (
                "slot_freed",
                Some(*client),
                match why {
                    SlotFreed::Closed => "closed",
                    SlotFreed::Failed => "failed",
                    SlotFreed::Forgotten => "forgotten",
                    SlotFreed::Evicted => "evicted",
                    SlotFreed::HalfOpenTimeout => "half_open_timeout",
                    SlotFreed::IdleTimeout => "idle_timeout",
                },
            ),
            Record::SessionEstablished { client, .. } => {
                ("session_established", Some(*client), "success")
            }
            Record::SessionEnded { client, end } => (
                "session_ended",
                Some(*client),
                match end {
                    SessionEnd::Released => "released",
                    SessionEnd::Evicted => "evicted",
                    SessionEnd::Failed => "failed",
                },
            ),
            Record::ServerDown => ("server_down", None, ""),
            Record::ServerUp => ("server_up", None, ""),
            Record::ServerDownDrop { from } => ("server_down_drop", Some(*from), "failure"),
            Record::JoinProxy { pledge, event, .. } => (
                "join_proxy",
                Some(*pledge),
                match event {
                    ProxyEvent::Forwarded => "forwarded",
                    ProxyEvent::DroppedRate => "dropped_rate",
                    ProxyEvent::Relayed => "relayed",
                    ProxyEvent::Refused => "refused",
                },
            ),
        }
    }
}
