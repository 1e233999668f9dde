//! 6LoWPAN: IPHC/UDP NHC sizes and bytes for the standard cases,
//! compression round trips over every address/TF/HLIM/port form, the UDP
//! checksum, and FRAG1/FRAGN fragmentation and reassembly (in order, out of
//! order, with duplicates, overlaps and timeouts).

use std::net::Ipv6Addr;

use proptest::prelude::*;
use wpan::fragment::{self, FragHeader, Reassembled, Reassembler, FRAG1_LEN, FRAGN_LEN};
use wpan::frame::Address;
use wpan::sixlowpan::{
    self, compress, compress_headers, decompress, link_local, uncompressed, Contexts, IphcRepr,
    NextHeader, UdpNhc,
};
use wpan::udp::{build_udp_datagram, ones_complement_words, verify_udp_checksum};

const A: Address = Address::Extended(0x0012_4b00_0000_0001);
const B: Address = Address::Extended(0x0012_4b00_0000_0002);

fn ll(a: &Address) -> Ipv6Addr {
    link_local(a).unwrap()
}

#[test]
fn link_local_addresses_from_mac() {
    assert_eq!(
        link_local(&Address::Short(0x1234)).unwrap(),
        "fe80::ff:fe00:1234".parse::<Ipv6Addr>().unwrap()
    );
    assert_eq!(
        link_local(&A).unwrap(),
        "fe80::212:4b00:0:1".parse::<Ipv6Addr>().unwrap()
    );
    assert!(link_local(&Address::Absent).is_none());
}

#[test]
fn standard_sizes_link_local_iphc_2_udp_nhc_7() {
    let d = build_udp_datagram(ll(&A), ll(&B), 64, 49152, 5684, b"hello").unwrap();
    assert!(verify_udp_checksum(&d));
    let h = compress_headers(&d, &A, &B, &Contexts::none()).unwrap();
    assert_eq!(h.consumed, 48);
    assert_eq!(h.bytes.len(), 2 + 7);
    // IPHC: TF=11 NH=1 HLIM=10 | SAM=11 DAM=11 ; NHC: ports inline, checksum inline
    let c = u16::from_be_bytes([d[46], d[47]]).to_be_bytes();
    assert_eq!(
        h.bytes,
        vec![0x7e, 0x33, 0xf0, 0xc0, 0x00, 0x16, 0x34, c[0], c[1]]
    );
    // short addresses: the same 2 bytes
    let (s, t) = (Address::Short(1), Address::Short(2));
    let d2 = build_udp_datagram(ll(&s), ll(&t), 64, 0xf0b1, 0xf0b2, b"x").unwrap();
    let h2 = compress_headers(&d2, &s, &t, &Contexts::none()).unwrap();
    assert_eq!(h2.bytes.len(), 2 + 1 + 1 + 2, "4-bit ports: NHC is 4 bytes");
    assert_eq!(&h2.bytes[..4], &[0x7e, 0x33, 0xf3, 0x12]);
    // 8-bit destination port
    let d3 = build_udp_datagram(ll(&s), ll(&t), 64, 5684, 0xf012, b"x").unwrap();
    let h3 = compress_headers(&d3, &s, &t, &Contexts::none()).unwrap();
    assert_eq!(&h3.bytes[2..6], &[0xf1, 0x16, 0x34, 0x12]);
    assert_eq!(h3.bytes.len(), 2 + 6);
    // without UDP: 2 bytes + inline next header
    let mut d4 = d.clone();
    d4[6] = 59;
    let h4 = compress_headers(&d4, &A, &B, &Contexts::none()).unwrap();
    assert_eq!(h4.bytes, vec![0x7a, 0x33, 59]);
    assert_eq!(h4.consumed, 40);
    assert_eq!(
        decompress(
            &compress(&d4, &A, &B, &Contexts::none()).unwrap(),
            &A,
            &B,
            &Contexts::none()
        )
        .unwrap(),
        d4
    );
}

#[test]
fn uncompressed_dispatch() {
    let d = build_udp_datagram(ll(&A), ll(&B), 7, 1, 2, b"payload").unwrap();
    let p = uncompressed(&d);
    assert_eq!(p[0], 0x41);
    assert_eq!(p.len(), d.len() + 1);
    assert_eq!(decompress(&p, &A, &B, &Contexts::none()).unwrap(), d);
}

