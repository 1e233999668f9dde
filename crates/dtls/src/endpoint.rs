//! The server endpoint both versions share: one socket's worth of peers,
//! a session per peer address, routing by the connection ID a datagram's
//! first record carries (RFC 9146, RFC 9147 §9) with a session following
//! its peer to a new address, and the queues of datagrams and events for
//! the caller. What a version adds (its cookie exchange, how it admits a
//! new session, its counters) is its [`Version`]: 1.2's
//! [`crate::Server`] and 1.3's `v13::endpoint::Server13` are this
//! [`Endpoint`] with their version's part.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::Arc;

use rand_core::CryptoRng;

use crate::accounting::CryptoOps;
use crate::error::Error;
use crate::session::{Event, Phase, Session};
use crate::Instant;
use session_table::{Admission, Expiry, Refusal, SlotTable};

/// A datagram to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// Destination.
    pub destination: SocketAddr,
    /// UDP payload.
    pub payload: Vec<u8>,
}

/// A version's part of an [`Endpoint`]: its configuration, randomness,
/// cookies and counters, and what it does with a datagram no session
/// takes. The hooks let it keep its own books (1.2: the session table's
/// slots and the resumption cache) as sessions come and go.
pub trait Version: Sized {
    /// The version's connection.
    type Session: Session;
    /// The version's server configuration.
    type Config;
    /// The random generator the endpoint draws from.
    type Rng;
    /// The endpoint's counters.
    type Stats;

    /// The version's part of a new endpoint (its configuration checked).
    fn new(config: Arc<Self::Config>, rng: Self::Rng, now: Instant) -> Result<Self, Error>;

    /// The endpoint's counters.
    fn stats(&self) -> &Self::Stats;

    /// The operations of the endpoint itself (cookies, stateless checks).
    fn crypto(&self) -> &CryptoOps;

    /// Length of the CIDs the endpoint issues (`None`: none).
    fn cid_len(&self) -> Option<usize>;

    /// The CID of a datagram's first record, in this version's header.
    fn leading_cid(datagram: &[u8], cid_len: usize) -> Option<&[u8]>;

    /// A datagram arrived at `now` (before any routing: cookie rotation).
    fn on_datagram(&mut self, now: Instant);

    /// A datagram from `from` that no CID routed.
    fn accept(ep: &mut Endpoint<Self>, now: Instant, from: SocketAddr, datagram: &[u8]);

    /// A fresh CID no session uses.
    fn new_cid(&mut self, in_use: &HashMap<Vec<u8>, SocketAddr>) -> Option<Vec<u8>>;

    /// Has a handshake in `state` (a `Session::state_name`) progressed:
    /// its client answered the server's first flight? Its slot is then
    /// protected ([`session_table::Limits::protect_progressed`]).
    fn progressed(state: &str) -> bool;

    /// A datagram of the session with `peer` was handled at `now`: its slot
    /// was used, and is no longer half-open once the handshake completed.
    fn heard_from(&mut self, peer: SocketAddr, session: &Self::Session, now: Instant) {
        let slots = self.slots_mut();
        slots.touch(&peer, now);
        if session.phase() != Phase::Handshaking {
            slots.established(&peer, now);
        } else if Self::progressed(session.state_name()) {
            slots.progressed(&peer);
        }
    }

    /// The session at `home` follows its peer to `to`.
    fn moved(&mut self, home: SocketAddr, to: SocketAddr) {
        self.slots_mut().moved(&home, to);
        self.count(Counter::AddressChanged);
    }

    /// The session with `peer` completed its handshake.
    fn connected(&mut self, _session: &Self::Session) {}

    /// The session table both versions admit sessions through.
    fn slots(&self) -> &SlotTable<SocketAddr>;
    /// The same, to change.
    fn slots_mut(&mut self) -> &mut SlotTable<SocketAddr>;

    /// This version's counter of what the session table did.
    fn counter(&mut self, c: Counter) -> &mut u64;

    /// Count what the session table did.
    fn count(&mut self, c: Counter) {
        *self.counter(c) += 1;
    }

