//! Formed by scan, a pledge joins through the node whose Enhanced Beacon
//! it associated on (RFC 9031 §4-5), not through its next hop on the
//! computed routes: two small networks where the two differ, one routed
//! by the computed tree, one by RPL.

mod common;

use common::int;
use sim::mac::tsch::formation::FormationParams;
use sim::row::{Row, Value};
use sim::run::run_replication;
use sim::scenario::{MacSpec, SessionsSpec, TopologySpec, TschSchedule};
use sim::scenario::{TschSpec, Workload};
use sim::topology::Topology;

const SECOND: u64 = 1_000_000;

/// The JRC at 0 and relays 2 and 3 next to it; pledge 1 hears both, its
/// link to 2 perfect and to 3 0.8, so its computed next hop is 2. Nodes 1
/// and 2 join by CoJP through a join proxy (held until associated,
/// `join_after_parent`); node 3 asks for nothing, so it is part of the
/// network from power-on and beacons once synchronised, while node 2
/// beacons only once it joined (routed by RPL, once RPL gave it a parent
/// too). The joins start well after node 3 beacons, so pledge 1
/// associates on node 3's EB. Result row and node rows.
fn joins(rpl: bool) -> (Row, Vec<Row>) {
    let links = [(0, 2, 1.0), (0, 3, 1.0), (1, 2, 1.0), (1, 3, 0.8)];
    let links: Vec<_> = links
        .into_iter()
        .flat_map(|(a, b, q)| [(a, b, q), (b, a, q)])
        .collect();
    let computed = Topology::from_links(4, &links).unwrap();
    assert_eq!(computed.next_hop(1, 0), Some(2), "the computed next hop");
    let spec = SessionsSpec {
        // the joins start well after the relay not asking beacons
        idle_mean_us: 30.0 * SECOND as f64,
        join_after_parent: true,
        join_proxy: true,
        duration_us: 500 * SECOND,
        stop_at_secured_share: Some(1.0),
        ..common::joins(2, common::cojp())
    };
    let mac = MacSpec::Tsch(TschSpec {
        formation: Some(FormationParams {
            eb_period_us: 2_000_000,
            ..FormationParams::contiki(false)
        }),
        rpl,
        ..TschSpec::new(7, TschSchedule::Minimal)
    });
    let topology = TopologySpec::Links { nodes: 4, links };
    let s = common::scenario(topology, 0, mac, Workload::Sessions(Box::new(spec)), 5);
    let mut r = run_replication(&s, 0, false, &[]).unwrap();
    (r.rows.remove(0), r.nodes)
}

fn forwarded(nodes: &[Row]) -> Vec<i64> {
    nodes.iter().map(|n| int(n, "jp_forwarded")).collect()
}

#[test]
fn routed_by_the_tree_the_pledge_joins_through_the_eb_sender_not_its_computed_parent() {
    let (row, nodes) = joins(false);
    assert_eq!(common::get(&row, "secured_share"), Value::Float(1.0));
    let f = forwarded(&nodes);
    assert!(f[3] > 0, "the EB sender relayed the join: {f:?}");
    assert_eq!(f[2], 0, "the computed next hop relayed nothing: {f:?}");
}

#[test]
fn routed_by_rpl_the_pledge_joins_through_the_eb_sender_not_its_computed_parent() {
    let (row, nodes) = joins(true);
    assert_eq!(common::get(&row, "secured_share"), Value::Float(1.0));
    let f = forwarded(&nodes);
    assert!(f[3] > 0, "the EB sender relayed the join: {f:?}");
    assert_eq!(f[2], 0, "the computed next hop relayed nothing: {f:?}");
}
