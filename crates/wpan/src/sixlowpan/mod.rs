//! 6LoWPAN (RFC 4944, RFC 6282): the dispatch byte, IPv6 addresses derived
//! from link-layer addresses, and the compression and decompression of an
//! IPv6 datagram's headers ([`crate::ipv6`], [`crate::udp`]) for one frame.
//! Fragmentation is [`crate::fragment`].
//!
//! - `iphc`: the compressed IPv6 header (RFC 6282 IPHC, [`IphcRepr`]) and
//!   its address [`Contexts`];
//! - `nhc`: the compressed UDP header (RFC 6282 UDP NHC, [`UdpNhc`]).
//!
//! Addresses derived from the MAC: a short address gives the IID
//! `0000:00ff:fe00:XXXX`, an extended address gives its EUI-64 with the U/L
//! bit flipped. Contexts are 64-bit prefixes indexed 0-15.

use std::net::Ipv6Addr;

use crate::frame::Address;
use crate::ipv6::{Ipv6Header, IPV6_HEADER_LEN, NEXT_HEADER_UDP};
use crate::udp::{fill_udp_checksum, UdpHeader, UDP_HEADER_LEN};
use crate::{ipv6, need, Error, Result};

mod iphc;
mod nhc;

pub use iphc::{Contexts, IphcRepr, NextHeader};
pub use nhc::UdpNhc;

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
    /// ([`crate::udp::fill_udp_checksum`]).
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
    ipv6::check_datagram(&v)?;
    Ok(v)
}
