//! One replication of a scenario, from parameters to result rows.
//!
//! The skeleton every workload shares: build the topology, each node's MAC
//! from the scenario's spec, its network layer and the workload's
//! applications; start them; let the workload ([`crate::workload`]) drive
//! the run and build its rows, from snapshots of every node's energy and
//! MAC counters taken here.

use crate::energy::{PowerProfile, StateTimes};
use crate::engine::{Sim, Stack};
use crate::mac::security::{LinkSecurity, SecurityStats};
use crate::mac::Mac;
use crate::mac::{MacStats, Network, NetworkError};
use crate::net::Net;
use crate::rng::{stream, Purpose, NETWORK};
use crate::scenario::{MacSpec, Scenario, TopologySpec};
use crate::topology::{Topology, TopologyError};
use crate::trace::Trace;
use crate::world::{Sent, World};
use crate::{NodeId, Time};

/// A value in a result row.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

pub type Row = Vec<(String, Value)>;

pub struct Replication {
    pub rows: Vec<Row>,
    /// Every frame sent, when asked for (for a pcap).
    pub frames: Option<Vec<Sent>>,
    pub events: u64,
    pub end_time: Time,
}

#[derive(Debug)]
pub enum RunError {
    Topology(TopologyError),
    Dtls(dtls::Error),
    Unreachable {
        client: NodeId,
        server: NodeId,
    },
    /// The MAC cannot run on this topology (TSCH schedule, beacon-enabled
    /// cluster tree).
    Mac(NetworkError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Topology(e) => write!(f, "topology: {e}"),
            RunError::Dtls(e) => write!(f, "DTLS configuration: {e}"),
            RunError::Mac(NetworkError::Schedule(e)) => write!(f, "TSCH schedule: {e}"),
            RunError::Mac(NetworkError::Beacon(e)) => write!(f, "beacon-enabled MAC: {e}"),
            RunError::Unreachable { client, server } => {
                write!(
                    f,
                    "no route from client node {client} to server node {server}"
                )
            }
        }
    }
}

impl std::error::Error for RunError {}

impl Scenario {
    fn topology(&self, replication: u64) -> Result<Topology, RunError> {
        match &self.topology {
            TopologySpec::Line {
                nodes,
                pdr,
                audible,
            } => Topology::line_audible(*nodes, *pdr, *audible),
            TopologySpec::Links { nodes, links } => Topology::from_links(*nodes, links),
            TopologySpec::Random {
                nodes,
                side_m,
                range_m,
            } => {
                let mut rng = stream(self.seed, replication, NETWORK - 1, Purpose::Topology);
                Topology::random_disk(*nodes, *side_m, *range_m, &mut rng)
            }
            TopologySpec::UdgmLine { nodes, udgm } => udgm.line(*nodes),
        }
        .map_err(RunError::Topology)
    }

    /// A node's own link-layer key material: the network's, or an outdated
    /// key, or a level below the network's policy, when the scenario says so.
    fn node_security(&self, node: NodeId) -> Option<LinkSecurity> {
        let outdated = self.outdated_key_nodes.contains(&node);
        let weak = self
            .below_policy_nodes
            .iter()
            .find(|(n, _)| *n == node)
            .map(|&(_, level)| level);
        self.mac.security().map(|mut k| {
            if outdated {
                k.key_index = k.key_index.wrapping_add(1);
                k.key.iter_mut().for_each(|b| *b ^= 0xff);
            }
            if let Some(level) = weak {
                k.level = level;
            }
            k
        })
    }
}

/// Snapshot of every node at one instant: time per state, MAC counters.
pub(crate) struct Snapshot {
    pub times: Vec<StateTimes>,
    pub macs: Vec<MacStats>,
    pub security: Vec<Option<SecurityStats>>,
}

pub(crate) fn snapshot(sim: &mut Sim) -> Snapshot {
    sim.settle_energy();
    let at = sim.now();
    Snapshot {
        times: (0..sim.stacks.len())
            .map(|n| sim.world.energest(n).times(at))
            .collect(),
        macs: sim.stacks.iter().map(|s| s.mac.stats()).collect(),
        security: sim.stacks.iter().map(|s| s.mac.security_stats()).collect(),
    }
}

