//! Radio media other than per-link delivery ratios: Cooja's Unit Disk Graph
//! Medium (UDGM), so a Cooja simulation's set-up can be run as a dtlsim
//! scenario and compared with it; log-distance path loss with reception by
//! SINR ([`LogDistanceLine`]); the 6TiSCH simulator's Pister-hack links
//! ([`PisterHackLine`]). Each places its nodes on a line `spacing_m` apart,
//! or at positions in an area ([`AreaMedium`]): a link's figures depend on
//! the distance alone, so both layouts share one rule per medium.
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

use crate::channel::{Signals, Varying};
use crate::radio::{self, Capture, LogDistance, RadioFigures};
use crate::topology::{distance_m, random_positions, Position, Topology, TopologyError};
use crate::NodeId;

/// The distance between nodes `a` and `b` of a layout, m.
type Distance<'a> = &'a dyn Fn(NodeId, NodeId) -> f64;

/// Distances on a line `spacing_m` apart.
fn on_line(spacing_m: f64) -> impl Fn(NodeId, NodeId) -> f64 {
    move |a, b| a.abs_diff(b) as f64 * spacing_m
}

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
        self.links(nodes, &on_line(self.spacing_m))
    }

    /// The directed links among `nodes` nodes `distance` apart.
    fn links(&self, nodes: usize, distance: Distance) -> Vec<(NodeId, NodeId, f64)> {
        let mut links = Vec::new();
        for a in 0..nodes {
            for b in (0..nodes).filter(|&b| b != a) {
                let d = distance(a, b);
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

/// Nodes on a line `spacing_m` apart under log-distance path loss with
/// log-normal shadowing per link, static or re-drawn every
/// `shadowing_period_us`; frames are received by SINR
/// ([`crate::radio::frame_success`]) and carrier sense sees energy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogDistanceLine {
    pub spacing_m: f64,
    pub path: LogDistance,
    pub shadowing_sigma_db: f64,
    /// Re-draw each link's shadowing every this long
    /// ([`crate::radio::shadowing_in_period_db`]); 0: static for the
    /// replication. The links and routes are the first period's.
    pub shadowing_period_us: crate::Time,
    pub tx_power_dbm: f64,
    pub noise_floor_dbm: f64,
    pub capture_threshold_db: f64,
    /// The platform's radio (sensitivity, CCA threshold).
    pub radio: RadioFigures,
}

/// Signals this much below the noise floor add under 1 % to it
/// (10^(−20/10)): no link is kept for them.
const NEGLIGIBLE_BELOW_NOISE_DB: f64 = 20.0;

/// The synchronisation header (preamble and SFD, 5 octets at 32 µs,
/// IEEE 802.15.4-2006 §6.3.1) during which a stronger frame takes over.
pub const SYNC_HEADER_US: u64 = 5 * 32;

impl LogDistanceLine {
    /// The power `b` receives from `a` in replication `replication`.
    pub fn received_dbm(&self, seed: u64, replication: u64, a: NodeId, b: NodeId) -> f64 {
        self.received_dbm_at(
            a.abs_diff(b) as f64 * self.spacing_m,
            seed,
            replication,
            a,
            b,
        )
    }

    /// The power `b` receives from `a`, `d` metres away.
    fn received_dbm_at(&self, d: f64, seed: u64, replication: u64, a: NodeId, b: NodeId) -> f64 {
        self.tx_power_dbm
            - self.path.loss_db(d)
            - radio::shadowing_db(seed, replication, a, b, self.shadowing_sigma_db)
    }

    /// The powers between every pair of `nodes`, with the thresholds the
    /// channel applies.
    pub fn signals(&self, nodes: usize, seed: u64, replication: u64) -> Signals {
        self.signals_by(nodes, &on_line(self.spacing_m), seed, replication)
    }

    /// The same for nodes `distance` apart.
    fn signals_by(&self, nodes: usize, distance: Distance, seed: u64, replication: u64) -> Signals {
        let mut rx_dbm = vec![f64::NEG_INFINITY; nodes * nodes];
        for a in 0..nodes {
            for b in (0..nodes).filter(|&b| b != a) {
                rx_dbm[a * nodes + b] =
                    self.received_dbm_at(distance(a, b), seed, replication, a, b);
            }
        }
        let signals = Signals::new(
            nodes,
            rx_dbm,
            self.noise_floor_dbm,
            self.radio.sensitivity_dbm,
            self.radio.cca_threshold_dbm,
            Capture {
                threshold_db: self.capture_threshold_db,
                sync_header_us: SYNC_HEADER_US,
            },
        );
        if self.shadowing_period_us == 0 || self.shadowing_sigma_db == 0.0 {
            return signals;
        }
        let mut mean_dbm = vec![f64::NEG_INFINITY; nodes * nodes];
        let mut keys = vec![0; nodes * nodes];
        for a in 0..nodes {
            for b in (0..nodes).filter(|&b| b != a) {
                mean_dbm[a * nodes + b] = self.tx_power_dbm - self.path.loss_db(distance(a, b));
                keys[a * nodes + b] = radio::shadowing_key(seed, replication, a, b);
            }
        }
        signals.varying(Varying {
            mean_dbm,
            keys,
            sigma_db: self.shadowing_sigma_db,
            period_us: self.shadowing_period_us,
        })
    }

    /// The line's links: a decodable link (at or above the sensitivity)
    /// with the chance a 127-octet frame survives the noise alone (the
    /// routes' metric; each frame is judged by its own SINR), a weaker one
    /// that still matters against the noise as a hear-only link (PDR 0).
    pub fn line(
        &self,
        nodes: usize,
        seed: u64,
        replication: u64,
    ) -> Result<Topology, TopologyError> {
        let links = self.links(nodes, &on_line(self.spacing_m), seed, replication);
        Topology::line_with_links(nodes, &links)
    }

    /// The links among `nodes` nodes `distance` apart (see [`Self::line`]).
    fn links(
        &self,
        nodes: usize,
        distance: Distance,
        seed: u64,
        replication: u64,
    ) -> Vec<(NodeId, NodeId, f64)> {
        let mut links = Vec::new();
        for a in 0..nodes {
            for b in (0..nodes).filter(|&b| b != a) {
                let rx = self.received_dbm_at(distance(a, b), seed, replication, a, b);
                let snr = rx - self.noise_floor_dbm;
                let pdr = 1.0 - radio::oqpsk_per(snr, 127 + 6);
                if rx >= self.radio.sensitivity_dbm && pdr > 0.0 {
                    links.push((a, b, pdr));
                } else if snr >= -NEGLIGIBLE_BELOW_NOISE_DB {
                    links.push((a, b, 0.0));
                }
            }
        }
        links
    }
}

/// The 6TiSCH simulator's Pister-hack links ([`crate::radio::pister_hack`])
/// over a line `spacing_m` apart: each link's RSSI is drawn once per
/// replication and its PDR read off the table; frames then cross as on
/// the per-link PDR medium (overlapping frames collide).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PisterHackLine {
    pub spacing_m: f64,
}

impl PisterHackLine {
    /// The directed links with a PDR above 0 (the same both ways: one
    /// draw per link).
    pub fn links(&self, nodes: usize, seed: u64, replication: u64) -> Vec<(NodeId, NodeId, f64)> {
        self.links_by(nodes, &on_line(self.spacing_m), seed, replication)
    }

    /// The same for nodes `distance` apart.
    fn links_by(
        &self,
        nodes: usize,
        distance: Distance,
        seed: u64,
        replication: u64,
    ) -> Vec<(NodeId, NodeId, f64)> {
        let mut links = Vec::new();
        for a in 0..nodes {
            for b in (0..nodes).filter(|&b| b != a) {
                let d = distance(a, b);
                let rssi = radio::pister_hack::rssi_dbm(seed, replication, a, b, d);
                let pdr = radio::pister_hack::pdr(rssi);
                if pdr > 0.0 {
                    links.push((a, b, pdr));
                }
            }
        }
        links
    }

    /// The line, routed along itself; a replication whose draw leaves two
    /// neighbours without a link cannot run (its error names them).
    pub fn line(
        &self,
        nodes: usize,
        seed: u64,
        replication: u64,
    ) -> Result<Topology, TopologyError> {
        Topology::line_with_links(nodes, &self.links(nodes, seed, replication))
    }
}

/// A medium over nodes at positions in a square area rather than on a
/// line: each medium's own rule for a link at a distance, the line's
/// `spacing_m` unused. Routes form a DODAG to node 0 over the decodable
/// links, as on the random topology (RPL storing mode).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AreaMedium {
    Udgm(Udgm),
    LogDistance(LogDistanceLine),
    PisterHack(PisterHackLine),
}

