//! RPL control messages (RFC 6550 §6): the ICMPv6 RPL Control message
//! (type 155) carrying a DIS (§6.2), DIO (§6.3), DAO (§6.4) or DAO-ACK
//! (§6.5), and their options (§6.7). Unsecured messages only; the secure
//! variants (codes 0x80-0x83, §6.1) are reported as unsupported.
//!
//! ```text
//! ICMPv6: | type 155 | code | checksum (2) | base | options |
//! DIS:    | flags | reserved |
//! DIO:    | instance | version | rank (2) | G 0 MOP(3) Prf(3) | DTSN | flags | reserved | DODAGID (16) |
//! DAO:    | instance | K D flags(6) | reserved | sequence | [DODAGID (16) if D] |
//! DAO-ACK:| instance | D reserved(7) | sequence | status | [DODAGID (16) if D] |
//! option: | type | length | data (length bytes) |     (Pad1: one zero byte)
//! ```
//!
//! Multi-byte fields are big endian (network order). The checksum is the
//! ICMPv6 one (RFC 4443 §2.3) over the IPv6 pseudo header.

use std::net::Ipv6Addr;

use crate::udp::ones_complement_words;
use crate::{need, room, Error, Result};

/// ICMPv6 type of RPL control messages (RFC 6550 §6).
pub const ICMPV6_TYPE_RPL: u8 = 155;
/// IPv6 next header of ICMPv6.
pub const NEXT_HEADER_ICMPV6: u8 = 58;
/// ICMPv6 header length (type, code, checksum).
pub const ICMPV6_HEADER_LEN: usize = 4;

/// RPL control codes (RFC 6550 §6).
pub mod code {
    /// DODAG Information Solicitation
    pub const DIS: u8 = 0x00;
    /// DODAG Information Object
    pub const DIO: u8 = 0x01;
    /// Destination Advertisement Object
    pub const DAO: u8 = 0x02;
    /// DAO acknowledgement
    pub const DAO_ACK: u8 = 0x03;
}

/// RPL option types (RFC 6550 §6.7, §20.4).
pub mod option_type {
    /// Pad1 (a single byte)
    pub const PAD1: u8 = 0x00;
    /// PadN
    pub const PADN: u8 = 0x01;
    /// DAG Metric Container (RFC 6551)
    pub const METRIC_CONTAINER: u8 = 0x02;
    /// Route Information
    pub const ROUTE_INFO: u8 = 0x03;
    /// DODAG Configuration
    pub const DODAG_CONFIG: u8 = 0x04;
    /// RPL Target
    pub const TARGET: u8 = 0x05;
    /// Transit Information
    pub const TRANSIT: u8 = 0x06;
    /// Solicited Information
    pub const SOLICITED_INFO: u8 = 0x07;
    /// Prefix Information
    pub const PREFIX_INFO: u8 = 0x08;
    /// RPL Target Descriptor
    pub const TARGET_DESCRIPTOR: u8 = 0x09;
}

/// The DODAG Configuration option (RFC 6550 §6.7.6), 14 bytes of data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DodagConfig {
    /// authentication enabled (A flag)
    pub authentication: bool,
    /// path control size (3 bits)
    pub path_control_size: u8,
    /// DIOIntervalDoublings
    pub dio_interval_doublings: u8,
    /// DIOIntervalMin (Imin = 2^this ms)
    pub dio_interval_min: u8,
    /// DIORedundancyConstant
    pub dio_redundancy_constant: u8,
    /// MaxRankIncrease
    pub max_rank_increase: u16,
    /// MinHopRankIncrease
    pub min_hop_rank_increase: u16,
    /// Objective Code Point (0 OF0, 1 MRHOF)
    pub ocp: u16,
    /// default route lifetime, in lifetime units
    pub default_lifetime: u8,
    /// lifetime unit in seconds
    pub lifetime_unit: u16,
}

const DODAG_CONFIG_LEN: usize = 14;
const PREFIX_INFO_LEN: usize = 30;

