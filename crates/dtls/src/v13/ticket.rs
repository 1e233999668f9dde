//! DTLS 1.3 session resumption by ticket (RFC 8446 §4.6.1, §2.2): the
//! NewSessionTicket message, the server's ticket store and the client's
//! ticket.
//!
//! The server keeps its tickets: a ticket is an opaque random identity
//! mapped, in a bounded store shared by the endpoint's sessions, to the
//! resumption PSK, the suite's hash, when it was issued and its lifetime.
//! A stateful store rather than a self-contained encrypted ticket because
//! it is bounded by its own size (a server sized by `--session-cache N`
//! holds N tickets, as 1.2's session cache holds N sessions), needs no
//! ticket-encryption key to rotate or protect, makes each ticket single-use
//! (taken from the store when it resumes a handshake, so a replayed
//! ClientHello cannot resume twice; RFC 8446 §8.1, §C.4) and makes a ticket
//! the store has forgotten (evicted, expired) simply unknown: the server
//! then goes on with a full handshake. The price is state per ticket
//! (identity, PSK, a few counters: under 120 bytes), which a server sized
//! for N resumable clients accepts.
//!
//! Sans-IO: the store reads no clock; the times are the connection's.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use super::suite::{CipherSuite13, HashAlg};
use crate::codec::{finish, trunc, Reader, Writer};
use crate::error::v13::{Field, MessageError};
use crate::Instant;
use crate::Secret;

/// Bytes of a ticket identity: random, so it names a store entry and
/// tells nothing (RFC 8446 §4.6.1 leaves the ticket's form to the server).
pub const TICKET_ID_LEN: usize = 16;

/// Longest ticket lifetime a server may give (RFC 8446 §4.6.1: 7 days).
pub const MAX_TICKET_LIFETIME_S: u32 = 604_800;

/// The lifetime the UDP server gives its tickets: an hour, well inside
/// RFC 8446 §4.6.1's 7 days, since a ticket resumes without the
/// certificate and a short life limits what a copied one is good for
/// (§C.4, §8). A choice, not a measured figure.
pub const TICKET_LIFETIME_S: u32 = 3600;

/// A NewSessionTicket body (RFC 8446 §4.6.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewSessionTicket {
    /// Seconds the ticket may be used for.
    pub ticket_lifetime: u32,
    /// Added (mod 2^32) to the ticket's age in ms in the client's
    /// obfuscated_ticket_age.
    pub ticket_age_add: u32,
    /// Makes each ticket of a connection's PSK unique.
    pub ticket_nonce: Vec<u8>,
    /// The identity the client offers.
    pub ticket: Vec<u8>,
    /// Extensions (none sent; early_data is not supported here).
    pub extensions: Vec<u8>,
}

impl NewSessionTicket {
    /// Append the body to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.ticket_lifetime.to_be_bytes());
        out.extend_from_slice(&self.ticket_age_add.to_be_bytes());
        out.put_vec8(&self.ticket_nonce);
        out.put_vec16(&self.ticket);
        out.put_vec16(&self.extensions);
    }

    /// Decode a body; an empty ticket is refused (`ticket<1..2^16-1>`).
    pub fn decode(body: &[u8]) -> Result<Self, MessageError> {
        let f = Field::NewSessionTicket;
        let mut r = Reader::new(body);
        let ticket_lifetime = u32::from_be_bytes(r.array::<4>().map_err(trunc(f))?);
        let ticket_age_add = u32::from_be_bytes(r.array::<4>().map_err(trunc(f))?);
        let ticket_nonce = r.vec8().map_err(trunc(f))?.to_vec();
        let ticket = r.vec16().map_err(trunc(f))?.to_vec();
        let extensions = r.vec16().map_err(trunc(f))?.to_vec();
        finish(&r, f)?;
        if ticket.is_empty() {
            return Err(MessageError::BadLength(f));
        }
        Ok(NewSessionTicket {
            ticket_lifetime,
            ticket_age_add,
            ticket_nonce,
            ticket,
            extensions,
        })
    }
}

/// What a client keeps of a ticket to resume with it later: secret (the
/// PSK), kept out of `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Ticket13 {
    /// The identity to offer.
    pub identity: Vec<u8>,
    /// The resumption PSK (RFC 8446 §4.6.1).
    pub psk: Secret,
    /// The suite of the connection that got it: its hash is the PSK's
    /// (RFC 8446 §4.2.11).
    pub suite: CipherSuite13,
    /// ticket_lifetime, seconds.
    pub lifetime_s: u32,
    /// ticket_age_add.
    pub age_add: u32,
}

impl core::fmt::Debug for Ticket13 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ticket13")
            .field("suite", &self.suite)
            .field("lifetime_s", &self.lifetime_s)
            .finish_non_exhaustive()
    }
}

impl Ticket13 {
    /// obfuscated_ticket_age of this ticket `age_ms` after it came (RFC
    /// 8446 §4.2.11.1).
    pub fn obfuscated_age(&self, age_ms: u32) -> u32 {
        age_ms.wrapping_add(self.age_add)
    }
}

/// A ticket the server issued.
struct Issued {
    psk: Secret,
    hash: HashAlg,
    issued_at: Instant,
    lifetime_us: u64,
}

