//! A server's fixed table of session slots, and what it does when a new
//! handshake finds it full: sans-IO, in the caller's time (µs), with no
//! dependency. The one definition of every admission rule: the DTLS 1.2
//! server endpoint (and so the real UDP server) and the simulator's sessions
//! workload both keep their sessions in it.
//!
//! Without these rules, clients that pass the cookie exchange and then go
//! silent hold their slots until their retransmissions give up (RFC 6347
//! §4.2.4.1 timer: 1 + 2 + 4 + 8 + 16 + 32 + 60 s, about two minutes), and a
//! full table of them locks every new client out.
//!
//! A slot is taken when a handshake that passed the cookie exchange starts
//! (RFC 6347 §4.2.1: before it, the server keeps no state) and is
//! *half-open* until the handshake completes. The table answers each new
//! handshake with [`Admission`]; the caller carries out what it says (close
//! the evicted session, send the refusing alert) and reports the session's
//! life: [`SlotTable::established`], [`SlotTable::touch`] on traffic,
//! [`SlotTable::release`] when it ends, [`SlotTable::expire`] on timeouts.
//!
//! A slot is also lost to a peer that vanished: tinyDTLS (dtls.c
//! `dtls_close`) sends its close_notify once and never again, and keeps no
//! idle timer of its own, so a lost close_notify, or a client that gave up
//! while the server's last flight was on its way, leaves an established
//! session nobody will ever use. [`Limits::idle_timeout_us`] frees it.
//!
//! The policies are the ones tinyDTLS leaves to the integrator and the
//! literature compares (Vučinić et al., PIMRC 2015 count refusals; a half-open
//! flood is the attack RFC 6347 §4.2.1 leaves open once the attacker returns
//! cookies): refuse, evict the least recently used, evict the oldest, evict a
//! half-open handshake first.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;

/// What to do when a new handshake finds every slot taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Refuse the newcomer (a fatal alert); the sessions held keep going.
    Refuse,
    /// Evict the session with the oldest traffic, half-open or not.
    EvictLeastRecentlyUsed,
    /// Evict the session that took its slot first.
    EvictOldest,
    /// Evict the oldest half-open handshake; refuse if there is none.
    EvictHalfOpen,
}

impl Policy {
    pub const ALL: [Policy; 4] = [
        Policy::Refuse,
        Policy::EvictLeastRecentlyUsed,
        Policy::EvictOldest,
        Policy::EvictHalfOpen,
    ];

