//! 6LoWPAN header compression (RFC 6282 IPHC + UDP NHC) and the uncompressed
//! IPv6 dispatch (RFC 4944), plus the IPv6 and UDP headers they stand for and
//! the UDP checksum over the uncompressed pseudo header.
//!
//! ```text
//! IPHC: 0 1 1 TF(2) NH HLIM(2) | CID SAC SAM(2) M DAC DAM(2) | [SCI|DCI] | inline fields
//! inline order: TF fields, next header, hop limit, source, destination, NHC headers
//! UDP NHC: 1 1 1 1 0 C P(2) | ports (4/3/3/1 bytes) | checksum (2, unless C)
//! ```
//!
//! Addresses derived from the MAC: a short address gives the IID
//! `0000:00ff:fe00:XXXX`, an extended address gives its EUI-64 with the U/L
//! bit flipped. Contexts are 64-bit prefixes indexed 0-15.

use std::net::Ipv6Addr;

use crate::frame::Address;
use crate::{need, room, Error, Result};

/// Dispatch values (first byte of a 6LoWPAN payload).
pub mod dispatch {
    /// Uncompressed IPv6 header follows.
    pub const IPV6: u8 = 0x41;
    /// IPHC: `011xxxxx`.
    pub const IPHC: u8 = 0x60;
    /// Mask of the IPHC dispatch bits.
    pub const IPHC_MASK: u8 = 0xe0;
    /// First fragment: `11000xxx`.
    pub const FRAG1: u8 = 0xc0;
    /// Subsequent fragment: `11100xxx`.
    pub const FRAGN: u8 = 0xe0;
    /// Mask of the fragment dispatch bits.
    pub const FRAG_MASK: u8 = 0xf8;
    /// UDP NHC: `11110xxx`.
    pub const UDP_NHC: u8 = 0xf0;
    /// Mask of the UDP NHC bits.
    pub const UDP_NHC_MASK: u8 = 0xf8;
}

/// Length of the uncompressed IPv6 header.
pub const IPV6_HEADER_LEN: usize = 40;
/// Length of the UDP header.
pub const UDP_HEADER_LEN: usize = 8;
/// IPv6 next header value of UDP.
pub const NEXT_HEADER_UDP: u8 = 17;

/// The fixed IPv6 header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv6Header {
    /// Traffic class (DSCP << 2 | ECN).
    pub traffic_class: u8,
    /// Flow label (20 bits).
    pub flow_label: u32,
    /// Payload length.
    pub payload_len: u16,
    /// Next header.
    pub next_header: u8,
    /// Hop limit.
    pub hop_limit: u8,
    /// Source address.
    pub src: Ipv6Addr,
    /// Destination address.
    pub dst: Ipv6Addr,
}

fn addr16(b: &[u8]) -> Ipv6Addr {
    let mut a = [0u8; 16];
    a.copy_from_slice(&b[..16]);
    Ipv6Addr::from(a)
}

impl Ipv6Header {
    /// Parse the first 40 bytes of `buf`.
    pub fn parse(buf: &[u8]) -> Result<Ipv6Header> {
        need(buf, IPV6_HEADER_LEN, "IPv6 header")?;
        if buf[0] >> 4 != 6 {
            return Err(Error::BadValue {
                field: "IP version",
                value: u32::from(buf[0] >> 4),
            });
        }
        let w = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]);
        Ok(Ipv6Header {
            traffic_class: ((w >> 20) & 0xff) as u8,
            flow_label: w & 0xfffff,
            payload_len: u16::from_be_bytes([buf[4], buf[5]]),
            next_header: buf[6],
            hop_limit: buf[7],
            src: addr16(&buf[8..24]),
            dst: addr16(&buf[24..40]),
        })
    }

    /// Write 40 bytes at the start of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        room(buf, IPV6_HEADER_LEN)?;
        let w = (6u32 << 28) | (u32::from(self.traffic_class) << 20) | (self.flow_label & 0xfffff);
        buf[..4].copy_from_slice(&w.to_be_bytes());
        buf[4..6].copy_from_slice(&self.payload_len.to_be_bytes());
        buf[6] = self.next_header;
        buf[7] = self.hop_limit;
        buf[8..24].copy_from_slice(&self.src.octets());
        buf[24..40].copy_from_slice(&self.dst.octets());
        Ok(IPV6_HEADER_LEN)
    }
}

