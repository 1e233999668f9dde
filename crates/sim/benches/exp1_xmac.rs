//! The simulator's cost per event on experiment 1's grid: DTLS 1.2 PSK
//! handshakes over Contiki-style X-MAC on a WiSMote line, the run the
//! `exp1-xmac-grid` case of `dtlsim bench` repeats 112 000 times.
//!
//! Two points of that grid, 4 hops at 90 % PDR with a check interval of
//! 0.5 s and of 4 s, stored as the JSON the Python front end hands to the
//! simulator (`benches/data/*.json`: the point, settled by
//! `dtlsim.simulation.nest`, and its platform figures). Each iteration runs
//! one replication (the next one each time, so the runs differ as a sweep's
//! do); throughput is in events, so criterion's "elem/s" is events per
//! second and its time per iteration over the events printed at start is
//! the cost per event.
//!
//! `cargo bench -p dtlsim-sim --bench exp1_xmac`; for a profile, build with
//! `CARGO_PROFILE_BENCH_DEBUG=line-tables-only` and run the bench binary
//! under `perf record` with `--bench --profile-time 20`. On a machine
//! shared with other builds, wall time swings with their load; the CPU time
//! of a fixed amount of work (`perf stat -e task-clock` of the bench binary
//! with `--test`: the 2 × 200 replications counted at start, 1.17 M events)
//! does not.
//!
//! Measured (2-core machine, release): 2 313 events per replication at CI
//! 0.5 s, 3 535 at CI 4 s; the fixed work 220 ms of CPU before the FCS,
//! channel-scan and UDP-checksum changes (≈ 187 ns per event), 203 ms after
//! (≈ 173 ns). The event queue's calendar (finding the next non-empty
//! bucket, growing and freeing 4 096 bucket vectors per replication) is
//! 22 % of the profile at CI 0.5 s and 35 % at CI 4 s.
//!
//! With X-MAC's max_transmissions 5 (fixtures regenerated): 2 391 and
//! 4 491 events per replication, the fixed work 1.38 M events. An
//! occupied-bucket bitmap and bucket vectors reused once emptied in the
//! queue, the Fx hash for watched trains and reused buffers: 234 ms of CPU
//! → 156–160 ms (≈ 170 → 115 ns per event); the buckets as lists through
//! one slab measured the same here but 40 % slower at 10 000 nodes. A
//! plain BinaryHeap in place of the calendar measured 175 ms here and
//! 2.4 s against 1.7 s per replication on the 1 000-node TSCH storm
//! (`tsch_storm`); 256-µs or 4-ms buckets
//! were no better on either.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sim::run::run_replication;
use sim::scenario::Scenario;

const POINTS: [(&str, &str); 2] = [
    (
        "4hops-pdr90-ci500ms",
        include_str!("data/exp1-4hops-pdr90-ci500ms.json"),
    ),
    (
        "4hops-pdr90-ci4000ms",
        include_str!("data/exp1-4hops-pdr90-ci4000ms.json"),
    ),
];

/// Replications per point whose events are counted for the throughput.
const SAMPLE: u64 = 200;

fn scenario(json: &str) -> Scenario {
    let v: serde_json::Value = serde_json::from_str(json).expect("a stored point");
    schema::simulation(&v["point"], &v["platform"]).expect("a valid exp1 point")
}

fn exp1(c: &mut Criterion) {
    let mut group = c.benchmark_group("exp1-xmac");
    for (name, json) in POINTS {
        let s = scenario(json);
        let events: u64 = (0..SAMPLE)
            .map(|r| run_replication(&s, r, false, &[]).expect("runs").events)
            .sum();
        let per_run = events / SAMPLE;
        println!("{name}: {per_run} events per replication (mean of {SAMPLE})");
        group.throughput(Throughput::Elements(per_run));
        let mut replication = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                replication = (replication + 1) % SAMPLE;
                black_box(run_replication(&s, replication, false, &[]).expect("runs"))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, exp1);
criterion_main!(benches);
