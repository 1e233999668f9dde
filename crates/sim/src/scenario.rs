//! What one simulation run is asked to do: the topology, the MAC, the
//! workload and the node parameters, as the runtime reads them. Built by the
//! binding from a checked scenario file; [`crate::run`] turns it into rows.

use dtls::v13::config::{ClientConfig13, ServerConfig13};
use dtls::{ClientConfig, ServerConfig};

use crate::energy::PowerProfile;
use crate::mac::address::LinkAddressing;
use crate::mac::beacon::BeaconParams;
use crate::mac::contikimac::ContikimacParams;
use crate::mac::csl::CslParams;
use crate::mac::csma::CsmaParams;
use crate::mac::security::LinkSecurity;
use crate::mac::tsch::{SlotStack, Template};
use crate::mac::xmac::XmacParams;
use crate::medium::{LogDistanceLine, PisterHackLine, Udgm};
use crate::node::cpu::CryptoCost;
use crate::topology::Audible;
use crate::world::Processing;
use crate::{NodeId, Time};

#[derive(Debug, Clone)]
pub enum TopologySpec {
    /// `nodes` in a line, every link with `pdr` both ways; `audible` says
    /// whether nodes off the line's links hear each other too.
    Line {
        nodes: usize,
        pdr: f64,
        audible: Audible,
    },
    /// Explicit directional links.
    Links {
        nodes: usize,
        links: Vec<(NodeId, NodeId, f64)>,
    },
    /// Nodes at random in a square, PDR falling with distance, node 0 the
    /// root at the centre (drawn anew for every replication), or at the
    /// `positions` given; with several border routers, nodes 0..B-1 at
    /// [`crate::topology::border_router_positions`].
    Random {
        nodes: usize,
        side_m: f64,
        range_m: f64,
        positions: Option<Vec<crate::topology::Position>>,
        /// Nodes 0..B-1 are border routers on a backbone, each a root
        /// ([`crate::topology::Topology::placed_forest`]); 1: node 0 alone.
        border_routers: usize,
    },
    /// Nodes at positions in a square under a medium of signals, UDGM or
    /// Pister-hack ([`crate::medium::Area`]).
    Area(crate::medium::Area),
    /// `nodes` in a line under Cooja's UDGM ([`crate::medium`]), routed
    /// along the line.
    UdgmLine { nodes: usize, udgm: Udgm },
    /// `nodes` in a line under log-distance path loss, received by SINR
    /// ([`crate::medium::LogDistanceLine`]).
    LogDistanceLine {
        nodes: usize,
        medium: LogDistanceLine,
    },
    /// `nodes` in a line with the 6TiSCH simulator's Pister-hack links.
    PisterHackLine {
        nodes: usize,
        medium: PisterHackLine,
    },
    /// `nodes` whose links a K7 trace replays ([`crate::k7::Replay`],
    /// scenario node i mapped already); routes over the links' mean PDR.
    Trace {
        nodes: usize,
        replay: std::sync::Arc<crate::k7::Replay>,
    },
}

impl TopologySpec {
    /// How many nodes the network has.
    pub fn nodes(&self) -> usize {
        match self {
            TopologySpec::Line { nodes, .. }
            | TopologySpec::Links { nodes, .. }
            | TopologySpec::Random { nodes, .. }
            | TopologySpec::UdgmLine { nodes, .. }
            | TopologySpec::LogDistanceLine { nodes, .. }
            | TopologySpec::PisterHackLine { nodes, .. }
            | TopologySpec::Trace { nodes, .. } => *nodes,
            TopologySpec::Area(area) => area.nodes,
        }
    }

    /// `nodes` in a line where only neighbours hear each other.
    pub fn line(nodes: usize, pdr: f64) -> Self {
        TopologySpec::Line {
            nodes,
            pdr,
            audible: Audible::Routes,
        }
    }
}

