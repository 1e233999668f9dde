//! IEEE 802.15.4 MAC frames (MPDU without FCS; see [`crate::fcs`] for the
//! FCS): frame control, sequence number (and the 2015 sequence number
//! suppression), addressing modes none/short/extended, PAN ID compression by
//! the 2003/2006 rules and by the 2015 table (Table 7-2), the auxiliary
//! security header, header and payload IEs (2015), and the bodies of data,
//! (Imm-/Enh-)ACK, MAC command and (enhanced) beacon frames.
//!
//! ```text
//! | frame control (2) | seq (0/1) | dst PAN (0/2) | dst addr (0/2/8) | src PAN (0/2) |
//! | src addr (0/2/8) | aux security header (0/5..14) | header IEs | payload IEs | payload |
//! frame control: type 0-2, security 3, pending 4, AR 5, PAN ID compression 6,
//!   seq suppression 8, IE present 9, dst mode 10-11, version 12-13, src mode 14-15
//! ```
//!
//! Multi-byte fields are little endian on the wire. Extended addresses are held
//! as `u64` in the order they are written (`0xacde480000000001` is printed by
//! Wireshark as `ac:de:48:00:00:00:00:01` and sent as `01 00 00 00 00 48 de ac`).
//!
//! [`Frame`] reads the header fields in place (no allocation), which is all
//! a receiver needs to drop a frame that is not for it. [`Repr::parse`]
//! reads a plaintext frame: an unsecured one, or a secured one
//! after [`crate::ccm_star::unsecure_frame`] (security bit and auxiliary header
//! still there, payload decrypted, MIC removed — the "unsecured frame" of
//! Annex C). [`Layout::parse`] reads the cleartext structure of a frame whose
//! payload may still be encrypted.

use crate::ie::{HeaderIe, PayloadIe, Termination};
use crate::security::SecurityHeader;
use crate::{need, room, Error, Result};

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

/// MAC command identifiers.
pub mod command_id {
    /// Association request.
    pub const ASSOCIATION_REQUEST: u8 = 0x01;
    /// Association response.
    pub const ASSOCIATION_RESPONSE: u8 = 0x02;
    /// Data request (poll for indirect transmission).
    pub const DATA_REQUEST: u8 = 0x04;
    /// Beacon request.
    pub const BEACON_REQUEST: u8 = 0x07;
}

/// aMaxPHYPacketSize: the largest PSDU (MPDU incl. MIC and FCS) in bytes.
pub const MAX_PSDU_LEN: usize = 127;

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

    fn emit(&self, buf: &mut [u8]) {
        match self {
            Address::Absent => {}
            Address::Short(s) => buf[..2].copy_from_slice(&s.to_le_bytes()),
            Address::Extended(e) => buf[..8].copy_from_slice(&e.to_le_bytes()),
        }
    }

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

/// Superframe specification of a (non-enhanced) beacon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SuperframeSpec {
    /// Beacon order BO (0-15; 15 = non-beacon-enabled).
    pub beacon_order: u8,
    /// Superframe order SO (0-15).
    pub superframe_order: u8,
    /// Final CAP slot (0-15).
    pub final_cap_slot: u8,
    /// Battery life extension.
    pub battery_life_extension: bool,
    /// Sent by the PAN coordinator.
    pub pan_coordinator: bool,
    /// Association permitted.
    pub association_permit: bool,
}

impl SuperframeSpec {
    /// The 16-bit field value.
    pub fn to_bits(&self) -> u16 {
        u16::from(self.beacon_order & 0xf)
            | u16::from(self.superframe_order & 0xf) << 4
            | u16::from(self.final_cap_slot & 0xf) << 8
            | u16::from(self.battery_life_extension) << 12
            | u16::from(self.pan_coordinator) << 14
            | u16::from(self.association_permit) << 15
    }

    /// From the 16-bit field value (bit 13, reserved, is ignored).
    pub fn from_bits(v: u16) -> Self {
        SuperframeSpec {
            beacon_order: (v & 0xf) as u8,
            superframe_order: ((v >> 4) & 0xf) as u8,
            final_cap_slot: ((v >> 8) & 0xf) as u8,
            battery_life_extension: v & (1 << 12) != 0,
            pan_coordinator: v & (1 << 14) != 0,
            association_permit: v & (1 << 15) != 0,
        }
    }
}