/// The UDP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpHeader {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Length (header + payload).
    pub length: u16,
    /// Checksum.
    pub checksum: u16,
}

impl UdpHeader {
    /// Parse the first 8 bytes of `buf`.
    pub fn parse(buf: &[u8]) -> Result<UdpHeader> {
        need(buf, UDP_HEADER_LEN, "UDP header")?;
        Ok(UdpHeader {
            src_port: u16::from_be_bytes([buf[0], buf[1]]),
            dst_port: u16::from_be_bytes([buf[2], buf[3]]),
            length: u16::from_be_bytes([buf[4], buf[5]]),
            checksum: u16::from_be_bytes([buf[6], buf[7]]),
        })
    }

    /// Write 8 bytes at the start of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        room(buf, UDP_HEADER_LEN)?;
        buf[..2].copy_from_slice(&self.src_port.to_be_bytes());
        buf[2..4].copy_from_slice(&self.dst_port.to_be_bytes());
        buf[4..6].copy_from_slice(&self.length.to_be_bytes());
        buf[6..8].copy_from_slice(&self.checksum.to_be_bytes());
        Ok(UDP_HEADER_LEN)
    }
}

/// The UDP checksum over the IPv6 pseudo header and `udp` (UDP header and
/// payload, the checksum field taken as zero). A computed 0 is sent as 0xffff.
pub fn udp_checksum(src: &Ipv6Addr, dst: &Ipv6Addr, udp: &[u8]) -> u16 {
    let mut sum = ones_complement_words(&src.octets()) + ones_complement_words(&dst.octets());
    sum += ones_complement_words(&(udp.len() as u32).to_be_bytes());
    sum += u64::from(NEXT_HEADER_UDP);
    if udp.len() >= UDP_HEADER_LEN {
        sum += ones_complement_words(&udp[..6]) + ones_complement_words(&udp[8..]);
    } else {
        sum += ones_complement_words(udp);
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let c = !(sum as u16);
    if c == 0 {
        0xffff
    } else {
        c
    }
}

/// The Internet checksum's sum (RFC 1071) of `b` as big-endian 16-bit
/// words, an odd last byte padded with zero, not yet folded to 16 bits.
/// Added four bytes at a time: a 32-bit word is its two 16-bit halves
/// modulo 0xffff, so the folded sum is the same (RFC 1071 §2(C), parallel
/// summation) for half the additions — the checksum covers every datagram
/// a simulated node sends or receives.
pub fn ones_complement_words(b: &[u8]) -> u64 {
    let mut quads = b.chunks_exact(4);
    let mut sum: u64 = quads
        .by_ref()
        .map(|q| u64::from(u32::from_be_bytes([q[0], q[1], q[2], q[3]])))
        .sum();
    for pair in quads.remainder().chunks(2) {
        sum += u64::from(u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]));
    }
    sum
}

/// Build an uncompressed IPv6/UDP datagram with a correct checksum.
pub fn build_udp_datagram(
    src: Ipv6Addr,
    dst: Ipv6Addr,
    hop_limit: u8,
    src_port: u16,
    dst_port: u16,
    payload: &[u8],
) -> Result<Vec<u8>> {
    let udp_len = UDP_HEADER_LEN + payload.len();
    if udp_len > usize::from(u16::MAX) {
        return Err(Error::TooLong {
            what: "UDP datagram",
            len: udp_len,
            max: usize::from(u16::MAX),
        });
    }
    let mut v = vec![0u8; IPV6_HEADER_LEN + udp_len];
    Ipv6Header {
        traffic_class: 0,
        flow_label: 0,
        payload_len: udp_len as u16,
        next_header: NEXT_HEADER_UDP,
        hop_limit,
        src,
        dst,
    }
    .emit(&mut v)?;
    UdpHeader {
        src_port,
        dst_port,
        length: udp_len as u16,
        checksum: 0,
    }
    .emit(&mut v[IPV6_HEADER_LEN..])?;
    v[IPV6_HEADER_LEN + UDP_HEADER_LEN..].copy_from_slice(payload);
    let c = udp_checksum(&src, &dst, &v[IPV6_HEADER_LEN..]);
    v[IPV6_HEADER_LEN + 6..IPV6_HEADER_LEN + 8].copy_from_slice(&c.to_be_bytes());
    Ok(v)
}

