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
    /// The platform file's name (`platforms/<name>.toml`).
    #[serde(default = "default_platform")]
    pub platform: String,
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

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    /// Lower-case letters, digits and dashes (it names result directories).
    pub id: String,
    pub title: String,
    /// Where the experiment is described.
    #[serde(default)]
    pub reference: String,
    #[serde(default = "one")]
    pub seed: u64,
    #[serde(default = "one")]
    pub replications: u64,
    /// Replications with `--quick`.
    #[serde(default = "twenty")]
    pub quick_replications: u64,
}

fn one() -> u64 {
    1
}
fn twenty() -> u64 {
    20
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Simulation {
    /// When the first handshake or ping starts (lets duty cycles settle).
    pub start_ms: f64,
    /// Give up a replication at this virtual time.
    pub max_time_s: f64,
    /// Software timers fire on clock ticks: Contiki's CLOCK_SECOND is 128
    /// on MSP430 and CC2538 motes (7.8125 ms); 0 makes timers exact.
    pub timer_tick_ms: f64,
}

impl Default for Simulation {
    fn default() -> Self {
        Simulation {
            start_ms: 1000.0,
            max_time_s: 3600.0,
            timer_tick_ms: 7.8125,
        }
    }
}

/// Inputs only the closed forms use.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Model {
    /// Frames of one handshake (the TSCH latency closed form's L).
    pub handshake_frames: u32,
}

impl Default for Model {
    fn default() -> Self {
        Model {
            handshake_frames: 10,
        }
    }
}

/// The session-capacity experiment: the Engset closed form's slots R,
/// clients N and offered traffic ρ per idle client, and, with
/// `workload.kind = "sessions"`, how the simulated server and clients behave.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Sessions {
    /// R, the server's session slots (unless `fixed_ram_bytes` sizes them).
    pub slots: u32,
    /// RAM the server uses beside its session table (OS, network stack,
    /// the DTLS code's static data). Set: R is computed from the
    /// platform's RAM instead of `slots`, R = floor((RAM − this) / the
    /// bytes one slot needs), a slot sized for a handshake in the compact
    /// layout of a constrained stack.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixed_ram_bytes: Option<u32>,
    pub clients: u32,
    pub erlang: f64,
    /// Mean time a client holds a session (1/μ); a client without one asks
    /// after an exponential time of mean holding_s / erlang (1/λ).
    pub holding_s: f64,
    /// What a handshake finding every slot taken does.
    pub policy: SessionPolicy,
    /// `instant`: requests meet the table at once, off the air (the closed
    /// form's assumption); `dtls`: a full handshake over the MAC.
    #[schemars(extend("x-sweep" = false))]
    pub handshake: SessionHandshake,
    /// How a client closes: `once`, one close_notify (tinyDTLS dtls.c
    /// `dtls_close`); `until-answered`, repeated on the DTLS retransmission
    /// timer until the server's answering close_notify (RFC 5246 §7.2.1)
    /// arrives.
    pub close: SessionClose,
    /// Sessions the server keeps for resumption by session ID (RFC 5246
    /// §7.3), the oldest dropped first; a client offers the last session it
    /// was given. 0: none (tinyDTLS has no resumption).
    pub session_cache: u32,
    /// A held session sends a record of data_bytes this often.
    pub data_interval_s: f64,
    pub data_bytes: u32,
    /// Nodes that complete the cookie exchange and go silent (half-open),
    /// each once per attack_interval_s.
    pub attackers: u32,
    pub attack_interval_s: f64,
    /// At most this many half-open handshakes (none: no limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub half_open_max: Option<u32>,
    /// A handshake half-open this long loses its slot (none: never).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub half_open_timeout_s: Option<f64>,
    /// An established session silent this long loses its slot (none:
    /// never, as in tinyDTLS, which keeps no idle timer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_timeout_s: Option<f64>,
    /// At most this many slots per client address (none: no cap).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_host_max: Option<u32>,
    /// Simulated before measuring (the table fills from empty).
    pub warmup_s: f64,
    /// Measured.
    pub duration_s: f64,
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions {
            slots: 3,
            fixed_ram_bytes: None,
            clients: 5,
            erlang: 0.5,
            holding_s: 60.0,
            policy: SessionPolicy::Refuse,
            handshake: SessionHandshake::Dtls,
            close: SessionClose::Once,
            session_cache: 0,
            data_interval_s: 10.0,
            data_bytes: 16,
            attackers: 0,
            attack_interval_s: 1.0,
            half_open_max: None,
            half_open_timeout_s: None,
            idle_timeout_s: None,
            per_host_max: None,
            warmup_s: 600.0,
            duration_s: 3600.0,
        }
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
}

