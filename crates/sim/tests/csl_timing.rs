//! One CSL exchange, timed by hand: a Thread sleepy end device (node 0)
//! sends a datagram to its parent (node 1), whose echo comes back
//! synchronised to the child's next CSL sample, learnt from the CSL IE of
//! the child's frame.

mod common;

use sim::app::record::Record;
use sim::channel::airtime_us;
use sim::clock::Crystal;
use sim::engine::Sim;
use sim::mac::csl::{Csl, CslParams, Role};
use sim::mac::{Mac, NodeMac};
use sim::node::app::App;
use sim::topology::Topology;

/// OpenThread's defaults, the child's first sample at 100 ms, no random
/// CSMA backoff (macMinBE 0: a backoff of 0 periods) and perfect crystals
/// (the drift tests below pin theirs).
fn params() -> CslParams {
    CslParams {
        phase_us: Some(100_000),
        crystal: Some(Crystal::PERFECT),
        min_be: 0,
        poll_period_us: 0,
        ..CslParams::openthread()
    }
}

fn run(until: u64) -> Sim<Record> {
    run_with(params(), until)
}

/// A child (node 0) pinging its parent (node 1), both with `p`.
fn run_with(p: CslParams, until: u64) -> Sim<Record> {
    run_pair(p, p, until)
}

/// A child (node 0, with `child`) pinging its parent (node 1, with `parent`).
/// Node 0 a sleepy child of node 1, its parent.
fn child_and_parent(child: CslParams, parent: CslParams) -> Vec<NodeMac> {
    let role = |parent, children| Role { parent, children };
    vec![
        Csl::new(child, role(Some(1), vec![])).into(),
        Csl::new(parent, role(None, vec![0])).into(),
    ]
}

fn run_pair(child: CslParams, parent: CslParams, until: u64) -> Sim<Record> {
    let p = child;
    let macs = child_and_parent(p, parent);
    let apps: Vec<Box<dyn App<Record>>> = vec![
        Box::new(common::ping_once()),
        Box::new(sim::app::echo::EchoServer),
    ];
    common::run_recorded(Topology::line(2, 1.0).unwrap(), macs, apps, until)
}

