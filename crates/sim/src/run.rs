//! One replication of a scenario, from parameters to result rows.
//!
//! The skeleton every workload shares: build the topology, each node's MAC
//! from the scenario's spec, its network layer and the workload's
//! applications; start them; let the workload ([`crate::workload`]) drive
//! the run and build its rows ([`crate::row`]).

use crate::census::Census;
use crate::engine::{Sim, Stack};
use crate::mac::network::{Network, NetworkError};
use crate::mac::security::LinkSecurity;
use crate::net::{Net, CONTIKI3_COOJA_REASS_MAXAGE_US};
use crate::rng::{stream, Purpose, NETWORK};
use crate::row::{Row, Value};
use crate::scenario::{MacSpec, Scenario, TopologySpec};
use crate::topology::{Topology, TopologyError};
use crate::trace::Trace;
use crate::world::{Sent, World};
use crate::{NodeId, Time};

pub struct Replication {
    pub rows: Vec<Row>,
    /// One row per node and result row: what each node did over that
    /// row's interval ([`crate::node_rows`]).
    pub nodes: Vec<Row>,
    /// Every frame sent, when asked for (for a pcap).
    pub frames: Option<Vec<Sent>>,
    /// With `frames`: every copy a radio received intact (receiver,
    /// emission, copy), for a capture at one node ([`crate::capture`]).
    pub heard: Vec<(NodeId, u64, u64)>,
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
                positions: Some(pos),
                range_m,
                border_routers,
                ..
            } => Topology::disk_forest_at(pos, *border_routers, *range_m),
            TopologySpec::Random {
                nodes,
                side_m,
                range_m,
                positions: None,
                border_routers,
            } => {
                let mut rng = stream(self.seed, replication, NETWORK - 1, Purpose::Topology);
                Topology::random_disk_forest(*nodes, *border_routers, *side_m, *range_m, &mut rng)
            }
            TopologySpec::Area(area) => area.place(self.seed, replication).map(|(_, t)| t),
            TopologySpec::UdgmLine { nodes, udgm } => udgm.line(*nodes),
            TopologySpec::LogDistanceLine { nodes, medium } => {
                medium.line(*nodes, self.seed, replication)
            }
            TopologySpec::PisterHackLine { nodes, medium } => {
                medium.line(*nodes, self.seed, replication)
            }
            TopologySpec::Trace { nodes, replay } => {
                let links: Vec<_> = (replay.link_means().into_iter())
                    .filter(|l| l.2 > 0.0)
                    .collect();
                Topology::from_links(*nodes, &links)
            }
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
    crate::workload::apps(s, 0, &topology)?;
    Ok(())
}

/// Run replication `replication` of `s`.
pub fn run_replication(
    s: &Scenario,
    replication: u64,
    record_frames: bool,
    jammed: &[(NodeId, u64)],
) -> Result<Replication, RunError> {
    run(s, replication, record_frames, jammed, None, false).map(|(r, _, _)| r)
}

/// Run replication `replication` of `s` counting its events by kind
/// ([`crate::census`]): the same run, bit for bit, as without it.
pub fn run_census(s: &Scenario, replication: u64) -> Result<(Replication, Census), RunError> {
    let (r, _, census) = run(s, replication, false, &[], None, true)?;
    Ok((r, census.expect("asked for")))
}

/// Run replication `replication` of `s` keeping its per-event trace (at
/// most `limit` rows) and every frame sent (as for a pcap): the same run,
/// bit for bit, as without them.
pub fn run_traced(
    s: &Scenario,
    replication: u64,
    limit: usize,
) -> Result<(Replication, Trace), RunError> {
    let (r, trace, _) = run(s, replication, true, &[], Some(limit), false)?;
    Ok((r, trace.expect("asked for")))
}