/// Whether an IPv6 datagram carrying UDP has a correct UDP checksum (false
/// for anything else).
pub fn verify_udp_checksum(datagram: &[u8]) -> bool {
    let Ok(ip) = Ipv6Header::parse(datagram) else {
        return false;
    };
    let udp = &datagram[IPV6_HEADER_LEN..];
    if ip.next_header != NEXT_HEADER_UDP || udp.len() < UDP_HEADER_LEN {
        return false;
    }
    let found = u16::from_be_bytes([udp[6], udp[7]]);
    udp_checksum(&ip.src, &ip.dst, udp) == found
}

/// The interface identifier derived from a MAC address.
pub fn iid_from_ll(addr: &Address) -> Option<[u8; 8]> {
    match *addr {
        Address::Absent => None,
        Address::Short(s) => {
            let b = s.to_be_bytes();
            Some([0, 0, 0, 0xff, 0xfe, 0, b[0], b[1]])
        }
        Address::Extended(e) => {
            let mut b = e.to_be_bytes();
            b[0] ^= 0x02;
            Some(b)
        }
    }
}

/// The link-local address `fe80::IID` of a MAC address.
pub fn link_local(addr: &Address) -> Option<Ipv6Addr> {
    let iid = iid_from_ll(addr)?;
    let mut a = [0u8; 16];
    a[0] = 0xfe;
    a[1] = 0x80;
    a[8..].copy_from_slice(&iid);
    Some(Ipv6Addr::from(a))
}

/// Compression contexts: up to 16 64-bit prefixes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contexts {
    /// Prefix of context i, if defined.
    pub prefixes: [Option<[u8; 8]>; 16],
}

impl Contexts {
    /// No contexts (stateless compression only).
    pub fn none() -> Contexts {
        Contexts::default()
    }

    /// Contexts with context 0 set to `prefix`.
    pub fn with_context0(prefix: [u8; 8]) -> Contexts {
        let mut c = Contexts::default();
        c.prefixes[0] = Some(prefix);
        c
    }

    fn find(&self, prefix: &[u8]) -> Option<u8> {
        self.prefixes
            .iter()
            .position(|p| p.as_ref().map(|p| &p[..]) == Some(prefix))
            .map(|i| i as u8)
    }

    fn get(&self, i: u8) -> Result<[u8; 8]> {
        self.prefixes[usize::from(i & 0xf)].ok_or(Error::Missing("6LoWPAN compression context"))
    }
}

/// UDP header compressed by NHC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpNhc {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Checksum carried inline; `None` = elided (C bit; recomputed on
    /// decompression).
    pub checksum: Option<u16>,
}

impl UdpNhc {
    fn ports_mode(&self) -> u8 {
        let s = self.src_port;
        let d = self.dst_port;
        if s & 0xfff0 == 0xf0b0 && d & 0xfff0 == 0xf0b0 {
            3
        } else if d & 0xff00 == 0xf000 {
            1
        } else if s & 0xff00 == 0xf000 {
            2
        } else {
            0
        }
    }

    /// Length of the compressed header (1 + ports + checksum).
    pub fn buffer_len(&self) -> usize {
        1 + [4, 3, 3, 1][usize::from(self.ports_mode())]
            + if self.checksum.is_some() { 2 } else { 0 }
    }

    fn emit(&self, out: &mut Vec<u8>) {
        let p = self.ports_mode();
        out.push(dispatch::UDP_NHC | if self.checksum.is_none() { 0x04 } else { 0 } | p);
        let (s, d) = (self.src_port.to_be_bytes(), self.dst_port.to_be_bytes());
        match p {
            0 => out.extend_from_slice(&[s[0], s[1], d[0], d[1]]),
            1 => out.extend_from_slice(&[s[0], s[1], d[1]]),
            2 => out.extend_from_slice(&[s[1], d[0], d[1]]),
            _ => out.push((s[1] & 0x0f) << 4 | (d[1] & 0x0f)),
        }
        if let Some(c) = self.checksum {
            out.extend_from_slice(&c.to_be_bytes());
        }
    }