/// An RPL option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RplOption {
    /// Pad1
    Pad1,
    /// PadN with this many zero bytes of data
    PadN(u8),
    /// DODAG Configuration
    DodagConfig(DodagConfig),
    /// RPL Target (§6.7.7): a prefix of `prefix_len` bits
    Target {
        /// flags (reserved, 0)
        flags: u8,
        /// prefix length in bits (<= 128)
        prefix_len: u8,
        /// the prefix bytes, at least ceil(prefix_len / 8)
        prefix: Vec<u8>,
    },
    /// Transit Information (§6.7.8); the parent address is present in
    /// non-storing mode only
    Transit {
        /// E flag: external
        external: bool,
        /// path control
        path_control: u8,
        /// path sequence
        path_sequence: u8,
        /// path lifetime, in lifetime units (0 = no-path DAO)
        path_lifetime: u8,
        /// parent address (non-storing mode)
        parent: Option<Ipv6Addr>,
    },
    /// Prefix Information (§6.7.10)
    PrefixInfo {
        /// prefix length in bits
        prefix_len: u8,
        /// L, A, R flags (bits 7, 6, 5)
        flags: u8,
        /// valid lifetime (s)
        valid_lifetime: u32,
        /// preferred lifetime (s)
        preferred_lifetime: u32,
        /// prefix
        prefix: Ipv6Addr,
    },
    /// Any other option, data kept as bytes
    Other {
        /// option type
        kind: u8,
        /// data
        data: Vec<u8>,
    },
}

fn addr(b: &[u8]) -> Ipv6Addr {
    let mut a = [0u8; 16];
    a.copy_from_slice(&b[..16]);
    Ipv6Addr::from(a)
}

fn bad(field: &'static str, value: usize) -> Error {
    Error::BadValue {
        field,
        value: value as u32,
    }
}

impl RplOption {
    /// Length on the wire.
    pub fn buffer_len(&self) -> usize {
        match self {
            RplOption::Pad1 => 1,
            _ => 2 + self.data_len(),
        }
    }

    fn data_len(&self) -> usize {
        match self {
            RplOption::Pad1 => 0,
            RplOption::PadN(n) => usize::from(*n),
            RplOption::DodagConfig(_) => DODAG_CONFIG_LEN,
            RplOption::Target { prefix, .. } => 2 + prefix.len(),
            RplOption::Transit { parent, .. } => 4 + if parent.is_some() { 16 } else { 0 },
            RplOption::PrefixInfo { .. } => PREFIX_INFO_LEN,
            RplOption::Other { data, .. } => data.len(),
        }
    }

    fn kind(&self) -> u8 {
        match self {
            RplOption::Pad1 => option_type::PAD1,
            RplOption::PadN(_) => option_type::PADN,
            RplOption::DodagConfig(_) => option_type::DODAG_CONFIG,
            RplOption::Target { .. } => option_type::TARGET,
            RplOption::Transit { .. } => option_type::TRANSIT,
            RplOption::PrefixInfo { .. } => option_type::PREFIX_INFO,
            RplOption::Other { kind, .. } => *kind,
        }
    }

