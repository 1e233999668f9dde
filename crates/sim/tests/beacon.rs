//! Beacon-enabled IEEE 802.15.4 against hand computation on tiny cases.
//!
//! Numbers used throughout (2.4 GHz O-QPSK, 16 µs a symbol):
//! - BO 6, SO 2: BI = 15 360 · 64 = 983 040 µs, SD = 15 360 · 4 = 61 440 µs;
//! - a backoff period is 320 µs, a CCA 128 µs, aTurnaroundTime 192 µs;
//! - a beacon without pending addresses is 13 bytes (MHR 7, superframe 2,
//!   GTS 1, pending spec 1, FCS 2): (6 + 13) · 32 = 608 µs on the air; with
//!   one short pending address 15 bytes, 672 µs;
//! - a data request (MHR 9 with PAN ID compression, command id 1, FCS 2)
//!   is 12 bytes, 576 µs; an ACK 5 bytes, 352 µs;
//! - a ping datagram of 20 bytes makes a 40-byte data frame, 1472 µs.

mod common;

use rand::RngExt;
use sim::app::echo::{EchoServer, PingClient, PingParams};
use sim::app::record::Record;
use sim::app::AppCx;
use sim::energy::RadioState;
use sim::engine::{Sim, Stack};
use sim::mac::beacon::{cluster_tree, BeaconConfigError, BeaconMac, BeaconParams, PollPolicy};
use sim::mac::Mac;
use sim::net::Net;
use sim::net::Udp;
use sim::node::app::{App, Idle};
use sim::rng::{stream, Purpose};
use sim::timer::{TimerTable, Token};
use sim::topology::Topology;
use sim::world::{Sent, World};

const BASE: u64 = 15_360;
const BI: u64 = 983_040;
const SD: u64 = 61_440;
const BP: u64 = 320;
const BEACON_AIR: u64 = 608;
const BEACON_PENDING_AIR: u64 = 672;
const POLL_AIR: u64 = 576;
const ACK_AIR: u64 = 352;
const DATA_AIR: u64 = 1472;
/// macMinLIFSPeriod: 40 symbols (after a frame longer than 18 bytes).
const LIFS: u64 = 640;

/// The first backoff boundary of a superframe starting at `sf` at or after `t`.
fn boundary(sf: u64, t: u64) -> u64 {
    sf + (t - sf).div_ceil(BP) * BP
}

fn params(min_be: u32) -> BeaconParams {
    BeaconParams {
        min_be,
        first_beacon_us: Some(0),
        ..BeaconParams::new(6, 2)
    }
}

/// A line of `n` nodes, the root (PAN coordinator) at `root`.
fn sim(
    n: usize,
    root: usize,
    p: BeaconParams,
    apps: Vec<Box<dyn App<Record>>>,
    seed: u64,
) -> Sim<Record> {
    let topology = Topology::line(n, 1.0).unwrap();
    let roles = cluster_tree(&topology, root, &p).unwrap();
    let world = World::new(topology, seed, 0);
    let stacks = apps
        .into_iter()
        .enumerate()
        .map(|(node, app)| Stack {
            mac: BeaconMac::new(p, roles[node].clone()).into(),
            net: Net::new(node, 60_000_000),
            app,
        })
        .collect();
    let mut sim = Sim::new(world, stacks);
    sim.world.sent = Some(Vec::new());
    sim.start();
    sim
}

fn ping(server: usize, first_at: u64) -> PingClient {
    PingClient::new(PingParams {
        server,
        payload: 20,
        count: 1,
        first_at,
        timeout_us: 60_000_000,
        pause_us: 1_000_000,
    })
}

fn sent(sim: &Sim<Record>) -> &[Sent] {
    sim.world.sent.as_deref().unwrap()
}

/// One hop, macMinBE 0 (no random backoff): the leaf (node 0) hands a ping
/// for its coordinator to the MAC at `at` µs; run to the end of the second
/// superframe's active period.
fn leaf_pings_its_coordinator_at(at: u64) -> Sim<Record> {
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(ping(1, at)), Box::new(EchoServer)];
    let mut s = sim(2, 1, params(0), apps, 1);
    s.run(BI + SD, |_| false);
    s
}

fn parse(s: &Sent) -> wpan::frame::Repr {
    wpan::frame::Repr::parse_with_fcs(&s.frame).unwrap()
}

fn is_beacon(s: &Sent) -> bool {
    matches!(parse(s).body, wpan::frame::Body::Beacon(_))
}

/// The first backoff draw of `node`'s MAC stream in `0..2^be` (the beacon
/// MAC draws nothing else before it).
fn first_draw(seed: u64, node: u64, be: u32) -> u64 {
    stream(seed, 0, node, Purpose::Mac).random_range(0..1u64 << be)
}

#[test]
fn beacon_timing_offsets_and_guard() {
    // Line 0 - 1 - 2, root 2: node 1 is a cluster head one SD after the
    // root, node 0 a leaf. No traffic; three beacon intervals.
    let p = params(3);
    assert_eq!(p.beacon_interval_us(), BI);
    assert_eq!(p.superframe_duration_us(), SD);
    assert_eq!(p.guard_us, 320); // 80 ppm of 0.98 s is 79 µs: one backoff period
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(Idle), Box::new(Idle), Box::new(Idle)];
    let mut s = sim(3, 2, p, apps, 1);
    let end = 3 * BI;
    s.run(end - 1, |_| false);
    let beacons: Vec<(usize, u64)> = sent(&s).iter().map(|f| (f.node, f.at)).collect();
    assert_eq!(
        beacons,
        vec![
            (2, 0),
            (1, SD),
            (2, BI),
            (1, BI + SD),
            (2, 2 * BI),
            (1, 2 * BI + SD)
        ]
    );
    for f in sent(&s) {
        let r = parse(f);
        let wpan::frame::Body::Beacon(b) = r.body else {
            panic!("only beacons: {r:?}")
        };
        assert_eq!(b.superframe.beacon_order, 6);
        assert_eq!(b.superframe.superframe_order, 2);
        assert_eq!(b.superframe.final_cap_slot, 15);
        assert_eq!(b.superframe.pan_coordinator, f.node == 2);
        assert!(b.pending_short.is_empty());
        assert_eq!(f.frame.len(), 13);
    }
    // Radio times, by hand, at the end of the third interval:
    // leaf: guard + beacon per interval; cluster head: its own beacon
    // (TX), the rest of its active period, and the parent's guard + beacon;
    // root: its beacon and the rest of its active period.
    let t: Vec<_> = (0..3).map(|n| s.world.energest(n).times(end)).collect();
    assert_eq!(t[0].radio_tx_us, 0);
    assert_eq!(t[0].radio_rx_us, 3 * (320 + BEACON_AIR));
    assert_eq!(t[1].radio_tx_us, 3 * BEACON_AIR);
    assert_eq!(t[1].radio_rx_us, 3 * (SD - BEACON_AIR + 320 + BEACON_AIR));
    assert_eq!(t[2].radio_tx_us, 3 * BEACON_AIR);
    assert_eq!(t[2].radio_rx_us, 3 * (SD - BEACON_AIR));
    // the cluster head is already up for the root's beacon at 3 BI
    let radios: Vec<_> = (0..3).map(|n| s.world.radio(n)).collect();
    assert_eq!(
        radios,
        [RadioState::Off, RadioState::Listen, RadioState::Off]
    );
    for n in 0..3 {
        assert_eq!(s.stacks[n].mac.stats().beacons_sent, [0, 3, 3][n]);
    }
}

