//! One point of a scenario file: every section with the file's names,
//! after sweep axes are expanded (each key holds one value). Sections the
//! simulator does not read (`model`, `sessions`, `overhead`) feed the
//! closed forms; they are here so that one schema covers the whole file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::dtls::{Dtls, Suite};
use crate::link_security::LinkSecurity;
use crate::mac::Mac;
use crate::medium::Medium;
use crate::param::params;
use crate::problem::Low::{Above, AtLeast};
use crate::problem::Problems;
use crate::topology::Topology;
use crate::workload::Workload;

/// A scenario file (one value per key; a list at a key that takes one
/// value is a sweep axis, expanded before the point is read).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// What names the results and how many replications run: one value each.
    #[schemars(extend("x-sweep" = false))]
    pub experiment: Experiment,
    /// The platform: a platform's id (`platforms/<id>.toml`, or a file in a `DTLSIM_PLATFORMS` directory), or a platform file's path.
    #[serde(default = "default_platform")]
    pub platform: String,
    /// The battery a node's lifetime (`lifetime_days`) is drawn on: platform (the platform file's `supply.battery_mah`), cr2032 or 2xAA (its `supply.batteries`).
    #[serde(default)]
    pub battery: Battery,
    #[serde(default)]
    pub topology: Topology,
    #[serde(default)]
    pub medium: Medium,
    #[serde(default)]
    pub mac: Mac,
    #[serde(default)]
    pub link_security: LinkSecurity,
    #[serde(default)]
    pub dtls: Dtls,
    #[serde(default)]
    pub edhoc: crate::edhoc::Edhoc,
    #[serde(default)]
    pub workload: Workload,
    #[serde(default)]
    pub simulation: Simulation,
    #[serde(default)]
    pub model: Model,
    #[serde(default)]
    pub sessions: Sessions,
    #[serde(default)]
    pub overhead: Overhead,
}

fn default_platform() -> String {
    "wismote".into()
}

/// Which of the platform's batteries a node's lifetime is drawn on. The
/// simulation does not read it: the lifetime is the battery's charge over
/// the node's mean current, worked out beside the results (Python's
/// `dtlsim.simulation.with_lifetime`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
// a key, not a section: its choices written where it is used
#[schemars(inline)]
pub enum Battery {
    /// The platform file's own `supply.battery_mah`.
    #[default]
    #[serde(rename = "platform")]
    Platform,
    /// One CR2032 lithium coin cell: `supply.batteries.cr2032_mah`.
    #[serde(rename = "cr2032")]
    Cr2032,
    /// Two AA alkaline cells in series: `supply.batteries.aa2_mah`.
    #[serde(rename = "2xAA")]
    TwoAa,
}

impl Point {
    /// The keys outside a table, declared beside their fields (the rest of
    /// `Point` is tables).
    pub fn params() -> Vec<crate::param::Param> {
        vec![
            crate::param::Param {
                key: "platform".into(),
                unit: "",
                default: Some(default_platform().into()),
                range: None,
                doc: "The platform: a platform's id (`platforms/<id>.toml`, or a file in a `DTLSIM_PLATFORMS` directory), or a platform file's path.".into(),
            },
            crate::param::Param {
                key: "battery".into(),
                unit: "",
                default: crate::param::default_value(&Battery::default()),
                range: None,
                doc: "The battery a node's lifetime (`lifetime_days`) is drawn on: platform (the platform file's `supply.battery_mah`), cr2032 or 2xAA (its `supply.batteries`).".into(),
            },
        ]
    }
}

const HOUR_MS: f64 = 3_600_000.0;

params! {
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Experiment at "experiment" {
        /// Lower-case letters, digits and dashes (it names result directories).
        id: String,
        /// What the results are.
        title: String,
        /// Where the experiment is described.
        reference: String [serde(default)] = String::new(),
        /// The first replication's random seed (a seed goes to Parquet's
        /// signed 64-bit integers).
        seed: u64 [serde(default = "seed")] = 1; range (AtLeast(0.0), i64::MAX as f64),
        /// Replications of every point.
        replications: u64 [serde(default = "replications")] = 1;
            range (AtLeast(1.0), 10_000_000.0),
        /// Replications with `--quick`.
        quick_replications: u64 [serde(default = "quick_replications")] = 20;
            range (AtLeast(1.0), 10_000_000.0),
    }
}

