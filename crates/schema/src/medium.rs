//! `[medium]`: how frames cross from one radio to another. `kind = "pdr"`
//! (the default) gives every link of the topology its delivery ratio;
//! `kind = "udgm"` is Cooja's Unit Disk Graph Medium over a line of nodes
//! `spacing_m` apart (the simulator's `sim::medium` has the rules and their
//! source), so a Cooja simulation's set-up can be written as a scenario.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::param::params;
use crate::problem::Low::{Above, AtLeast};
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

params! {
    /// How frames cross from one radio to another. The udgm keys are
    /// filled in (with Cooja 3.0's UDGM.java defaults and the oracle's
    /// spacing) when the file chooses that kind.
    #[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Medium at "medium" {
        /// pdr or udgm.
        kind: MediumKind [serde(default), schemars(extend("x-sweep" = false))] = MediumKind::Pdr,
        /// udgm: distance between neighbours on the line (the oracle's,
        /// gen_csc.py `--spacing 40`).
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
    }
}

impl Medium {
    fn udgm_keys(&mut self) -> [(&'static str, &mut Option<f64>, Option<f64>); 5] {
        let d = Self::declared();
        [
            ("spacing_m", &mut self.spacing_m, d.spacing_m),
            ("tx_range_m", &mut self.tx_range_m, d.tx_range_m),
            (
                "interference_range_m",
                &mut self.interference_range_m,
                d.interference_range_m,
            ),
            (
                "success_ratio_tx",
                &mut self.success_ratio_tx,
                d.success_ratio_tx,
            ),
            (
                "success_ratio_rx",
                &mut self.success_ratio_rx,
                d.success_ratio_rx,
            ),
        ]
    }

    /// Refuse UDGM's keys with another medium and the topology's link
    /// quality keys under UDGM (positions and ranges make the links), then
    /// fill UDGM's defaults. Runs before the topology fills its own.
    pub fn settle(&mut self, topology: &mut Topology, p: &mut Problems) {
        let udgm = self.kind == MediumKind::Udgm;
        for (name, value, default) in self.udgm_keys() {
            if udgm {
                *value = value.or(default);
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
        self.check_ranges(p);
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