/// Nodes in a `side_m` square under a medium: at `given` positions, or
/// drawn uniformly at random in the square (node 0, the root, at its
/// centre) from the replication's named `Topology` stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Area {
    pub nodes: usize,
    pub side_m: f64,
    pub given: Option<Vec<Position>>,
    pub medium: AreaMedium,
}

/// Random placements drawn before giving up on connecting every node.
const PLACEMENT_DRAWS: usize = 1000;

impl Area {
    /// The links among nodes at `pos` under the medium.
    fn links(&self, pos: &[Position], seed: u64, replication: u64) -> Vec<(NodeId, NodeId, f64)> {
        let distance = |a: NodeId, b: NodeId| distance_m(pos[a], pos[b]);
        match &self.medium {
            AreaMedium::Udgm(u) => u.links(pos.len(), &distance),
            AreaMedium::LogDistance(m) => m.links(pos.len(), &distance, seed, replication),
            AreaMedium::PisterHack(m) => m.links_by(pos.len(), &distance, seed, replication),
        }
    }

    /// The replication's positions and topology: the given positions, or
    /// the first random placement (of [`PLACEMENT_DRAWS`]) in which every
    /// node reaches the root.
    pub fn place(
        &self,
        seed: u64,
        replication: u64,
    ) -> Result<(Vec<Position>, Topology), TopologyError> {
        if let Some(pos) = &self.given {
            let t = Topology::placed(pos.len(), &self.links(pos, seed, replication))?;
            return Ok((pos.clone(), t));
        }
        if self.nodes < 2 {
            return Err(TopologyError::TooFewNodes(self.nodes));
        }
        let mut rng = crate::rng::stream(
            seed,
            replication,
            crate::rng::NETWORK - 1,
            crate::rng::Purpose::Topology,
        );
        for _ in 0..PLACEMENT_DRAWS {
            let pos = random_positions(self.nodes, self.side_m, &mut rng);
            if let Ok(t) = Topology::placed(self.nodes, &self.links(&pos, seed, replication)) {
                return Ok((pos, t));
            }
        }
        Err(TopologyError::NoPlacement {
            nodes: self.nodes,
            side_m: self.side_m,
        })
    }

