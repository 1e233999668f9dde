//! `[medium]`: how frames cross from one radio to another. `kind = "pdr"`
//! (the default) gives every link of the topology its delivery ratio;
//! `kind = "udgm"` is Cooja's Unit Disk Graph Medium over a line of nodes
//! `spacing_m` apart (the simulator's `sim::medium` has the rules and their
//! source), so a Cooja simulation's set-up can be written as a scenario.
//! `kind = "log-distance"` places the line's nodes `spacing_m` apart and
//! receives by SINR (`sim::radio`, `sim::channel`); `kind = "pister-hack"`
//! builds the line's links as the 6TiSCH simulator does; `kind = "trace"`
//! replays a K7 connectivity trace (`sim::k7`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::param::params;
use crate::problem::Low::{Above, AtLeast};
use crate::problem::Problems;
use crate::topology::{Topology, TopologyKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MediumKind {
    /// Each link of the topology delivers a frame with its PDR.
    #[default]
    Pdr,
    /// Cooja's UDGM: nodes on a line `spacing_m` apart, a transmitting and
    /// an interference range, success ratios per transmission and per
    /// receiver.
    Udgm,
    /// Nodes on a line `spacing_m` apart; log-distance path loss with
    /// log-normal shadowing per link; reception by SINR with the O-QPSK
    /// packet error rate and a capture rule; carrier sense by energy.
    LogDistance,
    /// The 6TiSCH simulator's Pister-hack links over a line `spacing_m`
    /// apart: RSSI from free-space distance lowered by a random offset,
    /// PDR from its RSSI table; overlapping frames collide.
    PisterHack,
    /// A K7 connectivity trace replayed per link, channel and time.
    Trace,
}

impl MediumKind {
    /// Does this kind place the topology's nodes on a line `spacing_m` apart?
    pub fn places_a_line(self) -> bool {
        matches!(
            self,
            MediumKind::Udgm | MediumKind::LogDistance | MediumKind::PisterHack
        )
    }

    fn name(self) -> &'static str {
        match self {
            MediumKind::Pdr => "pdr",
            MediumKind::Udgm => "udgm",
            MediumKind::LogDistance => "log-distance",
            MediumKind::PisterHack => "pister-hack",
            MediumKind::Trace => "trace",
        }
    }
}

