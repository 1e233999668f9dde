//! The 12-byte DTLS handshake header (the same in DTLS 1.2 and 1.3),
//! handshake message reassembly (out-of-order, overlapping and duplicate
//! fragments; messages ahead of the next expected one are buffered) and
//! fragmentation of outgoing messages.

use crate::codec::{Reader, Writer};
use crate::error::Error;
use crate::error::{Disagreement, Illegal, Malformed};

/// Length of the DTLS handshake header.
pub const HANDSHAKE_HEADER_LEN: usize = 12;

/// The 12-byte DTLS handshake header of one fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragmentHeader {
    /// Message type (raw).
    pub msg_type: u8,
    /// Length of the whole message body.
    pub length: u32,
    /// message_seq.
    pub message_seq: u16,
    /// Offset of this fragment.
    pub fragment_offset: u32,
    /// Length of this fragment.
    pub fragment_length: u32,
}

impl FragmentHeader {
    /// Parse a header and its fragment bytes.
    pub fn parse<'a>(r: &mut Reader<'a>) -> Result<(FragmentHeader, &'a [u8]), Error> {
        let msg_type = r.u8()?;
        let length = r.u24()?;
        let message_seq = r.u16()?;
        let fragment_offset = r.u24()?;
        let fragment_length = r.u24()?;
        if u64::from(fragment_offset) + u64::from(fragment_length) > u64::from(length) {
            return Err(Error::Decode(Malformed::FragmentBeyondMessage));
        }
        let body = r.take(fragment_length as usize)?;
        Ok((
            FragmentHeader {
                msg_type,
                length,
                message_seq,
                fragment_offset,
                fragment_length,
            },
            body,
        ))
    }
    /// Append the header.
    pub fn emit(&self, out: &mut Vec<u8>) {
        out.push(self.msg_type);
        out.put_u24(self.length);
        out.put_u16(self.message_seq);
        out.put_u24(self.fragment_offset);
        out.put_u24(self.fragment_length);
    }
}

/// A full handshake message in its transcript form (header with offset 0
/// and fragment_length = length, then the body).
pub fn transcript_form(msg_type: u8, message_seq: u16, body: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(HANDSHAKE_HEADER_LEN + body.len());
    FragmentHeader {
        msg_type,
        length: body.len() as u32,
        message_seq,
        fragment_offset: 0,
        fragment_length: body.len() as u32,
    }
    .emit(&mut v);
    v.extend_from_slice(body);
    v
}

/// How far ahead of the next expected message_seq fragments are buffered.
pub const REASSEMBLY_WINDOW: u16 = 8;

#[derive(Clone, Debug)]
struct Partial {
    seq: u16,
    msg_type: u8,
    body: Vec<u8>,
    /// Sorted, disjoint, non-adjacent [start, end) ranges received.
    have: Vec<(u32, u32)>,
}

impl Partial {
    fn complete(&self) -> bool {
        self.body.is_empty() || self.have == [(0, self.body.len() as u32)]
    }
    fn add(&mut self, off: u32, data: &[u8]) {
        let end = off + data.len() as u32;
        if data.is_empty() {
            return;
        }
        self.body[off as usize..end as usize].copy_from_slice(data);
        let mut ranges = std::mem::take(&mut self.have);
        ranges.push((off, end));
        ranges.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (s, e) in ranges {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        self.have = merged;
    }
}

/// What happened to an incoming fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insert {
    /// Buffered (or completed a message).
    Accepted,
    /// A message already delivered (the peer retransmitted).
    Old,
    /// Too far ahead; dropped.
    Ignored,
}

/// Reassembly buffer for the incoming handshake messages.
#[derive(Clone, Debug)]
pub struct Reassembler {
    next_seq: u16,
    max_len: usize,
    pending: Vec<Partial>,
}

impl Reassembler {
    /// Expect `next_seq` first; refuse messages longer than `max_len`.
    pub fn new(next_seq: u16, max_len: usize) -> Self {
        Reassembler {
            next_seq,
            max_len,
            pending: Vec::new(),
        }
    }

    /// Next message_seq to deliver.
    pub fn next_seq(&self) -> u16 {
        self.next_seq
    }

    /// Bytes buffered (for the state-size report).
    pub fn buffered_bytes(&self) -> usize {
        self.pending
            .iter()
            .map(|p| p.body.capacity() + p.have.capacity() * 8 + 8)
            .sum()
    }

