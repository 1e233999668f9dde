//! What a connection of either version is to its caller: the [`Session`]
//! trait (the sans-IO calls: datagrams in, datagrams out, a timer, events,
//! application data, close, counters), the [`Event`]s it reports, its
//! [`Role`] and its life-cycle [`Phase`].
//!
//! Both [`crate::Connection`] (1.2) and `v13::connection::Connection13`
//! implement [`Session`], so a caller that does not care about the
//! version holds a `Box<dyn Session>` or a generic. The calls whose bodies
//! are the same in both versions are written once here, over the state
//! both keep alike ([`Core`]); each version supplies the rest.

use std::collections::VecDeque;

use crate::accounting::Stats;
use crate::alert::{Alert, AlertDescription, AlertLevel};
use crate::config::RetransmitPolicy;
use crate::error::Error;
use crate::timer::RetransmitTimer;
use crate::Instant;

/// One association of either DTLS version, as its caller drives it.
///
/// Feed datagrams with [`handle_datagram`](Session::handle_datagram) and
/// timeouts with [`handle_timeout`](Session::handle_timeout); poll what to
/// send, when to wake up next and what happened.
pub trait Session: machine::Machine {
    /// Feed one received datagram.
    fn handle_datagram(&mut self, now: Instant, datagram: &[u8]);

    /// Queue application data (one record; at most 2^14 bytes) once the
    /// handshake completed.
    fn send(&mut self, data: &[u8]) -> Result<(), Error>;

    /// Client or server.
    fn role(&self) -> Role;

    /// Where the connection stands, named for a trace: the message its
    /// handshake waits for (`WaitServerHello`, …), then `Connected`,
    /// `Closed` or `Failed`.
    fn state_name(&self) -> &'static str;

    /// The negotiated cipher suite's name, once chosen.
    fn cipher_suite_name(&self) -> Option<&'static str>;

    /// Whether the handshake is over for both sides as far as this side can
    /// know. DTLS 1.2: once connected (the server's Finished is the last
    /// message). DTLS 1.3: a client connects on sending its Finished, which
    /// it resends until the server's ACK (RFC 9147 §5.8.3): over only when
    /// no retransmission is pending.
    fn peer_has_final_flight(&self) -> bool;

    /// Size in bytes of the state this connection holds now (the
    /// structure and its heap allocations, less counters and I/O queues).
    fn state_bytes(&self) -> usize;

    /// Bytes the session needs now in a compact C implementation.
    fn compact_state_bytes(&self) -> usize;

    /// True when both sides agreed on the connection_id extension (RFC
    /// 9146, RFC 9147 §9), whatever the lengths of the CIDs.
    fn cid_negotiated(&self) -> bool {
        self.core().cid_negotiated
    }

    /// Did a datagram since the last call hold a protected record that
    /// authenticated and is newer than every record before it? Only such a
    /// datagram may move the peer's address (RFC 9146 §6, RFC 9147 §9): an
    /// old or forged record replayed from elsewhere may not. Asking clears
    /// it.
    fn take_newest_authenticated(&mut self) -> bool {
        std::mem::take(&mut self.core_mut().newest_authenticated)
    }

    /// Life-cycle phase.
    fn phase(&self) -> Phase {
        self.core().phase
    }

    /// True once the handshake completed and until closed or failed.
    fn is_established(&self) -> bool {
        self.core().phase == Phase::Established
    }

    /// Keep every message sent and accepted, in order, in
    /// [`Stats::sent`] and [`Stats::received`]'s logs (a trace asks).
    fn log_messages(&mut self) {
        let stats = &mut self.core_mut().stats;
        stats.sent.keep_log();
        stats.received.keep_log();
    }

    /// Counters (crypto operations, bytes per message kind, datagrams).
    fn stats(&self) -> &Stats {
        &self.core().stats
    }

    /// Handshake duration (first flight sent, or hello accepted by a
    /// server session → handshake complete).
    fn handshake_duration_us(&self) -> Option<u64> {
        let c = self.core();
        c.hs_completed_at.map(|t| t.saturating_sub(c.hs_started_at))
    }

    /// Next datagram to send, if any.
    fn poll_transmit(&mut self, _now: Instant) -> Option<Vec<u8>> {
        let c = self.core_mut();
        let d = c.tx.pop_front()?;
        c.stats.datagrams_sent += 1;
        c.stats.bytes_sent += d.len() as u64;
        Some(d)
    }

    /// When `handle_timeout` should be called next.
    fn poll_timeout(&self) -> Option<Instant> {
        self.core().timer.deadline()
    }

