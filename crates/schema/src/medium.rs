//! `[medium]`: how frames cross from one radio to another. `kind = "pdr"`
//! (the default) gives every link of the topology its delivery ratio;
//! `kind = "udgm"` is Cooja's Unit Disk Graph Medium over a line of nodes
//! `spacing_m` apart (the simulator's `sim::medium` has the rules and their
//! source), so a Cooja simulation's set-up can be written as a scenario.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::problem::Problems;
use crate::topology::{Topology, TopologyKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MediumKind {
    /// Each link of the topology delivers a frame with its PDR.
    #[default]
    Pdr,
    /// Cooja's UDGM: nodes on a line `spacing_m` apart, a transmitting and
    /// an interference range, success ratios per transmission and per
    /// receiver.
    Udgm,
}

/// Cooja 3.0's UDGM defaults (UDGM.java: TRANSMITTING_RANGE 50,
/// INTERFERENCE_RANGE 100, SUCCESS_RATIO_TX 1.0, SUCCESS_RATIO_RX 1.0) and
/// the oracle's spacing (shared/oracle/cooja gen_csc.py `--spacing 40`).
const UDGM_DEFAULTS: [(&str, f64); 5] = [
    ("spacing_m", 40.0),
    ("tx_range_m", 50.0),
    ("interference_range_m", 100.0),
    ("success_ratio_tx", 1.0),
    ("success_ratio_rx", 1.0),
];

#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Medium {
    #[serde(default)]
    #[schemars(extend("x-sweep" = false))]
    pub kind: MediumKind,
    /// udgm: distance between neighbours on the line (default 40 m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spacing_m: Option<f64>,
    /// udgm: transmitting range (default 50 m, Cooja's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_range_m: Option<f64>,
    /// udgm: interference range (default 100 m, Cooja's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interference_range_m: Option<f64>,
    /// udgm: chance that a transmission goes out at all, for every radio
    /// (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success_ratio_tx: Option<f64>,
    /// udgm: chance of reception at the edge of the transmitting range,
    /// rising to 1 at distance 0 with the square of distance (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success_ratio_rx: Option<f64>,
}

impl Medium {
    fn udgm_keys(&mut self) -> [(&'static str, &mut Option<f64>); 5] {
        [
            ("spacing_m", &mut self.spacing_m),
            ("tx_range_m", &mut self.tx_range_m),
            ("interference_range_m", &mut self.interference_range_m),
            ("success_ratio_tx", &mut self.success_ratio_tx),
            ("success_ratio_rx", &mut self.success_ratio_rx),
        ]
    }

    /// Refuse UDGM's keys with another medium and the topology's link
    /// quality keys under UDGM (positions and ranges make the links), then
    /// fill UDGM's defaults. Runs before the topology fills its own.
    pub fn settle(&mut self, topology: &mut Topology, p: &mut Problems) {
        let udgm = self.kind == MediumKind::Udgm;
        for ((name, value), (_, default)) in self.udgm_keys().into_iter().zip(UDGM_DEFAULTS) {
            if udgm {
                value.get_or_insert(default);
            } else if let Some(v) = value.take() {
                p.unused(&format!("medium.{name}"), v, "medium.kind = 'udgm'");
            }
        }
        if !udgm {
            return;
        }
        if topology.kind != TopologyKind::Line {
            let kind = serde_json::to_value(topology.kind).unwrap_or_default();
            p.push(
                "medium.kind",
                "udgm",
                format!(
                    "places the nodes of topology.kind = 'line' only (got {kind}); \
                     the other kinds have no positions yet"
                ),
            );
        }
        let why = "topology.kind = 'line' with medium.kind = 'pdr' (under udgm the ranges \
                   and medium.success_ratio_rx make the links)";
        if let Some(pdr) = topology.pdr.take() {
            p.unused("topology.pdr", pdr, why);
        }
        if let Some(audible) = topology.audible.take() {
            p.unused("topology.audible", json!(audible), why);
        }
    }

    pub fn validate(&self, p: &mut Problems) {
        let keys = [
            ("medium.spacing_m", self.spacing_m),
            ("medium.tx_range_m", self.tx_range_m),
            ("medium.interference_range_m", self.interference_range_m),
            ("medium.success_ratio_tx", self.success_ratio_tx),
            ("medium.success_ratio_rx", self.success_ratio_rx),
        ];
        for (key, value) in keys {
            if let Some(v) = value {
                p.within(key, v);
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

    /// The simulator's UDGM, when this medium is one.
    pub fn udgm(&self) -> Option<sim::medium::Udgm> {
        (self.kind == MediumKind::Udgm).then(|| sim::medium::Udgm {
            spacing_m: self.spacing_m.unwrap_or(UDGM_DEFAULTS[0].1),
            tx_range_m: self.tx_range_m.unwrap_or(UDGM_DEFAULTS[1].1),
            interference_range_m: self.interference_range_m.unwrap_or(UDGM_DEFAULTS[2].1),
            success_ratio_tx: self.success_ratio_tx.unwrap_or(UDGM_DEFAULTS[3].1),
            success_ratio_rx: self.success_ratio_rx.unwrap_or(UDGM_DEFAULTS[4].1),
        })
    }
}
