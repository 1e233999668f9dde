//! 802.15.4 frames: hand-built byte strings for every frame kind and
//! addressing combination, round trips, the 2006 and 2015 PAN ID compression
//! rules, and errors (never panics) on malformed input.

use proptest::prelude::*;
use wpan::fcs;
use wpan::frame::{
    command_id, pan_id_presence, Address, Beacon, BeaconPayload, Body, BodyRef, Command, Frame,
    FrameType, FrameVersion, Layout, Repr, ReprRef, SuperframeSpec,
};
use wpan::ie::{HeaderIe, MlmeSubIe, PayloadIe};
use wpan::security::{KeyId, SecurityHeader, SecurityLevel};
use wpan::Error;

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The zero-copy view reads the same header fields as the owned parse.
fn view_agrees(bytes: &[u8], r: &Repr) {
    let f = Frame::new_checked(bytes).unwrap();
    assert_eq!(f.frame_type(), r.frame_type());
    assert_eq!(f.frame_version(), r.version);
    assert_eq!(f.frame_pending(), r.frame_pending);
    assert_eq!(f.ack_request(), r.ack_request);
    assert_eq!(f.security_enabled(), r.security.is_some());
    // The raw bit, not the Repr's choice: where both values of the bit give
    // the same PAN IDs (e.g. a 2015 frame without addresses) the Repr names
    // the first; the view reports what is on the wire, which must give the
    // same PAN IDs.
    let (d, s) = (r.dst_addr.mode(), r.src_addr.mode());
    assert_eq!(
        pan_id_presence(r.version, d, s, f.pan_id_compression()).ok(),
        Some((r.dst_pan.is_some(), r.src_pan.is_some()))
    );
    // IEs parsed imply the bit; the bit may also announce a list that holds
    // only its termination, which the Repr keeps no IE for.
    if !r.header_ies.is_empty() || !r.payload_ies.is_empty() {
        assert!(f.ie_present());
    }
    assert_eq!(f.sequence_number(), r.seq);
    assert_eq!(f.dst_pan_id(), r.dst_pan);
    assert_eq!(f.dst_addr(), r.dst_addr);
    assert_eq!(f.src_pan_id(), r.src_pan);
    assert_eq!(f.src_addr(), r.src_addr);
    assert_eq!(f.security_header().unwrap().map(|(h, _)| h), r.security);
    match (&r.body, f.payload_without_ies()) {
        (_, None) => assert!(f.ie_present()),
        (Body::Data(p) | Body::Ack(p) | Body::EnhancedBeacon(p), Some(v)) => assert_eq!(v, &p[..]),
        (Body::Command(c), Some(v)) => {
            assert_eq!(v[0], c.id);
            assert_eq!(&v[1..], &c.content[..]);
        }
        (Body::Beacon(b), Some(v)) => assert!(v.ends_with(&b.payload)),
    }
}

fn check(bytes: &[u8], expect: &Repr) {
    let parsed = Repr::parse(bytes).unwrap();
    assert_eq!(&parsed, expect);
    view_agrees(bytes, expect);
    assert_eq!(expect.buffer_len(), bytes.len());
    assert_eq!(expect.to_bytes().unwrap(), bytes);
    for cut in 0..bytes.len() {
        // every strict prefix is either an error or (for variable-length
        // bodies) a different frame — never a panic
        let _ = Repr::parse(&bytes[..cut]);
        if let Ok(f) = Frame::new_checked(&bytes[..cut]) {
            let _ = (f.dst_addr(), f.src_addr(), f.payload_without_ies());
        }
    }
}

#[test]
fn view_reads_a_data_frame_for_another_node_in_place() {
    // FC 0x9841: data, PAN ID compression, dst short, 2006, src short (no AR)
    let b = hex("41 98 07 cd ab 02 00 01 00 01 01");
    let f = Frame::new_checked(&b[..]).unwrap();
    assert_eq!(f.frame_control(), 0x9841);
    assert_eq!(f.frame_type(), FrameType::Data);
    assert_eq!(f.frame_version(), FrameVersion::V2006);
    assert!(!f.ack_request() && !f.security_enabled() && f.pan_id_compression());
    assert_eq!(f.sequence_number(), Some(7));
    assert_eq!(f.dst_pan_id(), Some(0xabcd));
    assert_eq!(f.dst_addr(), Address::Short(2));
    assert_eq!(f.src_pan_id(), None);
    assert_eq!(f.src_addr(), Address::Short(1));
    assert_eq!(f.addressing_len(), 9);
    assert_eq!(f.payload_without_ies(), Some(&[0x01, 0x01][..]));
    assert_eq!(f.into_inner(), &b[..]);
}