#[test]
fn leaf_wakes_a_guard_time_before_each_beacon() {
    let p = BeaconParams {
        guard_us: 2_000,
        ..params(3)
    };
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(Idle), Box::new(Idle)];
    let mut s = sim(2, 1, p, apps, 1);
    // just before the guard window of the second beacon: only the first
    // beacon's reception (its window began at 0: the beacon is at 0)
    s.run(BI - 2_001, |_| false);
    s.settle_energy();
    assert_eq!(
        s.world.energest(0).times(BI - 2_001).radio_rx_us,
        BEACON_AIR
    );
    assert_eq!(s.world.radio(0), RadioState::Off);
    // one µs into the window the radio listens
    s.run(BI - 2_000, |_| false);
    assert_eq!(s.world.radio(0), RadioState::Listen);
    s.run(BI + BEACON_AIR, |_| false);
    assert_eq!(s.world.radio(0), RadioState::Off);
    assert_eq!(
        s.world.energest(0).times(BI + BEACON_AIR).radio_rx_us,
        BEACON_AIR + 2_000 + BEACON_AIR
    );
}

#[test]
fn one_frame_with_a_given_backoff_draw() {
    // Leaf 0 sends one ping to the root 1 at t = 1000 µs, inside the CAP of
    // the superframe at 0 (the CAP begins at the boundary after the
    // 608 µs beacon: 640 µs). Slotted CSMA/CA: the next boundary, 1280 µs;
    // `draw` backoff periods; two CCAs; the frame on the third boundary.
    for seed in [1, 2, 3, 4, 5] {
        let p = params(3);
        let draw = first_draw(seed, 0, 3);
        let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(ping(1, 1000)), Box::new(EchoServer)];
        let mut s = sim(2, 1, p, apps, seed);
        s.run(SD, |_| false);
        let data = sent(&s).iter().find(|f| f.node == 0).unwrap();
        assert_eq!(data.at, boundary(0, 1000) + (draw + 2) * BP, "seed {seed}");
        assert_eq!(data.frame.len(), 40);
        // the root's ACK on the first boundary at least a turnaround later
        let ack = sent(&s)
            .iter()
            .find(|f| f.node == 1 && f.at > data.at)
            .unwrap();
        assert_eq!(ack.frame.len(), 5);
        assert_eq!(ack.at, boundary(0, data.at + DATA_AIR + 192));
        assert_eq!(s.stacks[1].mac.stats().data_frames_received, 1);
        // the leaf's radio: off during the backoff, on from the first CCA
        // to the ACK; TX exactly the frame's airtime
        let t = s.world.energest(0).times(SD);
        assert_eq!(t.radio_tx_us, DATA_AIR);
        let listening = 2 * BP + (ack.at + ACK_AIR - data.at - DATA_AIR);
        assert_eq!(t.radio_rx_us, BEACON_AIR + listening);
    }
}

#[test]
fn a_transaction_that_does_not_fit_waits_for_the_next_cap() {
    // macMinBE 0: no random backoff. The ping is handed over at 60 000 µs:
    // boundary 60 160 µs; two CCAs + 1472 µs frame + 864 µs ACK wait would
    // end at 63 136 µs, after the CAP (61 440 µs). So the leaf waits for the
    // next beacon (at BI, received at BI + 608), and sends on the third
    // boundary of that CAP: BI + 640 + 2 · 320.
    let s = leaf_pings_its_coordinator_at(60_000);
    let data = sent(&s).iter().find(|f| f.node == 0).unwrap();
    assert_eq!(data.at, BI + 640 + 2 * BP);
    // the leaf slept meanwhile: only the two beacons, the CCAs, the ACK wait
    let t = s.world.energest(0).times(BI + SD);
    let ack = sent(&s)
        .iter()
        .find(|f| f.node == 1 && f.at > data.at)
        .unwrap();
    assert_eq!(ack.at, boundary(BI, data.at + DATA_AIR + 192));
    assert_eq!(
        t.radio_rx_us,
        BEACON_AIR + (320 + BEACON_AIR) + 2 * BP + (ack.at + ACK_AIR - data.at - DATA_AIR)
    );
}

#[test]
fn a_missed_beacon_costs_a_superframe_unless_the_cap_is_used_blind() {
    // The root's second emission, its beacon at BI, is jammed. The leaf's
    // ping is handed over at BI − 5000 µs (inactive period). The leaf gives
    // up on the beacon at BI + 4256 µs (a 127-byte frame's airtime).
    // - By default it waits for the beacon at 2 BI: 2 BI + 640 + 640.
    // - With cap_without_beacon it contends from the boundary after giving
    //   up, BI + 4480, and sends two boundaries later: BI + 5120.
    for (blind, at) in [(false, 2 * BI + 1280), (true, BI + 5120)] {
        let p = BeaconParams {
            cap_without_beacon: blind,
            ..params(0)
        };
        let topology = Topology::line(2, 1.0).unwrap();
        let roles = cluster_tree(&topology, 1, &p).unwrap();
        let mut world = World::new(topology, 1, 0);
        world.jammed = vec![(1, 1)];
        let apps: Vec<Box<dyn App<Record>>> =
            vec![Box::new(ping(1, BI - 5000)), Box::new(EchoServer)];
        let stacks = apps
            .into_iter()
            .enumerate()
            .map(|(node, app)| Stack {
                mac: BeaconMac::new(p, roles[node].clone()).into(),
                net: Net::new(node, 60_000_000),
                app,
            })
            .collect();
        let mut s = Sim::new(world, stacks);
        s.world.sent = Some(Vec::new());
        s.start();
        s.run(3 * BI, |_| false);
        assert_eq!(sent(&s)[1].at, BI, "the jammed beacon went out");
        let data = sent(&s).iter().find(|f| f.node == 0).unwrap();
        assert_eq!(data.at, at, "blind {blind}");
        assert_eq!(s.stacks[1].mac.stats().data_frames_received, 1);
    }
}

