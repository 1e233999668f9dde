//! `[topology]`: a line of hops + 1 nodes, explicit links, or nodes at
//! random in a square. Each kind has its own keys; a key of another kind
//! is refused.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::param::params;
use crate::problem::Low::{Above, AtLeast};
use crate::problem::Problems;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TopologyKind {
    /// `hops` + 1 nodes in a line, every link with `pdr` both ways.
    #[default]
    Line,
    /// Explicit links with their PDR, both ways.
    Links,
    /// `nodes` at random in a square of side `area_side_m`, node 0 (the
    /// root) at the centre; PDR 1 up to half of `range_m`, falling linearly
    /// to 0 at `range_m`.
    Random,
}

/// Which nodes of a line hear each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Audible {
    /// Only neighbours on the line: nodes two hops apart are hidden
    /// terminals of each other.
    #[default]
    Routes,
    /// Every node hears every other at the line's PDR, as on a testbed
    /// whose nodes share a table and whose line is made by routes or
    /// address filtering; datagrams still follow the line.
    All,
}

params! {
    /// One link between nodes `a` and `b`, with its packet delivery ratio, in
    /// both directions (a radio link carries frames and their acknowledgements
    /// both ways; a pair is listed once).
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Link at "topology.links[]" {
        a: u32; range (AtLeast(0.0), 9_999.0),
        b: u32; range (AtLeast(0.0), 9_999.0),
        pdr: f64; range (Above(0.0), 1.0),
    }
}

params! {
    /// A node's position in the area, metres from its south-west corner.
    #[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Position at "topology.positions[]" {
        x_m: f64; range (AtLeast(0.0), 100_000.0),
        y_m: f64; range (AtLeast(0.0), 100_000.0),
    }
}

params! {
    /// The network. Each key belongs to one kind (named first in its doc);
    /// its default is filled in when the file chooses that kind.
    #[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Topology at "topology" {
        /// line, links or random.
        kind: TopologyKind [serde(default), schemars(extend("x-sweep" = false))] = TopologyKind::Line,
        /// line: hops from client to server.
        hops: Option<u32> [serde(default, skip_serializing_if = "Option::is_none")] = Some(1);
            range (AtLeast(1.0), 64.0),
        /// line: PDR of every link.
        pdr: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")] = Some(1.0);
            range (Above(0.0), 1.0),
        /// line: who hears whom: "routes" (only neighbours on the line) or
        /// "all" (every node every other, the line made by routes).
        audible: Option<Audible> [
            serde(default, skip_serializing_if = "Option::is_none"),
            schemars(extend("x-sweep" = false))
        ] = Some(Audible::Routes),
        /// links: the links.
        links: Option<Vec<Link>> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(Vec::new()),
        /// random: number of nodes.
        nodes: Option<u32> [serde(default, skip_serializing_if = "Option::is_none")] = Some(100);
            range (AtLeast(2.0), 10_000.0),
        /// random: side of the square.
        area_side_m: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(200.0); range (Above(0.0), 100_000.0),
        /// random: radio range.
        range_m: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")] = Some(40.0);
            range (Above(0.0), 100_000.0),
        /// random: each node's position in the area, node 0 first (the
        /// root); absent: node 0 at the centre, the others drawn uniformly
        /// in the area for every replication. Sets `nodes` when that is
        /// not given.
        positions: Option<Vec<Position>> [serde(default, skip_serializing_if = "Option::is_none")],
        /// random: border routers, nodes 0..B-1, each the root of its own
        /// routing tree and TSCH network, all on one wired backbone (RFC
        /// 9030, the 6TiSCH architecture: TSCH subnetworks on a powered
        /// backbone); every other node routes to the one it reaches at
        /// least expected transmissions. Without `positions` they stand in
        /// round(√B) rows of equal height across the area, each row's at
        /// the centres of its equal shares (B = k²: a k × k grid; 1: the
        /// centre); node 0 stays the server's host.
        border_routers: Option<u32> [serde(default, skip_serializing_if = "Option::is_none")]
            = Some(1); range (AtLeast(1.0), 10_000.0),
    }
}

