//! The network layer: IPv6/UDP over 6LoWPAN, route-over.
//!
//! Datagrams are built as real bytes (an uncompressed IPv6/UDP datagram with
//! its checksum), compressed with IPHC + UDP NHC and fragmented (FRAG1/FRAGN)
//! for each hop's link. Every forwarder reassembles the whole datagram,
//! decrements the hop limit and compresses and fragments it again for the
//! next link, as a route-over 6LoWPAN router does. Node n's address is the
//! prefix 2001:db8::/64 (6LoWPAN context 0) with the IID of its short MAC
//! address, so the first hop elides both addresses and later hops carry the
//! source in 16 bits.

use std::net::{Ipv6Addr, SocketAddr, SocketAddrV6};

use wpan::fragment::{fragment, Reassembled, Reassembler};
use wpan::frame::Address;
use wpan::ipv6::Ipv6Header;
use wpan::sixlowpan::Contexts;
use wpan::udp::{build_udp_datagram, UdpHeader};

use crate::mac::address::{node_of, short_addr, LinkAddressing};
use crate::mac::security::{extended_addr, node_of_extended};
use crate::{NodeId, Time};

/// How long Contiki 3.0's 6LoWPAN layer keeps a datagram under reassembly
/// on a cooja mote: SICSLOWPAN_REASS_MAXAGE = SICSLOWPAN_CONF_MAXAGE, 8 s
/// in platform/cooja/contiki-conf.h (core/net/ip/uipopt.h would give 20 s).
pub const CONTIKI3_COOJA_REASS_MAXAGE_US: Time = 8_000_000;

/// A UDP datagram between two nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Udp {
    pub src: NodeId,
    pub src_port: u16,
    pub dst: NodeId,
    pub dst_port: u16,
    /// [`HOP_LIMIT`] at the source, one less after each forwarder.
    pub hop_limit: u8,
    /// Between link-local addresses (fe80::/64, RFC 4291 §2.5.6): sent
    /// to `dst` as a neighbour, never forwarded. A pledge talks to its
    /// join proxy so (RFC 9031 §6, as the constrained-join-proxy draft
    /// describes it).
    pub link_local: bool,
    pub payload: Vec<u8>,
}

impl Udp {
    /// A datagram as its source sends it (hop limit [`HOP_LIMIT`]).
    pub fn new(src: NodeId, src_port: u16, dst: NodeId, dst_port: u16, payload: Vec<u8>) -> Self {
        Udp {
            src,
            src_port,
            dst,
            dst_port,
            hop_limit: HOP_LIMIT,
            link_local: false,
            payload,
        }
    }

    /// A datagram between the link-local addresses of two neighbours.
    pub fn on_link(
        src: NodeId,
        src_port: u16,
        dst: NodeId,
        dst_port: u16,
        payload: Vec<u8>,
    ) -> Self {
        Udp {
            link_local: true,
            ..Udp::new(src, src_port, dst, dst_port, payload)
        }
    }

    /// The sender as a socket address, in the scope the datagram came in.
    pub fn src_sockaddr(&self) -> SocketAddr {
        if self.link_local {
            sockaddr_on_link(self.src, self.src_port)
        } else {
            sockaddr(self.src, self.src_port)
        }
    }
}

const PREFIX: [u8; 8] = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0];
/// The link-local prefix fe80::/64 (RFC 4291 §2.5.6).
const LINK_LOCAL_PREFIX: [u8; 8] = [0xfe, 0x80, 0, 0, 0, 0, 0, 0];
const IPV6_HEADER: usize = 40;
const UDP_HEADER: usize = 8;
/// The hop limit a source puts in its datagrams (64 compresses to 2 bits).
pub const HOP_LIMIT: u8 = 64;

