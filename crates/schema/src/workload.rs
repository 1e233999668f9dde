//! `[workload]`: what the simulated client does in one replication. Each
//! kind has its own keys; a key of another kind is refused.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::dtls::Suite;
use crate::param::params;
use crate::problem::Low::{Above, AtLeast};
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
    pub fn name(self) -> &'static str {
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

const HOUR_MS: f64 = 3_600_000.0;

params! {
    /// What the client does. Each key belongs to some kinds (named first in
    /// its doc); its default is filled in when the file chooses one of them.
    #[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Workload at "workload" {
        /// handshakes, ping, frames, periodic or sessions.
        kind: WorkloadKind [serde(default), schemars(extend("x-sweep" = false))]
            = WorkloadKind::Handshakes,
        /// handshakes: DTLS or EDHOC.
        handshake: Option<Handshake> [serde(default, skip_serializing_if = "Option::is_none")] = Some(Handshake::Dtls),
        /// handshakes: the node that starts them; absent: node 0 (a line's
        /// first node).
        client_node: Option<u32> [serde(default, skip_serializing_if = "Option::is_none")];
            range (AtLeast(0.0), 9_999.0),
        /// handshakes, sessions: the node that answers them (a border
        /// router: 0, the TSCH and RPL root); absent: the last node (a
        /// line's far end).
        server_node: Option<u32> [serde(default, skip_serializing_if = "Option::is_none")];
            range (AtLeast(0.0), 9_999.0),
        /// handshakes: how many.
        handshakes: Option<u32> [serde(default, skip_serializing_if = "Option::is_none")] = Some(1); range (AtLeast(1.0), 1_000_000.0),
        /// handshakes, ping: the pause between two.
        pause_ms: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")] = Some(1000.0); range (AtLeast(0.0), HOUR_MS),
        /// handshakes: a uniform extra in [0, this) added to each pause (the
        /// Cooja oracles' firmware waits 1 s + random_rand() % 1 s).
        pause_jitter_ms: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")] = Some(0.0); range (AtLeast(0.0), HOUR_MS),
        /// handshakes (DTLS): give a handshake up once the stack has nothing
        /// left to resend and the server has sent nothing for this long,
        /// checked every second (the Cooja oracles' firmware: 60 s); absent:
        /// wait (a tinyDTLS client whose server Finished was lost waits for
        /// ever).
        give_up_idle_ms: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")] = None; range (Above(0.0), HOUR_MS),
        /// handshakes (DTLS): the client ends each completed handshake with a
        /// close_notify; false: it drops the session without a word, as the
        /// Cooja oracles' firmware does.
        close_notify: Option<bool> [serde(default, skip_serializing_if = "Option::is_none")] = Some(true),
        /// ping: UDP payload.
        ping_payload_bytes: Option<u32> [serde(default, skip_serializing_if = "Option::is_none")] = Some(32); range (AtLeast(0.0), 1200.0),
        /// ping: how many.
        pings: Option<u32> [serde(default, skip_serializing_if = "Option::is_none")] = Some(10); range (AtLeast(1.0), 1_000_000.0),
        /// ping: how long to wait for the echo.
        ping_timeout_ms: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")] = Some(10_000.0); range (Above(0.0), HOUR_MS),
        /// ping: plain UDP or a suite.
        ping_security: Option<PingSecurity> [serde(default, skip_serializing_if = "Option::is_none")] = Some(PingSecurity::None(NoSecurity::None)),
        /// periodic: time between two reports of a node.
        report_interval_s: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")] = Some(60.0); range (Above(0.0), 86_400.0),
        /// periodic: UDP payload of a report.
        report_payload_bytes: Option<u32> [serde(default, skip_serializing_if = "Option::is_none")] = Some(90); range (AtLeast(8.0), 1200.0),
        /// periodic: how long the nodes report.
        duration_s: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")] = Some(1010.0); range (Above(0.0), 1e7),
        /// frames: how many datagrams.
        frames: Option<u32> [serde(default, skip_serializing_if = "Option::is_none")] = Some(10); range (AtLeast(1.0), 100_000.0),
        /// frames: UDP payload.
        frame_payload_bytes: Option<u32> [serde(default, skip_serializing_if = "Option::is_none")] = Some(40); range (AtLeast(12.0), 1200.0),
        /// frames: the longest random wait before a datagram (with TSCH, one
        /// slotframe instead of this default).
        frame_max_wait_ms: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")] = Some(1000.0); range (AtLeast(0.0), HOUR_MS),
    }
}

