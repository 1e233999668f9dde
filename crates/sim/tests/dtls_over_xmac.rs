//! A real DTLS handshake over X-MAC: a lost data frame is recovered only by
//! the DTLS retransmission timer (X-MAC does not acknowledge data).

mod common;

use dtls::{Config, RecordPacking, RetransmitPolicy};
use sim::mac::xmac::XmacParams;
use sim::row::Value;
use sim::run::run_replication;
use sim::scenario::{MacSpec, Scenario, TopologySpec, Workload};
use sim::world::Processing;

pub fn scenario() -> Scenario {
    let config = Config {
        packing: RecordPacking::OneRecordPerDatagram,
        retransmit: RetransmitPolicy::Fixed {
            interval_us: 2_000_000,
            max_retransmissions: 7,
        },
        ..Config::tightest_psk_ccm8()
    };
    common::one_psk_handshake(
        TopologySpec::line(2, 1.0),
        1,
        MacSpec::Xmac(XmacParams::contiki(125_000)),
        config,
        5,
    )
}

fn get(row: &[(String, Value)], key: &str) -> Value {
    row.iter().find(|(k, _)| k == key).unwrap().1.clone()
}

fn float(v: Value) -> f64 {
    match v {
        Value::Float(f) => f,
        other => panic!("{other:?}"),
    }
}

fn int(v: Value) -> i64 {
    match v {
        Value::Int(i) => i,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_lost_data_frame_is_recovered_only_by_the_dtls_timer() {
    let s = scenario();
    let clean = run_replication(&s, 0, true, &[]).unwrap();
    let row = &clean.rows[0];
    assert_eq!(get(row, "success"), Value::Bool(true));
    assert_eq!(int(get(row, "dtls_retransmissions")), 0);
    let baseline = float(get(row, "duration_s"));

    // The client's first data frame (the ClientHello): not a strobe train,
    // not a 13-byte strobe ACK.
    let frames = clean.frames.unwrap();
    let hello = frames
        .iter()
        .find(|f| f.node == 0 && f.copies == 1 && f.frame.len() > 13)
        .expect("the client sent a data frame");
    let lost = run_replication(&s, 0, false, &[(0, hello.ordinal)]).unwrap();
    let row = &lost.rows[0];
    assert_eq!(get(row, "success"), Value::Bool(true));
    // X-MAC neither noticed nor retried: the strobe was answered, the data lost.
    assert_eq!(int(get(row, "node0_mac_retransmissions")), 0);
    assert_eq!(int(get(row, "node0_mac_drops")), 0);
    // The DTLS timer (fixed, 2 s) resent the ClientHello once.
    assert_eq!(int(get(row, "dtls_retransmissions")), 1);
    let duration = float(get(row, "duration_s"));
    assert!(duration >= 2.0, "{duration}");
    assert!(
        duration > baseline + 1.5 && duration < baseline + 2.0 + 0.5,
        "baseline {baseline} s, with the loss {duration} s"
    );
}

#[test]
fn same_seed_same_replication_same_result() {
    let s = scenario();
    let a = run_replication(&s, 3, false, &[]).unwrap();
    let b = run_replication(&s, 3, false, &[]).unwrap();
    assert_eq!(a.rows, b.rows);
    assert_eq!(a.events, b.events);
    let c = run_replication(&s, 4, false, &[]).unwrap();
    assert_ne!(a.rows, c.rows);
}

#[test]
fn lazy_idle_listening_gives_the_results_of_waking_every_interval() {
    // Three hops, lossy links, the DTLS timer and CPU delays in play: the
    // lazy duty cycle must reproduce handshake durations and frame counts
    // of the one that wakes every check interval exactly, and its energy to
    // within 1 %, with far fewer events.
    for ci in [62_500, 250_000] {
        let mut eager = scenario();
        eager.topology = TopologySpec::line(4, 0.9);
        eager.server = 3;
        wismote_clock_and_processing(&mut eager);
        let mut lazy = eager.clone();
        // A lazy node does not wake for a lone data frame for another node,
        // which in cxmac clears `someone_is_sending`: compared without it.
        let contiki = XmacParams {
            someone_is_sending: false,
            ..XmacParams::contiki(ci)
        };
        eager.mac = MacSpec::Xmac(XmacParams {
            lazy_idle_listening: false,
            ..contiki
        });
        lazy.mac = MacSpec::Xmac(contiki);
        let (mut ev_eager, mut ev_lazy) = (0, 0);
        for rep in 0..12 {
            let a = run_replication(&eager, rep, false, &[]).unwrap();
            let b = run_replication(&lazy, rep, false, &[]).unwrap();
            ev_eager += a.events;
            ev_lazy += b.events;
            assert_eq!(a.rows.len(), b.rows.len());
            for (ra, rb) in a.rows.iter().zip(&b.rows) {
                for ((ka, va), (kb, vb)) in ra.iter().zip(rb) {
                    assert_eq!(ka, kb);
                    match (va, vb) {
                        // Listening energy may differ by about one window in
                        // a few hundred; everything else is identical.
                        (Value::Float(x), Value::Float(y)) if ka.ends_with("_uj") => {
                            assert!(
                                (x - y).abs() <= 0.01 * x.abs().max(1.0),
                                "ci {ci} rep {rep} {ka}: {x} vs {y}"
                            )
                        }
                        _ => assert_eq!(va, vb, "ci {ci} rep {rep} {ka}"),
                    }
                }
            }
        }
        assert!(
            ev_lazy < ev_eager,
            "ci {ci}: {ev_lazy} lazy vs {ev_eager} eager events"
        );
    }
}

// One hop of X-MAC at PDR 100 % with tinyDTLS's timer: every handshake
// completes (no hidden terminal can meet a frame). On two hops with Contiki
// 2.7's cxmac timing a share fails: the relay's two neighbours cannot hear
// each other and a strobe overlapping a data frame at the relay destroys it
// (docs/macs.md, "Contiki 2.7 timing"); that is measured in experiment 1,
// not asserted here.

#[test]
fn one_hop_handshakes_at_full_pdr_all_complete() {
    let mut s = scenario();
    if let Workload::Handshakes { client, server, .. } = &mut s.workload {
        client.config.retransmit = RetransmitPolicy::TINYDTLS;
        server.config.retransmit = RetransmitPolicy::TINYDTLS;
    }
    s.topology = TopologySpec::line(2, 1.0);
    s.server = 1;
    wismote_clock_and_processing(&mut s);
    s.mac = MacSpec::Xmac(XmacParams::contiki(1_000_000));
    s.max_time_us = 3_600_000_000;
    for rep in 0..20 {
        let r = run_replication(&s, rep, false, &[]).unwrap();
        let row = &r.rows[0];
        let success = row.iter().find(|(k, _)| k == "success").unwrap();
        assert_eq!(success.1, Value::Bool(true), "replication {rep}: {row:?}");
    }
}

/// WiSMote's frame handling and Contiki's 128 Hz clock (platforms/wismote.toml).
fn wismote_clock_and_processing(s: &mut Scenario) {
    s.timer_tick_us = 7_812;
    s.processing = Processing {
        frame_us: 167.0,
        bus_us_per_byte: 5.25,
    };
}
