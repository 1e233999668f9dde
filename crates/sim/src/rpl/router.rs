//! Every node's RPL as the router of a simulated network: its DIOs and DAOs
//! go out as real frames through the node's MAC (the engine sends them),
//! the MAC's unicast outcomes feed its link ETX, and datagrams follow its
//! preferred parent upward and its stored routes downward.
//!
//! The engine owns one [`RplRouter`] ([`crate::engine::Sim::route_by_rpl`])
//! and asks it for each datagram's next hop; what it cannot route is
//! dropped and counted here.
//!
//! The join's proxy (stated, a simplification): a pledge runs no RPL before
//! it joins (RFC 9031: it has no keys), so its datagrams go to its join
//! proxy: formed by scan, the neighbour whose Enhanced Beacon it associated
//! on (RFC 9031 §4-5, a node beacons only once in the DODAG); without
//! formation its next hop on the computed routes; and the proxy is remembered for the answers, as
//! RFC 9031 §5's stateless proxy has the JRC echo it back in the
//! Stateless-Proxy option; the answer is routed by RPL to the proxy, which
//! sends it the last hop.

use rand_chacha::ChaCha8Rng;

use super::node::{link_local, Out, RplNode, RplParams, To, ALL_RPL_NODES};
use crate::mac::address::BROADCAST_NODE;
use crate::rng::{stream, Purpose};
use crate::topology::Topology;
use crate::{NodeId, Time};

/// One message to put on the link: the neighbour (or [`BROADCAST_NODE`]),
/// the IPv6 source and destination, the ICMPv6 bytes.
pub struct LinkMessage {
    pub next_hop: NodeId,
    pub addrs: (std::net::Ipv6Addr, std::net::Ipv6Addr),
    pub icmp: Vec<u8>,
}

/// Counts of the router beside each node's [`super::node::RplStats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RouterStats {
    /// datagrams with no next hop (no route, no parent yet), dropped
    pub no_route: u64,
    /// datagrams of pledges sent through their join proxy
    pub via_join_proxy: u64,
}

/// Every node's RPL, with its own random stream and its timer.
pub struct RplRouter {
    pub root: NodeId,
    pub nodes: Vec<RplNode>,
    rngs: Vec<ChaCha8Rng>,
    /// when each node's timer is armed for (an engine event at that time)
    armed: Vec<Option<Time>>,
    /// each pledge's join proxy, once it sent a datagram
    proxy: Vec<Option<NodeId>>,
    /// the preferred parent last told to the MAC (time source)
    told_parent: Vec<Option<NodeId>>,
    /// whether the MAC was last told the node is in the DODAG (it sends
    /// EBs only then)
    told_in_dodag: Vec<bool>,
    /// Orchestra's unicast and common periods, when the schedule is
    /// Orchestra: its TX cells follow RPL's parent and children
    orchestra: Option<(u32, u32)>,
    /// the RPL neighbours each node's Orchestra cells were last built for
    told_neighbours: Vec<Option<Vec<NodeId>>>,
    /// under MSF: the parent each node's MSF was last told (at first the
    /// one it was built with), and whether RPL had named one since
    msf: Option<Vec<(Option<NodeId>, bool)>>,
    pub stats: Vec<RouterStats>,
}

impl RplRouter {
    /// `n` nodes of a DODAG rooted at `root`; each node's draws come from
    /// its own stream (`Purpose::Routing`), so the MAC's draws are those of
    /// the same run routed by the tree.
    pub fn new(n: usize, root: NodeId, p: RplParams, seed: u64, replication: u64) -> RplRouter {
        RplRouter {
            root,
            nodes: (0..n).map(|i| RplNode::new(i, root, p)).collect(),
            rngs: (0..n)
                .map(|i| stream(seed, replication, i as u64, Purpose::Routing))
                .collect(),
            armed: vec![None; n],
            proxy: vec![None; n],
            told_parent: vec![None; n],
            told_in_dodag: vec![false; n],
            orchestra: None,
            told_neighbours: vec![None; n],
            msf: None,
            stats: vec![RouterStats::default(); n],
        }
    }

    /// Under Orchestra (`unicast_period`, `common_period`): a node's TX
    /// cells follow its RPL parent and children once it runs RPL.
    pub fn with_orchestra(mut self, unicast_period: u32, common_period: u32) -> RplRouter {
        self.orchestra = Some((unicast_period, common_period));
        self
    }

    /// Under MSF, each node's MSF built with `parents` (the computed
    /// routes' next hops: a pledge's join proxy): its parent follows RPL's
    /// preferred parent once RPL names one, and its autonomous TX cells
    /// RPL's parent and children.
    pub fn with_msf(mut self, parents: Vec<Option<NodeId>>) -> RplRouter {
        self.msf = Some(parents.into_iter().map(|p| (p, false)).collect());
        self
    }

