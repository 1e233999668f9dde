//! RPL carried by a TSCH network: DIOs as broadcast frames in the minimal
//! shared cell, DAOs as unicast frames to the parent, the MAC's unicast
//! outcomes fed to RPL's link ETX, and datagrams routed by what RPL
//! learnt (its parent upward, its stored routes downward).

mod common;

use common::stacks;
use sim::app::record::Record;
use sim::engine::Sim;
use sim::mac::tsch::formation::FormationParams;
use sim::mac::tsch::schedule::minimal_schedule;
use sim::mac::tsch::{Tsch, TschParams};
use sim::mac::{Mac, NodeMac};
use sim::node::app::{App, Idle};
use sim::rpl::node::RplParams;
use sim::rpl::router::RplRouter;
use sim::topology::Topology;
use sim::world::World;

const SLOTFRAME: u32 = 7;

/// 0 - 1 - 2 in a line (each hears only its neighbours), the minimal
/// schedule on one channel, EBs every 1.5..2 s, RPL routing.
fn line() -> Sim<Record> {
    let links = [(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0)];
    let topology = Topology::from_links(3, &links).unwrap();
    let world = World::new(topology, 1, 0);
    let cells = minimal_schedule(3);
    let macs: Vec<NodeMac> = (0..3)
        .map(|n| {
            Tsch::new(TschParams {
                formation: Some(FormationParams {
                    eb_period_us: 2_000_000,
                    ..FormationParams::contiki(n == 0)
                }),
                ..TschParams::new(SLOTFRAME, cells[n].clone(), vec![3])
            })
            .into()
        })
        .collect();
    let apps: Vec<Box<dyn App<Record>>> = (0..3).map(|_| Box::new(Idle) as _).collect();
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim.route_by_rpl(RplRouter::new(3, 0, RplParams::CONTIKI_NG, 1, 0));
    sim
}

/// The line started, its pledges running RPL at once (they start it once
/// joined; the MAC still scans first).
fn line_started(mut sim: Sim<Record>) -> Sim<Record> {
    sim.start();
    sim.set_joined(1, true);
    sim.set_joined(2, true);
    sim
}

#[test]
fn a_line_forms_its_routes_by_dios_and_daos_carried_as_frames() {
    let mut sim = line_started(line());
    sim.run(300_000_000, |_| false);
    let r = sim.router.as_ref().unwrap();
    assert_eq!(r.nodes[1].parent(), Some(0));
    assert_eq!(r.nodes[2].parent(), Some(1));
    // the root reaches 2 through 1; node 1 reaches 2 directly
    let root = r.nodes[0].routes();
    assert_eq!(root.get(&1).map(|x| x.via), Some(1));
    assert_eq!(root.get(&2).map(|x| x.via), Some(1));
    assert_eq!(r.nodes[1].routes().get(&2).map(|x| x.via), Some(2));
    for n in 0..3 {
        assert!(r.nodes[n].stats().dio_sent > 0, "node {n}");
        assert!(r.nodes[n].stats().dio_received > 0, "node {n}");
    }
    assert!(r.nodes[2].stats().dao_sent > 0);
    assert!(r.nodes[1].stats().dao_forwarded > 0);
    // the DAOs went as acknowledged unicast frames: the link's ETX moved
    // from the default for a neighbour only heard (2, as 256) towards 1
    // (128), which it reaches only after many samples (EWMA)
    let etx = r.nodes[2].link_etx(1);
    assert!((128..256).contains(&etx), "{etx}");
    // the DIOs went on the air as broadcast data frames (dst 0xffff)
    let sent = sim.world.sent.as_ref().unwrap();
    for n in 0..3 {
        let broadcasts = sent
            .iter()
            .filter(|s| s.node == n)
            .filter_map(|s| wpan::frame::Repr::parse(wpan::fcs::check(&s.frame).ok()?).ok())
            .filter(|f| f.dst_addr.is_broadcast() && matches!(f.body, wpan::frame::Body::Data(_)))
            .count();
        assert!(broadcasts > 0, "node {n} sent no DIO frame");
    }
    assert!(sim.stacks[2].mac.stats().data_frames_sent > 0);
}

