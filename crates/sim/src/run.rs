//! One replication of a scenario, from parameters to result rows.
//!
//! The driver builds the topology, a MAC and network layer per node, the
//! applications (a DTLS client and server at the ends of the path, or a ping
//! client and echo server), runs the event loop, and turns what happened
//! into one row per handshake (or per ping) with the energy every node spent
//! in it, per component and state.

use std::sync::Arc;

use dtls::ServerConfig;

use crate::app::dtls::{
    AfterHandshake, ClientParams, DtlsClient, DtlsServer, HandshakeRecord, ServerParams,
};
use crate::app::echo::{EchoServer, PingClient, PingParams};
use crate::app::frames::{FrameExchange, FrameParams};
use crate::app::periodic::{ReportParams, Reporter, Sink};
use crate::app::{App, Idle, DTLS_PORT};
use crate::energy::{PowerProfile, StateTimes};
use crate::engine::{Sim, Stack};
use crate::mac::beacon::{cluster_tree, BeaconConfigError, BeaconMac, BeaconParams, Role};
use crate::mac::csma::{Csma, CsmaParams};
use crate::mac::security::LinkSecurity;
use crate::mac::security::SecurityStats;
use crate::mac::tsch::{Cell, Tsch, TschParams, DEFAULT_HOPPING};
use crate::mac::xmac::{Xmac, XmacParams};
use crate::mac::{LinkAddressing, Mac, MacStats};
use crate::net::Net;
use crate::rng::{stream, Purpose, NETWORK};
use crate::topology::{Topology, TopologyError};
use crate::world::{Sent, World};

fn sim_topology(world: &World) -> &Topology {
    world.channel.topology()
}
use crate::scenario::{GivenCell, MacSpec, Scenario, TopologySpec, TschSchedule, Workload};
use crate::{NodeId, Time};

/// The cells of each node for a given list; refuses cells outside the
/// slotframe or the topology, and two cells of one node in one slot (a
/// radio does one thing per slot).
pub fn given_schedule(
    nodes: usize,
    cells: &[GivenCell],
    slotframe: u32,
) -> Result<Vec<Vec<Cell>>, String> {
    let mut per_node: Vec<Vec<Cell>> = vec![Vec::new(); nodes];
    for c in cells {
        if c.from >= nodes || c.to >= nodes || c.from == c.to {
            return Err(format!(
                "cell {}→{}: nodes must differ and be in [0, {}]",
                c.from,
                c.to,
                nodes - 1
            ));
        }
        if c.slot >= slotframe || c.channel_offset > 15 {
            return Err(format!(
                "cell {}→{} at slot {}, channel offset {}: slot must be in [0, {}], offset in [0, 15]",
                c.from,
                c.to,
                c.slot,
                c.channel_offset,
                slotframe - 1
            ));
        }
        for (node, peer, tx) in [(c.from, c.to, true), (c.to, c.from, false)] {
            if per_node[node].iter().any(|x| x.slot == c.slot) {
                return Err(format!("node {node} has two cells in slot {}", c.slot));
            }
            per_node[node].push(Cell {
                slot: c.slot,
                channel_offset: c.channel_offset,
                peer,
                tx,
                shared: false,
            });
        }
    }
    Ok(per_node)
}

