//! 6LoWPAN fragmentation (RFC 4944 §5.3): FRAG1 / FRAGN headers, a
//! fragmenter for an uncompressed IPv6 datagram, and a reassembler.
//!
//! ```text
//! FRAG1: 1 1 0 0 0 datagram_size(11) | datagram_tag(16)                       (4 bytes)
//! FRAGN: 1 1 1 0 0 datagram_size(11) | datagram_tag(16) | datagram_offset(8)  (5 bytes)
//! ```
//!
//! `datagram_size` and `datagram_offset` (in 8-byte units) count bytes of the
//! *uncompressed* datagram (RFC 4944, clarified by RFC 6282 §2): with IPHC the
//! first fragment carries the compressed headers, and the uncompressed bytes
//! they stand for count towards the offsets of the following fragments.
//!
//! The reassembler keys buffers by (link source, link destination, size,
//! tag), takes time as a `now` parameter (µs, no clock inside), drops
//! incomplete datagrams after a timeout (RFC 4944: at most 60 s), ignores
//! exact duplicates and, on a fragment that overlaps a received one
//! differently, flushes the buffer and starts anew with the new fragment.
//! [`Reassembler::contiki3`] reassembles as Contiki 3.0 does instead: one
//! datagram at a time, the fragments of any other dropped meanwhile.

use crate::frame::Address;
use crate::sixlowpan::{self, dispatch, Contexts};
use crate::{ipv6, need, room, udp, Error, Result};

/// FRAG1 header length.
pub const FRAG1_LEN: usize = 4;
/// FRAGN header length.
pub const FRAGN_LEN: usize = 5;
/// Largest datagram a fragment header can describe.
pub const MAX_DATAGRAM_SIZE: usize = 0x7ff;
/// RFC 4944's reassembly timeout, 60 s, in µs.
pub const DEFAULT_TIMEOUT_US: u64 = 60_000_000;

/// A fragment header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FragHeader {
    /// First fragment.
    First {
        /// uncompressed datagram size
        size: u16,
        /// datagram tag
        tag: u16,
    },
    /// Subsequent fragment.
    Next {
        /// uncompressed datagram size
        size: u16,
        /// datagram tag
        tag: u16,
        /// offset in 8-byte units
        offset: u8,
    },
}

impl FragHeader {
    /// Parse from the start of `buf` (returns None-like error when the
    /// dispatch is not a fragment header).
    pub fn parse(buf: &[u8]) -> Result<(FragHeader, usize)> {
        need(buf, 1, "6LoWPAN dispatch")?;
        let kind = buf[0] & dispatch::FRAG_MASK;
        let first = match kind {
            dispatch::FRAG1 => true,
            dispatch::FRAGN => false,
            _ => {
                return Err(Error::BadValue {
                    field: "fragment dispatch",
                    value: u32::from(buf[0]),
                })
            }
        };
        let len = if first { FRAG1_LEN } else { FRAGN_LEN };
        need(buf, len, "fragment header")?;
        let size = u16::from_be_bytes([buf[0], buf[1]]) & 0x07ff;
        let tag = u16::from_be_bytes([buf[2], buf[3]]);
        let h = if first {
            FragHeader::First { size, tag }
        } else {
            FragHeader::Next {
                size,
                tag,
                offset: buf[4],
            }
        };
        Ok((h, len))
    }

    /// Length on the wire (4 or 5).
    pub fn buffer_len(&self) -> usize {
        match self {
            FragHeader::First { .. } => FRAG1_LEN,
            FragHeader::Next { .. } => FRAGN_LEN,
        }
    }