#[test]
fn a_node_sends_enhanced_beacons_only_once_rpl_gave_it_a_parent() {
    // tsch.c `tsch_send_eb_process` with TSCH_RPL_CHECK_DODAG_JOINED
    // (tsch-rpl.c `tsch_rpl_check_dodag_joined`, rpl-dag.c
    // `rpl_has_joined`): joined and synchronised is not enough, a node
    // beacons once its RPL has a preferred parent. Nodes 1 and 2 run RPL
    // from power-on here, so without the rule they would beacon as soon
    // as they synchronise, before the first DIO they hear names a parent.
    let mut sim = line_started(line());
    sim.run(300_000_000, |_| false);
    let r = sim.router.as_ref().unwrap();
    let sent = sim.world.sent.as_ref().unwrap();
    for n in 1..3 {
        let first_eb = (sent.iter())
            .filter(|s| s.node == n)
            .filter_map(|s| {
                wpan::frame::Repr::parse(wpan::fcs::check(&s.frame).ok()?)
                    .ok()
                    .map(|f| (s.at, f))
            })
            .find(|(_, f)| matches!(f.body, wpan::frame::Body::EnhancedBeacon(_)))
            .map(|(at, _)| at);
        let parent_at = r.nodes[n].stats().first_parent_at;
        let (Some(eb), Some(parent)) = (first_eb, parent_at) else {
            panic!("node {n}: first EB {first_eb:?}, first parent {parent_at:?}");
        };
        assert!(
            eb >= parent,
            "node {n}: an EB at {eb} before its parent at {parent}"
        );
        let synchronised = sim.stacks[n]
            .mac
            .formation()
            .unwrap()
            .synchronised_at
            .unwrap();
        assert!(synchronised < parent, "node {n}: the rule not exercised");
    }
}

#[test]
fn the_same_seed_forms_the_same_routes_frame_for_frame() {
    let run = || {
        let mut sim = line_started(line());
        sim.run(120_000_000, |_| false);
        let r = sim.router.as_ref().unwrap();
        let stats: Vec<_> = r.nodes.iter().map(|n| n.stats()).collect();
        (stats, sim.world.sent.take().unwrap().len(), sim.events())
    };
    assert_eq!(run(), run());
}

/// Two pledges in a line behind the border router (0 - 1 - 2), each
/// joining by a DTLS 1.2 PSK handshake with node 0 once its parent has
/// joined, over the minimal schedule formed by scan, routed by RPL or by
/// the computed routes.
fn joins_over_a_line(rpl: bool) -> sim::scenario::Scenario {
    use dtls::{ClientConfig, Config, ServerConfig};
    use session_table::Limits;
    use sim::scenario::{MacSpec, SessionHandshake, SessionsSpec, TopologySpec, TschSchedule};
    use sim::scenario::{TschSpec, Workload};
    const SECOND: u64 = 1_000_000;
    let psk: &[u8] = b"rpl-line-test-key";
    let config = Config::tightest_psk_ccm8();
    let handshake = SessionHandshake::Dtls {
        client: Box::new(ClientConfig::psk(config.clone(), b"id", psk)),
        server: Box::new(ServerConfig::psk(config, b"id", psk)),
    };
    let spec = SessionsSpec {
        limits: Limits::slots(4),
        idle_mean_us: 10.0 * SECOND as f64,
        join_after_parent: true,
        same_port: true,
        ..common::joins(2, handshake)
    };
    let mac = MacSpec::Tsch(TschSpec {
        formation: Some(FormationParams {
            eb_period_us: 2_000_000,
            ..FormationParams::contiki(false)
        }),
        rpl,
        ..TschSpec::new(SLOTFRAME, TschSchedule::Minimal)
    });
    let topology = TopologySpec::Links {
        nodes: 3,
        links: vec![(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0)],
    };
    common::scenario(topology, 0, mac, Workload::Sessions(Box::new(spec)), 5)
}

