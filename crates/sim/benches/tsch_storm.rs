//! The simulator's cost per event on a large TSCH network: the 1 000-node
//! secure-bootstrap storm (`scenarios/tsch-storm-1000.toml`, every node
//! performs a DTLS 1.2 handshake with the border router over a 6TiSCH
//! minimal schedule with RPL storing-mode routes, 1 h of simulated time).
//!
//! The point is stored as the JSON the Python front end hands to the
//! simulator (`benches/data/tsch-storm-1000.json`: the scenario's one point,
//! settled by `dtlsim.simulation.nest`, beside
//! `dtlsim.simulation.platform_figures` of it); regenerate it the same way
//! when the scenario gains keys. Throughput is in events, as in
//! `exp1_xmac`. An iteration is seconds long: on a shared machine, measure
//! the CPU time of `perf stat -e task-clock` of the bench binary with
//! `--bench --test` (one counting run plus one iteration).
//!
//! Measured (2-core machine, release): 9 426 545 events per replication;
//! the fixed work 3.74 s of CPU with the calendar of per-bucket vectors
//! (≈ 198 ns per event), 3.24–3.34 s with reused bucket vectors and
//! listeners that look for strobe trains only while one is on the air
//! (≈ 175 ns).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sim::run::run_replication;
use sim::scenario::Scenario;

const POINT: &str = include_str!("data/tsch-storm-1000.json");

fn scenario(json: &str) -> Scenario {
    let v: serde_json::Value = serde_json::from_str(json).expect("a stored point");
    schema::simulation(&v["point"], &v["platform"]).expect("a valid storm point")
}

fn storm(c: &mut Criterion) {
    let s = scenario(POINT);
    let events = run_replication(&s, 0, false, &[]).expect("runs").events;
    println!("tsch-storm-1000: {events} events per replication");
    let mut group = c.benchmark_group("tsch-storm");
    group.sample_size(10);
    group.throughput(Throughput::Elements(events));
    group.bench_function("1000-nodes", |b| {
        b.iter(|| black_box(run_replication(&s, 0, false, &[]).expect("runs")))
    });
    group.finish();
}

criterion_group!(benches, storm);
criterion_main!(benches);