    /// `node`'s new MSF parent, if RPL's preferred parent differs from the
    /// one MSF was last told: a parent RPL names, or none once RPL lost
    /// the one it had (before RPL names a first parent MSF keeps the one
    /// it was built with: the pledge's join proxy).
    pub fn msf_parent_change(&mut self, node: NodeId) -> Option<Option<NodeId>> {
        let told = &mut self.msf.as_mut()?[node];
        let now = self.nodes[node].parent();
        if now == told.0 || (now.is_none() && !told.1) {
            return None;
        }
        *told = (now, told.1 || now.is_some());
        Some(now)
    }

    /// `node`'s cells before MSF's negotiation, or Orchestra's, if its RPL
    /// neighbours (the preferred parent, and the next hops of its stored
    /// routes: its children) changed since they were last built: under
    /// MSF its AutoTxCells (RFC 9033 §3) to them, under Orchestra its
    /// unicast cells. A node not running RPL (a pledge) keeps the
    /// schedule's cells, its join proxy's among them.
    pub fn cells_change(&mut self, node: NodeId, now: Time) -> Option<Vec<crate::mac::tsch::Cell>> {
        if self.msf.is_none() && self.orchestra.is_none() {
            return None;
        }
        let n = &self.nodes[node];
        if !n.started() {
            return None;
        }
        let mut neighbours: Vec<NodeId> = (n.routes().values())
            .filter(|r| r.expires > now)
            .map(|r| r.via)
            .chain(n.parent())
            .collect();
        neighbours.sort_unstable();
        neighbours.dedup();
        if self.told_neighbours[node].as_ref() == Some(&neighbours) {
            return None;
        }
        let cells = match self.orchestra {
            Some((unicast, common)) => {
                crate::mac::tsch::schedule::orchestra_cells(node, &neighbours, unicast, common)
            }
            None => crate::mac::tsch::schedule::msf_cells(node, &neighbours),
        };
        self.told_neighbours[node] = Some(neighbours);
        Some(cells)
    }

    /// Node `node` starts RPL (the root at power-on, another once joined).
    pub fn start(&mut self, node: NodeId, now: Time) {
        self.nodes[node].start(now, &mut self.rngs[node]);
    }

    /// A timer of `node` fired at `now`: what it sends (nothing if the
    /// timer was re-armed since).
    pub fn on_timer(&mut self, node: NodeId, now: Time) -> Vec<LinkMessage> {
        if self.armed[node] != Some(now) {
            return Vec::new();
        }
        self.armed[node] = None;
        let outs = self.nodes[node].on_deadline(now, &mut self.rngs[node]);
        self.messages(node, outs)
    }

    /// An ICMPv6 message from neighbour `from` arrived at `node`.
    pub fn on_icmp(
        &mut self,
        node: NodeId,
        from: NodeId,
        icmp: &[u8],
        now: Time,
    ) -> Vec<LinkMessage> {
        let outs = self.nodes[node].on_message(now, from, icmp, &mut self.rngs[node]);
        self.messages(node, outs)
    }

    /// `node`'s MAC left the network (lost synchronisation): its RPL
    /// repairs locally ([`RplNode::local_repair`]).
    pub fn local_repair(&mut self, node: NodeId, now: Time) -> Vec<LinkMessage> {
        let outs = self.nodes[node].local_repair(now, &mut self.rngs[node]);
        self.messages(node, outs)
    }

    /// A unicast frame of `node` to `to` ended (the MAC's report).
    pub fn on_tx_result(
        &mut self,
        node: NodeId,
        to: NodeId,
        acked: bool,
        numtx: u32,
        now: Time,
    ) -> Vec<LinkMessage> {
        let outs = self.nodes[node].on_tx_result(now, to, acked, numtx, &mut self.rngs[node]);
        self.messages(node, outs)
    }

    fn messages(&self, node: NodeId, outs: Vec<Out>) -> Vec<LinkMessage> {
        let me = link_local(node);
        outs.into_iter()
            .map(|o| match o.to {
                To::AllNodes => LinkMessage {
                    next_hop: BROADCAST_NODE,
                    addrs: (me, ALL_RPL_NODES),
                    icmp: o.icmp,
                },
                To::Neighbour(n) => LinkMessage {
                    next_hop: n,
                    addrs: (me, link_local(n)),
                    icmp: o.icmp,
                },
            })
            .collect()
    }

    /// When `node`'s timer must next fire, if that is a new time to arm
    /// (the engine schedules it).
    pub fn rearm(&mut self, node: NodeId, now: Time) -> Option<Time> {
        // a deadline already passed fires now (the queue runs nothing earlier)
        let due = self.nodes[node].deadline().map(|d| d.max(now));
        if due.is_some() && due != self.armed[node] {
            self.armed[node] = due;
            return due;
        }
        None
    }

    /// `node`'s preferred parent if it changed since the last call (the
    /// MAC's time source follows it, tsch-rpl.c
    /// `tsch_rpl_callback_parent_switch`).
    pub fn parent_change(&mut self, node: NodeId) -> Option<NodeId> {
        let now = self.nodes[node].parent();
        if now != self.told_parent[node] {
            self.told_parent[node] = now;
            return now;
        }
        None
    }