impl Topology {
    /// Refuse the keys of other kinds, then fill this kind's defaults.
    pub fn settle(&mut self, p: &mut Problems) {
        let kind = self.kind;
        let mut only = |key: &str, given: bool, owner: TopologyKind, value: serde_json::Value| {
            if given && kind != owner {
                let name = serde_json::to_value(owner).unwrap_or_default();
                let name = name.as_str().unwrap_or_default();
                p.unused(key, value, &format!("topology.kind = '{name}'"));
            }
        };
        use serde_json::json;
        only(
            "topology.hops",
            self.hops.is_some(),
            TopologyKind::Line,
            json!(self.hops),
        );
        only(
            "topology.pdr",
            self.pdr.is_some(),
            TopologyKind::Line,
            json!(self.pdr),
        );
        only(
            "topology.audible",
            self.audible.is_some(),
            TopologyKind::Line,
            json!(self.audible),
        );
        only(
            "topology.links",
            self.links.is_some(),
            TopologyKind::Links,
            json!("[...]"),
        );
        only(
            "topology.nodes",
            self.nodes.is_some(),
            TopologyKind::Random,
            json!(self.nodes),
        );
        let side = self.area_side_m;
        only(
            "topology.area_side_m",
            side.is_some(),
            TopologyKind::Random,
            json!(side),
        );
        only(
            "topology.range_m",
            self.range_m.is_some(),
            TopologyKind::Random,
            json!(self.range_m),
        );
        only(
            "topology.positions",
            self.positions.is_some(),
            TopologyKind::Random,
            json!("[...]"),
        );
        only(
            "topology.border_routers",
            self.border_routers.is_some(),
            TopologyKind::Random,
            json!(self.border_routers),
        );
        if kind != TopologyKind::Random {
            self.positions = None;
        }
        if let (Some(pos), None) = (&self.positions, self.nodes) {
            self.nodes = Some(pos.len() as u32);
        }
        let d = Self::declared();
        let mine = |k: TopologyKind| k == kind;
        fn keep<T>(on: bool, v: Option<T>, default: Option<T>) -> Option<T> {
            on.then(|| v.or(default)).flatten()
        }
        self.hops = keep(mine(TopologyKind::Line), self.hops, d.hops);
        self.pdr = keep(mine(TopologyKind::Line), self.pdr, d.pdr);
        self.audible = keep(mine(TopologyKind::Line), self.audible, d.audible);
        self.links = keep(mine(TopologyKind::Links), self.links.take(), d.links);
        self.nodes = keep(mine(TopologyKind::Random), self.nodes, d.nodes);
        self.area_side_m = keep(mine(TopologyKind::Random), self.area_side_m, d.area_side_m);
        self.range_m = keep(mine(TopologyKind::Random), self.range_m, d.range_m);
        let brs = keep(
            mine(TopologyKind::Random),
            self.border_routers,
            d.border_routers,
        );
        self.border_routers = brs;
    }

    pub fn validate(&self, p: &mut Problems) {
        self.check_ranges(p);
        self.validate_positions(p);
        if let (Some(b), Some(nodes)) = (self.border_routers, self.nodes) {
            if b >= nodes {
                p.push(
                    "topology.border_routers",
                    b,
                    format!(
                        "in [1, {}]: fewer than the nodes (topology.nodes = {nodes}), \
                         so some node is not a border router",
                        nodes.saturating_sub(1).max(1)
                    ),
                );
            }
        }
        if let Some(links) = &self.links {
            if links.is_empty() {
                p.push(
                    "topology.links",
                    links,
                    "must list at least one link when kind = 'links'",
                );
            }
            for (i, l) in links.iter().enumerate() {
                let key = format!("topology.links[{i}]");
                l.check_ranges_at(&key, p);
                if l.a == l.b {
                    p.push(
                        format!("{key}.b"),
                        l.b,
                        "must differ from a: a link joins two nodes",
                    );
                }
                let pair = |l: &Link| (l.a.min(l.b), l.a.max(l.b));
                if let Some(j) = links[..i].iter().position(|m| pair(m) == pair(l)) {
                    p.push(
                        &key,
                        json!({"a": l.a, "b": l.b}),
                        format!(
                            "must not repeat topology.links[{j}]: a link carries both directions"
                        ),
                    );
                }
            }
        }
    }

    /// Every position inside the area (a square of `area_side_m` from the
    /// origin), one per node.
    fn validate_positions(&self, p: &mut Problems) {
        let (Some(pos), Some(side)) = (&self.positions, self.area_side_m) else {
            return;
        };
        if let Some(nodes) = self.nodes.filter(|&n| n as usize != pos.len()) {
            p.push(
                "topology.positions",
                format!("{} positions", pos.len()),
                format!("one position per node: topology.nodes = {nodes}"),
            );
        }
        if pos.len() < 2 {
            p.push(
                "topology.positions",
                format!("{} positions", pos.len()),
                "at least 2 (the root and one node)",
            );
        }
        for (i, at) in pos.iter().enumerate() {
            at.check_ranges_at(&format!("topology.positions[{i}]"), p);
            for (axis, v) in [("x_m", at.x_m), ("y_m", at.y_m)] {
                // below 0 the key's own range refuses it
                if v.is_finite() && v > side {
                    p.push(
                        format!("topology.positions[{i}].{axis}"),
                        v,
                        format!(
                            "in [0, {side}] m: inside the area (topology.area_side_m = {side})"
                        ),
                    );
                }
            }
        }
    }

    /// The positions given, as the simulator takes them.
    pub fn given_positions(&self) -> Option<Vec<(f64, f64)>> {
        let pos = self.positions.as_ref()?;
        Some(pos.iter().map(|p| (p.x_m, p.y_m)).collect())
    }

    /// The directed links `(from, to, pdr)` of `kind = "links"`: each
    /// listed link in both directions.
    pub fn directed_links(&self) -> Vec<(usize, usize, f64)> {
        let links = self.links.as_deref().unwrap_or_default();
        links
            .iter()
            .flat_map(|l| {
                let (a, b) = (l.a as usize, l.b as usize);
                [(a, b, l.pdr), (b, a, l.pdr)]
            })
            .collect()
    }

    /// How many nodes the network has (a line: hops + 1; links: the
    /// highest node named + 1).
    pub fn node_count(&self) -> u32 {
        match self.kind {
            TopologyKind::Line => self.hops.or(Self::declared().hops).unwrap_or_default() + 1,
            TopologyKind::Links => {
                let links = self.links.as_deref().unwrap_or_default();
                1 + links.iter().map(|l| l.a.max(l.b)).max().unwrap_or(0)
            }
            TopologyKind::Random => self.nodes.or(Self::declared().nodes).unwrap_or_default(),
        }
    }
}