/// The global address of a node: the prefix and an interface identifier
/// derived from the link-layer address its frames carry (RFC 4944 §6), so
/// that IPHC can elide it: `0000:00ff:fe00:XXXX` from the short address, or
/// the extended address with the universal/local bit inverted.
pub fn address(node: NodeId, addressing: LinkAddressing) -> Ipv6Addr {
    let iid = match addressing {
        LinkAddressing::Short => {
            let s = short_addr(node).to_be_bytes();
            [0, 0, 0, 0xff, 0xfe, 0, s[0], s[1]]
        }
        LinkAddressing::Extended => (extended_addr(node) ^ UNIVERSAL_LOCAL_BIT).to_be_bytes(),
    };
    let mut a = [0u8; 16];
    a[..8].copy_from_slice(&PREFIX);
    a[8..].copy_from_slice(&iid);
    Ipv6Addr::from(a)
}

/// A node's link-local address: fe80::/64 and the interface identifier of
/// its [`address`], so that IPHC elides it as it does the global one.
pub fn link_local_address(node: NodeId, addressing: LinkAddressing) -> Ipv6Addr {
    let mut o = address(node, addressing).octets();
    o[..8].copy_from_slice(&LINK_LOCAL_PREFIX);
    Ipv6Addr::from(o)
}

/// A neighbour's link-local socket address ([`sockaddr`]'s counterpart:
/// [`node_port`] reads both; [`is_link_local`] tells them apart).
pub fn sockaddr_on_link(node: NodeId, port: u16) -> SocketAddr {
    let ip = link_local_address(node, LinkAddressing::Short);
    SocketAddr::V6(SocketAddrV6::new(ip, port, 0, 0))
}

/// Whether a socket address is link-local (made by [`sockaddr_on_link`]).
pub fn is_link_local(a: &SocketAddr) -> bool {
    matches!(a, SocketAddr::V6(v6) if v6.ip().octets()[..8] == LINK_LOCAL_PREFIX)
}

/// A node's socket address as a security stack names a peer (its session
/// key): its [`address`] with short link addresses. The addresses on the
/// wire are the network layer's.
pub fn sockaddr(node: NodeId, port: u16) -> SocketAddr {
    let ip = address(node, LinkAddressing::Short);
    SocketAddr::V6(SocketAddrV6::new(ip, port, 0, 0))
}

/// The node and port of a socket address made by [`sockaddr`].
pub fn node_port(a: &SocketAddr) -> (NodeId, u16) {
    match a {
        SocketAddr::V6(v6) => {
            let o = v6.ip().octets();
            let short = u16::from_be_bytes([o[14], o[15]]);
            (usize::from(short) - 1, v6.port())
        }
        SocketAddr::V4(_) => unreachable!("the simulator uses IPv6 only"),
    }
}

const UNIVERSAL_LOCAL_BIT: u64 = 0x0200_0000_0000_0000;

/// The node of a global or link-local address, and whether it is
/// link-local.
fn node_and_scope(a: &Ipv6Addr) -> Option<(NodeId, bool)> {
    let link_local = a.octets()[..8] == LINK_LOCAL_PREFIX;
    let mut o = a.octets();
    if link_local {
        o[..8].copy_from_slice(&PREFIX);
    }
    node_of_address(&Ipv6Addr::from(o)).map(|n| (n, link_local))
}

pub(crate) fn node_of_address(a: &Ipv6Addr) -> Option<NodeId> {
    let o = a.octets();
    if o[..8] != PREFIX {
        return None;
    }
    if o[8..14] == [0, 0, 0, 0xff, 0xfe, 0] {
        return node_of(Address::Short(u16::from_be_bytes([o[14], o[15]])));
    }
    let iid = u64::from_be_bytes(o[8..].try_into().expect("8 bytes"));
    node_of_extended(iid ^ UNIVERSAL_LOCAL_BIT)
}

/// What arrived at this node's network layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetInput {
    /// A fragment stored, a duplicate, or something malformed (dropped).
    Nothing,
    /// A whole datagram for this node.
    Deliver(Udp),
    /// A whole datagram for another node, to send on.
    Forward(Udp),
    /// An ICMPv6 message for this node (link-local or all-RPL-nodes: RPL's
    /// DIOs and DAOs, with [`Net::send_icmp`]), its bytes.
    Icmp(Vec<u8>),
}