#[test]
fn elided_checksum_is_recomputed() {
    let d = build_udp_datagram(ll(&A), ll(&B), 64, 49152, 5684, b"abcdef").unwrap();
    let repr = IphcRepr {
        src: ll(&A),
        dst: ll(&B),
        traffic_class: 0,
        flow_label: 0,
        hop_limit: 64,
        next: NextHeader::Udp(UdpNhc {
            src_port: 49152,
            dst_port: 5684,
            checksum: None,
        }),
    };
    let ctx = Contexts::none();
    let mut p = vec![0u8; repr.buffer_len(&A, &B, &ctx)];
    assert_eq!(p.len(), 2 + 5);
    repr.emit(&mut p, &A, &B, &ctx).unwrap();
    p.extend_from_slice(b"abcdef");
    assert_eq!(decompress(&p, &A, &B, &ctx).unwrap(), d);
}

#[test]
fn context_based_compression() {
    let prefix = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0];
    let ctx = Contexts::with_context0(prefix);
    let g = |iid: [u8; 8]| {
        let mut a = [0u8; 16];
        a[..8].copy_from_slice(&prefix);
        a[8..].copy_from_slice(&iid);
        Ipv6Addr::from(a)
    };
    let src = g(sixlowpan::iid_from_ll(&A).unwrap());
    let dst = g([0, 0, 0, 0xff, 0xfe, 0, 0x12, 0x34]);
    let d = build_udp_datagram(src, dst, 64, 1000, 2000, b"x").unwrap();
    let p = compress(&d, &A, &B, &ctx).unwrap();
    // SAC=1 SAM=11, DAC=1 DAM=10 (16 bits inline)
    assert_eq!(p[1], 0x40 | 0x30 | 0x04 | 0x02);
    assert_eq!(decompress(&p, &A, &B, &ctx).unwrap(), d);
    // without the context the receiver cannot decompress
    assert!(decompress(&p, &A, &B, &Contexts::none()).is_err());
    // context 3: CID extension byte
    let mut ctx3 = Contexts::none();
    ctx3.prefixes[3] = Some(prefix);
    let p3 = compress(&d, &A, &B, &ctx3).unwrap();
    assert_eq!(p3[1] & 0x80, 0x80);
    assert_eq!(p3[2], 0x33);
    assert_eq!(decompress(&p3, &A, &B, &ctx3).unwrap(), d);
}

/// Contiki 2.7/3.0 write the context identifier byte even for context 0
/// (sicslowpan.c `compress_hdr_hc06`): the oracle's one-hop frames start
/// IPHC 7e f7 00 (TF elided, UDP NHC, hop limit 64; CID, SAC, SAM 11; DAC,
/// DAM 11; SCI|DCI 00) where dtlsim's own stack writes 7e 77.
#[test]
fn contiki_carries_the_context_byte_for_context_0() {
    let prefix = [0xaa, 0xaa, 0, 0, 0, 0, 0, 0];
    let g = |ll: &Address| {
        let mut a = [0u8; 16];
        a[..8].copy_from_slice(&prefix);
        a[8..].copy_from_slice(&sixlowpan::iid_from_ll(ll).unwrap());
        Ipv6Addr::from(a)
    };
    let d = build_udp_datagram(g(&A), g(&B), 64, 20220, 30001, b"x").unwrap();
    let plain = Contexts::with_context0(prefix);
    let contiki = Contexts::with_context0(prefix).carrying_cid(true);
    let p = compress(&d, &A, &B, &plain).unwrap();
    let q = compress(&d, &A, &B, &contiki).unwrap();
    assert_eq!(p[..2], [0x7e, 0x77]);
    assert_eq!(q[..3], [0x7e, 0xf7, 0x00]);
    assert_eq!(q.len(), p.len() + 1);
    assert_eq!(q[3..], p[2..]);
    // either form decompresses with either setting
    for c in [&plain, &contiki] {
        assert_eq!(decompress(&p, &A, &B, c).unwrap(), d);
        assert_eq!(decompress(&q, &A, &B, c).unwrap(), d);
    }
    // nothing compressed by a context: no byte
    let ll_only = build_udp_datagram(ll(&A), ll(&B), 64, 20220, 30001, b"x").unwrap();
    assert_eq!(
        compress(&ll_only, &A, &B, &contiki).unwrap(),
        compress(&ll_only, &A, &B, &plain).unwrap()
    );
}