    fn parse(buf: &[u8]) -> Result<(UdpNhc, usize)> {
        need(buf, 1, "UDP NHC")?;
        let b = buf[0];
        if b & dispatch::UDP_NHC_MASK != dispatch::UDP_NHC {
            return Err(Error::Unsupported("NHC other than UDP"));
        }
        let ports = [4, 3, 3, 1][usize::from(b & 3)];
        let elided = b & 0x04 != 0;
        let total = 1 + ports + if elided { 0 } else { 2 };
        need(buf, total, "UDP NHC fields")?;
        let f = &buf[1..];
        let (src_port, dst_port) = match b & 3 {
            0 => (
                u16::from_be_bytes([f[0], f[1]]),
                u16::from_be_bytes([f[2], f[3]]),
            ),
            1 => (u16::from_be_bytes([f[0], f[1]]), 0xf000 | u16::from(f[2])),
            2 => (0xf000 | u16::from(f[0]), u16::from_be_bytes([f[1], f[2]])),
            _ => (
                0xf0b0 | u16::from(f[0] >> 4),
                0xf0b0 | u16::from(f[0] & 0x0f),
            ),
        };
        let checksum = if elided {
            None
        } else {
            Some(u16::from_be_bytes([f[ports], f[ports + 1]]))
        };
        Ok((
            UdpNhc {
                src_port,
                dst_port,
                checksum,
            },
            total,
        ))
    }
}

/// What follows the compressed IPv6 header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextHeader {
    /// Next header value carried inline (NH = 0); its header is not compressed.
    Inline(u8),
    /// UDP header compressed with NHC (NH = 1).
    Udp(UdpNhc),
}

/// A compressed IPv6 header (and UDP header): the values it stands for.
/// Parsing and emitting need the link-layer addresses and the contexts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IphcRepr {
    /// Source address.
    pub src: Ipv6Addr,
    /// Destination address.
    pub dst: Ipv6Addr,
    /// Traffic class (DSCP << 2 | ECN).
    pub traffic_class: u8,
    /// Flow label (20 bits).
    pub flow_label: u32,
    /// Hop limit.
    pub hop_limit: u8,
    /// Next header.
    pub next: NextHeader,
}

/// How one address is compressed: (context flag, mode, context id, inline bytes).
struct AddrEnc {
    ctx: bool,
    mode: u8,
    cid: u8,
    inline: Vec<u8>,
}

fn is_16bit_iid(iid: &[u8]) -> bool {
    iid[..6] == [0, 0, 0, 0xff, 0xfe, 0]
}

fn encode_unicast(a: &Ipv6Addr, ll: &Address, ctx: &Contexts, allow_unspec: bool) -> AddrEnc {
    let o = a.octets();
    if allow_unspec && a.is_unspecified() {
        return AddrEnc {
            ctx: true,
            mode: 0,
            cid: 0,
            inline: Vec::new(),
        };
    }
    let (ctx_flag, cid) = if o[..8] == [0xfe, 0x80, 0, 0, 0, 0, 0, 0] {
        (false, 0)
    } else if let Some(i) = ctx.find(&o[..8]) {
        (true, i)
    } else {
        return AddrEnc {
            ctx: false,
            mode: 0,
            cid: 0,
            inline: o.to_vec(),
        };
    };
    let iid = &o[8..];
    let (mode, inline) = if iid_from_ll(ll).as_ref().map(|x| &x[..]) == Some(iid) {
        (3, Vec::new())
    } else if is_16bit_iid(iid) {
        (2, iid[6..].to_vec())
    } else {
        (1, iid.to_vec())
    };
    AddrEnc {
        ctx: ctx_flag,
        mode,
        cid,
        inline,
    }
}

fn encode_multicast(a: &Ipv6Addr) -> AddrEnc {
    let o = a.octets();
    let (mode, inline) = if o[1] == 0x02 && o[2..15].iter().all(|&b| b == 0) {
        (3, vec![o[15]])
    } else if o[2..13].iter().all(|&b| b == 0) {
        (2, vec![o[1], o[13], o[14], o[15]])
    } else if o[2..11].iter().all(|&b| b == 0) {
        (1, vec![o[1], o[11], o[12], o[13], o[14], o[15]])
    } else {
        (0, o.to_vec())
    };
    AddrEnc {
        ctx: false,
        mode,
        cid: 0,
        inline,
    }
}