/// Body of a (non-enhanced) beacon: superframe spec, GTS fields (no GTS
/// descriptors), pending address list, beacon payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beacon {
    /// Superframe specification.
    pub superframe: SuperframeSpec,
    /// GTS permit flag (the GTS descriptor list is always empty).
    pub gts_permit: bool,
    /// Short addresses with pending data (at most 7).
    pub pending_short: Vec<u16>,
    /// Extended addresses with pending data (at most 7).
    pub pending_ext: Vec<u64>,
    /// Beacon payload.
    pub payload: Vec<u8>,
}

impl Beacon {
    /// Length of the cleartext ("open payload") part: superframe, GTS, pending.
    fn open_len(&self) -> usize {
        2 + 1 + 1 + 2 * self.pending_short.len() + 8 * self.pending_ext.len()
    }
}

/// Parse the open fields of a beacon; returns (superframe, gts permit,
/// short list, ext list, bytes consumed).
type BeaconOpen = (SuperframeSpec, bool, Vec<u16>, Vec<u64>, usize);

/// Check the open fields of a beacon (superframe, GTS and pending address
/// specifications, and the pending address list) in place; returns the
/// number of short and extended pending addresses and the bytes they all take.
fn check_beacon_open(buf: &[u8]) -> Result<(usize, usize, usize)> {
    need(buf, 4, "beacon superframe/GTS/pending fields")?;
    let gts = buf[2];
    if gts & 0x07 != 0 {
        return Err(Error::Unsupported("GTS descriptors in beacons"));
    }
    if gts & 0x78 != 0 {
        return Err(Error::BadValue {
            field: "GTS specification reserved bits",
            value: u32::from(gts),
        });
    }
    let pend = buf[3];
    if pend & 0x88 != 0 {
        return Err(Error::BadValue {
            field: "pending address specification reserved bits",
            value: u32::from(pend),
        });
    }
    let ns = usize::from(pend & 0x07);
    let ne = usize::from((pend >> 4) & 0x07);
    let total = 4 + 2 * ns + 8 * ne;
    need(buf, total, "beacon pending address list")?;
    Ok((ns, ne, total))
}

fn parse_beacon_open(buf: &[u8]) -> Result<BeaconOpen> {
    let (ns, ne, total) = check_beacon_open(buf)?;
    let sf = SuperframeSpec::from_bits(u16::from_le_bytes([buf[0], buf[1]]));
    let gts = buf[2];
    let mut off = 4;
    let mut shorts = Vec::with_capacity(ns);
    for _ in 0..ns {
        shorts.push(u16::from_le_bytes([buf[off], buf[off + 1]]));
        off += 2;
    }
    let mut exts = Vec::with_capacity(ne);
    for _ in 0..ne {
        let mut a = [0u8; 8];
        a.copy_from_slice(&buf[off..off + 8]);
        exts.push(u64::from_le_bytes(a));
        off += 8;
    }
    Ok((sf, gts & 0x80 != 0, shorts, exts, total))
}

/// A MAC command: identifier and content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Command frame identifier (see [`command_id`]).
    pub id: u8,
    /// Command content.
    pub content: Vec<u8>,
}

/// Frame body by frame type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// Beacon (frame version 2003/2006).
    Beacon(Beacon),
    /// Enhanced Beacon (frame version 2015): its content is in the payload IEs;
    /// this is the beacon payload after them.
    EnhancedBeacon(Vec<u8>),
    /// Data frame payload.
    Data(Vec<u8>),
    /// Acknowledgement; the payload is empty for Imm-Ack and usually for Enh-Ack.
    Ack(Vec<u8>),
    /// MAC command.
    Command(Command),
}

impl Body {
    /// The frame type this body implies.
    pub fn frame_type(&self) -> FrameType {
        match self {
            Body::Beacon(_) | Body::EnhancedBeacon(_) => FrameType::Beacon,
            Body::Data(_) => FrameType::Data,
            Body::Ack(_) => FrameType::Ack,
            Body::Command(_) => FrameType::MacCommand,
        }
    }

    fn len(&self) -> usize {
        match self {
            Body::Beacon(b) => b.open_len() + b.payload.len(),
            Body::EnhancedBeacon(p) | Body::Data(p) | Body::Ack(p) => p.len(),
            Body::Command(c) => 1 + c.content.len(),
        }
    }
}

