//! TSCH under clock drift: offsets grow with the crystals' errors until a
//! frame falls outside the receiver's guard; keep-alives go to the time
//! source at their timeout and its ACK resynchronises; a node that loses
//! its time source leaves the network and rejoins through another.

mod common;

use common::stacks;
use sim::app::record::Record;
use sim::channel::airtime_us;
use sim::clock::Crystal;
use sim::engine::Sim;
use sim::mac::tsch::formation::FormationParams;
use sim::mac::tsch::schedule::minimal_schedule;
use sim::mac::tsch::sync::{SyncParams, SyncStats};
use sim::mac::tsch::{Tsch, TschParams};
use sim::mac::{Mac, NodeMac};
use sim::node::app::{App, Idle};
use sim::topology::Topology;
use sim::world::World;
use sim::Time;

const SLOTFRAME: u32 = 7;
/// One slotframe of 10 ms slots: the minimal cell comes every 70 ms.
const FRAME_US: Time = 70_000;
/// An EB on the air: 47 bytes (tests/formation.rs), (6 + 47) · 32 µs.
const EB_AIR: Time = 1_696;

/// Node `node` of a network formed by scan on one channel, its EBs
/// every `eb_period_us`, its crystal pinned at `ppb`.
fn tsch(
    node: usize,
    cells: Vec<sim::mac::tsch::Cell>,
    eb_period_us: Time,
    sync: SyncParams,
) -> NodeMac {
    Tsch::new(TschParams {
        formation: Some(FormationParams {
            eb_period_us,
            ..FormationParams::contiki(node == 0)
        }),
        sync: Some(sync),
        ..TschParams::new(SLOTFRAME, cells, vec![3])
    })
    .into()
}

fn pinned(ppb: i64, keepalive_timeout_us: Time) -> SyncParams {
    SyncParams {
        crystal: Some(Crystal::with_error_ppb(ppb)),
        keepalive_timeout_us,
        ..SyncParams::contiki(20.0, 2_200)
    }
}

fn sync_of(sim: &Sim<Record>, node: usize) -> SyncStats {
    sim.stacks[node].mac.formation().unwrap().sync.unwrap()
}

fn mac(sim: &Sim<Record>, node: usize) -> &Tsch {
    let NodeMac::Tsch(t) = &sim.stacks[node].mac else {
        panic!("not TSCH")
    };
    t
}

/// Two nodes in the minimal schedule, crystals off by `ppb`, keep-alives
/// after 12 s, for an hour; run until node 1 has synchronised (1 s).
fn pair_synchronised(ppb: [i64; 2]) -> Sim<Record> {
    let cells = minimal_schedule(2);
    let macs = (0..2)
        .map(|n| {
            tsch(
                n,
                cells[n].clone(),
                3_600_000_000,
                pinned(ppb[n], 12_000_000),
            )
        })
        .collect();
    let mut sim = network(&both_ways(&[(0, 1)]), macs);
    sim.start();
    sim.run(1_000_000, |_| false);
    sim
}

fn network(links: &[(usize, usize, f64)], macs: Vec<NodeMac>) -> Sim<Record> {
    let n = macs.len();
    let topology = Topology::from_links(n, links).unwrap();
    let world = World::new(topology, 1, 0);
    let apps: Vec<Box<dyn App<Record>>> = (0..n).map(|_| Box::new(Idle) as _).collect();
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim
}

fn both_ways(pairs: &[(usize, usize)]) -> Vec<(usize, usize, f64)> {
    pairs
        .iter()
        .flat_map(|&(a, b)| [(a, b, 1.0), (b, a, 1.0)])
        .collect()
}

