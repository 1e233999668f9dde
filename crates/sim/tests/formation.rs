//! TSCH network formation end to end: nodes scan, synchronise on an
//! Enhanced Beacon, then beacon themselves; a node out of everyone's range
//! never synchronises and is counted, not a panic.

mod common;

use common::stacks;
use sim::app::record::Record;
use sim::channel::airtime_us;
use sim::engine::Sim;
use sim::mac::tsch::formation::FormationParams;
use sim::mac::tsch::schedule::minimal_schedule;
use sim::mac::tsch::{Tsch, TschParams};
use sim::mac::{Mac, NodeMac};
use sim::node::app::{App, Idle};
use sim::topology::Topology;
use sim::world::World;
use wpan::frame::Repr;
use wpan::ie::{MlmeSubIe, PayloadIe};

const SLOTFRAME: u32 = 7;

fn tsch(node: usize, cells: Vec<sim::mac::tsch::Cell>) -> NodeMac {
    Tsch::new(TschParams {
        formation: Some(FormationParams::contiki(node == 0)),
        // one channel: the scan listens where the EBs go, so the times
        // below do not depend on the channel draws
        ..TschParams::new(SLOTFRAME, cells, vec![3])
    })
    .into()
}

/// The ASN and join metric of an EB (bytes with FCS).
fn sync_ie(frame: &[u8]) -> (u64, u8) {
    let r = Repr::parse(wpan::fcs::check(frame).unwrap()).unwrap();
    match &r.payload_ies[0] {
        PayloadIe::Mlme(subs) => match subs[0] {
            MlmeSubIe::TschSync { asn, join_metric } => (asn, join_metric),
            ref other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

#[test]
fn beacons_spread_the_timing_hop_by_hop_and_an_isolated_node_is_counted() {
    // 0 - 1 - 2 in a line, 3 hears nobody
    let links = [(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0)];
    let topology = Topology::from_links(4, &links).unwrap();
    let world = World::new(topology, 1, 0);
    let cells = minimal_schedule(4);
    let macs: Vec<NodeMac> = (0..4).map(|n| tsch(n, cells[n].clone())).collect();
    let apps: Vec<Box<dyn App<Record>>> = (0..4).map(|_| Box::new(Idle) as _).collect();
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim.start();
    let end = 40_000_000;
    sim.run(end, |_| false);

    // EB: header 15 (FCF 2, seq 1, PAN 2, broadcast 2, extended source 8),
    // header termination IE 2, MLME payload IE header 2, synchronization
    // 2 + 6, timeslot 2 + 1, channel hopping 2 + 1, slotframe and link
    // 2 + 1 + 4 + 5, FCS 2: 47 bytes, on the air (6 + 47) · 32 = 1 696 µs.
    let eb_air = airtime_us(47);
    assert_eq!(eb_air, 1_696);
    let sent = sim.world.sent.as_ref().unwrap();
    let first = |node| sent.iter().find(|s| s.node == node).unwrap();
    // the root beacons in the minimal cell of ASN 0, at TsTxOffset
    let eb0 = first(0);
    assert_eq!((eb0.at, eb0.frame.len()), (2_120, 47));
    assert_eq!(sync_ie(&eb0.frame), (0, 0));
    // node 1, scanning since 0, has it whole at 2 120 + 1 696 = 3 816 µs
    let f1 = sim.stacks[1].mac.formation().unwrap();
    assert_eq!(f1.synchronised_at, Some(2_120 + eb_air));
    // and queues its own EB for the next minimal cell: ASN 7 (slotframe 7)
    let eb1 = first(1);
    assert_eq!(eb1.at, 70_000 + 2_120);
    assert_eq!(sync_ie(&eb1.frame), (7, 1));
    // node 2 hears it: synchronised at 72 120 + 1 696 = 73 816 µs
    let f2 = sim.stacks[2].mac.formation().unwrap();
    assert_eq!(f2.synchronised_at, Some(73_816));
    let eb2 = first(2);
    assert_eq!((eb2.at, sync_ie(&eb2.frame)), (140_000 + 2_120, (14, 2)));
    // the root is the time source: never "synchronised"
    let f0 = sim.stacks[0].mac.formation().unwrap();
    assert_eq!(f0.synchronised_at, None);
    // every synchronised node beacons again after [12, 16) s: 40 s hold
    // 3 or 4 EBs of the root (at 0, then three gaps of 12..16 s)
    assert!((3..=4).contains(&f0.ebs_sent), "{}", f0.ebs_sent);
    // node 3 never heard a beacon: still scanning, its radio on all along
    let f3 = sim.stacks[3].mac.formation().unwrap();
    assert_eq!(
        (f3.synchronised_at, f3.ebs_sent, f3.ebs_heard),
        (None, 0, 0)
    );
    let t3 = sim.world.energest(3).times(end);
    assert_eq!(t3.radio_rx_us, end);
    // counted as it goes: scanning since power-on, a channel change at
    // the end of every 1 s dwell (TSCH_CHANNEL_SCAN_DURATION) up to 40 s
    assert_eq!((f3.scanning_since, f3.scan_us), (Some(0), 0));
    assert_eq!(f3.scan_hops, 40);
    // node 1 scanned from 0 until the root's first EB, on one channel
    let f1 = sim.stacks[1].mac.formation().unwrap();
    assert_eq!(
        (f1.scan_us, f1.scan_hops, f1.scanning_since),
        (3_816, 0, None)
    );
    assert_eq!(sent.iter().filter(|s| s.node == 3).count(), 0);
}

/// A 3-node line under the 6TiSCH minimal schedule, periodic reports to
/// node 0, the network formed by scan (or not).
fn periodic_line(formation: Option<FormationParams>) -> sim::scenario::Scenario {
    use sim::scenario::{MacSpec, TopologySpec, TschSchedule, TschSpec, Workload};
    let mac = MacSpec::Tsch(TschSpec {
        formation,
        ..TschSpec::new(SLOTFRAME, TschSchedule::Minimal)
    });
    let topology = TopologySpec::Line {
        nodes: 3,
        pdr: 1.0,
        audible: sim::topology::Audible::Routes,
    };
    let workload = Workload::Periodic {
        interval_us: 30_000_000,
        payload: 20,
        duration_us: 400_000_000,
    };
    common::scenario(topology, 0, mac, workload, 7)
}

#[test]
fn rows_report_the_time_to_synchronised_only_with_formation() {
    use common::get;
    use sim::row::Value;
    use sim::run::run_replication;
    // EBs every 1.5..2 s: a hop takes some 16 EBs to be heard (one
    // channel of 16 scanned at a time), well within the 400 s
    let params = FormationParams {
        eb_period_us: 2_000_000,
        ..FormationParams::contiki(false)
    };
    let s = periodic_line(Some(params));
    let r = run_replication(&s, 0, false, &[]).unwrap();
    let row = &r.rows[0];
    assert_eq!(get(row, "nodes_synchronised"), Value::Int(2));
    assert_eq!(get(row, "nodes_never_synchronised"), Value::Int(0));
    assert_eq!(get(row, "ebs_malformed"), Value::Int(0));
    let t = |node: usize| {
        let n = r
            .nodes
            .iter()
            .find(|n| get(n, "node") == Value::Int(node as i64));
        n.unwrap()
            .iter()
            .find(|(k, _)| k == "time_to_synchronised_s")
            .map(|(_, v)| match v {
                Value::Float(f) => *f,
                other => panic!("{other:?}"),
            })
    };
    // the root has none; node 2 hears only node 1, so it synchronises after it
    let (t1, t2) = (t(1).unwrap(), t(2).unwrap());
    assert_eq!(t(0), None);
    assert!(0.0 < t1 && t1 < t2, "{t1} {t2}");
    // of 2 nodes, p50 is the 1st, p90 and p99 the 2nd (nearest rank)
    assert_eq!(get(row, "time_to_synchronised_p50_s"), Value::Float(t1));
    assert_eq!(get(row, "time_to_synchronised_p99_s"), Value::Float(t2));
    // same seed, same run
    let again = run_replication(&s, 0, false, &[]).unwrap();
    assert_eq!(again.rows, r.rows);
    // without formation: no such columns
    let plain = run_replication(&periodic_line(None), 0, false, &[]).unwrap();
    assert!(plain.rows[0]
        .iter()
        .all(|(k, _)| !k.contains("synchronised")));
    assert!(plain
        .nodes
        .iter()
        .flatten()
        .all(|(k, _)| !k.contains("synchronised")));
}

#[test]
fn a_node_not_yet_joined_synchronises_but_beacons_only_once_joined() {
    // 0 - 1 - 2 in a line; node 1 is held as not joined (RFC 9031 §4: a
    // pledge hears EBs only from nodes already part of the network)
    let links = [(0, 1, 1.0), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 1.0)];
    let topology = Topology::from_links(3, &links).unwrap();
    let world = World::new(topology, 1, 0);
    let cells = minimal_schedule(3);
    let macs: Vec<NodeMac> = (0..3).map(|n| tsch(n, cells[n].clone())).collect();
    let apps: Vec<Box<dyn App<Record>>> = (0..3).map(|_| Box::new(Idle) as _).collect();
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim.set_joined(1, false);
    sim.start();
    sim.run(20_000_000, |_| false);
    // node 1 synchronised on the root's first EB (2 120 + 1 696 µs, as
    // above) but sent nothing, so node 2 still scans
    let f1 = sim.stacks[1].mac.formation().unwrap();
    assert_eq!((f1.synchronised_at, f1.ebs_sent), (Some(3_816), 0));
    let sent = sim.world.sent.as_ref().unwrap();
    assert_eq!(sent.iter().filter(|s| s.node == 1).count(), 0);
    assert_eq!(sim.stacks[2].mac.formation().unwrap().synchronised_at, None);
    // joined at 20 s: its first EB in the next minimal cell, ASN
    // ⌈20 s / 70 ms⌉ · 7 = 286 · 7 = 2 002, at 20 020 000 + 2 120 µs,
    // carrying ASN 2 002 and join metric 1; node 2 has it whole 1 696 µs later
    sim.set_joined(1, true);
    sim.run(21_000_000, |_| false);
    let sent = sim.world.sent.as_ref().unwrap();
    let eb1 = sent.iter().find(|s| s.node == 1).unwrap();
    assert_eq!(eb1.at, 20_022_120);
    assert_eq!(sync_ie(&eb1.frame), (2_002, 1));
    let f2 = sim.stacks[2].mac.formation().unwrap();
    assert_eq!(f2.synchronised_at, Some(20_022_120 + 1_696));
}