#[test]
fn view_refuses_what_the_parser_refuses() {
    for bad in [
        "41 84 01 cd ab 02 00 01", // addressing mode 1
        "41 b8 01 cd ab 02 00",    // frame version 3
        "05 00 01",                // multipurpose frame
        "41 99 cd ab 02 00 01 00", // seq suppression in 2006
        "41 cc 01 cd ab 02 00",    // truncated addresses
        "02 18 56 cd ab 01 00",    // Imm-Ack with addressing
        "41",
        "",
    ] {
        let b = hex(bad);
        assert_eq!(
            Frame::new_checked(&b[..]).map(|_| ()),
            Repr::parse(&b).map(|_| ()),
            "{bad}"
        );
    }
}

#[test]
fn imm_ack() {
    // FC 0x1002: Ack, frame version 2006
    let b = hex("02 10 56");
    let r = Repr::parse(&b).unwrap();
    assert_eq!(r.version, FrameVersion::V2006);
    assert_eq!(r.seq, Some(0x56));
    assert_eq!(r.body, Body::Ack(vec![]));
    check(&b, &Repr::imm_ack(0x56, false));
    check(&hex("12 10 07"), &Repr::imm_ack(7, true));
    // 2003 Imm-Ack
    let r = Repr::parse(&hex("02 00 01")).unwrap();
    assert_eq!(r.version, FrameVersion::V2003);
    // trailing bytes are not an Imm-Ack
    assert!(Repr::parse(&hex("02 10 56 00")).is_err());
    // an Imm-Ack with addressing is malformed
    assert!(matches!(
        Repr::parse(&hex("02 18 56 cd ab 01 00")),
        Err(Error::BadAddressing(_))
    ));
}

#[test]
fn data_short_short_pan_compressed() {
    // FC 0x9861: data, AR, PAN ID compression, dst short, 2006, src short
    let b = hex("61 98 2a cd ab 02 00 01 00 de ad be ef");
    let r = Repr::data(
        0x2a,
        0xabcd,
        Address::Short(2),
        Address::Short(1),
        hex("de ad be ef"),
    );
    check(&b, &r);
}

#[test]
fn data_all_addressing_combinations_2006() {
    let modes = [
        Address::Absent,
        Address::Short(0x1234),
        Address::Extended(0x0102_0304_0506_0708),
    ];
    for dst in modes {
        for src in modes {
            for compress in [false, true] {
                let d = !dst.is_absent();
                let s = !src.is_absent();
                if compress && !(d && s) {
                    continue;
                }
                let r = Repr {
                    version: FrameVersion::V2006,
                    frame_pending: false,
                    ack_request: false,
                    seq: Some(1),
                    dst_pan: d.then_some(0x1111),
                    dst_addr: dst,
                    src_pan: (s && !compress).then_some(0x2222),
                    src_addr: src,
                    security: None,
                    header_ies: vec![],
                    payload_ies: vec![],
                    body: Body::Data(vec![0xaa]),
                };
                let b = r.to_bytes().unwrap();
                assert_eq!(b[0] & 0x40 != 0, compress, "{dst:?} {src:?}");
                assert_eq!(
                    b.len(),
                    3 + dst.wire_len()
                        + src.wire_len()
                        + 2 * usize::from(d)
                        + 2 * usize::from(s && !compress)
                        + 1
                );
                check(&b, &r);
            }
        }
    }
}