fn take<'a>(buf: &'a [u8], off: &mut usize, n: usize, what: &'static str) -> Result<&'a [u8]> {
    need(buf, *off + n, what)?;
    let s = &buf[*off..*off + n];
    *off += n;
    Ok(s)
}

fn decode_unicast(
    ctx_flag: bool,
    mode: u8,
    prefix: Option<[u8; 8]>,
    ll: &Address,
    buf: &[u8],
    off: &mut usize,
    what: &'static str,
) -> Result<Ipv6Addr> {
    let mut a = [0u8; 16];
    let prefix = if ctx_flag {
        prefix.ok_or(Error::Missing("6LoWPAN compression context"))?
    } else {
        [0xfe, 0x80, 0, 0, 0, 0, 0, 0]
    };
    match mode {
        0 => a.copy_from_slice(take(buf, off, 16, what)?),
        1 => {
            a[..8].copy_from_slice(&prefix);
            a[8..].copy_from_slice(take(buf, off, 8, what)?);
        }
        2 => {
            a[..8].copy_from_slice(&prefix);
            a[8..14].copy_from_slice(&[0, 0, 0, 0xff, 0xfe, 0]);
            a[14..].copy_from_slice(take(buf, off, 2, what)?);
        }
        _ => {
            a[..8].copy_from_slice(&prefix);
            a[8..].copy_from_slice(&iid_from_ll(ll).ok_or(Error::Missing(
                "link-layer address to derive an elided IPv6 address from",
            ))?);
        }
    }
    Ok(Ipv6Addr::from(a))
}

impl IphcRepr {
    fn encode(&self, ll_src: &Address, ll_dst: &Address, ctx: &Contexts) -> Result<Vec<u8>> {
        let src = encode_unicast(&self.src, ll_src, ctx, true);
        let dst = if self.dst.is_multicast() {
            encode_multicast(&self.dst)
        } else {
            encode_unicast(&self.dst, ll_dst, ctx, false)
        };
        let tc = self.traffic_class;
        let fl = self.flow_label;
        if fl > 0xfffff {
            return Err(Error::BadValue {
                field: "flow label",
                value: fl,
            });
        }
        let (ecn, dscp) = (tc & 3, tc >> 2);
        let (tf, tf_bytes): (u8, Vec<u8>) = if tc == 0 && fl == 0 {
            (3, vec![])
        } else if fl == 0 {
            (2, vec![ecn << 6 | dscp])
        } else if dscp == 0 {
            (
                1,
                vec![
                    ecn << 6 | (fl >> 16) as u8 & 0x0f,
                    (fl >> 8) as u8,
                    fl as u8,
                ],
            )
        } else {
            (
                0,
                vec![
                    ecn << 6 | dscp,
                    (fl >> 16) as u8 & 0x0f,
                    (fl >> 8) as u8,
                    fl as u8,
                ],
            )
        };
        let hlim = match self.hop_limit {
            1 => 1,
            64 => 2,
            255 => 3,
            _ => 0,
        };
        let nh = matches!(self.next, NextHeader::Udp(_));
        let cid = src.cid != 0 || dst.cid != 0;
        let mut out = vec![
            dispatch::IPHC | tf << 3 | u8::from(nh) << 2 | hlim,
            u8::from(cid) << 7
                | u8::from(src.ctx) << 6
                | src.mode << 4
                | u8::from(self.dst.is_multicast()) << 3
                | u8::from(dst.ctx) << 2
                | dst.mode,
        ];
        if cid {
            out.push(src.cid << 4 | dst.cid);
        }
        out.extend_from_slice(&tf_bytes);
        if let NextHeader::Inline(n) = self.next {
            out.push(n);
        }
        if hlim == 0 {
            out.push(self.hop_limit);
        }
        out.extend_from_slice(&src.inline);
        out.extend_from_slice(&dst.inline);
        if let NextHeader::Udp(u) = self.next {
            u.emit(&mut out);
        }
        Ok(out)
    }

