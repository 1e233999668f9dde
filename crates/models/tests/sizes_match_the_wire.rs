//! The closed forms count bytes; the wire and DTLS crates emit them. These
//! tests hold the two to each other, so a model cannot drift from the frames
//! the simulator actually sends.

use models::overhead::{
    self, AddrMode, Compression, DtlsVersion, FrameConfig, UdpPorts, UnifiedHeader,
};
use models::security::{ccm_star_blocks, AuxHeader, SecurityLevel};
use wpan::frame::{Address, Repr};
use wpan::security::{KeyId, SecurityHeader, SecurityLevel as WireLevel};
use wpan::sixlowpan::{compress_headers, link_local, Contexts};
use wpan::udp::build_udp_datagram;

fn key_id(mode: u8) -> KeyId {
    match mode {
        0 => KeyId::Implicit,
        1 => KeyId::Index(1),
        2 => KeyId::Source4 {
            source: [1, 2, 3, 4],
            index: 1,
        },
        _ => KeyId::Source8 {
            source: [1, 2, 3, 4, 5, 6, 7, 8],
            index: 1,
        },
    }
}

#[test]
fn security_header_and_mic_sizes_match_the_wire() {
    for level in SecurityLevel::ALL.into_iter().filter(|l| l.is_secured()) {
        let wire = WireLevel::from_bits(level as u8);
        assert_eq!(level.mic_len(), wire.mic_len(), "{level:?}");
        for mode in 0..=3 {
            let model = AuxHeader::new(mode, false).unwrap().len_bytes();
            let bytes = SecurityHeader::new(wire, key_id(mode), 7).buffer_len();
            assert_eq!(model, bytes, "{level:?} key-id mode {mode}");
        }
    }
}

#[test]
fn frame_budget_matches_a_full_frame_built_by_wpan() {
    for level in SecurityLevel::ALL {
        for (addr, m) in [
            (AddrMode::Short, 0x0002u64),
            (AddrMode::Extended, 0xacde_4800_0000_0002),
        ] {
            let cfg = FrameConfig {
                dst: addr,
                src: addr,
                level,
                ..FrameConfig::default()
            };
            let budget = cfg.budget().unwrap();
            let a = |v: u64| match addr {
                AddrMode::Short => Address::Short(v as u16),
                AddrMode::Extended => Address::Extended(v),
            };
            let mut frame = Repr::data(1, 0xabcd, a(m), a(m + 1), vec![0; budget.mac_payload]);
            if level.is_secured() {
                frame.security = Some(SecurityHeader::new(
                    WireLevel::from_bits(level as u8),
                    key_id(cfg.aux.key_id_mode),
                    1,
                ));
            }
            assert_eq!(
                frame.psdu_len(),
                127,
                "{level:?} {addr:?}: the model's MAC payload fills the frame"
            );
        }
    }
}

#[test]
fn sixlowpan_header_sizes_match_the_compressor() {
    let (src, dst) = (Address::Short(1), Address::Short(2));
    let ll = |a: &Address| link_local(a).unwrap();
    let datagram = build_udp_datagram(ll(&src), ll(&dst), 64, 50_000, 5684, &[0; 10]).unwrap();
    let compressed = compress_headers(&datagram, &src, &dst, &Contexts::none()).unwrap();
    let cfg = FrameConfig {
        compression: Compression::LinkLocal,
        udp_ports: UdpPorts::Inline,
        ..FrameConfig::default()
    };
    assert_eq!(
        compressed.bytes.len(),
        cfg.ipv6_header_len() + cfg.udp_header_len()
    );
    // Global addresses from context 0 with IIDs from the MAC addresses.
    let prefix = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0];
    let global = |a: &Address| {
        let mut o = ll(a).octets();
        o[..8].copy_from_slice(&prefix);
        std::net::Ipv6Addr::from(o)
    };
    let datagram =
        build_udp_datagram(global(&src), global(&dst), 64, 50_000, 5684, &[0; 10]).unwrap();
    let compressed =
        compress_headers(&datagram, &src, &dst, &Contexts::with_context0(prefix)).unwrap();
    let cfg = FrameConfig {
        compression: Compression::Context,
        ..FrameConfig::default()
    };
    assert_eq!(
        compressed.bytes.len(),
        cfg.ipv6_header_len() + cfg.udp_header_len()
    );
}

#[test]
fn dtls_record_overhead_matches_the_stack() {
    for suite in dtls::CipherSuite::ALL {
        let model = overhead::suite(DtlsVersion::V1_2, suite.name()).unwrap();
        for n in 0..80 {
            let m = overhead::record_overhead(model, n, UnifiedHeader::default()).unwrap();
            assert_eq!(
                m.total(),
                13 + suite.protection().overhead(n),
                "{} with {n} B",
                suite.name()
            );
        }
    }
}

#[test]
fn ccm_star_block_counts_match_the_cipher() {
    // wpan counts the AES blocks its CCM* runs.
    for level in SecurityLevel::ALL.into_iter().filter(|l| l.is_secured()) {
        for (header, payload) in [(35, 86), (21, 0), (9, 100), (23, 17)] {
            let (auth, enc) = if level.encrypts() {
                (header, payload)
            } else {
                (header + payload, 0)
            };
            let runs = wpan::ccm_star::aes_blocks_for(auth, enc, level.mic_len());
            assert_eq!(
                ccm_star_blocks(level, header, payload),
                runs as usize,
                "{level:?} a={header} m={payload}"
            );
        }
    }
}
