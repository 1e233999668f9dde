//! Who hears whom, how well, and the static routes over it.
//!
//! A link is directional with its own packet delivery ratio (PDR). A node
//! hears (and is disturbed by) every node it has a link from, whatever the
//! PDR: interference range equals communication range, so in a line the
//! nodes two hops apart are hidden terminals of each other.

use std::collections::VecDeque;

use crate::NodeId;

#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    /// `pdr[from][to]`, `None` when `to` cannot hear `from`.
    pdr: Vec<Vec<Option<f64>>>,
    /// `hears[n]`: the nodes whose transmissions reach `n`.
    hears: Vec<Vec<NodeId>>,
    /// `next_hop[src][dst]`, shortest paths by hop count.
    next_hop: Vec<Vec<Option<NodeId>>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TopologyError {
    TooFewNodes(usize),
    BadPdr { from: NodeId, to: NodeId, pdr: f64 },
    UnknownNode { node: NodeId, nodes: usize },
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
        let hears = (0..nodes)
            .map(|n| (0..nodes).filter(|&m| pdr[m][n].is_some()).collect())
            .collect();
        let next_hop = (0..nodes).map(|src| Self::routes_from(&pdr, src)).collect();
        Ok(Topology {
            pdr,
            hears,
            next_hop,
        })
    }

    /// Breadth-first search from `src`; ties go to the lower node id, so
    /// routes are the same on every run.
    fn routes_from(pdr: &[Vec<Option<f64>>], src: NodeId) -> Vec<Option<NodeId>> {
        let n = pdr.len();
        let mut first_hop = vec![None; n];
        let mut seen = vec![false; n];
        seen[src] = true;
        let mut queue = VecDeque::from([src]);
        while let Some(u) = queue.pop_front() {
            for v in 0..n {
                if !seen[v] && pdr[u][v].is_some() {
                    seen[v] = true;
                    first_hop[v] = if u == src { Some(v) } else { first_hop[u] };
                    queue.push_back(v);
                }
            }
        }
        first_hop
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
        (0..self.nodes()).filter(move |&m| self.pdr[node][m].is_some())
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
}
