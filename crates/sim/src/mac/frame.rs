//! The frames every MAC builds and reads: data frames (secured when the
//! network is), immediate ACKs, and a received frame's header read in
//! place before anything is allocated.

use wpan::frame::{Body, BodyRef, Frame, Repr, ReprRef};

use super::address::{addressed_to, LinkAddressing, PAN_ID};
use super::phy;
use super::security;
use crate::{NodeId, Time};

/// A data frame (with FCS) from `src` to `dst`.
pub fn data_frame(seq: u8, src: NodeId, dst: NodeId, payload: Vec<u8>) -> Vec<u8> {
    addressed_frame(LinkAddressing::Short, seq, src, dst, payload)
}

/// An unsecured data frame (with FCS) from `src` to `dst`, the two ends
/// named as `addressing` says.
pub fn addressed_frame(
    addressing: LinkAddressing,
    seq: u8,
    src: NodeId,
    dst: NodeId,
    payload: Vec<u8>,
) -> Vec<u8> {
    Repr::data(
        seq,
        PAN_ID,
        addressing.dst(dst),
        addressing.src(src, false),
        payload,
    )
    .to_bytes_with_fcs()
    .expect("a data frame of a valid size")
}

/// Largest MAC payload of a data frame, secured or not (the same for every MAC).
pub fn max_data_payload(sec: Option<&security::NodeSecurity>, addressing: LinkAddressing) -> usize {
    let security = sec.map_or(0, |s| s.overhead());
    phy::MAX_PSDU - addressing.data_overhead(sec.is_some()) - security
}

/// A data frame from `src` to `dst`, secured when the network says so:
/// the bytes on the air and the CPU time securing took.
pub fn build_data_frame(
    sec: Option<&mut security::NodeSecurity>,
    addressing: LinkAddressing,
    seq: u8,
    src: NodeId,
    dst: NodeId,
    payload: Vec<u8>,
    asn: Option<u64>,
) -> (Vec<u8>, Time) {
    let repr = data_repr(addressing, seq, src, dst, payload, sec.is_some());
    seal(sec, src, repr, asn)
}

/// The fields of a data frame from `src` to `dst`, as [`seal`] takes them
/// (`secured`: the source is named as a secured frame must name it). A
/// field CCM* authenticates, such as the frame pending bit, is set here,
/// before the frame is secured.
pub fn data_repr(
    addressing: LinkAddressing,
    seq: u8,
    src: NodeId,
    dst: NodeId,
    payload: Vec<u8>,
    secured: bool,
) -> Repr {
    Repr::data(
        seq,
        PAN_ID,
        addressing.dst(dst),
        addressing.src(src, secured),
        payload,
    )
}

/// A frame of `src` as it goes on the air, secured (for TSCH slot `asn`,
/// if given) when the network says so: its bytes and the CPU time securing
/// took.
pub fn seal(
    sec: Option<&mut security::NodeSecurity>,
    src: NodeId,
    repr: Repr,
    asn: Option<u64>,
) -> (Vec<u8>, Time) {
    match sec {
        None => (
            repr.to_bytes_with_fcs()
                .expect("a data frame of a valid size"),
            0,
        ),
        Some(sec) => sec.seal(src, repr, asn),
    }
}

/// The payload of a data frame for this node (received in TSCH slot `asn`,
/// if given), unsecured when the network is secured, with the CPU time that
/// took; None if refused or not data. The one copy of the payload, for the
/// layers above.
pub fn open_data_frame(
    sec: Option<&mut security::NodeSecurity>,
    from: NodeId,
    frame: &[u8],
    parsed: Parsed,
    asn: Option<u64>,
) -> Option<(Vec<u8>, Time)> {
    match sec {
        None => parsed.data().map(|p| (p.to_vec(), 0)),
        Some(sec) => match sec.open(from, frame, asn) {
            Ok((repr, cpu)) => match repr.body {
                Body::Data(p) => Some((p, cpu)),
                _ => None,
            },
            Err(_) => None,
        },
    }
}

/// An immediate ACK (with FCS); `frame_pending`: its sender holds more
/// for the receiver (indirect transmission).
pub fn ack_frame(seq: u8, frame_pending: bool) -> Vec<u8> {
    Repr::imm_ack(seq, frame_pending)
        .to_bytes_with_fcs()
        .expect("an ACK always fits")
}

/// The header of a received frame (with FCS), read in place without
/// allocating; None when the FCS or the header is bad (then [`Parsed::of`]
/// refuses the frame too). MACs drop frames for other nodes on this view
/// and parse only what they keep.
pub fn heard(frame: &[u8]) -> Option<Frame<&[u8]>> {
    Frame::new_checked(wpan::fcs::check(frame).ok()?).ok()
}

/// What the MAC needs of a received frame: its fields, its body borrowed
/// from the frame (nothing copied until the MAC keeps something).
pub struct Parsed<'a> {
    pub repr: ReprRef<'a>,
}

impl<'a> Parsed<'a> {
    /// The header (and, unless encrypted, the body) of a frame with FCS.
    pub fn of(frame: &'a [u8]) -> Option<Parsed<'a>> {
        Self::of_mpdu(wpan::fcs::check(frame).ok()?)
    }

    /// The same for the frame of a [`heard`] view, whose FCS is checked.
    pub fn of_heard(view: Frame<&'a [u8]>) -> Option<Parsed<'a>> {
        Self::of_mpdu(view.into_inner())
    }

    fn of_mpdu(mpdu: &'a [u8]) -> Option<Parsed<'a>> {
        if let Ok(repr) = ReprRef::parse(mpdu) {
            return Some(Parsed { repr });
        }
        // A secured frame whose MIC directly follows header IEs (a secured
        // Enhanced ACK): read it without the MIC.
        let layout = wpan::frame::Layout::parse_secured(mpdu).ok()?;
        let aux = layout.aux_offset?;
        let (header, _) = wpan::security::SecurityHeader::parse(&mpdu[aux..]).ok()?;
        let without_mic = mpdu.get(..mpdu.len().checked_sub(header.level.mic_len())?)?;
        ReprRef::parse(without_mic).ok().map(|repr| Parsed { repr })
    }

    pub fn is_ack(&self) -> bool {
        matches!(self.repr.body, BodyRef::Ack(_))
    }

    pub fn seq(&self) -> Option<u8> {
        self.repr.seq
    }

    /// Addressed to `node`, by its short or its extended address.
    pub fn is_for(&self, node: NodeId) -> bool {
        addressed_to(self.repr.dst_addr, node)
    }

    /// A data frame's payload (as on the air: encrypted if secured).
    pub fn data(&self) -> Option<&'a [u8]> {
        match self.repr.body {
            BodyRef::Data(p) => Some(p),
            _ => None,
        }
    }
}
