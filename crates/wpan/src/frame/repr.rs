//! The whole MPDU (without FCS and MIC) as values: [`Repr`] owns and
//! parses its IEs and body, [`ReprRef`] borrows them from the received
//! frame. Both are one struct, [`ReprOf`], whose [`Storage`] says how the
//! IE lists and the body are held, so the header fields are declared once.
//!
//! ```text
//! | MAC header fields (header.rs) | aux security header | header IEs |
//! | payload IEs | body: data, ACK payload, beacon (beacon.rs) or command (command.rs) |
//! ```

use core::marker::PhantomData;

use super::beacon::{Beacon, BeaconPayload};
use super::command::{self, command_id, Command};
use super::header::{field, pan_id_presence, Address, Frame, FrameType, FrameVersion, BROADCAST};
use super::MAX_PSDU_LEN;
use crate::ie::{HeaderIe, PayloadIe, Termination};
use crate::security::SecurityHeader;
use crate::{room, Error, Result};

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
            Body::Beacon(b) => b.buffer_len(),
            Body::EnhancedBeacon(p) | Body::Data(p) | Body::Ack(p) => p.len(),
            Body::Command(c) => c.buffer_len(),
        }
    }

    #[inline]
    fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        match self {
            Body::Beacon(b) => b.emit(buf),
            Body::EnhancedBeacon(p) | Body::Data(p) | Body::Ack(p) => {
                room(buf, p.len())?;
                buf[..p.len()].copy_from_slice(p);
                Ok(p.len())
            }
            Body::Command(c) => c.emit(buf),
        }
    }
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
            BodyRef::Beacon(rest) => Body::Beacon(Beacon::parse(rest)?),
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
            BodyRef::Beacon(rest) => Some(Beacon::parse(rest)),
            _ => None,
        }
    }
}

/// How a [`ReprOf`] holds what follows the auxiliary security header: the
/// IE lists and the body.
pub trait Storage {
    /// The header IEs.
    type HeaderIes;
    /// The payload IEs.
    type PayloadIes;
    /// The frame body.
    type Body;
}

/// Owned and parsed ([`Repr`]): the IE lists as IEs, without their
/// terminations (added as needed on emit), the body copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owned;

impl Storage for Owned {
    type HeaderIes = Vec<HeaderIe>;
    type PayloadIes = Vec<PayloadIe>;
    type Body = Body;
}

/// Borrowed from the frame ([`ReprRef`]): each IE list as its checked
/// bytes with its termination (empty without IEs), the body as [`BodyRef`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Borrowed<'a>(PhantomData<&'a [u8]>);

impl<'a> Storage for Borrowed<'a> {
    type HeaderIes = &'a [u8];
    type PayloadIes = &'a [u8];
    type Body = BodyRef<'a>;
}

/// An MPDU (without FCS and MIC): the MAC header's fields by value, the IE
/// lists and the body held as `S` says. Used as [`Repr`] or [`ReprRef`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReprOf<S: Storage> {
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
    /// Header IEs (2015).
    pub header_ies: S::HeaderIes,
    /// Payload IEs (2015).
    pub payload_ies: S::PayloadIes,
    /// Frame body.
    pub body: S::Body,
}

/// High-level representation of an MPDU without FCS (and without MIC),
/// owning its IEs and body: what a sender builds and emits.
pub type Repr = ReprOf<Owned>;

/// An MPDU (without FCS and MIC) parsed without copying, as smoltcp's
/// `Repr<'a>`: the header fields by value, the IEs and the body borrowed
/// from the buffer, every rule of [`Repr::parse`] checked. A receiver reads
/// what it needs and copies only what it keeps ([`ReprRef::to_repr`]).
/// Parsing allocates nothing unless the frame carries IEs other than
/// terminations (their lists are checked by parsing them).
pub type ReprRef<'a> = ReprOf<Borrowed<'a>>;

