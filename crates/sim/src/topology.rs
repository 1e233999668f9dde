//! Who hears whom, how well, and the static routes over it.
//!
//! A link is directional with its own packet delivery ratio (PDR). A node
//! hears (and is disturbed by) every node it has a link from, whatever the
//! PDR: interference range equals communication range, so in a line the
//! nodes two hops apart are hidden terminals of each other. A line can
//! instead be laid out as testbeds build one: every node in radio range of
//! every other, the line made only by the routes (links that are heard,
//! disturbing and carrier-sensed, never routed over). A link of PDR 0 is
//! heard but never decoded: a node within interference range only
//! ([`crate::medium`]).
//!
//! Links are kept as sparse neighbour lists (memory linear in links, not in
//! nodes squared). Line and explicit topologies route every pair by the
//! least expected transmissions, a destination's routes computed the first
//! time something is sent towards it. A random network routes as RPL in
//! storing mode does (RFC 6550 §9): one tree of least expected
//! transmissions towards its root (node 0), a datagram climbing it until it
//! reaches an ancestor of its destination and descending from there.

use std::cell::OnceCell;

use crate::NodeId;

/// A node's place in the plane, (x, y) in metres.
pub type Position = (f64, f64);

/// The distance between two positions, m.
pub fn distance_m(a: Position, b: Position) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// `nodes` positions drawn uniformly in a `side_m` square, node 0 (the
/// root) at its centre; x then y of nodes 1, 2 … in turn from `rng`.
pub fn random_positions(nodes: usize, side_m: f64, rng: &mut impl rand::Rng) -> Vec<Position> {
    use rand::RngExt;
    (0..nodes)
        .map(|i| {
            if i == 0 {
                (side_m / 2.0, side_m / 2.0)
            } else {
                (rng.random_range(0.0..side_m), rng.random_range(0.0..side_m))
            }
        })
        .collect()
}

#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    /// `reaches[n]`: the nodes `n`'s transmissions reach, in node order
    /// (every transmission asks), and `reach_pdr[n]` the PDR of each link.
    reaches: Vec<Vec<NodeId>>,
    reach_pdr: Vec<Vec<f64>>,
    /// `hears[n]`: the nodes whose transmissions reach `n`, in node order.
    hears: Vec<Vec<NodeId>>,
    /// `routed_from[n]`: the nodes routes may reach `n` from, when that is
    /// fewer than `hears[n]` (hear-only links); None: every link routes.
    routed_from: Option<Vec<Vec<NodeId>>>,
    routing: Routing,
}

/// Which nodes of a line hear each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Audible {
    /// Only neighbours on the line: nodes two hops apart are hidden.
    #[default]
    Routes,
    /// Every node every other, at the line's PDR (a testbed on a table,
    /// the line made by routes or address filtering); routes stay the line's.
    All,
}

