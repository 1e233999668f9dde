//! The MAC header's fixed fields: frame control, sequence number, PAN IDs
//! and addresses, and [`Frame`], a zero-copy view that reads them in place.
//!
//! ```text
//! | frame control (2) | seq (0/1) | dst PAN (0/2) | dst addr (0/2/8) | src PAN (0/2) |
//! | src addr (0/2/8) | aux security header (0/5..14) | ...
//! frame control: type 0-2, security 3, pending 4, AR 5, PAN ID compression 6,
//!   seq suppression 8, IE present 9, dst mode 10-11, version 12-13, src mode 14-15
//! ```

use crate::security::SecurityHeader;
use crate::{need, Error, Result};

/// Frame control bit positions and masks.
pub mod field {
    /// Frame type (bits 0-2).
    pub const FRAME_TYPE_MASK: u16 = 0x0007;
    /// Security enabled.
    pub const SECURITY: u16 = 1 << 3;
    /// Frame pending.
    pub const FRAME_PENDING: u16 = 1 << 4;
    /// Acknowledgement request.
    pub const ACK_REQUEST: u16 = 1 << 5;
    /// PAN ID compression.
    pub const PAN_ID_COMPRESSION: u16 = 1 << 6;
    /// Reserved (bit 7).
    pub const RESERVED: u16 = 1 << 7;
    /// Sequence number suppression (2015).
    pub const SEQ_SUPPRESSION: u16 = 1 << 8;
    /// IE present (2015).
    pub const IE_PRESENT: u16 = 1 << 9;
    /// Destination addressing mode shift (bits 10-11).
    pub const DST_MODE_SHIFT: u16 = 10;
    /// Frame version shift (bits 12-13).
    pub const VERSION_SHIFT: u16 = 12;
    /// Source addressing mode shift (bits 14-15).
    pub const SRC_MODE_SHIFT: u16 = 14;
    /// Offset of the frame control field.
    pub const FRAME_CONTROL: usize = 0;
    /// Length of the frame control field.
    pub const FRAME_CONTROL_LEN: usize = 2;
}

/// Broadcast short address / PAN ID.
pub const BROADCAST: u16 = 0xffff;

/// Frame type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameType {
    /// Beacon (Enhanced Beacon when frame version is 2015).
    Beacon = 0,
    /// Data.
    Data = 1,
    /// Acknowledgement (Enhanced ACK when frame version is 2015).
    Ack = 2,
    /// MAC command.
    MacCommand = 3,
}

impl FrameType {
    fn from_bits(b: u16) -> Result<Self> {
        Ok(match b {
            0 => FrameType::Beacon,
            1 => FrameType::Data,
            2 => FrameType::Ack,
            3 => FrameType::MacCommand,
            4 => return Err(Error::Unsupported("reserved frame type 4")),
            5 => return Err(Error::Unsupported("multipurpose frames")),
            6 => return Err(Error::Unsupported("fragment / Frak frames")),
            _ => return Err(Error::Unsupported("extended frame type")),
        })
    }
}

/// Frame version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FrameVersion {
    /// IEEE 802.15.4-2003.
    V2003 = 0,
    /// IEEE 802.15.4-2006 (and 2011).
    V2006 = 1,
    /// IEEE 802.15.4-2015 (IEs, Enh-ACK, Enhanced Beacon).
    V2015 = 2,
}

/// A MAC address (with its addressing mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Address {
    /// Mode 0: not present.
    Absent,
    /// Mode 2: 16-bit short address.
    Short(u16),
    /// Mode 3: 64-bit extended address (as written, most significant byte
    /// first: `0xacde480000000001`).
    Extended(u64),
}

impl Address {
    /// Addressing mode (0, 2, 3).
    pub fn mode(&self) -> u16 {
        match self {
            Address::Absent => 0,
            Address::Short(_) => 2,
            Address::Extended(_) => 3,
        }
    }

    /// Length on the wire (0, 2 or 8).
    pub fn wire_len(&self) -> usize {
        match self {
            Address::Absent => 0,
            Address::Short(_) => 2,
            Address::Extended(_) => 8,
        }
    }

    /// Whether the address is absent.
    pub fn is_absent(&self) -> bool {
        matches!(self, Address::Absent)
    }

    /// Whether it is the short broadcast address 0xffff.
    pub fn is_broadcast(&self) -> bool {
        matches!(self, Address::Short(BROADCAST))
    }

    pub(super) fn emit(&self, buf: &mut [u8]) {
        match self {
            Address::Absent => {}
            Address::Short(s) => buf[..2].copy_from_slice(&s.to_le_bytes()),
            Address::Extended(e) => buf[..8].copy_from_slice(&e.to_le_bytes()),
        }
    }

