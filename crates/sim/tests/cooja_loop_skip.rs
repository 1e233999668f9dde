//! A Cooja mote's strobe loop takes its quiet 1 ms steps without an event
//! each (`Xmac::next_loud_step`, `World::skip_quiet_loop_steps`): the same
//! results as one event per step, bit for bit, with fewer events.
//!
//! A traced run steps the loop one event per step (a trace lists every
//! event), so each replication is run both ways and compared: result rows,
//! per-node rows, every frame sent and every copy received, and the end
//! time — over the Cooja X-MAC oracle's kinds of configuration (1-4 hops,
//! check intervals 1 s to 125 ms, PDR 100 and 90 %, the encounter
//! optimisation on, a shorter interference range, every node in range).

use sim::run::{run_replication, run_traced, Replication};

/// The oracle's first configuration as `scripts/event_census.py` hands it
/// to the core (`cooja-xmac`, h1-r1-ir100); the others differ from it only
/// in the keys [`config`] sets.
const BASE: &str = include_str!("data/cooja-xmac-h1-r1-ir100.json");

/// Handshakes per replication: the oracle runs 200 back to back; a few
/// already cover first handshakes and ones that follow a busy neighbour.
const HANDSHAKES: u64 = 4;

/// One configuration: hops, check interval (ms), success ratio, encounter
/// optimisation, interference range (m), spacing (m).
type Config = (u64, f64, f64, bool, f64, f64);

const CONFIGS: [Config; 14] = [
    (1, 1000.0, 1.0, false, 100.0, 40.0),
    (1, 125.0, 0.9, false, 100.0, 40.0),
    (2, 1000.0, 0.9, false, 100.0, 40.0),
    (2, 250.0, 1.0, false, 100.0, 40.0),
    (3, 1000.0, 1.0, false, 100.0, 40.0),
    (3, 500.0, 0.9, false, 100.0, 40.0),
    (3, 500.0, 1.0, false, 100.0, 10.0),
    (3, 500.0, 0.9, false, 50.0, 40.0),
    (3, 125.0, 1.0, true, 100.0, 40.0),
    (3, 125.0, 0.9, false, 50.0, 40.0),
    (4, 1000.0, 0.9, false, 100.0, 40.0),
    (4, 500.0, 1.0, false, 100.0, 40.0),
    (4, 125.0, 1.0, false, 100.0, 40.0),
    (4, 125.0, 0.9, true, 100.0, 40.0),
];

fn config(c: Config) -> sim::scenario::Scenario {
    let (hops, ci, ratio, eo, ir, spacing) = c;
    let mut v: serde_json::Value = serde_json::from_str(BASE).expect("a stored point");
    let p = &mut v["point"];
    p["topology"]["hops"] = hops.into();
    p["mac"]["xmac"]["check_interval_ms"] = ci.into();
    p["mac"]["xmac"]["encounter_optimization"] = eo.into();
    p["medium"]["success_ratio_rx"] = ratio.into();
    p["medium"]["interference_range_m"] = ir.into();
    p["medium"]["spacing_m"] = spacing.into();
    p["workload"]["handshakes"] = HANDSHAKES.into();
    schema::simulation(&v["point"], &v["platform"]).expect("a valid cooja-xmac point")
}

fn frames(r: &Replication) -> Vec<(usize, u64, u64, u64, Vec<u8>)> {
    let frames = r.frames.as_deref().unwrap_or_default();
    frames
        .iter()
        .map(|f| (f.node, f.at, f.period, f.copies, f.frame.to_vec()))
        .collect()
}

#[test]
fn skipping_quiet_loop_steps_changes_nothing_but_the_event_count() {
    let (mut skipped, mut one_by_one) = (0, 0);
    for c in CONFIGS {
        let s = config(c);
        for replication in 0..3 {
            let fast = run_replication(&s, replication, true, &[]).expect("runs");
            let (slow, _) = run_traced(&s, replication, 0).expect("runs");
            let at = format!("{c:?}, replication {replication}");
            assert_eq!(fast.rows, slow.rows, "{at}: result rows");
            assert_eq!(fast.nodes, slow.nodes, "{at}: node rows");
            assert_eq!(fast.end_time, slow.end_time, "{at}: end time");
            assert_eq!(fast.heard, slow.heard, "{at}: copies received");
            assert_eq!(frames(&fast), frames(&slow), "{at}: frames sent");
            assert!(fast.events < slow.events, "{at}: no step skipped");
            skipped += fast.events;
            one_by_one += slow.events;
        }
    }
    // the loop's steps were most of the oracle's events (docs/performance.md)
    assert!(
        skipped * 2 < one_by_one,
        "{skipped} events against {one_by_one} one by one"
    );
}