impl<'a> ReprRef<'a> {
    /// Parse a plaintext MPDU (without FCS and MIC).
    pub fn parse(buf: &'a [u8]) -> Result<ReprRef<'a>> {
        let f = Frame::new_checked(buf)?;
        let (security, mut off) = f.security_and_end()?;
        let mut header_ies: &[u8] = &[];
        let mut payload_ies: &[u8] = &[];
        if f.ie_present() {
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
        let body = match (f.frame_type(), f.frame_version()) {
            (FrameType::Beacon, FrameVersion::V2015) => BodyRef::EnhancedBeacon(rest),
            (FrameType::Beacon, _) => {
                BeaconPayload::new_checked(rest)?;
                BodyRef::Beacon(rest)
            }
            (FrameType::Data, _) => BodyRef::Data(rest),
            (FrameType::Ack, FrameVersion::V2015) => BodyRef::Ack(rest),
            (FrameType::Ack, _) => {
                if security.is_some() || !rest.is_empty() {
                    return Err(Error::BadValue {
                        field: "Imm-Ack length",
                        value: buf.len() as u32,
                    });
                }
                BodyRef::Ack(rest)
            }
            (FrameType::MacCommand, _) => {
                let (id, content) = command::split(rest)?;
                BodyRef::Command { id, content }
            }
        };
        Ok(ReprRef {
            version: f.frame_version(),
            frame_pending: f.frame_pending(),
            ack_request: f.ack_request(),
            seq: f.sequence_number(),
            dst_pan: f.dst_pan_id(),
            dst_addr: f.dst_addr(),
            src_pan: f.src_pan_id(),
            src_addr: f.src_addr(),
            security,
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

impl Repr {
    /// A frame of `version` numbered `seq` carrying `body`, with no
    /// addresses, PAN IDs, flags, security or IEs: what the constructors
    /// below start from.
    fn bare(version: FrameVersion, seq: u8, body: Body) -> Repr {
        Repr {
            version,
            frame_pending: false,
            ack_request: false,
            seq: Some(seq),
            dst_pan: None,
            dst_addr: Address::Absent,
            src_pan: None,
            src_addr: Address::Absent,
            security: None,
            header_ies: Vec::new(),
            payload_ies: Vec::new(),
            body,
        }
    }

    /// A 2006 data frame inside one PAN (PAN ID compression), AR set unless
    /// the destination is broadcast.
    pub fn data(seq: u8, pan: u16, dst: Address, src: Address, payload: Vec<u8>) -> Repr {
        Repr {
            ack_request: !dst.is_broadcast() && !dst.is_absent(),
            dst_pan: Some(pan),
            dst_addr: dst,
            src_pan: if dst.is_absent() { Some(pan) } else { None },
            src_addr: src,
            ..Repr::bare(FrameVersion::V2006, seq, Body::Data(payload))
        }
    }

    /// A 2006 Imm-Ack.
    pub fn imm_ack(seq: u8, frame_pending: bool) -> Repr {
        Repr {
            frame_pending,
            ..Repr::bare(FrameVersion::V2006, seq, Body::Ack(Vec::new()))
        }
    }

    /// A 2015 Enh-Ack to `dst` with a time correction IE (TSCH): destination
    /// address only, PAN ID elided (PAN ID compression set).
    pub fn enh_ack(seq: u8, dst: Address, correction_us: i16, nack: bool) -> Repr {
        let ie = HeaderIe::TimeCorrection {
            correction_us,
            nack,
        };
        Repr::enh_ack_with(seq, dst, false, vec![ie])
    }

    /// A 2015 Enh-Ack to `dst` carrying `header_ies` (none, or the CSL IE
    /// of a CSL receiver), addressed as [`Repr::enh_ack`]: the acknowledged
    /// frame's source as destination, no source, PAN ID elided.
    pub fn enh_ack_with(
        seq: u8,
        dst: Address,
        frame_pending: bool,
        header_ies: Vec<HeaderIe>,
    ) -> Repr {
        Repr {
            dst_addr: dst,
            frame_pending,
            header_ies,
            ..Repr::bare(FrameVersion::V2015, seq, Body::Ack(Vec::new()))
        }
    }

    /// A 2006 beacon from `src` in `pan`.
    pub fn beacon(seq: u8, pan: u16, src: Address, beacon: Beacon) -> Repr {
        Repr {
            src_pan: Some(pan),
            src_addr: src,
            ..Repr::bare(FrameVersion::V2006, seq, Body::Beacon(beacon))
        }
    }

    /// A 2006 data request command (poll) from `src` to its coordinator
    /// `dst`: addressed as [`Repr::data`], AR always set.
    pub fn data_request(seq: u8, pan: u16, dst: Address, src: Address) -> Repr {
        Repr {
            ack_request: true,
            body: Body::Command(Command {
                id: command_id::DATA_REQUEST,
                content: Vec::new(),
            }),
            ..Repr::data(seq, pan, dst, src, Vec::new())
        }
    }

    /// A 2015 Enhanced Beacon (broadcast, source extended address, PAN ID
    /// present) carrying `payload_ies`.
    pub fn enhanced_beacon(seq: u8, pan: u16, src: u64, payload_ies: Vec<PayloadIe>) -> Repr {
        Repr {
            dst_pan: Some(pan),
            dst_addr: Address::Short(BROADCAST),
            src_addr: Address::Extended(src),
            payload_ies,
            ..Repr::bare(FrameVersion::V2015, seq, Body::EnhancedBeacon(Vec::new()))
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
            Body::Beacon(_) if v2015 => {
                return Err(Error::Unsupported(
                    "a 2015 beacon is an Enhanced Beacon (Body::EnhancedBeacon)",
                ));
            }
            Body::Beacon(b) => b.check()?,
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
        off += self.body.emit(&mut buf[off..])?;
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
