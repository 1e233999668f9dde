//! Who hears whom, how well, and the static routes over it.
//!
//! A link is directional with its own packet delivery ratio (PDR). A node
//! hears (and is disturbed by) every node it has a link from, whatever the
//! PDR: interference range equals communication range, so in a line the
//! nodes two hops apart are hidden terminals of each other.

use crate::NodeId;

#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    /// `pdr[from][to]`, `None` when `to` cannot hear `from`.
    pdr: Vec<Vec<Option<f64>>>,
    /// `hears[n]`: the nodes whose transmissions reach `n`.
    hears: Vec<Vec<NodeId>>,
    /// `reaches[n]`: the nodes `n`'s transmissions reach (every
    /// transmission asks).
    reaches: Vec<Vec<NodeId>>,
    /// `next_hop[src][dst]`, shortest paths by hop count.
    next_hop: Vec<Vec<Option<NodeId>>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TopologyError {
    TooFewNodes(usize),
    BadPdr {
        from: NodeId,
        to: NodeId,
        pdr: f64,
    },
    UnknownNode {
        node: NodeId,
        nodes: usize,
    },
    /// No placement tried connected every node to the root.
    Disconnected {
        nodes: usize,
        side_m: f64,
        range_m: f64,
    },
}

impl std::fmt::Display for TopologyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TopologyError::TooFewNodes(n) => {
                write!(f, "a topology needs at least 2 nodes, got {n}")
            }
            TopologyError::BadPdr { from, to, pdr } => {
                write!(f, "link {from}->{to}: pdr = {pdr}: must be in (0, 1]")
            }
            TopologyError::UnknownNode { node, nodes } => {
                write!(f, "link endpoint {node}: must be in [0, {}]", nodes - 1)
            }
            TopologyError::Disconnected {
                nodes,
                side_m,
                range_m,
            } => write!(
                f,
                "{nodes} nodes in a {side_m} m square with a {range_m} m range: no connected \
                 placement found in 1000 draws (increase the range or shrink the area)"
            ),
        }
    }
}

impl std::error::Error for TopologyError {}

impl Topology {
    /// A line of `nodes` nodes, neighbours linked both ways with `pdr`.
    pub fn line(nodes: usize, pdr: f64) -> Result<Self, TopologyError> {
        let links: Vec<_> = (1..nodes)
            .flat_map(|i| [(i - 1, i, pdr), (i, i - 1, pdr)])
            .collect();
        Self::from_links(nodes, &links)
    }

    /// `nodes` placed uniformly at random in a `side_m` square, node 0 (the
    /// root) at its centre. A link's PDR falls with distance: 1 up to half
    /// the `range_m`, then linearly to 0 at `range_m`; links below 0.1 are
    /// left out. Placements are drawn again until every node reaches the root.
    pub fn random_disk(
        nodes: usize,
        side_m: f64,
        range_m: f64,
        rng: &mut impl rand::Rng,
    ) -> Result<Self, TopologyError> {
        use rand::RngExt;
        let pdr_at = |d: f64| ((range_m - d) / (range_m / 2.0)).clamp(0.0, 1.0);
        if nodes < 2 {
            return Err(TopologyError::TooFewNodes(nodes));
        }
        for _ in 0..1000 {
            let pos: Vec<(f64, f64)> = (0..nodes)
                .map(|i| {
                    if i == 0 {
                        (side_m / 2.0, side_m / 2.0)
                    } else {
                        (rng.random_range(0.0..side_m), rng.random_range(0.0..side_m))
                    }
                })
                .collect();
            let mut links = Vec::new();
            for a in 0..nodes {
                for b in 0..nodes {
                    let d = ((pos[a].0 - pos[b].0).powi(2) + (pos[a].1 - pos[b].1).powi(2)).sqrt();
                    let p = pdr_at(d);
                    if a != b && p >= 0.1 {
                        links.push((a, b, p));
                    }
                }
            }
            let t = Self::from_links(nodes, &links)?;
            if (1..nodes).all(|n| t.hops(n, 0).is_some()) {
                return Ok(t);
            }
        }
        Err(TopologyError::Disconnected {
            nodes,
            side_m,
            range_m,
        })
    }

    /// Explicit directional links `(from, to, pdr)`.
    pub fn from_links(
        nodes: usize,
        links: &[(NodeId, NodeId, f64)],
    ) -> Result<Self, TopologyError> {
        if nodes < 2 {
            return Err(TopologyError::TooFewNodes(nodes));
        }
        let mut pdr = vec![vec![None; nodes]; nodes];
        for &(from, to, p) in links {
            for node in [from, to] {
                if node >= nodes {
                    return Err(TopologyError::UnknownNode { node, nodes });
                }
            }
            if !(p > 0.0 && p <= 1.0) {
                return Err(TopologyError::BadPdr { from, to, pdr: p });
            }
            pdr[from][to] = Some(p);
        }
        let hears: Vec<Vec<NodeId>> = (0..nodes)
            .map(|n| (0..nodes).filter(|&m| pdr[m][n].is_some()).collect())
            .collect();
        let reaches: Vec<Vec<NodeId>> = (0..nodes)
            .map(|n| (0..nodes).filter(|&m| pdr[n][m].is_some()).collect())
            .collect();
        // routes_to gives one column of the next-hop table per destination.
        let columns: Vec<Vec<Option<NodeId>>> = (0..nodes)
            .map(|dst| Self::routes_to(&pdr, &hears, dst))
            .collect();
        let next_hop = (0..nodes)
            .map(|src| (0..nodes).map(|dst| columns[dst][src]).collect())
            .collect();
        Ok(Topology {
            pdr,
            hears,
            reaches,
            next_hop,
        })
    }