#[test]
fn a_reply_meets_the_childs_next_sample() {
    // The child (period 500 ms = 3,125 x 160 us, first sample at 100,000
    // us) hands a 10-byte datagram to its MAC at 1,000 us: no backoff, CCA
    // 128 us, turnaround 192 us, on the air at 1,320 us. Its frame carries
    // the CSL IE (2 + 4 bytes and a 2-byte header termination): 30 + 8 =
    // 38 bytes, (38 + 6) x 32 = 1,408 us, ending at 2,728 us. Phase: the
    // next sample is 100,000, (100,000 - 1,320) / 160 = 616.75, so 616
    // units; the parent takes the child's samples as 1,320 + 616 x 160 =
    // 99,880 us + k x 500,000.
    //
    // The parent answers the child's 2015 frame with an Enh-Ack at 2,728 +
    // 192 = 2,920 (no IE: FC 2, seq 1, destination 2, FCS 2 = 7 bytes,
    // 416 us, to 3,336: the child's last sync). The echo (no CSL IE: 30
    // bytes, 1,152 us) is queued at 2,728; a CSL send needs CCA + turnaround + SHR/PHR
    // = 128 + 192 + 192 = 512 us before the MHR, so it goes for the sample
    // at 99,880: CCA from 99,368, on the air at 99,880 - 192 = 99,688, to
    // 100,840. The child acknowledges at 100,840 + 192 = 101,032 with an
    // Enh-Ack carrying its CSL IE: 7 + 6 = 13 bytes, 608 us, to 101,640;
    // phase (600,000 - 101,032) / 160 = 3,118.55, so 3,118: the parent now
    // expects the samples at 101,032 + 3,118 x 160 = 599,912 + k x
    // 500,000.
    //
    // The child's window around its sample at 100,000: its window was set
    // when it started, 100,000 us since its first sync at 0: drift
    // 100,000 x (20 + 20) / 10^6 = 4 us, + 2 x 100 us uncertainty = 204 us
    // each side; it opens 204 + 192 + 320 = 716 us early, at 99,284, and
    // closes (recomputed from the sync at 3,336: 96,664 x 40 / 10^6 = 3.9,
    // rounded up to 4, so again 204) 204 + 5,504 = 5,708 us after, at
    // 105,708.
    let sim = run(200_000);
    let sent = sim.world.sent.as_ref().unwrap();
    let from = |n: usize| sent.iter().filter(move |s| s.node == n).collect::<Vec<_>>();
    let (child, parent) = (from(0), from(1));
    assert_eq!(child[0].frame.len(), 38);
    assert_eq!(airtime_us(38), 1_408);
    assert_eq!(child[0].at, 1_320);
    // the CSL IE: element 0x1a, phase 616, period 3,125 (little-endian)
    let ie = &child[0].frame[9..15];
    assert_eq!(u16::from_le_bytes([ie[0], ie[1]]) & 0x7f, 4);
    assert_eq!((u16::from_le_bytes([ie[0], ie[1]]) >> 7) & 0xff, 0x1a);
    assert_eq!(u16::from_le_bytes([ie[2], ie[3]]), 616);
    assert_eq!(u16::from_le_bytes([ie[4], ie[5]]), 3_125);
    assert_eq!(parent[0].at, 2_920);
    assert_eq!(parent[0].frame.len(), 7);
    assert_eq!(airtime_us(7), 416);
    assert_eq!(parent[1].at, 99_688);
    assert_eq!(parent[1].frame.len(), 30);
    assert_eq!(child[1].at, 101_032);
    assert_eq!(child[1].frame.len(), 13);
    let ack = wpan::frame::Repr::parse(&child[1].frame[..11]).unwrap();
    assert_eq!(ack.header_ies[0].csl_fields(), Some((3_118, 3_125)));
    assert_eq!(child.len(), 2);
    // the child's radio: on from its CCA (1,000) to the ACK's end (3,336),
    // then for the window, 99,284 to 105,708 (its ACK inside it)
    let t = sim.world.energest(0).times(200_000);
    assert_eq!(
        t.radio_rx_us + t.radio_tx_us,
        (3_336 - 1_000) + (105_708 - 99_284)
    );
    let (c, p) = (sim.stacks[0].mac.stats(), sim.stacks[1].mac.stats());
    assert_eq!(
        (c.data_frames_sent, c.data_frames_received, c.acks_sent),
        (1, 1, 1)
    );
    assert_eq!(
        (p.data_frames_sent, p.data_frames_received, p.acks_sent),
        (1, 1, 1)
    );
    assert_eq!(p.retransmissions + c.retransmissions, 0);
}

#[test]
fn an_unsynchronised_parent_holds_the_frame_until_the_child_polls() {
    // No CSL (period 0): a plain sleepy end device polling every 300 ms,
    // its first poll drawn in [0, 300 ms). Its ping reaches the parent at
    // once; the parent holds the echo until the next poll, acknowledges
    // the poll with the frame-pending bit and sends the echo directly.
    let p = CslParams {
        period_us: 0,
        poll_period_us: 300_000,
        ..params()
    };
    let sim = run_with(p, 700_000);
    let (c, par) = (sim.stacks[0].mac.stats(), sim.stacks[1].mac.stats());
    assert_eq!(c.data_frames_received, 1, "the echo arrives after a poll");
    assert!(c.data_requests_sent >= 1);
    assert_eq!(par.data_frames_sent, 1);
    let sent = sim.world.sent.as_ref().unwrap();
    // the parent's ACK of the poll that found the echo waiting has the
    // frame-pending bit (frame control bit 4)
    let acks_pending = sent
        .iter()
        .filter(|s| s.node == 1 && s.frame.len() == 5 && s.frame[0] & 0x10 != 0)
        .count();
    assert_eq!(acks_pending, 1);
    // the child's radio sleeps between polls: one send and its ACK (2,272
    // us as above), two polls with theirs and the echo, about 7 ms in all;
    // the echo ends the 100 ms poll wait as soon as it arrives
    let t = sim.world.energest(0).times(700_000);
    assert_eq!(c.data_requests_sent, 2);
    assert!(t.radio_rx_us + t.radio_tx_us < 10_000);
}