#[test]
fn truncated_iphc_is_an_error() {
    let d = build_udp_datagram(
        "2001:db8::1".parse().unwrap(),
        "ff05::1:3".parse().unwrap(),
        3,
        5683,
        5684,
        b"",
    )
    .unwrap();
    let p = compress(&d, &A, &B, &Contexts::none()).unwrap();
    for cut in 0..p.len() {
        assert!(
            decompress(&p[..cut], &A, &B, &Contexts::none()).is_err(),
            "prefix of {cut} bytes accepted"
        );
    }
}

fn arb_addr(ll: Address) -> impl Strategy<Value = Ipv6Addr> {
    let ll_addr = link_local(&ll).unwrap();
    prop_oneof![
        Just(ll_addr),
        any::<u16>().prop_map(|s| link_local(&Address::Short(s)).unwrap()),
        any::<u64>().prop_map(|iid| {
            let mut a = [0u8; 16];
            a[0] = 0xfe;
            a[1] = 0x80;
            a[8..].copy_from_slice(&iid.to_be_bytes());
            Ipv6Addr::from(a)
        }),
        any::<u64>().prop_map(|iid| {
            let mut a = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
            a[8..].copy_from_slice(&iid.to_be_bytes());
            Ipv6Addr::from(a)
        }),
        any::<[u8; 16]>().prop_map(Ipv6Addr::from),
    ]
}

fn arb_multicast() -> impl Strategy<Value = Ipv6Addr> {
    prop_oneof![
        any::<u8>().prop_map(|x| Ipv6Addr::new(0xff02, 0, 0, 0, 0, 0, 0, u16::from(x))),
        (any::<u8>(), any::<u32>()).prop_map(|(f, g)| {
            let mut a = [0u8; 16];
            a[0] = 0xff;
            a[1] = f;
            a[13..].copy_from_slice(&g.to_be_bytes()[1..]);
            Ipv6Addr::from(a)
        }),
        (any::<u8>(), any::<u64>()).prop_map(|(f, g)| {
            let mut a = [0u8; 16];
            a[0] = 0xff;
            a[1] = f;
            a[11..].copy_from_slice(&g.to_be_bytes()[3..]);
            Ipv6Addr::from(a)
        }),
        any::<[u8; 14]>().prop_map(|r| {
            let mut a = [0xffu8; 16];
            a[2..].copy_from_slice(&r);
            Ipv6Addr::from(a)
        }),
    ]
}