/// How TSCH cells are given out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TschSchedule {
    /// `cells` dedicated cells per directed link (random, conflict-free).
    RandomLinks { cells: u32 },
    /// A routing tree to node 0: `shared` shared cells for everyone, and one
    /// dedicated cell per child→parent link.
    Tree { shared: u32 },
    /// As [`TschSchedule::Tree`], and one dedicated cell per parent→child link.
    TreeBoth { shared: u32 },
    /// Contiki-NG's receiver-based Orchestra on the routing tree to node 0
    /// (see [`crate::mac::tsch::schedule::orchestra_schedule`]); the
    /// slotframe is the least common multiple of the two periods.
    Orchestra {
        unicast_period: u32,
        common_period: u32,
        /// Line positions next to a node's own, up to this one (1-based; 0:
        /// none), are its neighbours too, present or not.
        line_neighbours_up_to: u32,
        /// Orchestra's EB slotframe, this many slots (0: not modelled; see
        /// [`crate::mac::tsch::eb_slotframe`]), and `TSCH_EB_PERIOD` (µs).
        eb_slotframe: u32,
        eb_period_us: crate::Time,
    },
    /// Exactly these dedicated cells.
    Given(Vec<GivenCell>),
    /// 6TiSCH's MSF (RFC 9033) on the routing tree to node 0 (see
    /// [`crate::mac::tsch::schedule::msf_schedule`]): the minimal cell and
    /// the autonomous cells in a slotframe of 101 slots, and cells to the
    /// parent negotiated by 6P as traffic asks.
    Msf,
    /// The 6TiSCH minimal configuration (RFC 8180 §4.1): one shared cell,
    /// slot offset 0 and channel offset 0, in a slotframe of the spec's
    /// length, carrying every frame after TSCH CSMA backoff; no dedicated
    /// cells.
    Minimal,
}

/// A dedicated cell named in a scenario: `from` sends to `to` in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GivenCell {
    pub from: NodeId,
    pub to: NodeId,
    pub slot: u32,
    pub channel_offset: u8,
}

#[derive(Debug, Clone)]
pub enum MacSpec {
    Csma(CsmaParams),
    Xmac(XmacParams),
    Tsch(TschSpec),
    /// Beacon-enabled IEEE 802.15.4 on the cluster tree towards the PAN
    /// coordinator (the server's node unless `pan_coordinator` names
    /// another); every node with children is a cluster head.
    Beacon(BeaconParams),
    /// ContikiMAC under Contiki 3.0's csma.
    Contikimac(ContikimacParams),
    /// IEEE 802.15.4 CSL for Thread sleepy end devices (each node with one
    /// neighbour other than the server), their parents awake.
    Csl(CslParams),
}

/// TSCH with `cells_per_link` dedicated cells per directed link, placed at
/// random distinct slots (drawn anew for every replication).
#[derive(Debug, Clone)]
pub struct TschSpec {
    pub template: Template,
    pub slotframe: u32,
    pub schedule: TschSchedule,
    pub max_retries: u32,
    /// TSCH CSMA's largest backoff exponent (macMaxBe; IEEE 802.15.4-2015
    /// default 7, Contiki-NG's TSCH_MAC_MAX_BE 5).
    pub max_be: u32,
    pub frame_processing_us: Time,
    pub security: Option<LinkSecurity>,
    /// Per channel offset 0..=15 (IEEE channels 11..26), a factor on every
    /// link's PDR; empty: every channel as good as the link.
    pub channel_pdr: Vec<f64>,
    pub addressing: LinkAddressing,
    /// What the node's stack adds to every slot and secured operation
    /// (default: nothing, the datasheet lower bound).
    pub stack: SlotStack,
    /// Network formation by scan and Enhanced Beacons (node 0 the root;
    /// the `root` field is set per node); None: every node synchronised
    /// from power-on.
    pub formation: Option<crate::mac::tsch::formation::FormationParams>,
    /// Clock drift, keep-alives and loss of synchronisation (with
    /// `formation` only); None: clocks do not drift.
    pub sync: Option<crate::mac::tsch::sync::SyncParams>,
    /// A busy-wait of the firmware ends at the first step of this length at
    /// or after its deadline (Cooja's native motes: 1 ms, see
    /// `mac.tsch.cooja_mote_ticks`); 0: exactly at it, as on hardware.
    pub busy_wait_step_us: Time,
    /// Route by storing-mode RPL carried in the network's own frames
    /// ([`crate::rpl::router`]); false: by the computed least-ETX routes.
    pub rpl: bool,
}

