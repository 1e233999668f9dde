//! Where a scenario point's events go: runs replications of stored points
//! (the JSON `dtlsim.simulation` hands the core: `{"point", "platform"}`,
//! as in `benches/data/`) and prints their events by kind
//! ([`sim::census`]), per replication.
//!
//! `cargo run --release -p dtlsim-sim --example event_census -- REPLICATIONS POINT.json...`
//!
//! With `--time` first, the census is not kept: the replications are run
//! as a sweep runs them and their events and CPU time are printed (the
//! process's, from `/proc/self/stat`, so run it on its own).
//!
//! A point's JSON is written by `scripts/event_census.py`, which runs this
//! over experiment 1's grid points and the Cooja X-MAC oracle's.

use sim::census::Census;
use sim::run::{run_census, run_replication};

/// This process's user + system CPU time in seconds (Linux's clock ticks
/// of 1/100 s).
fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after the name
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let usage = "usage: event_census [--time] REPLICATIONS POINT.json...";
    let time = args.next_if(|a| a == "--time").is_some();
    let replications: u64 = args
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{usage}"));
    for path in args {
        let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let v: serde_json::Value = serde_json::from_str(&json).expect("a stored point");
        let s = schema::simulation(&v["point"], &v["platform"]).expect("a valid point");
        if time {
            let start = cpu_s();
            let events: u64 = (0..replications)
                .map(|r| run_replication(&s, r, false, &[]).expect("runs").events)
                .sum();
            let cpu = cpu_s() - start;
            println!(
                "{path}: {:.1} events per replication, {cpu:.2} CPU-s, {:.1} ns per event",
                events as f64 / replications as f64,
                cpu * 1e9 / events.max(1) as f64
            );
            continue;
        }
        let mut census = Census::default();
        let mut events = 0;
        for r in 0..replications {
            let (run, c) = run_census(&s, r).expect("runs");
            events += run.events;
            census.add(&c);
        }
        assert_eq!(census.total(), events, "the census counts every event");
        let per = |n: u64| n as f64 / replications as f64;
        println!("{path}: {:.1} events per replication", per(events));
        let mut rows: Vec<_> = census.counts.iter().collect();
        rows.sort_by_key(|(_, n)| std::cmp::Reverse(**n));
        for (label, n) in rows {
            let share = 100.0 * *n as f64 / events.max(1) as f64;
            println!("  {:>10.1} {share:5.1} %  {label}", per(*n));
        }
    }
}
