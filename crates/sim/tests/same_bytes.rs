//! Byte-compare guard: a fixed set of small runs covering every MAC and
//! application, whose result rows and frames on the air must stay the same,
//! bit for bit, across refactorings that do not mean to change behaviour.
//!
//! The runs' result rows (every column; floats by their bit patterns), the
//! frames sent (node, time, bytes, copies), the event count and the end time
//! are serialised into one byte string whose SHA-256 is compared against
//! [`DIGEST`].
//!
//! To regenerate: run `cargo test -p dtlsim-sim --test same_bytes -- --nocapture`;
//! the failure message prints the new digest. A new digest is a deliberate
//! behaviour change: paste it here and name the change in the commit message.

mod common;

use dtls::{ClientConfig, Config, RecordPacking, RetransmitPolicy, ServerConfig};
use sha2::{Digest, Sha256};
use sim::mac::beacon::BeaconParams;
use sim::mac::csma::CsmaParams;
use sim::mac::security::LinkSecurity;
use sim::mac::xmac::XmacParams;
use sim::node::cpu::CryptoCost;
use sim::row::Value;
use sim::run::run_replication;
use sim::scenario::{MacSpec, Scenario, TopologySpec, Workload};
use sim::world::Processing;
use wpan::security::SecurityLevel;

/// SHA-256 of every run below (see the module comment for how to
/// regenerate). Last changed when cxmac's `someone_is_sending` began to
/// follow the oracle's trace: a refused send no longer counts it up, and
/// wake-ups before a re-basing still count it down (the X-MAC runs only).
/// Before that, when a TSCH frame that carries its frame
/// counter began to use it in the nonce (ASN in Nonce clear): the secured
/// TSCH run's MICs and ciphertexts, nothing else. Before that, by two merges: cxmac's waiting_for_packet and busy-loop CPU
/// (X-MAC runs); and when a run that reaches its time limit ends
/// with the clock at that limit, not at its last event: "csma secured
/// periodic" now counts its energy over the whole 60 s (it ended at its
/// last event, 59.6 s). Before that, TSCH stopped simulating idle receive
/// slots one by one, which changed only the TSCH runs' event counts.
const DIGEST: &str = "4153d3c42d2c6597bf6fcbc286baac1b1e5b29cec2b8f3141be18ff20d1325e7";

const PSK: &[u8] = b"0123456789abcdef";
const REPLICATIONS: u64 = 2;

fn dtls_config(retransmit: RetransmitPolicy) -> (ClientConfig, ServerConfig) {
    let config = Config {
        packing: RecordPacking::OneRecordPerDatagram,
        retransmit,
        ..Config::tightest_psk_ccm8()
    };
    (
        ClientConfig::psk(config.clone(), b"id", PSK),
        ServerConfig::psk(config, b"id", PSK),
    )
}

fn handshakes(retransmit: RetransmitPolicy, count: u32) -> Workload {
    let (client, server) = dtls_config(retransmit);
    Workload::Handshakes {
        client,
        server,
        count,
        pause_us: 500_000,
        pause_jitter_us: 0,
    }
}

fn fixed(interval_us: u64) -> RetransmitPolicy {
    RetransmitPolicy::Fixed {
        interval_us,
        max_retransmissions: 7,
    }
}

fn link_security() -> LinkSecurity {
    LinkSecurity {
        level: SecurityLevel::EncMic32,
        key_id_mode: 1,
        key: [3; 16],
        key_index: 1,
        frame_counter_suppressed: false,
        after_join: false,
        setup_us: 50.0,
        per_block_us: 10.0,
    }
}

fn scenario(nodes: usize, pdr: f64, mac: MacSpec, workload: Workload, seed: u64) -> Scenario {
    Scenario {
        topology: TopologySpec::line(nodes, pdr),
        client: 0,
        server: nodes - 1,
        mac,
        power: common::wismote_like_power(),
        crypto: CryptoCost::default(),
        processing: Processing::default(),
        workload,
        start_us: 1_000_000,
        power_on_window_us: 0,
        max_time_us: 900_000_000,
        timer_tick_us: 0,
        give_up_idle_us: None,
        close_notify: true,
        seed,
        outdated_key_nodes: Vec::new(),
        below_policy_nodes: Vec::new(),
    }
}