    /// Length of the compressed header(s) (0 if `self` cannot be encoded:
    /// a flow label wider than 20 bits; `emit` then says so).
    pub fn buffer_len(&self, ll_src: &Address, ll_dst: &Address, ctx: &Contexts) -> usize {
        self.encode(ll_src, ll_dst, ctx).map_or(0, |v| v.len())
    }

    /// Write the compressed header(s) at the start of `buf`; returns the length.
    pub fn emit(
        &self,
        buf: &mut [u8],
        ll_src: &Address,
        ll_dst: &Address,
        ctx: &Contexts,
    ) -> Result<usize> {
        let v = self.encode(ll_src, ll_dst, ctx)?;
        room(buf, v.len())?;
        buf[..v.len()].copy_from_slice(&v);
        Ok(v.len())
    }

    /// Parse an IPHC header (and UDP NHC) from the start of `buf`; returns
    /// the representation and the bytes consumed.
    pub fn parse(
        buf: &[u8],
        ll_src: &Address,
        ll_dst: &Address,
        ctx: &Contexts,
    ) -> Result<(IphcRepr, usize)> {
        need(buf, 2, "IPHC base header")?;
        let (b0, b1) = (buf[0], buf[1]);
        if b0 & dispatch::IPHC_MASK != dispatch::IPHC {
            return Err(Error::BadValue {
                field: "IPHC dispatch",
                value: u32::from(b0),
            });
        }
        let mut off = 2;
        let (sci, dci) = if b1 & 0x80 != 0 {
            let c = take(buf, &mut off, 1, "IPHC context identifier")?[0];
            (c >> 4, c & 0x0f)
        } else {
            (0, 0)
        };
        let (traffic_class, flow_label) = match (b0 >> 3) & 3 {
            0 => {
                let f = take(buf, &mut off, 4, "IPHC traffic class / flow label")?;
                (
                    (f[0] & 0x3f) << 2 | f[0] >> 6,
                    u32::from(f[1] & 0x0f) << 16 | u32::from(f[2]) << 8 | u32::from(f[3]),
                )
            }
            1 => {
                let f = take(buf, &mut off, 3, "IPHC ECN / flow label")?;
                (
                    f[0] >> 6,
                    u32::from(f[0] & 0x0f) << 16 | u32::from(f[1]) << 8 | u32::from(f[2]),
                )
            }
            2 => {
                let f = take(buf, &mut off, 1, "IPHC traffic class")?;
                ((f[0] & 0x3f) << 2 | f[0] >> 6, 0)
            }
            _ => (0, 0),
        };
        let nh = b0 & 0x04 != 0;
        let inline_nh = if nh {
            None
        } else {
            Some(take(buf, &mut off, 1, "IPHC next header")?[0])
        };
        let hop_limit = match b0 & 3 {
            0 => take(buf, &mut off, 1, "IPHC hop limit")?[0],
            1 => 1,
            2 => 64,
            _ => 255,
        };
        let sac = b1 & 0x40 != 0;
        let sam = (b1 >> 4) & 3;
        let src = if sac && sam == 0 {
            Ipv6Addr::UNSPECIFIED
        } else {
            let p = if sac { Some(ctx.get(sci)?) } else { None };
            decode_unicast(sac, sam, p, ll_src, buf, &mut off, "IPHC source address")?
        };
        let m = b1 & 0x08 != 0;
        let dac = b1 & 0x04 != 0;
        let dam = b1 & 3;
        let dst = match (m, dac) {
            (false, false) => {
                decode_unicast(false, dam, None, ll_dst, buf, &mut off, "IPHC destination")?
            }
            (false, true) => {
                if dam == 0 {
                    return Err(Error::BadValue {
                        field: "IPHC DAC=1 DAM=00 (reserved)",
                        value: u32::from(b1),
                    });
                }
                let p = ctx.get(dci)?;
                decode_unicast(
                    true,
                    dam,
                    Some(p),
                    ll_dst,
                    buf,
                    &mut off,
                    "IPHC destination",
                )?
            }
            (true, false) => {
                let mut a = [0u8; 16];
                match dam {
                    0 => a.copy_from_slice(take(buf, &mut off, 16, "IPHC multicast")?),
                    1 => {
                        let f = take(buf, &mut off, 6, "IPHC multicast (48 bits)")?;
                        a[0] = 0xff;
                        a[1] = f[0];
                        a[11..].copy_from_slice(&f[1..]);
                    }
                    2 => {
                        let f = take(buf, &mut off, 4, "IPHC multicast (32 bits)")?;
                        a[0] = 0xff;
                        a[1] = f[0];
                        a[13..].copy_from_slice(&f[1..]);
                    }
                    _ => {
                        let f = take(buf, &mut off, 1, "IPHC multicast (8 bits)")?;
                        a[0] = 0xff;
                        a[1] = 0x02;
                        a[15] = f[0];
                    }
                }
                Ipv6Addr::from(a)
            }
            (true, true) => {
                return Err(Error::Unsupported(
                    "IPHC stateful multicast (M=1 DAC=1) addresses",
                ))
            }
        };
        let next = match inline_nh {
            Some(n) => NextHeader::Inline(n),
            None => {
                let (u, n) = UdpNhc::parse(&buf[off..])?;
                off += n;
                NextHeader::Udp(u)
            }
        };
        Ok((
            IphcRepr {
                src,
                dst,
                traffic_class,
                flow_label,
                hop_limit,
                next,
            },
            off,
        ))
    }
}