/// IPv6 next header value of ICMPv6.
const NEXT_HEADER_ICMPV6: u8 = 58;
/// The hop limit of RPL's link-local messages (RFC 4861 §3's rule for
/// link-local ICMPv6; rpl-icmp6.c sends with uip's default, 64, which
/// IPHC compresses as well: estimate, either costs no byte).
const ICMP_HOP_LIMIT: u8 = 255;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetStats {
    /// Datagrams this node originated.
    pub datagrams_sent: u64,
    /// Datagrams delivered to this node's applications.
    pub datagrams_delivered: u64,
    /// Datagrams forwarded.
    pub forwarded: u64,
    /// 6LoWPAN frame payloads handed to the MAC (fragments count one each).
    pub frames_out: u64,
    /// Datagrams dropped: malformed, bad checksum, hop limit, no route, no
    /// room in the MAC's queue for all its fragments.
    pub dropped: u64,
}

pub struct Net {
    node: NodeId,
    /// The link-layer addresses data frames carry (IPHC derives and elides
    /// the IPv6 addresses from them).
    addressing: LinkAddressing,
    secured: bool,
    ctx: Contexts,
    reassembler: Reassembler,
    tag: u16,
    pub stats: NetStats,
}

impl Net {
    /// `reassembly_timeout_us`: how long a partial datagram is kept (RFC 4944 suggests 60 s).
    pub fn new(node: NodeId, reassembly_timeout_us: Time) -> Self {
        Self::with_link_addresses(node, reassembly_timeout_us, LinkAddressing::Short, false)
    }

    /// As [`Net::new`], for a link whose data frames are addressed as
    /// `addressing` says (and, when `secured`, name their source by its
    /// extended address).
    pub fn with_link_addresses(
        node: NodeId,
        reassembly_timeout_us: Time,
        addressing: LinkAddressing,
        secured: bool,
    ) -> Self {
        Net {
            node,
            addressing,
            secured,
            ctx: Contexts::with_context0(PREFIX),
            reassembler: Reassembler::new(reassembly_timeout_us, 4),
            tag: 0,
            stats: NetStats::default(),
        }
    }

    /// The same layer, writing the context identifier byte for context 0
    /// too when `always` (Contiki's HC06; see
    /// `wpan::sixlowpan::Contexts::always_carry_cid`).
    pub fn carrying_cid(mut self, always: bool) -> Self {
        self.ctx = self.ctx.carrying_cid(always);
        self
    }

    /// The same layer, reassembling as Contiki 3.0 does when `contiki3`:
    /// one datagram at a time, given up `timeout_us` after its first
    /// fragment (see `wpan::fragment::Reassembler::contiki3`).
    pub fn reassembling_as_contiki3(mut self, contiki3: bool, timeout_us: Time) -> Self {
        if contiki3 {
            self.reassembler = Reassembler::contiki3(timeout_us);
        }
        self
    }

    /// Compress and fragment `udp` for the link to `next_hop`; returns the
    /// MAC payloads (empty if the datagram cannot be built).
    pub fn send(
        &mut self,
        node: NodeId,
        next_hop: NodeId,
        max_payload: usize,
        udp: &Udp,
    ) -> Vec<Vec<u8>> {
        if udp.src == self.node {
            self.stats.datagrams_sent += 1;
        }
        let ip = |n| match udp.link_local {
            true => link_local_address(n, self.addressing),
            false => address(n, self.addressing),
        };
        let Ok(datagram) = build_udp_datagram(
            ip(udp.src),
            ip(udp.dst),
            udp.hop_limit,
            udp.src_port,
            udp.dst_port,
            &udp.payload,
        ) else {
            self.stats.dropped += 1;
            return Vec::new();
        };
        self.link_frames(node, next_hop, &datagram, max_payload)
    }

