//! IEEE 802.15.4-2015 Information Elements (§7.4): header IEs (incl. the
//! ACK/NACK time correction IE carried by TSCH Enhanced ACKs and the header
//! termination IEs), payload IEs, and the nested MLME sub-IEs of TSCH
//! Enhanced Beacons (synchronization, slotframe & link, timeslot, channel
//! hopping).
//!
//! ```text
//! header IE descriptor  (LE u16): length 0-6 | element ID 7-14 | type 15 = 0
//! payload IE descriptor (LE u16): length 0-10 | group ID 11-14 | type 15 = 1
//! MLME sub-IE, short    (LE u16): length 0-7 | sub-ID 8-14 | type 15 = 0
//! MLME sub-IE, long     (LE u16): length 0-10 | sub-ID 11-14 | type 15 = 1
//! ```

use crate::{need, room, Error, Result};

/// Header IE element IDs.
pub mod id {
    /// ACK/NACK time correction IE.
    pub const TIME_CORRECTION: u8 = 0x1e;
    /// CSL IE (IEEE 802.15.4-2015 §7.4.2.3, Table 7-7): CSL phase and
    /// period, in units of ten symbols.
    pub const CSL: u8 = 0x1a;
    /// Header termination 1 (payload IEs follow).
    pub const HT1: u8 = 0x7e;
    /// Header termination 2 (payload follows, no payload IEs).
    pub const HT2: u8 = 0x7f;
}

/// Payload IE group IDs.
pub mod group {
    /// Encapsulated service data unit.
    pub const ESDU: u8 = 0x0;
    /// MLME (nested sub-IEs).
    pub const MLME: u8 = 0x1;
    /// Payload termination.
    pub const TERMINATION: u8 = 0xf;
}

/// MLME sub-IE IDs used by TSCH.
pub mod sub_id {
    /// TSCH synchronization (short).
    pub const TSCH_SYNC: u8 = 0x1a;
    /// TSCH slotframe and link (short).
    pub const TSCH_SLOTFRAME_LINK: u8 = 0x1b;
    /// TSCH timeslot (short).
    pub const TSCH_TIMESLOT: u8 = 0x1c;
    /// Channel hopping (long).
    pub const CHANNEL_HOPPING: u8 = 0x9;
}

/// Length of every IE descriptor.
pub const DESCRIPTOR_LEN: usize = 2;
const HEADER_IE_MAX_LEN: usize = 0x7f;
const PAYLOAD_IE_MAX_LEN: usize = 0x7ff;

/// How a header IE list ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Termination {
    /// The list ran to the end of the frame.
    End,
    /// Header termination 1: payload IEs follow.
    Ht1,
    /// Header termination 2: the payload follows.
    Ht2,
}

/// A header IE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderIe {
    /// ACK/NACK time correction IE (0x1e): signed 12-bit correction in µs and
    /// the NACK flag (TSCH Enhanced ACK).
    TimeCorrection {
        /// time correction in microseconds, -2048..=2047
        correction_us: i16,
        /// negative acknowledgement
        nack: bool,
    },
    /// Any other header IE, content kept as bytes.
    Other {
        /// element ID (not 0x7e/0x7f: terminations are added by the frame)
        id: u8,
        /// content
        content: Vec<u8>,
    },
}

fn header_descriptor(id: u8, len: usize) -> [u8; 2] {
    let d = (len as u16 & 0x7f) | (u16::from(id) << 7);
    d.to_le_bytes()
}

impl HeaderIe {
    /// The CSL IE without its optional rendezvous time (§7.4.2.3): the
    /// time from the frame's first symbol to the sender's next sample and
    /// its sampling period, both in units of ten symbols, little-endian.
    pub fn csl(phase: u16, period: u16) -> HeaderIe {
        let mut content = phase.to_le_bytes().to_vec();
        content.extend_from_slice(&period.to_le_bytes());
        HeaderIe::Other {
            id: id::CSL,
            content,
        }
    }