/// Shared cells in the first `shared` slots for everyone, and one dedicated
/// cell per child→parent link of the routing tree to `root`, at a random
/// slot neither end uses yet.
pub fn tree_schedule(
    topology: &Topology,
    root: NodeId,
    shared: u32,
    slotframe: u32,
    seed: u64,
    replication: u64,
) -> Vec<Vec<Cell>> {
    use rand::seq::IndexedRandom;
    let mut rng = stream(seed, replication, NETWORK, Purpose::Topology);
    let n = topology.nodes();
    let mut per_node: Vec<Vec<Cell>> = (0..n)
        .map(|_| {
            (0..shared.min(slotframe))
                .map(|slot| Cell {
                    slot,
                    channel_offset: 0,
                    peer: 0,
                    tx: true,
                    shared: true,
                })
                .collect()
        })
        .collect();
    for child in (0..n).filter(|&c| c != root) {
        let Some(parent) = topology.next_hop(child, root) else {
            continue;
        };
        let busy = |node: usize, slot: u32| per_node[node].iter().any(|c| c.slot == slot);
        let free: Vec<u32> = (0..slotframe)
            .filter(|&s| !busy(child, s) && !busy(parent, s))
            .collect();
        if let Some(&slot) = free.choose(&mut rng) {
            let channel_offset = 1 + (child % 15) as u8;
            per_node[child].push(Cell {
                slot,
                channel_offset,
                peer: parent,
                tx: true,
                shared: false,
            });
            per_node[parent].push(Cell {
                slot,
                channel_offset,
                peer: child,
                tx: false,
                shared: false,
            });
        }
    }
    per_node
}

/// Random dedicated cells: for every directed link, `cells` distinct slot
/// offsets uniformly among those neither end uses yet (a radio cannot send
/// and receive, or receive on two channels, in one slot), channel offset =
/// the link's index.
pub fn random_schedule(
    topology: &Topology,
    cells: u32,
    slotframe: u32,
    seed: u64,
    replication: u64,
) -> Vec<Vec<Cell>> {
    use rand::seq::IndexedRandom;
    let mut rng = stream(seed, replication, NETWORK, Purpose::Topology);
    let n = topology.nodes();
    let mut per_node: Vec<Vec<Cell>> = vec![Vec::new(); n];
    let mut link = 0u32;
    for a in 0..n {
        for b in 0..n {
            if a == b || topology.pdr(a, b).is_none() {
                continue;
            }
            let busy = |node: usize, slot: u32| per_node[node].iter().any(|c| c.slot == slot);
            let free: Vec<u32> = (0..slotframe)
                .filter(|&s| !busy(a, s) && !busy(b, s))
                .collect();
            let chosen: Vec<u32> = free
                .sample(&mut rng, (cells as usize).min(free.len()))
                .copied()
                .collect();
            let channel_offset = (link % 16) as u8;
            link += 1;
            for slot in chosen {
                per_node[a].push(Cell {
                    slot,
                    channel_offset,
                    peer: b,
                    tx: true,
                    shared: false,
                });
                per_node[b].push(Cell {
                    slot,
                    channel_offset,
                    peer: a,
                    tx: false,
                    shared: false,
                });
            }
        }
    }
    per_node
}

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
    Schedule(String),
    /// A beacon-enabled configuration that cannot work (e.g. the active
    /// periods of the cluster heads do not fit in one beacon interval).
    Beacon(BeaconConfigError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Topology(e) => write!(f, "topology: {e}"),
            RunError::Dtls(e) => write!(f, "DTLS configuration: {e}"),
            RunError::Schedule(e) => write!(f, "TSCH schedule: {e}"),
            RunError::Beacon(e) => write!(f, "beacon-enabled MAC: {e}"),
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
            TopologySpec::Line { nodes, pdr } => Topology::line(*nodes, *pdr),
            TopologySpec::Links { nodes, links } => Topology::from_links(*nodes, links),
            TopologySpec::Random {
                nodes,
                side_m,
                range_m,
            } => {
                let mut rng = stream(self.seed, replication, NETWORK - 1, Purpose::Topology);
                Topology::random_disk(*nodes, *side_m, *range_m, &mut rng)
            }
        }
        .map_err(RunError::Topology)
    }

    fn mac(&self, node: NodeId, schedule: &[Vec<Cell>], roles: &[Role]) -> Box<dyn Mac> {
        let outdated = self.outdated_key_nodes.contains(&node);
        let weak = self
            .below_policy_nodes
            .iter()
            .find(|(n, _)| *n == node)
            .map(|&(_, level)| level);
        let key = |security: Option<LinkSecurity>| {
            security.map(|mut k| {
                if outdated {
                    k.key_index = k.key_index.wrapping_add(1);
                    k.key.iter_mut().for_each(|b| *b ^= 0xff);
                }
                if let Some(level) = weak {
                    k.level = level;
                }
                k
            })
        };
        match &self.mac {
            MacSpec::Beacon(p) => Box::new(BeaconMac::new(
                BeaconParams {
                    security: key(p.security),
                    ..*p
                },
                roles[node].clone(),
            )),
            MacSpec::Csma(p) => Box::new(Csma::new(CsmaParams {
                security: key(p.security),
                ..*p
            })),
            MacSpec::Xmac(p) => Box::new(Xmac::new(XmacParams {
                security: key(p.security),
                ..*p
            })),
            MacSpec::Tsch(t) => Box::new(Tsch::new(TschParams {
                template: t.template,
                slotframe: t.slotframe,
                cells: schedule[node].clone(),
                hopping: DEFAULT_HOPPING.to_vec(),
                max_retries: t.max_retries,
                frame_processing_us: t.frame_processing_us,
                security: key(t.security),
                min_be: 1,
                max_be: 7,
                addressing: t.addressing,
                stack: t.stack,
            })),
        }
    }
}

