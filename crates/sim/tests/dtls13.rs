//! DTLS 1.3 in the simulator: the same applications and rows as 1.2, the
//! 1.3 stack underneath. A PSK-CCM8 handshake over CSMA and over TSCH sends
//! the datagrams and bytes the sans-IO stack sends on its own; over a lossy
//! X-MAC link it recovers through ACKs and retransmissions.

mod common;

use common::{get, int, small_tsch};

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::{Config, RecordPacking, RetransmitPolicy};
use sim::mac::csma::CsmaParams;
use sim::mac::xmac::XmacParams;
use sim::row::Value;
use sim::run::run_replication;
use sim::scenario::{MacSpec, Scenario, TopologySpec, Workload};

const PSK: &[u8] = b"0123456789abcdef";
/// The identity of the sans-IO reference count (its length is on the wire).
const IDENTITY: &[u8] = b"Client_identity";

/// TLS_AES_128_CCM_8_SHA256, psk_ke, compact unified headers, no CID,
/// the server's flight packed into one datagram, a fixed 2 s timer; no
/// HelloRetryRequest cookie: the sans-IO stack's reference handshake.
fn workload() -> Workload {
    let config = Config13 {
        common: Config {
            packing: RecordPacking::PackFlight,
            retransmit: RetransmitPolicy::Fixed {
                interval_us: 2_000_000,
                max_retransmissions: 7,
            },
            ..Config::default()
        },
        ..Config13::psk_ccm8()
    };
    let mut server = ServerConfig13::psk(config.clone(), IDENTITY, PSK);
    server.require_cookie = false;
    Workload::Handshakes13 {
        client: ClientConfig13::psk(config, IDENTITY, PSK),
        server: Box::new(server),
        count: 1,
        pause_us: 0,
        pause_jitter_us: 0,
    }
}

fn scenario(mac: MacSpec, pdr: f64, seed: u64) -> Scenario {
    Scenario {
        crypto: common::slow_crypto(),
        ..common::scenario(TopologySpec::line(2, pdr), 1, mac, workload(), seed)
    }
}

/// The handshake completed without a retransmission, in the datagrams and
/// bytes of the sans-IO stack (crates/dtls/tests/v13_header_form.rs): the
/// ClientHello; ServerHello, then EncryptedExtensions and Finished in one
/// record, in one datagram; the client's Finished; the server's ACK of it —
/// 374 bytes.
fn assert_clean_handshake(row: &[(String, Value)]) {
    assert_eq!(get(row, "success"), Value::Bool(true));
    assert_eq!(int(row, "dtls_retransmissions"), 0);
    let sent = int(row, "client_datagrams_sent");
    let received = int(row, "client_datagrams_received");
    assert_eq!((sent, received), (2, 2));
    let bytes = int(row, "client_bytes_sent") + int(row, "client_bytes_received");
    assert_eq!(bytes, 374);
}

#[test]
fn psk_ccm8_over_csma() {
    let r = run_replication(
        &scenario(MacSpec::Csma(CsmaParams::default()), 1.0, 1),
        0,
        true,
        &[],
    )
    .unwrap();
    assert_clean_handshake(&r.rows[0]);
    // every datagram is on the air at least once (6LoWPAN may fragment)
    let frames = int(&r.rows[0], "node0_frames_sent") + int(&r.rows[0], "node1_frames_sent");
    assert!(frames >= 4, "{frames}");
    // the crypto was charged: HKDF and CCM work at the costs above
    assert!(int(&r.rows[0], "client_crypto_cpu_us") > 0);
}

#[test]
fn psk_ccm8_over_tsch() {
    let r = run_replication(&scenario(small_tsch(), 1.0, 1), 0, false, &[]).unwrap();
    assert_clean_handshake(&r.rows[0]);
}

/// The frames of one DTLS 1.3 PSK handshake over one TSCH hop, by hand.
/// Flights (UDP payloads): ClientHello 144 B; ServerHello, EncryptedExtensions
/// and Finished in one record, 146 B; the client's Finished, 55 B; the
/// server's ACK, 29 B (374 B, as above). A frame of 127 B less the MAC header (frame
/// control 2, sequence 1, PAN ID 2, two short addresses 4) and the FCS 2
/// leaves 116 B; IPHC with both link-local addresses elided takes 2 and UDP
/// NHC with inline ports and checksum 7, so 107 B of UDP payload fit
/// unfragmented: the Finished and the ACK take one frame each. Fragmented
/// (RFC 4944 section 5.3), FRAG1's 4-byte header leaves 116 - 4 - 9 = 103 B,
/// cut to a multiple of 8 of the uncompressed datagram: (48 + 103) / 8 * 8
/// = 144, so 144 - 48 = 96 B of payload; each FRAGN (5-byte header) carries
/// (116 - 5) / 8 * 8 = 104 B. The ClientHello: 96 + 48, two frames; the
/// server's flight: 96 + 50, two frames. 2 + 2 + 1 + 1 = 6 data frames.
#[test]
fn psk_ccm8_frames_over_one_tsch_hop_as_counted_by_hand() {
    let r = run_replication(&scenario(small_tsch(), 1.0, 1), 0, false, &[]).unwrap();
    let row = &r.rows[0];
    assert_clean_handshake(row);
    assert_eq!(
        get(row, "flight_bytes"),
        Value::Text("144/146/55/29".into())
    );
    let frames = int(row, "node0_frames_sent") + int(row, "node1_frames_sent");
    assert_eq!(frames, 6);
    // the client had its keys as it sent its Finished, before the ACK
    let keys = match get(row, "keys_s") {
        Value::Float(k) => k,
        other => panic!("keys_s: {other:?}"),
    };
    let duration = match get(row, "duration_s") {
        Value::Float(d) => d,
        other => panic!("duration_s: {other:?}"),
    };
    assert!(keys > 0.0 && keys < duration, "{keys} {duration}");
}

#[test]
fn lossy_xmac_recovers_through_retransmission() {
    let mac = MacSpec::Xmac(XmacParams::contiki(125_000));
    let mut retransmitted = 0;
    for seed in 0..6 {
        let r = run_replication(&scenario(mac.clone(), 0.7, seed), 0, false, &[]).unwrap();
        let row = &r.rows[0];
        assert_eq!(get(row, "success"), Value::Bool(true), "seed {seed}");
        retransmitted += int(row, "dtls_retransmissions");
    }
    assert!(retransmitted > 0, "no loss recovered in 6 lossy runs");
}