    /// The CSL phase and period of a CSL IE; None for any other IE.
    pub fn csl_fields(&self) -> Option<(u16, u16)> {
        match self {
            HeaderIe::Other { id, content } if *id == id::CSL && content.len() >= 4 => Some((
                u16::from_le_bytes([content[0], content[1]]),
                u16::from_le_bytes([content[2], content[3]]),
            )),
            _ => None,
        }
    }

    /// Element ID.
    pub fn id(&self) -> u8 {
        match self {
            HeaderIe::TimeCorrection { .. } => id::TIME_CORRECTION,
            HeaderIe::Other { id, .. } => *id,
        }
    }

    fn content_len(&self) -> usize {
        match self {
            HeaderIe::TimeCorrection { .. } => 2,
            HeaderIe::Other { content, .. } => content.len(),
        }
    }

    /// Length on the wire including the descriptor.
    pub fn buffer_len(&self) -> usize {
        DESCRIPTOR_LEN + self.content_len()
    }

    /// Write at the start of `buf`; returns the bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = self.content_len();
        if len > HEADER_IE_MAX_LEN {
            return Err(Error::TooLong {
                what: "header IE content",
                len,
                max: HEADER_IE_MAX_LEN,
            });
        }
        if self.id() == id::HT1 || self.id() == id::HT2 {
            return Err(Error::BadValue {
                field: "header IE id (terminations are implicit)",
                value: u32::from(self.id()),
            });
        }
        room(buf, self.buffer_len())?;
        buf[..2].copy_from_slice(&header_descriptor(self.id(), len));
        match self {
            HeaderIe::TimeCorrection {
                correction_us,
                nack,
            } => {
                if !(-2048..=2047).contains(correction_us) {
                    return Err(Error::BadValue {
                        field: "time correction (12-bit signed µs)",
                        value: *correction_us as u16 as u32,
                    });
                }
                let v = (*correction_us as u16 & 0x0fff) | if *nack { 0x8000 } else { 0 };
                buf[2..4].copy_from_slice(&v.to_le_bytes());
            }
            HeaderIe::Other { content, .. } => buf[2..2 + len].copy_from_slice(content),
        }
        Ok(self.buffer_len())
    }

    /// Write a header termination IE (HT1 or HT2).
    pub fn emit_termination(t: Termination, buf: &mut [u8]) -> Result<usize> {
        let id = match t {
            Termination::End => return Ok(0),
            Termination::Ht1 => id::HT1,
            Termination::Ht2 => id::HT2,
        };
        room(buf, 2)?;
        buf[..2].copy_from_slice(&header_descriptor(id, 0));
        Ok(2)
    }

    /// Parse a header IE list from the start of `buf`, up to and including a
    /// termination IE or to the end of `buf`. Returns the IEs, the bytes
    /// consumed and how the list ended.
    pub fn parse_list(buf: &[u8]) -> Result<(Vec<HeaderIe>, usize, Termination)> {
        let mut off = 0;
        let mut out = Vec::new();
        while off < buf.len() {
            need(&buf[off..], 2, "header IE descriptor")?;
            let d = u16::from_le_bytes([buf[off], buf[off + 1]]);
            if d & 0x8000 != 0 {
                return Err(Error::BadValue {
                    field: "header IE type bit",
                    value: u32::from(d),
                });
            }
            let len = usize::from(d & 0x7f);
            let eid = ((d >> 7) & 0xff) as u8;
            off += 2;
            need(&buf[off..], len, "header IE content")?;
            let content = &buf[off..off + len];
            off += len;
            match eid {
                id::HT1 | id::HT2 => {
                    if len != 0 {
                        return Err(Error::BadValue {
                            field: "header termination IE length",
                            value: len as u32,
                        });
                    }
                    let t = if eid == id::HT1 {
                        Termination::Ht1
                    } else {
                        Termination::Ht2
                    };
                    return Ok((out, off, t));
                }
                id::TIME_CORRECTION => {
                    if len != 2 {
                        return Err(Error::BadValue {
                            field: "time correction IE length",
                            value: len as u32,
                        });
                    }
                    let v = u16::from_le_bytes([content[0], content[1]]);
                    // sign-extend the 12-bit field
                    let correction_us = (((v & 0x0fff) << 4) as i16) >> 4;
                    out.push(HeaderIe::TimeCorrection {
                        correction_us,
                        nack: v & 0x8000 != 0,
                    });
                }
                _ => out.push(HeaderIe::Other {
                    id: eid,
                    content: content.to_vec(),
                }),
            }
        }
        Ok((out, off, Termination::End))
    }
}

