//! UDP header compression by 6LoWPAN NHC (RFC 6282 §4.3): ports in the
//! 0xf0bX and 0xf0XX ranges shortened, the checksum optionally elided.
//!
//! ```text
//! | 1 1 1 1 0 C P(2) | ports (4/3/3/1 bytes) | checksum (2, unless C) |
//! ```

use super::dispatch;
use crate::{need, Error, Result};

/// Port bytes carried inline for each of the four port modes (P).
const PORTS_LEN: [usize; 4] = [4, 3, 3, 1];
/// C: the checksum is elided.
const CHECKSUM_ELIDED: u8 = 0x04;

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
        1 + PORTS_LEN[usize::from(self.ports_mode())] + if self.checksum.is_some() { 2 } else { 0 }
    }

    // inlined into IPHC's encoder as it was when both shared a module
    #[inline]
    pub(super) fn emit(&self, out: &mut Vec<u8>) {
        let p = self.ports_mode();
        let c = if self.checksum.is_none() {
            CHECKSUM_ELIDED
        } else {
            0
        };
        out.push(dispatch::UDP_NHC | c | p);
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

    /// Parse a UDP NHC header from the start of `buf`; returns it and the
    /// bytes consumed.
    pub(super) fn parse(buf: &[u8]) -> Result<(UdpNhc, usize)> {
        need(buf, 1, "UDP NHC")?;
        let b = buf[0];
        if b & dispatch::UDP_NHC_MASK != dispatch::UDP_NHC {
            return Err(Error::Unsupported("NHC other than UDP"));
        }
        let ports = PORTS_LEN[usize::from(b & 3)];
        let elided = b & CHECKSUM_ELIDED != 0;
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