impl TschSpec {
    /// A `slotframe` under `schedule` with IEEE 802.15.4-2015's defaults for
    /// the rest (the 10 ms template, macMaxFrameRetries 3, macMaxBe 7), as
    /// [`crate::mac::tsch::TschParams::new`] gives them: short addresses, no
    /// security, no processing or stack cost, every channel as good as the
    /// link, synchronised from power-on.
    pub fn new(slotframe: u32, schedule: TschSchedule) -> Self {
        TschSpec {
            template: Template::default(),
            slotframe,
            schedule,
            max_retries: 3,
            max_be: 7,
            frame_processing_us: 0,
            security: None,
            channel_pdr: Vec::new(),
            addressing: Default::default(),
            stack: Default::default(),
            formation: None,
            sync: None,
            busy_wait_step_us: 0,
            rpl: false,
        }
    }
}

#[derive(Debug, Clone)]
pub enum Workload {
    /// DTLS handshakes back to back from `client` to `server`.
    Handshakes {
        client: ClientConfig,
        server: ServerConfig,
        count: u32,
        pause_us: Time,
        /// A uniform extra pause in [0, this) before each next handshake.
        pause_jitter_us: Time,
    },
    /// The same over DTLS 1.3 (RFC 9147): the same applications, rows and
    /// columns.
    Handshakes13 {
        client: ClientConfig13,
        /// Boxed: the server's session-table settings make it the
        /// largest variant by far.
        server: Box<ServerConfig13>,
        count: u32,
        pause_us: Time,
        /// A uniform extra pause in [0, this) before each next handshake.
        pause_jitter_us: Time,
    },
    /// EDHOC (RFC 9528) over CoAP from `client` to `server`: the same rows
    /// and columns as the DTLS handshakes.
    Edhoc {
        setup: crate::app::edhoc::EdhocSetup,
        count: u32,
        pause_us: Time,
        /// A uniform extra pause in [0, this) before each next handshake.
        pause_jitter_us: Time,
    },
    /// `frames` datagrams passed back and forth between client and server,
    /// each after a random wait of up to `max_wait_us` (latency studies).
    Frames {
        frames: u32,
        payload: usize,
        max_wait_us: Time,
    },
    /// Every node but node 0 reports `payload` bytes to node 0 every
    /// `interval_us`, for `duration_us`.
    Periodic {
        interval_us: Time,
        payload: usize,
        duration_us: Time,
    },
    /// Clients asking a server with a fixed table of session slots for
    /// sessions, now and then (session capacity, Engset).
    Sessions(Box<SessionsSpec>),
    /// Pings of `payload` bytes, over DTLS when configs are given.
    Ping {
        dtls: Option<(ClientConfig, ServerConfig)>,
        payload: usize,
        count: u32,
        timeout_us: Time,
        pause_us: Time,
    },
}

/// How a session's handshake is made.
#[derive(Debug, Clone)]
pub enum SessionHandshake {
    /// In no time and without the network: the request meets the table at
    /// once (the closed form's assumption).
    Instant,
    /// A full DTLS handshake over the MAC; the slot is taken from the
    /// cookie-verified ClientHello (RFC 6347 4.2.1) to the session's end.
    Dtls {
        client: Box<ClientConfig>,
        server: Box<ServerConfig>,
    },
    /// A join (the bootstrap storm): each client makes one DTLS 1.3
    /// handshake (RFC 9147) with the server and keeps the session; no slot
    /// table (the 1.3 server keeps none yet).
    Dtls13 {
        client: Box<ClientConfig13>,
        server: Box<ServerConfig13>,
    },
    /// A join by one EDHOC exchange (RFC 9528) over CoAP with the server.
    Edhoc(crate::app::edhoc::EdhocSetup),
    /// A join by CoJP (RFC 9031): one Join Request / Join Response with
    /// the server as JRC.
    Cojp(crate::app::cojp::CojpSetup),
}