/// A TSCH link in a slotframe & link IE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// timeslot in the slotframe
    pub timeslot: u16,
    /// channel offset
    pub channel_offset: u16,
    /// link options (bit 0 TX, 1 RX, 2 shared, 3 timekeeping)
    pub options: u8,
}

/// A slotframe descriptor of a slotframe & link IE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slotframe {
    /// slotframe handle
    pub handle: u8,
    /// slotframe size in timeslots
    pub size: u16,
    /// advertised links
    pub links: Vec<Link>,
}

/// A nested MLME sub-IE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MlmeSubIe {
    /// TSCH synchronization: 5-byte ASN and join metric.
    TschSync {
        /// absolute slot number (40 bits)
        asn: u64,
        /// join metric
        join_metric: u8,
    },
    /// TSCH timeslot IE with only the timeslot template ID.
    TschTimeslot {
        /// template ID (0 = default 10 ms template)
        template_id: u8,
    },
    /// TSCH timeslot IE with the whole template (IEEE 802.15.4-2015
    /// §7.4.4.4): 25 bytes, or 27 when macTsMaxTx and macTsTimeslotLength
    /// need their 3-byte form.
    TschTimeslotTemplate(TimeslotTemplate),
    /// TSCH slotframe and link IE.
    SlotframeLink(Vec<Slotframe>),
    /// Channel hopping IE with only the hopping sequence ID (long format).
    ChannelHopping {
        /// hopping sequence ID
        sequence_id: u8,
    },
    /// Any other sub-IE.
    Other {
        /// sub-ID
        sub_id: u8,
        /// long format
        long: bool,
        /// content
        content: Vec<u8>,
    },
}

impl MlmeSubIe {
    fn header(&self) -> (u8, bool) {
        match self {
            MlmeSubIe::TschSync { .. } => (sub_id::TSCH_SYNC, false),
            MlmeSubIe::TschTimeslot { .. } | MlmeSubIe::TschTimeslotTemplate(_) => {
                (sub_id::TSCH_TIMESLOT, false)
            }
            MlmeSubIe::SlotframeLink(_) => (sub_id::TSCH_SLOTFRAME_LINK, false),
            MlmeSubIe::ChannelHopping { .. } => (sub_id::CHANNEL_HOPPING, true),
            MlmeSubIe::Other { sub_id, long, .. } => (*sub_id, *long),
        }
    }

    fn content(&self) -> Vec<u8> {
        match self {
            MlmeSubIe::TschSync { asn, join_metric } => {
                let mut v = asn.to_le_bytes()[..5].to_vec();
                v.push(*join_metric);
                v
            }
            MlmeSubIe::TschTimeslot { template_id } => vec![*template_id],
            MlmeSubIe::TschTimeslotTemplate(t) => t.content(),
            MlmeSubIe::SlotframeLink(sfs) => {
                let mut v = vec![sfs.len() as u8];
                for sf in sfs {
                    v.push(sf.handle);
                    v.extend_from_slice(&sf.size.to_le_bytes());
                    v.push(sf.links.len() as u8);
                    for l in &sf.links {
                        v.extend_from_slice(&l.timeslot.to_le_bytes());
                        v.extend_from_slice(&l.channel_offset.to_le_bytes());
                        v.push(l.options);
                    }
                }
                v
            }
            MlmeSubIe::ChannelHopping { sequence_id } => vec![*sequence_id],
            MlmeSubIe::Other { content, .. } => content.clone(),
        }
    }