/// The server's tickets: at most `capacity`, the oldest forgotten first,
/// each used once. Shared by the sessions of an endpoint.
pub struct TicketStore13 {
    capacity: usize,
    lifetime_s: u32,
    inner: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    by_id: HashMap<Vec<u8>, Issued>,
    /// Identities, oldest first.
    order: VecDeque<Vec<u8>>,
}

impl core::fmt::Debug for TicketStore13 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TicketStore13")
            .field("capacity", &self.capacity)
            .field("lifetime_s", &self.lifetime_s)
            .field("held", &self.len())
            .finish()
    }
}

/// What the store says of an identity a client offers.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Never issued, or forgotten to make room.
    Unknown,
    /// Issued, but older than its lifetime (forgotten now).
    Expired,
    /// Issued to a connection of another hash.
    OtherHash,
}

impl TicketStore13 {
    /// A store of `capacity` tickets, each valid for `lifetime_s` seconds
    /// (at most [`MAX_TICKET_LIFETIME_S`]).
    pub fn new(capacity: usize, lifetime_s: u32) -> Self {
        TicketStore13 {
            capacity,
            lifetime_s: lifetime_s.min(MAX_TICKET_LIFETIME_S),
            inner: Mutex::new(Entries::default()),
        }
    }

    /// Tickets held.
    pub fn len(&self) -> usize {
        self.entries().by_id.len()
    }

    /// No ticket held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The lifetime given to new tickets, seconds.
    pub fn lifetime_s(&self) -> u32 {
        self.lifetime_s
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        // a panic elsewhere while holding the lock leaves the map whole
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keep a new ticket `id` for `psk`, forgetting the oldest if full.
    pub(crate) fn issue(&self, id: Vec<u8>, psk: Secret, hash: HashAlg, now: Instant) {
        if self.capacity == 0 {
            return;
        }
        let mut e = self.entries();
        while e.by_id.len() >= self.capacity {
            let Some(old) = e.order.pop_front() else {
                break;
            };
            e.by_id.remove(&old);
        }
        e.order.push_back(id.clone());
        let issued = Issued {
            psk,
            hash,
            issued_at: now,
            lifetime_us: u64::from(self.lifetime_s) * 1_000_000,
        };
        e.by_id.insert(id, issued);
    }

    /// The PSK of ticket `id` for a handshake of `hash` at `now`, if it is
    /// known and still valid; it is not taken (see [`Self::take`]).
    pub(crate) fn psk(&self, id: &[u8], hash: HashAlg, now: Instant) -> Result<Secret, Lookup> {
        let mut e = self.entries();
        let Some(t) = e.by_id.get(id) else {
            return Err(Lookup::Unknown);
        };
        if now.saturating_sub(t.issued_at) > t.lifetime_us {
            e.by_id.remove(id);
            e.order.retain(|x| x != id);
            return Err(Lookup::Expired);
        }
        if t.hash != hash {
            return Err(Lookup::OtherHash);
        }
        Ok(t.psk.clone())
    }

    /// Forget ticket `id`: it resumed a handshake and is used up.
    pub(crate) fn take(&self, id: &[u8]) {
        let mut e = self.entries();
        if e.by_id.remove(id).is_some() {
            e.order.retain(|x| x != id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_session_ticket_round_trip() {
        let t = NewSessionTicket {
            ticket_lifetime: 3600,
            ticket_age_add: 0x0102_0304,
            ticket_nonce: vec![0],
            ticket: vec![7; TICKET_ID_LEN],
            extensions: Vec::new(),
        };
        let mut b = Vec::new();
        t.encode(&mut b);
        assert_eq!(b.len(), 4 + 4 + 2 + 2 + TICKET_ID_LEN + 2);
        assert_eq!(NewSessionTicket::decode(&b), Ok(t));
        assert!(NewSessionTicket::decode(&b[..b.len() - 1]).is_err());
        let mut empty = Vec::new();
        NewSessionTicket {
            ticket_lifetime: 1,
            ticket_age_add: 0,
            ticket_nonce: Vec::new(),
            ticket: Vec::new(),
            extensions: Vec::new(),
        }
        .encode(&mut empty);
        assert!(NewSessionTicket::decode(&empty).is_err());
    }

    #[test]
    fn the_store_is_bounded_expires_and_uses_each_ticket_once() {
        let s = TicketStore13::new(2, 10);
        let psk = || Secret(vec![1; 32]);
        s.issue(vec![1], psk(), HashAlg::Sha256, 0);
        s.issue(vec![2], psk(), HashAlg::Sha256, 0);
        s.issue(vec![3], psk(), HashAlg::Sha256, 0);
        assert_eq!(s.len(), 2);
        assert_eq!(s.psk(&[1], HashAlg::Sha256, 0), Err(Lookup::Unknown));
        assert!(s.psk(&[2], HashAlg::Sha256, 10_000_000).is_ok());
        assert_eq!(s.psk(&[2], HashAlg::Sha384, 0), Err(Lookup::OtherHash));
        assert_eq!(
            s.psk(&[2], HashAlg::Sha256, 10_000_001),
            Err(Lookup::Expired)
        );
        assert_eq!(s.len(), 1);
        s.take(&[3]);
        assert!(s.is_empty());
        assert_eq!(
            TicketStore13::new(1, u32::MAX).lifetime_s(),
            MAX_TICKET_LIFETIME_S
        );
    }
}
