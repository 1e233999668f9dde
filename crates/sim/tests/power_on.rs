//! Nodes powered on late (`Sim::power_on_at`, a scenario's
//! `power_on_window_us`): off until then (deaf, no energy counted), and
//! from then on as a node started then.

mod common;

use common::stacks;
use sim::app::record::Record;
use sim::engine::Sim;
use sim::mac::tsch::formation::FormationParams;
use sim::mac::tsch::schedule::minimal_schedule;
use sim::mac::tsch::{Tsch, TschParams};
use sim::mac::{Mac, NodeMac};
use sim::node::app::{App, Idle};
use sim::topology::Topology;
use sim::trace::Trace;
use sim::world::World;

const SLOTFRAME: u32 = 7;

fn tsch(node: usize, cells: Vec<sim::mac::tsch::Cell>) -> NodeMac {
    Tsch::new(TschParams {
        formation: Some(FormationParams::contiki(node == 0)),
        // one channel: the scan listens where the EBs go
        ..TschParams::new(SLOTFRAME, cells, vec![3])
    })
    .into()
}

/// 0 - 1 - 2 in a line and 3 hearing nobody, TSCH formed by scan, each
/// node powered on at `at[n]`; run to `end`, traced.
fn line(at: Option<Vec<u64>>, end: u64) -> Sim<Record> {
    let links = [(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0)];
    let topology = Topology::from_links(4, &links).unwrap();
    let mut world = World::new(topology, 1, 0);
    world.trace = Some(Trace::new(1_000_000));
    let cells = minimal_schedule(4);
    let macs: Vec<NodeMac> = (0..4).map(|n| tsch(n, cells[n].clone())).collect();
    let apps: Vec<Box<dyn App<Record>>> = (0..4).map(|_| Box::new(Idle) as _).collect();
    let mut sim = Sim::new(world, stacks(macs, apps));
    if let Some(at) = at {
        sim.power_on_at(at);
    }
    sim.start();
    sim.run(end, |_| false);
    sim
}

#[test]
fn a_leaf_powered_on_late_is_deaf_until_then_and_synchronises_only_after() {
    let on = 20_000_000;
    let end = 60_000_000;
    let sim = line(Some(vec![0, 0, on, on]), end);
    let f2 = sim.stacks[2].mac.formation().unwrap();
    assert_eq!(f2.powered_on_at, on);
    let synced = f2.synchronised_at.expect("the leaf synchronises");
    assert!(synced > on, "synchronised at {synced}");
    // nothing at the leaf before then: no frame judged received (an off
    // radio is no listener the medium schedules a check for), no timer
    let trace = &sim.world.trace.as_ref().unwrap().events;
    assert!(!trace.iter().any(|e| e.node == 2 && e.at < on));
    assert!(trace.iter().any(|e| e.node == 2 && e.at >= on));
    // node 1, on from the start, synchronised long before
    let f1 = sim.stacks[1].mac.formation().unwrap();
    assert!(f1.synchronised_at.unwrap() < 1_000_000);
    // the same line with every node on at 0: the leaf synchronises early
    let early = line(None, end);
    let s2 = early.stacks[2].mac.formation().unwrap().synchronised_at;
    assert!(s2.unwrap() < 1_000_000);
}

#[test]
fn a_node_powered_on_at_t_meters_what_a_node_started_at_t_does() {
    // node 3 hears nobody: scanning, its radio on, from power-on to the end
    let on = 25_000_000;
    let end = 60_000_000;
    let late = line(Some(vec![0, 0, 0, on]), end);
    let t = late.world.energest(3).times(end);
    assert_eq!(t.radio_rx_us, end - on);
    assert_eq!(t.radio_off_us + t.radio_tx_us, 0);
    assert_eq!(t.cpu_active_us + t.cpu_lpm_us, end - on);
    // against the same node run from 0 for the same span: the same meter
    let from_zero = line(None, end - on);
    assert_eq!(from_zero.world.energest(3).times(end - on), t);
    // and before its power-on it counted nothing
    assert_eq!(
        late.world.energest(3).times(on),
        sim::energy::StateTimes::default()
    );
    // a node powered on at 0 by the list is a node started with the rest
    let zero = line(Some(vec![0; 4]), end);
    let all = line(None, end);
    assert_eq!(
        zero.world.trace.unwrap().events,
        all.world.trace.unwrap().events
    );
}