    /// The name a scenario file and the command line use.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Refuse => "refuse",
            Policy::EvictLeastRecentlyUsed => "evict-lru",
            Policy::EvictOldest => "evict-oldest",
            Policy::EvictHalfOpen => "evict-half-open",
        }
    }

    /// The policy a name of [`Policy::name`] stands for.
    pub fn from_name(name: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How long a handshake may stay half-open (cookie verified, not complete)
/// before its slot is freed, by default: the library's and the command
/// line's one value.
///
/// No longer than a live peer can need: a client on the RFC 6347 §4.2.4.1
/// timer (1 s, doubled on every expiry up to 60 s) with 6 retransmissions
/// (`dtls::RetransmitPolicy::RFC6347`) waits at most 1 + 2 + 4 + 8 + 16 +
/// 32 + 60 = 123 s for the answer to one flight before it gives up, and a
/// half-open handshake waits on two of its flights (the ClientHello with
/// the cookie, then ClientKeyExchange … Finished): 246 s. A peer silent
/// longer has gone; one still retrying is never cut, however lossy its path.
pub const HALF_OPEN_TIMEOUT_US: u64 = 2 * (1 + 2 + 4 + 8 + 16 + 32 + 60) * 1_000_000;

/// How long an established session may stay silent before its slot is
/// freed, in [`Limits::guarded`]: one hour.
///
/// RFC 7925 §10 (keep-alive) leaves it to the server to tear down state it
/// has not heard from, and to the client to resume or run a new handshake
/// when its session is gone; a client that vanished (reboot, NAT rebinding,
/// a close_notify lost) never comes back to its session. estimate: an hour
/// outlasts the reporting period of a periodic CoAP client, so a live one
/// keeps its session, and frees a vanished one's slot the same hour.
pub const IDLE_TIMEOUT_US: u64 = 3_600 * 1_000_000;

/// How long an established session must have been silent before a new
/// handshake may take its slot rather than be refused, in
/// [`Limits::guarded`]: 60 s, the RFC 6347 §4.2.4.1 timer's ceiling. A
/// session silent longer has no exchange of the peer's in flight (a peer
/// waiting for an answer would have retransmitted); if its peer is still
/// there, it runs a new handshake when it next speaks.
pub const IDLE_EVICTABLE_US: u64 = 60 * 1_000_000;

/// The shortest time between two handshakes one host may start, in
/// [`Limits::guarded`]: 100 ms. estimate: a live client retransmits its
/// hello after a second (RFC 6347 §4.2.4.1, RFC 9147 §5.8), so one
/// handshake per 100 ms per address holds ten clients behind a NAT
/// starting at once, while a flood from a few addresses can no longer
/// churn the half-open slots faster than a slow client answers.
pub const PER_HOST_INTERVAL_US: u64 = 100_000;

/// The table's bounds. Times in µs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Session slots, half-open or established (at least 1).
    pub slots: usize,
    /// At most this many half-open handshakes; one more evicts the oldest
    /// half-open one (under [`Policy::Refuse`]: is refused). None: no limit
    /// but the table's.
    pub half_open_max: Option<usize>,
    /// A handshake still half-open this long after it took its slot loses it.
    pub half_open_timeout_us: Option<u64>,
    /// An established session with no traffic this long loses its slot (a
    /// peer that left without a close_notify the server heard).
    pub idle_timeout_us: Option<u64>,
    /// At most this many slots per host (all ports of one address); one
    /// more evicts that host's oldest half-open handshake, or is refused if
    /// it has none or the policy is [`Policy::Refuse`].
    pub per_host_max: Option<usize>,
    /// When a new handshake would be refused (table, half-open limit or
    /// host share full, whatever the policy), an established session
    /// silent at least this long is evicted instead: the one silent
    /// longest (of the newcomer's host, when its share is full). None:
    /// established sessions are never evicted for being idle.
    pub idle_evictable_us: Option<u64>,
    /// Protect handshakes that have progressed ([`SlotTable::progressed`]:
    /// the client answered the server's first flight): a newcomer evicts a
    /// half-open handshake that has not progressed if there is one, and
    /// takes it from the host holding the most half-open slots (the oldest
    /// of that host's), so a flood from a few addresses evicts its own.
    pub protect_progressed: bool,
    /// A host that started a handshake less than this ago (its newest
    /// half-open slot is younger) starts no other yet:
    /// [`Refusal::HostRate`], which the caller answers with nothing (the
    /// client retransmits).
    pub per_host_interval_us: Option<u64>,
}

impl Limits {
    /// `slots` slots and no other bound.
    pub fn slots(slots: usize) -> Self {
        Limits {
            slots,
            half_open_max: None,
            half_open_timeout_us: None,
            idle_timeout_us: None,
            per_host_max: None,
            idle_evictable_us: None,
            protect_progressed: false,
            per_host_interval_us: None,
        }
    }

    /// Bounds for a server facing the open network, to be used with
    /// [`Policy::EvictHalfOpen`]: `slots` slots, half of them for
    /// handshakes in progress, a half-open timeout, an idle timeout
    /// ([`IDLE_TIMEOUT_US`]) and idle sessions evicted before a newcomer is
    /// refused ([`IDLE_EVICTABLE_US`]), a per-host cap, handshakes that
    /// progressed protected, and a per-host rate ([`PER_HOST_INTERVAL_US`]).
    pub fn guarded(slots: usize) -> Self {
        Limits {
            slots,
            // estimate: half the table for handshakes in progress leaves
            // the other half to peers that completed one.
            half_open_max: Some(slots.div_ceil(2)),
            half_open_timeout_us: Some(HALF_OPEN_TIMEOUT_US),
            // a client that vanished without a close_notify the server
            // heard never comes back to its session (RFC 7925 §10)
            idle_timeout_us: Some(IDLE_TIMEOUT_US),
            // estimate: a constrained node runs one or a few DTLS clients
            // (one per CoAP server it talks to); more from one IP is a
            // flood or a NAT.
            per_host_max: Some(4),
            idle_evictable_us: Some(IDLE_EVICTABLE_US),
            protect_progressed: true,
            per_host_interval_us: Some(PER_HOST_INTERVAL_US),
        }
    }

