//! One ContikiMAC unicast transmission, timed by hand from Contiki 3.0's
//! contikimac.c constants on a 32,768 Hz rtimer (an MSP430 platform) at
//! 8 Hz.

mod common;

use sim::app::record::Record;
use sim::channel::airtime_us;
use sim::engine::Sim;
use sim::mac::contikimac::{Contikimac, ContikimacParams};
use sim::mac::{Mac, NodeMac};
use sim::node::app::{App, Idle};
use sim::topology::Topology;

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