    /// Write at the start of `buf`; returns the bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let n = self.buffer_len();
        room(buf, n)?;
        if let RplOption::Pad1 = self {
            buf[0] = option_type::PAD1;
            return Ok(1);
        }
        let len = self.data_len();
        if len > 255 {
            return Err(Error::TooLong {
                what: "RPL option data",
                len,
                max: 255,
            });
        }
        buf[0] = self.kind();
        buf[1] = len as u8;
        let d = &mut buf[2..n];
        match self {
            RplOption::Pad1 => {}
            RplOption::PadN(_) => d.fill(0),
            RplOption::DodagConfig(c) => {
                d[0] = (u8::from(c.authentication) << 3) | (c.path_control_size & 0x7);
                d[1] = c.dio_interval_doublings;
                d[2] = c.dio_interval_min;
                d[3] = c.dio_redundancy_constant;
                d[4..6].copy_from_slice(&c.max_rank_increase.to_be_bytes());
                d[6..8].copy_from_slice(&c.min_hop_rank_increase.to_be_bytes());
                d[8..10].copy_from_slice(&c.ocp.to_be_bytes());
                d[10] = 0;
                d[11] = c.default_lifetime;
                d[12..14].copy_from_slice(&c.lifetime_unit.to_be_bytes());
            }
            RplOption::Target {
                flags,
                prefix_len,
                prefix,
            } => {
                if *prefix_len > 128 || prefix.len() < usize::from(*prefix_len).div_ceil(8) {
                    return Err(bad("RPL target prefix length", usize::from(*prefix_len)));
                }
                d[0] = *flags;
                d[1] = *prefix_len;
                d[2..].copy_from_slice(prefix);
            }
            RplOption::Transit {
                external,
                path_control,
                path_sequence,
                path_lifetime,
                parent,
            } => {
                d[0] = u8::from(*external) << 7;
                d[1] = *path_control;
                d[2] = *path_sequence;
                d[3] = *path_lifetime;
                if let Some(p) = parent {
                    d[4..20].copy_from_slice(&p.octets());
                }
            }
            RplOption::PrefixInfo {
                prefix_len,
                flags,
                valid_lifetime,
                preferred_lifetime,
                prefix,
            } => {
                d[0] = *prefix_len;
                d[1] = *flags;
                d[2..6].copy_from_slice(&valid_lifetime.to_be_bytes());
                d[6..10].copy_from_slice(&preferred_lifetime.to_be_bytes());
                d[10..14].fill(0);
                d[14..30].copy_from_slice(&prefix.octets());
            }
            RplOption::Other { data, .. } => d.copy_from_slice(data),
        }
        Ok(n)
    }

    /// Parse an option list filling all of `buf`.
    pub fn parse_list(mut buf: &[u8]) -> Result<Vec<RplOption>> {
        let mut out = Vec::new();
        while let Some(&kind) = buf.first() {
            if kind == option_type::PAD1 {
                out.push(RplOption::Pad1);
                buf = &buf[1..];
                continue;
            }
            need(buf, 2, "RPL option header")?;
            let len = usize::from(buf[1]);
            need(buf, 2 + len, "RPL option data")?;
            let d = &buf[2..2 + len];
            buf = &buf[2 + len..];
            out.push(match kind {
                option_type::PADN => RplOption::PadN(len as u8),
                option_type::DODAG_CONFIG => {
                    if len != DODAG_CONFIG_LEN {
                        return Err(bad("DODAG configuration option length (14)", len));
                    }
                    RplOption::DodagConfig(DodagConfig {
                        authentication: d[0] & 0x08 != 0,
                        path_control_size: d[0] & 0x7,
                        dio_interval_doublings: d[1],
                        dio_interval_min: d[2],
                        dio_redundancy_constant: d[3],
                        max_rank_increase: u16::from_be_bytes([d[4], d[5]]),
                        min_hop_rank_increase: u16::from_be_bytes([d[6], d[7]]),
                        ocp: u16::from_be_bytes([d[8], d[9]]),
                        default_lifetime: d[11],
                        lifetime_unit: u16::from_be_bytes([d[12], d[13]]),
                    })
                }
                option_type::TARGET => {
                    need(d, 2, "RPL target option")?;
                    let prefix_len = d[1];
                    if prefix_len > 128 || d.len() - 2 < usize::from(prefix_len).div_ceil(8) {
                        return Err(bad("RPL target prefix length", usize::from(prefix_len)));
                    }
                    RplOption::Target {
                        flags: d[0],
                        prefix_len,
                        prefix: d[2..].to_vec(),
                    }
                }
                option_type::TRANSIT => {
                    let parent = match len {
                        4 => None,
                        20 => Some(addr(&d[4..])),
                        _ => return Err(bad("transit information option length (4 or 20)", len)),
                    };
                    RplOption::Transit {
                        external: d[0] & 0x80 != 0,
                        path_control: d[1],
                        path_sequence: d[2],
                        path_lifetime: d[3],
                        parent,
                    }
                }
                option_type::PREFIX_INFO => {
                    if len != PREFIX_INFO_LEN {
                        return Err(bad("prefix information option length (30)", len));
                    }
                    RplOption::PrefixInfo {
                        prefix_len: d[0],
                        flags: d[1],
                        valid_lifetime: u32::from_be_bytes([d[2], d[3], d[4], d[5]]),
                        preferred_lifetime: u32::from_be_bytes([d[6], d[7], d[8], d[9]]),
                        prefix: addr(&d[14..]),
                    }
                }
                _ => RplOption::Other {
                    kind,
                    data: d.to_vec(),
                },
            });
        }
        Ok(out)
    }
}