#[test]
fn a_backoff_longer_than_the_cap_pauses_and_resumes() {
    // macMinBE = macMaxBE = 8: a draw in 0..256 backoff periods. Handed
    // over at 55 000 µs, the countdown starts at boundary 55 040 µs with
    // (61 440 − 55 040) / 320 = 20 periods left in the CAP. A longer draw
    // pauses there and counts its remaining periods from the next CAP's
    // first boundary (BI + 640); a shorter one that leaves no room for the
    // frame draws again in the next CAP.
    let mut checked = [false, false];
    for seed in 1..40 {
        let p = BeaconParams {
            max_be: 8,
            ..params(8)
        };
        let draw = first_draw(seed, 0, 8);
        let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(ping(1, 55_000)), Box::new(EchoServer)];
        let mut s = sim(2, 1, p, apps, seed);
        s.run(4 * BI, |_| false);
        let data = sent(&s).iter().find(|f| f.node == 0).unwrap();
        let room = (SD - 55_040) / BP;
        // CCAs, frame, ACK wait and LIFS inside the CAP of the superframe at `sf`
        let fits = |sf: u64, cca: u64| cca + 2 * BP + DATA_AIR + 864 + LIFS <= sf + SD;
        let resumed = BI + 640 + draw.saturating_sub(room) * BP;
        if draw > room && fits(BI, resumed) {
            assert_eq!(data.at, resumed + 2 * BP, "seed {seed}");
            checked[0] = true;
        } else if draw <= room && fits(0, 55_040 + draw * BP) {
            assert_eq!(data.at, 55_040 + (draw + 2) * BP, "seed {seed}");
            checked[1] = true;
        } else {
            // paused twice, or a new draw in a later CAP
            assert!(data.at > BI, "seed {seed}");
        }
    }
    assert!(checked[0] && checked[1], "both branches seen: {checked:?}");
}

#[test]
fn indirect_transmission_poll_and_delivery() {
    // The root (node 1) pings the leaf (node 0) at 1000 µs. The frame waits
    // at the root; the beacon at BI lists 0x0001 as pending (15 bytes, 672
    // µs). With macMinBE 0 the leaf polls on the third boundary of the CAP
    // (CAP from BI + 960): BI + 1600; the root ACKs with the frame pending
    // bit on the boundary after the turnaround: BI + 2560; then sends the
    // frame with slotted CSMA/CA from the boundary after its ACK (BI +
    // 3200): BI + 3840; the leaf ACKs on BI + 5760.
    let p = params(0);
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(EchoServer), Box::new(ping(0, 1000))];
    let mut s = sim(2, 1, p, apps, 1);
    s.run(BI - 1, |_| false);
    let m = s.stacks[1].mac.as_beacon().unwrap();
    assert_eq!(m.pending_for(0), 1);
    assert!(sent(&s).iter().all(is_beacon));
    s.run(BI + SD, |_| false);
    let after: Vec<&Sent> = sent(&s).iter().filter(|f| f.at >= BI).collect();
    let beacon = parse(after[0]);
    let wpan::frame::Body::Beacon(b) = &beacon.body else {
        panic!("{beacon:?}")
    };
    assert_eq!(b.pending_short, vec![0x0001]);
    assert_eq!((after[0].node, after[0].at), (1, BI));
    assert_eq!(after[0].frame.len(), 15);
    let cap = boundary(BI, BI + BEACON_PENDING_AIR);
    assert_eq!(cap, BI + 960);
    // the data request
    let poll = parse(after[1]);
    assert_eq!((after[1].node, after[1].at), (0, cap + 2 * BP));
    assert!(matches!(
        poll.body,
        wpan::frame::Body::Command(ref c) if c.id == 0x04
    ));
    assert_eq!(after[1].frame.len(), 12);
    // its ACK, frame pending set
    let ack = parse(after[2]);
    let ack_at = boundary(BI, after[1].at + POLL_AIR + 192);
    assert_eq!((after[2].node, after[2].at), (1, ack_at));
    assert_eq!(ack_at, BI + 2560);
    assert!(ack.frame_pending);
    // the data frame
    let data_at = boundary(BI, ack_at + ACK_AIR) + 2 * BP;
    assert_eq!((after[3].node, after[3].at), (1, data_at));
    assert_eq!(data_at, BI + 3840);
    assert_eq!(after[3].frame.len(), 40);
    assert!(!parse(after[3]).frame_pending);
    // the leaf's ACK
    let leaf_ack = boundary(BI, data_at + DATA_AIR + 192);
    assert_eq!((after[4].node, after[4].at), (0, leaf_ack));
    assert_eq!(leaf_ack, BI + 5760);
    assert!(!parse(after[4]).frame_pending);
    let leaf = s.stacks[0].mac.stats();
    assert_eq!(leaf.data_requests_sent, 1);
    assert_eq!(leaf.data_frames_received, 1);
    let root = s.stacks[1].mac.as_beacon().unwrap();
    assert_eq!(root.pending_for(0), 0);
    // the echo goes back up in the same CAP and the ping completes
    s.run(10 * BI, |_| false);
    let rtt = s.recorder.ping_rtts()[0].expect("echo received");
    assert!(rtt > BI - 1000 && rtt < BI + SD, "{rtt}");
}

#[test]
fn cluster_head_superframe_at_a_chosen_offset() {
    // offset 3 SD instead of one: the cluster head's beacons at 3 SD + k BI,
    // and the leaf wakes a guard time before each of them
    let p = BeaconParams {
        offset_us: Some(3 * SD),
        ..params(3)
    };
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(Idle), Box::new(Idle), Box::new(Idle)];
    let mut s = sim(3, 2, p, apps, 1);
    s.run(BI + 3 * SD - 321, |_| false);
    assert_eq!(s.world.radio(0), RadioState::Off);
    s.run(BI + 3 * SD - 320, |_| false);
    assert_eq!(s.world.radio(0), RadioState::Listen);
    s.run(2 * BI - 1, |_| false);
    let head: Vec<u64> = sent(&s)
        .iter()
        .filter(|f| f.node == 1)
        .map(|f| f.at)
        .collect();
    assert_eq!(head, vec![3 * SD, BI + 3 * SD]);
}

