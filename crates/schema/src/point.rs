//! One point of a scenario file: every section with the file's names,
//! after sweep axes are expanded (each key holds one value). Sections the
//! simulator does not read (`model`, `sessions`, `overhead`) feed the
//! closed forms; they are here so that one schema covers the whole file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::dtls::{Dtls, Suite};
use crate::link_security::LinkSecurity;
use crate::mac::Mac;
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
    pub mac: Mac,
    #[serde(default)]
    pub link_security: LinkSecurity,
    #[serde(default)]
    pub dtls: Dtls,
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

/// The session-capacity experiment (Engset: slots, clients, offered traffic).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Sessions {
    pub slots: u32,
    pub clients: u32,
    pub erlang: f64,
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions {
            slots: 3,
            clients: 5,
            erlang: 0.5,
        }
    }
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
        self.topology.settle(p);
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
        self.mac.validate(p);
        let nodes = self.topology.node_count();
        self.link_security.validate(p, nodes, self.mac.kind);
        self.dtls.validate(p);
        self.workload.validate(p);
        self.simulation.validate(p);
        self.model.validate(p);
        self.sessions.validate(p);
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
        p.within("sessions.clients", self.clients);
        p.within("sessions.erlang", self.erlang);
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
