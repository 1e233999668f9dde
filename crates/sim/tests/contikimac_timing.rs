//! ContikiMAC unicast transmissions timed by hand: one from Contiki 3.0's
//! contikimac.c constants on a 32,768 Hz rtimer (an MSP430 platform) at
//! 8 Hz, and csma's wait between two on a Cooja mote.

mod common;

use sim::app::record::Record;
use sim::channel::{airtime_us, Airtime};
use sim::engine::Sim;
use sim::mac::contikimac::{Contikimac, ContikimacParams};
use sim::mac::{Mac, NodeMac};
use sim::node::app::{App, Idle};
use sim::topology::Topology;
use sim::world::World;

/// Node 0 wakes at 100 ms, node 1 at 40 ms (+k·125 ms); node 0 hands one
/// 10-byte datagram to its MAC at 1 ms.
fn run(until: u64) -> Sim<Record> {
    let at = |phase| ContikimacParams {
        phase_us: Some(phase),
        ..ContikimacParams::contiki_default()
    };
    let macs: Vec<NodeMac> = vec![
        Contikimac::new(at(100_000)).into(),
        Contikimac::new(at(40_000)).into(),
    ];
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(common::ping_once()), Box::new(Idle)];
    common::run_recorded(Topology::line(2, 1.0).unwrap(), macs, apps, until)
}

#[test]
fn one_unicast_train_is_answered_by_the_second_copy_the_receiver_hears() {
    // Constants (32,768 Hz rtimer): CCA_CHECK_TIME 32768/8192 = 4 ticks =
    // 122 us; CCA_SLEEP_TIME 32768/2000 = 16 ticks = 488 us; the sender's
    // six CCAs CHECK_TIME_TX = 6 x 20 = 120 ticks = 3,662 us;
    // INTER_PACKET_INTERVAL 32768/2500 = 13 ticks = 397 us, + the radio's
    // 192 us turnaround = a 589 us gap between copies.
    //
    // The 30-byte frame (MHR 9, IPHC 2, UDP NHC 7, 10 of payload, FCS 2) is
    // on the air (30 + 6) x 32 = 1,152 us; copies start 1,152 + 589 = 1,741
    // us apart. Node 0's csma sends at 1,000 us; after its CCAs the train
    // starts at 1,000 + 3,662 = 4,662 us.
    //
    // Node 1's first CCA runs over [40,000, 40,122): copy 20 is on the air
    // (4,662 + 20 x 1,741 = 39,482 to 40,634), so it stays on, having missed
    // that copy's start. Copy 21 (41,223 to 42,375) is received whole; its
    // ACK leaves 192 us later, 42,567, and ends 42,567 + (5 + 6) x 32 =
    // 42,919. It began 192 us after copy 21 ended, before node 0 looks
    // (397 us): 22 copies in all, the send over at 42,919.
    let sim = run(99_000);
    let sent = sim.world.sent.as_ref().unwrap();
    let data = sent.iter().find(|s| s.node == 0).unwrap();
    assert_eq!(data.frame.len(), 30);
    assert_eq!(airtime_us(data.frame.len()), 1_152);
    assert_eq!(data.at, 4_662);
    assert_eq!(data.period, 1_741);
    assert_eq!(data.copies, 22);
    let ack = sent.iter().find(|s| s.node == 1).unwrap();
    assert_eq!(ack.at, 42_567);
    assert_eq!(ack.frame.len(), 5);
    // radio on: node 0 from its send (1,000) to the ACK's end (42,919);
    // node 1 from its CCA (40,000) to copy 21's end (42,375), then its ACK
    let on = |n| {
        let t = sim.world.energest(n).times(99_000);
        t.radio_rx_us + t.radio_tx_us
    };
    assert_eq!(on(0), 42_919 - 1_000);
    assert_eq!(on(1), (42_375 - 40_000) + 352);
    let (tx, rx) = (sim.stacks[0].mac.stats(), sim.stacks[1].mac.stats());
    assert_eq!(tx.data_frames_sent, 22);
    assert_eq!(tx.retransmissions, 0);
    assert_eq!(rx.data_frames_received, 1);
    assert_eq!(rx.acks_sent, 1);
}