#[test]
fn a_busy_channel_defers_the_second_sender() {
    // Two leaves (0, 1) that hear each other and the root 2. Leaf 0's ping
    // is handed over at 1000 µs, leaf 1's one backoff period later; with
    // macMinBE 0 leaf 0 sends on 1280 + 640 µs, and leaf 1's second CCA
    // (at 1920 µs) finds leaf 0's frame on the air: it backs off and may
    // only send once both CCAs are clear, after leaf 0's frame and its ACK,
    // on a backoff boundary.
    let links: Vec<(usize, usize, f64)> = [(0, 1), (0, 2), (1, 2)]
        .iter()
        .flat_map(|&(a, b)| [(a, b, 1.0), (b, a, 1.0)])
        .collect();
    let topology = Topology::from_links(3, &links).unwrap();
    let mut dropped = 0;
    for seed in 1..20 {
        let p = params(0);
        let roles = cluster_tree(&topology, 2, &p).unwrap();
        assert_eq!(roles[2].children, vec![0, 1]);
        let apps: Vec<Box<dyn App<Record>>> = vec![
            Box::new(ping(2, 1000)),
            Box::new(ping(2, 1000 + BP)),
            Box::new(EchoServer),
        ];
        let world = World::new(topology.clone(), seed, 0);
        let stacks = apps
            .into_iter()
            .enumerate()
            .map(|(node, app)| Stack {
                mac: BeaconMac::new(p, roles[node].clone()).into(),
                net: Net::new(node, 60_000_000),
                app,
            })
            .collect();
        let mut s = Sim::new(world, stacks);
        s.world.sent = Some(Vec::new());
        s.start();
        s.run(SD, |_| false);
        let first = sent(&s).iter().find(|f| f.node == 0).unwrap();
        assert_eq!(first.at, 1280 + 2 * BP);
        let ack = sent(&s)
            .iter()
            .find(|f| f.node == 2 && f.at > first.at)
            .unwrap();
        assert_eq!(ack.at, boundary(0, first.at + DATA_AIR + 192));
        let Some(second) = sent(&s).iter().find(|f| f.node == 1) else {
            // five busy CCAs in a row (macMaxCSMABackoffs 4, with the
            // small windows of macMinBE 0): a channel access failure
            assert_eq!(s.stacks[1].mac.stats().drops, 1, "seed {seed}");
            dropped += 1;
            continue;
        };
        assert!(second.at >= ack.at + ACK_AIR, "seed {seed}: {}", second.at);
        assert_eq!(second.at % BP, 0, "on the backoff grid");
        assert_eq!(s.stacks[2].mac.stats().data_frames_received, 2);
        assert_eq!(s.stacks[1].mac.stats().retransmissions, 0);
    }
    assert!(
        dropped < 5,
        "{dropped} of 19 seeds ended in a channel access failure"
    );
}

#[test]
fn indirect_frames_expire_after_the_persistence_time() {
    // The root's frame for the leaf is queued at 1000 µs. With a persistence
    // of one BI it is still fresh at the beacon at BI (age BI − 1000 µs) and
    // listed; with zero it has expired there and is dropped unlisted.
    for (persistence, listed) in [(1, true), (0, false)] {
        let p = BeaconParams {
            transaction_persistence_bi: persistence,
            ..params(0)
        };
        let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(EchoServer), Box::new(ping(0, 1000))];
        let mut s = sim(2, 1, p, apps, 1);
        s.run(BI + SD, |_| false);
        let beacon = sent(&s).iter().find(|f| f.at == BI).unwrap();
        let wpan::frame::Body::Beacon(b) = parse(beacon).body else {
            panic!()
        };
        assert_eq!(!b.pending_short.is_empty(), listed);
        let root = s.stacks[1].mac.stats();
        assert_eq!(root.drops, u64::from(!listed));
        assert_eq!(root.data_frames_sent, u64::from(listed));
        assert_eq!(
            s.stacks[0].mac.stats().data_requests_sent,
            u64::from(listed)
        );
    }
}

#[test]
fn a_frame_climbs_the_chain_one_superframe_per_hop() {
    // Leaf 0 pings the root 2 through cluster head 1 (macMinBE 0). The ping,
    // handed over at 1000 µs, waits for the cluster head's beacon at SD and
    // goes on the third boundary of its CAP (SD + 640 + 640); the cluster
    // head forwards it in the root's next CAP (BI + 640 + 640). The echo
    // comes back down: pending in the root's beacon at 2 BI, polled by the
    // cluster head; pending in the cluster head's beacon at 2 BI + SD,
    // polled by the leaf: the round trip ends inside that active period.
    let p = params(0);
    let apps: Vec<Box<dyn App<Record>>> = vec![
        Box::new(ping(2, 1000)),
        Box::new(Idle),
        Box::new(EchoServer),
    ];
    let mut s = sim(3, 2, p, apps, 1);
    s.run(3 * BI, |_| false);
    let data: Vec<&Sent> = sent(&s).iter().filter(|f| f.frame.len() > 20).collect();
    assert_eq!((data[0].node, data[0].at), (0, SD + 1280));
    assert_eq!((data[1].node, data[1].at), (1, BI + 1280));
    // down: the root's frame after the cluster head's poll, the cluster
    // head's after the leaf's
    assert_eq!(data[2].node, 2);
    assert!(data[2].at > 2 * BI && data[2].at < 2 * BI + SD);
    assert_eq!(data[3].node, 1);
    assert!(data[3].at > 2 * BI + SD && data[3].at < 2 * BI + 2 * SD);
    let rtt = s.recorder.ping_rtts()[0].expect("echo received");
    assert!(
        rtt + 1000 > 2 * BI + SD && rtt + 1000 < 2 * BI + 2 * SD,
        "{rtt}"
    );
    // the cluster head polled once, the leaf once
    assert_eq!(s.stacks[1].mac.stats().data_requests_sent, 1);
    assert_eq!(s.stacks[0].mac.stats().data_requests_sent, 1);
    assert_eq!(s.stacks[1].mac.stats().beacons_sent, 3);
}