params! {
    /// How frames cross from one radio to another. The udgm keys are
    /// filled in (with Cooja 3.0's UDGM.java defaults and the oracle's
    /// spacing) when the file chooses that kind.
    #[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Medium at "medium" {
        /// pdr, udgm, log-distance, pister-hack or trace.
        kind: MediumKind [serde(default), schemars(extend("x-sweep" = false))] = MediumKind::Pdr,
        /// udgm, log-distance, pister-hack: distance between neighbours on
        /// the line (the Cooja oracle's, gen_csc.py `--spacing 40`).
        spacing_m: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(40.0); range (Above(0.0), 100_000.0),
        /// udgm: transmitting range (UDGM.java TRANSMITTING_RANGE).
        tx_range_m: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(50.0); range (Above(0.0), 100_000.0),
        /// udgm: interference range (UDGM.java INTERFERENCE_RANGE).
        interference_range_m: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(100.0); range (AtLeast(0.0), 100_000.0),
        /// udgm: chance that a transmission goes out at all, for every radio
        /// (UDGM.java SUCCESS_RATIO_TX; 0 would carry nothing).
        success_ratio_tx: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(1.0); range (Above(0.0), 1.0),
        /// udgm: chance of reception at the edge of the transmitting range,
        /// rising to 1 at distance 0 with the square of distance (UDGM.java
        /// SUCCESS_RATIO_RX).
        success_ratio_rx: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(1.0); range (AtLeast(0.0), 1.0),
        /// log-distance: path loss at the reference distance; the default
        /// is free space (Friis) at 1 m and 2.45 GHz, the band's middle:
        /// 20 log10(4π · 1 m / 0.12236 m) = 40.2 dB.
        reference_loss_db: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(40.2); range (Above(0.0), 200.0),
        /// log-distance: the reference distance d0 of the loss above.
        reference_distance_m: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(1.0); range (Above(0.0), 1_000.0),
        /// log-distance: path-loss exponent n (Rappaport, Wireless
        /// Communications, 2nd ed., Table 4.2: 2 in free space, 2.7-3.5 in
        /// urban areas, 1.6-1.8 in a building with line of sight, 4-6
        /// obstructed; 3 as recalled, not re-read).
        path_loss_exponent: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(3.0); range (AtLeast(1.0), 8.0),
        /// log-distance: standard deviation of the log-normal shadowing of
        /// each link, static per replication and the same both ways (0:
        /// none).
        shadowing_sigma_db: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(0.0); range (AtLeast(0.0), 20.0),
        /// log-distance: re-draw each link's shadowing every this long, an
        /// independent draw per period (piecewise-constant block shadowing;
        /// the period is the user's choice, no source gives one); 0: static
        /// for the replication. Links and routes follow the first period.
        shadowing_period_s: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(0.0); range (AtLeast(0.0), 1_000_000.0),
        /// log-distance: receiver noise floor: thermal noise kTB over the
        /// 2 MHz channel, -174 dBm/Hz + 10 log10(2e6) = -111 dBm, plus a
        /// 10 dB receiver noise figure (estimate, no datasheet gives it).
        noise_floor_dbm: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(-101.0); range (AtLeast(-130.0), -60.0),
        /// log-distance: a locked frame survives while its SINR stays at
        /// or above this, and a later frame takes the receiver over in the
        /// first frame's synchronisation header only this much stronger
        /// (CC2420 datasheet SWRS041, "co-channel rejection" -3 dB: a
        /// wanted frame 3 dB above an 802.15.4 interferer is received;
        /// as recalled, not re-read).
        capture_threshold_db: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(3.0); range (AtLeast(0.0), 30.0),
        /// log-distance: every node's transmit power; at most the
        /// platform's highest level (`radio.tx_power_max_dbm`).
        tx_power_dbm: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(0.0); range (AtLeast(-40.0), 30.0),
        /// trace: the K7 trace (gzip or plain text) to replay; a run
        /// without one is refused, naming this key.
        trace_path: Option<String> [serde(default, skip_serializing_if = "Option::is_none")],
        /// trace: scenario node i is trace node trace_nodes[i]; absent:
        /// node i is trace node i.
        trace_nodes: Option<Vec<u32>> [serde(default, skip_serializing_if = "Option::is_none")];
            range (AtLeast(0.0), 10_000.0),
        /// trace: replay every frame with this IEEE 802.15.4 channel's PDR
        /// (one the trace measured), as if the network did not hop; absent:
        /// each frame meets the PDR of the channel it is sent on.
        trace_channel: Option<u8> [serde(default, skip_serializing_if = "Option::is_none")];
            range (AtLeast(11.0), 26.0),
    }
}

/// A numeric key: its name, its value, its declared default and the
/// kinds that read it.
type NumberKey<'a> = (
    &'static str,
    &'a mut Option<f64>,
    Option<f64>,
    &'static [MediumKind],
);

/// Which kinds read a numeric key.
const LINE: &[MediumKind] = &[
    MediumKind::Udgm,
    MediumKind::LogDistance,
    MediumKind::PisterHack,
];
const UDGM: &[MediumKind] = &[MediumKind::Udgm];
const SIGNAL: &[MediumKind] = &[MediumKind::LogDistance];

