//! Interop with tshark (Wireshark 4.0 on Debian 12): the frames this crate
//! writes must dissect as real 802.15.4 / 6LoWPAN / IPv6 / UDP / DTLS, with a
//! good FCS, reassembled fragments and link-layer decryption.

mod common;

use std::path::PathBuf;
use std::process::Command as Proc;

use common::*;
use wpan::ccm_star::{self, NonceSource};
use wpan::fcs;
use wpan::fragment;
use wpan::frame::{Address, Beacon, Repr, SuperframeSpec};
use wpan::pcap::PcapWriter;
use wpan::security::{KeyId, SecurityHeader, SecurityLevel};
use wpan::sixlowpan::{self, Contexts};

fn have_tshark() -> bool {
    let ok = Proc::new("tshark").arg("--version").output().is_ok();
    if !ok {
        if std::env::var("DTLSIM_REQUIRE_PEERS").as_deref() == Ok("1") {
            panic!("tshark is not on PATH (DTLSIM_REQUIRE_PEERS=1); scripts/setup.sh installs it");
        }
        eprintln!("\n\n!!!!!!!! SKIPPED: tshark is not on PATH; the tshark interop tests did not run !!!!!!!!\n");
    }
    ok
}

fn pcap_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("dtlsim-wpan-{}-{}.pcap", name, std::process::id()))
}

/// Write frames (with FCS) at 1 ms intervals.
fn write_pcap(name: &str, frames: &[Vec<u8>]) -> PathBuf {
    let path = pcap_path(name);
    let f = std::fs::File::create(&path).unwrap();
    let mut w = PcapWriter::new(std::io::BufWriter::new(f)).unwrap();
    for (i, fr) in frames.iter().enumerate() {
        w.write_frame(1_000_000 + 1000 * i as u64, fr).unwrap();
    }
    w.into_inner().unwrap();
    path
}

/// Run tshark on `path` and return one row of fields per frame.
fn tshark_fields(path: &PathBuf, extra: &[&str], fields: &[&str]) -> Vec<Vec<String>> {
    let mut cmd = Proc::new("tshark");
    cmd.arg("-r").arg(path).args(extra).args(["-T", "fields"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("run tshark");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    if std::env::var("WPAN_TSHARK_DEBUG").is_ok() {
        let mut v = Proc::new("tshark");
        v.arg("-r").arg(path).args(extra).arg("-V");
        let o = v.output().unwrap();
        eprintln!("{}", String::from_utf8_lossy(&o.stdout));
    }
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn data_frame_with_dtls(seq: u8, record: &[u8]) -> Repr {
    data_frame_with_dtls_to(seq, Address::Extended(NODE_B), record)
}

fn data_frame_with_dtls_to(seq: u8, dst: Address, record: &[u8]) -> Repr {
    let src = Address::Extended(NODE_A);
    let dgram = udp_datagram(&src, &dst, record);
    let payload = sixlowpan::compress(&dgram, &src, &dst, &Contexts::none()).unwrap();
    Repr::data(seq, PAN, dst, src, payload)
}

#[test]
fn a_unsecured_data_frame_dissects_to_dtls() {
    if !have_tshark() {
        return;
    }
    let f = data_frame_with_dtls(1, &dtls_client_hello(0, 0));
    let bytes = f.to_bytes_with_fcs().unwrap();
    assert!(bytes.len() <= 127);
    let p = write_pcap("a", &[bytes]);
    let rows = tshark_fields(
        &p,
        &["-o", "udp.check_checksum:TRUE"],
        &[
            "frame.protocols",
            "wpan.fcs_ok",
            "udp.dstport",
            "dtls.record.content_type",
            "dtls.record.version",
            "dtls.handshake.type",
            "udp.checksum.status",
            "ipv6.src",
        ],
    );
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r[0], "wpan:6lowpan:ipv6:udp:dtls");
    assert_eq!(r[1], "1", "FCS must be valid");
    assert_eq!(r[2], "5684");
    assert_eq!(r[3], "22");
    assert_eq!(r[4], "0xfefd");
    assert_eq!(r[5], "1");
    assert_eq!(r[6], "1", "UDP checksum must verify (1 = good)");
    assert_eq!(r[7], "fe80::212:4b00:0:1");
    let _ = std::fs::remove_file(&p);
}

#[test]
fn b_two_fragment_datagram_is_reassembled() {
    if !have_tshark() {
        return;
    }
    let src = Address::Extended(NODE_A);
    let dst = Address::Extended(NODE_B);
    let record = dtls_client_hello(1, 60);
    let dgram = udp_datagram(&src, &dst, &record);
    let template = Repr::data(7, PAN, dst, src, Vec::new());
    let max_payload = template.max_body_len();
    assert_eq!(max_payload, 127 - 2 - 1 - 2 - 8 - 8 - 2);
    let frags =
        fragment::fragment(&dgram, &src, &dst, &Contexts::none(), 0x1234, max_payload).unwrap();
    assert_eq!(frags.len(), 2);
    let frames: Vec<Vec<u8>> = frags
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let f = Repr::data(7 + i as u8, PAN, dst, src, p);
            let b = f.to_bytes_with_fcs().unwrap();
            assert!(b.len() <= 127);
            b
        })
        .collect();
    let p = write_pcap("b", &frames);
    let rows = tshark_fields(
        &p,
        &["-o", "udp.check_checksum:TRUE"],
        &[
            "frame.protocols",
            "wpan.fcs_ok",
            "6lowpan.frag.size",
            "6lowpan.reassembled.length",
            "dtls.handshake.type",
            "udp.checksum.status",
            "ipv6.plen",
        ],
    );
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][1], "1");
    assert_eq!(rows[1][1], "1");
    assert_eq!(rows[0][2], dgram.len().to_string());
    assert!(
        !rows[0][0].contains("dtls"),
        "first fragment alone: {:?}",
        rows[0]
    );
    assert_eq!(rows[1][0], "wpan:6lowpan:ipv6:udp:dtls");
    assert_eq!(rows[1][3], dgram.len().to_string());
    assert_eq!(rows[1][4], "1");
    assert_eq!(rows[1][5], "1");
    assert_eq!(rows[1][6], (dgram.len() - 40).to_string());
    let _ = std::fs::remove_file(&p);
}