fn run(
    s: &Scenario,
    replication: u64,
    record_frames: bool,
    jammed: &[(NodeId, u64)],
    trace_limit: Option<usize>,
    census: bool,
) -> Result<(Replication, Option<Trace>, Option<Census>), RunError> {
    let (topology, network) = prepare(s, replication)?;
    let nodes = topology.nodes();
    let mut world = World::new(topology, s.seed, replication);
    world.jammed = jammed.to_vec();
    let udgm = match &s.topology {
        TopologySpec::UdgmLine { udgm, .. } => Some(udgm),
        TopologySpec::Area(crate::medium::Area {
            medium: crate::medium::AreaMedium::Udgm(udgm),
            ..
        }) => Some(udgm),
        _ => None,
    };
    if let Some(udgm) = udgm {
        let key = rand::Rng::next_u64(&mut stream(s.seed, replication, NETWORK, Purpose::Channel));
        world.channel.set_tx_success(udgm.success_ratio_tx, key);
    }
    match &s.topology {
        TopologySpec::LogDistanceLine { medium, .. } => {
            let signals = medium.signals(nodes, s.seed, replication);
            world.channel.set_signals(signals);
        }
        TopologySpec::Trace { replay, .. } => world.replay = Some(replay.clone()),
        TopologySpec::Area(area) => {
            // the placement prepare() routed over, drawn again from its stream
            let (pos, _) = area
                .place(s.seed, replication)
                .map_err(RunError::Topology)?;
            if let Some(signals) = area.signals(&pos, s.seed, replication) {
                world.channel.set_signals(signals);
            }
        }
        _ => {}
    }
    if let MacSpec::Tsch(t) = &s.mac {
        world.channel_pdr = t.channel_pdr.clone();
    }
    // a Cooja mote's frames are on the air as long as Cooja says
    let cooja_motes = match &s.mac {
        MacSpec::Xmac(x) => x.cooja_mote_ticks,
        MacSpec::Contikimac(c) => c.cooja_mote_ticks,
        MacSpec::Tsch(t) => t.busy_wait_step_us > 0,
        _ => false,
    };
    if cooja_motes {
        world.channel.airtime = crate::channel::Airtime::Cooja;
    }
    world.set_processing(s.processing);
    if record_frames {
        world.sent = Some(Vec::new());
    }
    world.trace = trace_limit.map(Trace::new);
    // X-MAC's lost copies move nothing but a Cooja mote's radio buffer; a
    // trace keeps every copy judged, so it judges them one by one
    world.skip_own_collisions =
        matches!(&s.mac, MacSpec::Xmac(x) if !x.cooja_mote_ticks) && trace_limit.is_none();
    // likewise a Cooja mote's strobe loop runs one event per step in a
    // trace (tests/cooja_loop_skip.rs compares the two)
    world.skip_quiet_loop_steps = trace_limit.is_none();
    let apps = crate::workload::apps(s, replication, world.channel.topology())?;
    let secured = s.mac.security().is_some();
    let addressing = s.mac.addressing();
    let contiki_context_byte = s.mac.contiki_context_byte();
    let contiki_reassembly = s.mac.contiki_reassembly();
    let stacks = apps
        .into_iter()
        .enumerate()
        .map(|(n, app)| Stack {
            mac: s.mac.build(n, &network, s.node_security(n)),
            net: Net::with_link_addresses(n, 60_000_000, addressing, secured)
                .carrying_cid(contiki_context_byte)
                .reassembling_as_contiki3(contiki_reassembly, CONTIKI3_COOJA_REASS_MAXAGE_US),
            app,
        })
        .collect();
    let mut sim = Sim::new(world, stacks);
    if census {
        sim.census = Some(Census::default());
    }
    if matches!(&s.mac, MacSpec::Tsch(t) if t.rpl) {
        use crate::rpl::{node::RplParams, router::RplRouter};
        // RPL's DODAG is rooted where the computed routes are (node 0)
        let mut router = RplRouter::new(nodes, 0, RplParams::CONTIKI_NG, s.seed, replication);
        if let MacSpec::Tsch(t) = &s.mac {
            if let crate::scenario::TschSchedule::Orchestra {
                unicast_period,
                common_period,
                line_neighbours_up_to: 0,
                ..
            } = t.schedule
            {
                router = router.with_orchestra(unicast_period, common_period);
            }
        }
        sim.route_by_rpl(router);
    }
    if s.power_on_window_us > 0 {
        let on = crate::power_on::on_from_start(sim.world.channel.topology(), s.server);
        let at =
            crate::power_on::power_on_times(s.seed, replication, nodes, s.power_on_window_us, &on);
        sim.power_on_at(at);
    }
    sim.start();
    let mut nodes = crate::node_rows::NodeTable::new(replication, &s.power);
    let topology = sim.world.channel.topology();
    let forest = topology.border_routers().len() > 1;
    if forest {
        // each node's border router and hops to it, for the load each carried
        let of = |n: NodeId| {
            let root = topology.root_of(n).unwrap_or(n);
            (root, topology.hops(n, root).unwrap_or(0))
        };
        nodes = nodes.with_border_routers((0..topology.nodes()).map(of).collect());
    }
    let mut rows = crate::workload::drive(&mut sim, s, replication, &mut nodes);
    if forest {
        // whole-run count, on the replication's first row only (as RPL's)
        let crossed = sim.backbone_datagrams as i64;
        for (i, row) in rows.iter_mut().enumerate() {
            let v = if i == 0 { crossed } else { 0 };
            row.push(("backbone_datagrams".to_owned(), Value::Int(v)));
        }
    }
    if let Some(router) = &sim.router {
        // whole-run sums over the nodes: on the replication's first row
        // only (0 on the others), so a sum over its rows is the total
        let totals = router.totals();
        for (i, row) in rows.iter_mut().enumerate() {
            row.extend(totals.iter().map(|(k, v)| {
                let v = if i == 0 { v.clone() } else { Value::Int(0) };
                (k.clone(), v)
            }));
        }
    }
    let nodes = nodes.rows;
    let frames = sim.world.sent.take();
    let heard = std::mem::take(&mut sim.world.heard);
    let trace = sim.world.trace.take().map(|mut t| {
        let records = sim.recorder.entries().iter();
        t.finish(
            frames.as_deref().unwrap_or(&[]),
            records.map(|e| e.record.trace_row(e.at, e.node)),
        );
        t
    });
    let r = Replication {
        rows,
        nodes,
        events: sim.events(),
        end_time: sim.now(),
        frames,
        heard,
    };
    Ok((r, trace, sim.census.take()))
}