    fn encode(&self, out: &mut Vec<u8>) -> Result<()> {
        let (sid, long) = self.header();
        let content = self.content();
        let (max_len, max_id) = if long { (0x7ff, 0xf) } else { (0xff, 0x7f) };
        if sid > max_id {
            return Err(Error::BadValue {
                field: "MLME sub-IE id (4 bits long, 7 bits short)",
                value: u32::from(sid),
            });
        }
        if content.len() > max_len {
            return Err(Error::TooLong {
                what: "MLME sub-IE content",
                len: content.len(),
                max: max_len,
            });
        }
        let d: u16 = if long {
            0x8000 | (u16::from(sid) << 11) | content.len() as u16
        } else {
            (u16::from(sid) << 8) | content.len() as u16
        };
        if matches!(self, MlmeSubIe::SlotframeLink(sfs) if sfs.len() > 255 || sfs.iter().any(|s| s.links.len() > 255))
        {
            return Err(Error::TooLong {
                what: "slotframe & link IE list",
                len: 256,
                max: 255,
            });
        }
        out.extend_from_slice(&d.to_le_bytes());
        out.extend_from_slice(&content);
        Ok(())
    }

    fn parse_list(mut buf: &[u8]) -> Result<Vec<MlmeSubIe>> {
        let mut out = Vec::new();
        while !buf.is_empty() {
            need(buf, 2, "MLME sub-IE descriptor")?;
            let d = u16::from_le_bytes([buf[0], buf[1]]);
            let (long, sid, len) = if d & 0x8000 != 0 {
                (true, ((d >> 11) & 0xf) as u8, usize::from(d & 0x7ff))
            } else {
                (false, ((d >> 8) & 0x7f) as u8, usize::from(d & 0xff))
            };
            need(buf, 2 + len, "MLME sub-IE content")?;
            let c = &buf[2..2 + len];
            buf = &buf[2 + len..];
            let ie = match (long, sid) {
                (false, sub_id::TSCH_SYNC) if len == 6 => {
                    let mut a = [0u8; 8];
                    a[..5].copy_from_slice(&c[..5]);
                    MlmeSubIe::TschSync {
                        asn: u64::from_le_bytes(a),
                        join_metric: c[5],
                    }
                }
                (false, sub_id::TSCH_TIMESLOT) if len == 1 => {
                    MlmeSubIe::TschTimeslot { template_id: c[0] }
                }
                (false, sub_id::TSCH_TIMESLOT) if len == 25 || len == 27 => {
                    MlmeSubIe::TschTimeslotTemplate(TimeslotTemplate::parse(c))
                }
                (true, sub_id::CHANNEL_HOPPING) if len == 1 => {
                    MlmeSubIe::ChannelHopping { sequence_id: c[0] }
                }
                (false, sub_id::TSCH_SLOTFRAME_LINK) => match parse_slotframes(c) {
                    Some(sfs) => MlmeSubIe::SlotframeLink(sfs),
                    None => {
                        return Err(Error::Truncated {
                            what: "slotframe & link IE",
                            need: len + 1,
                            have: len,
                        })
                    }
                },
                _ => MlmeSubIe::Other {
                    sub_id: sid,
                    long,
                    content: c.to_vec(),
                },
            };
            out.push(ie);
        }
        Ok(out)
    }
}