#[test]
fn superframe_order_along_the_chain_sets_which_way_is_fast() {
    // Chain 0 - 1 - 2 - 3 (root), macMinBE 0, a ping from the leaf handed
    // over at 3 BI + 1000 µs; each hop's frame goes on the third boundary of
    // the CAP (beacon 608 µs, CAP from 640 µs): sf + 1280 µs.
    // - one SD after the parent (default): cluster heads 2 and 1 at SD and
    //   2 SD; the frame climbs one hop per BI: 3 BI + 2 SD, 4 BI + SD, 5 BI;
    // - BI − SD after it: 2 at BI − SD, 1 at 2 BI − 2 SD (mod BI: −SD and
    //   −2 SD); the frame climbs the chain within one active period each:
    //   4 BI − 2 SD, 4 BI − SD, 4 BI.
    for (offset, expect) in [
        (None, [3 * BI + 2 * SD, 4 * BI + SD, 5 * BI]),
        (Some(BI - SD), [4 * BI - 2 * SD, 4 * BI - SD, 4 * BI]),
    ] {
        let p = BeaconParams {
            offset_us: offset,
            ..params(0)
        };
        let apps: Vec<Box<dyn App<Record>>> = vec![
            Box::new(ping(3, 3 * BI + 1000)),
            Box::new(Idle),
            Box::new(Idle),
            Box::new(EchoServer),
        ];
        let mut s = sim(4, 3, p, apps, 1);
        s.run(6 * BI, |_| false);
        let up: Vec<(usize, u64)> = sent(&s)
            .iter()
            .filter(|f| f.frame.len() > 20 && f.node < 3 && f.at > 3 * BI)
            .map(|f| (f.node, f.at))
            .take(3)
            .collect();
        let want: Vec<(usize, u64)> = (0..3).map(|n| (n, expect[n] + 1280)).collect();
        assert_eq!(up, want, "offset {offset:?}");
    }
}

#[test]
fn refuses_active_periods_that_do_not_fit() {
    // 4 hops: coordinators at depths 0..3, superframes SD apart; with SO 3
    // (SD 122.88 ms) and BO 4 (BI 245.76 ms) depth 2 starts at 2 SD = BI,
    // on top of the root.
    let t = Topology::line(5, 1.0).unwrap();
    let p = BeaconParams::new(4, 3);
    assert_eq!(
        cluster_tree(&t, 4, &p),
        Err(BeaconConfigError::ActivePeriodsOverlap {
            depths: (0, 2),
            offset_us: 122_880,
            sd_us: 122_880,
            bi_us: 245_760,
        })
    );
    // BO 5: four active periods of SD fill BI exactly
    assert!(cluster_tree(&t, 4, &BeaconParams::new(5, 3)).is_ok());
    // one hop fits: only the root coordinates
    assert!(cluster_tree(&Topology::line(2, 1.0).unwrap(), 1, &p).is_ok());
    // a cluster head closer than one SD to its parent is refused
    let close = BeaconParams {
        offset_us: Some(1_000),
        ..BeaconParams::new(8, 2)
    };
    assert!(matches!(
        cluster_tree(&t, 4, &close),
        Err(BeaconConfigError::ActivePeriodsOverlap { depths: (0, 1), .. })
    ));
    // superframes going backwards round the interval: BI − SD per hop puts
    // depth d at BI − d SD; fits while 4 SD <= BI
    let backwards = |bo| BeaconParams {
        offset_us: Some((BASE << bo) - SD),
        ..BeaconParams::new(bo, 2)
    };
    let roles = cluster_tree(&t, 4, &backwards(4)).unwrap();
    assert_eq!(roles[3].own_first_sf_us, Some((BASE << 4) - SD));
    assert!(cluster_tree(&t, 4, &backwards(3)).is_err()); // 4 SD > BI = 2 SD
    let bad = BeaconParams::new(3, 4);
    assert_eq!(
        cluster_tree(&t, 4, &bad),
        Err(BeaconConfigError::Orders { bo: 3, so: 4 })
    );
    // the roles: parents towards the root, superframes one SD apart
    let roles = cluster_tree(&t, 4, &BeaconParams::new(8, 2)).unwrap();
    assert_eq!(roles[0].parent, Some((1, 3 * SD)));
    assert_eq!(roles[0].own_first_sf_us, None);
    assert_eq!(roles[1].own_first_sf_us, Some(3 * SD));
    assert_eq!(roles[3].own_first_sf_us, Some(SD));
    assert_eq!(roles[4].own_first_sf_us, Some(0));
    assert!(roles[4].pan_coordinator && roles[4].parent.is_none());
    assert_eq!(roles[2].children, vec![1]);
}

#[test]
fn max_frame_total_wait_by_the_formula() {
    // 802.15.4-2006 §7.4.2 with the defaults: m = min(5 − 3, 4) = 2;
    // (2^3 + 2^4 + (2^5 − 1)(4 − 2)) = 86 backoff periods = 1720 symbols,
    // + phyMaxFrameDuration 266 symbols = 1986 symbols = 31 776 µs.
    assert_eq!(BeaconParams::new(6, 2).frame_wait(), 31_776);
}

mod dtls_over_beacons {
    use dtls::{Config, RecordPacking, RetransmitPolicy};
    use sim::mac::beacon::BeaconParams;
    use sim::row::Value;
    use sim::run::run_replication;
    use sim::scenario::{MacSpec, Scenario, TopologySpec, Workload};
    use sim::world::Processing;

    pub fn scenario(hops: usize, bo: u8, so: u8) -> Scenario {
        let config = Config {
            packing: RecordPacking::OneRecordPerDatagram,
            // long enough that beacon intervals do not cause spurious retransmissions
            retransmit: RetransmitPolicy::Fixed {
                interval_us: 300_000_000,
                max_retransmissions: 3,
            },
            ..Config::tightest_psk_ccm8()
        };
        Scenario {
            max_time_us: 3_600_000_000,
            ..crate::common::one_psk_handshake(
                TopologySpec::line(hops + 1, 1.0),
                hops,
                MacSpec::Beacon(BeaconParams::new(bo, so)),
                config,
                5,
            )
        }
    }

    pub fn get(row: &[(String, Value)], key: &str) -> Value {
        row.iter()
            .find(|(k, _)| k == key)
            .unwrap_or_else(|| panic!("no column {key}"))
            .1
            .clone()
    }

    pub fn float(v: Value) -> f64 {
        match v {
            Value::Float(f) => f,
            other => panic!("{other:?}"),
        }
    }