/// The session-capacity workload: the server's table, its clients' habits
/// and the attackers'.
#[derive(Debug, Clone)]
pub struct SessionsSpec {
    pub limits: session_table::Limits,
    pub policy: session_table::Policy,
    /// The legitimate clients: the first `clients` nodes other than the
    /// server; the next `attackers` nodes attack.
    pub clients: usize,
    pub attackers: usize,
    /// Mean time a client without a session waits before asking (1/λ).
    pub idle_mean_us: f64,
    /// Mean time a client holds its session once it has it (1/μ).
    pub holding_mean_us: f64,
    pub handshake: SessionHandshake,
    /// A session's client sends a record this often while it holds it.
    pub data_interval_us: Time,
    pub data_bytes: usize,
    /// A client repeats its close_notify until the server answers (else it
    /// sends one, as tinyDTLS does).
    pub close_until_answered: bool,
    /// Sessions the server keeps for resumption (0: none).
    pub session_cache: usize,
    /// A client starts only once its parent (next hop to the server)
    /// holds a session (the storm's progressive join).
    pub join_after_parent: bool,
    /// A pledge joins through its parent as its join proxy, on the link
    /// (CoJP and EDHOC; [`crate::app::join_proxy`]); else it is routed.
    pub join_proxy: bool,
    /// The join rate each join proxy enforces (None: no limit); under CoJP
    /// the JRC's setting, which a proxy learns in its own Join Response.
    pub join_rate_bytes_per_s: Option<u64>,
    /// A DTLS 1.2 client starts every handshake from one port (RFC 6347
    /// §4.2.8: the server takes a new handshake from it as the same
    /// association starting anew); else from a fresh port each time.
    pub same_port: bool,
    /// The server's cryptography is charged at this cost table (a backend
    /// host's); None: at the scenario's `crypto`, as every node's.
    pub server_crypto: Option<CryptoCost>,
    /// An attacker starts a new handshake this often and abandons it once
    /// its cookie is verified (half-open).
    pub attack_interval_us: Time,
    /// Measured from `start_us + warmup_us` for `duration_us`.
    pub warmup_us: Time,
    pub duration_us: Time,
    /// The run ends once this share of the clients has held a session
    /// (`duration_us` then its bound); None: it runs the whole duration.
    pub stop_at_secured_share: Option<f64>,
    /// When the server is down, (from, to) in virtual time, sorted and
    /// apart: it hears and sends nothing, and comes back with its state
    /// anew ([`crate::workload::outage`]). Empty: it never goes down.
    pub server_down_us: Vec<(Time, Time)>,
}

impl SessionsSpec {
    /// The nodes of the clients, then of the attackers.
    pub fn nodes(&self, server: NodeId) -> Vec<NodeId> {
        (0..)
            .filter(|&n| n != server)
            .take(self.clients + self.attackers)
            .collect()
    }

    /// The cost table the server is charged at: the backend host's when
    /// one is set, else the nodes' own (`crypto`).
    pub fn server_cost(&self, crypto: CryptoCost) -> CryptoCost {
        self.server_crypto.unwrap_or(crypto)
    }
}

#[derive(Debug, Clone)]
pub struct Scenario {
    pub topology: TopologySpec,
    pub client: NodeId,
    pub server: NodeId,
    pub mac: MacSpec,
    pub power: PowerProfile,
    pub crypto: CryptoCost,
    /// CPU and bus time between a frame's reception and its network layer.
    pub processing: Processing,
    pub workload: Workload,
    /// When the first handshake or ping starts (lets duty cycles settle).
    pub start_us: Time,
    /// Nodes but the border routers and the server power on at a uniform
    /// draw in [0, this) ([`crate::power_on`]); 0: all on from the start.
    pub power_on_window_us: Time,
    /// Give up a replication at this virtual time.
    pub max_time_us: Time,
    /// Granularity of the nodes' software timers (Contiki: 1/128 s; 0: exact).
    pub timer_tick_us: Time,
    /// A DTLS client gives a handshake up once its stack has nothing left
    /// to resend and the server has sent nothing for this long (checked
    /// every second); None: it waits.
    pub give_up_idle_us: Option<Time>,
    /// A DTLS client ends a completed handshake with a close_notify (else
    /// it drops the session without a word).
    pub close_notify: bool,
    pub seed: u64,
    /// Nodes holding an outdated network key (another index and key bytes):
    /// their secured frames are refused, and counted, by everyone else.
    pub outdated_key_nodes: Vec<NodeId>,
    /// Nodes configured with a security level below the network's: they
    /// secure what they send (and accept what they receive) at that level,
    /// and their neighbours refuse their frames as below policy.
    pub below_policy_nodes: Vec<(NodeId, wpan::security::SecurityLevel)>,
}