    /// Write at the start of `buf`; returns the length.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        room(buf, self.buffer_len())?;
        let (d, size, tag) = match *self {
            FragHeader::First { size, tag } => (dispatch::FRAG1, size, tag),
            FragHeader::Next { size, tag, offset } => {
                buf[4] = offset;
                (dispatch::FRAGN, size, tag)
            }
        };
        if usize::from(size) > MAX_DATAGRAM_SIZE {
            return Err(Error::TooLong {
                what: "fragmented datagram",
                len: usize::from(size),
                max: MAX_DATAGRAM_SIZE,
            });
        }
        let w = (u16::from(d) << 8) | size;
        buf[..2].copy_from_slice(&w.to_be_bytes());
        buf[2..4].copy_from_slice(&tag.to_be_bytes());
        Ok(self.buffer_len())
    }

    /// Datagram size.
    pub fn size(&self) -> u16 {
        match *self {
            FragHeader::First { size, .. } | FragHeader::Next { size, .. } => size,
        }
    }

    /// Datagram tag.
    pub fn tag(&self) -> u16 {
        match *self {
            FragHeader::First { tag, .. } | FragHeader::Next { tag, .. } => tag,
        }
    }
}

/// Split an uncompressed IPv6 datagram into 6LoWPAN frame payloads of at
/// most `max_payload` bytes each, compressing its headers with IPHC. One
/// payload (no fragment header) if it fits, otherwise FRAG1 + FRAGN...
pub fn fragment(
    datagram: &[u8],
    ll_src: &Address,
    ll_dst: &Address,
    ctx: &Contexts,
    tag: u16,
    max_payload: usize,
) -> Result<Vec<Vec<u8>>> {
    let h = sixlowpan::compress_headers(datagram, ll_src, ll_dst, ctx)?;
    let rest = &datagram[h.consumed..];
    if h.bytes.len() + rest.len() <= max_payload {
        let mut v = h.bytes;
        v.extend_from_slice(rest);
        return Ok(vec![v]);
    }
    if datagram.len() > MAX_DATAGRAM_SIZE {
        return Err(Error::TooLong {
            what: "datagram to fragment",
            len: datagram.len(),
            max: MAX_DATAGRAM_SIZE,
        });
    }
    let size = datagram.len() as u16;
    // First fragment: FRAG1 + compressed headers + k payload bytes, with the
    // uncompressed bytes covered (consumed + k) a multiple of 8.
    let room1 = max_payload.saturating_sub(FRAG1_LEN + h.bytes.len());
    let covered = ((h.consumed + room1) / 8) * 8;
    if covered <= h.consumed || max_payload < FRAGN_LEN + 8 {
        return Err(Error::TooLong {
            what: "compressed headers for the first fragment",
            len: FRAG1_LEN + h.bytes.len() + 8,
            max: max_payload,
        });
    }
    let k = covered - h.consumed;
    let mut out = Vec::new();
    let mut f = vec![0u8; FRAG1_LEN];
    FragHeader::First { size, tag }.emit(&mut f)?;
    f.extend_from_slice(&h.bytes);
    f.extend_from_slice(&rest[..k]);
    out.push(f);
    let per = ((max_payload - FRAGN_LEN) / 8) * 8;
    let mut off = covered;
    while off < datagram.len() {
        let n = per.min(datagram.len() - off);
        let mut f = vec![0u8; FRAGN_LEN];
        FragHeader::Next {
            size,
            tag,
            offset: (off / 8) as u8,
        }
        .emit(&mut f)?;
        f.extend_from_slice(&datagram[off..off + n]);
        out.push(f);
        off += n;
    }
    Ok(out)
}

/// Counters of a reassembler.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReassemblyStats {
    /// Datagrams completed.
    pub completed: u64,
    /// Exact duplicate fragments ignored.
    pub duplicates: u64,
    /// Buffers flushed because of an overlapping fragment.
    pub overlaps: u64,
    /// Buffers dropped by timeout.
    pub timeouts: u64,
    /// Buffers dropped because the table was full.
    pub evicted: u64,
    /// Fragments dropped by a single-datagram reassembler
    /// ([`Reassembler::contiki3`]): another datagram's while one was under
    /// way, or a later fragment with none under way.
    pub refused: u64,
}