/// A DIO (§6.3.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dio {
    /// RPLInstanceID
    pub instance_id: u8,
    /// DODAG version number
    pub version: u8,
    /// the sender's Rank
    pub rank: u16,
    /// G: grounded
    pub grounded: bool,
    /// mode of operation (3 bits; 2 = storing without multicast)
    pub mop: u8,
    /// DODAG preference (3 bits)
    pub preference: u8,
    /// Destination Advertisement Trigger Sequence Number
    pub dtsn: u8,
    /// DODAGID
    pub dodag_id: Ipv6Addr,
    /// options
    pub options: Vec<RplOption>,
}

/// A DAO (§6.4.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dao {
    /// RPLInstanceID
    pub instance_id: u8,
    /// K: a DAO-ACK is expected
    pub expect_ack: bool,
    /// DAOSequence
    pub sequence: u8,
    /// DODAGID, present when the D flag is set
    pub dodag_id: Option<Ipv6Addr>,
    /// options (targets and transit information)
    pub options: Vec<RplOption>,
}

/// A DAO-ACK (§6.5.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DaoAck {
    /// RPLInstanceID
    pub instance_id: u8,
    /// DAOSequence acknowledged
    pub sequence: u8,
    /// status (0 accepted, < 128 accepted with a note, >= 128 rejected)
    pub status: u8,
    /// DODAGID, present when the D flag is set
    pub dodag_id: Option<Ipv6Addr>,
    /// options
    pub options: Vec<RplOption>,
}

/// An RPL control message (the ICMPv6 body after type, code and checksum).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repr {
    /// DODAG Information Solicitation (§6.2)
    Dis {
        /// options (e.g. Solicited Information)
        options: Vec<RplOption>,
    },
    /// DODAG Information Object (§6.3)
    Dio(Dio),
    /// Destination Advertisement Object (§6.4)
    Dao(Dao),
    /// DAO acknowledgement (§6.5)
    DaoAck(DaoAck),
}

fn options_len(o: &[RplOption]) -> usize {
    o.iter().map(RplOption::buffer_len).sum()
}

fn emit_options(o: &[RplOption], mut buf: &mut [u8]) -> Result<()> {
    for opt in o {
        let n = opt.emit(buf)?;
        buf = &mut buf[n..];
    }
    Ok(())
}

/// A zero-copy view of an ICMPv6 RPL control message.
#[derive(Debug, Clone, Copy)]
pub struct Packet<T: AsRef<[u8]>> {
    buf: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wrap `buf` after checking the ICMPv6 header is there.
    pub fn new_checked(buf: T) -> Result<Packet<T>> {
        need(buf.as_ref(), ICMPV6_HEADER_LEN, "ICMPv6 header")?;
        Ok(Packet { buf })
    }
    /// ICMPv6 type.
    pub fn msg_type(&self) -> u8 {
        self.buf.as_ref()[0]
    }
    /// ICMPv6 code (the RPL message kind).
    pub fn code(&self) -> u8 {
        self.buf.as_ref()[1]
    }
    /// Checksum field.
    pub fn checksum(&self) -> u16 {
        let b = self.buf.as_ref();
        u16::from_be_bytes([b[2], b[3]])
    }
    /// The RPL base and options.
    pub fn body(&self) -> &[u8] {
        &self.buf.as_ref()[ICMPV6_HEADER_LEN..]
    }
}