/// Contiki 3.0's ContikiMAC on a cooja mote, as scenarios/cooja-contikimac.toml
/// sets it (1 kHz rtimer and clock, 8 Hz; the measured 4 ms before and
/// between copies, software ACK 1 ms after a copy), waking at `phase`.
fn cooja(phase: u64) -> ContikimacParams {
    ContikimacParams {
        phase_us: Some(phase),
        tx_cca_us: 4_000,
        copy_gap_us: 4_000,
        ack_delay_us: 1_000,
        ack_check_us: 0,
        cooja_mote_ticks: true,
        ..ContikimacParams::contiki(1_000, 1_000, 8)
    }
}

/// Node 0 (waking at 100 ms) hands two 10-byte datagrams for node 1
/// (waking at 40 ms) to its MAC, at 1 ms and at 6 ms, while the first's
/// train is on the air; node 1 hands one for node 0 to its MAC at
/// `reply_at` (None: none). Every frame sent in the first 400 ms, as
/// (node, start, bytes, copies).
fn queued_behind_a_train(reply_at: Option<u64>) -> Vec<(usize, u64, usize, u64)> {
    let macs: Vec<NodeMac> = vec![
        Contikimac::new(cooja(100_000)).into(),
        Contikimac::new(cooja(41_000)).into(),
    ];
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(Idle), Box::new(Idle)];
    let mut world = World::new(Topology::line(2, 1.0).unwrap(), 3, 0);
    world.channel.airtime = Airtime::Cooja;
    let mut sim = Sim::new(world, common::stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim.start();
    for (node, to, at) in [(0, 1, 1_000), (0, 1, 6_000)]
        .into_iter()
        .chain(reply_at.map(|at| (1, 0, at)))
    {
        sim.run(at, |_| false);
        let mut cx = sim.world.cx(node);
        sim.stacks[node].mac.send(&mut cx, to, vec![0xAA; 10]);
    }
    sim.run(400_000, |_| false);
    let sent = sim.world.sent.as_ref().unwrap();
    sent.iter()
        .map(|s| (s.node, s.at, s.frame.len(), s.copies))
        .collect()
}

#[test]
fn a_cooja_motes_csma_timer_runs_on_its_tick() {
    // A 21-byte frame is on Cooja's air (21 - 2) x 32 = 608 us; copies
    // start 608 + 4,000 = 4,608 us apart. Node 0's first datagram: CCAs
    // from 1 ms, copies from 5,000. Node 1 wakes at 41 ms on its ticks
    // from copy 7's end (37,864): its CCA runs at 41,865, inside copy 8
    // (41,864-42,472); it receives copy 9 (46,472-47,080) and acknowledges
    // 1 ms later, 48,080; node 0 reads the ACK after copy 10, which ends
    // the train at 51,688: 11 copies.
    //
    // The second datagram, queued after the first's frame was made, waits
    // for csma's ctimer (free_packet: one CI, 125 ticks) set in the 51 ms
    // tick: it expires at the 176 ms tick, which the mote runs at the
    // sub-millisecond part of the last frame end it heard. Alone, that is
    // its own train's end: 176,688, and the train leaves after its 4 ms of
    // CCAs, at 180,688.
    let alone = queued_behind_a_train(None);
    assert_eq!(alone[..2], [(0, 5_000, 21, 11), (1, 48_080, 5, 1)]);
    assert!(alone.contains(&(0, 180_688, 21, 27)), "{alone:?}");
    // Node 1's datagram for node 0 from 60.1 ms: its copies from 64,100;
    // node 0's wake-up at 100 ms runs on its ticks from copy 7's end
    // (96,964), its CCA at 100,965 inside copy 8 (100,964-101,572); it
    // acknowledges copy 9 at 107,180 and node 1's train ends after copy 10,
    // at 110,788, the last frame end node 0 hears before its 176 ms tick:
    // the timer runs at 176,788 and the train leaves at 180,788 (not
    // 51,688 + 125,000 + 4,000 = 180,688, as a timer of exact microseconds
    // would have it).
    let replied = queued_behind_a_train(Some(60_100));
    assert!(replied.contains(&(1, 64_100, 21, 11)), "{replied:?}");
    assert!(replied.contains(&(0, 107_180, 5, 1)), "{replied:?}");
    assert!(replied.contains(&(0, 180_788, 21, 27)), "{replied:?}");
}