#[test]
fn offsets_grow_until_a_frame_falls_outside_the_guard() {
    // the root (perfect) and two nodes at +20 and -20 ppm, both hearing
    // it and each other; no keep-alives, EBs an hour apart, so nothing
    // resynchronises them after the root's first EB
    let hour = 3_600_000_000;
    let ppb = [0, 20_000, -20_000];
    let cells = minimal_schedule(3);
    let macs = (0..3)
        .map(|n| tsch(n, cells[n].clone(), hour, pinned(ppb[n], 0)))
        .collect();
    let mut sim = network(&both_ways(&[(0, 1), (0, 2), (1, 2)]), macs);
    sim.start();
    // both synchronise on the root's EB of ASN 0: 2 120 + 1 696 = 3 816 µs
    sim.run(1_000_000, |_| false);
    let synced = 2_120 + EB_AIR;
    for n in [1, 2] {
        let f = sim.stacks[n].mac.formation().unwrap();
        assert_eq!(f.synchronised_at, Some(synced));
        assert_eq!(mac(&sim, n).time_source(), Some(0));
    }
    // node 1 is 20 ppm late and node 2 20 ppm early from 3 816 µs: 40 ppm
    // apart, the guard of 1 100 µs is passed after 27.5 s. Node 1 sends
    // in the minimal cell of ASN 7k at 70 000 k + 2 120 µs, dt = 70 000 k
    // - 1 696 µs after the synchronisation: node 2 sees it 2 · ⌊dt / 50⌋ ns
    // off, heard while that is at most 1 100 000, i.e. up to k = 392
    // (dt = 27 438 304 µs, 1 097 532 ns) and missed from k = 393
    // (dt = 27 508 304 µs, 1 100 332 ns).
    let send = |sim: &mut Sim<Record>| {
        let mut cx = sim.world.cx(1);
        sim.stacks[1].mac.send(&mut cx, 2, vec![0xab; 10]);
    };
    sim.run(392 * FRAME_US - 5_000, |_| false);
    send(&mut sim);
    sim.run(392 * FRAME_US + 9_999, |_| false);
    assert_eq!(sim.stacks[2].mac.stats().data_frames_received, 1);
    assert_eq!(sync_of(&sim, 2).guard_misses, 0);
    send(&mut sim);
    sim.run(393 * FRAME_US + 2_119, |_| false);
    assert_eq!(sync_of(&sim, 2).guard_misses, 0);
    // the first miss: ASN 2 751's minimal cell, 27 512 120 µs
    sim.run(393 * FRAME_US + 2_120 + 1_000, |_| false);
    assert_eq!(sync_of(&sim, 2).guard_misses, 1);
    assert_eq!(sim.stacks[2].mac.stats().data_frames_received, 1);
    // the offsets agree: 27 508 304 µs at ±20 ppm
    let mut off = |n| sim.world.cx(n).clock_offset_ns(n, 393 * FRAME_US + 2_120);
    assert_eq!((off(1), off(2)), (550_166, -550_166));
    // node 1 retries in later minimal cells (TSCH CSMA); every one is missed
    sim.run(400 * FRAME_US, |_| false);
    assert_eq!(sim.stacks[2].mac.stats().data_frames_received, 1);
    assert!(sync_of(&sim, 2).guard_misses >= 2);
}

