//! `[workload]`: what the simulated client does in one replication. Each
//! kind has its own keys; a key of another kind is refused.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::dtls::Suite;
use crate::problem::Problems;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WorkloadKind {
    /// DTLS handshakes back to back from client to server.
    #[default]
    Handshakes,
    /// Pings, plain or inside DTLS records.
    Ping,
    /// Datagrams passed back and forth, each after a random wait.
    Frames,
    /// Every node reports to node 0.
    Periodic,
    /// Clients ask a server with a fixed table of slots for sessions
    /// (the keys are in `[sessions]`).
    Sessions,
}

impl WorkloadKind {
    fn name(self) -> &'static str {
        match self {
            WorkloadKind::Handshakes => "handshakes",
            WorkloadKind::Ping => "ping",
            WorkloadKind::Frames => "frames",
            WorkloadKind::Periodic => "periodic",
            WorkloadKind::Sessions => "sessions",
        }
    }
}

/// `none`: pings in plain UDP; a suite's name: inside DTLS records of that
/// suite, after a handshake (it replaces `dtls.suite` for the point).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum PingSecurity {
    None(NoSecurity),
    Suite(Suite),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NoSecurity {
    None,
}

/// Which handshake the handshakes workload runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Handshake {
    /// DTLS, as `[dtls]` sets it.
    #[default]
    Dtls,
    /// EDHOC over CoAP, as `[edhoc]` sets it.
    Edhoc,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    #[serde(default)]
    #[schemars(extend("x-sweep" = false))]
    pub kind: WorkloadKind,
    /// handshakes: DTLS or EDHOC (default dtls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake: Option<Handshake>,
    /// handshakes: how many (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshakes: Option<u32>,
    /// handshakes, ping: the pause between two (default 1000 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_ms: Option<f64>,
    /// ping: UDP payload (default 32 bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ping_payload_bytes: Option<u32>,
    /// ping: how many (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pings: Option<u32>,
    /// ping: how long to wait for the echo (default 10 000 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ping_timeout_ms: Option<f64>,
    /// ping: plain UDP or a suite (default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ping_security: Option<PingSecurity>,
    /// periodic: time between two reports of a node (default 60 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_interval_s: Option<f64>,
    /// periodic: UDP payload of a report (default 90 bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_payload_bytes: Option<u32>,
    /// periodic: how long the nodes report (default 1010 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// frames: how many datagrams (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<u32>,
    /// frames: UDP payload (default 40 bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_payload_bytes: Option<u32>,
    /// frames: the longest random wait before a datagram (default one
    /// slotframe with TSCH, 1000 ms otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_max_wait_ms: Option<f64>,
}

impl Workload {
    /// Refuse the keys of other kinds, then fill this kind's defaults;
    /// `slotframe_ms`: the TSCH slotframe's duration, if TSCH runs.
    pub fn settle(&mut self, p: &mut Problems, slotframe_ms: Option<f64>) {
        use WorkloadKind::{Frames, Handshakes, Periodic, Ping};
        let kind = self.kind;
        let mut owned = |key: &str, value: Option<serde_json::Value>, owners: &[WorkloadKind]| {
            if let Some(v) = value {
                if !owners.contains(&kind) {
                    let names: Vec<_> = owners.iter().map(|k| format!("'{}'", k.name())).collect();
                    p.unused(
                        &format!("workload.{key}"),
                        v,
                        &format!("workload.kind = {}", names.join(" or ")),
                    );
                }
            }
        };
        fn v<T: Serialize>(x: &Option<T>) -> Option<serde_json::Value> {
            x.as_ref().map(|x| serde_json::json!(x))
        }
        owned("handshake", v(&self.handshake), &[Handshakes]);
        owned("handshakes", v(&self.handshakes), &[Handshakes]);
        owned("pause_ms", v(&self.pause_ms), &[Handshakes, Ping]);
        owned("ping_payload_bytes", v(&self.ping_payload_bytes), &[Ping]);
        owned("pings", v(&self.pings), &[Ping]);
        owned("ping_timeout_ms", v(&self.ping_timeout_ms), &[Ping]);
        owned("ping_security", v(&self.ping_security), &[Ping]);
        owned("report_interval_s", v(&self.report_interval_s), &[Periodic]);
        owned(
            "report_payload_bytes",
            v(&self.report_payload_bytes),
            &[Periodic],
        );
        owned("duration_s", v(&self.duration_s), &[Periodic]);
        owned("frames", v(&self.frames), &[Frames]);
        owned(
            "frame_payload_bytes",
            v(&self.frame_payload_bytes),
            &[Frames],
        );
        owned("frame_max_wait_ms", v(&self.frame_max_wait_ms), &[Frames]);
        let mine = |k: WorkloadKind| k == kind;
        fn keep<T>(on: bool, v: Option<T>, default: T) -> Option<T> {
            on.then(|| v.unwrap_or(default))
        }
        self.handshake = keep(mine(Handshakes), self.handshake, Handshake::Dtls);
        self.handshakes = keep(mine(Handshakes), self.handshakes, 1);
        self.pause_ms = keep(mine(Handshakes) || mine(Ping), self.pause_ms, 1000.0);
        self.ping_payload_bytes = keep(mine(Ping), self.ping_payload_bytes, 32);
        self.pings = keep(mine(Ping), self.pings, 10);
        self.ping_timeout_ms = keep(mine(Ping), self.ping_timeout_ms, 10_000.0);
        let plain = PingSecurity::None(NoSecurity::None);
        self.ping_security = keep(mine(Ping), self.ping_security, plain);
        self.report_interval_s = keep(mine(Periodic), self.report_interval_s, 60.0);
        self.report_payload_bytes = keep(mine(Periodic), self.report_payload_bytes, 90);
        self.duration_s = keep(mine(Periodic), self.duration_s, 1010.0);
        self.frames = keep(mine(Frames), self.frames, 10);
        self.frame_payload_bytes = keep(mine(Frames), self.frame_payload_bytes, 40);
        let wait = slotframe_ms.unwrap_or(1000.0);
        self.frame_max_wait_ms = keep(mine(Frames), self.frame_max_wait_ms, wait);
    }

    pub fn validate(&self, p: &mut Problems) {
        let mut range = |key: &str, v: Option<f64>| {
            if let Some(v) = v {
                p.within(&format!("workload.{key}"), v);
            }
        };
        let f = |v: Option<u32>| v.map(f64::from);
        range("handshakes", f(self.handshakes));
        range("pause_ms", self.pause_ms);
        range("ping_payload_bytes", f(self.ping_payload_bytes));
        range("pings", f(self.pings));
        range("ping_timeout_ms", self.ping_timeout_ms);
        range("report_interval_s", self.report_interval_s);
        range("report_payload_bytes", f(self.report_payload_bytes));
        range("duration_s", self.duration_s);
        range("frames", f(self.frames));
        range("frame_payload_bytes", f(self.frame_payload_bytes));
        range("frame_max_wait_ms", self.frame_max_wait_ms);
    }
}
