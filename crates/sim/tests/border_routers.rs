//! Several border routers on a backbone: each a root of its own tree and
//! TSCH network, a datagram for another tree crossing the backbone once.

mod common;

use common::{get, int};
use sim::mac::tsch::formation::FormationParams;
use sim::row::Value;
use sim::run::run_replication;
use sim::scenario::{MacSpec, TopologySpec, TschSchedule, TschSpec, Workload};

/// Border routers 0 at (20, 50) and 1 at (100, 50), 80 m apart (out of
/// each other's 40 m range: only the backbone joins them); node 2 at
/// (120, 50), 20 m from border router 1 (PDR 1) and 100 m from 0; node 3
/// at (40, 50), 20 m from border router 0. Every node but 0 reports to
/// node 0 every 30 s for 400 s, under the 6TiSCH minimal schedule, the
/// network formed by scan (roots beacon from power-on).
fn two_trees(border_routers: usize) -> sim::scenario::Scenario {
    let mac = MacSpec::Tsch(TschSpec {
        formation: Some(FormationParams {
            eb_period_us: 2_000_000,
            ..FormationParams::contiki(false)
        }),
        ..TschSpec::new(11, TschSchedule::Minimal)
    });
    let topology = TopologySpec::Random {
        nodes: 4,
        side_m: 140.0,
        range_m: 40.0,
        positions: Some(vec![
            (20.0, 50.0),
            (100.0, 50.0),
            (120.0, 50.0),
            (40.0, 50.0),
        ]),
        border_routers,
    };
    let workload = Workload::Periodic {
        interval_us: 30_000_000,
        payload: 20,
        duration_us: 400_000_000,
    };
    common::scenario(topology, 0, mac, workload, 7)
}

#[test]
fn a_report_from_another_tree_crosses_the_backbone_once_and_arrives() {
    let r = run_replication(&two_trees(2), 0, false, &[]).unwrap();
    let row = &r.rows[0];
    let node = |n: i64| {
        let rows = r.nodes.iter().find(|row| get(row, "node") == Value::Int(n));
        rows.unwrap()
    };
    // each node's border router: the one it reaches, and hops to it
    for (n, br, hops) in [(0, 0, 0), (1, 1, 0), (2, 1, 1), (3, 0, 1)] {
        assert_eq!(int(node(n), "border_router"), br, "node {n}");
        assert_eq!(int(node(n), "hops_to_border_router"), hops, "node {n}");
    }
    // node 2 synchronised on border router 1, a root beaconing from power-on
    assert_eq!(get(row, "nodes_never_synchronised"), Value::Int(0));
    let delivered = |n| int(node(n), "app_delivered");
    assert!(delivered(1) > 0 && delivered(2) > 0 && delivered(3) > 0);
    // the reports of nodes 1 and 2 reach node 0 only over the backbone,
    // once each, and nothing crossing it is lost; node 3's never cross
    assert_eq!(int(row, "backbone_datagrams"), delivered(1) + delivered(2));
    // with one border router node 1 is an ordinary node out of range of
    // node 0: the placement has no route, and is refused
    let one = run_replication(&two_trees(1), 0, false, &[]);
    assert!(one.is_err());
}