    /// Refuses bounds that could never admit anyone: which bound.
    pub fn validate(&self) -> Result<(), LimitError> {
        if self.slots == 0 {
            return Err(LimitError::NoSlots);
        }
        if self.half_open_max == Some(0) {
            return Err(LimitError::NoHalfOpen);
        }
        if self.per_host_max == Some(0) {
            return Err(LimitError::NoPerHost);
        }
        if self.half_open_timeout_us == Some(0) {
            return Err(LimitError::ZeroHalfOpenTimeout);
        }
        if self.idle_timeout_us == Some(0) {
            return Err(LimitError::ZeroIdleTimeout);
        }
        Ok(())
    }
}

/// A bound of [`Limits`] that could never admit anyone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LimitError {
    /// No session slot.
    NoSlots,
    /// No half-open handshake allowed.
    NoHalfOpen,
    /// No session per address allowed.
    NoPerHost,
    /// A half-open timeout of zero.
    ZeroHalfOpenTimeout,
    /// An idle timeout of zero.
    ZeroIdleTimeout,
}

impl core::fmt::Display for LimitError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            LimitError::NoSlots => "max_sessions must be at least 1",
            LimitError::NoHalfOpen => "max_half_open must be at least 1",
            LimitError::NoPerHost => "max_sessions_per_address must be at least 1",
            LimitError::ZeroHalfOpenTimeout => "half_open_timeout_us must be positive",
            LimitError::ZeroIdleTimeout => "idle_timeout_us must be positive",
        })
    }
}

/// Whose a slot is: a peer, and the host it is on (for the per-host cap).
/// Hashable, for the table's index by peer.
pub trait Peer: Clone + Eq + Hash {
    fn same_host(&self, other: &Self) -> bool;
}

impl Peer for std::net::SocketAddr {
    fn same_host(&self, other: &Self) -> bool {
        self.ip() == other.ip()
    }
}

/// Why a handshake got no slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Every slot taken and the policy evicts none.
    Full,
    /// The half-open limit reached, under [`Policy::Refuse`].
    HalfOpenLimit,
    /// The peer's host holds its share already, none of it half-open (or
    /// the policy is [`Policy::Refuse`]).
    PerHost,
    /// The peer's host started a handshake less than
    /// [`Limits::per_host_interval_us`] ago.
    HostRate,
}

/// Which timeout freed a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    /// A handshake half-open past [`Limits::half_open_timeout_us`].
    HalfOpen,
    /// A session silent past [`Limits::idle_timeout_us`].
    Idle,
}

/// The table's answer to a new handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission<K> {
    /// A free slot was taken.
    Admitted,
    /// The slot of this session was taken over: the caller ends it.
    Evicted(K),
    Refused(Refusal),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Slot<K> {
    peer: K,
    /// When it was taken, counted in slots taken: the table's order.
    seq: u64,
    opened_at: u64,
    last_used: u64,
    established: bool,
    /// The client answered the server's first flight.
    progressed: bool,
}

impl<K> Slot<K> {
    /// When this slot times out under `limits`, and by which timeout.
    fn deadline(&self, limits: &Limits) -> Option<(u64, Expiry)> {
        if self.established {
            let idle = limits.idle_timeout_us?;
            Some((self.last_used.saturating_add(idle), Expiry::Idle))
        } else {
            let half_open = limits.half_open_timeout_us?;
            Some((self.opened_at.saturating_add(half_open), Expiry::HalfOpen))
        }
    }
}

/// R slots and the policy that fills them.
#[derive(Debug, Clone)]
pub struct SlotTable<K> {
    limits: Limits,
    policy: Policy,
    /// In the order they were taken (so by `seq`): the order every walk
    /// and every tie between victims follows.
    slots: Vec<Slot<K>>,
    /// Each peer's `seq`, so that finding a peer's slot is a binary search
    /// rather than a scan of a table of thousands (only looked up, never
    /// walked: its order plays no part).
    index: HashMap<K, u64>,
    /// The `seq` of the next slot taken.
    next_seq: u64,
}