/// Application payload sizes (a range, in bytes) and the suites to compare
/// in the per-datagram overhead study.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Overhead {
    pub payload_min_bytes: u32,
    pub payload_max_bytes: u32,
    pub payload_step_bytes: u32,
    pub suites: Vec<Suite>,
    /// 6LoWPAN IPHC: link-local, context, global-inline or uncompressed.
    pub compression: String,
    /// short or extended.
    pub addressing: String,
    /// inline, 8bit or 4bit (6LoWPAN NHC UDP ports).
    pub udp_ports: String,
}

impl Default for Overhead {
    fn default() -> Self {
        Overhead {
            payload_min_bytes: 0,
            payload_max_bytes: 256,
            payload_step_bytes: 1,
            suites: vec![Suite("psk-aes128-ccm8")],
            compression: "link-local".into(),
            addressing: "short".into(),
            udp_ports: "inline".into(),
        }
    }
}

impl Point {
    /// Refuse keys that do nothing in the chosen setup, then fill the
    /// defaults that depend on it.
    pub fn settle(&mut self, p: &mut Problems) {
        self.medium.settle(&mut self.topology, p);
        self.topology.settle(p);
        if self.medium.udgm().is_some() {
            // positions and ranges make the links: no line PDR to fill
            (self.topology.pdr, self.topology.audible) = (None, None);
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
        // a seed goes to Parquet's signed 64-bit integers
        p.within("experiment.seed", self.seed as f64);
        let reps = |p: &mut Problems, key: &str, v: u64| {
            p.within(key, v as f64);
        };
        reps(p, "experiment.replications", self.replications);
        reps(p, "experiment.quick_replications", self.quick_replications);
    }
}

impl Simulation {
    fn validate(&self, p: &mut Problems) {
        p.within("simulation.start_ms", self.start_ms);
        p.within("simulation.max_time_s", self.max_time_s);
        p.within("simulation.timer_tick_ms", self.timer_tick_ms);
    }
}

impl Model {
    fn validate(&self, p: &mut Problems) {
        let frames = self.handshake_frames;
        p.within("model.handshake_frames", frames);
    }
}

impl Sessions {
    fn validate(&self, p: &mut Problems) {
        p.within("sessions.slots", self.slots);
        if let Some(v) = self.fixed_ram_bytes {
            p.within("sessions.fixed_ram_bytes", v);
        }
        p.within("sessions.clients", self.clients);
        p.within("sessions.erlang", self.erlang);
        p.within("sessions.holding_s", self.holding_s);
        p.within("sessions.data_interval_s", self.data_interval_s);
        p.within("sessions.data_bytes", self.data_bytes);
        p.within("sessions.session_cache", self.session_cache);
        p.within("sessions.attackers", self.attackers);
        p.within("sessions.attack_interval_s", self.attack_interval_s);
        if let Some(v) = self.half_open_max {
            p.within("sessions.half_open_max", v);
        }
        if let Some(v) = self.half_open_timeout_s {
            p.within("sessions.half_open_timeout_s", v);
        }
        if let Some(v) = self.idle_timeout_s {
            p.within("sessions.idle_timeout_s", v);
        }
        if let Some(v) = self.per_host_max {
            p.within("sessions.per_host_max", v);
        }
        p.within("sessions.warmup_s", self.warmup_s);
        p.within("sessions.duration_s", self.duration_s);
    }
}

impl Overhead {
    fn validate(&self, p: &mut Problems) {
        use models::overhead::{AddrMode, Compression, UdpPorts};
        let o = self;
        p.within("overhead.payload_min_bytes", o.payload_min_bytes);
        p.within("overhead.payload_max_bytes", o.payload_max_bytes);
        p.within("overhead.payload_step_bytes", o.payload_step_bytes);
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
