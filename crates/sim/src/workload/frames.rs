//! A frame exchange between client and server (latency studies): one row
//! per replication with the summed latency of the frames, raw (to the
//! receiving application) and counted to the end of the timeslot that
//! delivered each frame, as the TSCH closed form counts.

use crate::app::frames::{FrameExchange, FrameParams};
use crate::app::record::Record;
use crate::engine::Sim;
use crate::node::app::App;
use crate::node_rows::NodeTable;
use crate::row::{interval_columns, push, snapshot, Row, Value};
use crate::scenario::{MacSpec, Scenario, Workload};

pub(crate) fn apps(s: &Scenario, replication: u64, nodes: usize) -> Vec<Box<dyn App<Record>>> {
    let Workload::Frames {
        frames,
        payload,
        max_wait_us,
    } = &s.workload
    else {
        unreachable!("called for a frame exchange")
    };
    let mut apps = super::idle(nodes);
    for (node, peer, initiator) in [(s.client, s.server, true), (s.server, s.client, false)] {
        apps[node] = Box::new(FrameExchange::new(
            FrameParams {
                peer,
                frames: *frames,
                payload: *payload,
                max_wait_us: *max_wait_us,
                first_at: s.start_us,
                initiator,
                seed: s.seed,
                replication,
            },
            node,
        ));
    }
    apps
}

pub(crate) fn drive(
    sim: &mut Sim<Record>,
    s: &Scenario,
    replication: u64,
    frames: u32,
    nodes: &mut NodeTable,
) -> Vec<Row> {
    let from = snapshot(sim);
    // only the two ends record in this workload, once per frame delivered
    sim.run(s.max_time_us, |sim| sim.recorder.len() >= frames as usize);
    let to = snapshot(sim);
    let slot = match &s.mac {
        MacSpec::Tsch(t) => Some(t.template.slot_us),
        _ => None,
    };
    let mut raw = 0;
    let mut aligned = 0;
    let mut delivered = 0;
    for e in sim.recorder.entries() {
        if let Record::FrameDelivered { sent_at, .. } = e.record {
            let got = e.at;
            raw += got - sent_at;
            aligned += slot.map_or(got, |slot| (got / slot + 1) * slot) - sent_at;
            delivered += 1;
        }
    }
    let mut row = vec![
        ("replication".to_string(), Value::Int(replication as i64)),
        ("index".to_string(), Value::Int(0)),
        (
            "success".to_string(),
            Value::Bool(delivered >= frames as usize),
        ),
        ("frames_delivered".to_string(), Value::Int(delivered as i64)),
        ("latency_s".to_string(), Value::Float(raw as f64 / 1e6)),
        (
            "slot_latency_s".to_string(),
            Value::Float(aligned as f64 / 1e6),
        ),
    ];
    push(&mut row, "hops", Value::Int(super::hops(sim, s)));
    interval_columns(
        &mut row,
        &from,
        &to,
        &s.power,
        matches!(s.mac, MacSpec::Beacon(_)),
    );
    nodes.add(0, &from, &to, sim.recorder.entries());
    vec![row]
}
