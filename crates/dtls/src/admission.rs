//! Who gets a session slot: the server's admission policy for a new,
//! cookie-verified handshake. Pure decisions over a snapshot of the session
//! table (no I/O, no clock: `now` is an argument), so the UDP server and the
//! simulated server share one definition of every rule.
//!
//! Without these rules, clients that pass the cookie exchange and then go
//! silent hold their slots until their retransmissions give up (RFC 6347
//! timer: 1 + 2 + 4 + 8 + 16 + 32 + 60 s ≈ two minutes), and a full table of
//! them locks every new client out (RFC 6347 §4.2.1 notes the cookie only
//! proves the address, not good intent).

use crate::Instant;

/// Which session, if any, makes room when the table is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eviction {
    /// Never evict: a new handshake is refused.
    Refuse,
    /// Evict the session created first.
    Oldest,
    /// Evict the session whose peer was heard from least recently.
    LeastRecentlyUsed,
    /// Evict the oldest half-open handshake; refuse when every session is
    /// established (an address that passed the cookie exchange cannot push
    /// out an authenticated peer).
    HalfOpenFirst,
}

/// Bounds of a server's session table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    /// Sessions held at once, half-open and established.
    pub max_sessions: usize,
    /// Half-open handshakes (cookie verified, handshake not complete) held
    /// at once; at the limit the oldest one makes room (unless the policy
    /// is [`Eviction::Refuse`]).
    pub max_half_open: usize,
    /// A half-open handshake older than this is dropped, whatever its
    /// retransmission timer says.
    pub half_open_timeout_us: u64,
    /// Sessions from one address (IP, any port) held at once; at the cap
    /// that address's oldest half-open handshake makes room, or the new
    /// one is refused.
    pub max_per_address: usize,
    /// What makes room when the table is full.
    pub eviction: Eviction,
}

/// One session as the policy sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionEntry<K, A> {
    /// The session's key in the caller's table.
    pub key: K,
    /// The peer's address as the per-address cap counts it.
    pub address: A,
    /// Handshake not complete yet.
    pub half_open: bool,
    /// Creation order (unique, increasing): "oldest" is the smallest, so
    /// ties in time never depend on the table's iteration order.
    pub created: u64,
    /// When the session was created.
    pub created_at: Instant,
    /// When the peer was last heard from.
    pub last_active: Instant,
}

/// Why a new handshake was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The table (or the half-open share of it) is full and nothing may be
    /// evicted.
    Full,
    /// The address already holds its share of sessions.
    AddressCap,
}

/// The decision on a new handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission<K> {
    /// A slot is free.
    Admit,
    /// Remove this session first, then admit.
    Evict(K),
    /// Do not create the session.
    Refuse(Refusal),
}

impl SessionLimits {
    /// A table of `max_sessions` with no separate half-open limit, timeout
    /// or per-address cap.
    pub fn table(max_sessions: usize, eviction: Eviction) -> Self {
        SessionLimits {
            max_sessions,
            max_half_open: max_sessions,
            half_open_timeout_us: u64::MAX,
            max_per_address: usize::MAX,
            eviction,
        }
    }

    /// Bounds for a server facing the open network: a table of
    /// `max_sessions`, half of it for handshakes in progress, a half-open
    /// timeout, a per-address cap, and the oldest half-open handshake
    /// evicted first.
    pub fn guarded(max_sessions: usize) -> Self {
        SessionLimits {
            max_sessions,
            // estimate: half the table for handshakes in progress leaves
            // the other half to peers that completed one.
            max_half_open: max_sessions.div_ceil(2),
            // estimate: a PSK handshake over a duty-cycled multi-hop
            // 802.15.4 path takes seconds; 30 s lets one flight be resent
            // four times on the RFC 6347 timer (at 1, 3, 7 and 15 s).
            half_open_timeout_us: 30_000_000,
            // estimate: a constrained node runs one or a few DTLS clients
            // (one per CoAP server it talks to); more from one IP is a
            // flood or a NAT.
            max_per_address: 4,
            eviction: Eviction::HalfOpenFirst,
        }
    }

    /// Refuses limits that could never admit anyone.
    pub fn validate(&self) -> Result<(), crate::Error> {
        if self.max_sessions == 0 {
            return Err(crate::Error::Config("max_sessions must be at least 1"));
        }
        if self.max_half_open == 0 {
            return Err(crate::Error::Config("max_half_open must be at least 1"));
        }
        if self.max_per_address == 0 {
            return Err(crate::Error::Config(
                "max_sessions_per_address must be at least 1",
            ));
        }
        if self.half_open_timeout_us == 0 {
            return Err(crate::Error::Config(
                "half_open_timeout_us must be positive",
            ));
        }
        Ok(())
    }

    /// When the half-open handshake `entry` expires (None if established).
    pub fn half_open_deadline<K, A>(&self, entry: &SessionEntry<K, A>) -> Option<Instant> {
        entry
            .half_open
            .then(|| entry.created_at.saturating_add(self.half_open_timeout_us))
    }