#[test]
fn pan_id_table_2015() {
    use FrameVersion::V2015;
    // Table 7-2 of IEEE 802.15.4-2015: (dst mode, src mode, compression) -> (dst PAN, src PAN)
    let table = [
        (0, 0, false, (false, false)),
        (0, 0, true, (true, false)),
        (2, 0, false, (true, false)),
        (3, 0, false, (true, false)),
        (2, 0, true, (false, false)),
        (3, 0, true, (false, false)),
        (0, 2, false, (false, true)),
        (0, 3, false, (false, true)),
        (0, 2, true, (false, false)),
        (0, 3, true, (false, false)),
        (3, 3, false, (true, false)),
        (3, 3, true, (false, false)),
        (2, 2, false, (true, true)),
        (2, 3, false, (true, true)),
        (3, 2, false, (true, true)),
        (2, 3, true, (true, false)),
        (3, 2, true, (true, false)),
        (2, 2, true, (true, false)),
    ];
    for (d, s, c, want) in table {
        assert_eq!(
            pan_id_presence(V2015, d, s, c).unwrap(),
            want,
            "{d} {s} {c}"
        );
    }
    // every row round-trips through a 2015 data frame
    let addr = |m| match m {
        0 => Address::Absent,
        2 => Address::Short(0x00aa),
        _ => Address::Extended(0x1122_3344_5566_7788),
    };
    for (d, s, c, (dp, sp)) in table {
        let r = Repr {
            version: V2015,
            frame_pending: false,
            ack_request: false,
            seq: Some(3),
            dst_pan: dp.then_some(0x0101),
            dst_addr: addr(d),
            src_pan: sp.then_some(0x0202),
            src_addr: addr(s),
            security: None,
            header_ies: vec![],
            payload_ies: vec![],
            body: Body::Data(vec![1, 2]),
        };
        let b = r.to_bytes().unwrap();
        assert_eq!(b[0] & 0x40 != 0, c);
        check(&b, &r);
    }
    // 2006: compression without both addresses is invalid
    assert!(pan_id_presence(FrameVersion::V2006, 2, 0, true).is_err());
    assert!(pan_id_presence(FrameVersion::V2006, 0, 0, true).is_err());
}

#[test]
fn impossible_pan_fields_are_refused() {
    let mut r = Repr::data(1, 1, Address::Short(1), Address::Short(2), vec![]);
    r.dst_pan = None; // 2006 needs a destination PAN with a destination address
    assert!(matches!(r.to_bytes(), Err(Error::BadAddressing(_))));
}

#[test]
fn beacon_bytes() {
    // 2006 beacon, src short 0x0000 in PAN 0xabcd: superframe BO=6 SO=3
    // final CAP 15, PAN coordinator, association permit; GTS 0; pending
    // 2 short + 1 extended; beacon payload 01 02
    let b = hex("00 90 09 cd ab 00 00 36 cf 00 12 01 00 02 00 02 00 00 00 00 4b 12 00 01 02");
    let beacon = Beacon {
        superframe: SuperframeSpec {
            beacon_order: 6,
            superframe_order: 3,
            final_cap_slot: 15,
            battery_life_extension: false,
            pan_coordinator: true,
            association_permit: true,
        },
        gts_permit: false,
        pending_short: vec![1, 2],
        pending_ext: vec![0x0012_4b00_0000_0002],
        payload: vec![1, 2],
    };
    let r = Repr::beacon(9, 0xabcd, Address::Short(0), beacon);
    check(&b, &r);
    // GTS descriptors are refused explicitly
    let mut g = b.clone();
    g[9] = 0x01;
    assert_eq!(
        Repr::parse(&g),
        Err(Error::Unsupported("GTS descriptors in beacons"))
    );
    // pending list longer than the frame
    let mut p = b.clone();
    p[10] = 0x77;
    assert!(matches!(Repr::parse(&p), Err(Error::Truncated { .. })));
}

