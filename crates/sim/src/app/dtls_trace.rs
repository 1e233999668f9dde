//! DTLS messages and state changes to the trace: what a connection's
//! stack logged (its per-message accounting, in order) since the last
//! look, and the state it is in now. The stack keeps no clock; the
//! application stamps each row with the virtual time it knows.

use dtls::Stats;

use super::AppCx;
use crate::trace::ProtocolRow;
use crate::{NodeId, Time};

/// How much of one connection's log is in the trace already.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cursor {
    sent: usize,
    received: usize,
    state: &'static str,
    retransmissions: u64,
}

impl Cursor {
    /// A connection created in state `state` (a row for it: it is entered).
    pub(super) fn new(cx: &mut AppCx, state: &'static str, peer: NodeId) -> Self {
        let now = cx.now();
        cx.trace(now, row("state", state, None, peer, ""));
        Cursor {
            sent: 0,
            received: 0,
            state,
            retransmissions: 0,
        }
    }

    /// Rows for what happened since the last call: messages accepted (at
    /// `now`), the state entered, a flight resent, and messages sent (at
    /// `sent_at`, when they leave the CPU).
    pub(super) fn advance(
        &mut self,
        cx: &mut AppCx,
        stats: &Stats,
        state: &'static str,
        peer: NodeId,
        sent_at: Time,
    ) {
        let now = cx.now();
        for &(kind, bytes) in &stats.received.log()[self.received..] {
            cx.trace(now, row("rx", kind.name(), Some(bytes), peer, "accepted"));
        }
        self.received = stats.received.log().len();
        if state != self.state {
            self.state = state;
            cx.trace(now, row("state", state, None, peer, ""));
        }
        if stats.retransmissions > self.retransmissions {
            self.retransmissions = stats.retransmissions;
            cx.trace(now, row("retransmit", "", None, peer, "flight_resent"));
        }
        for &(kind, bytes) in &stats.sent.log()[self.sent..] {
            cx.trace_stamped(sent_at, row("tx", kind.name(), Some(bytes), peer, "sent"));
        }
        self.sent = stats.sent.log().len();
    }
}

fn row(
    kind: &'static str,
    message: &'static str,
    bytes: Option<u64>,
    peer: NodeId,
    outcome: &'static str,
) -> ProtocolRow {
    ProtocolRow {
        layer: "dtls",
        kind,
        message,
        bytes,
        peer: Some(peer),
        outcome,
    }
}