/// Columns describing what every node did between two snapshots.
pub(crate) fn interval_columns(
    row: &mut Row,
    from: &Snapshot,
    to: &Snapshot,
    power: &PowerProfile,
    beacon: bool,
) {
    let mut total_uj = 0.0;
    for n in 0..from.times.len() {
        let e = to.times[n].since(&from.times[n]).energy(power);
        let m = (to.macs[n], from.macs[n]);
        total_uj += e.total_uj();
        let p = format!("node{n}_");
        push(row, &format!("{p}energy_uj"), Value::Float(e.total_uj()));
        push(
            row,
            &format!("{p}cpu_active_uj"),
            Value::Float(e.cpu_active_uj),
        );
        push(row, &format!("{p}cpu_lpm_uj"), Value::Float(e.cpu_lpm_uj));
        push(row, &format!("{p}radio_tx_uj"), Value::Float(e.radio_tx_uj));
        push(row, &format!("{p}radio_rx_uj"), Value::Float(e.radio_rx_uj));
        push(
            row,
            &format!("{p}radio_off_uj"),
            Value::Float(e.radio_off_uj),
        );
        let frames = m.0.data_frames_sent - m.1.data_frames_sent;
        push(row, &format!("{p}frames_sent"), Value::Int(frames as i64));
        let bytes = m.0.data_bytes_sent - m.1.data_bytes_sent;
        push(
            row,
            &format!("{p}frame_bytes_sent"),
            Value::Int(bytes as i64),
        );
        let retx = m.0.retransmissions - m.1.retransmissions;
        push(
            row,
            &format!("{p}mac_retransmissions"),
            Value::Int(retx as i64),
        );
        let drops = m.0.drops - m.1.drops;
        push(row, &format!("{p}mac_drops"), Value::Int(drops as i64));
        let strobes = m.0.strobes_sent - m.1.strobes_sent;
        push(row, &format!("{p}strobes_sent"), Value::Int(strobes as i64));
        if beacon {
            let beacons = m.0.beacons_sent - m.1.beacons_sent;
            push(row, &format!("{p}beacons_sent"), Value::Int(beacons as i64));
            let polls = m.0.data_requests_sent - m.1.data_requests_sent;
            push(
                row,
                &format!("{p}data_requests_sent"),
                Value::Int(polls as i64),
            );
        }
        if let (Some(a), Some(b)) = (to.security[n], from.security[n]) {
            let refused = |x: u64, y: u64| Value::Int((x - y) as i64);
            push(
                row,
                &format!("{p}ll_refused_mic"),
                refused(a.refused_mic, b.refused_mic),
            );
            push(
                row,
                &format!("{p}ll_refused_replay"),
                refused(a.refused_replay, b.refused_replay),
            );
            push(
                row,
                &format!("{p}ll_refused_level"),
                refused(a.refused_level, b.refused_level),
            );
            push(
                row,
                &format!("{p}ll_refused_unknown_key"),
                refused(a.refused_unknown_key, b.refused_unknown_key),
            );
        }
    }
    push(row, "energy_total_uj", Value::Float(total_uj));
}

pub(crate) fn push(row: &mut Row, k: &str, v: Value) {
    row.push((k.to_string(), v));
}

/// What replication `replication` of `s` runs on: its topology and what its
/// MACs share (TSCH schedule, beacon-enabled cluster tree), or why it
/// cannot run. Every check made before a replication simulates is here.
fn prepare(s: &Scenario, replication: u64) -> Result<(Topology, Network), RunError> {
    let topology = s.topology(replication)?;
    if topology.hops(s.client, s.server).is_none() {
        return Err(RunError::Unreachable {
            client: s.client,
            server: s.server,
        });
    }
    let network = s
        .mac
        .network(&topology, s.server, s.seed, replication)
        .map_err(RunError::Mac)?;
    Ok((topology, network))
}

/// Whether `s` can run, found without simulating: replication 0's topology,
/// route, shared MAC plan and applications are built and dropped. A caller
/// refuses a point with this before any work starts. For line and explicit
/// topologies the answer holds for every replication (a beacon schedule's
/// random phase does not change whether active periods fit); a random
/// topology is drawn anew per replication, and only its first is planned.
pub fn plan(s: &Scenario) -> Result<(), RunError> {
    let (topology, _) = prepare(s, 0)?;
    crate::workload::apps(s, 0, topology.nodes())?;
    Ok(())
}

/// Run replication `replication` of `s`.
pub fn run_replication(
    s: &Scenario,
    replication: u64,
    record_frames: bool,
    jammed: &[(NodeId, u64)],
) -> Result<Replication, RunError> {
    run(s, replication, record_frames, jammed, None).map(|(r, _)| r)
}

/// Run replication `replication` of `s` keeping its per-event trace (at
/// most `limit` rows) and every frame sent (as for a pcap): the same run,
/// bit for bit, as without them.
pub fn run_traced(
    s: &Scenario,
    replication: u64,
    limit: usize,
) -> Result<(Replication, Trace), RunError> {
    let (r, trace) = run(s, replication, true, &[], Some(limit))?;
    Ok((r, trace.expect("asked for")))
}

fn run(
    s: &Scenario,
    replication: u64,
    record_frames: bool,
    jammed: &[(NodeId, u64)],
    trace_limit: Option<usize>,
) -> Result<(Replication, Option<Trace>), RunError> {
    let (topology, network) = prepare(s, replication)?;
    let nodes = topology.nodes();
    let mut world = World::new(topology, s.seed, replication);
    world.jammed = jammed.to_vec();
    if let TopologySpec::UdgmLine { udgm, .. } = &s.topology {
        let key = rand::Rng::next_u64(&mut stream(s.seed, replication, NETWORK, Purpose::Channel));
        world.channel.set_tx_success(udgm.success_ratio_tx, key);
    }
    if let MacSpec::Tsch(t) = &s.mac {
        world.channel_pdr = t.channel_pdr.clone();
    }
    world.set_processing(s.processing);
    if record_frames {
        world.sent = Some(Vec::new());
    }
    world.trace = trace_limit.map(Trace::new);
    let apps = crate::workload::apps(s, replication, nodes)?;
    let secured = s.mac.security().is_some();
    let addressing = s.mac.addressing();
    let stacks = apps
        .into_iter()
        .enumerate()
        .map(|(n, app)| Stack {
            mac: s.mac.build(n, &network, s.node_security(n)),
            net: Net::with_link_addresses(n, 60_000_000, addressing, secured),
            app,
        })
        .collect();
    let mut sim = Sim::new(world, stacks);
    sim.start();
    let rows = crate::workload::drive(&mut sim, s, replication);
    let frames = sim.world.sent.take();
    let trace = sim.world.trace.take().map(|mut t| {
        t.finish(frames.as_deref().unwrap_or(&[]), sim.recorder.entries());
        t
    });
    let r = Replication {
        rows,
        events: sim.events(),
        end_time: sim.now(),
        frames,
    };
    Ok((r, trace))
}