#[test]
fn beacon_and_command_payloads_on_their_own() {
    // the MAC payload of `beacon_bytes`'s beacon: superframe 0xcf36, GTS 0,
    // pending 2 short + 1 extended, beacon payload 01 02
    let b = hex("36 cf 00 12 01 00 02 00 02 00 00 00 00 4b 12 00 01 02");
    let view = BeaconPayload::new_checked(&b[..]).unwrap();
    assert_eq!(view.superframe().to_bits(), 0xcf36);
    assert!(!view.gts_permit());
    assert_eq!(view.pending_short().collect::<Vec<_>>(), [1, 2]);
    assert_eq!(
        view.pending_ext().collect::<Vec<_>>(),
        [0x0012_4b00_0000_0002]
    );
    assert_eq!(view.open_len(), 16);
    assert_eq!(view.payload(), [1, 2]);
    let beacon = Beacon::parse(&b).unwrap();
    assert_eq!(beacon.buffer_len(), b.len());
    let mut out = vec![0u8; b.len()];
    assert_eq!(beacon.emit(&mut out), Ok(b.len()));
    assert_eq!(out, b);
    assert!(beacon.emit(&mut out[..b.len() - 1]).is_err());
    for cut in 0..16 {
        assert!(BeaconPayload::new_checked(&b[..cut]).is_err());
    }
    let too_many = Beacon {
        pending_short: vec![0; 8],
        ..beacon
    };
    assert!(matches!(
        too_many.emit(&mut [0u8; 64]),
        Err(Error::TooLong { max: 7, .. })
    ));

    let c = Command::parse(&[command_id::BEACON_REQUEST, 9]).unwrap();
    assert_eq!(
        (c.id, &c.content[..]),
        (command_id::BEACON_REQUEST, &[9][..])
    );
    let mut out = [0u8; 2];
    assert_eq!(c.emit(&mut out), Ok(c.buffer_len()));
    assert_eq!(out, [command_id::BEACON_REQUEST, 9]);
    assert!(Command::parse(&[]).is_err());
}

#[test]
fn data_request_bytes() {
    // FC 0xd863: command, AR, PAN compression, dst short, 2006, src extended
    let b = hex("63 d8 03 cd ab 00 00 01 00 00 00 00 4b 12 00 04");
    let r = Repr::data_request(
        3,
        0xabcd,
        Address::Short(0),
        Address::Extended(0x0012_4b00_0000_0001),
    );
    check(&b, &r);
    assert_eq!(
        Repr::parse(&b).unwrap().body,
        Body::Command(Command {
            id: command_id::DATA_REQUEST,
            content: vec![]
        })
    );
    // a command frame without identifier
    assert!(Repr::parse(&b[..15]).is_err());
}

#[test]
fn beacon_of_a_cluster_head_as_the_simulator_sends_it() {
    // 802.15.4-2006 §7.2.2.1: FC 0x9000 (beacon, version 2006, no
    // destination, short source), BSN 0x05, source PAN 0xabcd, source 0x0002;
    // superframe spec 0x0f26 (BO 6, SO 2, final CAP slot 15, not the PAN
    // coordinator, no association permit); GTS spec 0 (no descriptors, no
    // GTS directions or list); pending address spec 0x01 (one short
    // address) and the address 0x0001; no beacon payload.
    let b = hex("00 90 05 cd ab 02 00 26 0f 00 01 01 00");
    let beacon = Beacon {
        superframe: SuperframeSpec {
            beacon_order: 6,
            superframe_order: 2,
            final_cap_slot: 15,
            battery_life_extension: false,
            pan_coordinator: false,
            association_permit: false,
        },
        gts_permit: false,
        pending_short: vec![1],
        pending_ext: vec![],
        payload: vec![],
    };
    check(
        &b,
        &Repr::beacon(5, 0xabcd, Address::Short(2), beacon.clone()),
    );
    // the PAN coordinator bit is bit 14; battery life extension bit 12
    let coordinator = SuperframeSpec {
        pan_coordinator: true,
        battery_life_extension: true,
        ..beacon.superframe
    };
    assert_eq!(coordinator.to_bits(), 0x5f26);
    assert_eq!(SuperframeSpec::from_bits(0x5f26), coordinator);
    // no pending addresses: the pending address specification is 0
    let empty = Beacon {
        pending_short: vec![],
        ..beacon
    };
    check(
        &hex("00 90 05 cd ab 02 00 26 0f 00 00"),
        &Repr::beacon(5, 0xabcd, Address::Short(2), empty),
    );
}

