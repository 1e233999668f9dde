//! `[topology]`: a line of hops + 1 nodes, explicit links, or nodes at
//! random in a square. Each kind has its own keys; a key of another kind
//! is refused.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

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

/// One link between nodes `a` and `b`, with its packet delivery ratio, in
/// both directions (a radio link carries frames and their acknowledgements
/// both ways; a pair is listed once).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub a: u32,
    pub b: u32,
    pub pdr: f64,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    #[serde(default)]
    #[schemars(extend("x-sweep" = false))]
    pub kind: TopologyKind,
    /// line: hops from client to server (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hops: Option<u32>,
    /// line: PDR of every link (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdr: Option<f64>,
    /// line: who hears whom: "routes" (only neighbours on the line,
    /// default) or "all" (every node every other, the line made by routes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-sweep" = false))]
    pub audible: Option<Audible>,
    /// links: the links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<Link>>,
    /// random: number of nodes (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    /// random: side of the square (default 200 m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area_side_m: Option<f64>,
    /// random: radio range (default 40 m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_m: Option<f64>,
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
        match kind {
            TopologyKind::Line => {
                self.hops.get_or_insert(1);
                self.pdr.get_or_insert(1.0);
                self.audible.get_or_insert_default();
                (self.links, self.nodes, self.area_side_m, self.range_m) = (None, None, None, None);
            }
            TopologyKind::Links => {
                self.links.get_or_insert_with(Vec::new);
                (
                    self.hops,
                    self.pdr,
                    self.audible,
                    self.nodes,
                    self.area_side_m,
                    self.range_m,
                ) = (None, None, None, None, None, None);
            }
            TopologyKind::Random => {
                self.nodes.get_or_insert(100);
                self.area_side_m.get_or_insert(200.0);
                self.range_m.get_or_insert(40.0);
                (self.hops, self.pdr, self.audible, self.links) = (None, None, None, None);
            }
        }
    }

    pub fn validate(&self, p: &mut Problems) {
        if let Some(h) = self.hops {
            p.within("topology.hops", h);
        }
        if let Some(pdr) = self.pdr {
            p.within("topology.pdr", pdr);
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
                p.within(&format!("{key}.a"), l.a);
                p.within(&format!("{key}.b"), l.b);
                p.within(&format!("{key}.pdr"), l.pdr);
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
        if let Some(n) = self.nodes {
            p.within("topology.nodes", n);
        }
        if let Some(s) = self.area_side_m {
            p.within("topology.area_side_m", s);
        }
        if let Some(r) = self.range_m {
            p.within("topology.range_m", r);
        }
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
            TopologyKind::Line => self.hops.unwrap_or(1) + 1,
            TopologyKind::Links => {
                let links = self.links.as_deref().unwrap_or_default();
                1 + links.iter().map(|l| l.a.max(l.b)).max().unwrap_or(0)
            }
            TopologyKind::Random => self.nodes.unwrap_or(100),
        }
    }
}