#[test]
fn c_beacon_with_superframe_and_pending_addresses() {
    if !have_tshark() {
        return;
    }
    let b = Beacon {
        superframe: SuperframeSpec {
            beacon_order: 6,
            superframe_order: 3,
            final_cap_slot: 15,
            battery_life_extension: false,
            pan_coordinator: true,
            association_permit: true,
        },
        gts_permit: false,
        pending_short: vec![0x0001, 0x0002],
        pending_ext: vec![NODE_B],
        payload: vec![],
    };
    let f = Repr::beacon(9, PAN, Address::Short(0x0000), b);
    let p = write_pcap("c", &[f.to_bytes_with_fcs().unwrap()]);
    let rows = tshark_fields(
        &p,
        &[],
        &[
            "frame.protocols",
            "wpan.fcs_ok",
            "wpan.beacon_order",
            "wpan.superframe_order",
            "wpan.cap",
            "wpan.bcn_coord",
            "wpan.assoc_permit",
            "wpan.pending16",
            "wpan.pending64",
            "wpan.gts.count",
            "wpan.src_pan",
            "wpan.src16",
        ],
    );
    let r = &rows[0];
    assert_eq!(r[0], "wpan");
    assert_eq!(r[1], "1");
    assert_eq!(r[2], "6");
    assert_eq!(r[3], "3");
    assert_eq!(r[4], "15");
    assert_eq!(r[5], "1");
    assert_eq!(r[6], "1");
    assert_eq!(r[7], "0x0001,0x0002");
    assert_eq!(r[8], "00:12:4b:00:00:00:00:02");
    assert_eq!(r[9], "0");
    assert_eq!(r[10], "0xabcd");
    assert_eq!(r[11], "0x0000");
    let _ = std::fs::remove_file(&p);
}

