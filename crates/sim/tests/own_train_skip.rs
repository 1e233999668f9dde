//! Copies a listener's own strobe train collides with are judged at once,
//! not one event each (`World::follow_train`): the same results as
//! judging them one by one, bit for bit, with fewer events.
//!
//! A traced run judges every copy one by one (a trace keeps them all), so
//! each replication is run both ways and compared: result rows, per-node
//! rows, every frame sent and every copy received, and the end time.

use sim::run::{run_replication, run_traced};
use sim::scenario::Scenario;

/// Experiment 1's grid points stored for the bench (4 hops at 90 % PDR,
/// CI 0.5 s and 4 s): at 4 s most events were such copies.
const POINTS: [(&str, &str); 2] = [
    (
        "4hops-pdr90-ci500ms",
        include_str!("../benches/data/exp1-4hops-pdr90-ci500ms.json"),
    ),
    (
        "4hops-pdr90-ci4000ms",
        include_str!("../benches/data/exp1-4hops-pdr90-ci4000ms.json"),
    ),
];

fn scenario(json: &str) -> Scenario {
    let v: serde_json::Value = serde_json::from_str(json).expect("a stored point");
    schema::simulation(&v["point"], &v["platform"]).expect("a valid exp1 point")
}

#[test]
fn skipping_own_collisions_changes_nothing_but_the_event_count() {
    for (name, json) in POINTS {
        let s = scenario(json);
        let (mut skipped, mut one_by_one) = (0, 0);
        for replication in 0..40 {
            let fast = run_replication(&s, replication, true, &[]).expect("runs");
            let (slow, _) = run_traced(&s, replication, 0).expect("runs");
            let at = format!("{name}, replication {replication}");
            assert_eq!(fast.rows, slow.rows, "{at}: result rows");
            assert_eq!(fast.nodes, slow.nodes, "{at}: node rows");
            assert_eq!(fast.end_time, slow.end_time, "{at}: end time");
            assert_eq!(fast.heard, slow.heard, "{at}: copies received");
            let frames = |r: &sim::run::Replication| {
                let frames = r.frames.as_deref().unwrap_or_default();
                frames
                    .iter()
                    .map(|f| (f.node, f.at, f.period, f.copies, f.frame.to_vec()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(frames(&fast), frames(&slow), "{at}: frames sent");
            skipped += fast.events;
            one_by_one += slow.events;
        }
        // fewer at both (whole trains of copies at CI 4 s, where two
        // neighbours strobe at once)
        assert!(
            skipped < one_by_one,
            "{name}: {skipped} events against {one_by_one} one by one"
        );
    }
}