/// Headers compressed from the start of an uncompressed datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompressedHeaders {
    /// The IPHC (+ NHC) bytes.
    pub bytes: Vec<u8>,
    /// How many bytes of the uncompressed datagram they stand for (40, or 48
    /// with UDP NHC).
    pub consumed: usize,
}

/// Compress the IPv6 (and UDP) header of an uncompressed IPv6 datagram.
/// UDP checksums are always carried inline.
pub fn compress_headers(
    datagram: &[u8],
    ll_src: &Address,
    ll_dst: &Address,
    ctx: &Contexts,
) -> Result<CompressedHeaders> {
    let ip = Ipv6Header::parse(datagram)?;
    if usize::from(ip.payload_len) != datagram.len() - IPV6_HEADER_LEN {
        return Err(Error::BadValue {
            field: "IPv6 payload length (does not match the datagram)",
            value: u32::from(ip.payload_len),
        });
    }
    let mut consumed = IPV6_HEADER_LEN;
    let mut next = NextHeader::Inline(ip.next_header);
    if ip.next_header == NEXT_HEADER_UDP && datagram.len() >= IPV6_HEADER_LEN + UDP_HEADER_LEN {
        let udp = UdpHeader::parse(&datagram[IPV6_HEADER_LEN..])?;
        if udp.length == ip.payload_len {
            next = NextHeader::Udp(UdpNhc {
                src_port: udp.src_port,
                dst_port: udp.dst_port,
                checksum: Some(udp.checksum),
            });
            consumed += UDP_HEADER_LEN;
        }
    }
    let repr = IphcRepr {
        src: ip.src,
        dst: ip.dst,
        traffic_class: ip.traffic_class,
        flow_label: ip.flow_label,
        hop_limit: ip.hop_limit,
        next,
    };
    Ok(CompressedHeaders {
        bytes: repr.encode(ll_src, ll_dst, ctx)?,
        consumed,
    })
}

/// The 6LoWPAN payload (IPHC + rest) of an unfragmented datagram.
pub fn compress(
    datagram: &[u8],
    ll_src: &Address,
    ll_dst: &Address,
    ctx: &Contexts,
) -> Result<Vec<u8>> {
    let h = compress_headers(datagram, ll_src, ll_dst, ctx)?;
    let mut v = h.bytes;
    v.extend_from_slice(&datagram[h.consumed..]);
    Ok(v)
}

/// The 6LoWPAN payload of an unfragmented datagram sent uncompressed
/// (dispatch 0x41).
pub fn uncompressed(datagram: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(datagram.len() + 1);
    v.push(dispatch::IPV6);
    v.extend_from_slice(datagram);
    v
}

/// Headers decompressed from the start of a 6LoWPAN payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecompressedHeaders {
    /// The uncompressed IPv6 (+ UDP) header bytes.
    pub bytes: Vec<u8>,
    /// Compressed bytes consumed (dispatch included).
    pub consumed: usize,
    /// The UDP checksum was elided: recompute it over the whole datagram
    /// ([`fill_udp_checksum`]).
    pub udp_checksum_elided: bool,
}

