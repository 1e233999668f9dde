//! The simulator engine fed an arbitrary scenario file: TOML → the schema's
//! reading and rules → the simulator's spec → a short run.

use sim::row::Value;
use sim::run::{plan, run_traced};
use sim::scenario::{Scenario, Workload};
use sim::trace::FrameOutcomes;

/// The platform figures the runs use: what `dtlsim.simulation.platform_figures`
/// gives for a TelosB point of `scenarios/exp5-llsec-tsch.toml` with
/// link-layer security (software CCM*, datasheet figures, TSCH stack costs),
/// so every MAC and security level finds the figures it needs.
const PLATFORM: &str = include_str!("platform-telosb.json");

/// Nodes a fuzzed scenario may have and still be run (larger ones are
/// checked, not run: a run must stay short).
pub const MAX_RUN_NODES: usize = 8;
/// Virtual time a fuzzed run may last after its start: the bound on its
/// events (the engine stops at the scenario's `max_time_us`).
pub const MAX_RUN_US: u64 = 20_000_000;
/// Trace rows kept of a fuzzed run (about 100 bytes each, within
/// libFuzzer's allocation bound); a run that makes more is checked without
/// its frame rows.
pub const MAX_TRACE_ROWS: usize = 200_000;

/// Cut a run to [`MAX_RUN_US`] of virtual time: the workloads that stop
/// on a count give up at `max_time_us`; the periodic one runs until its
/// duration (from time 0), the sessions one for its warm-up and window
/// after the start. Returns the time the run must end by.
fn cut_short(s: &mut Scenario) -> u64 {
    let bound = s.start_us.saturating_add(MAX_RUN_US);
    s.max_time_us = s.max_time_us.min(bound);
    match &mut s.workload {
        Workload::Periodic { duration_us, .. } => *duration_us = (*duration_us).min(bound),
        Workload::Sessions(w) => {
            w.warmup_us = w.warmup_us.min(MAX_RUN_US / 2);
            w.duration_us = w.duration_us.min(MAX_RUN_US / 2);
        }
        _ => {}
    }
    bound
}

/// A scenario file's bytes: a file that is not UTF-8 TOML is refused by the
/// reader before the schema sees it. The schema either refuses the point,
/// every problem naming a key and what is allowed, or settles it; a settled
/// point that the simulator plans is run (if small) with its virtual time cut
/// to [`MAX_RUN_US`] after its start: no panic, every energy figure finite
/// and not negative (or NaN: a per-session figure without a session), the
/// run ends by its time bound, virtual time never goes backwards and every
/// frame copy sent is received or lost with a reason
/// (`sim::trace::Trace::check_frames`).
pub fn run(data: &[u8]) {
    let _ = checked_frames(data);
}

/// [`run`], returning what the run's frames became when it ran and its
/// frames were checked (a refused, unplanned, large or untraceably long
/// scenario: None).
pub fn checked_frames(data: &[u8]) -> Option<FrameOutcomes> {
    let Ok(text) = std::str::from_utf8(data) else {
        return None;
    };
    let Ok(table) = text.parse::<toml::Table>() else {
        return None;
    };
    let Ok(point) = serde_json::to_value(&table) else {
        return None;
    };
    let platform: serde_json::Value = serde_json::from_str(PLATFORM).expect("the platform figures");
    let mut scenario = match schema::simulation(&point, &platform) {
        Ok(s) => s,
        Err(problems) => {
            assert!(!problems.is_empty(), "a refusal names a problem");
            for p in &problems {
                assert!(!p.key.is_empty(), "a problem names its key: {p:?}");
                assert!(
                    !p.allowed.is_empty(),
                    "a problem says what is allowed: {p:?}"
                );
            }
            return None;
        }
    };
    if plan(&scenario).is_err() || scenario.topology.nodes() > MAX_RUN_NODES {
        return None;
    }
    let bound = cut_short(&mut scenario);
    let Ok((r, trace)) = run_traced(&scenario, 0, MAX_TRACE_ROWS) else {
        return None;
    };
    assert_eq!(trace.went_back, 0, "virtual time went backwards");
    let frames = (trace.dropped == 0).then(|| {
        trace
            .check_frames()
            .unwrap_or_else(|problems| panic!("frames without an outcome: {problems:#?}"))
    });
    assert!(
        r.end_time <= bound,
        "the run ends by {bound} µs, not {}",
        r.end_time
    );
    for row in &r.rows {
        for (name, v) in row {
            if let (true, Value::Float(x)) = (name.contains("energy"), v) {
                // NaN: a ratio with nothing to divide by (no session made)
                assert!(x.is_nan() || (x.is_finite() && *x >= 0.0), "{name} = {x}");
            }
        }
    }
    frames
}
