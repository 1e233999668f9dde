//! IPv6 header compression (RFC 6282 §3, IPHC): the traffic class and flow
//! label, next header and hop limit elided when they take common values,
//! addresses shortened against the link-layer addresses or a context
//! prefix, and a UDP next header compressed by NHC ([`super::nhc`]).
//!
//! ```text
//! | 0 1 1 TF(2) NH HLIM(2) | CID SAC SAM(2) M DAC DAM(2) | [SCI|DCI] | inline fields |
//! inline order: TF fields, next header, hop limit, source, destination, NHC headers
//! ```

use std::net::Ipv6Addr;

use super::nhc::UdpNhc;
use super::{dispatch, iid_from_ll};
use crate::frame::Address;
use crate::{need, room, Error, Result};

/// Compression contexts: up to 16 64-bit prefixes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contexts {
    /// Prefix of context i, if defined.
    pub prefixes: [Option<[u8; 8]>; 16],
    /// Carry the context identifier extension (CID = 1, one SCI|DCI byte)
    /// whenever a context compresses an address, context 0 included. RFC
    /// 6282 §3.1.1 lets a compressor leave it out for context 0, and
    /// dtlsim's own stack does; Contiki 2.7 and 3.0 always write it
    /// (core/net/sicslowpan.c `compress_hdr_hc06`: `iphc1 |=
    /// SICSLOWPAN_IPHC_CID` once either address matches a context), which
    /// makes their frames one byte longer. Decompression reads both forms.
    pub always_carry_cid: bool,
}

impl Contexts {
    /// No contexts (stateless compression only).
    pub fn none() -> Contexts {
        Contexts::default()
    }

    /// Contexts with context 0 set to `prefix`.
    pub fn with_context0(prefix: [u8; 8]) -> Contexts {
        let mut c = Contexts::default();
        c.prefixes[0] = Some(prefix);
        c
    }

    /// The same contexts, compressing as Contiki does when `always` (see
    /// [`Contexts::always_carry_cid`]).
    pub fn carrying_cid(mut self, always: bool) -> Contexts {
        self.always_carry_cid = always;
        self
    }

    fn find(&self, prefix: &[u8]) -> Option<u8> {
        self.prefixes
            .iter()
            .position(|p| p.as_ref().map(|p| &p[..]) == Some(prefix))
            .map(|i| i as u8)
    }

    fn get(&self, i: u8) -> Result<[u8; 8]> {
        self.prefixes[usize::from(i & 0xf)].ok_or(Error::Missing("6LoWPAN compression context"))
    }
}

/// What follows the compressed IPv6 header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextHeader {
    /// Next header value carried inline (NH = 0); its header is not compressed.
    Inline(u8),
    /// UDP header compressed with NHC (NH = 1).
    Udp(UdpNhc),
}

/// A compressed IPv6 header (and UDP header): the values it stands for.
/// Parsing and emitting need the link-layer addresses and the contexts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IphcRepr {
    /// Source address.
    pub src: Ipv6Addr,
    /// Destination address.
    pub dst: Ipv6Addr,
    /// Traffic class (DSCP << 2 | ECN).
    pub traffic_class: u8,
    /// Flow label (20 bits).
    pub flow_label: u32,
    /// Hop limit.
    pub hop_limit: u8,
    /// Next header.
    pub next: NextHeader,
}

/// How one address is compressed: (context flag, mode, context id, inline
/// bytes, and whether a context prefix compressed it).
struct AddrEnc {
    ctx: bool,
    mode: u8,
    cid: u8,
    inline: Vec<u8>,
    by_context: bool,
}

fn is_16bit_iid(iid: &[u8]) -> bool {
    iid[..6] == [0, 0, 0, 0xff, 0xfe, 0]
}

fn encode_unicast(a: &Ipv6Addr, ll: &Address, ctx: &Contexts, allow_unspec: bool) -> AddrEnc {
    let o = a.octets();
    if allow_unspec && a.is_unspecified() {
        return AddrEnc {
            ctx: true,
            mode: 0,
            cid: 0,
            inline: Vec::new(),
            by_context: false,
        };
    }
    let (ctx_flag, cid) = if o[..8] == [0xfe, 0x80, 0, 0, 0, 0, 0, 0] {
        (false, 0)
    } else if let Some(i) = ctx.find(&o[..8]) {
        (true, i)
    } else {
        return AddrEnc {
            ctx: false,
            mode: 0,
            cid: 0,
            inline: o.to_vec(),
            by_context: false,
        };
    };
    let iid = &o[8..];
    let (mode, inline) = if iid_from_ll(ll).as_ref().map(|x| &x[..]) == Some(iid) {
        (3, Vec::new())
    } else if is_16bit_iid(iid) {
        (2, iid[6..].to_vec())
    } else {
        (1, iid.to_vec())
    };
    AddrEnc {
        ctx: ctx_flag,
        mode,
        cid,
        inline,
        by_context: ctx_flag,
    }
}