#[test]
fn an_idle_childs_windows_widen_period_by_period() {
    // No traffic: the child's only sync is its start (0). Samples at 100,
    // 600, 1,100 and 1,600 ms; each window is 2 x semi + 192 + 320 + 5,504
    // us, semi = ceil(s x 40 / 10^6) + 200:
    //   s = 100,000: 4 + 200 = 204, 408 + 6,016 = 6,424
    //   s = 600,000: 24 + 200 = 224, 6,464
    //   s = 1,100,000: 44 + 200 = 244, 6,504
    //   s = 1,600,000: 64 + 200 = 264, 6,544
    // 25,936 us in all by 2 s (the next window opens at 2,100,000 - 796).
    let child = Role {
        parent: Some(1),
        children: vec![],
    };
    let parent = Role {
        parent: None,
        children: vec![0],
    };
    let macs: Vec<NodeMac> = vec![
        Csl::new(params(), child).into(),
        Csl::new(params(), parent).into(),
    ];
    let apps: Vec<Box<dyn App<Record>>> = vec![
        Box::new(sim::node::app::Idle),
        Box::new(sim::node::app::Idle),
    ];
    let sim = common::run_recorded(Topology::line(2, 1.0).unwrap(), macs, apps, 2_000_000);
    let t = sim.world.energest(0).times(2_000_000);
    assert_eq!(t.radio_tx_us, 0);
    assert_eq!(t.radio_rx_us, 6_424 + 6_464 + 6_504 + 6_544);
    // the awake parent listens all the time
    assert_eq!(
        sim.world.energest(1).times(2_000_000).radio_rx_us,
        2_000_000
    );
}

/// A 10 s CSL period whose first sample is at 9 s, and each side's crystal
/// `ppm` off (the child slow, the parent fast), so that the parent's echo
/// waits almost a whole period after the CSL IE it is aimed by.
fn drifting(ppm: i64) -> (CslParams, CslParams) {
    let p = CslParams {
        period_us: 62_500 * 160,
        phase_us: Some(9_000_000),
        ..params()
    };
    let child = CslParams {
        crystal: Some(Crystal::with_error_ppb(ppm * 1_000)),
        ..p
    };
    let parent = CslParams {
        crystal: Some(Crystal::with_error_ppb(-ppm * 1_000)),
        ..p
    };
    (child, parent)
}

#[test]
fn crystals_worse_than_the_advertised_accuracy_make_the_parent_miss() {
    // Both advertise 20 ppm, but the child's crystal is 50 ppm slow (its
    // clock reads t / 1.00005 at true time t) and the parent's 50 ppm fast
    // (t / 0.99995). The child's first sample is at 9,000,000 on its clock.
    //
    // Its ping goes on the air at 1,320 (its clock: 1,319.93, so 1,320):
    // phase (9,000,000 - 1,320) / 160 = 56,241.75, so 56,241 units. The
    // frame (38 bytes) ends at 2,728, 2,728.14 on the parent's clock, so it
    // started at 1,320 there: the parent expects the sample at 1,320 +
    // 56,241 x 160 = 8,999,880 on its clock. Its echo's CCA starts 512 us
    // earlier, at 8,999,368 on its clock = 8,999,368 x 0.99995 =
    // 8,999,368 - 449.97 = 8,998,918 true, the frame on the air at
    // 8,998,918 + 128 + 192 = 8,999,238.
    //
    // The child's window: 9,000,000 since its last sync at 0 (or 3,272
    // after the ACK: the same once rounded up), 9,000,000 x 40 / 10^6 =
    // 360 + 200 uncertainty = 560 us, plus 192 + 320 ahead: it opens at
    // 8,998,928 on its clock = 8,998,928 x 1.00005 = 8,998,928 + 449.95 =
    // 8,999,378 true, 140 us after the echo began: missed.
    //
    // The retry aims at the sample 10 s later, 18,999,880 on the parent's
    // clock: CCA at 18,999,368 x 0.99995 = 18,998,418, on the air at
    // 18,998,738; the window (18,996,728 x 40 / 10^6 = 759.9, so 760, +
    // 200 = 960; 1,472 ahead) opens at 18,998,528 x 1.00005 = 18,999,478:
    // missed by more (the clocks part by 100 us a second, the window
    // widens by 40). Then 28,998,238 and 38,997,738 (-1,449.97 and
    // -1,949.97 from the aim), both missed, and the echo is dropped.
    let (child, parent) = drifting(50);
    let sim = run_pair(child, parent, 45_000_000);
    let sent = sim.world.sent.as_ref().unwrap();
    let echoes: Vec<u64> = sent
        .iter()
        .filter(|s| s.node == 1 && s.frame.len() == 30)
        .map(|s| s.at)
        .collect();
    assert_eq!(echoes, vec![8_999_238, 18_998_738, 28_998_238, 38_997_738]);
    let (c, p) = (sim.stacks[0].mac.stats(), sim.stacks[1].mac.stats());
    assert_eq!(c.data_frames_received, 0);
    assert_eq!((p.retransmissions, p.drops), (3, 1));
}