#[test]
fn data_request_with_short_addresses_and_its_ack() {
    // §7.3.4: FC 0x9863 (command, AR, PAN ID compression, short
    // destination, version 2006, short source); seq 0x11; PAN 0xabcd;
    // destination 0x0002 (the coordinator), source 0x0001; command 0x04.
    let b = hex("63 98 11 cd ab 02 00 01 00 04");
    check(
        &b,
        &Repr::data_request(0x11, 0xabcd, Address::Short(2), Address::Short(1)),
    );
    // its acknowledgement with the frame pending bit (FC 0x1012: version 2006)
    check(&hex("12 10 11"), &Repr::imm_ack(0x11, true));
    check(&hex("02 10 11"), &Repr::imm_ack(0x11, false));
}

#[test]
fn enh_ack_with_a_csl_ie_bytes() {
    // A Thread 1.2 CSL receiver's Enh-Ack to short address 0x0001, seq 0x2a.
    // FC 0x2a42: Ack (2), PAN ID compression (bit 6), IE present (bit 9),
    // dst short (2 << 10), version 2015 (2 << 12), no source. The CSL IE:
    // descriptor length 4 | id 0x1a << 7 = 0x0d04, phase 616 = 0x0268,
    // period 3,125 = 0x0c35; no payload, so no header termination: 11
    // bytes, 13 with the FCS.
    let b = hex("42 2a 2a 01 00 04 0d 68 02 35 0c");
    let r = Repr::enh_ack_with(
        0x2a,
        Address::Short(0x0001),
        false,
        vec![HeaderIe::csl(616, 3_125)],
    );
    check(&b, &r);
    assert_eq!(r.to_bytes_with_fcs().unwrap().len(), 13);
    assert_eq!(
        Repr::parse(&b).unwrap().header_ies[0].csl_fields(),
        Some((616, 3_125))
    );
    // without IEs (what a parent answers a CSL child with): 5 bytes, 7 with
    // the FCS; FC 0x2842 (no IE present bit); frame pending sets bit 4
    let b = hex("52 28 07 01 00");
    check(
        &b,
        &Repr::enh_ack_with(7, Address::Short(1), true, Vec::new()),
    );
}

#[test]
fn enh_ack_bytes() {
    // FC 0x2e42: Ack, IE present, dst ext, version 2015, PAN ID compression;
    // time correction IE -100 µs
    let b = hex("42 2e 2a 01 00 00 00 00 4b 12 00 02 0f 9c 0f");
    let r = Repr::enh_ack(0x2a, Address::Extended(0x0012_4b00_0000_0001), -100, false);
    check(&b, &r);
    let r2 = Repr::parse(&b).unwrap();
    assert_eq!(
        r2.header_ies,
        vec![HeaderIe::TimeCorrection {
            correction_us: -100,
            nack: false
        }]
    );
    // with sequence number suppression
    let mut s = r.clone();
    s.seq = None;
    let bs = s.to_bytes().unwrap();
    assert_eq!(bs[1] & 0x01, 0x01);
    assert_eq!(bs.len(), b.len() - 1);
    check(&bs, &s);
    // with a payload: HT2 is inserted
    let mut p = r.clone();
    p.body = Body::Ack(vec![0xab]);
    let bp = p.to_bytes().unwrap();
    assert_eq!(&bp[bp.len() - 3..], &[0x80, 0x3f, 0xab]);
    check(&bp, &p);
}

#[test]
fn enhanced_beacon_round_trip() {
    let eb = Repr::enhanced_beacon(
        1,
        0xabcd,
        0x0012_4b00_0000_0003,
        vec![PayloadIe::Mlme(vec![
            MlmeSubIe::TschSync {
                asn: 12345,
                join_metric: 0,
            },
            MlmeSubIe::TschTimeslot { template_id: 0 },
        ])],
    );
    let b = eb.to_bytes().unwrap();
    // HT1 after the (empty) header IE list
    let l = Layout::parse(&b).unwrap();
    assert_eq!(&b[l.header_len - 2..l.header_len], &[0x00, 0x3f]);
    check(&b, &eb);
    // with a beacon payload the payload termination IE is added
    let mut p = eb.clone();
    p.body = Body::EnhancedBeacon(vec![9, 9]);
    let bp = p.to_bytes().unwrap();
    assert_eq!(&bp[bp.len() - 4..], &[0x00, 0xf8, 9, 9]);
    check(&bp, &p);
}