#[test]
fn d_data_request_command() {
    if !have_tshark() {
        return;
    }
    let f = Repr::data_request(3, PAN, Address::Short(0x0000), Address::Extended(NODE_A));
    let p = write_pcap("d", &[f.to_bytes_with_fcs().unwrap()]);
    let rows = tshark_fields(
        &p,
        &[],
        &[
            "frame.protocols",
            "wpan.fcs_ok",
            "wpan.cmd",
            "wpan.dst16",
            "wpan.src64",
            "wpan.ack_request",
        ],
    );
    let r = &rows[0];
    assert_eq!(r[0], "wpan");
    assert_eq!(r[1], "1");
    assert_eq!(r[2], "0x04");
    assert_eq!(r[3], "0x0000");
    assert_eq!(r[4], "00:12:4b:00:00:00:00:01");
    assert_eq!(r[5], "1");
    let _ = std::fs::remove_file(&p);
}

fn key_uat(key: &[u8; 16], index: u8) -> String {
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    format!("uat:ieee802154_keys:\"{hex}\",\"{index}\",\"No hash\"")
}

#[test]
fn e_secured_frames_are_decrypted_by_tshark() {
    if !have_tshark() {
        return;
    }
    let key = ccm_star::Key::new(&KEY);
    let key_ids = [
        KeyId::Index(1),
        KeyId::Source4 {
            source: [0x01, 0x02, 0x03, 0x04],
            index: 1,
        },
        KeyId::Source8 {
            source: [1, 2, 3, 4, 5, 6, 7, 8],
            index: 1,
        },
    ];
    let mut frames = Vec::new();
    let mut expect = Vec::new();
    let mut fc = 100u32;
    for level in SecurityLevel::ALL.into_iter().skip(1) {
        for key_id in key_ids {
            // short destination, extended source (the nonce's address is in the frame)
            let mut f = data_frame_with_dtls_to(
                fc as u8,
                Address::Short(0x0002),
                &dtls_client_hello(u64::from(fc), 0),
            );
            f.security = Some(SecurityHeader::new(level, key_id, fc));
            let mut mpdu = f.to_bytes().unwrap();
            let plain = mpdu.clone();
            let rep = ccm_star::secure_frame(&mut mpdu, &key, NonceSource::FROM_FRAME).unwrap();
            assert_eq!(rep.mic_len, level.mic_len());
            assert_eq!(mpdu.len(), plain.len() + level.mic_len());
            if level.encrypts() {
                assert_ne!(mpdu[..plain.len()], plain[..], "payload must be encrypted");
            }
            fcs::append(&mut mpdu);
            assert!(mpdu.len() <= 127, "{} bytes", mpdu.len());
            frames.push(mpdu);
            expect.push((level, key_id));
            fc += 1;
        }
    }
    // and a secured data request command (command identifier stays open)
    let mut cmd = Repr::data_request(77, PAN, Address::Short(0), Address::Extended(NODE_A));
    cmd.security = Some(SecurityHeader::new(
        SecurityLevel::EncMic32,
        KeyId::Index(1),
        500,
    ));
    let mut mpdu = cmd.to_bytes().unwrap();
    ccm_star::secure_frame(&mut mpdu, &key, NonceSource::FROM_FRAME).unwrap();
    fcs::append(&mut mpdu);
    frames.push(mpdu);

    let p = write_pcap("e", &frames);
    let fields = [
        "frame.protocols",
        "wpan.fcs_ok",
        "wpan.aux_sec.sec_level",
        "wpan.aux_sec.key_id_mode",
        "dtls.handshake.type",
        "wpan.decrypt_error",
        "wpan.cmd",
    ];
    let rows = tshark_fields(&p, &["-o", &key_uat(&KEY, 1)], &fields);
    assert_eq!(rows.len(), frames.len());
    for (r, (level, key_id)) in rows.iter().zip(&expect) {
        let what = format!("level {level:?} key id mode {}: {r:?}", key_id.mode());
        assert_eq!(r[0], "wpan:6lowpan:ipv6:udp:dtls", "{what}");
        assert_eq!(r[1], "1", "{what}");
        assert_eq!(r[2], format!("0x{:02x}", level.bits()), "{what}");
        assert_eq!(r[3], format!("0x{:02x}", key_id.mode()), "{what}");
        assert_eq!(r[4], "1", "{what}");
        assert_eq!(r[5], "", "{what}");
    }
    let last = rows.last().unwrap();
    assert_eq!(last[1], "1");
    assert_eq!(last[6], "0x04");
    assert_eq!(last[5], "", "command frame must authenticate: {last:?}");

    // With a wrong key tshark fails on every frame, the MIC-only levels
    // included: so above it really verified our MICs.
    let mut wrong = KEY;
    wrong[0] ^= 0xff;
    let rows = tshark_fields(&p, &["-o", &key_uat(&wrong, 1)], &fields);
    // (ENC alone has no MIC: garbage is all tshark can show.)
    let levels = expect
        .iter()
        .map(|(l, _)| *l)
        .chain([SecurityLevel::EncMic32]);
    assert_eq!(rows.len(), frames.len());
    for (r, level) in rows.iter().zip(levels) {
        if level.mic_len() > 0 {
            assert!(
                !r[0].contains("6lowpan"),
                "accepted with a wrong key? {r:?}"
            );
            assert_eq!(r[5], "1", "no decryption error with a wrong key? {r:?}");
        } else {
            assert!(!r[0].contains("dtls"), "decrypted with a wrong key? {r:?}");
        }
    }
    let _ = std::fs::remove_file(&p);
}