fn arb_port() -> impl Strategy<Value = u16> {
    prop_oneof![
        any::<u16>(),
        (0u16..16).prop_map(|p| 0xf0b0 | p),
        any::<u8>().prop_map(|p| 0xf000 | u16::from(p)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// compress -> decompress is the identity for every address form, TF,
    /// hop limit and port compression.
    #[test]
    fn iphc_round_trip(
        src in prop_oneof![arb_addr(A), Just(Ipv6Addr::UNSPECIFIED)],
        dst in prop_oneof![arb_addr(B), arb_multicast()],
        tc in prop_oneof![Just(0u8), any::<u8>(), (0u8..4)],
        fl in prop_oneof![Just(0u32), 0u32..0x100000],
        hl in prop_oneof![Just(1u8), Just(64), Just(255), any::<u8>()],
        sp in arb_port(), dp in arb_port(),
        udp in any::<bool>(),
        use_ctx in any::<bool>(),
        payload in proptest::collection::vec(any::<u8>(), 0..50),
    ) {
        let ctx = if use_ctx { Contexts::with_context0([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0]) } else { Contexts::none() };
        let mut d = build_udp_datagram(src, dst, hl, sp, dp, &payload).unwrap();
        // traffic class and flow label
        let w = (6u32 << 28) | (u32::from(tc) << 20) | fl;
        d[..4].copy_from_slice(&w.to_be_bytes());
        if !udp {
            d[6] = 253; // experimental next header: carried inline
        }
        let p = compress(&d, &A, &B, &ctx).unwrap();
        prop_assert!(p.len() <= d.len() + 7);
        prop_assert_eq!(decompress(&p, &A, &B, &ctx).unwrap(), d.clone());
        if udp {
            prop_assert!(verify_udp_checksum(&d));
        }
    }

    /// Fragment any datagram and reassemble it from the fragments shuffled,
    /// with duplicates.
    #[test]
    fn fragment_and_reassemble_shuffled(
        len in 0usize..1200,
        max_payload in 40usize..110,
        seed in any::<u64>(),
        tag in any::<u16>(),
        dups in 0usize..4,
    ) {
        let payload: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
        let d = build_udp_datagram(ll(&A), ll(&B), 64, 49152, 5684, &payload).unwrap();
        let ctx = Contexts::none();
        let frags = fragment::fragment(&d, &A, &B, &ctx, tag, max_payload).unwrap();
        for f in &frags {
            prop_assert!(f.len() <= max_payload);
        }
        if frags.len() > 1 {
            for f in &frags[1..] {
                let (h, _) = FragHeader::parse(f).unwrap();
                prop_assert_eq!(usize::from(h.size()), d.len());
                prop_assert_eq!(h.tag(), tag);
            }
        }
        // shuffle deterministically and add duplicates
        let mut order: Vec<usize> = (0..frags.len()).collect();
        let mut x = seed | 1;
        for i in (1..order.len()).rev() {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            order.swap(i, (x % (i as u64 + 1)) as usize);
        }
        for k in 0..dups.min(frags.len()) {
            order.insert((k * 3) % (order.len() + 1), order[k]);
        }
        let mut r = Reassembler::default();
        // (a duplicate arriving after completion starts a new datagram, as
        // RFC 4944 implies; an unfragmented duplicate is delivered again:
        // duplicate suppression of whole frames is the MAC's job)
        let mut completions = 0;
        for (n, &i) in order.iter().enumerate() {
            match r.accept(n as u64, &A, &B, &ctx, &frags[i]).unwrap() {
                Reassembled::Complete(v) => {
                    prop_assert_eq!(&v, &d);
                    completions += 1;
                }
                Reassembled::Incomplete | Reassembled::Duplicate => {}
                // only a single-datagram reassembler refuses fragments
                Reassembled::Refused => prop_assert!(false, "refused"),
            }
        }
        prop_assert!(completions >= 1);
        if dups == 0 {
            prop_assert_eq!(completions, 1);
            prop_assert_eq!(r.pending(), 0);
        }
    }

    /// Random bytes never panic the 6LoWPAN parsers or the reassembler.
    #[test]
    fn sixlowpan_parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..130), cut in 0usize..130) {
        let b = &bytes[..cut.min(bytes.len())];
        let ctx = Contexts::with_context0([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0]);
        let _ = IphcRepr::parse(b, &A, &B, &ctx);
        let _ = decompress(b, &A, &B, &ctx);
        let _ = sixlowpan::decompress_headers(b, &A, &Address::Absent, &ctx, Some(3));
        let _ = FragHeader::parse(b);
        let mut r = Reassembler::default();
        let _ = r.accept(0, &A, &B, &ctx, b);
        let mut with_frag1 = vec![0xc0, 0x50, 0x00, 0x01];
        with_frag1.extend_from_slice(b);
        let _ = r.accept(1, &A, &B, &ctx, &with_frag1);
        let mut with_fragn = vec![0xe0, 0x50, 0x00, 0x01, b.first().copied().unwrap_or(0)];
        with_fragn.extend_from_slice(b);
        let _ = r.accept(2, &A, &B, &ctx, &with_fragn);
    }
}

#[test]
fn fragment_header_bytes() {
    let mut b = [0u8; 5];
    assert_eq!(
        FragHeader::First {
            size: 0x123,
            tag: 0xbeef
        }
        .emit(&mut b)
        .unwrap(),
        FRAG1_LEN
    );
    assert_eq!(&b[..4], &[0xc1, 0x23, 0xbe, 0xef]);
    let h = FragHeader::Next {
        size: 0x123,
        tag: 0xbeef,
        offset: 12,
    };
    assert_eq!(h.emit(&mut b).unwrap(), FRAGN_LEN);
    assert_eq!(b, [0xe1, 0x23, 0xbe, 0xef, 0x0c]);
    assert_eq!(FragHeader::parse(&b).unwrap(), (h, 5));
    assert!(FragHeader::parse(&b[..4]).is_err());
    assert!(FragHeader::First { size: 2048, tag: 0 }
        .emit(&mut b)
        .is_err());
}

