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
//!
//! A random network may have several border routers (nodes 0..B-1), each
//! the root of its own tree, joined by a wired backbone (RFC 9030, the
//! 6TiSCH architecture: TSCH subnetworks under a powered backbone): every other node in the tree of
//! the border router it reaches at least cost, and a datagram for another
//! tree climbs to its own root, crosses the backbone to the other root
//! ([`Topology::over_backbone`]) and descends there.

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
    random_positions_around(nodes, 1, side_m, rng)
}

/// As [`random_positions`] with `border_routers` roots, nodes 0..B-1, at
/// [`border_router_positions`]; x then y of nodes B, B+1 … from `rng`
/// (with one border router the draws of [`random_positions`]).
pub fn random_positions_around(
    nodes: usize,
    border_routers: usize,
    side_m: f64,
    rng: &mut impl rand::Rng,
) -> Vec<Position> {
    use rand::RngExt;
    let mut pos = border_router_positions(border_routers.min(nodes), side_m);
    pos.extend(
        (pos.len()..nodes).map(|_| (rng.random_range(0.0..side_m), rng.random_range(0.0..side_m))),
    );
    pos
}

/// Where `b` border routers stand in a `side_m` square: in `rows` =
/// round(√b) rows of equal height, the first `b mod rows` rows holding
/// one more than the others (⌊b/rows⌋), each at the centre of its equal
/// share of its row; rows from the south, west to east in a row. So each
/// serves about 1/b of the area, any b is accepted, b = k² is the k × k
/// grid of cell centres, and one border router stands at the centre.
pub fn border_router_positions(b: usize, side_m: f64) -> Vec<Position> {
    if b == 0 {
        return Vec::new();
    }
    let rows = ((b as f64).sqrt().round() as usize).max(1);
    let mut pos = Vec::with_capacity(b);
    for r in 0..rows {
        let in_row = b / rows + usize::from(r < b % rows);
        let y = (r as f64 + 0.5) * side_m / rows as f64;
        pos.extend((0..in_row).map(|i| ((i as f64 + 0.5) * side_m / in_row as f64, y)));
    }
    pos
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
    /// RPL storing mode: each node's parent on the way to its root, one
    /// of `roots` (the border routers, on a backbone), and that root.
    Dodag {
        roots: Vec<NodeId>,
        parent: Vec<Option<NodeId>>,
        root_of: Vec<Option<NodeId>>,
    },
}

