//! EDHOC over CoAP in the simulator: the same rows as the DTLS handshakes.
//! Over CSMA and TSCH a handshake sends the RFC 9529-sized EDHOC messages
//! inside the CoAP messages of RFC 9528 appendix A.2; over a lossy X-MAC
//! link (no link-layer ACKs) CoAP's retransmission recovers the losses.

mod common;

use common::{get, int, small_tsch};

use coap::reliability::Params;
use sim::app::dtls::CryptoCost;
use sim::app::edhoc::EdhocSetup;
use sim::mac::csma::CsmaParams;
use sim::mac::xmac::XmacParams;
use sim::run::{run_replication, Value};
use sim::scenario::{MacSpec, Scenario, TopologySpec, Workload};
use sim::world::Processing;

const TOKEN_BYTES: usize = 4;

fn scenario(mac: MacSpec, pdr: f64, seed: u64) -> Scenario {
    Scenario {
        topology: TopologySpec::line(2, pdr),
        client: 0,
        server: 1,
        mac,
        power: common::wismote_like_power(),
        crypto: CryptoCost {
            aes_block_us: 10.0,
            aes256_block_us: 14.0,
            sha256_block_us: 50.0,
            sha512_block_us: 125.0,
            ecdh_us: 500_000.0,
            ecdsa_sign_us: 500_000.0,
            ecdsa_verify_us: 500_000.0,
            ..CryptoCost::default()
        },
        processing: Processing::default(),
        workload: Workload::Edhoc {
            setup: EdhocSetup {
                edhoc: edhoc::Config::default(),
                coap: Params::default(),
                token_bytes: TOKEN_BYTES,
            },
            count: 1,
            pause_us: 0,
        },
        start_us: 1_000_000,
        max_time_us: 600_000_000,
        timer_tick_us: 0,
        seed,
        outdated_key_nodes: Vec::new(),
        below_policy_nodes: Vec::new(),
    }
}

/// CoAP bytes around the EDHOC messages (RFC 7252 section 3): header 4,
/// token; Uri-Path ".well-known" (1 + 11) and "edhoc" (1 + 5) and
/// Content-Format 65 (1 + 1) in the requests, Content-Format 64 (1 + 1)
/// in the first response; the payload marker 1 and the prefix (CBOR true,
/// then C_R) 1 in the requests.
const REQUEST: usize = 4 + TOKEN_BYTES + 12 + 6 + 2 + 1 + 1;
const RESPONSE_2: usize = 4 + TOKEN_BYTES + 2 + 1;
const EMPTY_RESPONSE: usize = 4 + TOKEN_BYTES;
/// RFC 9529 section 3 (trace 2) sizes; message_1 offers suite 2 alone
/// (37 bytes, the trace's 39 less `82 06`).
const M1: usize = 37;
const M2: usize = 45;
const M3: usize = 19;

fn assert_clean_handshake(row: &[(String, Value)]) {
    assert_eq!(get(row, "success"), Value::Bool(true), "{row:?}");
    assert_eq!(int(row, "dtls_retransmissions"), 0);
    assert_eq!(int(row, "client_datagrams_sent"), 2);
    assert_eq!(int(row, "client_datagrams_received"), 2);
    assert_eq!(
        int(row, "client_bytes_sent") as usize,
        (REQUEST + M1) + (REQUEST + M3)
    );
    assert_eq!(
        int(row, "client_bytes_received") as usize,
        (RESPONSE_2 + M2) + EMPTY_RESPONSE
    );
    // four P-256 scalar multiplications on the client at 0.5 s each
    assert!(int(row, "client_crypto_cpu_us") >= 2_000_000);
}

#[test]
fn static_dh_over_csma() {
    let mac = MacSpec::Csma(CsmaParams::default());
    let r = run_replication(&scenario(mac, 1.0, 1), 0, false, &[]).unwrap();
    assert_clean_handshake(&r.rows[0]);
    let frames = int(&r.rows[0], "node0_frames_sent") + int(&r.rows[0], "node1_frames_sent");
    assert!(frames >= 4, "{frames}");
}

#[test]
fn static_dh_over_tsch() {
    let r = run_replication(&scenario(small_tsch(), 1.0, 1), 0, false, &[]).unwrap();
    assert_clean_handshake(&r.rows[0]);
}

#[test]
fn lossy_xmac_recovers_through_coap_retransmission() {
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

#[test]
fn same_seed_same_rows() {
    let mac = MacSpec::Xmac(XmacParams::contiki(125_000));
    let a = run_replication(&scenario(mac.clone(), 0.8, 3), 0, false, &[]).unwrap();
    let b = run_replication(&scenario(mac, 0.8, 3), 0, false, &[]).unwrap();
    assert_eq!(format!("{:?}", a.rows), format!("{:?}", b.rows));
}