fn parse_slotframes(c: &[u8]) -> Option<Vec<Slotframe>> {
    let (&n, mut rest) = c.split_first()?;
    let mut sfs = Vec::new();
    for _ in 0..n {
        let hdr = rest.get(..4)?;
        let nlinks = usize::from(hdr[3]);
        let mut links = Vec::new();
        rest = &rest[4..];
        for _ in 0..nlinks {
            let l = rest.get(..5)?;
            links.push(Link {
                timeslot: u16::from_le_bytes([l[0], l[1]]),
                channel_offset: u16::from_le_bytes([l[2], l[3]]),
                options: l[4],
            });
            rest = &rest[5..];
        }
        sfs.push(Slotframe {
            handle: hdr[0],
            size: u16::from_le_bytes([hdr[1], hdr[2]]),
            links,
        });
    }
    if rest.is_empty() {
        Some(sfs)
    } else {
        None
    }
}

/// A TSCH timeslot template in µs (IEEE 802.15.4-2015 §7.4.4.4 field
/// order; defaults are Table 8-86's, the values of the default template
/// ID 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeslotTemplate {
    /// timeslot template ID
    pub id: u8,
    /// macTsCcaOffset
    pub cca_offset: u16,
    /// macTsCca
    pub cca: u16,
    /// macTsTxOffset
    pub tx_offset: u16,
    /// macTsRxOffset
    pub rx_offset: u16,
    /// macTsRxAckDelay
    pub rx_ack_delay: u16,
    /// macTsTxAckDelay
    pub tx_ack_delay: u16,
    /// macTsRxWait
    pub rx_wait: u16,
    /// macTsAckWait
    pub ack_wait: u16,
    /// macTsRxTx
    pub rx_tx: u16,
    /// macTsMaxAck
    pub max_ack: u16,
    /// macTsMaxTx (24 bits on the wire in the long form)
    pub max_tx: u32,
    /// macTsTimeslotLength (24 bits on the wire in the long form)
    pub timeslot_length: u32,
}

impl Default for TimeslotTemplate {
    fn default() -> Self {
        TimeslotTemplate {
            id: 0,
            cca_offset: 1800,
            cca: 128,
            tx_offset: 2120,
            rx_offset: 1020,
            rx_ack_delay: 800,
            tx_ack_delay: 1000,
            rx_wait: 2200,
            ack_wait: 400,
            rx_tx: 192,
            max_ack: 2400,
            max_tx: 4256,
            timeslot_length: 10_000,
        }
    }
}

impl TimeslotTemplate {
    fn long(&self) -> bool {
        self.max_tx > 0xffff || self.timeslot_length > 0xffff
    }

    fn content(&self) -> Vec<u8> {
        let mut v = vec![self.id];
        for f in [
            self.cca_offset,
            self.cca,
            self.tx_offset,
            self.rx_offset,
            self.rx_ack_delay,
            self.tx_ack_delay,
            self.rx_wait,
            self.ack_wait,
            self.rx_tx,
            self.max_ack,
        ] {
            v.extend_from_slice(&f.to_le_bytes());
        }
        let w = if self.long() { 3 } else { 2 };
        v.extend_from_slice(&self.max_tx.to_le_bytes()[..w]);
        v.extend_from_slice(&self.timeslot_length.to_le_bytes()[..w]);
        v
    }

    /// Read a 25- or 27-byte content (the caller checked the length).
    fn parse(c: &[u8]) -> TimeslotTemplate {
        let u = |i: usize| u16::from_le_bytes([c[1 + 2 * i], c[2 + 2 * i]]);
        let w = if c.len() == 27 { 3 } else { 2 };
        let wide = |at: usize| {
            let mut b = [0u8; 4];
            b[..w].copy_from_slice(&c[at..at + w]);
            u32::from_le_bytes(b)
        };
        TimeslotTemplate {
            id: c[0],
            cca_offset: u(0),
            cca: u(1),
            tx_offset: u(2),
            rx_offset: u(3),
            rx_ack_delay: u(4),
            tx_ack_delay: u(5),
            rx_wait: u(6),
            ack_wait: u(7),
            rx_tx: u(8),
            max_ack: u(9),
            max_tx: wide(21),
            timeslot_length: wide(21 + w),
        }
    }
}

