//! One CSL exchange, timed by hand: a Thread sleepy end device (node 0)
//! sends a datagram to its parent (node 1), whose echo comes back
//! synchronised to the child's next CSL sample, learnt from the CSL IE of
//! the child's frame.

mod common;

use sim::app::record::Record;
use sim::channel::airtime_us;
use sim::engine::Sim;
use sim::mac::csl::{Csl, CslParams, Role};
use sim::mac::{Mac, NodeMac};
use sim::node::app::App;
use sim::topology::Topology;

/// OpenThread's defaults, the child's first sample at 100 ms, and no
/// random CSMA backoff (macMinBE 0: a backoff of 0 periods).
fn params() -> CslParams {
    CslParams {
        phase_us: Some(100_000),
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
    let macs: Vec<NodeMac> = vec![
        Csl::new(
            p,
            Role {
                parent: Some(1),
                children: vec![],
            },
        )
        .into(),
        Csl::new(
            p,
            Role {
                parent: None,
                children: vec![0],
            },
        )
        .into(),
    ];
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
    // The parent's ACK leaves at 2,728 + 192 = 2,920 (5 bytes, 352 us, to
    // 3,272: the child's last sync). The echo (no CSL IE: 30 bytes, 1,152
    // us) is queued at 2,728; a CSL send needs CCA + turnaround + SHR/PHR
    // = 128 + 192 + 192 = 512 us before the MHR, so it goes for the sample
    // at 99,880: CCA from 99,368, on the air at 99,880 - 192 = 99,688, to
    // 100,840. The child acknowledges at 100,840 + 192 = 101,032.
    //
    // The child's window around its sample at 100,000: its window was set
    // when it started, 100,000 us since its first sync at 0: drift
    // 100,000 x (20 + 20) / 10^6 = 4 us, + 2 x 100 us uncertainty = 204 us
    // each side; it opens 204 + 192 + 320 = 716 us early, at 99,284, and
    // closes (recomputed from the sync at 3,272: 96,728 x 40 / 10^6 = 3.9,
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
    assert_eq!(parent[0].frame.len(), 5);
    assert_eq!(parent[1].at, 99_688);
    assert_eq!(parent[1].frame.len(), 30);
    assert_eq!(child[1].at, 101_032);
    assert_eq!(child[1].frame.len(), 5);
    assert_eq!(child.len(), 2);
    // the child's radio: on from its CCA (1,000) to the ACK's end (3,272),
    // then for the window, 99,284 to 105,708 (its ACK inside it)
    let t = sim.world.energest(0).times(200_000);
    assert_eq!(
        t.radio_rx_us + t.radio_tx_us,
        (3_272 - 1_000) + (105_708 - 99_284)
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