#[test]
fn crystals_within_the_advertised_accuracy_are_always_heard() {
    // The same exchange with crystals 20 ppm off each way, what both
    // advertise: the parent's aim is 8,999,368 x 0.99998 = 8,999,368 -
    // 179.99 = 8,999,188, the echo on the air at 8,999,508; the child's
    // window opens at 8,998,928 x 1.00002 = 8,998,928 + 179.98 =
    // 8,999,108, before it. The echo (30 bytes, 1,152 us) is heard and
    // acknowledged (a 13-byte Enh-Ack) at 8,999,508 + 1,152 + 192 =
    // 9,000,852.
    let (child, parent) = drifting(20);
    let sim = run_pair(child, parent, 12_000_000);
    let sent = sim.world.sent.as_ref().unwrap();
    let at = |n: usize, len: usize| {
        sent.iter()
            .filter(|s| s.node == n && s.frame.len() == len)
            .map(|s| s.at)
            .collect::<Vec<_>>()
    };
    assert_eq!(at(1, 30), vec![8_999_508]);
    assert_eq!(at(0, 13), vec![9_000_852]);
    let p = sim.stacks[1].mac.stats();
    assert_eq!((p.retransmissions, p.drops), (0, 0));
}

#[test]
fn with_openthreads_defaults_the_parent_never_misses_in_an_hour() {
    // OpenThread's defaults (500 ms period, 20 ppm and 100 us advertised
    // each side), crystals at the worst corners of those 20 ppm (the child
    // slow, the parent fast), no polls: the child's ping at 1 ms gives the
    // parent its phase, then the parent sends it a report every 10 min.
    // Each report's Enh-Ack brings the child's CSL IE back, so the parent's
    // prediction is at most 10 min old: 600 s x 40 ppm = 24 ms of drift,
    // inside the child's window widened by the same 40 ppm.
    let p = CslParams {
        poll_period_us: 0,
        ..params()
    };
    let child = CslParams {
        crystal: Some(Crystal::with_error_ppb(20_000)),
        ..p
    };
    let parent = CslParams {
        crystal: Some(Crystal::with_error_ppb(-20_000)),
        ..p
    };
    let macs = child_and_parent(child, parent);
    let reports = sim::app::periodic::Reporter::new(sim::app::periodic::ReportParams {
        sink: 0,
        interval_us: 600_000_000,
        payload: 10,
        seed: 3,
        replication: 0,
    });
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(common::ping_once()), Box::new(reports)];
    let hour = 3_600_000_000;
    let sim = common::run_recorded(Topology::line(2, 1.0).unwrap(), macs, apps, hour);
    let (c, p) = (sim.stacks[0].mac.stats(), sim.stacks[1].mac.stats());
    assert_eq!(p.data_frames_sent, 6, "one report every 10 min");
    assert_eq!(c.data_frames_received, 6);
    assert_eq!((p.retransmissions, p.drops), (0, 0));
}