impl Medium {
    fn number_keys(&mut self) -> [NumberKey<'_>; 13] {
        let d = Self::declared();
        [
            ("spacing_m", &mut self.spacing_m, d.spacing_m, LINE),
            ("tx_range_m", &mut self.tx_range_m, d.tx_range_m, UDGM),
            (
                "interference_range_m",
                &mut self.interference_range_m,
                d.interference_range_m,
                UDGM,
            ),
            (
                "success_ratio_tx",
                &mut self.success_ratio_tx,
                d.success_ratio_tx,
                UDGM,
            ),
            (
                "success_ratio_rx",
                &mut self.success_ratio_rx,
                d.success_ratio_rx,
                UDGM,
            ),
            (
                "reference_loss_db",
                &mut self.reference_loss_db,
                d.reference_loss_db,
                SIGNAL,
            ),
            (
                "reference_distance_m",
                &mut self.reference_distance_m,
                d.reference_distance_m,
                SIGNAL,
            ),
            (
                "path_loss_exponent",
                &mut self.path_loss_exponent,
                d.path_loss_exponent,
                SIGNAL,
            ),
            (
                "shadowing_sigma_db",
                &mut self.shadowing_sigma_db,
                d.shadowing_sigma_db,
                SIGNAL,
            ),
            (
                "shadowing_period_s",
                &mut self.shadowing_period_s,
                d.shadowing_period_s,
                SIGNAL,
            ),
            (
                "noise_floor_dbm",
                &mut self.noise_floor_dbm,
                d.noise_floor_dbm,
                SIGNAL,
            ),
            (
                "capture_threshold_db",
                &mut self.capture_threshold_db,
                d.capture_threshold_db,
                SIGNAL,
            ),
            (
                "tx_power_dbm",
                &mut self.tx_power_dbm,
                d.tx_power_dbm,
                SIGNAL,
            ),
        ]
    }

    /// The kinds that read `key`, for the message refusing it elsewhere.
    fn kinds_text(kinds: &[MediumKind]) -> String {
        let names: Vec<String> = kinds.iter().map(|k| format!("'{}'", k.name())).collect();
        format!("medium.kind = {}", names.join(" or "))
    }

    /// Refuse the keys the chosen kind does not read and the topology's
    /// link quality keys where positions or a trace make the links, then
    /// fill the kind's defaults. Runs before the topology fills its own.
    pub fn settle(&mut self, topology: &mut Topology, p: &mut Problems) {
        let kind = self.kind;
        // nodes placed in an area: no line, so no spacing to read
        let in_area = topology.kind == TopologyKind::Random && kind.places_a_line();
        if in_area {
            if let Some(v) = self.spacing_m.take() {
                let why = "topology.kind = 'line' (in an area the positions give the distances)";
                p.unused("medium.spacing_m", v, why);
            }
        }
        for (name, value, default, kinds) in self.number_keys() {
            if in_area && name == "spacing_m" {
                continue;
            }
            if kinds.contains(&kind) {
                *value = value.or(default);
            } else if let Some(v) = value.take() {
                p.unused(&format!("medium.{name}"), v, &Self::kinds_text(kinds));
            }
        }
        if kind != MediumKind::Trace {
            let why = Self::kinds_text(&[MediumKind::Trace]);
            if let Some(path) = self.trace_path.take() {
                p.unused("medium.trace_path", path, &why);
            }
            if let Some(nodes) = self.trace_nodes.take() {
                p.unused("medium.trace_nodes", json!(nodes), &why);
            }
            if let Some(channel) = self.trace_channel.take() {
                p.unused("medium.trace_channel", channel, &why);
            }
        }
        if kind == MediumKind::Pdr {
            return;
        }
        if in_area {
            let why = format!(
                "topology.kind = 'random' with medium.kind = 'pdr' (under '{}' the medium \
                 makes the links)",
                kind.name()
            );
            if let Some(range) = topology.range_m.take() {
                p.unused("topology.range_m", range, &why);
            }
            return;
        }
        if topology.kind != TopologyKind::Line {
            let got = serde_json::to_value(topology.kind).unwrap_or_default();
            p.push(
                "medium.kind",
                kind.name(),
                format!(
                    "places the nodes of topology.kind = 'line' or 'random' (maps them, for \
                     'trace': 'line' only; got {got})"
                ),
            );
        }
        let why = format!(
            "topology.kind = 'line' with medium.kind = 'pdr' (under '{}' the medium makes \
             the links)",
            kind.name()
        );
        if let Some(pdr) = topology.pdr.take() {
            p.unused("topology.pdr", pdr, &why);
        }
        if let Some(audible) = topology.audible.take() {
            p.unused("topology.audible", json!(audible), &why);
        }
    }