/// How datagrams find their way.
#[derive(Debug, Clone, PartialEq)]
enum Routing {
    /// Per destination, its column of next hops (every source), computed
    /// on first use.
    AllPairs(Vec<OnceCell<Vec<Option<NodeId>>>>),
    /// RPL storing mode: each node's parent on the way to `root`.
    Dodag {
        root: NodeId,
        parent: Vec<Option<NodeId>>,
    },
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
    /// Neighbours on a line that cannot reach each other.
    BrokenLine {
        from: NodeId,
        to: NodeId,
    },
    /// No placement tried connected every node to the root.
    Disconnected {
        nodes: usize,
        side_m: f64,
        range_m: f64,
    },
    /// Nodes placed where the medium gives them no route to the root.
    Unreachable {
        node: NodeId,
        root: NodeId,
    },
    /// No random placement tried gave every node a route to the root.
    NoPlacement {
        nodes: usize,
        side_m: f64,
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
            TopologyError::BrokenLine { from, to } => write!(
                f,
                "line neighbours {from} and {to} cannot reach each other: no route along the line"
            ),
            TopologyError::Disconnected {
                nodes,
                side_m,
                range_m,
            } => write!(
                f,
                "{nodes} nodes in a {side_m} m square with a {range_m} m range: no connected \
                 placement found in 1000 draws (increase the range or shrink the area)"
            ),
            TopologyError::Unreachable { node, root } => write!(
                f,
                "node {node} has no route to the root {root} over the medium's links at the \
                 given positions"
            ),
            TopologyError::NoPlacement { nodes, side_m } => write!(
                f,
                "{nodes} nodes in a {side_m} m square: no placement found in 1000 draws whose \
                 links under the medium reach the root from every node (shrink the area)"
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

    /// A line of `nodes` nodes routed along itself, where `audible` says who
    /// else hears whom: with [`Audible::All`] every other pair is linked
    /// both ways with `pdr` too, links never routed over.
    pub fn line_audible(nodes: usize, pdr: f64, audible: Audible) -> Result<Self, TopologyError> {
        match audible {
            Audible::Routes => Self::line(nodes, pdr),
            Audible::All => {
                if !(pdr > 0.0 && pdr <= 1.0) {
                    return Err(TopologyError::BadPdr {
                        from: 0,
                        to: 1,
                        pdr,
                    });
                }
                let links: Vec<_> = (0..nodes)
                    .flat_map(|a| {
                        (0..nodes)
                            .filter(move |&b| b != a)
                            .map(move |b| (a, b, pdr))
                    })
                    .collect();
                Self::line_with_links(nodes, &links)
            }
        }
    }

    /// A line of `nodes` nodes whose radio links are `links` (PDR in [0, 1];
    /// 0: heard, never decoded), routed only between line neighbours
    /// `i` and `i + 1`, which must reach each other both ways.
    pub fn line_with_links(
        nodes: usize,
        links: &[(NodeId, NodeId, f64)],
    ) -> Result<Self, TopologyError> {
        if let Some(&(from, to, pdr)) = links.iter().find(|l| !(0.0..=1.0).contains(&l.2)) {
            return Err(TopologyError::BadPdr { from, to, pdr });
        }
        let mut t = Self::with_routing(nodes, links, None)?;
        for i in 1..nodes {
            for (from, to) in [(i - 1, i), (i, i - 1)] {
                if t.pdr(from, to).unwrap_or(0.0) <= 0.0 {
                    return Err(TopologyError::BrokenLine { from, to });
                }
            }
        }
        let neighbours =
            |n: usize| (n.saturating_sub(1)..=(n + 1).min(nodes - 1)).filter(move |&m| m != n);
        t.routed_from = Some((0..nodes).map(|n| neighbours(n).collect()).collect());
        Ok(t)
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
        if nodes < 2 {
            return Err(TopologyError::TooFewNodes(nodes));
        }
        for _ in 0..1000 {
            let pos = random_positions(nodes, side_m, rng);
            if let Ok(t) = Self::disk_at(&pos, range_m) {
                return Ok(t);
            }
        }
        Err(TopologyError::Disconnected {
            nodes,
            side_m,
            range_m,
        })
    }

    /// Nodes at `pos` under the disk model of [`Topology::random_disk`],
    /// routed as a DODAG to node 0; refused when a node has no route to it.
    pub fn disk_at(pos: &[Position], range_m: f64) -> Result<Self, TopologyError> {
        let pdr_at = |d: f64| ((range_m - d) / (range_m / 2.0)).clamp(0.0, 1.0);
        Self::placed(pos.len(), &disk_links(pos, range_m, pdr_at))
    }

    /// Placed nodes whose radio links are `links` (PDR in [0, 1]; 0: heard,
    /// never decoded), routed as RPL storing mode does: a DODAG to node 0.
    /// Refused when a node has no route to node 0.
    pub fn placed(nodes: usize, links: &[(NodeId, NodeId, f64)]) -> Result<Self, TopologyError> {
        if let Some(&(from, to, pdr)) = links.iter().find(|l| !(0.0..=1.0).contains(&l.2)) {
            return Err(TopologyError::BadPdr { from, to, pdr });
        }
        let mut t = Self::with_routing(nodes, links, None)?;
        // routes over decodable links only; hear-only links still disturb
        let decodable: Vec<Vec<NodeId>> = (0..nodes)
            .map(|n| {
                (t.hears[n].iter().copied())
                    .filter(|&m| t.pdr(m, n).unwrap_or(0.0) > 0.0)
                    .collect()
            })
            .collect();
        t.routed_from = Some(decodable);
        t.routing = Routing::Dodag {
            root: 0,
            parent: t.routes_to(0),
        };
        match (1..nodes).find(|&n| t.hops(n, 0).is_none()) {
            Some(node) => Err(TopologyError::Unreachable { node, root: 0 }),
            None => Ok(t),
        }
    }

    /// Explicit directional links `(from, to, pdr)`.
    pub fn from_links(
        nodes: usize,
        links: &[(NodeId, NodeId, f64)],
    ) -> Result<Self, TopologyError> {
        if let Some(&(from, to, pdr)) = links.iter().find(|l| !(l.2 > 0.0 && l.2 <= 1.0)) {
            return Err(TopologyError::BadPdr { from, to, pdr });
        }
        Self::with_routing(nodes, links, None)
    }

    /// The links (PDRs checked by the caller), routed between every pair,
    /// or as a DODAG to `dodag_root`.
    fn with_routing(
        nodes: usize,
        links: &[(NodeId, NodeId, f64)],
        dodag_root: Option<NodeId>,
    ) -> Result<Self, TopologyError> {
        if nodes < 2 {
            return Err(TopologyError::TooFewNodes(nodes));
        }
        let mut out: Vec<Vec<(NodeId, f64)>> = vec![Vec::new(); nodes];
        for &(from, to, p) in links {
            for node in [from, to] {
                if node >= nodes {
                    return Err(TopologyError::UnknownNode { node, nodes });
                }
            }
            out[from].push((to, p));
        }
        let mut hears: Vec<Vec<NodeId>> = vec![Vec::new(); nodes];
        let mut reaches = Vec::with_capacity(nodes);
        let mut reach_pdr = Vec::with_capacity(nodes);
        for (from, mut list) in out.into_iter().enumerate() {
            // a link given twice keeps its last PDR, as a table written in order would
            list.reverse();
            list.sort_by_key(|&(to, _)| to);
            list.dedup_by_key(|&mut (to, _)| to);
            for &(to, _) in &list {
                hears[to].push(from);
            }
            reaches.push(list.iter().map(|&(to, _)| to).collect());
            reach_pdr.push(list.iter().map(|&(_, p)| p).collect());
        }
        let mut t = Topology {
            reaches,
            reach_pdr,
            hears,
            routed_from: None,
            routing: Routing::AllPairs(vec![OnceCell::new(); nodes]),
        };
        if let Some(root) = dodag_root {
            t.routing = Routing::Dodag {
                root,
                parent: t.routes_to(root),
            };
        }
        Ok(t)
    }

    /// Next hops towards `dst` from every node: shortest paths by expected
    /// transmissions (ETX = 1/(PDR there × PDR back) per link), as a link-quality routing
    /// protocol such as RPL with MRHOF would settle on. Costs are summed from
    /// `dst` outwards, so each hop strictly shortens the way left and routes
    /// never loop; ties go to the lower node id, so routes are the same on
    /// every run.
    fn routes_to(&self, dst: NodeId) -> Vec<Option<NodeId>> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let n = self.nodes();
        let mut cost = vec![f64::INFINITY; n];
        let mut next = vec![None; n];
        let mut settled = vec![false; n];
        cost[dst] = 0.0;
        // Costs are positive and finite, so their bit patterns order as they do.
        let mut queue = BinaryHeap::from([Reverse((0u64, dst))]);
        let routed_from = self.routed_from.as_ref().unwrap_or(&self.hears);
        while let Some(Reverse((_, w))) = queue.pop() {
            if std::mem::replace(&mut settled[w], true) {
                continue;
            }
            for &v in &routed_from[w] {
                let forward = self
                    .pdr(v, w)
                    .expect("hears[w] lists the nodes with a link to w");
                // the ACK (or strobe ACK) comes back over the reverse link, if there is one
                let c = cost[w] + 1.0 / (forward * self.pdr(w, v).unwrap_or(1.0));
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
        self.reaches.len()
    }

    pub fn pdr(&self, from: NodeId, to: NodeId) -> Option<f64> {
        let i = self.reaches[from].binary_search(&to).ok()?;
        Some(self.reach_pdr[from][i])
    }

    /// Every link as `(from, to, pdr)`, by `from` then `to`.
    pub fn links(&self) -> impl Iterator<Item = (NodeId, NodeId, f64)> + '_ {
        self.reaches.iter().enumerate().flat_map(move |(from, to)| {
            (to.iter().zip(&self.reach_pdr[from])).map(move |(&to, &p)| (from, to, p))
        })
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
        match &self.routing {
            Routing::AllPairs(columns) => columns[dst].get_or_init(|| self.routes_to(dst))[src],
            Routing::Dodag { root, parent } => {
                if src == dst {
                    return None;
                }
                // descend if src is an ancestor of dst: the child on dst's way up
                let mut at = dst;
                while let Some(up) = parent[at] {
                    if up == src {
                        return Some(at);
                    }
                    at = up;
                }
                if at != *root {
                    return None; // dst has no way to the root
                }
                parent[src]
            }
        }
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

/// The links among nodes at `pos` with a PDR of at least 0.1 by `pdr_at`
/// (which is 0 beyond `range_m`), both ways, in (from, to) order. Nodes are
/// binned in squares of side `range_m`, so each looks at its own square and
/// the eight around it rather than at every node.
fn disk_links(
    pos: &[(f64, f64)],
    range_m: f64,
    pdr_at: impl Fn(f64) -> f64,
) -> Vec<(NodeId, NodeId, f64)> {
    use std::collections::HashMap;
    let square = |(x, y): (f64, f64)| ((x / range_m).floor() as i64, (y / range_m).floor() as i64);
    let mut bins: HashMap<(i64, i64), Vec<NodeId>> = HashMap::new();
    for (n, &p) in pos.iter().enumerate() {
        bins.entry(square(p)).or_default().push(n);
    }
    let mut links = Vec::new();
    for (a, &pa) in pos.iter().enumerate() {
        let (sx, sy) = square(pa);
        let mut near: Vec<NodeId> = (-1..=1)
            .flat_map(|dx| (-1..=1).map(move |dy| (sx + dx, sy + dy)))
            .filter_map(|sq| bins.get(&sq))
            .flatten()
            .copied()
            .collect();
        near.sort_unstable();
        for b in near {
            let pb = pos[b];
            let d = ((pa.0 - pb.0).powi(2) + (pa.1 - pb.1).powi(2)).sqrt();
            let p = pdr_at(d);
            if a != b && p >= 0.1 {
                links.push((a, b, p));
            }
        }
    }
    links
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
    fn a_line_audible_to_all_hears_everyone_but_routes_along_itself() {
        let t = Topology::line_audible(4, 0.8, Audible::All).unwrap();
        assert_eq!(t.heard_by(0), &[1, 2, 3]);
        assert_eq!(t.heard_by(2), &[0, 1, 3]);
        assert_eq!(t.pdr(0, 3), Some(0.8));
        assert_eq!(t.pdr(3, 0), Some(0.8));
        // a direct hop 0→3 (ETX 1.56) would beat three line hops; routes ignore it
        assert_eq!(t.next_hop(0, 3), Some(1));
        assert_eq!(t.next_hop(3, 0), Some(2));
        assert_eq!(t.hops(0, 3), Some(3));
        assert_eq!(t.hops(1, 3), Some(2));
        assert_eq!(
            Topology::line_audible(4, 0.8, Audible::Routes).unwrap(),
            Topology::line(4, 0.8).unwrap()
        );
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
        use rand::{RngExt, SeedableRng};
        let draw = |seed| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            Topology::random_disk(100, 200.0, 40.0, &mut rng).unwrap()
        };
        let t = draw(7);
        assert_eq!(t, draw(7));
        assert!((1..100).all(|n| t.hops(n, 0).is_some()));
        let pdrs: Vec<f64> = t.links().map(|(_, _, p)| p).collect();
        assert!(pdrs.iter().all(|&p| (0.1..=1.0).contains(&p)));
        assert!(pdrs.contains(&1.0) && pdrs.iter().any(|&p| p < 0.5));
        // routes down follow the tree up, reversed (RPL storing mode), and
        // between two nodes they meet at a common ancestor
        let path = |from: NodeId, to: NodeId| {
            let mut p = vec![from];
            while *p.last().unwrap() != to {
                p.push(t.next_hop(*p.last().unwrap(), to).unwrap());
            }
            p
        };
        for n in 1..100 {
            let mut down = path(0, n);
            down.reverse();
            assert_eq!(down, path(n, 0));
            let across = path(n, 100 - n);
            assert_eq!(across.len() - 1, t.hops(n, 100 - n).unwrap());
            assert!(across.len() < path(n, 0).len() + path(0, 100 - n).len());
        }
        // the neighbour search by squares finds every link a full scan does
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let pos: Vec<(f64, f64)> = (0..300)
            .map(|_| (rng.random_range(0.0..150.0), rng.random_range(0.0..150.0)))
            .collect();
        let pdr_at = |d: f64| ((20.0 - d) / 10.0).clamp(0.0, 1.0);
        let mut all = Vec::new();
        for a in 0..pos.len() {
            for b in 0..pos.len() {
                let d = ((pos[a].0 - pos[b].0).powi(2) + (pos[a].1 - pos[b].1).powi(2)).sqrt();
                if a != b && pdr_at(d) >= 0.1 {
                    all.push((a, b, pdr_at(d)));
                }
            }
        }
        assert!(all.len() > 300);
        assert_eq!(disk_links(&pos, 20.0, pdr_at), all);
        // Too sparse to connect: a clear error, not a hang.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let e = Topology::random_disk(50, 1000.0, 10.0, &mut rng).unwrap_err();
        assert!(e.to_string().contains("no connected placement"), "{e}");
    }
}