impl Workload {
    /// Refuse the keys of other kinds, then fill this kind's defaults;
    /// `slotframe_ms`: the TSCH slotframe's duration, if TSCH runs.
    pub fn settle(&mut self, p: &mut Problems, slotframe_ms: Option<f64>) {
        use WorkloadKind::{Frames, Handshakes, Periodic, Ping, Sessions};
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
        owned("client_node", v(&self.client_node), &[Handshakes]);
        owned("server_node", v(&self.server_node), &[Handshakes, Sessions]);
        owned("pause_ms", v(&self.pause_ms), &[Handshakes, Ping]);
        owned("pause_jitter_ms", v(&self.pause_jitter_ms), &[Handshakes]);
        owned("give_up_idle_ms", v(&self.give_up_idle_ms), &[Handshakes]);
        owned("close_notify", v(&self.close_notify), &[Handshakes]);
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
        let d = Self::declared();
        fn keep<T>(on: bool, v: Option<T>, default: Option<T>) -> Option<T> {
            on.then(|| v.or(default)).flatten()
        }
        self.handshake = keep(mine(Handshakes), self.handshake, d.handshake);
        self.handshakes = keep(mine(Handshakes), self.handshakes, d.handshakes);
        self.pause_ms = keep(mine(Handshakes) || mine(Ping), self.pause_ms, d.pause_ms);
        self.pause_jitter_ms = keep(mine(Handshakes), self.pause_jitter_ms, d.pause_jitter_ms);
        self.close_notify = keep(mine(Handshakes), self.close_notify, d.close_notify);
        self.ping_payload_bytes = keep(mine(Ping), self.ping_payload_bytes, d.ping_payload_bytes);
        self.pings = keep(mine(Ping), self.pings, d.pings);
        self.ping_timeout_ms = keep(mine(Ping), self.ping_timeout_ms, d.ping_timeout_ms);
        self.ping_security = keep(mine(Ping), self.ping_security, d.ping_security);
        self.report_interval_s = keep(mine(Periodic), self.report_interval_s, d.report_interval_s);
        let payload = d.report_payload_bytes;
        self.report_payload_bytes = keep(mine(Periodic), self.report_payload_bytes, payload);
        self.duration_s = keep(mine(Periodic), self.duration_s, d.duration_s);
        self.frames = keep(mine(Frames), self.frames, d.frames);
        let payload = d.frame_payload_bytes;
        self.frame_payload_bytes = keep(mine(Frames), self.frame_payload_bytes, payload);
        let wait = slotframe_ms.or(d.frame_max_wait_ms);
        self.frame_max_wait_ms = keep(mine(Frames), self.frame_max_wait_ms, wait);
    }

    pub fn validate(&self, p: &mut Problems) {
        self.check_ranges(p);
    }

    /// The handshakes' client and server among `nodes` nodes: the keys
    /// given, else node 0 and the last node. Refused: a node beyond the
    /// network, or the same node twice.
    pub fn ends(&self, nodes: usize, p: &mut Problems) -> (usize, usize) {
        let client = self.client_node.map_or(0, |n| n as usize);
        let server = self
            .server_node
            .map_or(nodes.saturating_sub(1), |n| n as usize);
        let last = nodes.saturating_sub(1);
        for (key, n) in [
            ("workload.client_node", client),
            ("workload.server_node", server),
        ] {
            if n >= nodes {
                p.push(key, n, format!("a node of the network, 0..={last}"));
            }
        }
        // the sessions workload's clients are every node but the server
        if client == server && client < nodes && self.kind != WorkloadKind::Sessions {
            p.push(
                "workload.server_node",
                server,
                "a node other than workload.client_node (the client)",
            );
        }
        (client, server)
    }
}