    /// The session with `peer` is forgotten (`held`: there was one).
    fn removed(&mut self, peer: SocketAddr, held: bool) {
        self.slots_mut().release(&peer);
        if held {
            self.count(Counter::Removed);
        }
    }

    /// A newcomer from `from` passed the cookie exchange at `now`: the
    /// session table's rules (timeouts first, then the half-open limit,
    /// per-address cap, host rate and eviction policy) give it a slot, the
    /// evicted session is removed, and what happened is counted. The
    /// refusal, if any: the caller answers HostRate with nothing (its
    /// client retransmits) and the others with a fatal alert.
    fn admit(ep: &mut Endpoint<Self>, from: SocketAddr, now: Instant) -> Option<Refusal> {
        Self::expire(ep, now);
        let refusal = match ep.version.slots_mut().admit(from, now) {
            Admission::Admitted => None,
            Admission::Evicted(victim) => {
                ep.version.count(Counter::Evicted);
                ep.remove_session(&victim);
                None
            }
            Admission::Refused(r) => Some(r),
        };
        match refusal {
            Some(Refusal::HostRate) => ep.version.count(Counter::RateLimited),
            Some(Refusal::Full | Refusal::HalfOpenLimit) => ep.version.count(Counter::RefusedFull),
            Some(Refusal::PerHost) => ep.version.count(Counter::RefusedAddressCap),
            None => {}
        }
        refusal
    }

    /// The version's own next deadline: a slot's timeout.
    fn next_expiry(&self) -> Option<Instant> {
        self.slots().next_expiry()
    }

    /// Drop the half-open handshakes past the half-open timeout and the
    /// sessions past the idle timeout (an idle one is told with a
    /// close_notify, in case its peer is still there), before the
    /// sessions' own timers run.
    fn expire(ep: &mut Endpoint<Self>, now: Instant) {
        for (a, why) in ep.version.slots_mut().expire(now) {
            match why {
                Expiry::HalfOpen => ep.version.count(Counter::HalfOpenExpired),
                Expiry::Idle => {
                    ep.version.count(Counter::IdleExpired);
                    ep.close(a);
                }
            }
            ep.remove_session(&a);
        }
    }
}

/// What the session table did, for a version's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// A session closed, failed or replaced.
    Removed,
    /// A half-open handshake past the half-open timeout.
    HalfOpenExpired,
    /// An established session past the idle timeout.
    IdleExpired,
    /// A session evicted for a newcomer.
    Evicted,
    /// A newcomer refused for want of a slot or under the half-open limit.
    RefusedFull,
    /// A newcomer refused by the per-address cap.
    RefusedAddressCap,
    /// A newcomer left unanswered: its host started a handshake moments ago.
    RateLimited,
    /// A session followed its peer to a new address.
    AddressChanged,
}

/// The field of a version's endpoint stats that counts `Counter` `$c`
/// (`EndpointStats` and `EndpointStats13` name them alike): the body of
/// `Version::counter` for both.
macro_rules! table_counter {
    ($stats:expr, $c:expr) => {{
        use $crate::endpoint::Counter;
        let s = $stats;
        match $c {
            Counter::Removed => &mut s.sessions_removed,
            Counter::HalfOpenExpired => &mut s.expired_half_open,
            Counter::IdleExpired => &mut s.expired_idle,
            Counter::Evicted => &mut s.evicted,
            Counter::RefusedFull => &mut s.refused_full,
            Counter::RefusedAddressCap => &mut s.refused_address_cap,
            Counter::RateLimited => &mut s.rate_limited,
            Counter::AddressChanged => &mut s.address_changes,
        }
    }};
}
pub(crate) use table_counter;

/// A session and what the endpoint knows of it.
pub(crate) struct Held<S> {
    pub(crate) conn: S,
    /// The random of the ClientHello that made it: a later verified hello
    /// with another random from the same address is a new association.
    pub(crate) hello_random: [u8; 32],
    /// The CID the session receives with, if the endpoint issues CIDs.
    pub(crate) cid: Option<Vec<u8>>,
    /// The session's operations already in the endpoint's running total.
    pub(crate) counted: CryptoOps,
    /// The session's deadline as the endpoint's index holds it.
    pub(crate) deadline: Option<Instant>,
}