#[test]
fn a_keepalive_goes_at_its_timeout_and_the_ack_resynchronises() {
    // root at -20 ppm, node 1 at +20 ppm; Contiki-NG's 12 s timeout
    let mut sim = pair_synchronised([-20_000, 20_000]);
    let synced = 2_120 + EB_AIR;
    assert_eq!(mac(&sim, 1).last_sync(), Some(synced));
    // the keep-alive timer: a draw in [0.9, 1) of 12 s from the association
    let due = mac(&sim, 1).keepalive_due().unwrap();
    assert!(
        (synced + 10_800_000..synced + 12_000_000).contains(&due),
        "{due}"
    );
    // the root never sends one
    assert_eq!(mac(&sim, 0).keepalive_due(), None);
    sim.run(due + FRAME_US + 10_000, |_| false);
    // it goes in the first minimal cell from the timer: an empty data
    // frame to the root, 11 bytes (FCF 2, seq 1, PAN 2, addresses 2 + 2,
    // FCS 2), at that cell's TsTxOffset
    let cell = due.div_ceil(FRAME_US) * FRAME_US;
    let sent = sim.world.sent.as_ref().unwrap();
    let ka: Vec<_> = sent
        .iter()
        .filter(|s| s.node == 1 && s.at > synced)
        .collect();
    assert_eq!(
        ka.len(),
        2,
        "{:?}",
        ka.iter().map(|s| s.at).collect::<Vec<_>>()
    );
    // (its own first EB went at ASN 7)
    assert_eq!(ka[0].at, FRAME_US + 2_120);
    assert_eq!((ka[1].at, ka[1].frame.len()), (cell + 2_120, 11));
    let s1 = sync_of(&sim, 1);
    assert_eq!(
        (s1.keepalives_sent, s1.resyncs, s1.keepalives_failed),
        (1, 1, 0)
    );
    // the root's ACK came TsTxAckDelay after the frame's 11 · 32 + 192 µs:
    // it carried node 1's offset, 40 ppm of the time since 3 816 µs, and
    // resynchronised it
    let ack_end = cell + 2_120 + airtime_us(11) + 1_000 + airtime_us(ka_ack_len());
    assert_eq!(mac(&sim, 1).last_sync(), Some(ack_end));
    // (the root's line runs from 0 at -20 ppm, node 1's from its offset
    // at 3 816 µs, -76 ns, at +20 ppm; each grows by ⌊Δt · ppb / 10^6⌋ ns)
    let root_ns = -((ack_end as i64) * 20_000 / 1_000_000);
    let node_ns = -76 + ((ack_end - synced) as i64) * 20_000 / 1_000_000;
    let apart = (node_ns - root_ns).unsigned_abs();
    assert_eq!(s1.max_offset_us, apart.div_ceil(1_000));
    // under TsRxWait / 4 = 550 µs: the ACK corrected all of it
    // the two clocks agree again, to the half rtimer tick the correction
    // was measured in (32 768 Hz: 15 259 ns), and the next keep-alive
    // counts from the ACK
    let mut off = |n| sim.world.cx(n).clock_offset_ns(n, ack_end);
    assert!((off(1) - off(0)).abs() <= 15_259, "{} {}", off(1), off(0));
    let next = mac(&sim, 1).keepalive_due().unwrap();
    assert!((ack_end + 10_800_000..ack_end + 12_000_000).contains(&next));
}

/// An Enhanced ACK between short addresses, unsecured: FCF 2, seq 1,
/// destination PAN 2, destination 2, FCS 2, as Tsch builds it.
fn ka_ack_len() -> usize {
    let repr = wpan::frame::Repr::enh_ack(1, wpan::Address::Short(1), 0, false);
    repr.to_bytes_with_fcs().unwrap().len()
}