impl<K: Peer> SlotTable<K> {
    pub fn new(limits: Limits, policy: Policy) -> Self {
        SlotTable {
            limits,
            policy,
            slots: Vec::with_capacity(limits.slots),
            index: HashMap::new(),
            next_seq: 0,
        }
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Slots taken.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn is_full(&self) -> bool {
        self.slots.len() >= self.limits.slots
    }

    pub fn half_open(&self) -> usize {
        self.slots.iter().filter(|s| !s.established).count()
    }

    /// The peers holding slots, in the order they took them.
    pub fn peers(&self) -> impl Iterator<Item = &K> {
        self.slots.iter().map(|s| &s.peer)
    }

    /// The peers holding slots with whether each is established, in the
    /// order they took them.
    pub fn peers_established(&self) -> impl Iterator<Item = (&K, bool)> {
        self.slots.iter().map(|s| (&s.peer, s.established))
    }

    pub fn holds(&self, peer: &K) -> bool {
        self.index.contains_key(peer)
    }

    /// Where the slot of `peer` stands in the table's order ([`Self::peers`]):
    /// a number that sorts slots as the table holds them, and whether it is
    /// established. None: `peer` holds no slot.
    pub fn rank(&self, peer: &K) -> Option<(u64, bool)> {
        let i = self.position(peer)?;
        Some((self.slots[i].seq, self.slots[i].established))
    }

    /// A handshake from `peer` passed the cookie exchange at `now`: give it a
    /// slot, taking one over if the policy says so. A peer holding a slot
    /// already starts anew in it (RFC 6347 §4.2.8). At most one eviction
    /// makes room: every bound counts the evicted session.
    pub fn admit(&mut self, peer: K, now: u64) -> Admission<K> {
        if let Some(i) = self.position(&peer) {
            self.remove_at(i);
        }
        if let Some(interval) = self.limits.per_host_interval_us {
            let newest = self
                .slots
                .iter()
                .filter(|s| !s.established && s.peer.same_host(&peer))
                .map(|s| s.opened_at)
                .max();
            if newest.is_some_and(|t| now < t.saturating_add(interval)) {
                return Admission::Refused(Refusal::HostRate);
            }
        }
        let may_evict = self.policy != Policy::Refuse;
        let host_full = self.limits.per_host_max.is_some_and(|cap| {
            self.slots
                .iter()
                .filter(|s| s.peer.same_host(&peer))
                .count()
                >= cap
        });
        let half_open_full = self
            .limits
            .half_open_max
            .is_some_and(|max| self.half_open() >= max);
        let victim = if host_full {
            // a host's own handshakes make room for it, never another's
            // sessions: a flood from one host stays within its share
            match self.half_open_victim(|s| s.peer.same_host(&peer)) {
                Some(i) if may_evict => Some(i),
                _ => match self.idle_victim(now, |s| s.peer.same_host(&peer)) {
                    Some(i) => Some(i),
                    None => return Admission::Refused(Refusal::PerHost),
                },
            }
        } else if half_open_full {
            if !may_evict {
                return Admission::Refused(Refusal::HalfOpenLimit);
            }
            self.half_open_victim(|_| true)
        } else if self.is_full() {
            match self.policy {
                Policy::Refuse => None,
                Policy::EvictLeastRecentlyUsed => self.min_by(|s| s.last_used),
                Policy::EvictOldest => self.min_by(|s| s.opened_at),
                Policy::EvictHalfOpen => self.half_open_victim(|_| true),
            }
        } else {
            None
        };
        // an idle established session gives up its slot before the
        // newcomer is refused for want of one
        let victim = match victim {
            Some(i) => Some(i),
            None if self.is_full() && !half_open_full => self.idle_victim(now, |_| true),
            None => None,
        };
        let answer = match victim {
            Some(i) => Admission::Evicted(self.remove_at(i).peer),
            None if self.is_full() => return Admission::Refused(Refusal::Full),
            None if half_open_full => return Admission::Refused(Refusal::HalfOpenLimit),
            None => Admission::Admitted,
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        self.index.insert(peer.clone(), seq);
        self.slots.push(Slot {
            peer,
            seq,
            opened_at: now,
            last_used: now,
            established: false,
            progressed: false,
        });
        #[cfg(debug_assertions)]
        self.check_index();
        answer
    }

    /// The handshake of `peer` has progressed: its client answered the
    /// server's first flight (see [`Limits::protect_progressed`]).
    pub fn progressed(&mut self, peer: &K) {
        if let Some(i) = self.position(peer) {
            self.slots[i].progressed = true;
        }
    }

    /// The handshake of `peer` completed: its slot is no longer half-open.
    pub fn established(&mut self, peer: &K, now: u64) {
        if let Some(i) = self.position(peer) {
            let slot = &mut self.slots[i];
            if !slot.established {
                slot.established = true;
                slot.last_used = now;
            }
        }
    }

    /// Traffic of `peer` at `now` (for least-recently-used).
    pub fn touch(&mut self, peer: &K, now: u64) {
        if let Some(i) = self.position(peer) {
            self.slots[i].last_used = now;
        }
    }

    /// The session of `peer` ended: its slot is free. False if it held none.
    pub fn release(&mut self, peer: &K) -> bool {
        match self.position(peer) {
            Some(i) => {
                self.remove_at(i);
                true
            }
            None => false,
        }
    }

    /// Free the slots of handshakes half-open past their timeout and of
    /// sessions idle past theirs at `now`; their peers, for the caller to
    /// end, and which timeout freed each.
    pub fn expire(&mut self, now: u64) -> Vec<(K, Expiry)> {
        let mut gone = Vec::new();
        let limits = self.limits;
        self.slots.retain(|s| match s.deadline(&limits) {
            Some((at, why)) if at <= now => {
                gone.push((s.peer.clone(), why));
                false
            }
            _ => true,
        });
        for (peer, _) in &gone {
            self.index.remove(peer);
        }
        #[cfg(debug_assertions)]
        self.check_index();
        gone
    }

    /// When the next slot times out, if one can.
    pub fn next_expiry(&self) -> Option<u64> {
        self.slots
            .iter()
            .filter_map(|s| s.deadline(&self.limits))
            .map(|(at, _)| at)
            .min()
    }

    /// The session of `from` follows its peer to `to` (an authenticated
    /// address change, RFC 9146 §6), keeping its age and its place.
    pub fn moved(&mut self, from: &K, to: K) {
        if let Some(i) = self.position(from) {
            self.index.remove(from);
            self.index.insert(to.clone(), self.slots[i].seq);
            self.slots[i].peer = to;
        }
        #[cfg(debug_assertions)]
        self.check_index();
    }

    /// Where the slot of `peer` is in `slots`: its `seq` by the index,
    /// then a binary search (the slots are in `seq` order).
    fn position(&self, peer: &K) -> Option<usize> {
        let seq = *self.index.get(peer)?;
        self.slots.binary_search_by_key(&seq, |s| s.seq).ok()
    }

    /// Take slot `i` out of the table and the index.
    fn remove_at(&mut self, i: usize) -> Slot<K> {
        let slot = self.slots.remove(i);
        self.index.remove(&slot.peer);
        slot
    }

    /// Debug builds (the tests) check the index against the slots: one
    /// entry per slot, in `seq` order.
    #[cfg(debug_assertions)]
    fn check_index(&self) {
        assert_eq!(self.index.len(), self.slots.len(), "index size");
        assert!(self.slots.windows(2).all(|w| w[0].seq < w[1].seq));
        for s in &self.slots {
            assert_eq!(self.index.get(&s.peer), Some(&s.seq), "index entry");
        }
    }

    /// The half-open slot a newcomer takes over, of those `of` picks: the
    /// oldest; under [`Limits::protect_progressed`], one that has not
    /// progressed if any, from the host holding the most half-open slots.
    fn half_open_victim(&self, of: impl Fn(&Slot<K>) -> bool) -> Option<usize> {
        if !self.limits.protect_progressed {
            return self.oldest_half_open(of);
        }
        let candidates = |progressed: bool| {
            self.slots
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.established && s.progressed == progressed && of(s))
                .map(|(i, s)| {
                    let held = self
                        .slots
                        .iter()
                        .filter(|o| !o.established && o.peer.same_host(&s.peer))
                        .count();
                    // the busiest host first, then the oldest
                    (core::cmp::Reverse(held), s.opened_at, i)
                })
                .min()
                .map(|(_, _, i)| i)
        };
        candidates(false).or_else(|| candidates(true))
    }

    /// The established session silent longest of those `of` picks, if it
    /// has been silent at least [`Limits::idle_evictable_us`].
    fn idle_victim(&self, now: u64, of: impl Fn(&Slot<K>) -> bool) -> Option<usize> {
        let after = self.limits.idle_evictable_us?;
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.established && of(s))
            .filter(|(_, s)| now.saturating_sub(s.last_used) >= after)
            .min_by_key(|(_, s)| s.last_used)
            .map(|(i, _)| i)
    }

    /// The oldest half-open slot of those `of` picks.
    fn oldest_half_open(&self, of: impl Fn(&Slot<K>) -> bool) -> Option<usize> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.established && of(s))
            .min_by_key(|(_, s)| s.opened_at)
            .map(|(i, _)| i)
    }

    /// The first slot with the least `key` (ties: the one taken first).
    fn min_by(&self, key: impl Fn(&Slot<K>) -> u64) -> Option<usize> {
        self.slots
            .iter()
            .enumerate()
            .min_by_key(|(_, s)| key(s))
            .map(|(i, _)| i)
    }
}