/// High-level representation of an MPDU without FCS (and without MIC).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repr {
    /// Frame version.
    pub version: FrameVersion,
    /// Frame pending bit.
    pub frame_pending: bool,
    /// Acknowledgement request bit.
    pub ack_request: bool,
    /// Sequence number; `None` = suppressed (2015 only).
    pub seq: Option<u8>,
    /// Destination PAN ID, if present in the frame.
    pub dst_pan: Option<u16>,
    /// Destination address.
    pub dst_addr: Address,
    /// Source PAN ID, if present in the frame.
    pub src_pan: Option<u16>,
    /// Source address.
    pub src_addr: Address,
    /// Auxiliary security header (security enabled bit).
    pub security: Option<SecurityHeader>,
    /// Header IEs (2015), without termination IEs (added as needed).
    pub header_ies: Vec<HeaderIe>,
    /// Payload IEs (2015), without the termination IE (added as needed).
    pub payload_ies: Vec<PayloadIe>,
    /// Frame body.
    pub body: Body,
}

/// The body of a [`ReprRef`], borrowed from the frame it was parsed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyRef<'a> {
    /// Beacon (frame version 2003/2006): its open fields (checked) and
    /// payload; [`BodyRef::beacon`] reads them out.
    Beacon(&'a [u8]),
    /// Enhanced Beacon: the beacon payload after the payload IEs.
    EnhancedBeacon(&'a [u8]),
    /// Data frame payload.
    Data(&'a [u8]),
    /// Acknowledgement payload (empty for an Imm-Ack).
    Ack(&'a [u8]),
    /// MAC command: identifier and content.
    Command { id: u8, content: &'a [u8] },
}

impl BodyRef<'_> {
    /// The frame type this body implies.
    pub fn frame_type(&self) -> FrameType {
        match self {
            BodyRef::Beacon(_) | BodyRef::EnhancedBeacon(_) => FrameType::Beacon,
            BodyRef::Data(_) => FrameType::Data,
            BodyRef::Ack(_) => FrameType::Ack,
            BodyRef::Command { .. } => FrameType::MacCommand,
        }
    }

    /// The owned body (copies the bytes).
    pub fn to_body(&self) -> Result<Body> {
        Ok(match *self {
            BodyRef::Beacon(rest) => Body::Beacon(beacon_of(rest)?),
            BodyRef::EnhancedBeacon(p) => Body::EnhancedBeacon(p.to_vec()),
            BodyRef::Data(p) => Body::Data(p.to_vec()),
            BodyRef::Ack(p) => Body::Ack(p.to_vec()),
            BodyRef::Command { id, content } => Body::Command(Command {
                id,
                content: content.to_vec(),
            }),
        })
    }

    /// A beacon body's fields (None for other bodies).
    pub fn beacon(&self) -> Option<Result<Beacon>> {
        match *self {
            BodyRef::Beacon(rest) => Some(beacon_of(rest)),
            _ => None,
        }
    }
}

/// The fields of a beacon body (open fields, then payload).
fn beacon_of(rest: &[u8]) -> Result<Beacon> {
    let (superframe, gts_permit, pending_short, pending_ext, n) = parse_beacon_open(rest)?;
    Ok(Beacon {
        superframe,
        gts_permit,
        pending_short,
        pending_ext,
        payload: rest[n..].to_vec(),
    })
}

/// An MPDU (without FCS and MIC) parsed without copying, as smoltcp's
/// `Repr<'a>`: the header fields by value, the IEs and the body borrowed
/// from the buffer, every rule of [`Repr::parse`] checked. A receiver reads
/// what it needs and copies only what it keeps ([`ReprRef::to_repr`]).
/// Parsing allocates nothing unless the frame carries IEs other than
/// terminations (their lists are checked by parsing them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReprRef<'a> {
    /// Frame version.
    pub version: FrameVersion,
    /// Frame pending bit.
    pub frame_pending: bool,
    /// Acknowledgement request bit.
    pub ack_request: bool,
    /// Sequence number; `None` = suppressed (2015 only).
    pub seq: Option<u8>,
    /// Destination PAN ID, if present in the frame.
    pub dst_pan: Option<u16>,
    /// Destination address.
    pub dst_addr: Address,
    /// Source PAN ID, if present in the frame.
    pub src_pan: Option<u16>,
    /// Source address.
    pub src_addr: Address,
    /// Auxiliary security header (security enabled bit).
    pub security: Option<SecurityHeader>,
    /// The header IE list with its termination (empty without IEs).
    pub header_ies: &'a [u8],
    /// The payload IE list with its termination (empty without).
    pub payload_ies: &'a [u8],
    /// Frame body.
    pub body: BodyRef<'a>,
}

impl<'a> ReprRef<'a> {
    /// Parse a plaintext MPDU (without FCS and MIC).
    pub fn parse(buf: &'a [u8]) -> Result<ReprRef<'a>> {
        let h = parse_head(buf)?;
        let mut off = h.off;
        let mut header_ies: &[u8] = &[];
        let mut payload_ies: &[u8] = &[];
        if h.fc & field::IE_PRESENT != 0 {
            let (_, n, t) = HeaderIe::parse_list(&buf[off..])?;
            header_ies = &buf[off..off + n];
            off += n;
            if t == Termination::Ht1 {
                let (_, n) = PayloadIe::parse_list(&buf[off..])?;
                payload_ies = &buf[off..off + n];
                off += n;
            }
        }
        let rest = &buf[off..];
        let body = match (h.frame_type, h.version) {
            (FrameType::Beacon, FrameVersion::V2015) => BodyRef::EnhancedBeacon(rest),
            (FrameType::Beacon, _) => {
                check_beacon_open(rest)?;
                BodyRef::Beacon(rest)
            }
            (FrameType::Data, _) => BodyRef::Data(rest),
            (FrameType::Ack, FrameVersion::V2015) => BodyRef::Ack(rest),
            (FrameType::Ack, _) => {
                if h.security.is_some() || !rest.is_empty() {
                    return Err(Error::BadValue {
                        field: "Imm-Ack length",
                        value: buf.len() as u32,
                    });
                }
                BodyRef::Ack(rest)
            }
            (FrameType::MacCommand, _) => {
                need(rest, 1, "command frame identifier")?;
                BodyRef::Command {
                    id: rest[0],
                    content: &rest[1..],
                }
            }
        };
        Ok(ReprRef {
            version: h.version,
            frame_pending: h.fc & field::FRAME_PENDING != 0,
            ack_request: h.fc & field::ACK_REQUEST != 0,
            seq: h.seq,
            dst_pan: h.dst_pan,
            dst_addr: h.dst_addr,
            src_pan: h.src_pan,
            src_addr: h.src_addr,
            security: h.security.map(|(s, _)| s),
            header_ies,
            payload_ies,
            body,
        })
    }

    /// The owned representation (copies the IEs and the body).
    pub fn to_repr(&self) -> Result<Repr> {
        let header_ies = if self.header_ies.is_empty() {
            Vec::new()
        } else {
            HeaderIe::parse_list(self.header_ies)?.0
        };
        let payload_ies = if self.payload_ies.is_empty() {
            Vec::new()
        } else {
            PayloadIe::parse_list(self.payload_ies)?.0
        };
        Ok(Repr {
            version: self.version,
            frame_pending: self.frame_pending,
            ack_request: self.ack_request,
            seq: self.seq,
            dst_pan: self.dst_pan,
            dst_addr: self.dst_addr,
            src_pan: self.src_pan,
            src_addr: self.src_addr,
            security: self.security,
            header_ies,
            payload_ies,
            body: self.body.to_body()?,
        })
    }
}

/// The cleartext structure of an MPDU (without FCS), readable even while the
/// private payload is encrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Frame type.
    pub frame_type: FrameType,
    /// Frame version.
    pub version: FrameVersion,
    /// Offset of the auxiliary security header, if security is enabled.
    pub aux_offset: Option<usize>,
    /// End of the MAC header: addressing, auxiliary security header and
    /// header IEs (incl. the header termination IE).
    pub header_len: usize,
    /// Length of the open (authenticated, never encrypted) payload after the
    /// header: for 2003/2006 frames the command identifier of a MAC command,
    /// or a beacon's superframe/GTS/pending fields. 2015 frames have no open
    /// payload: their Command ID and payload IEs are private (encrypted), as
    /// Wireshark expects.
    pub open_payload_len: usize,
    /// Source address (needed for the nonce).
    pub src_addr: Address,
}

/// A zero-copy view of an MPDU (without FCS): the frame control field,
/// sequence number, PAN IDs and addresses read in place, in the style of
/// smoltcp's `wire` frames. [`Frame::new_checked`] applies every rule of the
/// addressing fields once, so the accessors cannot fail or panic; a receiver
/// can decide "not for me" without building a [`Repr`] or allocating.
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

    /// The frame body of a frame without IEs, borrowed: everything after the
    /// auxiliary security header (still encrypted, MIC included, if the frame
    /// is secured and not yet opened). `None` when IEs are present (their
    /// list has to be walked: use [`Repr::parse`]) or the security header is
    /// malformed.
    pub fn payload_without_ies(&self) -> Option<&[u8]> {
        if self.ie_present() {
            return None;
        }
        let aux = self.security_header().ok()?.map_or(0, |(_, n)| n);
        Some(&self.bytes()[self.addressing_end + aux..])
    }
}

struct Head {
    fc: u16,
    frame_type: FrameType,
    version: FrameVersion,
    seq: Option<u8>,
    dst_pan: Option<u16>,
    dst_addr: Address,
    src_pan: Option<u16>,
    src_addr: Address,
    security: Option<(SecurityHeader, usize)>,
    off: usize,
}

fn parse_head(buf: &[u8]) -> Result<Head> {
    let f = Frame::new_checked(buf)?;
    let at = f.addressing_len();
    let security = f.security_header()?;
    Ok(Head {
        fc: f.frame_control(),
        frame_type: f.frame_type(),
        version: f.frame_version(),
        seq: f.sequence_number(),
        dst_pan: f.dst_pan_id(),
        dst_addr: f.dst_addr(),
        src_pan: f.src_pan_id(),
        src_addr: f.src_addr(),
        security: security.map(|(h, _)| (h, at)),
        off: at + security.map_or(0, |(_, n)| n),
    })
}

impl Layout {
    /// Read the cleartext structure of an MPDU (without FCS and without MIC:
    /// a plaintext frame, or a secured one before [`crate::ccm_star::secure_frame`]).
    pub fn parse(buf: &[u8]) -> Result<Layout> {
        Self::parse_inner(buf, false)
    }

    /// Read the cleartext structure of a secured MPDU as received (without
    /// FCS, with its MIC at the end): the MIC is not mistaken for IEs.
    pub fn parse_secured(buf: &[u8]) -> Result<Layout> {
        Self::parse_inner(buf, true)
    }

    fn parse_inner(buf: &[u8], with_mic: bool) -> Result<Layout> {
        let h = parse_head(buf)?;
        let mic = match (with_mic, &h.security) {
            (true, Some((s, _))) => s.level.mic_len(),
            _ => 0,
        };
        if h.off + mic > buf.len() {
            return Err(Error::Truncated {
                what: "MIC",
                need: h.off + mic,
                have: buf.len(),
            });
        }
        let buf = &buf[..buf.len() - mic];
        let mut off = h.off;
        let mut payload_ies = false;
        if h.fc & field::IE_PRESENT != 0 {
            let (_, n, t) = HeaderIe::parse_list(&buf[off..])?;
            off += n;
            payload_ies = t == Termination::Ht1;
        }
        let open = if payload_ies {
            0
        } else {
            match (h.frame_type, h.version) {
                (FrameType::MacCommand, FrameVersion::V2003 | FrameVersion::V2006) => {
                    need(&buf[off..], 1, "command frame identifier")?;
                    1
                }
                (FrameType::Beacon, FrameVersion::V2003 | FrameVersion::V2006) => {
                    parse_beacon_open(&buf[off..])?.4
                }
                _ => 0,
            }
        };
        Ok(Layout {
            frame_type: h.frame_type,
            version: h.version,
            aux_offset: h.security.map(|(_, at)| at),
            header_len: off,
            open_payload_len: open,
            src_addr: h.src_addr,
        })
    }
}

impl Repr {
    /// A 2006 data frame inside one PAN (PAN ID compression), AR set unless
    /// the destination is broadcast.
    pub fn data(seq: u8, pan: u16, dst: Address, src: Address, payload: Vec<u8>) -> Repr {
        Repr {
            version: FrameVersion::V2006,
            frame_pending: false,
            ack_request: !dst.is_broadcast() && !dst.is_absent(),
            seq: Some(seq),
            dst_pan: Some(pan),
            dst_addr: dst,
            src_pan: if dst.is_absent() { Some(pan) } else { None },
            src_addr: src,
            security: None,
            header_ies: Vec::new(),
            payload_ies: Vec::new(),
            body: Body::Data(payload),
        }
    }

    /// A 2006 Imm-Ack.
    pub fn imm_ack(seq: u8, frame_pending: bool) -> Repr {
        Repr {
            version: FrameVersion::V2006,
            frame_pending,
            ack_request: false,
            seq: Some(seq),
            dst_pan: None,
            dst_addr: Address::Absent,
            src_pan: None,
            src_addr: Address::Absent,
            security: None,
            header_ies: Vec::new(),
            payload_ies: Vec::new(),
            body: Body::Ack(Vec::new()),
        }
    }

    /// A 2015 Enh-Ack to `dst` with a time correction IE (TSCH): destination
    /// address only, PAN ID elided (PAN ID compression set).
    pub fn enh_ack(seq: u8, dst: Address, correction_us: i16, nack: bool) -> Repr {
        Repr {
            version: FrameVersion::V2015,
            frame_pending: false,
            ack_request: false,
            seq: Some(seq),
            dst_pan: None,
            dst_addr: dst,
            src_pan: None,
            src_addr: Address::Absent,
            security: None,
            header_ies: vec![HeaderIe::TimeCorrection {
                correction_us,
                nack,
            }],
            payload_ies: Vec::new(),
            body: Body::Ack(Vec::new()),
        }
    }

    /// A 2006 beacon from `src` in `pan`.
    pub fn beacon(seq: u8, pan: u16, src: Address, beacon: Beacon) -> Repr {
        Repr {
            version: FrameVersion::V2006,
            frame_pending: false,
            ack_request: false,
            seq: Some(seq),
            dst_pan: None,
            dst_addr: Address::Absent,
            src_pan: Some(pan),
            src_addr: src,
            security: None,
            header_ies: Vec::new(),
            payload_ies: Vec::new(),
            body: Body::Beacon(beacon),
        }
    }

    /// A 2006 data request command (poll) from `src` to its coordinator `dst`.
    pub fn data_request(seq: u8, pan: u16, dst: Address, src: Address) -> Repr {
        Repr {
            version: FrameVersion::V2006,
            frame_pending: false,
            ack_request: true,
            seq: Some(seq),
            dst_pan: Some(pan),
            dst_addr: dst,
            src_pan: if dst.is_absent() { Some(pan) } else { None },
            src_addr: src,
            security: None,
            header_ies: Vec::new(),
            payload_ies: Vec::new(),
            body: Body::Command(Command {
                id: command_id::DATA_REQUEST,
                content: Vec::new(),
            }),
        }
    }

    /// A 2015 Enhanced Beacon (broadcast, source extended address, PAN ID
    /// present) carrying `payload_ies`.
    pub fn enhanced_beacon(seq: u8, pan: u16, src: u64, payload_ies: Vec<PayloadIe>) -> Repr {
        Repr {
            version: FrameVersion::V2015,
            frame_pending: false,
            ack_request: false,
            seq: Some(seq),
            dst_pan: Some(pan),
            dst_addr: Address::Short(BROADCAST),
            src_pan: None,
            src_addr: Address::Extended(src),
            security: None,
            header_ies: Vec::new(),
            payload_ies,
            body: Body::EnhancedBeacon(Vec::new()),
        }
    }

    /// The frame type.
    pub fn frame_type(&self) -> FrameType {
        self.body.frame_type()
    }

    fn termination(&self) -> Termination {
        if !self.payload_ies.is_empty() {
            Termination::Ht1
        } else if !self.header_ies.is_empty() && self.body.len() > 0 {
            Termination::Ht2
        } else {
            Termination::End
        }
    }

    fn ie_present(&self) -> bool {
        !self.header_ies.is_empty() || !self.payload_ies.is_empty()
    }

    /// The PAN ID compression bit that yields the PAN ID fields of `self`.
    pub fn pan_id_compression(&self) -> Result<bool> {
        let want = (self.dst_pan.is_some(), self.src_pan.is_some());
        let (d, s) = (self.dst_addr.mode(), self.src_addr.mode());
        for c in [false, true] {
            if pan_id_presence(self.version, d, s, c).ok() == Some(want) {
                return Ok(c);
            }
        }
        Err(Error::BadAddressing(
            "no PAN ID compression value gives these PAN ID fields",
        ))
    }

    /// Length of the MAC header: frame control .. header IEs (with termination).
    pub fn header_len(&self) -> usize {
        let term = match self.termination() {
            Termination::End => 0,
            _ => 2,
        };
        field::FRAME_CONTROL_LEN
            + usize::from(self.seq.is_some())
            + 2 * usize::from(self.dst_pan.is_some())
            + self.dst_addr.wire_len()
            + 2 * usize::from(self.src_pan.is_some())
            + self.src_addr.wire_len()
            + self.security.map_or(0, |s| s.buffer_len())
            + self
                .header_ies
                .iter()
                .map(HeaderIe::buffer_len)
                .sum::<usize>()
            + term
    }

    /// Length of the payload IEs (with termination).
    fn payload_ies_len(&self) -> usize {
        if self.payload_ies.is_empty() {
            return 0;
        }
        self.payload_ies
            .iter()
            .map(PayloadIe::buffer_len)
            .sum::<usize>()
            + if self.body.len() > 0 { 2 } else { 0 }
    }

    /// Length of the MPDU without MIC and FCS.
    pub fn buffer_len(&self) -> usize {
        self.header_len() + self.payload_ies_len() + self.body.len()
    }

    /// Length of the PSDU on the air: MPDU + MIC (if secured) + FCS.
    pub fn psdu_len(&self) -> usize {
        self.buffer_len() + self.security.map_or(0, |s| s.level.mic_len()) + crate::fcs::FCS_LEN
    }

    /// Bytes left for the frame body (MAC payload) in a 127-byte PSDU with
    /// this frame's header, IEs, security header, MIC and FCS (the body of
    /// `self` itself is not counted); 0 if even the overhead does not fit.
    pub fn max_body_len(&self) -> usize {
        let overhead = self.psdu_len() - self.body.len();
        MAX_PSDU_LEN.saturating_sub(overhead)
    }

    /// The frame control field.
    pub fn frame_control(&self) -> Result<u16> {
        let mut fc = self.frame_type() as u16;
        let pc = self.pan_id_compression()?;
        if self.security.is_some() {
            fc |= field::SECURITY;
        }
        if self.frame_pending {
            fc |= field::FRAME_PENDING;
        }
        if self.ack_request {
            fc |= field::ACK_REQUEST;
        }
        if pc {
            fc |= field::PAN_ID_COMPRESSION;
        }
        if self.seq.is_none() {
            fc |= field::SEQ_SUPPRESSION;
        }
        if self.ie_present() {
            fc |= field::IE_PRESENT;
        }
        fc |= self.dst_addr.mode() << field::DST_MODE_SHIFT;
        fc |= (self.version as u16) << field::VERSION_SHIFT;
        fc |= self.src_addr.mode() << field::SRC_MODE_SHIFT;
        Ok(fc)
    }

    fn check(&self) -> Result<()> {
        let v2015 = self.version == FrameVersion::V2015;
        if !v2015 && (self.seq.is_none() || self.ie_present()) {
            return Err(Error::Unsupported(
                "sequence number suppression and IEs need frame version 2015",
            ));
        }
        if let Some(s) = self.security {
            if self.version == FrameVersion::V2003 {
                return Err(Error::Unsupported("802.15.4-2003 security"));
            }
            if !v2015 && (s.frame_counter.is_none() || s.asn_in_nonce) {
                return Err(Error::Unsupported(
                    "frame counter suppression needs frame version 2015",
                ));
            }
        }
        match &self.body {
            Body::Beacon(b) => {
                if v2015 {
                    return Err(Error::Unsupported(
                        "a 2015 beacon is an Enhanced Beacon (Body::EnhancedBeacon)",
                    ));
                }
                if b.pending_short.len() > 7 || b.pending_ext.len() > 7 {
                    return Err(Error::TooLong {
                        what: "pending address list",
                        len: b.pending_short.len().max(b.pending_ext.len()),
                        max: 7,
                    });
                }
            }
            Body::EnhancedBeacon(_) if !v2015 => {
                return Err(Error::Unsupported(
                    "Enhanced Beacon needs frame version 2015",
                ))
            }
            Body::Ack(p)
                if !v2015
                    && (!self.dst_addr.is_absent()
                        || !self.src_addr.is_absent()
                        || self.dst_pan.is_some()
                        || self.src_pan.is_some()
                        || self.security.is_some()
                        || !p.is_empty()) =>
            {
                return Err(Error::BadAddressing(
                    "Imm-Ack carries no addressing, security or payload",
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// Write the MPDU (without MIC and FCS) at the start of `buf`; returns
    /// its length.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        self.check()?;
        let len = self.buffer_len();
        room(buf, len)?;
        let fc = self.frame_control()?;
        buf[..2].copy_from_slice(&fc.to_le_bytes());
        let mut off = 2;
        if let Some(s) = self.seq {
            buf[off] = s;
            off += 1;
        }
        if let Some(p) = self.dst_pan {
            buf[off..off + 2].copy_from_slice(&p.to_le_bytes());
            off += 2;
        }
        self.dst_addr.emit(&mut buf[off..]);
        off += self.dst_addr.wire_len();
        if let Some(p) = self.src_pan {
            buf[off..off + 2].copy_from_slice(&p.to_le_bytes());
            off += 2;
        }
        self.src_addr.emit(&mut buf[off..]);
        off += self.src_addr.wire_len();
        if let Some(s) = &self.security {
            off += s.emit(&mut buf[off..])?;
        }
        for ie in &self.header_ies {
            off += ie.emit(&mut buf[off..])?;
        }
        off += HeaderIe::emit_termination(self.termination(), &mut buf[off..])?;
        for ie in &self.payload_ies {
            off += ie.emit(&mut buf[off..])?;
        }
        if !self.payload_ies.is_empty() && self.body.len() > 0 {
            off += PayloadIe::emit_termination(&mut buf[off..])?;
        }
        match &self.body {
            Body::Beacon(b) => {
                buf[off..off + 2].copy_from_slice(&b.superframe.to_bits().to_le_bytes());
                buf[off + 2] = if b.gts_permit { 0x80 } else { 0 };
                buf[off + 3] = (b.pending_short.len() as u8) | (b.pending_ext.len() as u8) << 4;
                off += 4;
                for s in &b.pending_short {
                    buf[off..off + 2].copy_from_slice(&s.to_le_bytes());
                    off += 2;
                }
                for e in &b.pending_ext {
                    buf[off..off + 8].copy_from_slice(&e.to_le_bytes());
                    off += 8;
                }
                buf[off..off + b.payload.len()].copy_from_slice(&b.payload);
                off += b.payload.len();
            }
            Body::EnhancedBeacon(p) | Body::Data(p) | Body::Ack(p) => {
                buf[off..off + p.len()].copy_from_slice(p);
                off += p.len();
            }
            Body::Command(c) => {
                buf[off] = c.id;
                buf[off + 1..off + 1 + c.content.len()].copy_from_slice(&c.content);
                off += 1 + c.content.len();
            }
        }
        debug_assert_eq!(off, len);
        Ok(len)
    }

    /// Emit into a new vector.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        self.emit(&mut v)?;
        Ok(v)
    }

    /// Emit into a new vector and append the FCS (an unsecured frame as sent).
    pub fn to_bytes_with_fcs(&self) -> Result<Vec<u8>> {
        let len = self.buffer_len();
        let mut v = Vec::with_capacity(len + crate::fcs::FCS_LEN);
        v.resize(len, 0);
        self.emit(&mut v)?;
        crate::fcs::append(&mut v);
        Ok(v)
    }

    /// Parse a plaintext MPDU (without FCS and MIC); [`ReprRef::parse`]
    /// without copying.
    pub fn parse(buf: &[u8]) -> Result<Repr> {
        ReprRef::parse(buf)?.to_repr()
    }

    /// Check the FCS of a received frame and parse it.
    pub fn parse_with_fcs(frame: &[u8]) -> Result<Repr> {
        Repr::parse(crate::fcs::check(frame)?)
    }
}