#[test]
fn secured_frame_header_lengths() {
    for (key_id, n) in [
        (KeyId::Implicit, 5),
        (KeyId::Index(1), 6),
        (
            KeyId::Source4 {
                source: [0; 4],
                index: 1,
            },
            10,
        ),
        (
            KeyId::Source8 {
                source: [0; 8],
                index: 1,
            },
            14,
        ),
    ] {
        let mut r = Repr::data(1, 1, Address::Short(1), Address::Short(2), vec![1, 2, 3]);
        let plain = r.buffer_len();
        r.security = Some(SecurityHeader::new(SecurityLevel::EncMic64, key_id, 77));
        assert_eq!(r.buffer_len(), plain + n);
        assert_eq!(r.psdu_len(), plain + n + 8 + 2);
        let b = r.to_bytes().unwrap();
        assert_eq!(b[0] & 0x08, 0x08);
        check(&b, &r);
        let l = Layout::parse(&b).unwrap();
        assert_eq!(l.aux_offset, Some(plain - 3));
        assert_eq!(l.header_len, plain - 3 + n);
    }
}

#[test]
fn malformed_frames() {
    // reserved addressing mode 1
    assert!(matches!(
        Repr::parse(&hex("41 84 01 cd ab 02 00 01")),
        Err(Error::BadValue { .. })
    ));
    // frame version 3
    assert!(Repr::parse(&hex("41 b8 01 cd ab 02 00")).is_err());
    // multipurpose frame type
    assert!(matches!(
        Repr::parse(&hex("05 00 01")),
        Err(Error::Unsupported(_))
    ));
    // seq suppression in a 2006 frame
    assert!(Repr::parse(&hex("41 99 cd ab 02 00 01 00")).is_err());
    // truncated addresses
    assert!(matches!(
        Repr::parse(&hex("41 cc 01 cd ab 02 00")),
        Err(Error::Truncated { .. })
    ));
    assert!(Repr::parse(&[]).is_err());
    assert!(Repr::parse(&[0x41]).is_err());
    // FCS
    let good = fcs::with_fcs(&hex("41 88 01 cd ab 02 00 01 00"));
    assert!(Repr::parse_with_fcs(&good).is_ok());
    let mut bad = good.clone();
    bad[4] ^= 0x80;
    assert!(matches!(
        Repr::parse_with_fcs(&bad),
        Err(Error::BadFcs { .. })
    ));
}

fn arb_addr() -> impl Strategy<Value = Address> {
    prop_oneof![
        Just(Address::Absent),
        any::<u16>().prop_map(Address::Short),
        any::<u64>().prop_map(Address::Extended),
    ]
}