    /// Compress and fragment an ICMPv6 message `icmp` (checksummed) from
    /// `src` to `dst` (link-local, or all-RPL-nodes), for the link to
    /// `next_hop` (a neighbour, or [`crate::mac::address::BROADCAST_NODE`]).
    pub fn send_icmp(
        &mut self,
        node: NodeId,
        next_hop: NodeId,
        max_payload: usize,
        (src, dst): (Ipv6Addr, Ipv6Addr),
        icmp: &[u8],
    ) -> Vec<Vec<u8>> {
        let mut datagram = vec![0u8; IPV6_HEADER + icmp.len()];
        let header = Ipv6Header {
            traffic_class: 0,
            flow_label: 0,
            payload_len: icmp.len() as u16,
            next_header: NEXT_HEADER_ICMPV6,
            hop_limit: ICMP_HOP_LIMIT,
            src,
            dst,
        };
        if header.emit(&mut datagram).is_err() {
            self.stats.dropped += 1;
            return Vec::new();
        }
        datagram[IPV6_HEADER..].copy_from_slice(icmp);
        self.link_frames(node, next_hop, &datagram, max_payload)
    }

    /// The frames that carry `datagram` over the link to `next_hop`: a new
    /// datagram tag, compressed and fragmented (RFC 6282, RFC 4944), the
    /// frames counted; a datagram that cannot be fragmented is dropped.
    fn link_frames(
        &mut self,
        node: NodeId,
        next_hop: NodeId,
        datagram: &[u8],
        max_payload: usize,
    ) -> Vec<Vec<u8>> {
        self.tag = self.tag.wrapping_add(1);
        match fragment(
            datagram,
            &self.addressing.src(node, self.secured),
            &self.addressing.dst(next_hop),
            &self.ctx,
            self.tag,
            max_payload,
        ) {
            Ok(frames) => {
                self.stats.frames_out += frames.len() as u64;
                frames
            }
            Err(_) => {
                self.stats.dropped += 1;
                Vec::new()
            }
        }
    }

    /// `udp` as one compressed payload for the wired backbone link to
    /// `next_hop` (a border router): never fragmented, and not counted as
    /// a frame to the MAC (None if it cannot be built; counted dropped).
    pub fn backbone_payload(
        &mut self,
        node: NodeId,
        next_hop: NodeId,
        udp: &Udp,
    ) -> Option<Vec<u8>> {
        let frames_out = self.stats.frames_out;
        let payload = self.send(node, next_hop, usize::MAX, udp).pop();
        self.stats.frames_out = frames_out;
        payload
    }

    pub fn count_unroutable(&mut self) {
        self.stats.dropped += 1;
    }

    /// Whether a datagram cut into `fragments` frames may go to a MAC whose
    /// queue has room for `free` more (None: unbounded). As Contiki-NG's
    /// 6LoWPAN layer decides (os/net/ipv6/sicslowpan.c, `output`): a
    /// fragmented datagram is sent whole or not at all, and only if one
    /// buffer stays free besides its fragments; else it is dropped (and
    /// counted), since a datagram missing a fragment is lost anyway after
    /// its other fragments took their cells on every hop.
    pub fn admit(&mut self, fragments: usize, free: Option<usize>) -> bool {
        let fits = match free {
            Some(free) if fragments > 1 => free > fragments,
            _ => true,
        };
        if !fits {
            self.stats.dropped += 1;
        }
        fits
    }