    /// Next hops towards `dst` from every node: shortest paths by expected
    /// transmissions (ETX = 1/(PDR there × PDR back) per link), as a link-quality routing
    /// protocol such as RPL with MRHOF would settle on. Costs are summed from
    /// `dst` outwards, so each hop strictly shortens the way left and routes
    /// never loop; ties go to the lower node id, so routes are the same on
    /// every run.
    fn routes_to(
        pdr: &[Vec<Option<f64>>],
        hears: &[Vec<NodeId>],
        dst: NodeId,
    ) -> Vec<Option<NodeId>> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let n = pdr.len();
        let mut cost = vec![f64::INFINITY; n];
        let mut next = vec![None; n];
        let mut settled = vec![false; n];
        cost[dst] = 0.0;
        // Costs are positive and finite, so their bit patterns order as they do.
        let mut queue = BinaryHeap::from([Reverse((0u64, dst))]);
        while let Some(Reverse((_, w))) = queue.pop() {
            if std::mem::replace(&mut settled[w], true) {
                continue;
            }
            for &v in &hears[w] {
                let forward = pdr[v][w].expect("hears[w] lists the nodes with a link to w");
                // the ACK (or strobe ACK) comes back over the reverse link, if there is one
                let c = cost[w] + 1.0 / (forward * pdr[w][v].unwrap_or(1.0));
                if !settled[v] && c < cost[v] {
                    cost[v] = c;
                    next[v] = Some(w);
                    queue.push(Reverse((c.to_bits(), v)));
                }
            }
        }
        next
    }

    pub fn nodes(&self) -> usize {
        self.pdr.len()
    }

    pub fn pdr(&self, from: NodeId, to: NodeId) -> Option<f64> {
        self.pdr[from][to]
    }

    /// Nodes whose transmissions reach `node`.
    pub fn heard_by(&self, node: NodeId) -> &[NodeId] {
        &self.hears[node]
    }

    /// Nodes that hear `node`.
    pub fn hearers(&self, node: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.reaches[node].iter().copied()
    }

    /// The same as a slice, in node order.
    pub fn hearers_slice(&self, node: NodeId) -> &[NodeId] {
        &self.reaches[node]
    }

    /// First hop from `src` towards `dst`, or None if unreachable (or src == dst).
    pub fn next_hop(&self, src: NodeId, dst: NodeId) -> Option<NodeId> {
        self.next_hop[src][dst]
    }

    /// Hops on the route from `src` to `dst`.
    pub fn hops(&self, src: NodeId, dst: NodeId) -> Option<usize> {
        let mut at = src;
        let mut hops = 0;
        while at != dst {
            at = self.next_hop(at, dst)?;
            hops += 1;
        }
        Some(hops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_routes_along_itself_and_hides_two_hop_neighbours() {
        let t = Topology::line(5, 0.9).unwrap();
        assert_eq!(t.next_hop(0, 4), Some(1));
        assert_eq!(t.next_hop(4, 0), Some(3));
        assert_eq!(t.hops(0, 4), Some(4));
        assert_eq!(t.heard_by(2), &[1, 3]);
        assert_eq!(t.pdr(0, 2), None);
        assert_eq!(t.pdr(1, 2), Some(0.9));
    }

    #[test]
    fn explicit_links_are_directional() {
        let t = Topology::from_links(3, &[(0, 1, 1.0), (1, 2, 0.5), (2, 1, 0.5)]).unwrap();
        assert_eq!(t.next_hop(0, 2), Some(1));
        assert_eq!(t.next_hop(2, 0), None);
        assert_eq!(t.hops(2, 0), None);
    }

    #[test]
    fn bad_links_are_refused() {
        assert!(Topology::line(1, 1.0).is_err());
        assert!(Topology::line(3, 0.0).is_err());
        let e = Topology::from_links(2, &[(0, 5, 1.0)]).unwrap_err();
        assert_eq!(e.to_string(), "link endpoint 5: must be in [0, 1]");
    }

    #[test]
    fn routes_prefer_two_good_hops_to_one_poor_one() {
        // 0→2 direct costs ETX 1/0.2² = 25; through 1, 2/0.9² ≈ 2.5.
        let both = |a, b, p| [(a, b, p), (b, a, p)];
        let links: Vec<_> = [both(0, 2, 0.2), both(0, 1, 0.9), both(1, 2, 0.9)].concat();
        let t = Topology::from_links(3, &links).unwrap();
        assert_eq!(t.next_hop(2, 0), Some(1));
        assert_eq!(t.hops(2, 0), Some(2));
        // With the direct link at 0.7 (ETX 2.04) it wins.
        let links: Vec<_> = [both(0, 2, 0.7), both(0, 1, 0.9), both(1, 2, 0.9)].concat();
        assert_eq!(
            Topology::from_links(3, &links).unwrap().next_hop(2, 0),
            Some(0)
        );
    }

    #[test]
    fn random_placement_is_connected_reproducible_and_fades_with_distance() {
        use rand::SeedableRng;
        let draw = |seed| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            Topology::random_disk(100, 200.0, 40.0, &mut rng).unwrap()
        };
        let t = draw(7);
        assert_eq!(t.pdr, draw(7).pdr);
        assert!((1..100).all(|n| t.hops(n, 0).is_some()));
        let pdrs: Vec<f64> = t.pdr.iter().flatten().flatten().copied().collect();
        assert!(pdrs.iter().all(|&p| (0.1..=1.0).contains(&p)));
        assert!(pdrs.contains(&1.0) && pdrs.iter().any(|&p| p < 0.5));
        // Too sparse to connect: a clear error, not a hang.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let e = Topology::random_disk(50, 1000.0, 10.0, &mut rng).unwrap_err();
        assert!(e.to_string().contains("no connected placement"), "{e}");
    }
}
