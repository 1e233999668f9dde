//! Radio media other than per-link delivery ratios: Cooja's Unit Disk Graph
//! Medium (UDGM), so a Cooja simulation's set-up can be run as a dtlsim
//! scenario and compared with it.
//!
//! The rules, as Contiki 3.0's `tools/cooja/java/org/contikios/cooja/
//! radiomediums/UDGM.java` (`createConnections`, `getRxSuccessProbability`)
//! and `AbstractRadioMedium.java` (the radio events) apply them:
//! - A transmission fails for everyone with probability 1 −
//!   `success_ratio_tx`, drawn once per transmission: then no radio receives
//!   it, is disturbed by it or senses it (the connection has neither
//!   destinations nor interfered radios).
//! - A radio within `tx_range_m` receives it with probability
//!   1 − (d / tx_range_m)² · (1 − `success_ratio_rx`), drawn per receiver
//!   when the frame starts; one beyond `tx_range_m` but within
//!   `interference_range_m` cannot decode it but is disturbed by it and
//!   senses it (an interfered radio's signal strength is set "strong").
//! - A reception is lost if the receiver is off or transmitting when the
//!   frame starts, turns off during it, or anything else in range starts or
//!   is on the air during it (no capture).
//!
//! The simulator's channel already applies the last rule to every audible
//! emission, and a per-receiver draw per frame; UDGM adds positions, the
//! distance-dependent ratio, hear-only links for the interference range
//! (links of PDR 0, see [`crate::topology`]) and the per-transmission draw
//! (see [`crate::channel::Channel::set_tx_success`]).

use crate::topology::{Topology, TopologyError};
use crate::NodeId;

/// UDGM's parameters for nodes on a line `spacing_m` apart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Udgm {
    /// Distance between neighbours on the line.
    pub spacing_m: f64,
    /// UDGM.java `TRANSMITTING_RANGE` (Cooja's default 50 m).
    pub tx_range_m: f64,
    /// UDGM.java `INTERFERENCE_RANGE` (Cooja's default 100 m).
    pub interference_range_m: f64,
    /// UDGM.java `SUCCESS_RATIO_TX` (default 1.0).
    pub success_ratio_tx: f64,
    /// UDGM.java `SUCCESS_RATIO_RX` (default 1.0).
    pub success_ratio_rx: f64,
}

impl Udgm {
    /// UDGM.java `getRxSuccessProbability`: the chance that a radio at
    /// `distance_m` receives a frame that was transmitted.
    pub fn rx_success(&self, distance_m: f64) -> f64 {
        let ratio = (distance_m * distance_m) / (self.tx_range_m * self.tx_range_m);
        if ratio > 1.0 {
            0.0
        } else {
            1.0 - ratio * (1.0 - self.success_ratio_rx)
        }
    }

    /// The directed links among `nodes` nodes on a line: within the
    /// transmitting range with their reception ratio, beyond it and within
    /// the interference range as hear-only links (PDR 0).
    pub fn line_links(&self, nodes: usize) -> Vec<(NodeId, NodeId, f64)> {
        let mut links = Vec::new();
        for a in 0..nodes {
            for b in (0..nodes).filter(|&b| b != a) {
                let d = a.abs_diff(b) as f64 * self.spacing_m;
                if d <= self.tx_range_m {
                    links.push((a, b, self.rx_success(d)));
                } else if d <= self.interference_range_m {
                    links.push((a, b, 0.0));
                }
            }
        }
        links
    }

    /// A line of `nodes` nodes under this medium, routed along itself (the
    /// oracle's firmware sets static routes to the line's neighbours).
    pub fn line(&self, nodes: usize) -> Result<Topology, TopologyError> {
        Topology::line_with_links(nodes, &self.line_links(nodes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cooja_line(spacing_m: f64, success_ratio_rx: f64) -> Udgm {
        Udgm {
            spacing_m,
            tx_range_m: 50.0,
            interference_range_m: 100.0,
            success_ratio_tx: 1.0,
            success_ratio_rx,
        }
    }

    #[test]
    fn reception_ratio_falls_with_the_square_of_distance() {
        let u = cooja_line(40.0, 0.9);
        // 1 - (40/50)^2 * (1 - 0.9) = 1 - 0.64 * 0.1 = 0.936
        assert!((u.rx_success(40.0) - 0.936).abs() < 1e-12);
        // at the edge of the range: the configured ratio itself
        assert!((u.rx_success(50.0) - 0.9).abs() < 1e-12);
        assert_eq!(u.rx_success(0.0), 1.0);
        assert_eq!(u.rx_success(50.1), 0.0);
        // a perfect medium is perfect everywhere in range
        assert_eq!(cooja_line(40.0, 1.0).rx_success(49.0), 1.0);
    }

    #[test]
    fn a_line_40_m_apart_hears_neighbours_and_is_disturbed_two_hops_away() {
        // 4 nodes at 0, 40, 80, 120 m: neighbours 40 m (in range),
        // two hops 80 m (interference only), three hops 120 m (nothing)
        let t = cooja_line(40.0, 0.9).line(4).unwrap();
        assert!((t.pdr(0, 1).unwrap() - 0.936).abs() < 1e-12);
        assert_eq!(t.pdr(0, 2), Some(0.0));
        assert_eq!(t.pdr(0, 3), None);
        assert_eq!(t.heard_by(0), &[1, 2]);
        assert_eq!(t.heard_by(1), &[0, 2, 3]);
        assert_eq!(t.next_hop(0, 3), Some(1));
        assert_eq!(t.hops(0, 3), Some(3));
        // interference range 50 m: the two-hop nodes are out of reach
        let narrow = Udgm {
            interference_range_m: 50.0,
            ..cooja_line(40.0, 1.0)
        };
        assert_eq!(narrow.line(4).unwrap().pdr(0, 2), None);
    }

    #[test]
    fn every_node_in_range_still_routes_along_the_line() {
        // RESULTS.md's "all" layout: 10 m apart, everyone within 50 m
        let t = cooja_line(10.0, 1.0).line(4).unwrap();
        assert_eq!(t.pdr(0, 3), Some(1.0));
        assert_eq!(t.next_hop(0, 3), Some(1));
        assert_eq!(t.hops(0, 3), Some(3));
    }

    #[test]
    fn neighbours_out_of_range_break_the_line() {
        assert_eq!(
            cooja_line(60.0, 1.0).line(3),
            Err(TopologyError::BrokenLine { from: 0, to: 1 })
        );
    }
}