impl Routing {
    /// A forest from each node's next hop up and its `roots`, each node's
    /// root found by following parents (a node none reaches has none).
    fn dodag(parent: Vec<Option<NodeId>>, roots: Vec<NodeId>) -> Self {
        let mut root_of: Vec<Option<NodeId>> = vec![None; parent.len()];
        roots.iter().for_each(|&r| root_of[r] = Some(r));
        for n in 0..parent.len() {
            let mut path = Vec::new();
            let mut at = n;
            while root_of[at].is_none() {
                let Some(up) = parent[at] else { break };
                path.push(at);
                at = up;
            }
            let r = root_of[at];
            path.into_iter().for_each(|p| root_of[p] = r);
        }
        Routing::Dodag {
            roots,
            parent,
            root_of,
        }
    }
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
        Self::random_disk_forest(nodes, 1, side_m, range_m, rng)
    }

    /// As [`Topology::random_disk`] with `border_routers` roots, nodes
    /// 0..B-1 at [`border_router_positions`]: placements are drawn again
    /// until every node reaches one of them.
    pub fn random_disk_forest(
        nodes: usize,
        border_routers: usize,
        side_m: f64,
        range_m: f64,
        rng: &mut impl rand::Rng,
    ) -> Result<Self, TopologyError> {
        if nodes < 2 {
            return Err(TopologyError::TooFewNodes(nodes));
        }
        for _ in 0..1000 {
            let pos = random_positions_around(nodes, border_routers, side_m, rng);
            if let Ok(t) = Self::disk_forest_at(&pos, border_routers, range_m) {
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
        Self::disk_forest_at(pos, 1, range_m)
    }

    /// As [`Topology::disk_at`], routed as a forest to the `border_routers`
    /// nodes 0..B-1 ([`Topology::placed_forest`]).
    pub fn disk_forest_at(
        pos: &[Position],
        border_routers: usize,
        range_m: f64,
    ) -> Result<Self, TopologyError> {
        let pdr_at = |d: f64| ((range_m - d) / (range_m / 2.0)).clamp(0.0, 1.0);
        Self::placed_forest(pos.len(), border_routers, &disk_links(pos, range_m, pdr_at))
    }

    /// Placed nodes whose radio links are `links` (PDR in [0, 1]; 0: heard,
    /// never decoded), routed as RPL storing mode does: a DODAG to node 0.
    /// Refused when a node has no route to node 0.
    pub fn placed(nodes: usize, links: &[(NodeId, NodeId, f64)]) -> Result<Self, TopologyError> {
        Self::placed_forest(nodes, 1, links)
    }

    /// As [`Topology::placed`] with `border_routers` roots, nodes 0..B-1 on
    /// a backbone: each other node in the tree of least expected
    /// transmissions to the nearest of them (ties to the lower node id).
    /// Refused when a node reaches none of them.
    pub fn placed_forest(
        nodes: usize,
        border_routers: usize,
        links: &[(NodeId, NodeId, f64)],
    ) -> Result<Self, TopologyError> {
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
        let roots: Vec<NodeId> = (0..border_routers.clamp(1, nodes)).collect();
        t.routing = Routing::dodag(t.routes_to_any(&roots), roots);
        match (0..nodes).find(|&n| t.root_of(n).is_none()) {
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
            t.routing = Routing::dodag(t.routes_to(root), vec![root]);
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
        self.routes_to_any(&[dst])
    }

    /// As [`Topology::routes_to`] towards the nearest of `dsts` (every one
    /// at cost 0): each node's next hop on its least-cost way to any.
    fn routes_to_any(&self, dsts: &[NodeId]) -> Vec<Option<NodeId>> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let n = self.nodes();
        let mut cost = vec![f64::INFINITY; n];
        let mut next = vec![None; n];
        let mut settled = vec![false; n];
        dsts.iter().for_each(|&d| cost[d] = 0.0);
        // Costs are positive and finite, so their bit patterns order as they do.
        let mut queue: BinaryHeap<_> = dsts.iter().map(|&d| Reverse((0u64, d))).collect();
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
            Routing::Dodag {
                parent, root_of, ..
            } => {
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
                let dst_root = root_of[dst]?; // dst has no way to a root
                match parent[src] {
                    Some(up) => Some(up),
                    // a root whose destination is in another tree: over the backbone
                    None if root_of[src] == Some(src) => Some(dst_root),
                    None => None,
                }
            }
        }
    }

    /// Whether the hop `from` → `to` ([`Topology::next_hop`]) crosses the
    /// backbone between two border routers rather than the radio: a root
    /// sends nothing up its tree, so its hop to another root is that.
    pub fn over_backbone(&self, from: NodeId, to: NodeId) -> bool {
        match &self.routing {
            Routing::Dodag { roots, root_of, .. } if roots.len() > 1 => {
                // a root is its own root: no scan of the roots per datagram
                from != to && root_of[from] == Some(from) && root_of[to] == Some(to)
            }
            _ => false,
        }
    }

    /// The border routers (the DODAG roots): node 0 alone but for a forest.
    pub fn border_routers(&self) -> &[NodeId] {
        match &self.routing {
            Routing::Dodag { roots, .. } => roots,
            Routing::AllPairs(_) => &[0],
        }
    }

    /// Whether `node` is a root (a border router, the time source and
    /// PAN coordinator of its tree).
    pub fn is_root(&self, node: NodeId) -> bool {
        self.border_routers().contains(&node)
    }

    /// The root of `node`'s tree (None: it reaches none).
    pub fn root_of(&self, node: NodeId) -> Option<NodeId> {
        match &self.routing {
            Routing::Dodag { root_of, .. } => root_of[node],
            Routing::AllPairs(_) if node == 0 => Some(0),
            Routing::AllPairs(_) => self.next_hop(node, 0).map(|_| 0),
        }
    }

    /// `node`'s parent in its tree: its next hop to its root (None for a
    /// root, or a node with no route).
    pub fn tree_parent(&self, node: NodeId) -> Option<NodeId> {
        match &self.routing {
            Routing::Dodag { parent, .. } => parent[node],
            Routing::AllPairs(_) => self.next_hop(node, 0),
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
    fn a_forest_routes_each_node_to_its_nearest_border_router_and_across_the_backbone() {
        // border routers 0 and 1; 0-2, 2-3, 1-4, 4-5, 3-4 at PDR 1, 3-1 at 0.5
        let both = |a, b, p| [(a, b, p), (b, a, p)];
        let links: Vec<_> = [
            both(0, 2, 1.0),
            both(2, 3, 1.0),
            both(3, 1, 0.5),
            both(1, 4, 1.0),
            both(4, 5, 1.0),
            both(3, 4, 1.0),
        ]
        .concat();
        let t = Topology::placed_forest(6, 2, &links).unwrap();
        assert_eq!(t.border_routers(), &[0, 1]);
        // node 3: ETX 2 through 2 (to 0) or through 4 (to 1), 4 directly to 1
        // (1/0.5² = 4); the tie goes to the lower id, 2, settled first
        let parents: Vec<_> = (0..6).map(|n| t.tree_parent(n)).collect();
        assert_eq!(parents, [None, None, Some(0), Some(2), Some(1), Some(4)]);
        let roots: Vec<_> = (0..6).map(|n| t.root_of(n)).collect();
        assert_eq!(roots, [0, 1, 0, 0, 1, 1].map(Some));
        // 5 -> 4 -> 1, over the backbone to 0: three hops, one wired
        assert_eq!(t.next_hop(5, 0), Some(4));
        assert_eq!(t.next_hop(4, 0), Some(1));
        assert_eq!(t.next_hop(1, 0), Some(0));
        assert!(t.over_backbone(1, 0) && t.over_backbone(0, 1));
        assert!(!t.over_backbone(4, 1) && !t.over_backbone(0, 2));
        assert_eq!(t.hops(5, 0), Some(3));
        // 3 to 5 climbs its own tree (not the 3-4 link: storing mode)
        let mut path = vec![3];
        while *path.last().unwrap() != 5 {
            path.push(t.next_hop(*path.last().unwrap(), 5).unwrap());
        }
        assert_eq!(path, [3, 2, 0, 1, 4, 5]);
        // one border router: the same links as one tree, 1 an ordinary node
        let one = Topology::placed_forest(6, 1, &links).unwrap();
        assert_eq!(one, Topology::placed(6, &links).unwrap());
        assert!(!one.over_backbone(1, 0));
        // node 1 then reaches 0 through 4 (ETX 3 + 1) rather than 3 (2 + 4)
        assert_eq!(one.tree_parent(1), Some(4));
        // a node that reaches no border router is refused
        let cut: Vec<_> = [both(0, 2, 1.0), both(1, 3, 1.0)].concat();
        assert!(Topology::placed_forest(5, 2, &cut).is_err());
        assert!(Topology::placed_forest(4, 2, &cut).is_ok());
    }

    #[test]
    fn border_routers_stand_in_near_square_rows_over_the_area() {
        assert_eq!(border_router_positions(1, 100.0), [(50.0, 50.0)]);
        assert_eq!(
            border_router_positions(4, 100.0),
            [(25.0, 25.0), (75.0, 25.0), (25.0, 75.0), (75.0, 75.0)]
        );
        // 2: round(√2) = 1 row; 3: 2 rows, the first holding one more
        assert_eq!(
            border_router_positions(2, 100.0),
            [(25.0, 50.0), (75.0, 50.0)]
        );
        assert_eq!(
            border_router_positions(3, 100.0),
            [(25.0, 25.0), (75.0, 25.0), (50.0, 75.0)]
        );
        // 10: 3 rows of 4, 3, 3
        let ten = border_router_positions(10, 120.0);
        let rows: Vec<usize> = [20.0, 60.0, 100.0]
            .iter()
            .map(|&y| ten.iter().filter(|p| p.1 == y).count())
            .collect();
        assert_eq!((ten.len(), rows), (10, vec![4, 3, 3]));
        assert_eq!(ten[4], (20.0, 60.0));
        // one border router: the draws of the single-root placement
        use rand::SeedableRng;
        let draw = |b| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
            random_positions_around(30, b, 200.0, &mut rng)
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        assert_eq!(draw(1), random_positions(30, 200.0, &mut rng));
        assert_eq!(draw(4)[..4], border_router_positions(4, 200.0)[..]);
        assert_eq!(draw(4)[4], draw(1)[1]);
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