    /// One MAC payload from the neighbour `from`.
    pub fn receive(&mut self, now: Time, from: NodeId, payload: &[u8]) -> NetInput {
        let accepted = self.reassembler.accept(
            now,
            &self.addressing.src(from, self.secured),
            &self.addressing.dst(self.node),
            &self.ctx,
            payload,
        );
        let datagram = match accepted {
            Ok(Reassembled::Complete(d)) => d,
            Ok(_) => return NetInput::Nothing,
            Err(_) => {
                self.stats.dropped += 1;
                return NetInput::Nothing;
            }
        };
        if let Ok(ip) = Ipv6Header::parse(&datagram) {
            if ip.next_header == NEXT_HEADER_ICMPV6 {
                return NetInput::Icmp(datagram[IPV6_HEADER..].to_vec());
            }
        }
        let Some((ip, udp)) = parse_udp(&datagram) else {
            self.stats.dropped += 1;
            return NetInput::Nothing;
        };
        let (Some((src, src_ll)), Some((dst, dst_ll))) =
            (node_and_scope(&ip.src), node_and_scope(&ip.dst))
        else {
            self.stats.dropped += 1;
            return NetInput::Nothing;
        };
        let link_local = src_ll && dst_ll;
        let udp = Udp {
            src,
            src_port: udp.src_port,
            dst,
            dst_port: udp.dst_port,
            hop_limit: ip.hop_limit,
            link_local,
            payload: datagram[IPV6_HEADER + UDP_HEADER..].to_vec(),
        };
        if src_ll != dst_ll {
            // a link-local address beside a global one: not ours to route
            self.stats.dropped += 1;
            NetInput::Nothing
        } else if dst == self.node {
            self.stats.datagrams_delivered += 1;
            NetInput::Deliver(udp)
        } else if ip.hop_limit > 1 && !link_local {
            self.stats.forwarded += 1;
            NetInput::Forward(Udp {
                hop_limit: ip.hop_limit - 1,
                ..udp
            })
        } else {
            self.stats.dropped += 1;
            NetInput::Nothing
        }
    }
}