/// The join metric an Enhanced Beacon's TSCH synchronization IE carries:
/// DAGRank(rank) - 1 = floor(rank / MinHopRankIncrease) - 1, 0 at the root,
/// saturating at 255 (RFC 8180 §6.1, as recalled, not re-read).
pub fn join_metric(rank: u16, min_hop_rank_increase: u16) -> u8 {
    let dag_rank = rank / min_hop_rank_increase.max(1);
    u8::try_from(dag_rank.saturating_sub(1)).unwrap_or(u8::MAX)
}

/// A payload IE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PayloadIe {
    /// MLME group: nested sub-IEs.
    Mlme(Vec<MlmeSubIe>),
    /// Any other group, content kept as bytes.
    Other {
        /// group ID (not 0xf: the payload termination is added by the frame)
        group: u8,
        /// content
        content: Vec<u8>,
    },
}

impl PayloadIe {
    fn encode_content(&self) -> Result<(u8, Vec<u8>)> {
        Ok(match self {
            PayloadIe::Mlme(subs) => {
                let mut v = Vec::new();
                for s in subs {
                    s.encode(&mut v)?;
                }
                (group::MLME, v)
            }
            PayloadIe::Other { group, content } => (*group, content.clone()),
        })
    }

    /// Length on the wire including the descriptor.
    pub fn buffer_len(&self) -> usize {
        DESCRIPTOR_LEN + self.encode_content().map(|(_, c)| c.len()).unwrap_or(0)
    }