    /// Add one fragment.
    pub fn insert(&mut self, h: &FragmentHeader, data: &[u8]) -> Result<Insert, Error> {
        if h.message_seq < self.next_seq {
            return Ok(Insert::Old);
        }
        if h.message_seq >= self.next_seq.saturating_add(REASSEMBLY_WINDOW) {
            return Ok(Insert::Ignored);
        }
        if h.length as usize > self.max_len {
            return Err(Error::HandshakeFailure(Disagreement::MessageTooLong));
        }
        if let Some(p) = self.pending.iter_mut().find(|p| p.seq == h.message_seq) {
            if p.msg_type != h.msg_type || p.body.len() != h.length as usize {
                return Err(Error::IllegalParameter(Illegal::InconsistentFragments));
            }
            p.add(h.fragment_offset, data);
        } else {
            let mut p = Partial {
                seq: h.message_seq,
                msg_type: h.msg_type,
                body: vec![0; h.length as usize],
                have: Vec::new(),
            };
            p.add(h.fragment_offset, data);
            self.pending.push(p);
        }
        Ok(Insert::Accepted)
    }

    /// The next complete message in order: (type, seq, body).
    pub fn pop(&mut self) -> Option<(u8, u16, Vec<u8>)> {
        let i = self
            .pending
            .iter()
            .position(|p| p.seq == self.next_seq && p.complete())?;
        let p = self.pending.swap_remove(i);
        self.next_seq = self.next_seq.wrapping_add(1);
        Some((p.msg_type, p.seq, p.body))
    }

    /// Is something missing before data already buffered: a later message
    /// than the next expected one, or a hole inside a message? (A DTLS 1.3
    /// receiver ACKs on such a gap, RFC 9147 §7.1.)
    pub fn has_gap(&self) -> bool {
        self.pending.iter().any(|p| {
            p.seq != self.next_seq || p.have.len() > 1 || p.have.first().is_some_and(|r| r.0 > 0)
        })
    }

    /// Drop everything buffered (handshake over).
    pub fn clear(&mut self) {
        self.pending = Vec::new();
    }
}

/// Split a body of `len` bytes into fragments of at most `max` bytes each,
/// except that the first one holds at least `first_min` bytes; returns
/// (offset, length) pairs. An empty body gives one empty fragment.
pub fn fragment_ranges(len: usize, max: usize, first_min: usize) -> Vec<(usize, usize)> {
    let max = max.max(1);
    if len == 0 {
        return vec![(0, 0)];
    }
    let first = max.max(first_min).min(len);
    let mut v = vec![(0, first)];
    let mut o = first;
    while o < len {
        let n = max.min(len - o);
        v.push((o, n));
        o += n;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hdr(seq: u16, len: u32, off: u32, flen: u32) -> FragmentHeader {
        FragmentHeader {
            msg_type: 11,
            length: len,
            message_seq: seq,
            fragment_offset: off,
            fragment_length: flen,
        }
    }

    #[test]
    fn out_of_order_overlapping() {
        let body: Vec<u8> = (0..100u8).collect();
        let mut r = Reassembler::new(1, 1000);
        assert_eq!(
            r.insert(&hdr(1, 100, 50, 50), &body[50..]).unwrap(),
            Insert::Accepted
        );
        assert!(r.pop().is_none());
        r.insert(&hdr(1, 100, 10, 45), &body[10..55]).unwrap();
        assert!(r.pop().is_none());
        r.insert(&hdr(1, 100, 0, 20), &body[..20]).unwrap();
        let (t, s, b) = r.pop().unwrap();
        assert_eq!((t, s), (11, 1));
        assert_eq!(b, body);
        assert_eq!(r.insert(&hdr(0, 1, 0, 1), &[0]).unwrap(), Insert::Old);
        assert_eq!(r.insert(&hdr(100, 1, 0, 1), &[0]).unwrap(), Insert::Ignored);
    }

    #[test]
    fn future_message_buffered() {
        let mut r = Reassembler::new(0, 1000);
        r.insert(&hdr(1, 2, 0, 2), &[1, 2]).unwrap();
        assert!(r.pop().is_none());
        r.insert(&hdr(0, 0, 0, 0), &[]).unwrap();
        assert_eq!(r.pop().unwrap().1, 0);
        assert_eq!(r.pop().unwrap().2, vec![1, 2]);
    }

    #[test]
    fn inconsistent_length_rejected() {
        let mut r = Reassembler::new(0, 1000);
        r.insert(&hdr(0, 10, 0, 2), &[1, 2]).unwrap();
        assert!(r.insert(&hdr(0, 11, 2, 2), &[1, 2]).is_err());
    }

    #[test]
    fn ranges() {
        assert_eq!(fragment_ranges(10, 4, 0), vec![(0, 4), (4, 4), (8, 2)]);
        assert_eq!(fragment_ranges(10, 4, 7), vec![(0, 7), (7, 3)]);
        assert_eq!(fragment_ranges(0, 4, 0), vec![(0, 0)]);
    }

    #[test]
    fn fragment_header_bounds() {
        let mut b = Vec::new();
        FragmentHeader {
            msg_type: 1,
            length: 10,
            message_seq: 0,
            fragment_offset: 8,
            fragment_length: 4,
        }
        .emit(&mut b);
        b.extend_from_slice(&[0; 4]);
        assert!(FragmentHeader::parse(&mut Reader::new(&b)).is_err());
    }
}