fn parse_udp(datagram: &[u8]) -> Option<(Ipv6Header, UdpHeader)> {
    if !wpan::udp::verify_udp_checksum(datagram) {
        return None;
    }
    let ip = Ipv6Header::parse(datagram).ok()?;
    let udp = UdpHeader::parse(datagram.get(IPV6_HEADER..)?).ok()?;
    Some((ip, udp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip() {
        for n in [0, 1, 41, 999] {
            for addressing in [LinkAddressing::Short, LinkAddressing::Extended] {
                assert_eq!(node_of_address(&address(n, addressing)), Some(n));
            }
        }
        assert_eq!(
            address(0, LinkAddressing::Short).to_string(),
            "2001:db8::ff:fe00:1"
        );
        assert_eq!(
            address(0, LinkAddressing::Extended).to_string(),
            "2001:db8::12:4b00:0:1"
        );
    }

    /// The oracle firmware's frames (reference/cooja/README.md, "Frame
    /// lengths at two hops"): a 67-byte ClientHello record is a 98-byte
    /// frame on Cooja's air at one hop, the record plus 39 bytes from the
    /// client at two hops and plus 40 from the relay (hop limit inline),
    /// and a 3-hop route's middle relay, carrying both ends' 64-bit
    /// identifiers, cuts an 83-byte record into a FRAG1 and a FRAGN.
    #[test]
    fn contiki_frames_have_the_oracles_lengths() {
        use crate::channel::Airtime;
        use crate::mac::frame::addressed_frame;
        let ext = LinkAddressing::Extended;
        let cooja_bytes = |n: &mut Net, node, next_hop, udp: &Udp| -> Vec<u64> {
            let max = crate::mac::frame::max_data_payload(None, ext);
            n.send(node, next_hop, max, udp)
                .into_iter()
                .map(|p| Airtime::Cooja.of(&addressed_frame(ext, 0, node, next_hop, p)) / 32)
                .collect()
        };
        let net = |node| Net::with_link_addresses(node, 1, ext, false).carrying_cid(true);
        let hello = |src, dst, len| Udp::new(src, 30001, dst, 20220, vec![0x16; len]);
        assert_eq!(cooja_bytes(&mut net(0), 0, 1, &hello(0, 1, 67)), [98]);
        assert_eq!(cooja_bytes(&mut net(0), 0, 1, &hello(0, 2, 67)), [67 + 39]);
        let mut forwarded = hello(0, 2, 67);
        forwarded.hop_limit -= 1;
        assert_eq!(cooja_bytes(&mut net(1), 1, 2, &forwarded), [67 + 40]);
        let mut middle = hello(0, 3, 83);
        middle.hop_limit -= 1;
        let frames = cooja_bytes(&mut net(1), 1, 2, &middle);
        assert_eq!(frames.len(), 2, "{frames:?}");
        // without Contiki's addresses and context byte: one frame
        let mut short = Net::with_link_addresses(1, 1, LinkAddressing::Short, false);
        let max = crate::mac::frame::max_data_payload(None, LinkAddressing::Short);
        assert_eq!(short.send(1, 2, max, &middle).len(), 1);
    }

    #[test]
    fn first_hop_elides_addresses_and_forwarders_carry_the_source() {
        let udp = Udp {
            src: 0,
            src_port: 50000,
            dst: 2,
            dst_port: 5684,
            hop_limit: HOP_LIMIT,
            link_local: false,
            payload: vec![7; 20],
        };
        let mut a = Net::new(0, 60_000_000);
        let first = a.send(0, 1, 116, &udp);
        assert_eq!(first.len(), 1);
        // IPHC 2 (context 0; source IID from the MAC) + destination in 16
        // bits (it is not the next hop) + UDP NHC 7 + payload 20
        assert_eq!(first[0].len(), 2 + 2 + 7 + 20);
        let mut b = Net::new(1, 60_000_000);
        let NetInput::Forward(fwd) = b.receive(0, 0, &first[0]) else {
            panic!("node 1 should forward");
        };
        assert_eq!(
            fwd,
            Udp {
                hop_limit: 63,
                ..udp.clone()
            }
        );
        let second = b.send(1, 2, 116, &fwd);
        let mut c = Net::new(2, 60_000_000);
        assert_eq!(c.receive(0, 1, &second[0]), NetInput::Deliver(fwd));
        // the forwarder's frame carries the source in 16 bits and the hop
        // limit 63 inline, and elides the destination (now the next hop)
        assert_eq!(second[0].len(), 2 + 2 + 1 + 7 + 20);
    }

    /// RFC 6282 §3.1.1: a link-local address whose IID the frame's MAC
    /// address gives is elided (SAC/DAC 0, SAM/DAM 11), both ends; the
    /// same datagram to a global address two hops away carries the
    /// destination in 16 bits (context 0). A link-local datagram for
    /// another node is dropped, not forwarded.
    #[test]
    fn link_local_datagrams_elide_both_addresses_and_stay_on_the_link() {
        let ll = Udp::on_link(2, 49152, 1, 5683, vec![7; 20]);
        let mut a = Net::new(2, 60_000_000);
        let frames = a.send(2, 1, 116, &ll);
        assert_eq!(frames.len(), 1);
        // IPHC 2 + UDP NHC 7 (ports inline, checksum) + payload 20
        assert_eq!(frames[0].len(), 2 + 7 + 20);
        let mut b = Net::new(1, 60_000_000);
        assert_eq!(b.receive(0, 2, &frames[0]), NetInput::Deliver(ll.clone()));
        let global = Udp::new(2, 49152, 0, 5683, vec![7; 20]);
        assert_eq!(a.send(2, 1, 116, &global)[0].len(), 2 + 2 + 7 + 20);
        // a link-local datagram addressed to node 3 reaching node 1
        let stray = Udp::on_link(2, 49152, 3, 5683, vec![7; 20]);
        let f = a.send(2, 1, 116, &stray);
        let mut c = Net::new(1, 60_000_000);
        assert_eq!(c.receive(0, 2, &f[0]), NetInput::Nothing);
        assert_eq!(c.stats.dropped, 1);
        assert_eq!(c.stats.forwarded, 0);
        assert_eq!(
            node_port(&sockaddr_on_link(41, 5683)),
            (41, 5683),
            "link-local socket addresses name their node"
        );
        assert!(is_link_local(&sockaddr_on_link(41, 1)) && !is_link_local(&sockaddr(41, 1)));
        assert_eq!(ll.src_sockaddr(), sockaddr_on_link(2, 49152));
    }

    #[test]
    fn a_large_datagram_is_fragmented_and_reassembled() {
        let udp = Udp {
            src: 0,
            src_port: 50000,
            dst: 1,
            dst_port: 5684,
            hop_limit: HOP_LIMIT,
            link_local: false,
            payload: (0..300u16).map(|i| i as u8).collect(),
        };
        let frames = Net::new(0, 1).send(0, 1, 116, &udp);
        assert_eq!(frames.len(), 3);
        let mut rx = Net::new(1, 60_000_000);
        let mut out = NetInput::Nothing;
        for f in frames.iter().rev() {
            out = rx.receive(0, 0, f);
        }
        assert_eq!(out, NetInput::Deliver(udp));
    }

    #[test]
    fn a_contiki3_relay_holds_a_datagram_missing_its_last_fragment() {
        // two datagrams of two fragments each from node 0; the first's last
        // fragment is lost: Contiki 3.0's layer drops the second (hand
        // count: its 2 fragments refused) until 8 s after the first's first
        // fragment, then takes a third
        let udp = |b: u8| Udp {
            src: 0,
            src_port: 50000,
            dst: 2,
            dst_port: 5684,
            hop_limit: HOP_LIMIT,
            link_local: false,
            payload: vec![b; 150],
        };
        let mut tx = Net::new(0, 1);
        let first = tx.send(0, 1, 116, &udp(1));
        let second = tx.send(0, 1, 116, &udp(2));
        let third = tx.send(0, 1, 116, &udp(3));
        assert_eq!((first.len(), second.len(), third.len()), (2, 2, 2));
        let s = 1_000_000;
        let mut relay =
            Net::new(1, 60 * s).reassembling_as_contiki3(true, CONTIKI3_COOJA_REASS_MAXAGE_US);
        assert_eq!(relay.receive(0, 0, &first[0]), NetInput::Nothing);
        assert_eq!(relay.receive(2 * s, 0, &second[0]), NetInput::Nothing);
        assert_eq!(relay.receive(2 * s + 1, 0, &second[1]), NetInput::Nothing);
        assert_eq!(relay.receive(8 * s, 0, &third[0]), NetInput::Nothing);
        assert!(matches!(
            relay.receive(8 * s + 1, 0, &third[1]),
            NetInput::Forward(_)
        ));
        // RFC 4944's reassembler passes the second datagram at once
        let mut rfc = Net::new(1, 60 * s);
        rfc.receive(0, 0, &first[0]);
        rfc.receive(2 * s, 0, &second[0]);
        assert!(matches!(
            rfc.receive(2 * s + 1, 0, &second[1]),
            NetInput::Forward(_)
        ));
    }

    #[test]
    fn a_fragmented_datagram_goes_whole_with_a_buffer_to_spare_or_not_at_all() {
        let mut net = Net::new(1, 60_000_000);
        assert!(net.admit(3, None), "an unbounded queue takes anything");
        assert!(
            net.admit(1, Some(0)),
            "a single frame is the MAC's to refuse"
        );
        assert!(net.admit(3, Some(4)));
        assert!(!net.admit(3, Some(3)), "no buffer would be left over");
        assert_eq!(net.stats.dropped, 1);
    }

    #[test]
    fn garbage_is_dropped_and_counted() {
        let mut rx = Net::new(1, 60_000_000);
        assert_eq!(rx.receive(0, 0, &[0xff, 0x00, 0x13]), NetInput::Nothing);
        assert_eq!(rx.stats.dropped, 1);
    }
}
