//! The UDP header (RFC 768) over IPv6, and its checksum over the IPv6
//! pseudo header (RFC 8200 §8.1).
//!
//! ```text
//! | source port (16) | destination port (16) | length (16) | checksum (16) |
//! ```

use std::net::Ipv6Addr;

use crate::ipv6::{Ipv6Header, IPV6_HEADER_LEN, NEXT_HEADER_UDP};
use crate::{need, room, Error, Result};

/// Length of the UDP header.
pub const UDP_HEADER_LEN: usize = 8;
/// Offset of the checksum field in the UDP header.
const CHECKSUM: usize = 6;

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
        sum +=
            ones_complement_words(&udp[..CHECKSUM]) + ones_complement_words(&udp[UDP_HEADER_LEN..]);
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
    store_checksum(&mut v, &src, &dst);
    Ok(v)
}

/// Compute and store the UDP checksum of an IPv6/UDP datagram whose
/// headers are there.
fn store_checksum(datagram: &mut [u8], src: &Ipv6Addr, dst: &Ipv6Addr) {
    let c = udp_checksum(src, dst, &datagram[IPV6_HEADER_LEN..]);
    let at = IPV6_HEADER_LEN + CHECKSUM;
    datagram[at..at + 2].copy_from_slice(&c.to_be_bytes());
}

/// Compute and store the UDP checksum of an uncompressed IPv6/UDP datagram.
pub fn fill_udp_checksum(datagram: &mut [u8]) -> Result<()> {
    let ip = Ipv6Header::parse(datagram)?;
    need(datagram, IPV6_HEADER_LEN + UDP_HEADER_LEN, "UDP header")?;
    store_checksum(datagram, &ip.src, &ip.dst);
    Ok(())
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
    let found = u16::from_be_bytes([udp[CHECKSUM], udp[CHECKSUM + 1]]);
    udp_checksum(&ip.src, &ip.dst, udp) == found
}
