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

use std::fmt;

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
        }
    }

    /// Bounds for a server facing the open network, to be used with
    /// [`Policy::EvictHalfOpen`]: `slots` slots, half of them for
    /// handshakes in progress, a half-open timeout and a per-host cap.
    pub fn guarded(slots: usize) -> Self {
        Limits {
            slots,
            // estimate: half the table for handshakes in progress leaves
            // the other half to peers that completed one.
            half_open_max: Some(slots.div_ceil(2)),
            half_open_timeout_us: Some(HALF_OPEN_TIMEOUT_US),
            // an open server cannot know its clients' habits: it frees
            // only what a timeout of the handshake frees
            idle_timeout_us: None,
            // estimate: a constrained node runs one or a few DTLS clients
            // (one per CoAP server it talks to); more from one IP is a
            // flood or a NAT.
            per_host_max: Some(4),
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
pub trait Peer: Clone + PartialEq {
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
    opened_at: u64,
    last_used: u64,
    established: bool,
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
    /// In the order they were taken (a table of a few slots: a scan is
    /// cheaper than an index, and the order is deterministic).
    slots: Vec<Slot<K>>,
}

impl<K: Peer> SlotTable<K> {
    pub fn new(limits: Limits, policy: Policy) -> Self {
        SlotTable {
            limits,
            policy,
            slots: Vec::with_capacity(limits.slots),
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

    pub fn holds(&self, peer: &K) -> bool {
        self.slots.iter().any(|s| s.peer == *peer)
    }

    /// A handshake from `peer` passed the cookie exchange at `now`: give it a
    /// slot, taking one over if the policy says so. A peer holding a slot
    /// already starts anew in it (RFC 6347 §4.2.8). At most one eviction
    /// makes room: every bound counts the evicted session.
    pub fn admit(&mut self, peer: K, now: u64) -> Admission<K> {
        if let Some(i) = self.position(&peer) {
            self.slots.remove(i);
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
            match self.oldest_half_open(|s| s.peer.same_host(&peer)) {
                Some(i) if may_evict => Some(i),
                _ => return Admission::Refused(Refusal::PerHost),
            }
        } else if half_open_full {
            if !may_evict {
                return Admission::Refused(Refusal::HalfOpenLimit);
            }
            self.oldest_half_open(|_| true)
        } else if self.is_full() {
            match self.policy {
                Policy::Refuse => None,
                Policy::EvictLeastRecentlyUsed => self.min_by(|s| s.last_used),
                Policy::EvictOldest => self.min_by(|s| s.opened_at),
                Policy::EvictHalfOpen => self.oldest_half_open(|_| true),
            }
        } else {
            None
        };
        let answer = match victim {
            Some(i) => Admission::Evicted(self.slots.remove(i).peer),
            None if self.is_full() => return Admission::Refused(Refusal::Full),
            None => Admission::Admitted,
        };
        self.slots.push(Slot {
            peer,
            opened_at: now,
            last_used: now,
            established: false,
        });
        answer
    }

    /// The handshake of `peer` completed: its slot is no longer half-open.
    pub fn established(&mut self, peer: &K, now: u64) {
        if let Some(slot) = self.slots.iter_mut().find(|s| s.peer == *peer) {
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
                self.slots.remove(i);
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
            self.slots[i].peer = to;
        }
    }

    fn position(&self, peer: &K) -> Option<usize> {
        self.slots.iter().position(|s| s.peer == *peer)
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