/// Every MAC and application, on lossy links where retries and
/// retransmissions happen.
fn scenarios() -> Vec<(&'static str, Scenario)> {
    let xmac = |lazy: bool| {
        MacSpec::Xmac(XmacParams {
            lazy_idle_listening: lazy,
            ..XmacParams::contiki(125_000)
        })
    };
    let mut tick = scenario(
        3,
        0.8,
        xmac(true),
        handshakes(
            RetransmitPolicy::Doubling {
                initial_us: 1_000_000,
                max_us: 60_000_000,
                max_retransmissions: 6,
            },
            2,
        ),
        7,
    );
    // Contiki's 1/128 s software timer granularity
    tick.timer_tick_us = 7_812;
    let mut beacon_device = BeaconParams::new(6, 2);
    beacon_device.security = Some(link_security());
    vec![
        (
            "csma dtls lossy",
            scenario(
                3,
                0.7,
                MacSpec::Csma(CsmaParams::default()),
                handshakes(fixed(2_000_000), 2),
                3,
            ),
        ),
        (
            "csma secured periodic",
            scenario(
                4,
                0.9,
                MacSpec::Csma(CsmaParams {
                    security: Some(link_security()),
                    ..CsmaParams::default()
                }),
                Workload::Periodic {
                    interval_us: 5_000_000,
                    payload: 30,
                    duration_us: 60_000_000,
                },
                4,
            ),
        ),
        ("xmac lazy dtls lossy, timer ticks", tick),
        (
            "xmac dtls lossy",
            scenario(2, 0.75, xmac(false), handshakes(fixed(2_000_000), 1), 5),
        ),
        (
            "xmac ping",
            scenario(
                3,
                0.9,
                xmac(true),
                Workload::Ping {
                    dtls: None,
                    payload: 20,
                    count: 4,
                    timeout_us: 5_000_000,
                    pause_us: 1_000_000,
                },
                6,
            ),
        ),
        (
            "beacon secured dtls (indirect transmission)",
            scenario(
                2,
                0.9,
                MacSpec::Beacon(beacon_device),
                handshakes(fixed(10_000_000), 1),
                8,
            ),
        ),
        (
            "beacon frames two hops",
            scenario(
                3,
                0.85,
                MacSpec::Beacon(BeaconParams::new(5, 2)),
                Workload::Frames {
                    frames: 6,
                    payload: 30,
                    max_wait_us: 2_000_000,
                },
                9,
            ),
        ),
        (
            "tsch secured frames",
            scenario(
                3,
                0.8,
                common::small_tsch_secured(Some(link_security())),
                Workload::Frames {
                    frames: 8,
                    payload: 40,
                    max_wait_us: 110_000,
                },
                11,
            ),
        ),
        (
            "tsch secured dtls ping",
            scenario(
                2,
                0.85,
                common::small_tsch_secured(Some(link_security())),
                Workload::Ping {
                    dtls: Some(dtls_config(fixed(3_000_000))),
                    payload: 16,
                    count: 3,
                    timeout_us: 5_000_000,
                    pause_us: 1_000_000,
                },
                12,
            ),
        ),
    ]
}

fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

fn put_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Bool(b) => put(out, &[0, u8::from(*b)]),
        Value::Int(i) => {
            out.push(1);
            put(out, &i.to_le_bytes());
        }
        Value::Float(f) => {
            out.push(2);
            put(out, &f.to_bits().to_le_bytes());
        }
        Value::Text(t) => {
            out.push(3);
            put(out, t.as_bytes());
        }
    }
}

/// Everything the runs produce, as one byte string.
fn serialised() -> Vec<u8> {
    let mut out = Vec::new();
    for (name, s) in scenarios() {
        put(&mut out, name.as_bytes());
        for replication in 0..REPLICATIONS {
            let r = run_replication(&s, replication, true, &[])
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            out.extend_from_slice(&r.events.to_le_bytes());
            out.extend_from_slice(&r.end_time.to_le_bytes());
            for row in &r.rows {
                out.extend_from_slice(&(row.len() as u64).to_le_bytes());
                for (key, value) in row {
                    put(&mut out, key.as_bytes());
                    put_value(&mut out, value);
                }
            }
            for f in r.frames.as_deref().unwrap_or_default() {
                out.extend_from_slice(&(f.node as u64).to_le_bytes());
                out.extend_from_slice(&f.at.to_le_bytes());
                out.extend_from_slice(&f.period.to_le_bytes());
                out.extend_from_slice(&f.copies.to_le_bytes());
                put(&mut out, &f.frame);
            }
        }
    }
    out
}

#[test]
fn reference_runs_produce_the_recorded_bytes() {
    let digest: String = Sha256::digest(serialised())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        digest, DIGEST,
        "the reference runs changed; if that is deliberate, set DIGEST to {digest} \
         and name the behaviour change in the commit message"
    );
}