fn encode_multicast(a: &Ipv6Addr) -> AddrEnc {
    let o = a.octets();
    let (mode, inline) = if o[1] == 0x02 && o[2..15].iter().all(|&b| b == 0) {
        (3, vec![o[15]])
    } else if o[2..13].iter().all(|&b| b == 0) {
        (2, vec![o[1], o[13], o[14], o[15]])
    } else if o[2..11].iter().all(|&b| b == 0) {
        (1, vec![o[1], o[11], o[12], o[13], o[14], o[15]])
    } else {
        (0, o.to_vec())
    };
    AddrEnc {
        ctx: false,
        mode,
        cid: 0,
        inline,
        by_context: false,
    }
}

fn take<'a>(buf: &'a [u8], off: &mut usize, n: usize, what: &'static str) -> Result<&'a [u8]> {
    need(buf, *off + n, what)?;
    let s = &buf[*off..*off + n];
    *off += n;
    Ok(s)
}

fn decode_unicast(
    ctx_flag: bool,
    mode: u8,
    prefix: Option<[u8; 8]>,
    ll: &Address,
    buf: &[u8],
    off: &mut usize,
    what: &'static str,
) -> Result<Ipv6Addr> {
    let mut a = [0u8; 16];
    let prefix = if ctx_flag {
        prefix.ok_or(Error::Missing("6LoWPAN compression context"))?
    } else {
        [0xfe, 0x80, 0, 0, 0, 0, 0, 0]
    };
    match mode {
        0 => a.copy_from_slice(take(buf, off, 16, what)?),
        1 => {
            a[..8].copy_from_slice(&prefix);
            a[8..].copy_from_slice(take(buf, off, 8, what)?);
        }
        2 => {
            a[..8].copy_from_slice(&prefix);
            a[8..14].copy_from_slice(&[0, 0, 0, 0xff, 0xfe, 0]);
            a[14..].copy_from_slice(take(buf, off, 2, what)?);
        }
        _ => {
            a[..8].copy_from_slice(&prefix);
            a[8..].copy_from_slice(&iid_from_ll(ll).ok_or(Error::Missing(
                "link-layer address to derive an elided IPv6 address from",
            ))?);
        }
    }
    Ok(Ipv6Addr::from(a))
}

impl IphcRepr {
    pub(super) fn encode(
        &self,
        ll_src: &Address,
        ll_dst: &Address,
        ctx: &Contexts,
    ) -> Result<Vec<u8>> {
        let src = encode_unicast(&self.src, ll_src, ctx, true);
        let dst = if self.dst.is_multicast() {
            encode_multicast(&self.dst)
        } else {
            encode_unicast(&self.dst, ll_dst, ctx, false)
        };
        let tc = self.traffic_class;
        let fl = self.flow_label;
        if fl > 0xfffff {
            return Err(Error::BadValue {
                field: "flow label",
                value: fl,
            });
        }
        let (ecn, dscp) = (tc & 3, tc >> 2);
        let (tf, tf_bytes): (u8, Vec<u8>) = if tc == 0 && fl == 0 {
            (3, vec![])
        } else if fl == 0 {
            (2, vec![ecn << 6 | dscp])
        } else if dscp == 0 {
            (
                1,
                vec![
                    ecn << 6 | (fl >> 16) as u8 & 0x0f,
                    (fl >> 8) as u8,
                    fl as u8,
                ],
            )
        } else {
            (
                0,
                vec![
                    ecn << 6 | dscp,
                    (fl >> 16) as u8 & 0x0f,
                    (fl >> 8) as u8,
                    fl as u8,
                ],
            )
        };
        let hlim = match self.hop_limit {
            1 => 1,
            64 => 2,
            255 => 3,
            _ => 0,
        };
        let nh = matches!(self.next, NextHeader::Udp(_));
        let cid = src.cid != 0
            || dst.cid != 0
            || (ctx.always_carry_cid && (src.by_context || dst.by_context));
        let mut out = vec![
            dispatch::IPHC | tf << 3 | u8::from(nh) << 2 | hlim,
            u8::from(cid) << 7
                | u8::from(src.ctx) << 6
                | src.mode << 4
                | u8::from(self.dst.is_multicast()) << 3
                | u8::from(dst.ctx) << 2
                | dst.mode,
        ];
        if cid {
            out.push(src.cid << 4 | dst.cid);
        }
        out.extend_from_slice(&tf_bytes);
        if let NextHeader::Inline(n) = self.next {
            out.push(n);
        }
        if hlim == 0 {
            out.push(self.hop_limit);
        }
        out.extend_from_slice(&src.inline);
        out.extend_from_slice(&dst.inline);
        if let NextHeader::Udp(u) = self.next {
            u.emit(&mut out);
        }
        Ok(out)
    }

    /// Length of the compressed header(s) (0 if `self` cannot be encoded:
    /// a flow label wider than 20 bits; `emit` then says so).
    pub fn buffer_len(&self, ll_src: &Address, ll_dst: &Address, ctx: &Contexts) -> usize {
        self.encode(ll_src, ll_dst, ctx).map_or(0, |v| v.len())
    }