// serde's defaults of the keys of a table that has required keys
fn seed() -> u64 {
    Experiment::declared().seed
}
fn replications() -> u64 {
    Experiment::declared().replications
}
fn quick_replications() -> u64 {
    Experiment::declared().quick_replications
}

params! {
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Simulation at "simulation": Default {
        /// When the first handshake or ping starts (lets duty cycles settle).
        start_ms: f64 = 1000.0; range (AtLeast(0.0), HOUR_MS),
        /// Give up a replication at this virtual time.
        max_time_s: f64 = 3600.0; range (Above(0.0), 1e7),
        /// Software timers fire on clock ticks: Contiki's CLOCK_SECOND is 128
        /// on MSP430 and CC2538 motes (7.8125 ms); 0 makes timers exact.
        timer_tick_ms: f64 = 7.8125; range (AtLeast(0.0), 1000.0),
        /// Nodes powered on over a window (seconds): every node but the
        /// border router(s) and the server, which are on from the start,
        /// powers on at a time drawn uniformly in [0, window) of virtual
        /// time from its own random stream. Until then it is off: its
        /// radio hears nothing, its MAC, timers and application do not run
        /// and its energy meter counts nothing; its application's own
        /// first wait (start_ms, a join's exponential wait) counts from its
        /// power-on. None or 0: every node is on from the start.
        power_on_window_s: Option<f64> [serde(skip_serializing_if = "Option::is_none")] = None;
            range (AtLeast(0.0), 1e7),
    }
}

params! {
    /// Inputs only the closed forms use.
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Model at "model": Default {
        /// Frames of one handshake (the TSCH latency closed form's L).
        handshake_frames: u32 = 10; range (AtLeast(1.0), 10_000.0),
    }
}