fn arb_security() -> impl Strategy<Value = Option<SecurityHeader>> {
    prop_oneof![
        Just(None),
        (0u8..8, 0u8..4, any::<u32>(), any::<u8>(), any::<[u8; 8]>()).prop_map(
            |(l, m, fc, idx, src)| {
                let key_id = match m {
                    0 => KeyId::Implicit,
                    1 => KeyId::Index(idx),
                    2 => KeyId::Source4 {
                        source: [src[0], src[1], src[2], src[3]],
                        index: idx,
                    },
                    _ => KeyId::Source8 {
                        source: src,
                        index: idx,
                    },
                };
                Some(SecurityHeader::new(SecurityLevel::from_bits(l), key_id, fc))
            }
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Random bytes and random truncations never make any parser panic.
    #[test]
    fn parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..140), cut in 0usize..140) {
        let b = &bytes[..cut.min(bytes.len())];
        match Repr::parse(b) {
            Ok(r) => view_agrees(b, &r),
            Err(_) => {
                if let Ok(f) = Frame::new_checked(b) {
                    let _ = (f.dst_addr(), f.src_addr(), f.security_header(), f.payload_without_ies());
                }
            }
        }
        let _ = Repr::parse_with_fcs(b);
        let _ = Layout::parse(b);
        let _ = Beacon::parse(b);
        let _ = Command::parse(b);
        let _ = SecurityHeader::parse(b);
        let _ = HeaderIe::parse_list(b);
        let _ = PayloadIe::parse_list(b);
        let key = wpan::ccm_star::Key::new(&[0u8; 16]);
        let ns = wpan::ccm_star::NonceSource { src_ext: Some(1), asn: Some(2) };
        let mut v = b.to_vec();
        let _ = wpan::ccm_star::unsecure_frame(&mut v, &key, ns);
        let mut v = b.to_vec();
        let _ = wpan::ccm_star::secure_frame(&mut v, &key, ns);
    }

    /// Frames with a valid frame control but random rest never panic either
    /// (random bytes rarely get past the frame control).
    #[test]
    fn parsers_never_panic_on_plausible_headers(
        fc in prop::sample::select(vec![0x8841u16, 0xcc41, 0xdc69, 0xd008, 0xc863, 0x2e02, 0x2202, 0xe200, 0xee41, 0x2e09, 0xea41]),
        rest in proptest::collection::vec(any::<u8>(), 0..60),
    ) {
        let mut b = fc.to_le_bytes().to_vec();
        b.extend_from_slice(&rest);
        if let Ok(r) = Repr::parse(&b) {
            // whatever parses re-emits to something that parses the same
            if let Ok(again) = r.to_bytes() {
                prop_assert_eq!(Repr::parse(&again).unwrap(), r);
            }
        }
        let _ = Layout::parse(&b);
    }

    /// Data frames: Repr -> bytes -> Repr is the identity (2006 and 2015).
    #[test]
    fn data_frame_round_trip(
        v2015 in any::<bool>(),
        dst in arb_addr(), src in arb_addr(),
        dpan in any::<u16>(), span in any::<u16>(),
        compress in any::<bool>(),
        seq in proptest::option::of(any::<u8>()),
        sec in arb_security(),
        tc in proptest::option::of((-2048i16..2048, any::<bool>())),
        payload in proptest::collection::vec(any::<u8>(), 0..40),
        pending in any::<bool>(), ar in any::<bool>(),
    ) {
        let version = if v2015 { FrameVersion::V2015 } else { FrameVersion::V2006 };
        let (dp, sp) = match pan_id_presence(version, dst.mode(), src.mode(), compress) {
            Ok(x) => x,
            Err(_) => return Ok(()),
        };
        let r = Repr {
            version,
            frame_pending: pending,
            ack_request: ar,
            seq: if v2015 { seq } else { Some(seq.unwrap_or(0)) },
            dst_pan: dp.then_some(dpan),
            dst_addr: dst,
            src_pan: sp.then_some(span),
            src_addr: src,
            security: sec,
            header_ies: match (v2015, tc) {
                (true, Some((c, n))) => vec![HeaderIe::TimeCorrection { correction_us: c, nack: n }],
                _ => vec![],
            },
            payload_ies: vec![],
            body: Body::Data(payload),
        };
        let b = r.to_bytes().unwrap();
        prop_assert_eq!(b.len(), r.buffer_len());
        // the borrowed parse: the same fields, the body a slice of the frame itself
        let borrowed = ReprRef::parse(&b).unwrap();
        let Body::Data(payload) = &r.body else { unreachable!() };
        prop_assert_eq!(borrowed.body, BodyRef::Data(payload));
        let BodyRef::Data(body) = borrowed.body else { unreachable!() };
        prop_assert_eq!(body.as_ptr_range().end, b.as_ptr_range().end);
        prop_assert_eq!((borrowed.seq, borrowed.dst_addr, borrowed.src_addr), (r.seq, r.dst_addr, r.src_addr));
        prop_assert_eq!(borrowed.security, r.security);
        prop_assert_eq!(Repr::parse(&b).unwrap(), r.clone());
        view_agrees(&b, &r);
        let with = fcs::with_fcs(&b);
        prop_assert_eq!(Repr::parse_with_fcs(&with).unwrap(), r);
    }
}