#[test]
fn f_enhanced_ack_with_time_correction_and_enhanced_beacon() {
    if !have_tshark() {
        return;
    }
    use wpan::ie::{Link, MlmeSubIe, PayloadIe, Slotframe};
    let ack = Repr::enh_ack(42, Address::Extended(NODE_A), -100, false);
    let eb = Repr::enhanced_beacon(
        5,
        PAN,
        NODE_B,
        vec![PayloadIe::Mlme(vec![
            MlmeSubIe::TschSync {
                asn: 0x00_0001_0203,
                join_metric: 1,
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
        ])],
    );
    let p = write_pcap(
        "f",
        &[
            ack.to_bytes_with_fcs().unwrap(),
            eb.to_bytes_with_fcs().unwrap(),
        ],
    );
    let rows = tshark_fields(
        &p,
        &[],
        &[
            "frame.protocols",
            "wpan.fcs_ok",
            "wpan.frame_type",
            "wpan.version",
            "wpan.header_ie.time_correction.value",
            "wpan.seq_no",
            "wpan.dst64",
            "wpan.tsch.asn",
            "wpan.tsch.hopping_sequence_id",
            "_ws.expert.message",
        ],
    );
    let r = &rows[0];
    assert_eq!(r[1], "1", "{r:?}");
    assert_eq!(r[2], "0x0002", "{r:?}");
    assert_eq!(r[3], "2", "{r:?}");
    assert_eq!(r[4], "-100", "{r:?}");
    assert_eq!(r[5], "42", "{r:?}");
    assert_eq!(r[6], "00:12:4b:00:00:00:00:01", "{r:?}");
    assert_eq!(r[9], "", "no expert info expected: {r:?}");
    let r = &rows[1];
    assert_eq!(r[1], "1", "{r:?}");
    assert_eq!(r[2], "0x0000", "{r:?}");
    assert_eq!(r[3], "2", "{r:?}");
    assert_eq!(r[7], "66051", "{r:?}");
    assert_eq!(r[8], "0x00", "{r:?}");
    assert_eq!(r[9], "", "no expert info expected: {r:?}");
    let _ = std::fs::remove_file(&p);
}

#[test]
fn g_secured_2015_frames_with_ies_are_authenticated_by_tshark() {
    if !have_tshark() {
        return;
    }
    use wpan::frame::FrameVersion;
    use wpan::ie::HeaderIe;
    let key = ccm_star::Key::new(&KEY);
    let mut frames = Vec::new();
    // 2015 data frame with a header IE (CSL-like, id 0x1a) before the
    // payload: HT2 inserted, header IEs authenticated, payload encrypted.
    let mut d = data_frame_with_dtls_to(1, Address::Short(2), &dtls_client_hello(5, 0));
    d.version = FrameVersion::V2015;
    d.header_ies = vec![HeaderIe::Other {
        id: 0x1a,
        content: vec![0x10, 0x00, 0x20, 0x00],
    }];
    d.security = Some(SecurityHeader::new(
        SecurityLevel::EncMic32,
        KeyId::Index(1),
        9,
    ));
    // 2015 data request: the Command ID is private in 2015 frames
    let mut c = Repr::data_request(2, PAN, Address::Short(0), Address::Extended(NODE_A));
    c.version = FrameVersion::V2015;
    c.security = Some(SecurityHeader::new(
        SecurityLevel::EncMic64,
        KeyId::Index(1),
        10,
    ));
    // secured Enh-Ack (MIC-32) with the time correction IE
    let mut a = Repr::enh_ack(3, Address::Extended(NODE_B), 50, false);
    a.src_addr = Address::Extended(NODE_A);
    a.security = Some(SecurityHeader::new(
        SecurityLevel::Mic32,
        KeyId::Index(1),
        11,
    ));
    for r in [d, c, a] {
        let mut b = r.to_bytes().unwrap();
        ccm_star::secure_frame(&mut b, &key, NonceSource::FROM_FRAME).unwrap();
        let mut plain = b.clone();
        ccm_star::unsecure_frame(&mut plain, &key, NonceSource::FROM_FRAME).unwrap();
        assert_eq!(Repr::parse(&plain).unwrap(), r);
        fcs::append(&mut b);
        assert!(b.len() <= 127);
        frames.push(b);
    }
    let p = write_pcap("g", &frames);
    let fields = [
        "frame.protocols",
        "wpan.fcs_ok",
        "wpan.decrypt_error",
        "wpan.cmd",
        "wpan.header_ie.id",
        "wpan.header_ie.time_correction.value",
        "dtls.handshake.type",
    ];
    let rows = tshark_fields(&p, &["-o", &key_uat(&KEY, 1)], &fields);
    assert_eq!(rows[0][0], "wpan:6lowpan:ipv6:udp:dtls", "{:?}", rows[0]);
    assert_eq!(rows[0][4], "0x001a,0x007f", "{:?}", rows[0]);
    assert_eq!(rows[0][6], "1");
    assert_eq!(rows[1][3], "0x04", "{:?}", rows[1]);
    assert_eq!(rows[2][5], "50", "{:?}", rows[2]);
    for r in &rows {
        assert_eq!(r[1], "1", "{r:?}");
        assert_eq!(r[2], "", "{r:?}");
    }
    let mut wrong = KEY;
    wrong[15] ^= 1;
    for r in tshark_fields(&p, &["-o", &key_uat(&wrong, 1)], &fields) {
        assert_eq!(r[2], "1", "accepted with a wrong key: {r:?}");
    }
    let _ = std::fs::remove_file(&p);
}

#[test]
fn h_pan_id_compression_table_2015_and_bad_fcs() {
    if !have_tshark() {
        return;
    }
    use wpan::frame::{pan_id_presence, Body, FrameVersion};
    let addr = |m| match m {
        0 => Address::Absent,
        2 => Address::Short(0x00aa),
        _ => Address::Extended(NODE_A),
    };
    let mut frames = Vec::new();
    let mut rows_expected = Vec::new();
    for d in [0u16, 2, 3] {
        for s in [0u16, 2, 3] {
            for c in [false, true] {
                let (dp, sp) = pan_id_presence(FrameVersion::V2015, d, s, c).unwrap();
                let r = Repr {
                    version: FrameVersion::V2015,
                    frame_pending: false,
                    ack_request: false,
                    seq: Some(frames.len() as u8),
                    dst_pan: dp.then_some(0x0101),
                    dst_addr: addr(d),
                    src_pan: sp.then_some(0x0202),
                    src_addr: addr(s),
                    security: None,
                    header_ies: vec![],
                    payload_ies: vec![],
                    // dispatch 0x00: "not a LoWPAN frame", shown as data
                    body: Body::Data(vec![0x00, 0xc0, 0xff, 0xee]),
                };
                let b = r.to_bytes_with_fcs().unwrap();
                assert_eq!(b[0] & 0x40 != 0, c);
                frames.push(b);
                rows_expected.push((dp, sp, d, s));
            }
        }
    }
    // and a frame whose FCS is wrong: tshark must notice
    let mut bad = Repr::data(9, PAN, Address::Short(1), Address::Short(2), vec![0, 1])
        .to_bytes_with_fcs()
        .unwrap();
    let n = bad.len();
    bad[n - 1] ^= 0x55;
    frames.push(bad);
    let p = write_pcap("h", &frames);
    let rows = tshark_fields(
        &p,
        &[],
        &[
            "wpan.fcs_ok",
            "wpan.dst_pan",
            "wpan.src_pan",
            "wpan.dst_addr_mode",
            "wpan.src_addr_mode",
            "data.data",
        ],
    );
    assert_eq!(rows.len(), frames.len());
    for (r, (dp, sp, d, s)) in rows.iter().zip(&rows_expected) {
        assert_eq!(r[0], "1", "{r:?}");
        // tshark shows a PAN ID also where it is implied; check what is on the wire
        // by the payload being found at the right offset:
        assert_eq!(
            r[5], "00c0ffee",
            "payload misplaced: dst {d} src {s} -> {r:?}"
        );
        if *dp {
            assert_eq!(r[1], "0x0101", "{r:?}");
        }
        if *sp {
            assert_eq!(r[2], "0x0202", "{r:?}");
        }
        assert_eq!(r[3], format!("0x{d:04x}"), "{r:?}");
        assert_eq!(r[4], format!("0x{s:04x}"), "{r:?}");
    }
    assert_eq!(rows.last().unwrap()[0], "0", "bad FCS not flagged");
    let _ = std::fs::remove_file(&p);
}

#[test]
fn i_full_timeslot_ie_and_6top_ie() {
    if !have_tshark() {
        return;
    }
    use wpan::frame::FrameVersion;
    use wpan::ie::{MlmeSubIe, PayloadIe, TimeslotTemplate};
    use wpan::sixtop::{self, Cell, CellOptions, Message, Request};
    let eb = Repr::enhanced_beacon(
        6,
        PAN,
        NODE_B,
        vec![PayloadIe::Mlme(vec![
            MlmeSubIe::TschSync {
                asn: 1000,
                join_metric: 2,
            },
            MlmeSubIe::TschTimeslotTemplate(TimeslotTemplate::default()),
        ])],
    );
    // a 6P ADD request in a 2015 data frame's payload IE (IETF IE, 6P sub-ID)
    let req = sixtop::Repr {
        sfid: 0,
        seqnum: 3,
        message: Message::Request(Request::Add {
            metadata: 0,
            cell_options: CellOptions::TX,
            num_cells: 1,
            cells: vec![Cell {
                slot_offset: 17,
                channel_offset: 3,
            }],
        }),
    };
    let mut content = vec![sixtop::SUBIE_ID_6P];
    let mut msg = vec![0u8; req.buffer_len()];
    req.emit(&mut msg).unwrap();
    content.extend_from_slice(&msg);
    let mut d = Repr::data(
        7,
        PAN,
        Address::Extended(NODE_A),
        Address::Extended(NODE_B),
        Vec::new(),
    );
    d.version = FrameVersion::V2015;
    d.payload_ies = vec![PayloadIe::Other {
        group: sixtop::IETF_IE_GROUP,
        content,
    }];
    let p = write_pcap(
        "i",
        &[
            eb.to_bytes_with_fcs().unwrap(),
            d.to_bytes_with_fcs().unwrap(),
        ],
    );
    let rows = tshark_fields(
        &p,
        &[],
        &[
            "wpan.fcs_ok",
            "wpan.tsch.join_metric",
            "wpan.tsch.timeslot.tx_offset",
            "wpan.tsch.timeslot.max_tx",
            "wpan.tsch.timeslot.length",
            "wpan.6top_version",
            "wpan.6top_type",
            "wpan.6top_code",
            "wpan.6top_seqnum",
            "wpan.6top_num_cells",
            "wpan.6top_cell_slot_offset",
            "wpan.6top_channel_offset",
            "_ws.expert.message",
        ],
    );
    let r = &rows[0];
    assert_eq!(&r[..5], &["1", "2", "2120", "4256", "10000"], "{r:?}");
    assert_eq!(r[12], "", "no expert info expected: {r:?}");
    let r = &rows[1];
    assert_eq!(r[0], "1", "{r:?}");
    // version 0, type request, code ADD, SeqNum 3, one cell (17, 3)
    assert_eq!(
        &r[5..12],
        &["0", "0x00", "0x01", "3", "1", "0x0011", "0x0003"],
        "{r:?}"
    );
    assert_eq!(r[12], "", "no expert info expected: {r:?}");
    let _ = std::fs::remove_file(&p);
}