    /// Call when the deadline from `poll_timeout` has passed: resend the
    /// flight (1.3: what of it was not acknowledged), or give up once the
    /// retransmission limit is reached.
    fn handle_timeout(&mut self, now: Instant) {
        let c = self.core_mut();
        if !c.timer.expired(now) {
            return;
        }
        if c.timer.on_expiry(now) {
            c.stats.retransmissions += 1;
            self.transmit_flight();
        } else {
            self.retransmit_limit_reached();
        }
    }

    /// Next event, if any.
    fn poll_event(&mut self) -> Option<Event> {
        self.core_mut().events.pop_front()
    }

    /// Send close_notify and close.
    fn close(&mut self) {
        if matches!(self.core().phase, Phase::Closed | Phase::Failed) {
            return;
        }
        self.send_alert(AlertLevel::Warning, AlertDescription::CloseNotify);
        let c = self.core_mut();
        c.phase = Phase::Closed;
        c.timer.stop();
        self.drop_flight();
        self.core_mut().events.push_back(Event::Closed);
    }
}

/// What [`Session`]'s shared calls need of a version: its [`Core`] and the
/// steps where the versions differ. Sealed: only this crate's connections
/// implement [`Session`].
pub(crate) mod machine {
    use super::Core;
    use crate::alert::{AlertDescription, AlertLevel};

    /// A connection's shared state and its version's own steps.
    pub trait Machine {
        /// The state both versions keep alike.
        fn core(&self) -> &Core;
        /// The same, to change.
        fn core_mut(&mut self) -> &mut Core;
        /// (Re)send the current flight (1.3: what was not acknowledged).
        fn transmit_flight(&mut self);
        /// Queue an alert in the current write epoch.
        fn send_alert(&mut self, level: AlertLevel, d: AlertDescription);
        /// Drop what a closed or failed connection no longer needs.
        fn drop_flight(&mut self);
        /// The retransmission limit was reached.
        fn retransmit_limit_reached(&mut self);
    }
}

/// The state both versions keep alike: life-cycle phase, counters, the
/// queues of datagrams and events not yet polled, the retransmission timer,
/// the handshake's start and end, and what the endpoint asks of connection
/// IDs.
#[derive(Debug)]
pub struct Core {
    pub(crate) phase: Phase,
    pub(crate) stats: Stats,
    pub(crate) tx: VecDeque<Vec<u8>>,
    pub(crate) events: VecDeque<Event>,
    pub(crate) timer: RetransmitTimer,
    pub(crate) hs_started_at: Instant,
    pub(crate) hs_completed_at: Option<Instant>,
    /// connection_id was negotiated.
    pub(crate) cid_negotiated: bool,
    /// A datagram held a protected record newer than any before since
    /// last asked.
    pub(crate) newest_authenticated: bool,
}

impl Core {
    /// A connection starting its handshake at `now`.
    pub(crate) fn new(retransmit: RetransmitPolicy, now: Instant) -> Self {
        Core {
            phase: Phase::Handshaking,
            stats: Stats::default(),
            tx: VecDeque::new(),
            events: VecDeque::new(),
            timer: RetransmitTimer::new(retransmit),
            hs_started_at: now,
            hs_completed_at: None,
            cid_negotiated: false,
            newest_authenticated: false,
        }
    }

    /// Refuse application data before the handshake completes, or longer
    /// than one record carries (`max`: 2^14 bytes, RFC 6347 §4.1 / RFC
    /// 9147 §4).
    pub(crate) fn refuse_send(&self, len: usize, max: usize) -> Result<(), Error> {
        if self.phase != Phase::Established {
            return Err(Error::NotConnected);
        }
        if len > max {
            return Err(Error::MessageTooLong);
        }
        Ok(())
    }
}

/// Something the application should know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The handshake completed; application data may flow.
    Connected,
    /// Application data from the peer.
    ApplicationData(Vec<u8>),
    /// The peer sent an alert (warning or fatal; a fatal one is followed by
    /// [`Event::Failed`], a close_notify by [`Event::Closed`]).
    AlertReceived(Alert),
    /// The connection was closed by close_notify (either side).
    Closed,
    /// The connection failed; nothing more will be sent or received.
    Failed(Error),
}

/// Which side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Client.
    Client,
    /// Server.
    Server,
}

/// Connection life cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Handshake under way.
    Handshaking,
    /// Application data may flow.
    Established,
    /// Closed by close_notify.
    Closed,
    /// Failed (alert sent or received, timeout).
    Failed,
}