    /// The address of addressing mode `mode` at the start of `buf`; `what`
    /// names it in the error if `buf` is too short.
    fn parse(mode: u16, buf: &[u8], what: &'static str) -> Result<Address> {
        Ok(match mode {
            0 => Address::Absent,
            2 => {
                need(buf, 2, what)?;
                Address::Short(u16::from_le_bytes([buf[0], buf[1]]))
            }
            3 => {
                need(buf, 8, what)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(&buf[..8]);
                Address::Extended(u64::from_le_bytes(a))
            }
            m => {
                return Err(Error::BadValue {
                    field: "addressing mode",
                    value: u32::from(m),
                })
            }
        })
    }
}

/// Whether the destination and source PAN ID fields are present, given the
/// frame version, the addressing modes and the PAN ID compression bit.
/// 2003/2006: §7.2.1.5 of 802.15.4-2006; 2015: Table 7-2 of 802.15.4-2015.
pub fn pan_id_presence(
    version: FrameVersion,
    dst_mode: u16,
    src_mode: u16,
    compression: bool,
) -> Result<(bool, bool)> {
    let d = dst_mode != 0;
    let s = src_mode != 0;
    match version {
        FrameVersion::V2003 | FrameVersion::V2006 => match (d, s, compression) {
            (true, true, c) => Ok((true, !c)),
            (true, false, false) => Ok((true, false)),
            (false, true, false) => Ok((false, true)),
            (false, false, false) => Ok((false, false)),
            _ => Err(Error::BadAddressing(
                "PAN ID compression set without both addresses (2006 rules)",
            )),
        },
        FrameVersion::V2015 => Ok(match (dst_mode, src_mode, compression) {
            (0, 0, false) => (false, false),
            (0, 0, true) => (true, false),
            (_, 0, false) => (true, false),
            (_, 0, true) => (false, false),
            (0, _, false) => (false, true),
            (0, _, true) => (false, false),
            (3, 3, false) => (true, false),
            (3, 3, true) => (false, false),
            (_, _, false) => (true, true),
            (_, _, true) => (true, false),
        }),
    }
}

/// A zero-copy view of an MPDU (without FCS): the frame control field,
/// sequence number, PAN IDs and addresses read in place, in the style of
/// smoltcp's `wire` frames. [`Frame::new_checked`] applies every rule of the
/// addressing fields once, so the accessors cannot fail or panic; a receiver
/// can decide "not for me" without building a [`super::Repr`] or allocating.
#[derive(Debug, Clone, Copy)]
pub struct Frame<T: AsRef<[u8]>> {
    buffer: T,
    frame_type: FrameType,
    version: FrameVersion,
    /// Where each field starts (`None`: not present).
    seq_at: Option<usize>,
    dst_pan_at: Option<usize>,
    src_pan_at: Option<usize>,
    /// Offsets of the two addresses and the end of the addressing fields.
    dst_addr_at: usize,
    src_addr_at: usize,
    addressing_end: usize,
}