/// The ICMPv6 checksum (RFC 4443 §2.3) of `icmp` (checksum field taken
/// as zero) between `src` and `dst`.
pub fn icmpv6_checksum(src: &Ipv6Addr, dst: &Ipv6Addr, icmp: &[u8]) -> u16 {
    let mut sum = ones_complement_words(&src.octets()) + ones_complement_words(&dst.octets());
    sum += ones_complement_words(&(icmp.len() as u32).to_be_bytes());
    sum += u64::from(NEXT_HEADER_ICMPV6);
    sum += ones_complement_words(&icmp[..2.min(icmp.len())]);
    if icmp.len() > ICMPV6_HEADER_LEN {
        sum += ones_complement_words(&icmp[ICMPV6_HEADER_LEN..]);
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

impl Repr {
    /// The RPL code of this message.
    pub fn code(&self) -> u8 {
        match self {
            Repr::Dis { .. } => code::DIS,
            Repr::Dio(_) => code::DIO,
            Repr::Dao(_) => code::DAO,
            Repr::DaoAck(_) => code::DAO_ACK,
        }
    }

    /// Parse the RPL body of ICMPv6 `code` (after the 4-byte ICMPv6 header).
    pub fn parse_body(code: u8, b: &[u8]) -> Result<Repr> {
        Ok(match code {
            code::DIS => {
                need(b, 2, "DIS base")?;
                Repr::Dis {
                    options: RplOption::parse_list(&b[2..])?,
                }
            }
            code::DIO => {
                need(b, 24, "DIO base")?;
                Repr::Dio(Dio {
                    instance_id: b[0],
                    version: b[1],
                    rank: u16::from_be_bytes([b[2], b[3]]),
                    grounded: b[4] & 0x80 != 0,
                    mop: (b[4] >> 3) & 0x7,
                    preference: b[4] & 0x7,
                    dtsn: b[5],
                    dodag_id: addr(&b[8..24]),
                    options: RplOption::parse_list(&b[24..])?,
                })
            }
            code::DAO => {
                need(b, 4, "DAO base")?;
                let d = b[1] & 0x40 != 0;
                let base = if d { 20 } else { 4 };
                need(b, base, "DAO DODAGID")?;
                Repr::Dao(Dao {
                    instance_id: b[0],
                    expect_ack: b[1] & 0x80 != 0,
                    sequence: b[3],
                    dodag_id: d.then(|| addr(&b[4..20])),
                    options: RplOption::parse_list(&b[base..])?,
                })
            }
            code::DAO_ACK => {
                need(b, 4, "DAO-ACK base")?;
                let d = b[1] & 0x80 != 0;
                let base = if d { 20 } else { 4 };
                need(b, base, "DAO-ACK DODAGID")?;
                Repr::DaoAck(DaoAck {
                    instance_id: b[0],
                    sequence: b[2],
                    status: b[3],
                    dodag_id: d.then(|| addr(&b[4..20])),
                    options: RplOption::parse_list(&b[base..])?,
                })
            }
            0x80..=0x83 => return Err(Error::Unsupported("secure RPL control messages")),
            c => return Err(bad("RPL control code (0..=3)", usize::from(c))),
        })
    }

    /// Parse a whole ICMPv6 message, checking its type and, when the
    /// addresses are given, its checksum.
    pub fn parse(icmp: &[u8], addrs: Option<(&Ipv6Addr, &Ipv6Addr)>) -> Result<Repr> {
        let p = Packet::new_checked(icmp)?;
        if p.msg_type() != ICMPV6_TYPE_RPL {
            return Err(bad("ICMPv6 type (RPL is 155)", usize::from(p.msg_type())));
        }
        if let Some((src, dst)) = addrs {
            let c = icmpv6_checksum(src, dst, icmp);
            if c != p.checksum() {
                return Err(Error::BadValue {
                    field: "ICMPv6 checksum",
                    value: u32::from(p.checksum()),
                });
            }
        }
        Repr::parse_body(p.code(), p.body())
    }

    fn body_len(&self) -> usize {
        match self {
            Repr::Dis { options } => 2 + options_len(options),
            Repr::Dio(d) => 24 + options_len(&d.options),
            Repr::Dao(d) => 4 + if d.dodag_id.is_some() { 16 } else { 0 } + options_len(&d.options),
            Repr::DaoAck(d) => {
                4 + if d.dodag_id.is_some() { 16 } else { 0 } + options_len(&d.options)
            }
        }
    }

    /// Length of the whole ICMPv6 message.
    pub fn buffer_len(&self) -> usize {
        ICMPV6_HEADER_LEN + self.body_len()
    }

    /// Write the whole ICMPv6 message with its checksum between `src` and
    /// `dst`; returns the bytes written.
    pub fn emit(&self, src: &Ipv6Addr, dst: &Ipv6Addr, buf: &mut [u8]) -> Result<usize> {
        let n = self.buffer_len();
        room(buf, n)?;
        let buf = &mut buf[..n];
        buf[0] = ICMPV6_TYPE_RPL;
        buf[1] = self.code();
        buf[2..4].fill(0);
        let b = &mut buf[ICMPV6_HEADER_LEN..];
        match self {
            Repr::Dis { options } => {
                b[..2].fill(0);
                emit_options(options, &mut b[2..])?;
            }
            Repr::Dio(d) => {
                if d.mop > 7 || d.preference > 7 {
                    return Err(bad(
                        "DIO MOP / Prf (3 bits)",
                        usize::from(d.mop.max(d.preference)),
                    ));
                }
                b[0] = d.instance_id;
                b[1] = d.version;
                b[2..4].copy_from_slice(&d.rank.to_be_bytes());
                b[4] = (u8::from(d.grounded) << 7) | (d.mop << 3) | d.preference;
                b[5] = d.dtsn;
                b[6] = 0;
                b[7] = 0;
                b[8..24].copy_from_slice(&d.dodag_id.octets());
                emit_options(&d.options, &mut b[24..])?;
            }
            Repr::Dao(d) => {
                b[0] = d.instance_id;
                b[1] = (u8::from(d.expect_ack) << 7) | (u8::from(d.dodag_id.is_some()) << 6);
                b[2] = 0;
                b[3] = d.sequence;
                let base = emit_dodag_id(d.dodag_id, b);
                emit_options(&d.options, &mut b[base..])?;
            }
            Repr::DaoAck(d) => {
                b[0] = d.instance_id;
                b[1] = u8::from(d.dodag_id.is_some()) << 7;
                b[2] = d.sequence;
                b[3] = d.status;
                let base = emit_dodag_id(d.dodag_id, b);
                emit_options(&d.options, &mut b[base..])?;
            }
        }
        let c = icmpv6_checksum(src, dst, buf);
        buf[2..4].copy_from_slice(&c.to_be_bytes());
        Ok(n)
    }
}

fn emit_dodag_id(id: Option<Ipv6Addr>, b: &mut [u8]) -> usize {
    match id {
        Some(a) => {
            b[4..20].copy_from_slice(&a.octets());
            20
        }
        None => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ll(last: u16) -> Ipv6Addr {
        Ipv6Addr::new(0xfe80, 0, 0, 0, 0x0212, 0x4b00, 0, last)
    }

    #[test]
    fn dio_bytes() {
        let root: Ipv6Addr = "fd00::1".parse().unwrap();
        let dio = Repr::Dio(Dio {
            instance_id: 0x1e,
            version: 240,
            rank: 256,
            grounded: true,
            mop: 2,
            preference: 0,
            dtsn: 240,
            dodag_id: root,
            options: vec![RplOption::DodagConfig(DodagConfig {
                authentication: false,
                path_control_size: 0,
                dio_interval_doublings: 20,
                dio_interval_min: 3,
                dio_redundancy_constant: 10,
                max_rank_increase: 1792,
                min_hop_rank_increase: 256,
                ocp: 1,
                default_lifetime: 0xff,
                lifetime_unit: 0xffff,
            })],
        });
        // 4 (ICMPv6) + 24 (base) + 2 + 14 (configuration) = 44
        assert_eq!(dio.buffer_len(), 44);
        let mut b = vec![0u8; 44];
        dio.emit(&ll(1), &"ff02::1a".parse().unwrap(), &mut b)
            .unwrap();
        assert_eq!(&b[..2], &[155, 0x01]);
        // instance, version, rank 0x0100, G|MOP 2 -> 0x80 | 2 << 3 = 0x90
        assert_eq!(&b[4..12], &[0x1e, 240, 0x01, 0x00, 0x90, 240, 0, 0]);
        assert_eq!(b[12], 0xfd);
        // configuration: type 4, length 14, flags 0, 20, 3, 10,
        // 1792 = 0x0700, 256 = 0x0100, OCP 1, reserved, 0xff, 0xffff
        assert_eq!(
            &b[28..],
            &[4, 14, 0, 20, 3, 10, 0x07, 0x00, 0x01, 0x00, 0x00, 0x01, 0, 0xff, 0xff, 0xff]
        );
        let dst = "ff02::1a".parse().unwrap();
        assert_eq!(Repr::parse(&b, Some((&ll(1), &dst))), Ok(dio));
        // one flipped bit fails the checksum
        b[40] ^= 1;
        assert!(Repr::parse(&b, Some((&ll(1), &dst))).is_err());
    }

    #[test]
    fn checksum_by_hand() {
        // DIS with no option from :: to :: : the pseudo header sums to
        // length 6 + next header 58 = 64; the message words 0x9b00 (type
        // 155, code 0) and 0x0000 (flags, reserved): 0x9b00 + 64 = 0x9b40,
        // complement 0x64bf.
        let dis = Repr::Dis { options: vec![] };
        let mut b = [0u8; 6];
        let z = Ipv6Addr::UNSPECIFIED;
        dis.emit(&z, &z, &mut b).unwrap();
        assert_eq!(b, [155, 0, 0x64, 0xbf, 0, 0]);
    }

    #[test]
    fn dao_and_ack_storing_mode() {
        let target: Ipv6Addr = "fd00::212:4b00:0:2".parse().unwrap();
        let dao = Repr::Dao(Dao {
            instance_id: 0x1e,
            expect_ack: true,
            sequence: 7,
            dodag_id: None,
            options: vec![
                RplOption::Target {
                    flags: 0,
                    prefix_len: 128,
                    prefix: target.octets().to_vec(),
                },
                RplOption::Transit {
                    external: false,
                    path_control: 0,
                    path_sequence: 3,
                    path_lifetime: 0xff,
                    parent: None,
                },
            ],
        });
        // 4 + 4 (base, no DODAGID) + 2 + 18 (target) + 2 + 4 (transit) = 34
        assert_eq!(dao.buffer_len(), 34);
        let mut b = vec![0u8; 34];
        dao.emit(&ll(2), &ll(1), &mut b).unwrap();
        assert_eq!(&b[4..8], &[0x1e, 0x80, 0x00, 7]);
        assert_eq!(&b[8..10], &[5, 18]);
        assert_eq!(&b[28..], &[6, 4, 0, 0, 3, 0xff]);
        assert_eq!(Repr::parse(&b, Some((&ll(2), &ll(1)))), Ok(dao));
        let ack = Repr::DaoAck(DaoAck {
            instance_id: 0x1e,
            sequence: 7,
            status: 0,
            dodag_id: Some("fd00::1".parse().unwrap()),
            options: vec![RplOption::Pad1, RplOption::PadN(2)],
        });
        let mut b = vec![0u8; ack.buffer_len()];
        ack.emit(&ll(1), &ll(2), &mut b).unwrap();
        assert_eq!(&b[4..8], &[0x1e, 0x80, 7, 0]);
        assert_eq!(&b[24..], &[0, 1, 2, 0, 0]);
        assert_eq!(Repr::parse(&b, None), Ok(ack));
    }

    #[test]
    fn malformed_is_an_error() {
        // not RPL, secure DIO, unknown code, truncated DIO
        assert!(Repr::parse(&[128, 0, 0, 0], None).is_err());
        assert_eq!(
            Repr::parse(&[155, 0x81, 0, 0], None),
            Err(Error::Unsupported("secure RPL control messages"))
        );
        assert!(Repr::parse(&[155, 0x04, 0, 0], None).is_err());
        assert!(Repr::parse(&[155, 0x01, 0, 0, 1, 2, 3], None).is_err());
        // DAO with D set but no DODAGID
        assert!(Repr::parse(&[155, 0x02, 0, 0, 0x1e, 0x40, 0, 1], None).is_err());
        // option overrunning the message, configuration of the wrong size,
        // target prefix longer than its bytes
        assert!(Repr::parse_body(code::DIS, &[0, 0, 4, 14, 0]).is_err());
        assert!(Repr::parse_body(code::DIS, &[0, 0, 4, 1, 0]).is_err());
        assert!(Repr::parse_body(code::DIS, &[0, 0, 5, 3, 0, 64, 0]).is_err());
        assert!(Repr::parse_body(code::DIS, &[0, 0, 5, 3, 0, 129, 0]).is_err());
    }
}