fn two_fragments() -> (Vec<u8>, Vec<Vec<u8>>) {
    let payload = vec![0x42u8; 100];
    let d = build_udp_datagram(ll(&A), ll(&B), 64, 49152, 5684, &payload).unwrap();
    let f = fragment::fragment(&d, &A, &B, &Contexts::none(), 7, 80).unwrap();
    (d, f)
}

#[test]
fn fragmentation_layout() {
    let (d, f) = two_fragments();
    assert_eq!(d.len(), 148);
    assert_eq!(f.len(), 2);
    // FRAG1: 4 + IPHC/NHC 9 + payload so that 48 + k is a multiple of 8
    let k = f[0].len() - 4 - 9;
    assert_eq!((48 + k) % 8, 0);
    assert!(f[0].len() <= 80 && f[0].len() > 80 - 8);
    let (h, _) = FragHeader::parse(&f[1]).unwrap();
    assert_eq!(
        h,
        FragHeader::Next {
            size: 148,
            tag: 7,
            offset: ((48 + k) / 8) as u8
        }
    );
    assert_eq!(f[1].len(), 5 + 148 - (48 + k));
    // a datagram that fits is not fragmented
    let small = fragment::fragment(&d, &A, &B, &Contexts::none(), 7, 200).unwrap();
    assert_eq!(small.len(), 1);
    assert_eq!(small[0][0] & 0xe0, 0x60);
    // headers that cannot fit the first fragment
    assert!(fragment::fragment(&d, &A, &B, &Contexts::none(), 7, 12).is_err());
}

#[test]
fn reassembly_in_order_and_reverse() {
    let (d, f) = two_fragments();
    let ctx = Contexts::none();
    let mut r = Reassembler::default();
    assert_eq!(
        r.accept(0, &A, &B, &ctx, &f[0]).unwrap(),
        Reassembled::Incomplete
    );
    assert_eq!(
        r.accept(1, &A, &B, &ctx, &f[1]).unwrap(),
        Reassembled::Complete(d.clone())
    );
    assert_eq!(
        r.accept(2, &A, &B, &ctx, &f[1]).unwrap(),
        Reassembled::Incomplete
    );
    assert_eq!(
        r.accept(3, &A, &B, &ctx, &f[0]).unwrap(),
        Reassembled::Complete(d)
    );
    assert_eq!(r.stats.completed, 2);
}

#[test]
fn reassembly_keyed_by_addresses_and_tag() {
    let (d, f) = two_fragments();
    let ctx = Contexts::none();
    let mut r = Reassembler::default();
    let c = Address::Short(9);
    r.accept(0, &A, &B, &ctx, &f[0]).unwrap();
    // same tag from another sender is another datagram
    assert_eq!(
        r.accept(1, &c, &B, &ctx, &f[1]).unwrap(),
        Reassembled::Incomplete
    );
    assert_eq!(r.pending(), 2);
    assert_eq!(
        r.accept(2, &A, &B, &ctx, &f[1]).unwrap(),
        Reassembled::Complete(d)
    );
    assert_eq!(r.pending(), 1);
}