impl<T: AsRef<[u8]>> Frame<T> {
    /// Check the frame control field and that every addressing field it
    /// announces is there.
    pub fn new_checked(buffer: T) -> Result<Frame<T>> {
        let buf = buffer.as_ref();
        need(buf, field::FRAME_CONTROL_LEN, "frame control")?;
        let fc = u16::from_le_bytes([buf[0], buf[1]]);
        let frame_type = FrameType::from_bits(fc & field::FRAME_TYPE_MASK)?;
        let version = match (fc >> field::VERSION_SHIFT) & 3 {
            0 => FrameVersion::V2003,
            1 => FrameVersion::V2006,
            2 => FrameVersion::V2015,
            v => {
                return Err(Error::BadValue {
                    field: "frame version",
                    value: u32::from(v),
                })
            }
        };
        if fc & field::RESERVED != 0 {
            return Err(Error::BadValue {
                field: "frame control reserved bit 7",
                value: u32::from(fc),
            });
        }
        if version != FrameVersion::V2015 && fc & (field::SEQ_SUPPRESSION | field::IE_PRESENT) != 0
        {
            return Err(Error::BadValue {
                field: "frame control bits 8-9 (reserved before 2015)",
                value: u32::from(fc),
            });
        }
        let dst_mode = (fc >> field::DST_MODE_SHIFT) & 3;
        let src_mode = (fc >> field::SRC_MODE_SHIFT) & 3;
        let compression = fc & field::PAN_ID_COMPRESSION != 0;
        if version != FrameVersion::V2015
            && frame_type == FrameType::Ack
            && (dst_mode != 0 || src_mode != 0 || compression)
        {
            return Err(Error::BadAddressing(
                "Imm-Ack (pre-2015 ACK) carries no addressing",
            ));
        }
        let mut off = field::FRAME_CONTROL_LEN;
        let seq_at = if fc & field::SEQ_SUPPRESSION != 0 {
            None
        } else {
            need(buf, off + 1, "sequence number")?;
            off += 1;
            Some(off - 1)
        };
        let (dst_pan_p, src_pan_p) = pan_id_presence(version, dst_mode, src_mode, compression)?;
        let pan_at = |present: bool, off: &mut usize, what| -> Result<Option<usize>> {
            if !present {
                return Ok(None);
            }
            need(buf, *off + 2, what)?;
            *off += 2;
            Ok(Some(*off - 2))
        };
        let dst_pan_at = pan_at(dst_pan_p, &mut off, "destination PAN ID")?;
        let dst_addr_at = off;
        off += Address::parse(dst_mode, &buf[off..], "destination address")?.wire_len();
        let src_pan_at = pan_at(src_pan_p, &mut off, "source PAN ID")?;
        let src_addr_at = off;
        off += Address::parse(src_mode, &buf[off..], "source address")?.wire_len();
        Ok(Frame {
            buffer,
            frame_type,
            version,
            seq_at,
            dst_pan_at,
            src_pan_at,
            dst_addr_at,
            src_addr_at,
            addressing_end: off,
        })
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    fn u16_at(&self, at: usize) -> u16 {
        u16::from_le_bytes([self.bytes()[at], self.bytes()[at + 1]])
    }

    /// The frame control field.
    pub fn frame_control(&self) -> u16 {
        self.u16_at(field::FRAME_CONTROL)
    }

    fn flag(&self, bit: u16) -> bool {
        self.frame_control() & bit != 0
    }

    /// Frame type.
    pub fn frame_type(&self) -> FrameType {
        self.frame_type
    }

    /// Frame version.
    pub fn frame_version(&self) -> FrameVersion {
        self.version
    }

    /// Security enabled bit.
    pub fn security_enabled(&self) -> bool {
        self.flag(field::SECURITY)
    }

    /// Frame pending bit.
    pub fn frame_pending(&self) -> bool {
        self.flag(field::FRAME_PENDING)
    }

    /// Acknowledgement request bit.
    pub fn ack_request(&self) -> bool {
        self.flag(field::ACK_REQUEST)
    }

    /// PAN ID compression bit.
    pub fn pan_id_compression(&self) -> bool {
        self.flag(field::PAN_ID_COMPRESSION)
    }

    /// IE present bit (2015).
    pub fn ie_present(&self) -> bool {
        self.flag(field::IE_PRESENT)
    }

    /// Sequence number; `None` = suppressed (2015).
    pub fn sequence_number(&self) -> Option<u8> {
        self.seq_at.map(|at| self.bytes()[at])
    }

    /// Destination PAN ID, if present.
    pub fn dst_pan_id(&self) -> Option<u16> {
        self.dst_pan_at.map(|at| self.u16_at(at))
    }

    /// Source PAN ID, if present.
    pub fn src_pan_id(&self) -> Option<u16> {
        self.src_pan_at.map(|at| self.u16_at(at))
    }

    fn address(&self, shift: u16, at: usize) -> Address {
        let b = self.bytes();
        match (self.frame_control() >> shift) & 3 {
            2 => Address::Short(self.u16_at(at)),
            3 => {
                let mut a = [0u8; 8];
                a.copy_from_slice(&b[at..at + 8]);
                Address::Extended(u64::from_le_bytes(a))
            }
            // mode 1 is refused by `new_checked`
            _ => Address::Absent,
        }
    }

    /// Destination address.
    pub fn dst_addr(&self) -> Address {
        self.address(field::DST_MODE_SHIFT, self.dst_addr_at)
    }

    /// Source address.
    pub fn src_addr(&self) -> Address {
        self.address(field::SRC_MODE_SHIFT, self.src_addr_at)
    }

    /// Length of frame control .. source address: the offset of the
    /// auxiliary security header (or of what follows the addresses).
    pub fn addressing_len(&self) -> usize {
        self.addressing_end
    }

    /// The auxiliary security header and its length, if security is enabled.
    pub fn security_header(&self) -> Result<Option<(SecurityHeader, usize)>> {
        if !self.security_enabled() {
            return Ok(None);
        }
        if self.version == FrameVersion::V2003 {
            return Err(Error::Unsupported("802.15.4-2003 security"));
        }
        let (h, n) = SecurityHeader::parse(&self.bytes()[self.addressing_end..])?;
        if self.version != FrameVersion::V2015 && (h.frame_counter.is_none() || h.asn_in_nonce) {
            return Err(Error::BadValue {
                field: "security control bits 5-6 (reserved before 2015)",
                value: u32::from(h.control()),
            });
        }
        Ok(Some((h, n)))
    }

    /// The auxiliary security header, if security is enabled, and where
    /// what follows it starts (header IEs, or the payload).
    pub(super) fn security_and_end(&self) -> Result<(Option<SecurityHeader>, usize)> {
        Ok(match self.security_header()? {
            Some((h, n)) => (Some(h), self.addressing_end + n),
            None => (None, self.addressing_end),
        })
    }

    /// The frame body of a frame without IEs, borrowed: everything after the
    /// auxiliary security header (still encrypted, MIC included, if the frame
    /// is secured and not yet opened). `None` when IEs are present (their
    /// list has to be walked: use [`super::Repr::parse`]) or the security
    /// header is malformed.
    pub fn payload_without_ies(&self) -> Option<&[u8]> {
        if self.ie_present() {
            return None;
        }
        let (_, end) = self.security_and_end().ok()?;
        Some(&self.bytes()[end..])
    }
}