    pub fn validate(&self, p: &mut Problems) {
        self.check_ranges(p);
        if let Some(path) = &self.trace_path {
            if path.is_empty() {
                p.push("medium.trace_path", path, "a path to a K7 trace file");
            }
        }
        if let Some(nodes) = &self.trace_nodes {
            let mut seen = std::collections::HashSet::new();
            if let Some((i, n)) = nodes.iter().enumerate().find(|(_, n)| !seen.insert(**n)) {
                p.push(
                    format!("medium.trace_nodes[{i}]"),
                    n,
                    "a trace node not already mapped",
                );
            }
        }
        if let (Some(spacing), Some(range)) = (self.spacing_m, self.tx_range_m) {
            if spacing > range {
                p.push(
                    "medium.spacing_m",
                    spacing,
                    format!(
                        "must be <= medium.tx_range_m ({range} m): neighbours on the line must \
                         reach each other"
                    ),
                );
            }
        }
        if let Some(u) = self.udgm() {
            if u.spacing_m <= u.tx_range_m && u.rx_success(u.spacing_m) <= 0.0 {
                p.push(
                    "medium.success_ratio_rx",
                    u.success_ratio_rx,
                    "must be > 0 when medium.spacing_m equals medium.tx_range_m: neighbours \
                     on the line would never hear each other",
                );
            }
        }
    }

    /// The simulator's log-distance line for a platform's radio, when this
    /// medium is one; a transmit power beyond the radio's range, or a
    /// platform without the figures, is refused naming the key.
    pub fn log_distance(
        &self,
        radio: Option<sim::radio::RadioFigures>,
        p: &mut Problems,
    ) -> Option<sim::medium::LogDistanceLine> {
        if self.kind != MediumKind::LogDistance {
            return None;
        }
        let Some(radio) = radio else {
            p.push(
                "medium.kind",
                "log-distance",
                "needs the platform's radio figures (radio.sensitivity_dbm, \
                 radio.cca_threshold_dbm, radio.tx_power_min_dbm/max_dbm)",
            );
            return None;
        };
        let d = Self::declared();
        let or = |v: Option<f64>, d: Option<f64>| v.or(d).unwrap_or_default();
        let tx = or(self.tx_power_dbm, d.tx_power_dbm);
        if !(radio.tx_power_min_dbm..=radio.tx_power_max_dbm).contains(&tx) {
            p.push(
                "medium.tx_power_dbm",
                tx,
                format!(
                    "within the platform radio's output range [{}, {}] dBm",
                    radio.tx_power_min_dbm, radio.tx_power_max_dbm
                ),
            );
        }
        Some(sim::medium::LogDistanceLine {
            spacing_m: or(self.spacing_m, d.spacing_m),
            path: sim::radio::LogDistance {
                reference_loss_db: or(self.reference_loss_db, d.reference_loss_db),
                reference_distance_m: or(self.reference_distance_m, d.reference_distance_m),
                exponent: or(self.path_loss_exponent, d.path_loss_exponent),
            },
            shadowing_sigma_db: or(self.shadowing_sigma_db, d.shadowing_sigma_db),
            shadowing_period_us: crate::units::us_from_s(or(
                self.shadowing_period_s,
                d.shadowing_period_s,
            )),
            tx_power_dbm: tx,
            noise_floor_dbm: or(self.noise_floor_dbm, d.noise_floor_dbm),
            capture_threshold_db: or(self.capture_threshold_db, d.capture_threshold_db),
            radio,
        })
    }

    /// The simulator's Pister-hack line, when this medium is one.
    pub fn pister_hack(&self) -> Option<sim::medium::PisterHackLine> {
        let d = Self::declared();
        (self.kind == MediumKind::PisterHack).then(|| sim::medium::PisterHackLine {
            spacing_m: self.spacing_m.or(d.spacing_m).unwrap_or_default(),
        })
    }