/// Snapshot of every node at one instant: time per state, MAC counters.
struct Snapshot {
    times: Vec<StateTimes>,
    macs: Vec<MacStats>,
    security: Vec<Option<SecurityStats>>,
}

fn snapshot(sim: &mut Sim) -> Snapshot {
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
fn interval_columns(
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

fn push(row: &mut Row, k: &str, v: Value) {
    row.push((k.to_string(), v));
}

/// Run replication `replication` of `s`.
pub fn run_replication(
    s: &Scenario,
    replication: u64,
    record_frames: bool,
    jammed: &[(NodeId, u64)],
) -> Result<Replication, RunError> {
    let topology = s.topology(replication)?;
    if topology.hops(s.client, s.server).is_none() {
        return Err(RunError::Unreachable {
            client: s.client,
            server: s.server,
        });
    }
    let nodes = topology.nodes();
    let mut world = World::new(topology, s.seed, replication);
    world.jammed = jammed.to_vec();
    if let MacSpec::Tsch(t) = &s.mac {
        world.channel_pdr = t.channel_pdr.clone();
    }
    world.set_processing(s.processing);
    if record_frames {
        world.sent = Some(Vec::new());
    }
    let mut apps: Vec<Box<dyn App>> = (0..nodes).map(|_| Box::new(Idle) as Box<dyn App>).collect();
    match &s.workload {
        Workload::Handshakes {
            client,
            server,
            count,
            pause_us,
        } => {
            apps[s.client] = Box::new(DtlsClient::new(
                ClientParams {
                    server: s.server,
                    port: DTLS_PORT,
                    config: Arc::new(client.clone()),
                    handshakes: *count,
                    first_at: s.start_us,
                    pause_us: *pause_us,
                    after: AfterHandshake::Close,
                    cost: s.crypto,
                    seed: s.seed,
                    replication,
                    timer_tick_us: s.timer_tick_us,
                },
                s.client,
            ));
            apps[s.server] = Box::new(server_app(s, server.clone(), false, replication)?);
        }
        Workload::Frames {
            frames,
            payload,
            max_wait_us,
        } => {
            for (node, peer, initiator) in [(s.client, s.server, true), (s.server, s.client, false)]
            {
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
        }
        Workload::Periodic {
            interval_us,
            payload,
            ..
        } => {
            apps[0] = Box::new(Sink::default());
            for app in apps.iter_mut().skip(1) {
                *app = Box::new(Reporter::new(ReportParams {
                    sink: 0,
                    interval_us: *interval_us,
                    payload: *payload,
                    seed: s.seed,
                    replication,
                }));
            }
        }
        Workload::Ping {
            dtls,
            payload,
            count,
            timeout_us,
            pause_us,
        } => match dtls {
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
                apps[s.client] = Box::new(DtlsClient::new(
                    ClientParams {
                        server: s.server,
                        port: DTLS_PORT,
                        config: Arc::new(client.clone()),
                        handshakes: 1,
                        first_at: s.start_us,
                        pause_us: *pause_us,
                        after: AfterHandshake::Ping {
                            payload: *payload,
                            count: *count,
                            timeout_us: *timeout_us,
                        },
                        cost: s.crypto,
                        seed: s.seed,
                        replication,
                        timer_tick_us: s.timer_tick_us,
                    },
                    s.client,
                ));
                apps[s.server] = Box::new(server_app(s, server.clone(), true, replication)?);
            }
        },
    }
    let secured = match &s.mac {
        MacSpec::Csma(p) => p.security.is_some(),
        MacSpec::Xmac(p) => p.security.is_some(),
        MacSpec::Tsch(t) => t.security.is_some(),
        MacSpec::Beacon(p) => p.security.is_some(),
    };
    let addressing = match &s.mac {
        MacSpec::Tsch(t) => t.addressing,
        _ => LinkAddressing::Short,
    };
    let roles = match &s.mac {
        MacSpec::Beacon(p) => {
            let root = p.pan_coordinator.unwrap_or(s.server);
            let mut p = *p;
            p.validate().map_err(RunError::Beacon)?;
            if p.first_beacon_us.is_none() {
                // the beacon schedule's phase, the same for the whole network
                use rand::RngExt;
                let mut rng = stream(s.seed, replication, NETWORK, Purpose::Mac);
                p.first_beacon_us = Some(rng.random_range(0..p.beacon_interval_us()));
            }
            cluster_tree(sim_topology(&world), root, &p).map_err(RunError::Beacon)?
        }
        _ => Vec::new(),
    };
    let schedule = match &s.mac {
        MacSpec::Tsch(t) => match &t.schedule {
            TschSchedule::RandomLinks { cells } => random_schedule(
                sim_topology(&world),
                *cells,
                t.slotframe,
                s.seed,
                replication,
            ),
            TschSchedule::Given(cells) => {
                given_schedule(nodes, cells, t.slotframe).map_err(RunError::Schedule)?
            }
            TschSchedule::Tree { shared } => tree_schedule(
                sim_topology(&world),
                0,
                *shared,
                t.slotframe,
                s.seed,
                replication,
            ),
        },
        _ => Vec::new(),
    };
    let stacks = apps
        .into_iter()
        .enumerate()
        .map(|(n, app)| Stack {
            mac: s.mac(n, &schedule, &roles),
            net: Net::with_link_addresses(n, 60_000_000, addressing, secured),
            app,
        })
        .collect();
    let mut sim = Sim::new(world, stacks);
    sim.start();
    let rows = match &s.workload {
        Workload::Handshakes { .. } => drive_handshakes(&mut sim, s, replication),
        Workload::Frames { frames, .. } => drive_frames(&mut sim, s, replication, *frames),
        Workload::Periodic { duration_us, .. } => {
            drive_periodic(&mut sim, s, replication, *duration_us)
        }
        Workload::Ping { dtls: None, .. } => drive_pings(&mut sim, s, replication),
        Workload::Ping { dtls: Some(_), .. } => drive_dtls_pings(&mut sim, s, replication),
    };
    Ok(Replication {
        rows,
        events: sim.events(),
        end_time: sim.now(),
        frames: sim.world.sent.take(),
    })
}

fn server_app(
    s: &Scenario,
    config: ServerConfig,
    echo: bool,
    replication: u64,
) -> Result<DtlsServer, RunError> {
    DtlsServer::new(
        ServerParams {
            config: Arc::new(config),
            cost: s.crypto,
            echo,
            seed: s.seed,
            replication,
            timer_tick_us: s.timer_tick_us,
        },
        s.server,
    )
    .map_err(RunError::Dtls)
}

fn client(sim: &Sim, node: NodeId) -> &DtlsClient {
    sim.stacks[node]
        .app
        .as_any()
        .downcast_ref::<DtlsClient>()
        .expect("the client node runs the DTLS client")
}

fn drive_handshakes(sim: &mut Sim, s: &Scenario, replication: u64) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut start: Option<Snapshot> = None;
    loop {
        let epoch = client(sim, s.client).epoch;
        sim.run(s.max_time_us, |sim| {
            let c = client(sim, s.client);
            c.epoch != epoch || c.done()
        });
        let now_epoch = client(sim, s.client).epoch;
        if now_epoch == epoch {
            // out of time (or events): a handshake under way counts as failed
            let why = "not finished by simulation.max_time_s";
            let unfinished = client(sim, s.client).unfinished(sim.now(), why);
            if let (Some(from), Some(record)) = (start.take(), unfinished) {
                let to = snapshot(sim);
                rows.push(handshake_row(sim, s, replication, &from, &to, &record));
            }
            break;
        }
        // an odd epoch: a handshake just started; even: one just ended
        if now_epoch % 2 == 1 {
            start = Some(snapshot(sim));
            continue;
        }
        let to = snapshot(sim);
        let c = client(sim, s.client);
        if let (Some(from), Some(record)) = (start.take(), c.records.last()) {
            rows.push(handshake_row(sim, s, replication, &from, &to, record));
        }
        if client(sim, s.client).done() {
            break;
        }
    }
    rows
}

/// One handshake's result row: what the client counted, and every node's
/// energy between the two snapshots.
fn handshake_row(
    sim: &Sim,
    s: &Scenario,
    replication: u64,
    from: &Snapshot,
    to: &Snapshot,
    record: &HandshakeRecord,
) -> Row {
    let mut row = vec![
        ("replication".to_string(), Value::Int(replication as i64)),
        ("index".to_string(), Value::Int(i64::from(record.index))),
        ("success".to_string(), Value::Bool(record.success)),
        // A failed handshake has no duration, only the time until the client
        // gave up (or the run ended): its own column, null in the other.
        (
            if record.success {
                "duration_s"
            } else {
                "give_up_s"
            }
            .to_string(),
            Value::Float((record.ended_at - record.started_at) as f64 / 1e6),
        ),
        (
            "failure".to_string(),
            Value::Text(record.failure.clone().unwrap_or_default()),
        ),
    ];
    let st = &record.client;
    let counters = [
        ("client_datagrams_sent", st.datagrams_sent),
        ("client_datagrams_received", st.datagrams_received),
        ("client_bytes_sent", st.bytes_sent),
        ("client_bytes_received", st.bytes_received),
        ("dtls_retransmissions", st.retransmissions),
        ("client_aes_blocks", st.crypto.aes_blocks),
        ("client_sha256_blocks", st.crypto.sha256_compressions),
        ("client_crypto_cpu_us", record.client_crypto_us),
    ];
    for (key, v) in counters {
        push(&mut row, key, Value::Int(v as i64));
    }
    push(&mut row, "hops", Value::Int(hops(sim, s)));
    interval_columns(
        &mut row,
        from,
        to,
        &s.power,
        matches!(s.mac, MacSpec::Beacon(_)),
    );
    let client_energy = row_value(&row, &format!("node{}_energy_uj", s.client));
    push(&mut row, "client_energy_uj", client_energy);
    row
}

fn row_value(row: &Row, key: &str) -> Value {
    row.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .unwrap_or(Value::Float(f64::NAN))
}

fn hops(sim: &Sim, s: &Scenario) -> i64 {
    sim.world
        .channel
        .topology()
        .hops(s.client, s.server)
        .map_or(-1, |h| h as i64)
}

fn drive_pings(sim: &mut Sim, s: &Scenario, replication: u64) -> Vec<Row> {
    let ping = |sim: &Sim| -> bool {
        sim.stacks[s.client]
            .app
            .as_any()
            .downcast_ref::<PingClient>()
            .is_some_and(PingClient::done)
    };
    sim.run(s.max_time_us, ping);
    let c = sim.stacks[s.client]
        .app
        .as_any()
        .downcast_ref::<PingClient>()
        .expect("the client node runs the ping client");
    let h = hops(sim, s);
    c.rtts_us
        .iter()
        .enumerate()
        .map(|(i, rtt)| ping_row(replication, i, *rtt, h))
        .collect()
}

fn drive_dtls_pings(sim: &mut Sim, s: &Scenario, replication: u64) -> Vec<Row> {
    sim.run(s.max_time_us, |sim| client(sim, s.client).done());
    let c = client(sim, s.client);
    let h = hops(sim, s);
    c.records
        .iter()
        .flat_map(|r| r.rtts_us.iter().map(|&rtt| Some(rtt)))
        .enumerate()
        .map(|(i, rtt)| ping_row(replication, i, rtt, h))
        .collect()
}

fn ping_row(replication: u64, index: usize, rtt: Option<Time>, hops: i64) -> Row {
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

fn exchange(sim: &Sim, node: NodeId) -> &FrameExchange {
    sim.stacks[node]
        .app
        .as_any()
        .downcast_ref::<FrameExchange>()
        .expect("both ends run the frame exchange")
}

/// One row per replication: the summed latency of the frames, raw (to the
/// receiving application) and counted to the end of the timeslot that
/// delivered each frame, as the TSCH closed form counts.
fn drive_frames(sim: &mut Sim, s: &Scenario, replication: u64, frames: u32) -> Vec<Row> {
    let received =
        |sim: &Sim| exchange(sim, s.client).received.len() + exchange(sim, s.server).received.len();
    let from = snapshot(sim);
    sim.run(s.max_time_us, |sim| received(sim) >= frames as usize);
    let to = snapshot(sim);
    let slot = match &s.mac {
        MacSpec::Tsch(t) => Some(t.template.slot_us),
        _ => None,
    };
    let mut raw = 0;
    let mut aligned = 0;
    for end in [s.client, s.server] {
        for &(_, sent, got) in &exchange(sim, end).received {
            raw += got - sent;
            aligned += slot.map_or(got, |slot| (got / slot + 1) * slot) - sent;
        }
    }
    let delivered = received(sim);
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
    push(&mut row, "hops", Value::Int(hops(sim, s)));
    interval_columns(
        &mut row,
        &from,
        &to,
        &s.power,
        matches!(s.mac, MacSpec::Beacon(_)),
    );
    vec![row]
}

/// One row per replication: reports sent and delivered, their latency, and
/// the energy of the whole network.
fn drive_periodic(sim: &mut Sim, s: &Scenario, replication: u64, duration_us: Time) -> Vec<Row> {
    let from = snapshot(sim);
    sim.run(duration_us, |_| false);
    let to = snapshot(sim);
    let sent: u64 = (1..sim.stacks.len())
        .filter_map(|n| sim.stacks[n].app.as_any().downcast_ref::<Reporter>())
        .map(|r| r.sent)
        .sum();
    let sink = sim.stacks[0]
        .app
        .as_any()
        .downcast_ref::<Sink>()
        .expect("node 0 is the sink");
    let delivered = sink.received.len() as u64;
    let latency: f64 = sink
        .received
        .iter()
        .map(|(_, a, b)| (b - a) as f64)
        .sum::<f64>()
        / delivered.max(1) as f64
        / 1e6;
    let max_hops = (1..sim.stacks.len())
        .filter_map(|n| sim.world.channel.topology().hops(n, 0))
        .max()
        .unwrap_or(0);
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
        ("max_hops".to_string(), Value::Int(max_hops as i64)),
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
    // network totals: a 100-node row with columns per node would be unreadable
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
    vec![row]
}