    pub fn int(v: Value) -> i64 {
        match v {
            Value::Int(i) => i,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn handshake_over_one_and_three_hops() {
        let mut durations = Vec::new();
        for hops in [1, 3] {
            let s = scenario(hops, 6, 2);
            let r = run_replication(&s, 0, false, &[]).unwrap();
            let row = &r.rows[0];
            assert_eq!(get(row, "success"), Value::Bool(true), "{hops} hops");
            assert_eq!(int(get(row, "dtls_retransmissions")), 0);
            let d = float(get(row, "duration_s"));
            // Every datagram down waits for a beacon at each hop: at least
            // one BI per downward hop per server flight datagram.
            assert!(d > 0.983 * hops as f64, "{hops} hops: {d} s");
            assert!(int(get(row, "node0_data_requests_sent")) > 0);
            assert!(int(get(&r.rows[0], &format!("node{hops}_beacons_sent"))) > 0);
            assert_eq!(int(get(row, "node0_beacons_sent")), 0);
            durations.push(d);
            // same seed, same everything
            let again = run_replication(&s, 0, false, &[]).unwrap();
            assert_eq!(r.rows, again.rows);
            assert_eq!(r.events, again.events);
        }
        assert!(durations[1] > durations[0], "{durations:?}");
    }

    #[test]
    fn rfc6347_timer_fires_spuriously_with_long_beacon_intervals() {
        // BO 8: a beacon every 3.93 s, so every datagram down waits seconds
        // for its beacon; RFC 6347's 1 s initial timer expires before the
        // server's flights arrive, although no frame is lost (PDR 1).
        let mut s = scenario(1, 8, 2);
        let patient = run_replication(&s, 0, false, &[]).unwrap();
        assert_eq!(int(get(&patient.rows[0], "dtls_retransmissions")), 0);
        let Workload::Handshakes { client, server, .. } = &mut s.workload else {
            unreachable!()
        };
        client.config.retransmit = RetransmitPolicy::RFC6347;
        server.config.retransmit = RetransmitPolicy::RFC6347;
        let r = run_replication(&s, 0, false, &[]).unwrap();
        let row = &r.rows[0];
        assert_eq!(get(row, "success"), Value::Bool(true));
        assert!(int(get(row, "dtls_retransmissions")) > 0);
        // the duplicates queue at the coordinator ahead of what is needed
        let patient_s = float(get(&patient.rows[0], "duration_s"));
        assert!(float(get(row, "duration_s")) > patient_s, "{patient_s}");
    }

    #[test]
    fn no_inactive_period_when_bo_equals_so() {
        // BO = SO: one superframe ends as the next beacon goes out
        for (bo, so) in [(2, 2), (0, 0)] {
            let r = run_replication(&scenario(1, bo, so), 0, false, &[]).unwrap();
            let row = &r.rows[0];
            assert_eq!(get(row, "success"), Value::Bool(true), "BO {bo}");
            // the root's radio is never off (0.001 mA at 2.8 V: 2.8 nJ a ms)
            let off_ms = float(get(row, "node1_radio_off_uj")) / 0.0028;
            let duration_ms = float(get(row, "duration_s")) * 1e3;
            assert!(duration_ms > 10.0);
            assert!(off_ms < 1e-6, "BO {bo}: radio off {off_ms} ms");
            // the leaf's is, between beacons and transactions
            let leaf_off_ms = float(get(row, "node0_radio_off_uj")) / 0.0028;
            assert!(leaf_off_ms > 0.1 * duration_ms, "BO {bo}: {leaf_off_ms} ms");
        }
    }

    #[test]
    fn lossy_chain_every_frame_inside_an_active_period() {
        // Three hops at PDR 0.8, link-layer security, cluster heads after
        // and before their parents, CAPs used after missed beacons or not,
        // 4 replications each: the
        // handshakes complete (the MAC retries, DTLS covers the rest), and
        // every frame lies inside the active period of its sender's own
        // superframe (beacons, frames down, ACKs of frames up) or of its
        // parent's (frames up, polls, ACKs of frames down).
        use sim::channel::airtime_us;
        use sim::mac::beacon::cluster_tree;
        use sim::mac::security::LinkSecurity;
        use sim::topology::Topology;
        use wpan::security::SecurityLevel;
        let hops = 3;
        let mut s = scenario(hops, 6, 1);
        if let sim::scenario::TopologySpec::Line { pdr, .. } = &mut s.topology {
            *pdr = 0.8;
        }
        let Workload::Handshakes { client, server, .. } = &mut s.workload else {
            unreachable!()
        };
        for c in [&mut client.config, &mut server.config] {
            c.retransmit = RetransmitPolicy::Fixed {
                interval_us: 60_000_000,
                max_retransmissions: 8,
            };
        }
        let MacSpec::Beacon(p) = &mut s.mac else {
            unreachable!()
        };
        p.security = Some(LinkSecurity {
            level: SecurityLevel::EncMic32,
            key_id_mode: 1,
            key: [3; 16],
            key_index: 1,
            frame_counter_suppressed: false,
            after_join: false,
            setup_us: 50.0,
            per_block_us: 10.0,
        });
        let (bi, sd) = (p.beacon_interval_us(), p.superframe_duration_us());
        let inside = |first: Option<u64>, a: u64, b: u64| {
            first.is_some_and(|f| a >= f && (a - f) % bi + (b - a) <= sd)
        };
        let mut phases = std::collections::BTreeSet::new();
        for (rep, offset) in (0..16).map(|r| (r, [None, Some(bi - sd)][r as usize % 2])) {
            let MacSpec::Beacon(p) = &mut s.mac else {
                unreachable!()
            };
            p.offset_us = offset;
            p.cap_without_beacon = rep % 4 >= 2;
            let mut p = *p;
            let r = run_replication(&s, rep, true, &[]).unwrap();
            // the schedule's phase, drawn for this replication: the root's
            // first emission is its first beacon
            let frames = r.frames.as_ref().unwrap();
            let first = frames.iter().find(|f| f.node == hops).unwrap().at;
            assert!(first < bi);
            phases.insert(first);
            p.first_beacon_us = Some(first);
            let roles = cluster_tree(&Topology::line(hops + 1, 0.8).unwrap(), hops, &p).unwrap();
            assert_eq!(get(&r.rows[0], "success"), Value::Bool(true), "rep {rep}");
            for f in r.frames.unwrap() {
                let (a, b) = (f.at, f.at + airtime_us(f.frame.len()));
                let role = &roles[f.node];
                let own = role.own_first_sf_us;
                let parent = role.parent.map(|(_, first)| first);
                assert!(
                    inside(own, a, b) || inside(parent, a, b),
                    "rep {rep}: node {} frame [{a}, {b})",
                    f.node
                );
            }
        }
        // a phase of its own for every replication
        assert_eq!(phases.len(), 16);
    }

    #[test]
    fn handshakes_back_to_back() {
        let mut s = scenario(2, 5, 2);
        let Workload::Handshakes {
            count, pause_us, ..
        } = &mut s.workload
        else {
            unreachable!()
        };
        *count = 6;
        *pause_us = 100_000;
        // with CPU time per received frame and Contiki's 1/128 s timer ticks
        s.processing = Processing {
            frame_us: 167.0,
            bus_us_per_byte: 5.25,
        };
        s.timer_tick_us = 7_812;
        let r = run_replication(&s, 0, false, &[]).unwrap();
        assert_eq!(r.rows.len(), 6);
        let bi = 0.49152;
        for row in &r.rows {
            assert_eq!(get(row, "success"), Value::Bool(true));
            // three flights down, each waiting for a beacon at each hop
            let d = float(get(row, "duration_s"));
            assert!(d > 2.0 * bi && d < 12.0 * bi, "{d} s");
        }
    }

    #[test]
    fn server_on_a_leaf_of_the_root() {
        // 0 (client) - 1 (cluster head) - 2 (PAN coordinator) - 3 (server):
        // frames go up twice and down once; the root does not run DTLS
        let mut s = scenario(3, 6, 2);
        let MacSpec::Beacon(p) = &mut s.mac else {
            unreachable!()
        };
        p.pan_coordinator = Some(2);
        let r = run_replication(&s, 0, false, &[]).unwrap();
        let row = &r.rows[0];
        assert_eq!(get(row, "success"), Value::Bool(true));
        assert_eq!(int(get(row, "node3_beacons_sent")), 0);
        assert!(int(get(row, "node2_beacons_sent")) > 0);
        assert!(int(get(row, "node1_beacons_sent")) > 0);
        assert!(int(get(row, "node3_data_requests_sent")) > 0);
    }

    #[test]
    fn an_unknown_pan_coordinator_or_bad_orders_are_refused() {
        let mut s = scenario(1, 6, 2);
        let MacSpec::Beacon(p) = &mut s.mac else {
            unreachable!()
        };
        p.pan_coordinator = Some(9);
        let e = run_replication(&s, 0, false, &[]).err().unwrap();
        assert_eq!(
            e.to_string(),
            "beacon-enabled MAC: PAN coordinator node 9 is not one of the 2 nodes"
        );
        // orders out of range are refused before anything uses them
        let MacSpec::Beacon(p) = &mut s.mac else {
            unreachable!()
        };
        p.pan_coordinator = None;
        p.beacon_order = 60;
        let e = run_replication(&s, 0, false, &[]).err().unwrap();
        assert_eq!(
            e.to_string(),
            "beacon-enabled MAC: need 0 <= SO <= BO <= 14, got BO = 60, SO = 2"
        );
    }

    #[test]
    fn handshake_with_link_layer_security_over_two_hops() {
        use sim::mac::security::LinkSecurity;
        use wpan::security::SecurityLevel;
        let mut s = scenario(2, 6, 2);
        let MacSpec::Beacon(p) = &mut s.mac else {
            unreachable!()
        };
        p.security = Some(LinkSecurity {
            level: SecurityLevel::EncMic64,
            key_id_mode: 1,
            key: [7; 16],
            key_index: 1,
            frame_counter_suppressed: false,
            after_join: false,
            setup_us: 100.0,
            per_block_us: 20.0,
        });
        let r = run_replication(&s, 0, true, &[]).unwrap();
        let row = &r.rows[0];
        assert_eq!(get(row, "success"), Value::Bool(true));
        for n in 0..3 {
            for k in ["ll_refused_mic", "ll_refused_replay", "ll_refused_level"] {
                assert_eq!(int(get(row, &format!("node{n}_{k}"))), 0, "node{n}_{k}");
            }
        }
        // every data frame secured, beacons, polls and ACKs not
        for f in r.frames.unwrap() {
            let layout = wpan::frame::Layout::parse_secured(&f.frame[..f.frame.len() - 2]).unwrap();
            let data = layout.frame_type == wpan::frame::FrameType::Data;
            assert_eq!(layout.aux_offset.is_some(), data, "{layout:?}");
        }
    }
}

mod pcap {
    use super::dtls_over_beacons::scenario;
    use sim::run::run_replication;
    use std::process::Command;
    use wpan::pcap::PcapWriter;

    fn have_tshark() -> bool {
        let ok = Command::new("tshark").arg("--version").output().is_ok();
        if !ok {
            if std::env::var("DTLSIM_REQUIRE_PEERS").as_deref() == Ok("1") {
                panic!(
                    "tshark is not on PATH (DTLSIM_REQUIRE_PEERS=1); scripts/setup.sh installs it"
                );
            }
            eprintln!("\n!!!!!!!! SKIPPED: tshark is not on PATH; the beacon pcap was not dissected !!!!!!!!\n");
        }
        ok
    }

    #[test]
    fn a_beacon_enabled_run_dissects_in_tshark() {
        if !have_tshark() {
            return;
        }
        // two hops: the PAN coordinator (node 2), a cluster head (node 1)
        let s = scenario(2, 6, 2);
        let r = run_replication(&s, 0, true, &[]).unwrap();
        let path = std::env::temp_dir().join(format!("dtlsim-beacon-{}.pcap", std::process::id()));
        let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
        for f in r.frames.as_ref().unwrap() {
            w.write_frame(f.at, &f.frame).unwrap();
        }
        w.into_inner().unwrap();
        let fields = [
            "frame.protocols",
            "wpan.fcs_ok",
            "wpan.frame_type",
            "wpan.src16",
            "wpan.beacon_order",
            "wpan.superframe_order",
            "wpan.cap",
            "wpan.bcn_coord",
            "wpan.pending16",
            "wpan.cmd",
            "wpan.pending",
            "dtls.handshake.type",
        ];
        let mut cmd = Command::new("tshark");
        cmd.arg("-r").arg(&path).args(["-T", "fields"]);
        for f in fields {
            cmd.args(["-e", f]);
        }
        let out = cmd.output().expect("run tshark");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let _ = std::fs::remove_file(&path);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(rows.len(), r.frames.as_ref().unwrap().len());
        assert!(
            rows.iter().all(|r| r[1] == "1" || r[1] == "True"),
            "every FCS good"
        );
        // tshark prints the frame type as 0x0000 (beacon) .. 0x0003 (command)
        let frame_type =
            |r: &Vec<&str>| u32::from_str_radix(r[2].trim_start_matches("0x"), 16).ok();
        let beacons: Vec<&Vec<&str>> = rows.iter().filter(|r| frame_type(r) == Some(0)).collect();
        assert!(beacons.len() > 4);
        for b in &beacons {
            assert_eq!((b[4], b[5], b[6]), ("6", "2", "15"), "{b:?}");
            // the PAN coordinator (short address 0x0003) says so; the cluster head does not
            let pan_coordinator = b[3] == "0x0003";
            assert_eq!(b[7], if pan_coordinator { "1" } else { "0" }, "{b:?}");
        }
        // pending addresses: the cluster head (0x0002) in the root's beacons,
        // the client (0x0001) in the cluster head's
        assert!(beacons.iter().any(|b| b[3] == "0x0003" && b[8] == "0x0002"));
        assert!(beacons.iter().any(|b| b[3] == "0x0002" && b[8] == "0x0001"));
        let polls = rows.iter().filter(|r| r[9] == "0x04").count();
        assert!(polls >= 2, "{polls} data requests");
        // an ACK of a poll with the frame pending bit set
        assert!(rows
            .iter()
            .any(|r| frame_type(r) == Some(2) && (r[10] == "1" || r[10] == "True")));
        let dtls: Vec<&Vec<&str>> = rows
            .iter()
            .filter(|r| r[0] == "wpan:6lowpan:ipv6:udp:dtls")
            .collect();
        let types: std::collections::BTreeSet<&str> = dtls
            .iter()
            .flat_map(|r| r[11].split(','))
            .filter(|t| !t.is_empty())
            .collect();
        for t in ["1", "3", "2", "14", "16"] {
            assert!(types.contains(t), "handshake type {t} in {types:?}");
        }
    }
}

/// Hands `count` datagrams for `to` to the network at once, at `at`.
struct Burst {
    to: usize,
    count: usize,
    at: u64,
}

sim::timer_kinds! {
    enum Go {
        Now,
    }
}

impl App<Record> for Burst {
    fn start(&mut self, cx: &mut AppCx) {
        TimerTable::new().set(cx, Go::Now, self.at);
    }
    fn on_udp(&mut self, _: &mut AppCx, _: Udp) {}
    fn on_timer(&mut self, cx: &mut AppCx, _: Token) {
        for i in 0..self.count {
            cx.send(self.to, 9, 9, vec![i as u8; 20]);
        }
    }
}

/// What each node sent from `from` on: (node, at, frame length, frame pending bit).
fn frames_from(s: &Sim<Record>, from: u64) -> Vec<(usize, u64, usize, bool)> {
    sent(s)
        .iter()
        .filter(|f| f.at >= from && !is_beacon(f))
        .map(|f| (f.node, f.at, f.frame.len(), parse(f).frame_pending))
        .collect()
}

#[test]
fn two_pending_frames_under_each_poll_policy() {
    // The root (node 1) has two datagrams for the leaf (node 0) from 1000
    // µs on; macMinBE 0, so no random backoff: a transaction sends on the
    // third backoff boundary from where it starts (CCA, CCA, frame). The
    // beacon at BI lists 0x0001 (672 µs); the CAP starts at BI + 960.
    //   data request  BI + 960 + 2·320                         = BI + 1600
    //   its ACK (pending) boundary(1600 + 576 + 192 = 2368)    = BI + 2560
    //   frame 1 (pending bit: one more waits)
    //                 boundary(2560 + 352 = 2912) + 2·320      = BI + 3840
    //   leaf's ACK    boundary(3840 + 1472 + 192 = 5504)       = BI + 5760
    // Standard (§7.5.6.3): the leaf polls again once its ACK is out (ends
    // BI + 6112):
    //   data request  boundary(6112) + 2·320                   = BI + 7040
    //   its ACK       boundary(7040 + 576 + 192 = 7808)        = BI + 8000
    //   frame 2       boundary(8000 + 352 = 8352) + 2·320      = BI + 9280
    //   leaf's ACK    boundary(9280 + 1472 + 192 = 10944)      = BI + 11200
    // Once per beacon: frame 2 waits for the beacon at 2 BI, which lists
    // the leaf again; the same four steps as for frame 1, one BI later.
    let first = |sf: u64| {
        vec![
            (0, sf + 1600, 12, false),
            (1, sf + 2560, 5, true),
            (1, sf + 3840, 40, true),
            (0, sf + 5760, 5, false),
        ]
    };
    let second = |sf: u64, at: [u64; 4]| {
        vec![
            (0, sf + at[0], 12, false),
            (1, sf + at[1], 5, true),
            (1, sf + at[2], 40, false),
            (0, sf + at[3], 5, false),
        ]
    };
    for (poll, expected, polls_in_first_cap) in [
        (
            PollPolicy::Standard,
            [first(BI), second(BI, [7040, 8000, 9280, 11200])].concat(),
            2,
        ),
        (
            PollPolicy::OncePerBeacon,
            [first(BI), second(2 * BI, [1600, 2560, 3840, 5760])].concat(),
            1,
        ),
    ] {
        let p = BeaconParams { poll, ..params(0) };
        let burst = Burst {
            to: 0,
            count: 2,
            at: 1000,
        };
        let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(Idle), Box::new(burst)];
        let mut s = sim(2, 1, p, apps, 1);
        s.run(BI + SD, |_| false);
        assert_eq!(
            s.stacks[0].mac.stats().data_requests_sent,
            polls_in_first_cap,
            "{poll:?}"
        );
        s.run(3 * BI, |_| false);
        assert_eq!(frames_from(&s, BI), expected, "{poll:?}");
        assert_eq!(s.stacks[0].mac.stats().data_frames_received, 2);
        let root = s.stacks[1].mac.as_beacon().unwrap();
        assert_eq!(root.pending_for(0), 0);
        // the beacon at 2 BI lists the leaf only if frame 2 was still waiting
        let b2 = sent(&s).iter().find(|f| f.at == 2 * BI).unwrap();
        let wpan::frame::Body::Beacon(b) = parse(b2).body else {
            panic!("a beacon at 2 BI")
        };
        assert_eq!(
            b.pending_short.len(),
            usize::from(poll == PollPolicy::OncePerBeacon)
        );
    }
}

#[test]
fn the_interframe_space_must_fit_in_the_cap_too() {
    // macMinBE 0. The ping (a 40-byte frame: LIFS, 640 µs) is handed over
    // at 58 000 µs; the backoff ends on boundary 58 240. Two CCAs (640),
    // the frame (1472) and the ACK wait (864) would end at 61 216, inside
    // the CAP (61 440); with the LIFS, at 61 856, after it (§7.5.1.1). So
    // the frame waits for the next CAP: BI + 640 + 2 · 320.
    let s = leaf_pings_its_coordinator_at(58_000);
    let data = sent(&s).iter().find(|f| f.node == 0).unwrap();
    assert_eq!(data.frame.len(), 40);
    const { assert!(58_240 + 2 * BP + DATA_AIR + 864 <= SD) };
    const { assert!(58_240 + 2 * BP + DATA_AIR + 864 + LIFS > SD) };
    assert_eq!(data.at, BI + 640 + 2 * BP);
}