    /// The half-open handshakes that have expired at `now`.
    pub fn expired<'a, K: Copy, A>(
        &'a self,
        now: Instant,
        entries: &'a [SessionEntry<K, A>],
    ) -> impl Iterator<Item = K> + 'a {
        entries
            .iter()
            .filter(move |e| self.half_open_deadline(e).is_some_and(|d| now >= d))
            .map(|e| e.key)
    }

    /// May a new handshake from `address` have a session, given the table
    /// `entries` (expired handshakes already removed)? At most one eviction
    /// makes room: every limit counts the evicted session.
    pub fn admit<K: Copy, A: PartialEq>(
        &self,
        address: &A,
        entries: &[SessionEntry<K, A>],
    ) -> Admission<K> {
        let oldest_half_open = |of_address: bool| {
            entries
                .iter()
                .filter(|e| e.half_open && (!of_address || e.address == *address))
                .min_by_key(|e| e.created)
                .map(|e| e.key)
        };
        let may_evict = self.eviction != Eviction::Refuse;
        if entries.iter().filter(|e| e.address == *address).count() >= self.max_per_address {
            return match oldest_half_open(true) {
                Some(k) if may_evict => Admission::Evict(k),
                _ => Admission::Refuse(Refusal::AddressCap),
            };
        }
        if entries.iter().filter(|e| e.half_open).count() >= self.max_half_open {
            return match oldest_half_open(false) {
                Some(k) if may_evict => Admission::Evict(k),
                _ => Admission::Refuse(Refusal::Full),
            };
        }
        if entries.len() < self.max_sessions {
            return Admission::Admit;
        }
        let victim = match self.eviction {
            Eviction::Refuse => None,
            Eviction::Oldest => entries.iter().min_by_key(|e| e.created).map(|e| e.key),
            Eviction::LeastRecentlyUsed => entries
                .iter()
                .min_by_key(|e| (e.last_active, e.created))
                .map(|e| e.key),
            Eviction::HalfOpenFirst => oldest_half_open(false),
        };
        victim.map_or(Admission::Refuse(Refusal::Full), Admission::Evict)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: u32, address: u8, half_open: bool, created: u64) -> SessionEntry<u32, u8> {
        SessionEntry {
            key,
            address,
            half_open,
            created,
            created_at: created * 10,
            last_active: 1000 - created,
        }
    }

    fn limits(eviction: Eviction) -> SessionLimits {
        SessionLimits {
            max_sessions: 4,
            max_half_open: 3,
            half_open_timeout_us: 100,
            max_per_address: 2,
            eviction,
        }
    }

    #[test]
    fn a_full_table_evicts_by_policy() {
        // four sessions from four addresses, the first two established
        let t: Vec<_> = (0..4)
            .map(|i| entry(i, i as u8, i >= 2, u64::from(i)))
            .collect();
        let new = 9u8;
        assert_eq!(
            limits(Eviction::HalfOpenFirst).admit(&new, &t),
            Admission::Evict(2)
        );
        assert_eq!(
            limits(Eviction::Oldest).admit(&new, &t),
            Admission::Evict(0)
        );
        // last_active falls with creation order: the newest is least recent
        assert_eq!(
            limits(Eviction::LeastRecentlyUsed).admit(&new, &t),
            Admission::Evict(3)
        );
        assert_eq!(
            limits(Eviction::Refuse).admit(&new, &t),
            Admission::Refuse(Refusal::Full)
        );
        let established: Vec<_> = (0..4)
            .map(|i| entry(i, i as u8, false, u64::from(i)))
            .collect();
        assert_eq!(
            limits(Eviction::HalfOpenFirst).admit(&new, &established),
            Admission::Refuse(Refusal::Full)
        );
        assert_eq!(
            limits(Eviction::HalfOpenFirst).admit(&new, &t[..3]),
            Admission::Admit
        );
    }

    #[test]
    fn the_half_open_limit_evicts_the_oldest_half_open() {
        let t: Vec<_> = (0..3)
            .map(|i| entry(i, i as u8, true, u64::from(10 - i)))
            .collect();
        assert_eq!(
            limits(Eviction::HalfOpenFirst).admit(&9, &t),
            Admission::Evict(2)
        );
        assert_eq!(
            limits(Eviction::Refuse).admit(&9, &t),
            Admission::Refuse(Refusal::Full)
        );
    }

    #[test]
    fn the_address_cap_evicts_that_addresss_oldest_half_open_or_refuses() {
        let t = vec![
            entry(0, 1, false, 0),
            entry(1, 7, true, 1),
            entry(2, 7, true, 2),
        ];
        assert_eq!(limits(Eviction::Oldest).admit(&7, &t), Admission::Evict(1));
        assert_eq!(limits(Eviction::Oldest).admit(&5, &t), Admission::Admit);
        let t = vec![entry(1, 7, false, 1), entry(2, 7, false, 2)];
        assert_eq!(
            limits(Eviction::HalfOpenFirst).admit(&7, &t),
            Admission::Refuse(Refusal::AddressCap)
        );
    }

    #[test]
    fn half_open_handshakes_expire_established_sessions_do_not() {
        let l = limits(Eviction::HalfOpenFirst);
        let t = vec![
            entry(0, 1, true, 0),
            entry(1, 1, false, 0),
            entry(2, 2, true, 5),
        ];
        assert_eq!(l.expired(99, &t).count(), 0);
        assert_eq!(l.expired(100, &t).collect::<Vec<_>>(), vec![0]);
        assert_eq!(l.expired(150, &t).collect::<Vec<_>>(), vec![0, 2]);
        assert!(l.validate().is_ok());
        assert!(SessionLimits {
            max_half_open: 0,
            ..l
        }
        .validate()
        .is_err());
    }
}