/// Key of a reassembly buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReassemblyKey {
    /// link-layer source
    pub src: Address,
    /// link-layer destination
    pub dst: Address,
    /// datagram size
    pub size: u16,
    /// datagram tag
    pub tag: u16,
}

#[derive(Debug)]
struct Buffer {
    key: ReassemblyKey,
    started_us: u64,
    data: Vec<u8>,
    /// received ranges [start, end) of the uncompressed datagram, sorted
    ranges: Vec<(usize, usize)>,
    received: usize,
    checksum_elided: bool,
}

impl Buffer {
    fn new(key: ReassemblyKey, now_us: u64) -> Buffer {
        Buffer {
            key,
            started_us: now_us,
            data: vec![0u8; usize::from(key.size)],
            ranges: Vec::new(),
            received: 0,
            checksum_elided: false,
        }
    }
}

/// What a fragment did to the reassembler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reassembled {
    /// The datagram is complete (or was never fragmented): here it is.
    Complete(Vec<u8>),
    /// Stored; more fragments are needed.
    Incomplete,
    /// An exact duplicate of a fragment already held; ignored.
    Duplicate,
    /// Dropped by a single-datagram reassembler ([`Reassembler::contiki3`]).
    Refused,
}

/// A 6LoWPAN reassembler.
#[derive(Debug)]
pub struct Reassembler {
    buffers: Vec<Buffer>,
    timeout_us: u64,
    max_buffers: usize,
    /// Contiki 3.0's rules for its one buffer ([`Reassembler::contiki3`]).
    contiki3: bool,
    /// Counters.
    pub stats: ReassemblyStats,
}

impl Reassembler {
    /// A reassembler that drops a datagram `timeout_us` after its first
    /// fragment and holds at most `max_buffers` datagrams at once (the oldest
    /// is evicted).
    pub fn new(timeout_us: u64, max_buffers: usize) -> Reassembler {
        Reassembler {
            buffers: Vec::new(),
            timeout_us,
            max_buffers: max_buffers.max(1),
            contiki3: false,
            stats: ReassemblyStats::default(),
        }
    }

    /// A reassembler as Contiki 3.0's 6LoWPAN layer has (core/net/ipv6/
    /// sicslowpan.c `input`, with PRIORITIZE_NEW_PACKETS): one datagram
    /// under way at a time, given up `timeout_us` after its first fragment
    /// (`reass_timer`, SICSLOWPAN_REASS_MAXAGE). While one is under way, a
    /// fragment of another datagram from the same link source is dropped
    /// ("not a fragment of the packet currently being reassembled"); a first
    /// fragment from another source, or an unfragmented packet, ends it.
    /// With none under way, a fragment other than the first is dropped. So
    /// after a lost last fragment, the sender's next datagrams cannot pass
    /// until the timeout.
    pub fn contiki3(timeout_us: u64) -> Reassembler {
        Reassembler {
            contiki3: true,
            ..Reassembler::new(timeout_us, 1)
        }
    }

    /// Number of datagrams being reassembled.
    pub fn pending(&self) -> usize {
        self.buffers.len()
    }

    /// Drop buffers that timed out at `now_us`.
    pub fn expire(&mut self, now_us: u64) {
        let t = self.timeout_us;
        let before = self.buffers.len();
        self.buffers
            .retain(|b| now_us.saturating_sub(b.started_us) < t);
        self.stats.timeouts += (before - self.buffers.len()) as u64;
    }

    /// The earliest time a buffer times out, if any (for the caller's timer).
    pub fn next_timeout(&self) -> Option<u64> {
        self.buffers
            .iter()
            .map(|b| b.started_us.saturating_add(self.timeout_us))
            .min()
    }