#[test]
fn a_node_that_loses_its_time_source_leaves_and_rejoins_through_another() {
    // 0 - 1 - 2 and 0 - 3 - 2; node 3 is not part of the network yet (it
    // synchronises but sends no EB), so node 2's only beaconing neighbour,
    // and its time source, is node 1. Crystals drawn within ±20 ppm.
    let links = both_ways(&[(0, 1), (1, 2), (0, 3), (3, 2)]);
    let cells = minimal_schedule(4);
    let eb = 4_000_000;
    let macs = (0..4)
        .map(|n| {
            let p = SyncParams::contiki(20.0, 2_200);
            tsch(n, cells[n].clone(), eb, p)
        })
        .collect();
    let mut sim = network(&links, macs);
    sim.set_joined(3, false);
    sim.start();
    let off_at = 60_000_000;
    sim.run(off_at, |_| false);
    assert_eq!(mac(&sim, 2).time_source(), Some(1));
    assert_eq!(sync_of(&sim, 2).desyncs, 0);
    // node 1 falls silent: every emission of it from now on is lost
    // (as far as its neighbours hear, it is switched off)
    let sent_by_1 = sim
        .world
        .sent
        .as_ref()
        .unwrap()
        .iter()
        .filter(|s| s.node == 1)
        .count() as u64;
    sim.world.jammed = (sent_by_1..sent_by_1 + 2_000).map(|n| (1, n)).collect();
    let last = mac(&sim, 2).last_sync().unwrap();
    // it leaves at the first slot boundary past 120 s after that
    // (TSCH_DESYNC_THRESHOLD), keep-alives unanswered in between
    let leave = (last + 120_000_000) / 10_000 * 10_000 + 10_000;
    sim.run(leave - 1, |_| false);
    assert_eq!(sync_of(&sim, 2).desyncs, 0);
    assert!(sync_of(&sim, 2).keepalives_failed >= 1);
    sim.run(leave, |_| false);
    let f2 = sim.stacks[2].mac.formation().unwrap();
    assert_eq!(f2.sync.unwrap().desyncs, 1);
    assert_eq!(f2.scanning_since, Some(leave));
    assert_eq!(mac(&sim, 2).time_source(), None);
    // no one beacons within its reach: it keeps scanning, counted
    let join_at = leave + 30_000_000;
    sim.run(join_at, |_| false);
    let f2 = sim.stacks[2].mac.formation().unwrap();
    assert_eq!(f2.sync.unwrap().rejoins, 0);
    // node 3 joins: its first EB goes in the next minimal cell, and node
    // 2, scanning on the one channel, synchronises on it 1 696 µs after
    // TsTxOffset, its time source node 3, its keys kept (no new join)
    sim.set_joined(3, true);
    let cell = join_at.div_ceil(FRAME_US) * FRAME_US;
    sim.run(cell + 100_000, |_| false);
    let g2 = sim.stacks[2].mac.formation().unwrap();
    let s2 = g2.sync.unwrap();
    assert_eq!((s2.desyncs, s2.rejoins), (1, 1));
    assert_eq!(mac(&sim, 2).time_source(), Some(3));
    assert_eq!(g2.scanning_since, None);
    let rejoined = cell + 2_120 + EB_AIR;
    assert_eq!(mac(&sim, 2).last_sync(), Some(rejoined));
    assert_eq!(g2.scan_us - f2.scan_us, rejoined - leave);
    // the first synchronisation stays the node's time to synchronised
    assert_eq!(g2.synchronised_at, f2.synchronised_at);
}

#[test]
fn the_routing_parent_becomes_the_time_source_once_it_is_heard() {
    // 0, 1 and 2 all hear each other; node 2's routing parent is node 1,
    // which is not part of the network at first: node 2 synchronises on
    // the root's EB and keeps the root as its time source until node 1's
    // first EB, which then resynchronises it
    let cells = minimal_schedule(3);
    let eb = 3_600_000_000;
    let macs = (0..3)
        .map(|n| {
            let p = SyncParams {
                parent_time_source: true,
                preferred_source: (n == 2).then_some(1),
                ..pinned([0, 10_000, -10_000][n], 0)
            };
            tsch(n, cells[n].clone(), eb, p)
        })
        .collect();
    let mut sim = network(&both_ways(&[(0, 1), (0, 2), (1, 2)]), macs);
    sim.set_joined(1, false);
    sim.start();
    sim.run(10_000_000, |_| false);
    assert_eq!(mac(&sim, 2).time_source(), Some(0));
    assert_eq!(sync_of(&sim, 2).resyncs, 0);
    // node 1 joins at 10 s: its EB in the minimal cell of ASN
    // ⌈10 s / 70 ms⌉ · 7 = 143 · 7, 10 010 000 + 2 120 µs; node 2 has it
    // 1 696 µs later (10 s · 20 ppm apart = 200 µs, inside the guard)
    sim.set_joined(1, true);
    sim.run(10_100_000, |_| false);
    assert_eq!(mac(&sim, 2).time_source(), Some(1));
    let s2 = sync_of(&sim, 2);
    assert_eq!((s2.resyncs, s2.guard_misses), (1, 0));
    let heard_at = 143 * FRAME_US + 2_120;
    assert_eq!(mac(&sim, 2).last_sync(), Some(heard_at));
    // node 2 took node 1's boundaries: 10 ppm of 10 012 120 - 3 816 µs
    // late, against its own 10 ppm early
    assert_eq!(s2.max_offset_us, 201);
}