#[test]
fn reassembly_duplicates_overlaps_timeouts() {
    let (d, f) = two_fragments();
    let ctx = Contexts::none();
    // duplicate
    let mut r = Reassembler::default();
    r.accept(0, &A, &B, &ctx, &f[0]).unwrap();
    assert_eq!(
        r.accept(1, &A, &B, &ctx, &f[0]).unwrap(),
        Reassembled::Duplicate
    );
    assert_eq!(r.stats.duplicates, 1);
    assert_eq!(
        r.accept(2, &A, &B, &ctx, &f[1]).unwrap(),
        Reassembled::Complete(d.clone())
    );

    // overlapping fragment with different extent: buffer flushed, restart
    let mut r = Reassembler::default();
    r.accept(0, &A, &B, &ctx, &f[1]).unwrap();
    let mut overlap = f[1].clone();
    overlap[4] -= 1; // 8 bytes earlier, overlapping
    assert_eq!(
        r.accept(1, &A, &B, &ctx, &overlap).unwrap(),
        Reassembled::Incomplete
    );
    assert_eq!(r.stats.overlaps, 1);
    // the original fragment again conflicts with the new one: flush again
    r.accept(2, &A, &B, &ctx, &f[1]).unwrap();
    assert_eq!(r.stats.overlaps, 2);
    assert_eq!(
        r.accept(3, &A, &B, &ctx, &f[0]).unwrap(),
        Reassembled::Complete(d.clone())
    );

    // timeout: the first fragment expires 60 s later
    let mut r = Reassembler::new(60_000_000, 4);
    r.accept(0, &A, &B, &ctx, &f[0]).unwrap();
    assert_eq!(r.next_timeout(), Some(60_000_000));
    assert_eq!(
        r.accept(60_000_000, &A, &B, &ctx, &f[1]).unwrap(),
        Reassembled::Incomplete
    );
    assert_eq!(r.stats.timeouts, 1);
    r.expire(200_000_000);
    assert_eq!(r.pending(), 0);

    // fragment beyond the datagram size
    let mut bad = f[1].clone();
    bad[4] = 200;
    assert!(Reassembler::default()
        .accept(0, &A, &B, &ctx, &bad)
        .is_err());

    // table full: the oldest datagram is evicted
    let mut r = Reassembler::new(60_000_000, 1);
    r.accept(0, &A, &B, &ctx, &f[0]).unwrap();
    r.accept(1, &Address::Short(5), &B, &ctx, &f[0]).unwrap();
    assert_eq!(r.stats.evicted, 1);
    assert_eq!(
        r.accept(2, &A, &B, &ctx, &f[1]).unwrap(),
        Reassembled::Incomplete
    );
}

#[test]
fn an_ipv6_header_claiming_more_or_less_than_it_carries_is_refused() {
    // Found by fuzzing (fuzz/corpus/wpan_sixlowpan/regression-ipv6-payload-length):
    // an uncompressed IPv6 dispatch passed a header whose payload length
    // disagreed with the bytes after it (RFC 8200 §3: the payload length is
    // the rest of the packet)
    let good = build_udp_datagram(ll(&A), ll(&B), 64, 5684, 5684, b"hello").unwrap();
    for payload_len in [0u16, 12, 14, 200] {
        let mut d = good.clone();
        d[4..6].copy_from_slice(&payload_len.to_be_bytes());
        let mut lowpan = vec![0x41]; // IPv6 dispatch (RFC 4944 §5.1)
        lowpan.extend_from_slice(&d);
        assert!(
            decompress(&lowpan, &A, &B, &Contexts::default()).is_err(),
            "{payload_len}"
        );
        let mut r = Reassembler::new(1_000_000, 4);
        let got = r.accept(0, &A, &B, &Contexts::default(), &lowpan);
        assert!(got.is_err(), "{payload_len}: {got:?}");
    }
    let mut lowpan = vec![0x41];
    lowpan.extend_from_slice(&good);
    assert_eq!(
        decompress(&lowpan, &A, &B, &Contexts::default()).unwrap(),
        good
    );
}

/// The Internet checksum's sum as RFC 1071 defines it: 16-bit big-endian
/// words, an odd last byte padded, folded to 16 bits.
fn folded_by_halfwords(b: &[u8]) -> u64 {
    let mut sum: u64 = b
        .chunks(2)
        .map(|c| u64::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum
}

fn fold(mut sum: u64) -> u64 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum
}

#[test]
fn the_sum_by_32_bit_words_folds_to_the_16_bit_sum_at_the_edges() {
    // all ones (a sum that is a multiple of 0xffff stays 0xffff, never 0),
    // all zeros, and every length's odd tail
    for len in 0..12 {
        for b in [0x00u8, 0xff, 0x80, 0x01] {
            let v = vec![b; len];
            assert_eq!(
                fold(ones_complement_words(&v)),
                folded_by_halfwords(&v),
                "{len} x {b:#x}"
            );
        }
    }
}

proptest! {
    #[test]
    fn the_sum_by_32_bit_words_folds_to_the_16_bit_sum(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        prop_assert_eq!(fold(ones_complement_words(&bytes)), folded_by_halfwords(&bytes));
    }
}