    /// Write the compressed header(s) at the start of `buf`; returns the length.
    pub fn emit(
        &self,
        buf: &mut [u8],
        ll_src: &Address,
        ll_dst: &Address,
        ctx: &Contexts,
    ) -> Result<usize> {
        let v = self.encode(ll_src, ll_dst, ctx)?;
        room(buf, v.len())?;
        buf[..v.len()].copy_from_slice(&v);
        Ok(v.len())
    }

    /// Parse an IPHC header (and UDP NHC) from the start of `buf`; returns
    /// the representation and the bytes consumed.
    pub fn parse(
        buf: &[u8],
        ll_src: &Address,
        ll_dst: &Address,
        ctx: &Contexts,
    ) -> Result<(IphcRepr, usize)> {
        need(buf, 2, "IPHC base header")?;
        let (b0, b1) = (buf[0], buf[1]);
        if b0 & dispatch::IPHC_MASK != dispatch::IPHC {
            return Err(Error::BadValue {
                field: "IPHC dispatch",
                value: u32::from(b0),
            });
        }
        let mut off = 2;
        let (sci, dci) = if b1 & 0x80 != 0 {
            let c = take(buf, &mut off, 1, "IPHC context identifier")?[0];
            (c >> 4, c & 0x0f)
        } else {
            (0, 0)
        };
        let (traffic_class, flow_label) = match (b0 >> 3) & 3 {
            0 => {
                let f = take(buf, &mut off, 4, "IPHC traffic class / flow label")?;
                (
                    (f[0] & 0x3f) << 2 | f[0] >> 6,
                    u32::from(f[1] & 0x0f) << 16 | u32::from(f[2]) << 8 | u32::from(f[3]),
                )
            }
            1 => {
                let f = take(buf, &mut off, 3, "IPHC ECN / flow label")?;
                (
                    f[0] >> 6,
                    u32::from(f[0] & 0x0f) << 16 | u32::from(f[1]) << 8 | u32::from(f[2]),
                )
            }
            2 => {
                let f = take(buf, &mut off, 1, "IPHC traffic class")?;
                ((f[0] & 0x3f) << 2 | f[0] >> 6, 0)
            }
            _ => (0, 0),
        };
        let nh = b0 & 0x04 != 0;
        let inline_nh = if nh {
            None
        } else {
            Some(take(buf, &mut off, 1, "IPHC next header")?[0])
        };
        let hop_limit = match b0 & 3 {
            0 => take(buf, &mut off, 1, "IPHC hop limit")?[0],
            1 => 1,
            2 => 64,
            _ => 255,
        };
        let sac = b1 & 0x40 != 0;
        let sam = (b1 >> 4) & 3;
        let src = if sac && sam == 0 {
            Ipv6Addr::UNSPECIFIED
        } else {
            let p = if sac { Some(ctx.get(sci)?) } else { None };
            decode_unicast(sac, sam, p, ll_src, buf, &mut off, "IPHC source address")?
        };
        let m = b1 & 0x08 != 0;
        let dac = b1 & 0x04 != 0;
        let dam = b1 & 3;
        let dst = match (m, dac) {
            (false, false) => {
                decode_unicast(false, dam, None, ll_dst, buf, &mut off, "IPHC destination")?
            }
            (false, true) => {
                if dam == 0 {
                    return Err(Error::BadValue {
                        field: "IPHC DAC=1 DAM=00 (reserved)",
                        value: u32::from(b1),
                    });
                }
                let p = ctx.get(dci)?;
                decode_unicast(
                    true,
                    dam,
                    Some(p),
                    ll_dst,
                    buf,
                    &mut off,
                    "IPHC destination",
                )?
            }
            (true, false) => {
                let mut a = [0u8; 16];
                match dam {
                    0 => a.copy_from_slice(take(buf, &mut off, 16, "IPHC multicast")?),
                    1 => {
                        let f = take(buf, &mut off, 6, "IPHC multicast (48 bits)")?;
                        a[0] = 0xff;
                        a[1] = f[0];
                        a[11..].copy_from_slice(&f[1..]);
                    }
                    2 => {
                        let f = take(buf, &mut off, 4, "IPHC multicast (32 bits)")?;
                        a[0] = 0xff;
                        a[1] = f[0];
                        a[13..].copy_from_slice(&f[1..]);
                    }
                    _ => {
                        let f = take(buf, &mut off, 1, "IPHC multicast (8 bits)")?;
                        a[0] = 0xff;
                        a[1] = 0x02;
                        a[15] = f[0];
                    }
                }
                Ipv6Addr::from(a)
            }
            (true, true) => {
                return Err(Error::Unsupported(
                    "IPHC stateful multicast (M=1 DAC=1) addresses",
                ))
            }
        };
        let next = match inline_nh {
            Some(n) => NextHeader::Inline(n),
            None => {
                let (u, n) = UdpNhc::parse(&buf[off..])?;
                off += n;
                NextHeader::Udp(u)
            }
        };
        Ok((
            IphcRepr {
                src,
                dst,
                traffic_class,
                flow_label,
                hop_limit,
                next,
            },
            off,
        ))
    }
}
