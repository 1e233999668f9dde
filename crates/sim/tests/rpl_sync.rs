//! RPL told of a loss of synchronisation (Contiki-NG tsch-rpl.c
//! `tsch_rpl_callback_leaving_network`): a node whose neighbours fall
//! silent leaves the TSCH network, its RPL repairs locally (link
//! statistics forgotten, no parent), and once it has synchronised again
//! on an EB its time source follows RPL's new preferred parent.

mod common;

use common::stacks;
use sim::app::record::Record;
use sim::clock::Crystal;
use sim::engine::Sim;
use sim::mac::tsch::formation::FormationParams;
use sim::mac::tsch::schedule::minimal_schedule;
use sim::mac::tsch::sync::{SyncParams, SyncStats};
use sim::mac::tsch::{Tsch, TschParams};
use sim::mac::{Mac, NodeMac};
use sim::node::app::{App, Idle};
use sim::rpl::node::RplParams;
use sim::rpl::router::RplRouter;
use sim::topology::Topology;
use sim::world::World;
use sim::Time;

const SECOND: Time = 1_000_000;

/// 0 - 1 - 2 and 0 - 4 - 3 - 2: node 2's best RPL parent is node 1 (one
/// hop from the root), but node 1 sends an EB only once an hour, so node 2
/// synchronises on node 3's. Crystals pinned apart (node 2 30 ppm fast),
/// no keep-alives: node 2 stays synchronised on what it hears from its
/// time source (DIOs, the ACKs of its DAOs and probes).
fn network() -> Sim<Record> {
    let pairs = [(0, 1), (1, 2), (0, 4), (4, 3), (3, 2)];
    let links: Vec<_> = (pairs.iter())
        .flat_map(|&(a, b)| [(a, b, 1.0), (b, a, 1.0)])
        .collect();
    let topology = Topology::from_links(5, &links).unwrap();
    let cells = minimal_schedule(5);
    let ppb = [0, -10_000, 30_000, 5_000, -5_000];
    let macs: Vec<NodeMac> = (0..5)
        .map(|n| {
            let eb_period_us = if n == 1 { 3_600 * SECOND } else { 4 * SECOND };
            Tsch::new(TschParams {
                formation: Some(FormationParams {
                    eb_period_us,
                    ..FormationParams::contiki(n == 0)
                }),
                sync: Some(SyncParams {
                    crystal: Some(Crystal::with_error_ppb(ppb[n])),
                    keepalive_timeout_us: 0,
                    ..SyncParams::contiki(20.0, 2_200)
                }),
                ..TschParams::new(7, cells[n].clone(), vec![3])
            })
            .into()
        })
        .collect();
    let apps: Vec<Box<dyn App<Record>>> = (0..5).map(|_| Box::new(Idle) as _).collect();
    let mut sim = Sim::new(World::new(topology, 1, 0), stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim.route_by_rpl(RplRouter::new(5, 0, RplParams::CONTIKI_NG, 1, 0));
    sim.start();
    for n in 1..5 {
        sim.set_joined(n, true);
    }
    sim
}

fn sync_of(sim: &Sim<Record>, node: usize) -> SyncStats {
    sim.stacks[node].mac.formation().unwrap().sync.unwrap()
}

fn time_source(sim: &Sim<Record>, node: usize) -> Option<usize> {
    let NodeMac::Tsch(t) = &sim.stacks[node].mac else {
        panic!("not TSCH")
    };
    t.time_source()
}

/// Run in steps of `step` until `done` holds (at most until `limit`).
fn run_until(sim: &mut Sim<Record>, step: Time, limit: Time, done: impl Fn(&Sim<Record>) -> bool) {
    while !done(sim) {
        let next = sim.now() + step;
        assert!(next <= limit, "not by {limit} µs");
        sim.run(next, |_| false);
    }
}

#[test]
fn a_node_that_loses_sync_repairs_rpl_and_its_time_source_follows_its_parent_again() {
    let mut sim = network();
    sim.run(600 * SECOND, |_| false);
    let rpl = |sim: &Sim<Record>, n: usize| sim.router.as_ref().unwrap().nodes[n].clone();
    // formed: node 2 joined on node 3's EB, RPL chose node 1, which became
    // the time source (tsch-rpl.c `tsch_rpl_callback_parent_switch`)
    assert_eq!(rpl(&sim, 2).parent(), Some(1));
    assert_eq!(time_source(&sim, 2), Some(1));
    assert_eq!(sync_of(&sim, 2).desyncs, 0);
    assert_eq!(rpl(&sim, 2).stats().local_repairs, 0);
    assert!(rpl(&sim, 2).link_etx(1) > 0, "a link statistic to forget");
    // node 2's neighbours fall silent (every emission of nodes 1 and 3
    // lost from now on): nothing resynchronises it, and it leaves at the
    // desync threshold (TSCH_DESYNC_THRESHOLD, 120 s)
    let sent = sim.world.sent.as_ref().unwrap();
    let count = |n: usize| sent.iter().filter(|s| s.node == n).count() as u64;
    let (from1, from3) = (count(1), count(3));
    sim.world.jammed = (0..20_000)
        .flat_map(|i| [(1, from1 + i), (3, from3 + i)])
        .collect();
    let silent_at = sim.now();
    run_until(&mut sim, SECOND, silent_at + 300 * SECOND, |s| {
        sync_of(s, 2).desyncs == 1
    });
    // RPL was told: a local repair, no parent, no Rank, the link
    // statistics forgotten (link-stats.c `link_stats_reset`)
    let r2 = rpl(&sim, 2);
    assert_eq!(r2.stats().local_repairs, 1);
    assert_eq!(r2.parent(), None);
    assert_eq!(r2.rank(), sim::rpl::mrhof::INFINITE_RANK);
    assert_eq!(r2.link_etx(1), 0);
    assert_eq!(time_source(&sim, 2), None);
    // no other node left or repaired
    for n in [1, 3, 4] {
        assert_eq!(rpl(&sim, n).stats().local_repairs, 0, "node {n}");
    }
    // the neighbours speak again: node 2 synchronises on node 3's EB (node
    // 1 sends none this hour), its time source the EB sender ...
    sim.world.jammed.clear();
    let left_at = sim.now();
    run_until(&mut sim, 10_000, left_at + 120 * SECOND, |s| {
        sync_of(s, 2).rejoins == 1
    });
    assert_eq!(time_source(&sim, 2), Some(3));
    // ... until RPL picks a parent again from the DIOs it hears, and the
    // time source follows it. Node 1 or node 3: both lost their own
    // frames while silenced, so their Ranks rose (node 1's past node 3's
    // for a while, link-stats.c's 10 % EWMA bringing them back), and RPL
    // keeps a fresh parent while the other is probed (rpl-dag.c
    // `rpl_select_parent`)
    run_until(&mut sim, SECOND, left_at + 600 * SECOND, |s| {
        rpl(s, 2).parent().is_some()
    });
    sim.run(sim.now() + 300 * SECOND, |_| false);
    // RPL may take either, by the rules; this run takes node 1, not the
    // node it resynchronised on (3), so the time source following it is
    // seen to follow RPL and not the beacon
    let parent = rpl(&sim, 2).parent();
    assert_eq!(parent, Some(1));
    assert_eq!(time_source(&sim, 2), parent);
    assert_eq!(sync_of(&sim, 2).desyncs, 1, "no second loss");
}