/// Decompress the headers at the start of `payload` (IPHC or IPv6 dispatch).
/// `datagram_size` is the size of the whole uncompressed datagram when known
/// (FRAG1); otherwise it is inferred from `payload`'s length.
pub fn decompress_headers(
    payload: &[u8],
    ll_src: &Address,
    ll_dst: &Address,
    ctx: &Contexts,
    datagram_size: Option<usize>,
) -> Result<DecompressedHeaders> {
    need(payload, 1, "6LoWPAN dispatch")?;
    if payload[0] == dispatch::IPV6 {
        return Ok(DecompressedHeaders {
            bytes: Vec::new(),
            consumed: 1,
            udp_checksum_elided: false,
        });
    }
    let (repr, consumed) = IphcRepr::parse(payload, ll_src, ll_dst, ctx)?;
    let hdr_len = IPV6_HEADER_LEN
        + if matches!(repr.next, NextHeader::Udp(_)) {
            UDP_HEADER_LEN
        } else {
            0
        };
    let total = match datagram_size {
        Some(s) => s,
        None => hdr_len + (payload.len() - consumed),
    };
    if total < hdr_len || total - IPV6_HEADER_LEN > usize::from(u16::MAX) {
        return Err(Error::BadValue {
            field: "datagram size (smaller than its headers or too large)",
            value: total as u32,
        });
    }
    let plen = (total - IPV6_HEADER_LEN) as u16;
    let mut bytes = vec![0u8; hdr_len];
    Ipv6Header {
        traffic_class: repr.traffic_class,
        flow_label: repr.flow_label,
        payload_len: plen,
        next_header: match repr.next {
            NextHeader::Inline(n) => n,
            NextHeader::Udp(_) => NEXT_HEADER_UDP,
        },
        hop_limit: repr.hop_limit,
        src: repr.src,
        dst: repr.dst,
    }
    .emit(&mut bytes)?;
    let mut elided = false;
    if let NextHeader::Udp(u) = repr.next {
        elided = u.checksum.is_none();
        UdpHeader {
            src_port: u.src_port,
            dst_port: u.dst_port,
            length: plen,
            checksum: u.checksum.unwrap_or(0),
        }
        .emit(&mut bytes[IPV6_HEADER_LEN..])?;
    }
    Ok(DecompressedHeaders {
        bytes,
        consumed,
        udp_checksum_elided: elided,
    })
}

/// Compute and store the UDP checksum of an uncompressed IPv6/UDP datagram.
pub fn fill_udp_checksum(datagram: &mut [u8]) -> Result<()> {
    let ip = Ipv6Header::parse(datagram)?;
    need(datagram, IPV6_HEADER_LEN + UDP_HEADER_LEN, "UDP header")?;
    let c = udp_checksum(&ip.src, &ip.dst, &datagram[IPV6_HEADER_LEN..]);
    datagram[IPV6_HEADER_LEN + 6..IPV6_HEADER_LEN + 8].copy_from_slice(&c.to_be_bytes());
    Ok(())
}

/// Decompress an unfragmented 6LoWPAN payload (IPHC or IPv6 dispatch) into
/// the uncompressed IPv6 datagram.
pub fn decompress(
    payload: &[u8],
    ll_src: &Address,
    ll_dst: &Address,
    ctx: &Contexts,
) -> Result<Vec<u8>> {
    let h = decompress_headers(payload, ll_src, ll_dst, ctx, None)?;
    let mut v = h.bytes;
    v.extend_from_slice(&payload[h.consumed..]);
    if h.udp_checksum_elided {
        fill_udp_checksum(&mut v)?;
    }
    check_datagram(&v)?;
    Ok(v)
}

/// A whole IPv6 datagram: a header whose payload length is the rest of the
/// datagram (RFC 8200 §3). Uncompressed headers (the IPv6 dispatch) come as
/// sent, so a decompressed or reassembled datagram is checked here.
pub fn check_datagram(datagram: &[u8]) -> Result<()> {
    let ip = Ipv6Header::parse(datagram)?;
    if usize::from(ip.payload_len) + IPV6_HEADER_LEN != datagram.len() {
        return Err(Error::BadValue {
            field: "IPv6 payload length (not the rest of the datagram)",
            value: u32::from(ip.payload_len),
        });
    }
    Ok(())
}
