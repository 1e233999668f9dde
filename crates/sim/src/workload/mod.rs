//! Workloads: what the applications do in a replication and what it
//! reports. One module per workload, each owning its applications, the
//! driver that runs them to their end, and its result row; the driver reads
//! what the applications recorded ([`crate::app::record`]).

pub mod frames;
pub mod handshakes;
pub mod outage;
pub mod periodic;
pub mod ping;
pub mod sessions;

use crate::app::record::Record;
use crate::engine::Sim;
use crate::node::app::{App, Idle};
use crate::node_rows::NodeTable;
use crate::row::Row;
use crate::run::RunError;
use crate::scenario::{Scenario, Workload};
use crate::NodeId;

/// The application of every node of `nodes` for the scenario's workload.
pub(crate) fn apps(
    s: &Scenario,
    replication: u64,
    topology: &crate::topology::Topology,
) -> Result<Vec<Box<dyn App<Record>>>, RunError> {
    let nodes = topology.nodes();
    match &s.workload {
        Workload::Handshakes { .. } | Workload::Handshakes13 { .. } => {
            handshakes::apps(s, replication, nodes)
        }
        Workload::Edhoc { .. } => Ok(handshakes::edhoc_apps(s, replication, nodes)),
        Workload::Frames { .. } => Ok(frames::apps(s, replication, nodes)),
        Workload::Periodic { .. } => Ok(periodic::apps(s, replication, nodes)),
        Workload::Ping { .. } => ping::apps(s, replication, nodes),
        Workload::Sessions(_) => sessions::apps(s, replication, topology),
    }
}

/// Run the started simulation to the workload's end; its result rows, and
/// in `nodes` the per-node rows of each ([`crate::node_rows`]).
pub(crate) fn drive(
    sim: &mut Sim<Record>,
    s: &Scenario,
    replication: u64,
    nodes: &mut NodeTable,
) -> Vec<Row> {
    match &s.workload {
        Workload::Handshakes { count, .. }
        | Workload::Handshakes13 { count, .. }
        | Workload::Edhoc { count, .. } => handshakes::drive(sim, s, replication, *count, nodes),
        Workload::Frames { frames, .. } => frames::drive(sim, s, replication, *frames, nodes),
        Workload::Periodic { duration_us, .. } => {
            periodic::drive(sim, s, replication, *duration_us, nodes)
        }
        Workload::Ping { dtls: None, .. } => ping::drive(sim, s, replication, nodes),
        Workload::Ping { dtls: Some(_), .. } => ping::drive_dtls(sim, s, replication, nodes),
        Workload::Sessions(_) => sessions::drive(sim, s, replication, nodes),
    }
}

/// A node with nothing above UDP at every place, to fill in.
fn idle(nodes: usize) -> Vec<Box<dyn App<Record>>> {
    (0..nodes)
        .map(|_| Box::new(Idle) as Box<dyn App<Record>>)
        .collect()
}

/// Hops from the scenario's client to its server (-1: no route).
fn hops(sim: &Sim<Record>, s: &Scenario) -> i64 {
    hops_between(sim, s.client, s.server)
}

fn hops_between(sim: &Sim<Record>, from: NodeId, to: NodeId) -> i64 {
    sim.world
        .channel
        .topology()
        .hops(from, to)
        .map_or(-1, |h| h as i64)
}