params! {
    /// The session-capacity experiment: the Engset closed form's slots R,
    /// clients N and offered traffic ρ per idle client, and, with
    /// `workload.kind = "sessions"`, how the simulated server and clients behave.
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Sessions at "sessions": Default {
        /// R, the server's session slots (unless `fixed_ram_bytes` sizes them).
        slots: u32 = 3; range (AtLeast(1.0), 100_000.0),
        /// RAM the server uses beside its session table (OS, network stack,
        /// the DTLS code's static data). Set: R is computed from the
        /// platform's RAM instead of `slots`, R = floor((RAM − this) / the
        /// bytes one slot needs), a slot sized for a handshake in the compact
        /// layout of a constrained stack.
        fixed_ram_bytes: Option<u32> [serde(skip_serializing_if = "Option::is_none")] = None;
            range (AtLeast(0.0), 1e9),
        /// N, the clients.
        clients: u32 = 5; range (AtLeast(1.0), 100_000.0),
        /// ρ, the traffic each idle client offers (erlang).
        erlang: f64 = 0.5; range (Above(0.0), 1e6),
        /// Mean time a client holds a session (1/μ); a client without one asks
        /// after an exponential time of mean holding_s / erlang (1/λ).
        holding_s: f64 = 60.0; range (Above(0.0), 1e7),
        /// What a handshake finding every slot taken does.
        policy: SessionPolicy = SessionPolicy::Refuse,
        /// `instant`: requests meet the table at once, off the air (the closed
        /// form's assumption); `dtls`: a full DTLS 1.2 handshake over the MAC
        /// (`[dtls]`), the slot taken from the cookie-verified ClientHello.
        /// A join (the bootstrap storm), each client joining once and trying
        /// again after a failure, with no slot table: `dtls13`, a DTLS 1.3 PSK
        /// handshake (RFC 9147, `[dtls]`'s suite), secured when the session is
        /// established; `edhoc`, an EDHOC exchange over CoAP (RFC 9528,
        /// `[edhoc]`), secured when message_3 is acknowledged; `cojp`, the
        /// 6TiSCH join (RFC 9031: Join Request / Join Response over OSCORE
        /// with the PSK context, the server as JRC, the parent as the join
        /// proxy on the way), secured when a Join Response carrying the
        /// link-layer key set has been opened.
        handshake: SessionHandshake [schemars(extend("x-sweep" = false))] = SessionHandshake::Dtls,
        /// How a client closes: `once`, one close_notify (tinyDTLS dtls.c
        /// `dtls_close`); `until-answered`, repeated on the DTLS retransmission
        /// timer until the server's answering close_notify (RFC 5246 §7.2.1)
        /// arrives.
        close: SessionClose = SessionClose::Once,
        /// Sessions the server keeps for resumption by session ID (RFC 5246
        /// §7.3), the oldest dropped first; a client offers the last session it
        /// was given. 0: none (tinyDTLS has no resumption).
        session_cache: u32 = 0; range (AtLeast(0.0), 100_000.0),
        /// A held session sends a record of data_bytes this often.
        data_interval_s: f64 = 10.0; range (Above(0.0), 1e7),
        /// The application data of one record.
        data_bytes: u32 = 16; range (AtLeast(0.0), 1024.0),
        /// Nodes that complete the cookie exchange and go silent (half-open),
        /// each once per attack_interval_s.
        attackers: u32 = 0; range (AtLeast(0.0), 10_000.0),
        /// How often each attacker starts a half-open handshake.
        attack_interval_s: f64 = 1.0; range (Above(0.0), 1e7),
        /// At most this many half-open handshakes (none: no limit).
        half_open_max: Option<u32> [serde(skip_serializing_if = "Option::is_none")] = None;
            range (AtLeast(1.0), 100_000.0),
        /// A handshake half-open this long loses its slot (none: never).
        half_open_timeout_s: Option<f64> [serde(skip_serializing_if = "Option::is_none")] = None;
            range (Above(0.0), 1e7),
        /// An established session silent this long loses its slot (none:
        /// never, as in tinyDTLS, which keeps no idle timer).
        idle_timeout_s: Option<f64> [serde(skip_serializing_if = "Option::is_none")] = None;
            range (Above(0.0), 1e7),
        /// At most this many slots per client address (none: no cap).
        per_host_max: Option<u32> [serde(skip_serializing_if = "Option::is_none")] = None;
            range (AtLeast(1.0), 100_000.0),
        /// A client starts its first handshake only once its parent (its
        /// next hop to the server) holds a session, as a 6TiSCH pledge joins
        /// only through a neighbour that has joined (RFC 9031 §4: the join
        /// proxy is a joined node; RFC 8180: a node advertises the network
        /// only once it is part of it); clients one hop from the server
        /// start at once. With `mac.tsch.formation = 'scan'` a client
        /// starts once it has associated on a joined node's Enhanced
        /// Beacon (its join proxy) instead. false: every client starts
        /// after its own wait.
        join_after_parent: bool = false,
        /// A DTLS 1.2 client starts every handshake from the same UDP port,
        /// so a retry after a failed handshake is, to the server, the same
        /// association starting anew: RFC 6347 §4.2.8's rule for a client
        /// that lost its association and comes back from the same port,
        /// after which the server drops the old association and its slot.
        /// false: a fresh ephemeral port for each handshake (a new
        /// association, the old one's slot kept until a timeout frees it).
        /// Only DTLS 1.2 reads it: the other handshakes (DTLS 1.3, EDHOC,
        /// CoJP, instant) run the same either way.
        same_port: bool = false,
        /// Whose cost table the server's cryptography (the DTLS server, the
        /// EDHOC responder, CoJP's JRC) is charged at: `platform`, the
        /// nodes' own (the border router is a node of the platform);
        /// `host`, a backend host's (RFC 9031 §3 places the JRC in the
        /// backend, not on a constrained node: platforms/hosts/x86-64.toml).
        server_crypto: ServerCrypto = ServerCrypto::Platform,
        /// Simulated before measuring (the table fills from empty).
        warmup_s: f64 = 600.0; range (AtLeast(0.0), 1e8),
        /// Measured (with `stop_at_secured_share`, the most measured).
        duration_s: f64 = 3600.0; range (Above(0.0), 1e8),
        /// The run ends as soon as this share of the clients has held a
        /// session (a storm run until it finishes, `duration_s` its bound);
        /// none: the whole `duration_s` is run.
        stop_at_secured_share: Option<f64> [serde(skip_serializing_if = "Option::is_none")] = None;
            range (Above(0.0), 1.0),
        /// When the server (the DTLS server, EDHOC responder or CoJP JRC:
        /// the join server behind the border router) is down: windows
        /// `[from_s, to_s]` in seconds of virtual time from power-on,
        /// sorted and apart, each within the run (simulation.start_ms +
        /// warmup_s + duration_s). While down it hears and sends nothing
        /// (the datagrams reaching it are dropped and counted,
        /// `server_down_drops`); the network under it keeps running. It
        /// comes back as a server just started: its sessions, half-open
        /// handshakes, slot table and CoAP deduplication cache are lost;
        /// what it was provisioned with (keys, the network key a JRC hands
        /// out) is kept. Empty: never down.
        server_down_s: Vec<[f64; 2]> [serde(skip_serializing_if = "Vec::is_empty")] = Vec::new(),
        /// Link-layer security switched on with the keys the join delivers
        /// (RFC 9031: the Join Response carries the link-layer key set;
        /// after a DTLS or EDHOC join the key is assumed delivered with the
        /// handshake's end): a node's frames go unsecured until its join
        /// completes, then secured at `link_security.level`; until then it
        /// cannot open secured frames (dropped, counted). A joined node takes
        /// unsecured frames only from a pledge, addressed to itself (the join
        /// proxy's exception in RFC 9031), and sends to a pledge unsecured.
        /// Border routers hold the key from power-on. Needs `mac.kind =
        /// 'tsch'`, a join handshake and `link_security.level` other than
        /// `none`. false: every node holds the key from power-on.
        link_security_after_join: bool = false,
        /// A pledge joins through its join proxy (RFC 9031's JP): its
        /// parent (its next hop to the JRC; with `mac.tsch.formation =
        /// 'scan'` the node whose Enhanced Beacon it associated on), which
        /// it talks to over
        /// link-local addresses and which relays its requests to the JRC
        /// with the pledge's state carried in the CoAP token (RFC 8974),
        /// and the responses back; a pledge next to the JRC talks to it on
        /// the link. CoJP and EDHOC (`sessions.handshake = 'cojp'` or
        /// `'edhoc'`, the EDHOC responder then telling its initiators apart
        /// by the C_R it gives each) are proxied; DTLS is not. false: the
        /// join is routed to the JRC as any datagram.
        join_proxy: bool = false,
        /// The join rate each join proxy enforces (RFC 9031's CoJP
        /// parameter, bytes per second of join traffic forwarded into the
        /// network): a request over it is dropped and counted, the
        /// pledge's CoAP retransmission trying again. Under CoJP it is the
        /// JRC's setting, sent in every Configuration, and a proxy enforces
        /// what its own Join Response gave it (none before its own join);
        /// under EDHOC every proxy enforces this value. Absent: no limit
        /// (and not sent). Needs `sessions.join_proxy`.
        join_rate_bytes_per_s: Option<u32> [serde(skip_serializing_if = "Option::is_none")] = None;
            range (AtLeast(0.0), 1_000_000.0),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SessionPolicy {
    /// Refuse the newcomer with a fatal alert.
    Refuse,
    /// Evict the session with the oldest traffic.
    EvictLru,
    /// Evict the session that took its slot first.
    EvictOldest,
    /// Evict the oldest half-open handshake; refuse if none.
    EvictHalfOpen,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ServerCrypto {
    /// The platform's cost table, as every node.
    Platform,
    /// The backend host's cost table (platforms/hosts/x86-64.toml).
    Host,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SessionClose {
    /// One close_notify, never repeated.
    Once,
    /// Repeated until the server answers or the retransmissions run out.
    UntilAnswered,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SessionHandshake {
    Instant,
    Dtls,
    Dtls13,
    Edhoc,
    Cojp,
}

params! {
    /// Application payload sizes (a range, in bytes) and the suites to compare
    /// in the per-datagram overhead study.
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Overhead at "overhead": Default {
        /// The smallest payload.
        payload_min_bytes: u32 = 0; range (AtLeast(0.0), 65_000.0),
        /// The largest payload.
        payload_max_bytes: u32 = 256; range (AtLeast(0.0), 65_000.0),
        /// The step between two payloads.
        payload_step_bytes: u32 = 1; range (AtLeast(1.0), 65_000.0),
        /// The suites compared.
        suites: Vec<Suite> = vec![Suite("psk-aes128-ccm8")],
        /// 6LoWPAN IPHC: link-local, context, global-inline or uncompressed.
        compression: String = "link-local".into(),
        /// short or extended.
        addressing: String = "short".into(),
        /// inline, 8bit or 4bit (6LoWPAN NHC UDP ports).
        udp_ports: String = "inline".into(),
    }
}

impl Point {
    /// Refuse keys that do nothing in the chosen setup, then fill the
    /// defaults that depend on it.
    pub fn settle(&mut self, p: &mut Problems) {
        self.medium.settle(&mut self.topology, p);
        self.topology.settle(p);
        if self.medium.kind != crate::medium::MediumKind::Pdr {
            // positions, ranges or a trace make the links: no line PDR to fill
            (self.topology.pdr, self.topology.audible) = (None, None);
            self.topology.range_m = None;
        }
        self.mac.settle(p);
        self.dtls.settle(p);
        let slotframe_ms = self
            .mac
            .tsch
            .as_ref()
            .map(|t| f64::from(t.slotframe_length) * t.timeslot_ms);
        self.workload.settle(p, slotframe_ms);
    }

    /// What `key` (dotted, or a table) needs to do anything, where this
    /// point's setup leaves it unread although a file may give it: a file
    /// may describe a DTLS side and an EDHOC side for an experiment to choose
    /// between (`workload.handshake`, a sweep axis), so these keys are
    /// refused only when set for this run ([`Point::unused_given`]). None:
    /// the key counts here, or a file's rule refuses it already (another
    /// MAC's table, another workload's keys).
    pub fn inert(&self, key: &str) -> Option<String> {
        use crate::workload::{Handshake, WorkloadKind};
        let within = |table: &str| key == table || key.starts_with(&format!("{table}."));
        let handshakes = self.workload.kind == WorkloadKind::Handshakes;
        let edhoc = handshakes && self.workload.handshake == Some(Handshake::Edhoc);
        if within("dtls") && edhoc {
            return Some("workload.handshake = 'dtls', not 'edhoc'".into());
        }
        // a join by EDHOC or CoJP runs over [edhoc]'s CoAP (and EDHOC's
        // method and suite)
        let joins_over_coap = self.workload.kind == WorkloadKind::Sessions
            && matches!(
                self.sessions.handshake,
                SessionHandshake::Edhoc | SessionHandshake::Cojp
            );
        if within("edhoc") && !edhoc && !joins_over_coap {
            return Some(if handshakes {
                "workload.handshake = 'edhoc', not 'dtls'".into()
            } else {
                format!(
                    "workload.kind = 'handshakes' and workload.handshake = 'edhoc', \
                     or sessions.handshake = 'edhoc' or 'cojp', not workload.kind = '{}'",
                    self.workload.kind.name()
                )
            });
        }
        None
    }

    /// The keys set for this run (`--set`, a sweep axis; dotted, with their
    /// values) that do nothing here, refused as a file's key that does
    /// nothing is ([`Problems::unused`]).
    pub fn unused_given(&self, given: &[(String, serde_json::Value)]) -> Vec<crate::Problem> {
        let mut p = Problems::default();
        for (key, value) in given {
            if let Some(only_with) = self.inert(key) {
                p.unused(key, value, &only_with);
            }
        }
        p.0
    }

    /// Every rule on the point's values.
    pub fn validate(&self, p: &mut Problems) {
        self.experiment.validate(p);
        if self.platform.is_empty() {
            p.push("platform", &self.platform, "must name a platform file");
        }
        self.topology.validate(p);
        self.medium.validate(p);
        self.mac.validate(p);
        let nodes = self.topology.node_count();
        self.link_security.validate(p, nodes, self.mac.kind);
        self.dtls.validate(p);
        self.edhoc.validate(p);
        self.workload.validate(p);
        self.simulation.validate(p);
        self.model.validate(p);
        self.sessions.validate(p);
        security_after_join_needs(self, p);
        join_proxy_needs(self, p);
        server_down_windows(self, p);
        power_on_window_needs(self, p);
        if self.workload.kind == crate::workload::WorkloadKind::Sessions {
            // the server and every client and attacker on a node of its own
            let needed = u64::from(self.sessions.clients) + u64::from(self.sessions.attackers) + 1;
            if u64::from(nodes) < needed {
                let why = format!(
                    "must hold the server, sessions.clients and sessions.attackers: at least {needed} nodes"
                );
                p.push("topology", nodes, &why);
            }
        }
        self.overhead.validate(p);
    }
}

/// `simulation.power_on_window_s` above 0: only the sessions workload
/// counts its clients' first waits from their power-on (the others start
/// every node's application at simulation.start_ms).
fn power_on_window_needs(point: &Point, p: &mut Problems) {
    let Some(window) = point.simulation.power_on_window_s.filter(|&w| w > 0.0) else {
        return;
    };
    if point.workload.kind != crate::workload::WorkloadKind::Sessions {
        let why = format!(
            "needs workload.kind = 'sessions' (not '{}'); range [0, 1e7] s, 0 or none for every node on at the start",
            point.workload.kind.name()
        );
        p.push("simulation.power_on_window_s", window, &why);
    }
}

/// `sessions.server_down_s`: each window a `[from, to]` pair of finite
/// seconds, to after from, after the previous window's end, within the
/// run; and a server on the air to take down.
fn server_down_windows(point: &Point, p: &mut Problems) {
    let windows = &point.sessions.server_down_s;
    if windows.is_empty() {
        return;
    }
    let key = "sessions.server_down_s";
    let sessions = point.workload.kind == crate::workload::WorkloadKind::Sessions;
    if !sessions || point.sessions.handshake == SessionHandshake::Instant {
        let why = "needs a server on the air: workload.kind = 'sessions' with \
                   sessions.handshake 'dtls', 'dtls13', 'edhoc' or 'cojp'";
        p.push(key, windows, why);
        return;
    }
    let start_s = point.simulation.start_ms / 1000.0;
    let end_s = start_s + point.sessions.warmup_s + point.sessions.duration_s;
    let num = crate::problem::num;
    let mut previous_end: Option<f64> = None;
    for (i, &[from, to]) in windows.iter().enumerate() {
        let at = format!("{key}[{i}]");
        let why = if !(from.is_finite() && to.is_finite()) {
            "must be two finite numbers of seconds, [from_s, to_s]".to_string()
        } else if from < 0.0 {
            format!("must start at 0 s or later (range [0, {}])", num(end_s))
        } else if to <= from {
            "must end after it starts: to_s > from_s".to_string()
        } else if let Some(prev) = previous_end.filter(|&prev| from <= prev) {
            format!(
                "must start after the previous window's end ({} s): windows sorted and apart",
                num(prev)
            )
        } else if to > end_s {
            format!(
                "must end within the run: at most {} s (simulation.start_ms + \
                 sessions.warmup_s + sessions.duration_s); range [0, {}]",
                num(end_s),
                num(end_s)
            )
        } else {
            previous_end = Some(to);
            continue;
        };
        p.push(at, [from, to], why);
        if to.is_finite() {
            previous_end = Some(previous_end.map_or(to, |prev| prev.max(to)));
        }
    }
}

/// `sessions.link_security_after_join` switches the key on at each node's
/// join: it needs a TSCH network, a join workload and a secured level.
fn security_after_join_needs(point: &Point, p: &mut Problems) {
    use crate::mac::MacKind;
    use SessionHandshake as H;
    if !point.sessions.link_security_after_join {
        return;
    }
    let key = "sessions.link_security_after_join";
    if point.mac.kind != MacKind::Tsch {
        let why = "needs mac.kind = 'tsch' (only the TSCH MAC switches the key on at a join)";
        p.push(key, true, why);
    }
    let joins = point.workload.kind == crate::workload::WorkloadKind::Sessions
        && point.sessions.handshake != H::Instant;
    if !joins {
        let why = "needs a join: workload.kind = 'sessions' with sessions.handshake \
                   'dtls', 'dtls13', 'edhoc' or 'cojp'";
        p.push(key, true, why);
    }
    if point.link_security.level.0 == "none" {
        let why = "needs link_security.level other than 'none' (the level joined nodes send at)";
        p.push(key, true, why);
    }
}

/// `sessions.join_proxy` relays CoAP join requests: CoJP's; the join rate
/// is a join proxy's.
fn join_proxy_needs(point: &Point, p: &mut Problems) {
    let s = &point.sessions;
    if s.join_proxy
        && !matches!(
            s.handshake,
            SessionHandshake::Cojp | SessionHandshake::Edhoc
        )
    {
        let why = "needs sessions.handshake = 'cojp' or 'edhoc' (the join proxy relays CoAP \
                   requests; DTLS joins are routed)";
        p.push("sessions.join_proxy", true, why);
    }
    if let (Some(rate), false) = (s.join_rate_bytes_per_s, s.join_proxy) {
        let why = "needs sessions.join_proxy = true (the join rate is what a join proxy forwards)";
        p.push("sessions.join_rate_bytes_per_s", rate, why);
    }
}

impl Experiment {
    fn validate(&self, p: &mut Problems) {
        let id_ok = self.id.len() <= 64
            && self
                .id
                .starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
            && self
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !id_ok {
            let why =
                "must be up to 64 lower-case letters, digits and dashes, not starting with a dash";
            p.push("experiment.id", &self.id, why);
        }
        if self.title.is_empty() {
            p.push("experiment.title", &self.title, "must not be empty");
        }
        self.check_ranges(p);
    }
}

impl Simulation {
    fn validate(&self, p: &mut Problems) {
        self.check_ranges(p);
        // a replication ends at max_time_s: a workload starting then or later
        // never runs, and every row would be a failure
        let end_ms = self.max_time_s * 1000.0;
        if self.max_time_s > 0.0 && self.start_ms >= end_ms {
            let why = format!(
                "must be < simulation.max_time_s ({} s = {} ms), when a replication ends: \
                 nothing would run; range [0, {})",
                crate::problem::num(self.max_time_s),
                crate::problem::num(end_ms),
                crate::problem::num(end_ms)
            );
            p.push("simulation.start_ms", self.start_ms, why);
        }
    }
}

impl Model {
    fn validate(&self, p: &mut Problems) {
        self.check_ranges(p);
    }
}

impl Sessions {
    fn validate(&self, p: &mut Problems) {
        self.check_ranges(p);
    }
}

impl Overhead {
    fn validate(&self, p: &mut Problems) {
        use models::overhead::{AddrMode, Compression, UdpPorts};
        let o = self;
        self.check_ranges(p);
        let max = "overhead.payload_max_bytes";
        p.at_most(
            "overhead.payload_min_bytes",
            o.payload_min_bytes,
            max,
            o.payload_max_bytes,
        );
        if o.suites.is_empty() {
            p.push("overhead.suites", &o.suites, "must list at least one suite");
        }
        // the names and what is allowed are the closed forms' own (crates/models)
        let mut named = |key: &str, refused: Option<models::ModelError>| {
            if let Some(e) = refused {
                p.push(key, e.value, e.allowed);
            }
        };
        named(
            "overhead.compression",
            Compression::from_name(&o.compression).err(),
        );
        named(
            "overhead.addressing",
            AddrMode::from_name(&o.addressing).err(),
        );
        named(
            "overhead.udp_ports",
            UdpPorts::from_name(&o.udp_ports).err(),
        );
    }
}