    /// The powers between every pair of nodes at `pos`, when the medium
    /// receives by SINR.
    pub fn signals(&self, pos: &[Position], seed: u64, replication: u64) -> Option<Signals> {
        let AreaMedium::LogDistance(m) = &self.medium else {
            return None;
        };
        let distance = |a: NodeId, b: NodeId| distance_m(pos[a], pos[b]);
        Some(m.signals_by(pos.len(), &distance, seed, replication))
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

    fn cc2420_line(spacing_m: f64) -> LogDistanceLine {
        LogDistanceLine {
            spacing_m,
            path: LogDistance {
                reference_loss_db: 40.0,
                reference_distance_m: 1.0,
                exponent: 3.0,
            },
            shadowing_sigma_db: 0.0,
            shadowing_period_us: 0,
            tx_power_dbm: 0.0,
            noise_floor_dbm: -101.0,
            capture_threshold_db: 3.0,
            radio: RadioFigures {
                tx_power_min_dbm: -25.0,
                tx_power_max_dbm: 0.0,
                sensitivity_dbm: -95.0,
                cca_threshold_dbm: -77.0,
                cca_hysteresis_db: 2.0,
            },
        }
    }

    #[test]
    fn a_log_distance_line_hears_its_neighbours_and_is_disturbed_beyond() {
        // PL(1 m) = 40 dB, n = 3, 0 dBm. 40 m: 40 + 30 log10 40 = 88.062 dB
        // → −88.06 dBm ≥ −95: a link; SNR 12.94 dB, PER of 133 octets ~0.
        // 80 m: 40 + 30 log10 80 = 97.093 → −97.09 dBm: below the
        // sensitivity, 3.9 dB above the −101 noise floor: hear-only.
        // 120 m: 102.38 dB → −102.38 dBm, 1.4 dB below the floor (> −20):
        // hear-only. At 1 000 m: 130 dB → −130 dBm, 29 dB below: nothing.
        let m = cc2420_line(40.0);
        assert!((m.received_dbm(1, 0, 0, 1) - -88.062).abs() < 1e-3);
        let t = m.line(4, 1, 0).unwrap();
        assert!((t.pdr(0, 1).unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(t.pdr(0, 2), Some(0.0));
        assert_eq!(t.pdr(0, 3), Some(0.0));
        let far = cc2420_line(1_000.0);
        assert!(far.line(2, 1, 0).is_err(), "neighbours out of reach");
        // signals: what node 1 receives from node 0
        let s = m.signals(4, 1, 0);
        assert!((s.rx_dbm(0, 1) - -88.062).abs() < 1e-3);
    }

    #[test]
    fn shadowing_re_drawn_every_period_holds_within_it_and_starts_from_the_static_draw() {
        // 40 m: −88.062 dBm without shadowing; σ = 4 dB re-drawn every 1 s
        let mut m = cc2420_line(40.0);
        m.shadowing_sigma_db = 4.0;
        let fixed = m.signals(3, 7, 2);
        m.shadowing_period_us = 1_000_000;
        let s = m.signals(3, 7, 2);
        let mean = -88.062;
        // period 0 is the static draw the links and routes were built with
        assert_eq!(s.rx_dbm_at(0, 1, 0), fixed.rx_dbm(0, 1));
        assert_eq!(s.rx_dbm_at(0, 1, 999_999), fixed.rx_dbm(0, 1));
        assert_eq!(
            fixed.rx_dbm_at(0, 1, 5_000_000),
            fixed.rx_dbm(0, 1),
            "static"
        );
        // period 1: the link's own draw for period 1, the same both ways
        // and for the whole period
        let key = radio::shadowing_key(7, 2, 0, 1);
        let p1 = mean - radio::shadowing_in_period_db(key, 1, 4.0);
        assert!((s.rx_dbm_at(0, 1, 1_000_000) - p1).abs() < 1e-3);
        assert_eq!(s.rx_dbm_at(0, 1, 1_999_999), s.rx_dbm_at(0, 1, 1_000_000));
        assert_eq!(s.rx_dbm_at(1, 0, 1_500_000), s.rx_dbm_at(0, 1, 1_500_000));
        assert_ne!(s.rx_dbm_at(0, 1, 1_000_000), s.rx_dbm_at(0, 1, 0));
        // over 4 000 periods the draws are N(0, 4 dB) and independent from
        // one period to the next: the mean's sd is 4/√4000 = 0.063 dB, the
        // lag-1 correlation's 1/√4000 = 0.016 (bounds at 4.7 sd and 3.8 sd)
        let x: Vec<f64> = (0..4_000u64)
            .map(|k| mean - s.rx_dbm_at(0, 1, k * 1_000_000))
            .collect();
        let n = x.len() as f64;
        let avg = x.iter().sum::<f64>() / n;
        let var = x.iter().map(|v| (v - avg).powi(2)).sum::<f64>() / (n - 1.0);
        let lag1 = x
            .windows(2)
            .map(|w| (w[0] - avg) * (w[1] - avg))
            .sum::<f64>()
            / (n - 1.0);
        assert!(avg.abs() < 0.3, "{avg}");
        assert!((var.sqrt() - 4.0).abs() < 0.2, "{}", var.sqrt());
        assert!((lag1 / var).abs() < 0.06, "{}", lag1 / var);
    }

    #[test]
    fn pister_hack_links_follow_the_table() {
        // 5 m: free space at 2.4 GHz is 54.03 dB, RSSI in [−94.03, −54.03]:
        // every PDR above the table's −94 dBm row's 0.4071 or so, > 0.
        let links = PisterHackLine { spacing_m: 5.0 }.links(3, 9, 0);
        let l01 = links.iter().find(|l| (l.0, l.1) == (0, 1)).unwrap().2;
        let l10 = links.iter().find(|l| (l.0, l.1) == (1, 0)).unwrap().2;
        assert_eq!(l01, l10, "one draw per link");
        let rssi = radio::pister_hack::rssi_dbm(9, 0, 0, 1, 5.0);
        assert_eq!(l01, radio::pister_hack::pdr(rssi));
    }

    #[test]
    fn nodes_in_an_area_link_by_their_distance_and_route_to_the_root() {
        // root at (50, 50); node 1 40 m east, node 2 80 m east, node 3
        // 40 m north of the root. Log-distance as above: 40 m → −88.06 dBm
        // (a link), 80 m → −97.09 dBm (hear-only), 56.57 m (1–3, 40√2) →
        // 40 + 30 log10 56.569 = 92.578 dB → −92.58 dBm ≥ −95: a link.
        let pos = vec![(50.0, 50.0), (90.0, 50.0), (130.0, 50.0), (50.0, 90.0)];
        let area = Area {
            nodes: 4,
            side_m: 200.0,
            given: Some(pos.clone()),
            medium: AreaMedium::LogDistance(cc2420_line(40.0)),
        };
        let (at, t) = area.place(1, 0).unwrap();
        assert_eq!(at, pos);
        assert!((t.pdr(0, 1).unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(t.pdr(0, 2), Some(0.0), "80 m: heard, never decoded");
        assert!(t.pdr(1, 3).unwrap() > 0.99);
        // routes: a DODAG to node 0 over decodable links
        assert_eq!(t.next_hop(2, 0), Some(1));
        assert_eq!(t.next_hop(3, 0), Some(0));
        assert_eq!(t.next_hop(0, 2), Some(1));
        let s = area.signals(&at, 1, 0).unwrap();
        assert!((s.rx_dbm(1, 3) - -92.578).abs() < 1e-3);
        // a node out of everyone's reach is refused, naming it
        let far = Area {
            given: Some(vec![(0.0, 0.0), (40.0, 0.0), (1_000.0, 1_000.0)]),
            nodes: 3,
            ..area.clone()
        };
        assert_eq!(
            far.place(1, 0).unwrap_err(),
            TopologyError::Unreachable { node: 2, root: 0 }
        );
        // drawn at random: inside the area, root at the centre, every node
        // routed, the same placement for the same seed and replication
        let random = Area {
            nodes: 20,
            side_m: 150.0,
            given: None,
            medium: AreaMedium::PisterHack(PisterHackLine { spacing_m: 0.0 }),
        };
        let (p1, t1) = random.place(5, 2).unwrap();
        assert_eq!(random.place(5, 2).unwrap(), (p1.clone(), t1.clone()));
        assert_ne!(random.place(5, 3).unwrap().0, p1);
        assert_eq!(p1[0], (75.0, 75.0));
        assert!(p1
            .iter()
            .all(|&(x, y)| (0.0..150.0).contains(&x) && (0.0..150.0).contains(&y)));
        assert!((1..20).all(|n| t1.hops(n, 0).is_some()));
        // UDGM in the area: 40 m in range (0.936 at ratio 0.9), 80 m only heard
        let u = Area {
            medium: AreaMedium::Udgm(cooja_line(0.0, 0.9)),
            ..area
        };
        let (_, t) = u.place(1, 0).unwrap();
        assert!((t.pdr(0, 1).unwrap() - 0.936).abs() < 1e-12);
        assert_eq!(t.pdr(0, 2), Some(0.0));
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