#[test]
fn once_the_drift_is_learnt_keepalives_stretch_to_a_minute() {
    // root perfect, node 1 at +30 ppm; each keep-alive's ACK resynchronises
    // node 1 (about every 11.4 s, over the 4 s a measurement needs): the
    // first only starts learning, eight more fill the measurements, and
    // the one after finds the drift accurate: from then on keep-alives go
    // after [54, 60) s (TSCH_MAX_KEEPALIVE_TIMEOUT)
    let mut sim = pair_synchronised([0, 30_000]);
    let mut gaps = Vec::new();
    let mut resyncs = 0;
    while sim.now() < 400_000_000 {
        let due = mac(&sim, 1).keepalive_due().unwrap();
        gaps.push(due - mac(&sim, 1).last_sync().unwrap());
        sim.run(due + 200_000, |_| false);
        let s = sync_of(&sim, 1);
        assert_eq!(s.resyncs, resyncs + 1, "each keep-alive acknowledged");
        resyncs = s.resyncs;
    }
    let short = gaps.iter().take_while(|&&g| g < 12_000_000).count();
    assert_eq!(short, 1 + 9, "{gaps:?}");
    assert!(gaps[short..]
        .iter()
        .all(|g| (54_000_000..60_000_000).contains(g)));
    // before it learnt, a keep-alive found it 30 ppm of 11.4 s, 342 µs,
    // off; compensated, it stays within a few ticks of the root until the
    // next one, a minute later (uncompensated: 30 ppm of 60 s, 1.8 ms)
    assert_eq!(sync_of(&sim, 1).max_offset_us, 341);
    let due = mac(&sim, 1).keepalive_due().unwrap();
    let mut off = |n| sim.world.cx(n).clock_offset_ns(n, due);
    let apart = (off(1) - off(0)).abs();
    assert!(apart < 100_000, "{apart} ns");
}

#[test]
fn a_keepalive_never_acknowledged_moves_the_time_source_to_the_last_eb_sender() {
    // 0 - 1 - 3 and 0 - 2 - 3; node 2 joins late, so node 3 synchronises
    // on node 1's EB and hears node 2's only afterwards; then node 1 falls
    // silent. Perfect crystals: only the keep-alive rules are at work.
    let links = both_ways(&[(0, 1), (0, 2), (1, 3), (2, 3)]);
    let cells = minimal_schedule(4);
    let macs = (0..4)
        .map(|n| tsch(n, cells[n].clone(), 4_000_000, pinned(0, 12_000_000)))
        .collect();
    let mut sim = network(&links, macs);
    sim.set_joined(2, false);
    sim.start();
    sim.run(20_000_000, |_| false);
    assert_eq!(mac(&sim, 3).time_source(), Some(1));
    sim.set_joined(2, true);
    sim.run(30_000_000, |_| false);
    let sent_by_1 = (sim.world.sent.as_ref().unwrap().iter())
        .filter(|s| s.node == 1)
        .count() as u64;
    sim.world.jammed = (sent_by_1..sent_by_1 + 2_000).map(|n| (1, n)).collect();
    let before = sync_of(&sim, 3);
    assert_eq!(before.keepalives_failed, 0);
    // node 3's next keep-alive to node 1 goes unanswered through its
    // retries (tsch.c `keepalive_packet_sent`: MAC_TX_NOACK), and
    // `resynchronize` moves the time source to node 2, the last other
    // neighbour it heard an EB from, with a keep-alive to it at once,
    // which node 2 acknowledges
    sim.run(60_000_000, |_| false);
    let s3 = sync_of(&sim, 3);
    assert_eq!(mac(&sim, 3).time_source(), Some(2));
    assert_eq!(
        (s3.keepalives_failed, s3.source_switches, s3.desyncs),
        (1, 1, 0)
    );
    assert!(s3.resyncs > before.resyncs);
}