    /// Take one 6LoWPAN frame payload received at `now_us` from `ll_src` to
    /// `ll_dst`.
    pub fn accept(
        &mut self,
        now_us: u64,
        ll_src: &Address,
        ll_dst: &Address,
        ctx: &Contexts,
        payload: &[u8],
    ) -> Result<Reassembled> {
        self.expire(now_us);
        need(payload, 1, "6LoWPAN dispatch")?;
        let d = payload[0] & dispatch::FRAG_MASK;
        if d != dispatch::FRAG1 && d != dispatch::FRAGN {
            if self.contiki3 {
                self.buffers.clear();
            }
            let v = sixlowpan::decompress(payload, ll_src, ll_dst, ctx)?;
            self.stats.completed += 1;
            return Ok(Reassembled::Complete(v));
        }
        let (h, hl) = FragHeader::parse(payload)?;
        let size = usize::from(h.size());
        let body = &payload[hl..];
        // the uncompressed bytes this fragment carries and where they go
        let (offset, bytes, elided) = match h {
            FragHeader::First { .. } => {
                let dh = sixlowpan::decompress_headers(body, ll_src, ll_dst, ctx, Some(size))?;
                let mut v = dh.bytes;
                v.extend_from_slice(&body[dh.consumed..]);
                (0usize, v, dh.udp_checksum_elided)
            }
            FragHeader::Next { offset, .. } => (usize::from(offset) * 8, body.to_vec(), false),
        };
        let end = offset + bytes.len();
        if bytes.is_empty() || end > size {
            return Err(Error::BadValue {
                field: "fragment extent (empty or beyond datagram size)",
                value: end as u32,
            });
        }
        let key = ReassemblyKey {
            src: *ll_src,
            dst: *ll_dst,
            size: h.size(),
            tag: h.tag(),
        };
        if self.contiki3 && self.refuses(&key, matches!(h, FragHeader::First { .. })) {
            self.stats.refused += 1;
            return Ok(Reassembled::Refused);
        }
        let idx = match self.buffers.iter().position(|b| b.key == key) {
            Some(i) => i,
            None => {
                if self.buffers.len() >= self.max_buffers {
                    // evict the oldest
                    if let Some((i, _)) = self
                        .buffers
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, b)| b.started_us)
                    {
                        self.buffers.remove(i);
                        self.stats.evicted += 1;
                    }
                }
                self.buffers.push(Buffer::new(key, now_us));
                self.buffers.len() - 1
            }
        };
        let buf = &mut self.buffers[idx];
        if let Some(&(s, e)) = buf.ranges.iter().find(|&&(s, e)| s < end && offset < e) {
            if s == offset && e == end && buf.data[s..e] == bytes[..] {
                self.stats.duplicates += 1;
                return Ok(Reassembled::Duplicate);
            }
            // overlapping differently: flush, start anew with this fragment
            self.stats.overlaps += 1;
            *buf = Buffer::new(key, now_us);
        }
        buf.data[offset..end].copy_from_slice(&bytes);
        buf.ranges.push((offset, end));
        buf.ranges.sort_unstable();
        buf.received += bytes.len();
        buf.checksum_elided |= elided;
        if buf.received == size {
            let b = self.buffers.swap_remove(idx);
            let mut v = b.data;
            if b.checksum_elided {
                udp::fill_udp_checksum(&mut v)?;
            }
            ipv6::check_datagram(&v)?;
            self.stats.completed += 1;
            return Ok(Reassembled::Complete(v));
        }
        Ok(Reassembled::Incomplete)
    }
}

impl Reassembler {
    /// Contiki 3.0's single buffer: does it drop this fragment (of the
    /// datagram `key`; `first`: a FRAG1)? A FRAG1 from another link
    /// source ends the datagram under way first.
    fn refuses(&mut self, key: &ReassemblyKey, first: bool) -> bool {
        match self.buffers.first() {
            Some(b) if first && b.key.src != key.src => {
                self.buffers.clear();
                false
            }
            Some(b) => b.key != *key,
            None => !first,
        }
    }
}

impl Default for Reassembler {
    fn default() -> Self {
        Reassembler::new(DEFAULT_TIMEOUT_US, 4)
    }
}