impl<S> Held<S> {
    /// A session the endpoint has not yet counted or indexed.
    pub(crate) fn new(conn: S, hello_random: [u8; 32], cid: Option<Vec<u8>>) -> Self {
        Held {
            conn,
            hello_random,
            cid,
            counted: CryptoOps::default(),
            deadline: None,
        }
    }
}

/// A server endpoint of the version `V`.
pub struct Endpoint<V: Version> {
    pub(crate) version: V,
    /// Ordered by address, so that whatever walks the sessions (the timers
    /// due at one instant, the peers) does so in the same order in every
    /// process: a hash map's order changes with its per-process seed.
    pub(crate) sessions: BTreeMap<SocketAddr, Held<V::Session>>,
    /// Session address by the CID it receives with.
    by_cid: HashMap<Vec<u8>, SocketAddr>,
    pub(crate) tx: VecDeque<Transmit>,
    events: VecDeque<(SocketAddr, Event)>,
    /// Operations of every session so far, live or removed, as of each
    /// one's last drain: kept as a running sum (and the deadlines below as
    /// an index) so that a server holding thousands of sessions does not
    /// walk them all on every datagram.
    counted_crypto: CryptoOps,
    /// Every live session's deadline, by deadline then address.
    deadlines: BTreeSet<(Instant, SocketAddr)>,
    /// Some, once asked for ([`Endpoint::watch_changes`]): the peers whose
    /// session may have changed phase, come or gone since the last
    /// [`Endpoint::take_changed`], so that a caller keeping books beside
    /// the endpoint looks at those rather than at every session.
    changed: Option<Vec<SocketAddr>>,
}

impl<V: Version> core::fmt::Debug for Endpoint<V>
where
    V::Stats: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Endpoint")
            .field("sessions", &self.sessions.len())
            .field("stats", self.version.stats())
            .finish_non_exhaustive()
    }
}

impl<V: Version> Endpoint<V> {
    /// New endpoint. `rng` supplies every random byte (seed it for the
    /// simulator).
    pub fn new(config: Arc<V::Config>, rng: V::Rng, now: Instant) -> Result<Self, Error> {
        Ok(Endpoint {
            version: V::new(config, rng, now)?,
            sessions: BTreeMap::new(),
            by_cid: HashMap::new(),
            tx: VecDeque::new(),
            events: VecDeque::new(),
            counted_crypto: CryptoOps::default(),
            deadlines: BTreeSet::new(),
            changed: None,
        })
    }

    /// Keep the list of peers whose session may have changed, from now on
    /// (see [`Endpoint::take_changed`]).
    pub fn watch_changes(&mut self) {
        self.changed.get_or_insert_with(Vec::new);
    }

