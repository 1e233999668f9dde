//! Periodic reports from every node to the sink (node 0): one row per
//! replication with reports sent and delivered, their latency, and the
//! network's energy and MAC totals (a 100-node row with columns per node
//! would be unreadable).

use crate::app::periodic::{ReportParams, Reporter, Sink};
use crate::app::record::Record;
use crate::engine::Sim;
use crate::mac::{Mac, MacStats};
use crate::node::app::App;
use crate::node_rows::NodeTable;
use crate::row::{push, snapshot, Row, Snapshot, Value};
use crate::scenario::{Scenario, Workload};
use crate::Time;

/// The node every report goes to.
const SINK: usize = 0;

pub(crate) fn apps(s: &Scenario, replication: u64, nodes: usize) -> Vec<Box<dyn App<Record>>> {
    let Workload::Periodic {
        interval_us,
        payload,
        ..
    } = &s.workload
    else {
        unreachable!("called for a periodic workload")
    };
    let mut apps = super::idle(nodes);
    apps[SINK] = Box::new(Sink);
    for (node, app) in apps.iter_mut().enumerate() {
        if node != SINK {
            *app = Box::new(Reporter::new(ReportParams {
                sink: SINK,
                interval_us: *interval_us,
                payload: *payload,
                seed: s.seed,
                replication,
            }));
        }
    }
    apps
}

pub(crate) fn drive(
    sim: &mut Sim<Record>,
    s: &Scenario,
    replication: u64,
    duration_us: Time,
    nodes: &mut NodeTable,
) -> Vec<Row> {
    let from = snapshot(sim);
    sim.run(duration_us, |_| false);
    let to = snapshot(sim);
    let entries = sim.recorder.entries();
    let sent = entries
        .iter()
        .filter(|e| e.record == Record::ReportSent)
        .count() as u64;
    let latencies: Vec<f64> = entries
        .iter()
        .filter_map(|e| match e.record {
            Record::ReportReceived { sent_at, .. } => Some((e.at - sent_at) as f64),
            _ => None,
        })
        .collect();
    let delivered = latencies.len() as u64;
    let latency: f64 = latencies.iter().sum::<f64>() / delivered.max(1) as f64 / 1e6;
    let max_hops = (0..sim.stacks.len())
        .filter(|&n| n != SINK)
        .map(|n| super::hops_between(sim, n, SINK))
        .max()
        .unwrap_or(0)
        .max(0);
    let mut row = vec![
        ("replication".to_string(), Value::Int(replication as i64)),
        ("index".to_string(), Value::Int(0)),
        ("success".to_string(), Value::Bool(delivered > 0)),
        ("reports_sent".to_string(), Value::Int(sent as i64)),
        (
            "reports_delivered".to_string(),
            Value::Int(delivered as i64),
        ),
        (
            "delivery_ratio".to_string(),
            Value::Float(delivered as f64 / sent.max(1) as f64),
        ),
        ("mean_latency_s".to_string(), Value::Float(latency)),
        ("max_hops".to_string(), Value::Int(max_hops)),
        (
            "virtual_time_s".to_string(),
            Value::Float(duration_us as f64 / 1e6),
        ),
    ];
    let mut energy = 0.0;
    for n in 0..from.times.len() {
        energy += to.times[n]
            .since(&from.times[n])
            .energy(&s.power)
            .total_uj();
    }
    push(&mut row, "energy_total_uj", Value::Float(energy));
    crate::row::formation_columns(&mut row, &from, &to);
    let total = |f: fn(&MacStats) -> u64| {
        let sum = |snap: &Snapshot| snap.macs.iter().map(f).sum::<u64>();
        Value::Int((sum(&to) - sum(&from)) as i64)
    };
    push(&mut row, "frames_sent", total(|m| m.data_frames_sent));
    push(
        &mut row,
        "mac_retransmissions",
        total(|m| m.retransmissions),
    );
    push(&mut row, "mac_drops", total(|m| m.drops));
    let queued: usize = sim.stacks.iter().map(|st| st.mac.queued()).sum();
    push(&mut row, "frames_queued_at_end", Value::Int(queued as i64));
    nodes.add(0, &from, &to, sim.recorder.entries());
    vec![row]
}
