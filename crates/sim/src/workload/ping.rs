//! Pings from the client to the server's echo, over plain UDP or over a
//! DTLS session: one row per answered (or, over UDP, lost) ping with its
//! round-trip time.

use crate::app::dtls::AfterHandshake;
use crate::app::echo::{EchoServer, PingClient, PingParams};
use crate::app::pause::Pause;
use crate::app::record::Record;
use crate::engine::Sim;
use crate::node::app::App;
use crate::node_rows::NodeTable;
use crate::row::{snapshot, Row, Value};
use crate::run::RunError;
use crate::scenario::{Scenario, Workload};
use crate::Time;

pub(crate) fn apps(
    s: &Scenario,
    replication: u64,
    nodes: usize,
) -> Result<Vec<Box<dyn App<Record>>>, RunError> {
    let Workload::Ping {
        dtls,
        payload,
        count,
        timeout_us,
        pause_us,
    } = &s.workload
    else {
        unreachable!("called for a ping workload")
    };
    let mut apps = super::idle(nodes);
    match dtls {
        None => {
            apps[s.client] = Box::new(PingClient::new(PingParams {
                server: s.server,
                payload: *payload,
                count: *count,
                first_at: s.start_us,
                timeout_us: *timeout_us,
                pause_us: *pause_us,
            }));
            apps[s.server] = Box::new(EchoServer);
        }
        Some((client, server)) => {
            let after = AfterHandshake::Ping {
                payload: *payload,
                count: *count,
                timeout_us: *timeout_us,
            };
            use super::handshakes::{client_app, server_app};
            let client = client.clone().into();
            apps[s.client] = Box::new(client_app(
                s,
                client,
                1,
                Pause::fixed(*pause_us),
                after,
                replication,
            ));
            apps[s.server] = server_app(s, server.clone().into(), true, replication)?;
        }
    }
    Ok(apps)
}

/// Pings over UDP until all are answered or lost.
pub(crate) fn drive(
    sim: &mut Sim<Record>,
    s: &Scenario,
    replication: u64,
    nodes: &mut NodeTable,
) -> Vec<Row> {
    let Workload::Ping { count, .. } = s.workload else {
        unreachable!("called for a ping workload")
    };
    let from = snapshot(sim);
    // only the ping client records in this workload, once per ping
    sim.run(s.max_time_us, |sim| sim.recorder.len() >= count as usize);
    let to = snapshot(sim);
    nodes.add(0, &from, &to, sim.recorder.entries());
    let h = super::hops(sim, s);
    sim.recorder
        .ping_rtts()
        .into_iter()
        .enumerate()
        .map(|(i, rtt)| row(replication, i, rtt, h))
        .collect()
}

/// Pings over one DTLS session until the session ends: a row per answered ping.
pub(crate) fn drive_dtls(
    sim: &mut Sim<Record>,
    s: &Scenario,
    replication: u64,
    nodes: &mut NodeTable,
) -> Vec<Row> {
    let ended = |r: &Record| matches!(r, Record::HandshakeEnded(_));
    let from = snapshot(sim);
    sim.run(s.max_time_us, |sim| {
        sim.recorder.entries().iter().any(|e| ended(&e.record))
    });
    let to = snapshot(sim);
    nodes.add(0, &from, &to, sim.recorder.entries());
    let h = super::hops(sim, s);
    sim.recorder
        .entries()
        .iter()
        .filter_map(|e| match &e.record {
            Record::HandshakeEnded(r) => Some(r.rtts_us.iter().map(|&rtt| Some(rtt))),
            _ => None,
        })
        .flatten()
        .enumerate()
        .map(|(i, rtt)| row(replication, i, rtt, h))
        .collect()
}

fn row(replication: u64, index: usize, rtt: Option<Time>, hops: i64) -> Row {
    vec![
        ("replication".to_string(), Value::Int(replication as i64)),
        ("index".to_string(), Value::Int(index as i64)),
        ("success".to_string(), Value::Bool(rtt.is_some())),
        (
            "rtt_ms".to_string(),
            Value::Float(rtt.map_or(f64::NAN, |t| t as f64 / 1000.0)),
        ),
        ("hops".to_string(), Value::Int(hops)),
    ]
}
