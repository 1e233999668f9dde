//! The fixed IPv6 header (RFC 8200 §3), the uncompressed form that 6LoWPAN
//! ([`crate::sixlowpan`]) compresses and restores.
//!
//! ```text
//! | version (4) | traffic class (8) | flow label (20) | payload length (16) |
//! | next header (8) | hop limit (8) | source (128) | destination (128) |
//! ```

use std::net::Ipv6Addr;

use crate::{need, room, Error, Result};

/// Length of the uncompressed IPv6 header.
pub const IPV6_HEADER_LEN: usize = 40;
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