    /// Write at the start of `buf`; returns the bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let (g, content) = self.encode_content()?;
        if g > 0xe {
            return Err(Error::BadValue {
                field: "payload IE group (termination is implicit)",
                value: u32::from(g),
            });
        }
        if content.len() > PAYLOAD_IE_MAX_LEN {
            return Err(Error::TooLong {
                what: "payload IE content",
                len: content.len(),
                max: PAYLOAD_IE_MAX_LEN,
            });
        }
        room(buf, 2 + content.len())?;
        let d = 0x8000 | (u16::from(g) << 11) | content.len() as u16;
        buf[..2].copy_from_slice(&d.to_le_bytes());
        buf[2..2 + content.len()].copy_from_slice(&content);
        Ok(2 + content.len())
    }

    /// Write a payload termination IE.
    pub fn emit_termination(buf: &mut [u8]) -> Result<usize> {
        room(buf, 2)?;
        let d = 0x8000u16 | (u16::from(group::TERMINATION) << 11);
        buf[..2].copy_from_slice(&d.to_le_bytes());
        Ok(2)
    }

    /// Parse a payload IE list up to and including a payload termination IE
    /// or to the end of `buf`; returns the IEs and the bytes consumed.
    pub fn parse_list(buf: &[u8]) -> Result<(Vec<PayloadIe>, usize)> {
        let mut off = 0;
        let mut out = Vec::new();
        while off < buf.len() {
            need(&buf[off..], 2, "payload IE descriptor")?;
            let d = u16::from_le_bytes([buf[off], buf[off + 1]]);
            if d & 0x8000 == 0 {
                return Err(Error::BadValue {
                    field: "payload IE type bit",
                    value: u32::from(d),
                });
            }
            let len = usize::from(d & 0x7ff);
            let g = ((d >> 11) & 0xf) as u8;
            off += 2;
            need(&buf[off..], len, "payload IE content")?;
            let c = &buf[off..off + len];
            off += len;
            match g {
                group::TERMINATION => return Ok((out, off)),
                group::MLME => out.push(PayloadIe::Mlme(MlmeSubIe::parse_list(c)?)),
                _ => out.push(PayloadIe::Other {
                    group: g,
                    content: c.to_vec(),
                }),
            }
        }
        Ok((out, off))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_correction_ie_bytes() {
        // length 2, id 0x1e: descriptor 0x0f02 -> 02 0f; -100 µs, ACK
        let ie = HeaderIe::TimeCorrection {
            correction_us: -100,
            nack: false,
        };
        let mut b = [0u8; 4];
        ie.emit(&mut b).unwrap();
        assert_eq!(b, [0x02, 0x0f, 0x9c, 0x0f]);
        let (l, n, t) = HeaderIe::parse_list(&b).unwrap();
        assert_eq!((l, n, t), (vec![ie], 4, Termination::End));
        let nack = HeaderIe::TimeCorrection {
            correction_us: 2047,
            nack: true,
        };
        nack.emit(&mut b).unwrap();
        assert_eq!(HeaderIe::parse_list(&b).unwrap().0, vec![nack]);
        assert!(HeaderIe::TimeCorrection {
            correction_us: 3000,
            nack: false
        }
        .emit(&mut b)
        .is_err());
    }

    #[test]
    fn terminations() {
        let mut b = [0u8; 2];
        HeaderIe::emit_termination(Termination::Ht1, &mut b).unwrap();
        assert_eq!(b, [0x00, 0x3f]);
        HeaderIe::emit_termination(Termination::Ht2, &mut b).unwrap();
        assert_eq!(b, [0x80, 0x3f]);
        PayloadIe::emit_termination(&mut b).unwrap();
        assert_eq!(b, [0x00, 0xf8]);
    }

    #[test]
    fn timeslot_template_bytes() {
        // short form: ID 0 then 12 LE u16 fields; 1800 = 0x0708 -> 08 07,
        // 10000 = 0x2710 -> 10 27; sub-IE descriptor 0x1c << 8 | 25 = 0x1c19
        let t = MlmeSubIe::TschTimeslotTemplate(TimeslotTemplate::default());
        let mut v = Vec::new();
        t.encode(&mut v).unwrap();
        assert_eq!(v.len(), 27);
        assert_eq!(&v[..5], &[0x19, 0x1c, 0x00, 0x08, 0x07]);
        assert_eq!(&v[25..], &[0x10, 0x27]);
        assert_eq!(MlmeSubIe::parse_list(&v).unwrap(), vec![t]);
        // long form: a 70 000 µs slot (0x011170 -> 70 11 01), 27 bytes
        let long = MlmeSubIe::TschTimeslotTemplate(TimeslotTemplate {
            timeslot_length: 70_000,
            ..TimeslotTemplate::default()
        });
        let mut v = Vec::new();
        long.encode(&mut v).unwrap();
        assert_eq!(v[0], 27);
        assert_eq!(&v[26..], &[0x70, 0x11, 0x01]);
        assert_eq!(MlmeSubIe::parse_list(&v).unwrap(), vec![long]);
    }

    #[test]
    fn join_metric_from_rank() {
        // root 256 / 256 - 1 = 0; 768 / 256 - 1 = 2; 700 / 256 - 1 = 1
        assert_eq!(join_metric(256, 256), 0);
        assert_eq!(join_metric(768, 256), 2);
        assert_eq!(join_metric(700, 256), 1);
        assert_eq!(join_metric(0xffff, 1), 255);
        assert_eq!(join_metric(0, 256), 0);
    }

    #[test]
    fn mlme_round_trip() {
        let ie = PayloadIe::Mlme(vec![
            MlmeSubIe::TschSync {
                asn: 0x01_2345_6789,
                join_metric: 0,
            },
            MlmeSubIe::TschTimeslot { template_id: 0 },
            MlmeSubIe::ChannelHopping { sequence_id: 0 },
            MlmeSubIe::SlotframeLink(vec![Slotframe {
                handle: 0,
                size: 101,
                links: vec![Link {
                    timeslot: 0,
                    channel_offset: 0,
                    options: 0x0f,
                }],
            }]),
        ]);
        let mut b = vec![0u8; ie.buffer_len()];
        let n = ie.emit(&mut b).unwrap();
        assert_eq!(n, b.len());
        // descriptor: group 1, type 1
        assert_eq!(b[1] & 0xf8, 0x88);
        assert_eq!(PayloadIe::parse_list(&b).unwrap(), (vec![ie], n));
    }
}
