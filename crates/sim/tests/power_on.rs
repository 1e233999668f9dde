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