/// The same datagram fragmented with another tag (a later datagram of the
/// same size from the same sender).
fn two_fragments_tagged(tag: u16) -> Vec<Vec<u8>> {
    let payload = vec![0x42u8; 100];
    let d = build_udp_datagram(ll(&A), ll(&B), 64, 49152, 5684, &payload).unwrap();
    fragment::fragment(&d, &A, &B, &Contexts::none(), tag, 80).unwrap()
}

#[test]
fn contiki3_reassembles_one_datagram_at_a_time() {
    // The sequence a relay of the Cooja oracle saw (reference/cooja/README.md,
    // "Fragments held at a relay"): a datagram's first fragment, its last
    // fragment lost, then the sender's next datagrams, 2 s and 6 s later,
    // both fragments of each received; Contiki 3.0 (sicslowpan.c `input`)
    // drops all four, and the next datagram after 8 s passes.
    let (d, f) = two_fragments();
    let ctx = Contexts::none();
    let s = 1_000_000;
    let mut r = Reassembler::contiki3(8 * s);
    assert_eq!(
        r.accept(0, &A, &B, &ctx, &f[0]).unwrap(),
        Reassembled::Incomplete
    );
    for (at, tag) in [(2 * s, 8), (6 * s, 9)] {
        let g = two_fragments_tagged(tag);
        assert_eq!(
            r.accept(at, &A, &B, &ctx, &g[0]).unwrap(),
            Reassembled::Refused
        );
        assert_eq!(
            r.accept(at + 1, &A, &B, &ctx, &g[1]).unwrap(),
            Reassembled::Refused
        );
    }
    assert_eq!(r.stats.refused, 4);
    // 8 s after the first fragment the datagram under way is given up
    let g = two_fragments_tagged(10);
    assert_eq!(
        r.accept(8 * s, &A, &B, &ctx, &g[0]).unwrap(),
        Reassembled::Incomplete
    );
    assert_eq!(r.stats.timeouts, 1);
    assert_eq!(
        r.accept(8 * s + 1, &A, &B, &ctx, &g[1]).unwrap(),
        Reassembled::Complete(d.clone())
    );

    // a last fragment with nothing under way is dropped, not kept
    let mut r = Reassembler::contiki3(8 * s);
    assert_eq!(
        r.accept(0, &A, &B, &ctx, &f[1]).unwrap(),
        Reassembled::Refused
    );
    assert_eq!(r.pending(), 0);

    // a first fragment from another sender replaces the datagram under way
    let mut r = Reassembler::contiki3(8 * s);
    let c = Address::Short(9);
    r.accept(0, &c, &B, &ctx, &f[0]).unwrap();
    assert_eq!(
        r.accept(1, &A, &B, &ctx, &f[0]).unwrap(),
        Reassembled::Incomplete
    );
    assert_eq!(
        r.accept(2, &A, &B, &ctx, &f[1]).unwrap(),
        Reassembled::Complete(d.clone())
    );

    // so does an unfragmented packet
    let mut r = Reassembler::contiki3(8 * s);
    r.accept(0, &A, &B, &ctx, &f[0]).unwrap();
    let small = build_udp_datagram(ll(&A), ll(&B), 64, 49152, 5684, b"hi").unwrap();
    let one = fragment::fragment(&small, &A, &B, &Contexts::none(), 11, 200).unwrap();
    assert_eq!(
        r.accept(1, &A, &B, &ctx, &one[0]).unwrap(),
        Reassembled::Complete(small)
    );
    assert_eq!(r.pending(), 0);
    let g = two_fragments_tagged(12);
    assert_eq!(
        r.accept(2, &A, &B, &ctx, &g[0]).unwrap(),
        Reassembled::Incomplete
    );
    assert_eq!(
        r.accept(3, &A, &B, &ctx, &g[1]).unwrap(),
        Reassembled::Complete(d)
    );
}

#[test]
fn the_default_reassembler_keeps_each_datagram_apart() {
    // the same sequence with RFC 4944's reassembler: the later datagrams pass
    let (d, f) = two_fragments();
    let ctx = Contexts::none();
    let mut r = Reassembler::default();
    r.accept(0, &A, &B, &ctx, &f[0]).unwrap();
    let g = two_fragments_tagged(8);
    r.accept(2_000_000, &A, &B, &ctx, &g[0]).unwrap();
    assert_eq!(
        r.accept(2_000_001, &A, &B, &ctx, &g[1]).unwrap(),
        Reassembled::Complete(d)
    );
}