#[test]
fn a_handshake_crosses_the_line_routed_by_rpl() {
    use common::{get, int};
    use sim::row::Value;
    use sim::run::run_replication;
    let r = run_replication(&joins_over_a_line(true), 0, false, &[]).unwrap();
    let row = &r.rows[0];
    // both pledges joined: node 2's handshake crossed node 1
    assert_eq!(get(row, "secured_share"), Value::Float(1.0));
    // RPL ran on its own frames: DIOs from all three, the DAOs of 1 and
    // 2 reached the root (2's through 1), and the root routes to both
    assert!(int(row, "rpl_dio_sent") >= 3);
    assert!(int(row, "rpl_dao_sent") >= 2);
    assert!(int(row, "rpl_dao_forwarded") >= 1);
    assert_eq!(int(row, "rpl_nodes_with_parent"), 2);
    assert_eq!(int(row, "rpl_root_routes"), 2);
    // a pledge's handshake went through its join proxy before it ran RPL
    assert!(int(row, "rpl_via_join_proxy") > 0);
    // same seed, same run (compared as text: a NaN column is not == itself)
    let again = run_replication(&joins_over_a_line(true), 0, false, &[]).unwrap();
    assert_eq!(format!("{:?}", again.rows), format!("{:?}", r.rows));
    // routed by the computed tree: no RPL columns, and the joins still succeed
    let tree = run_replication(&joins_over_a_line(false), 0, false, &[]).unwrap();
    assert_eq!(get(&tree.rows[0], "secured_share"), Value::Float(1.0));
    assert!(tree.rows[0].iter().all(|(k, _)| !k.starts_with("rpl_")));
}

#[test]
fn orchestras_tx_cells_follow_rpls_parent_and_children() {
    use sim::mac::tsch::schedule::orchestra_cells;
    // the line 0 - 1 - 2 under Orchestra (17 / 31 slots), each node's
    // cells first built for wrong neighbours (2 sends to 0, which it
    // cannot hear; 1 to no one; 0 to 2)
    let links = [(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0)];
    let topology = Topology::from_links(3, &links).unwrap();
    let world = World::new(topology, 1, 0);
    let wrong: [&[usize]; 3] = [&[2], &[], &[0]];
    let macs: Vec<NodeMac> = (0..3)
        .map(|n| {
            Tsch::new(TschParams {
                formation: Some(FormationParams {
                    eb_period_us: 2_000_000,
                    ..FormationParams::contiki(n == 0)
                }),
                ..TschParams::new(527, orchestra_cells(n, wrong[n], 17, 31), vec![3])
            })
            .into()
        })
        .collect();
    let apps: Vec<Box<dyn App<Record>>> = (0..3).map(|_| Box::new(Idle) as _).collect();
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.route_by_rpl(RplRouter::new(3, 0, RplParams::CONTIKI_NG, 1, 0).with_orchestra(17, 31));
    let mut sim = line_started(sim);
    sim.run(600_000_000, |_| false);
    let r = sim.router.as_ref().unwrap();
    assert_eq!(
        (r.nodes[1].parent(), r.nodes[2].parent()),
        (Some(0), Some(1))
    );
    let tx_peers = |n: usize| {
        let NodeMac::Tsch(t) = &sim.stacks[n].mac else {
            panic!("not TSCH")
        };
        let mut p: Vec<usize> = (t.cells().iter())
            .filter(|c| c.tx && !c.shared)
            .map(|c| c.peer)
            .collect();
        p.sort_unstable();
        p.dedup();
        p
    };
    // each sends to its parent and to its children, in their unicast cells
    assert_eq!(tx_peers(0), vec![1]);
    assert_eq!(tx_peers(1), vec![0, 2]);
    assert_eq!(tx_peers(2), vec![1]);
    assert_eq!(
        sim.stacks[2].mac.stats().drops,
        0,
        "no frame given up to an absent neighbour"
    );
}
