//! Reassembly of fragmented first ClientHellos for the server endpoint,
//! in a fixed number of fixed-size slots.
//!
//! The stateless cookie check (RFC 9147 §5.1) needs a whole ClientHello,
//! but a path with a small MTU fragments it, and RFC 9147 §5.5 has the
//! receiver buffer fragments until it holds the whole message. Between
//! the two, the endpoint keeps partial hellos of peers without a session
//! in [`HELLO_SLOTS`] slots of at most [`MAX_HELLO_LEN`] bytes each, one
//! slot per address: whatever arrives, this table never holds more than
//! [`PendingHellos::BOUND_BYTES`] of hello bodies. When every slot is
//! taken a new address evicts the slot started longest ago, so a flood
//! of fragments from spoofed addresses costs the server no memory beyond
//! the bound, only the chance that a genuine hello is evicted before its
//! last fragment (its client resends the flight on its timer, RFC 9147
//! §5.8). Nothing beyond the bytes is spent: no crypto before the hello is
//! whole, and a whole hello still goes through the cookie check.

use std::net::SocketAddr;

use crate::fragment::FragmentHeader;

/// Partial ClientHellos held at once. estimate: a handful covers the
/// clients of one border router joining at the same time; more only
/// widens what a flood must fill.
pub const HELLO_SLOTS: usize = 4;

/// Longest ClientHello reassembled from fragments. estimate: a PSK or
/// certificate ClientHello with one key share, its cookie and a CID is a
/// few hundred bytes (RFC 8446 §4.1.2 with RFC 9147 §5.3); 1024 leaves
/// room for a second share or group list without growing the bound much.
pub const MAX_HELLO_LEN: usize = 1024;

/// Most disjoint received ranges tracked per hello; a fragment that would
/// open another one is dropped (it comes again with the flight).
const MAX_RANGES: usize = 8;

/// A ClientHello received whole from its fragments.
#[derive(Debug)]
pub struct Reassembled {
    /// Record number of the fragment that completed it.
    pub record_seq: u64,
    /// Its message_seq.
    pub message_seq: u16,
    /// The message body.
    pub body: Vec<u8>,
}

/// What became of one fragment.
#[derive(Debug)]
pub enum Offered {
    /// Kept; the hello is not whole yet.
    Kept,
    /// Kept, and it started a slot by evicting another address's hello.
    KeptEvicting,
    /// Refused (too long, inconsistent, or too scattered).
    Refused,
    /// The hello is whole; its slot is free again.
    Whole(Reassembled),
}

#[derive(Debug)]
struct Slot {
    from: SocketAddr,
    /// When the slot was started, in fragments offered to the table.
    started: u64,
    message_seq: u16,
    body: Vec<u8>,
    /// Sorted, disjoint, non-adjacent [start, end) ranges received.
    have: Vec<(usize, usize)>,
    last_record_seq: u64,
}

impl Slot {
    fn whole(&self) -> bool {
        self.have == [(0, self.body.len())]
    }

    /// Add `data` at `off`, unless it would need a range past
    /// [`MAX_RANGES`].
    fn add(&mut self, off: usize, data: &[u8]) -> bool {
        if data.is_empty() {
            return true;
        }
        let end = off + data.len();
        let mut ranges = self.have.clone();
        ranges.push((off, end));
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
        for (s, e) in ranges {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        if merged.len() > MAX_RANGES {
            return false;
        }
        self.body[off..end].copy_from_slice(data);
        self.have = merged;
        true
    }
}

/// Partial first ClientHellos by peer address, bounded.
#[derive(Debug, Default)]
pub struct PendingHellos {
    slots: Vec<Slot>,
    offered: u64,
}

impl PendingHellos {
    /// Most bytes of hello bodies the table ever holds.
    pub const BOUND_BYTES: usize = HELLO_SLOTS * MAX_HELLO_LEN;

    /// Offer one ClientHello fragment (`h`, `data`) carried in plaintext
    /// record `record_seq` from `from`.
    pub fn offer(
        &mut self,
        from: SocketAddr,
        record_seq: u64,
        h: &FragmentHeader,
        data: &[u8],
    ) -> Offered {
        self.offered += 1;
        let len = h.length as usize;
        if len == 0 || len > MAX_HELLO_LEN {
            return Offered::Refused;
        }
        let mut evicted = false;
        let i = match self.slots.iter().position(|s| s.from == from) {
            // a later hello (the second, after a retry) replaces the first
            Some(i) if h.message_seq > self.slots[i].message_seq => {
                self.slots[i] = self.new_slot(from, h);
                i
            }
            Some(i) if h.message_seq < self.slots[i].message_seq => return Offered::Refused,
            Some(i) => i,
            None if self.slots.len() < HELLO_SLOTS => {
                self.slots.push(self.new_slot(from, h));
                self.slots.len() - 1
            }
            None => {
                let oldest = (0..self.slots.len())
                    .min_by_key(|i| self.slots[*i].started)
                    .unwrap_or(0);
                self.slots[oldest] = self.new_slot(from, h);
                evicted = true;
                oldest
            }
        };
        let slot = &mut self.slots[i];
        if slot.body.len() != len || !slot.add(h.fragment_offset as usize, data) {
            return Offered::Refused;
        }
        slot.last_record_seq = slot.last_record_seq.max(record_seq);
        if slot.whole() {
            let s = self.slots.swap_remove(i);
            return Offered::Whole(Reassembled {
                record_seq: s.last_record_seq,
                message_seq: s.message_seq,
                body: s.body,
            });
        }
        if evicted {
            Offered::KeptEvicting
        } else {
            Offered::Kept
        }
    }

    fn new_slot(&self, from: SocketAddr, h: &FragmentHeader) -> Slot {
        Slot {
            from,
            started: self.offered,
            message_seq: h.message_seq,
            body: vec![0; h.length as usize],
            have: Vec::with_capacity(MAX_RANGES + 1),
            last_record_seq: 0,
        }
    }

    /// Forget `from`'s partial hello (it has a session now).
    pub fn forget(&mut self, from: &SocketAddr) {
        self.slots.retain(|s| s.from != *from);
    }

    /// Bytes of hello bodies held now (never above
    /// [`Self::BOUND_BYTES`]).
    pub fn held_bytes(&self) -> usize {
        self.slots.iter().map(|s| s.body.len()).sum()
    }

    /// Partial hellos held now.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Is nothing held?
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}