#[test]
fn the_medium_judges_a_frame_to_a_node_not_yet_on_not_listening() {
    let links = [(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0)];
    let topology = Topology::from_links(4, &links).unwrap();
    let mut world = World::new(topology, 1, 0);
    world.sent = Some(Vec::new());
    let cells = minimal_schedule(4);
    let macs: Vec<NodeMac> = (0..4).map(|n| tsch(n, cells[n].clone())).collect();
    let apps: Vec<Box<dyn App<Record>>> = (0..4).map(|_| Box::new(Idle) as _).collect();
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.power_on_at(vec![0, 0, 30_000_000, 0]);
    sim.start();
    // stop as node 1 (synchronised, beaconing) starts an EB after 10 s
    let beaconing = |s: &Sim<Record>| {
        (s.world.sent.as_ref().unwrap().iter()).any(|f| f.node == 1 && f.at > 10_000_000)
    };
    sim.run(30_000_000, beaconing);
    assert!(sim.now() < 30_000_000 && !sim.is_powered(2));
    let eb = (sim.world.sent.as_ref().unwrap().iter())
        .rfind(|f| f.node == 1)
        .unwrap()
        .emission;
    assert_eq!(
        sim.world.peek_outcome(2, eb, 0),
        Err(sim::trace::RxOutcome::NotListening)
    );
}

/// A small CoJP storm on CSMA links through join proxies, each pledge
/// after its parent, its first wait of mean 1 s counted from power-on:
/// 0 (the JRC) - 1 - 2 - 3 and 1 - 4, 2 - 5; `window_us` of power-on.
fn storm(window_us: u64, seed: u64) -> (sim::row::Row, Trace) {
    use sim::mac::csma::CsmaParams;
    use sim::scenario::{MacSpec, SessionsSpec, TopologySpec, Workload};
    const SECOND: u64 = 1_000_000;
    let clients = 5;
    let spec = SessionsSpec {
        data_interval_us: 10 * SECOND,
        join_after_parent: true,
        join_proxy: true,
        stop_at_secured_share: Some(1.0),
        ..common::joins(clients, common::cojp())
    };
    let links = [(0, 1), (1, 2), (2, 3), (1, 4), (2, 5)];
    let topology = TopologySpec::Links {
        nodes: clients + 1,
        links: (links.into_iter())
            .flat_map(|(a, b)| [(a, b, 1.0), (b, a, 1.0)])
            .collect(),
    };
    let mut s = common::scenario(
        topology,
        0,
        MacSpec::Csma(CsmaParams::default()),
        Workload::Sessions(Box::new(spec)),
        seed,
    );
    s.power_on_window_us = window_us;
    let (mut r, trace) = sim::run::run_traced(&s, 0, 1_000_000).unwrap();
    (r.rows.remove(0), trace)
}

#[test]
fn a_storm_over_a_window_joins_no_node_before_its_power_on() {
    let window = 120_000_000;
    let (row, trace) = storm(window, 5);
    // the same draws as the run's: node 0, the JRC and border router, on at 0
    let topology = sim::topology::Topology::from_links(
        6,
        &[(0, 1), (1, 2), (2, 3), (1, 4), (2, 5)]
            .into_iter()
            .flat_map(|(a, b)| [(a, b, 1.0), (b, a, 1.0)])
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let on =
        sim::power_on::power_on_times(5, 0, 6, window, &sim::power_on::on_from_start(&topology, 0));
    assert_eq!(on[0], 0);
    assert!(on[1..].iter().all(|&t| t > 0 && t < window), "{on:?}");
    // every pledge joined: node 1 (next to the JRC) was released at once,
    // before its power-on, and let go as it powered on; the others after
    // their parents, some of them before their own power-on
    assert_eq!(
        common::get(&row, "secured_share"),
        sim::row::Value::Float(1.0)
    );
    for (n, &on_at) in on.iter().enumerate().skip(1) {
        // nothing of a node before its power-on: no frame, timer or record
        assert!(
            !trace
                .events
                .iter()
                .any(|e| e.node == n && e.at < on_at && e.layer != "phy"),
            "node {n} acted before its power-on at {on_at}"
        );
        let started = (trace.events.iter())
            .find(|e| e.node == n && e.kind == "handshake_started")
            .unwrap_or_else(|| panic!("node {n} never started a join"));
        // its first wait, start_us (1 s) and more, counted from power-on
        assert!(
            started.at >= on_at + 1_000_000,
            "node {n}: {} vs {on_at}",
            started.at
        );
    }
    // some child was released (its parent joined) before it powered on
    let joined = |n: usize| {
        (trace.events.iter())
            .find(|e| e.node == n && e.kind == "handshake_ended")
            .map(|e| e.at)
            .unwrap()
    };
    let parents = [(2, 1), (3, 2), (4, 1), (5, 2)];
    assert!(
        parents.iter().any(|&(c, p)| joined(p) < on[c]),
        "no release before power-on in this draw: {on:?}"
    );
    // same seed, same rows (by their text: NaN columns compare unequal)
    assert_eq!(format!("{:?}", storm(window, 5).0), format!("{row:?}"));
}