    /// Whether `node` is in the DODAG: RPL runs and has a preferred
    /// parent, or is the root (rpl-dag.c `rpl_has_joined`, the test of
    /// tsch-rpl.c `tsch_rpl_check_dodag_joined`).
    pub fn in_dodag(&self, node: NodeId) -> bool {
        let n = &self.nodes[node];
        n.started() && (node == self.root || n.parent().is_some())
    }

    /// Whether `node` is in the DODAG if that changed since the last call:
    /// a TSCH node sends EBs only while it is (tsch.c
    /// `tsch_send_eb_process`, "skip sending EB: not joined a routing
    /// DAG", `TSCH_RPL_CHECK_DODAG_JOINED`, RFC 8180 §6.3).
    pub fn in_dodag_change(&mut self, node: NodeId) -> Option<bool> {
        let now = self.in_dodag(node);
        (std::mem::replace(&mut self.told_in_dodag[node], now) != now).then_some(now)
    }

    /// The whole network's RPL counts at the end of a run, as result
    /// columns (`rpl_*`, every one an integer count); a run puts them on
    /// its first result row only (`run.rs`), so summing rows sums runs.
    pub fn totals(&self) -> crate::row::Row {
        use crate::row::Value::Int;
        let sum = |f: &dyn Fn(&super::node::RplStats) -> u64| -> i64 {
            self.nodes.iter().map(|n| f(&n.stats())).sum::<u64>() as i64
        };
        let router = |f: &dyn Fn(&RouterStats) -> u64| -> i64 {
            self.stats.iter().map(f).sum::<u64>() as i64
        };
        let with_parent = self.nodes.iter().filter(|n| n.parent().is_some()).count();
        let root_routes = self.nodes[self.root].routes().len();
        [
            ("rpl_dio_sent", sum(&|s| s.dio_sent)),
            ("rpl_dao_sent", sum(&|s| s.dao_sent)),
            ("rpl_dao_forwarded", sum(&|s| s.dao_forwarded)),
            ("rpl_no_path_sent", sum(&|s| s.no_path_sent)),
            ("rpl_probes_sent", sum(&|s| s.probes_sent)),
            ("rpl_dis_sent", sum(&|s| s.dis_sent)),
            ("rpl_dao_loops", sum(&|s| s.dao_loops)),
            ("rpl_parent_switches", sum(&|s| s.parent_switches)),
            ("rpl_local_repairs", sum(&|s| s.local_repairs)),
            ("rpl_nodes_with_parent", with_parent as i64),
            ("rpl_root_routes", root_routes as i64),
            ("rpl_no_route_drops", router(&|s| s.no_route)),
            ("rpl_via_join_proxy", router(&|s| s.via_join_proxy)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), Int(v)))
        .collect()
    }

    /// The next hop from `node` for a datagram from `src` to `dst`; None:
    /// dropped (counted). `synced_on`: the neighbour whose Enhanced Beacon
    /// `node` associated on, if formed by scan.
    pub fn next_hop(
        &mut self,
        node: NodeId,
        src: NodeId,
        dst: NodeId,
        now: Time,
        topology: &Topology,
        synced_on: Option<NodeId>,
    ) -> Option<NodeId> {
        let hop = if !self.nodes[node].started() {
            // a pledge: through its join proxy, the EB sender it associated
            // on when formed by scan (RFC 9031 §4-5), else its computed next hop
            let proxy = synced_on.or_else(|| topology.next_hop(node, dst));
            if node == src {
                self.proxy[node] = proxy;
                self.stats[node].via_join_proxy += 1;
            }
            proxy
        } else {
            match self.proxy[dst].filter(|_| !self.nodes[dst].started()) {
                // the answer to a pledge: to its proxy, which sends it the last hop
                Some(proxy) if proxy == node => Some(dst),
                Some(proxy) => self.nodes[node].next_hop(proxy, now),
                None => self.nodes[node].next_hop(dst, now),
            }
        };
        if hop.is_none() {
            self.stats[node].no_route += 1;
        }
        hop
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpl::node::RplParams;

    /// A pledge's datagram goes to the EB sender it associated on when
    /// formed by scan, its computed next hop otherwise; that proxy is
    /// kept for the answer.
    #[test]
    fn a_pledge_sends_through_the_eb_sender_it_associated_on() {
        // 0 the root, 2 and 3 its neighbours, 1 hearing 2 (perfect) and 3
        let links: Vec<_> = [(0, 2, 1.0), (0, 3, 1.0), (1, 2, 1.0), (1, 3, 0.8)]
            .into_iter()
            .flat_map(|(a, b, q)| [(a, b, q), (b, a, q)])
            .collect();
        let topology = Topology::from_links(4, &links).unwrap();
        assert_eq!(topology.next_hop(1, 0), Some(2));
        let mut r = RplRouter::new(4, 0, RplParams::CONTIKI_NG, 1, 0);
        r.start(0, 0);
        assert_eq!(r.next_hop(1, 1, 0, 0, &topology, None), Some(2));
        assert_eq!(r.next_hop(1, 1, 0, 0, &topology, Some(3)), Some(3));
        assert_eq!(r.stats[1].via_join_proxy, 2);
        assert_eq!(r.proxy[1], Some(3), "the proxy kept for the answer");
    }
}