    /// The peers whose session may have changed (drained, made, moved or
    /// forgotten) since the last call, in no particular order and perhaps
    /// repeated; any other session is as it was. Empty unless
    /// [`Endpoint::watch_changes`] was called.
    pub fn take_changed(&mut self) -> Vec<SocketAddr> {
        self.changed
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn note_changed(&mut self, peer: SocketAddr) {
        if let Some(c) = self.changed.as_mut() {
            c.push(peer);
        }
    }

    /// Feed a datagram received from `from`.
    pub fn handle_datagram(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        self.version.on_datagram(now);
        match self.session_by_cid(datagram) {
            Some(home) => self.deliver_by_cid(now, home, from, datagram),
            None => V::accept(self, now, from, datagram),
        }
    }

    /// The session whose CID the datagram's first record carries.
    fn session_by_cid(&self, datagram: &[u8]) -> Option<SocketAddr> {
        let n = self.version.cid_len().filter(|n| *n > 0)?;
        self.by_cid.get(V::leading_cid(datagram, n)?).copied()
    }

    /// A datagram for the session at `home` arrived from `from`: the
    /// session moves there only if it authenticates a record newer than
    /// any before (RFC 9146 §6: an old record replayed from elsewhere does
    /// not move it).
    fn deliver_by_cid(&mut self, now: Instant, home: SocketAddr, from: SocketAddr, d: &[u8]) {
        let Some(s) = self.sessions.get_mut(&home) else {
            return;
        };
        s.conn.take_newest_authenticated();
        s.conn.handle_datagram(now, d);
        let moved = home != from && s.conn.take_newest_authenticated();
        self.version.heard_from(home, &s.conn, now);
        if !moved {
            self.drain(home);
            return;
        }
        // whatever was at the new address is replaced
        self.remove_session(&from);
        self.note_changed(home);
        if let Some(s) = self.sessions.remove(&home) {
            if let Some(cid) = s.cid.as_ref().filter(|c| !c.is_empty()) {
                self.by_cid.insert(cid.clone(), from);
            }
            if let Some(d) = s.deadline {
                self.deadlines.remove(&(d, home));
                self.deadlines.insert((d, from));
            }
            self.sessions.insert(from, s);
            self.version.moved(home, from);
        }
        self.drain(from);
    }

    /// Hand `datagram` to the session with `from`, then collect what it
    /// queued.
    pub(crate) fn deliver(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        if let Some(s) = self.sessions.get_mut(&from) {
            s.conn.handle_datagram(now, datagram);
            self.version.heard_from(from, &s.conn, now);
        }
        self.drain(from);
    }

    /// A fresh CID no session uses (`None`: the endpoint issues none).
    pub(crate) fn new_cid(&mut self) -> Option<Vec<u8>> {
        self.version.new_cid(&self.by_cid)
    }

    /// Keep a new session with `from`, receiving with `cid`, and let it
    /// process the hello that made it.
    pub(crate) fn insert_session(
        &mut self,
        now: Instant,
        from: SocketAddr,
        held: Held<V::Session>,
        hello: &[u8],
    ) {
        if let Some(c) = held.cid.as_ref().filter(|c| !c.is_empty()) {
            self.by_cid.insert(c.clone(), from);
        }
        self.sessions.insert(from, held);
        if let Some(s) = self.sessions.get_mut(&from) {
            s.conn.handle_datagram(now, hello);
        }
        self.drain(from);
    }

    /// Next datagram to send.
    pub fn poll_transmit(&mut self, _now: Instant) -> Option<Transmit> {
        self.tx.pop_front()
    }

    /// Earliest deadline of all sessions, and of the version's own timers.
    pub fn poll_timeout(&self) -> Option<Instant> {
        #[cfg(debug_assertions)]
        self.check_index();
        let first = self.deadlines.first().map(|&(d, _)| d);
        first.into_iter().chain(self.version.next_expiry()).min()
    }

    /// Run expired timers.
    pub fn handle_timeout(&mut self, now: Instant) {
        V::expire(self, now);
        #[cfg(debug_assertions)]
        self.check_index();
        // the sessions due, in address order (the order they always ran in)
        let mut due: Vec<SocketAddr> = self
            .deadlines
            .iter()
            .take_while(|&&(d, _)| d <= now)
            .map(|&(_, a)| a)
            .collect();
        due.sort_unstable();
        for a in due {
            if let Some(s) = self.sessions.get_mut(&a) {
                s.conn.handle_timeout(now);
            }
            self.drain(a);
        }
    }

    /// Next event and the peer it concerns.
    pub fn poll_event(&mut self) -> Option<(SocketAddr, Event)> {
        self.events.pop_front()
    }

    /// Send application data to an established peer.
    pub fn send(&mut self, to: SocketAddr, data: &[u8]) -> Result<(), Error> {
        let s = self.sessions.get_mut(&to).ok_or(Error::NotConnected)?;
        s.conn.send(data)?;
        self.drain(to);
        Ok(())
    }

    /// Close a session with close_notify.
    pub fn close(&mut self, peer: SocketAddr) {
        if let Some(s) = self.sessions.get_mut(&peer) {
            s.conn.close();
        }
        self.drain(peer);
    }

    /// The session with `peer`, if any.
    pub fn session(&self, peer: &SocketAddr) -> Option<&V::Session> {
        self.sessions.get(peer).map(|s| &s.conn)
    }

    /// Number of sessions (handshaking or established).
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// Peers with a session.
    pub fn peers(&self) -> impl Iterator<Item = &SocketAddr> {
        self.sessions.keys()
    }

    /// Endpoint counters.
    pub fn stats(&self) -> &V::Stats {
        self.version.stats()
    }

    /// Cryptographic operations of the endpoint (cookies, stateless
    /// checks) and of every session it ever held: what a simulated
    /// server's CPU has done so far.
    pub fn crypto_total(&self) -> CryptoOps {
        #[cfg(debug_assertions)]
        self.check_index();
        let mut total = *self.version.crypto();
        total.add(&self.counted_crypto);
        total
    }

    /// Debug builds (the tests) check the running sum and the deadline
    /// index against every session, as they were before both were kept.
    #[cfg(debug_assertions)]
    fn check_index(&self) {
        for (a, s) in &self.sessions {
            assert_eq!(s.counted, s.conn.stats().crypto, "{a}: counted");
            assert_eq!(s.deadline, s.conn.poll_timeout(), "{a}: deadline");
        }
        let indexed: BTreeSet<(Instant, SocketAddr)> = self
            .sessions
            .iter()
            .filter_map(|(a, s)| s.deadline.map(|d| (d, *a)))
            .collect();
        assert_eq!(indexed, self.deadlines);
    }

    /// Collect what the session with `peer` queued; forget it once closed
    /// or failed.
    pub(crate) fn drain(&mut self, peer: SocketAddr) {
        self.note_changed(peer);
        let Some(s) = self.sessions.get_mut(&peer) else {
            return;
        };
        let ops = s.conn.stats().crypto;
        self.counted_crypto.add(&ops.since(&s.counted));
        s.counted = ops;
        while let Some(d) = s.conn.poll_transmit(0) {
            self.tx.push_back(Transmit {
                destination: peer,
                payload: d,
            });
        }
        while let Some(e) = s.conn.poll_event() {
            if e == Event::Connected {
                self.version.connected(&s.conn);
            }
            self.events.push_back((peer, e));
        }
        let deadline = s.conn.poll_timeout();
        if deadline != s.deadline {
            if let Some(d) = s.deadline {
                self.deadlines.remove(&(d, peer));
            }
            if let Some(d) = deadline {
                self.deadlines.insert((d, peer));
            }
            s.deadline = deadline;
        }
        if matches!(s.conn.phase(), Phase::Closed | Phase::Failed) {
            self.remove_session(&peer);
        }
    }

    /// Forget a session, keeping its operation counts in the endpoint's
    /// total.
    pub(crate) fn remove_session(&mut self, peer: &SocketAddr) {
        self.note_changed(*peer);
        let held = self.sessions.remove(peer);
        if let Some(s) = &held {
            if let Some(cid) = &s.cid {
                if self.by_cid.get(cid) == Some(peer) {
                    self.by_cid.remove(cid);
                }
            }
            self.counted_crypto
                .add(&s.conn.stats().crypto.since(&s.counted));
            if let Some(d) = s.deadline {
                self.deadlines.remove(&(d, *peer));
            }
        }
        self.version.removed(*peer, held.is_some());
    }
}

/// A random CID of `len` bytes (`None`: the server uses no CIDs) that no
/// session in `in_use` holds. With `len` 0 every session shares the empty
/// CID: nothing is routed by CID, the address is used.
pub(crate) fn fresh_cid<R: CryptoRng + ?Sized, V>(
    rng: &mut R,
    len: Option<usize>,
    in_use: &HashMap<Vec<u8>, V>,
) -> Option<Vec<u8>> {
    let n = len?;
    loop {
        let mut cid = vec![0u8; n];
        rng.fill_bytes(&mut cid);
        if n == 0 || !in_use.contains_key(&cid) {
            return Some(cid);
        }
    }
}
