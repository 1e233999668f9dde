//! EDHOC over CoAP in the simulator: the same rows as the DTLS handshakes.
//! Over CSMA and TSCH a handshake sends the RFC 9529-sized EDHOC messages
//! inside the CoAP messages of RFC 9528 appendix A.2; over a lossy X-MAC
//! link (no link-layer ACKs) CoAP's retransmission recovers the losses.

mod common;

use common::{get, int, small_tsch};

use coap::reliability::Params;
use sim::app::edhoc::EdhocSetup;
use sim::mac::csma::CsmaParams;
use sim::mac::xmac::XmacParams;
use sim::row::Value;
use sim::run::run_replication;
use sim::scenario::{MacSpec, Scenario, TopologySpec, Workload};

const TOKEN_BYTES: usize = 4;

fn scenario(mac: MacSpec, pdr: f64, seed: u64) -> Scenario {
    let workload = Workload::Edhoc {
        setup: EdhocSetup {
            edhoc: edhoc::Config::default(),
            coap: Params::default(),
            token_bytes: TOKEN_BYTES,
        },
        count: 1,
        pause_us: 0,
        pause_jitter_us: 0,
    };
    Scenario {
        crypto: common::slow_crypto(),
        ..common::scenario(TopologySpec::line(2, pdr), 1, mac, workload, seed)
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

/// One node's rows of `layer` as "kind message".
fn rows(trace: &sim::trace::Trace, node: usize, layer: &str) -> Vec<String> {
    trace
        .events
        .iter()
        .filter(|e| e.node == node && e.layer == layer)
        .map(|e| format!("{} {}", e.kind, e.message))
        .collect()
}

#[test]
fn the_trace_shows_each_edhoc_message_inside_its_coap_message() {
    let mac = MacSpec::Csma(CsmaParams::default());
    let (_, trace) = sim::run::run_traced(&scenario(mac, 1.0, 1), 0, 100_000).unwrap();
    // RFC 9528 appendix A.2: message_1 and message_3 ride Confirmable
    // POSTs, message_2 the first piggybacked 2.04 (no message_4 here:
    // lakers completes without it)
    assert_eq!(
        rows(&trace, 0, "edhoc"),
        ["tx message_1", "rx message_2", "tx message_3"]
    );
    assert_eq!(
        rows(&trace, 1, "edhoc"),
        ["rx message_1", "tx message_2", "rx message_3"]
    );
    assert_eq!(
        rows(&trace, 0, "coap"),
        [
            "tx CON POST",
            "rx ACK 2.04 Changed",
            "tx CON POST",
            "rx ACK 2.04 Changed"
        ]
    );
    let bytes: Vec<_> = trace
        .events
        .iter()
        .filter(|e| e.node == 0 && e.layer == "edhoc")
        .map(|e| e.bytes.unwrap() as usize)
        .collect();
    assert_eq!(bytes, [M1, M2, M3]);
    // each CoAP row carries its Message ID; a response echoes its request's
    let ids = |node: usize, kind: &str| -> Vec<u64> {
        trace
            .events
            .iter()
            .filter(|e| e.node == node && e.layer == "coap" && e.kind == kind)
            .map(|e| e.seq.unwrap())
            .collect()
    };
    assert_eq!(ids(0, "tx"), ids(1, "rx"));
    assert_eq!(ids(0, "tx"), ids(0, "rx"));
}

#[test]
fn coap_retransmissions_are_traced_as_the_client_counted_them() {
    let mac = MacSpec::Xmac(XmacParams::contiki(125_000));
    let mut resent = 0;
    for seed in 0..6 {
        let (r, trace) =
            sim::run::run_traced(&scenario(mac.clone(), 0.7, seed), 0, 1_000_000).unwrap();
        let retransmits = trace
            .events
            .iter()
            .filter(|e| e.node == 0 && e.layer == "coap" && e.kind == "retransmit")
            .count() as i64;
        assert_eq!(
            retransmits,
            int(&r.rows[0], "dtls_retransmissions"),
            "seed {seed}"
        );
        resent += retransmits;
    }
    assert!(resent > 0, "no CoAP retransmission in 6 lossy runs");
}