    /// The replay of this medium's trace for `nodes` scenario nodes whose
    /// MAC sends on the IEEE 802.15.4 channels `channels`, when this medium
    /// is one. Refused, naming the key, the value and what is allowed: a
    /// missing or unreadable trace; one with fewer nodes than the scenario
    /// (`topology.hops`, or `medium.trace_nodes` when the file maps them);
    /// one that never measured a channel the MAC sends on (its frames
    /// there would be lost for want of data, not of signal); a mapping
    /// naming a node the trace lacks.
    pub fn trace(
        &self,
        nodes: usize,
        channels: &[u8],
        p: &mut Problems,
    ) -> Option<std::sync::Arc<sim::k7::Replay>> {
        if self.kind != MediumKind::Trace {
            return None;
        }
        let Some(path) = &self.trace_path else {
            p.push(
                "medium.trace_path",
                serde_json::Value::Null,
                "a K7 trace file (gzip or plain) to replay",
            );
            return None;
        };
        let trace = match sim::k7::open_shared(std::path::Path::new(path)) {
            Ok(t) => t,
            Err(e) => {
                p.push(
                    "medium.trace_path",
                    path,
                    format!("a readable K7 trace: {e}"),
                );
                return None;
            }
        };
        let count = trace.header.node_count;
        if self.trace_nodes.is_none() && nodes > count {
            p.push(
                "topology.hops",
                nodes.saturating_sub(1),
                format!(
                    "at most {} hops ({count} nodes): the trace {path} has node_count {count}",
                    count.saturating_sub(1)
                ),
            );
            return None;
        }
        let measured = &trace.header.channels;
        if let Some(c) = self.trace_channel.filter(|c| !measured.contains(c)) {
            p.push(
                "medium.trace_channel",
                c,
                format!("one of the channels the trace {path} measured, {measured:?}"),
            );
            return None;
        }
        let pinned = self.trace_channel.map(|c| vec![c]);
        let channels = pinned.as_deref().unwrap_or(channels);
        if let Some(c) = channels.iter().find(|c| !measured.contains(c)) {
            p.push(
                "medium.trace_path",
                path,
                format!(
                    "a trace measuring every channel the MAC sends on ({}): this one has no \
                     channel {c} (it measured {measured:?})",
                    channel_list(channels)
                ),
            );
            return None;
        }
        let mapping: Vec<usize> = match &self.trace_nodes {
            Some(m) => m.iter().map(|&n| n as usize).collect(),
            None => (0..nodes).collect(),
        };
        let count = trace.header.node_count;
        if mapping.len() != nodes {
            let (key, value) = match &self.trace_nodes {
                Some(m) => ("medium.trace_nodes", json!(m.len())),
                None => ("topology.hops", json!(nodes.saturating_sub(1))),
            };
            p.push(
                key,
                value,
                format!(
                    "one trace node per scenario node ({nodes}), and the trace at {path} has \
                     {count}"
                ),
            );
            return None;
        }
        match sim::k7::Replay::new(&trace, &mapping) {
            Ok(r) => Some(std::sync::Arc::new(match self.trace_channel {
                Some(c) => r.pinned_to(c),
                None => r,
            })),
            Err(e) => {
                p.push("medium.trace_nodes", json!(mapping), e.to_string());
                None
            }
        }
    }

    /// The simulator's UDGM, when this medium is one.
    pub fn udgm(&self) -> Option<sim::medium::Udgm> {
        let d = Self::declared();
        let or = |v: Option<f64>, d: Option<f64>| v.or(d).unwrap_or_default();
        (self.kind == MediumKind::Udgm).then(|| sim::medium::Udgm {
            spacing_m: or(self.spacing_m, d.spacing_m),
            tx_range_m: or(self.tx_range_m, d.tx_range_m),
            interference_range_m: or(self.interference_range_m, d.interference_range_m),
            success_ratio_tx: or(self.success_ratio_tx, d.success_ratio_tx),
            success_ratio_rx: or(self.success_ratio_rx, d.success_ratio_rx),
        })
    }
}

/// `[11, 12, 13]` → "11..13"; otherwise the list.
fn channel_list(channels: &[u8]) -> String {
    let contiguous = channels.windows(2).all(|w| w[1] == w[0] + 1);
    match (channels.first(), channels.last()) {
        (Some(a), Some(b)) if contiguous && a != b => format!("{a}..{b}"),
        _ => format!("{channels:?}"),
    }
}
