//! cxmac rules read from Contiki 2.7's core/net/mac/cxmac.c, each checked
//! against times worked out by hand.

mod common;

use sim::app::record::Record;
use sim::channel::airtime_us;
use sim::engine::Sim;
use sim::mac::xmac::{Xmac, XmacParams};
use sim::mac::{Mac, NodeMac};
use sim::node::app::{App, Idle};
use sim::topology::Topology;

/// Node 0 wakes at 100 ms, node 1 at 40 ms (+k·125 ms); node 0 hands one
/// datagram to its MAC at 1 ms.
fn run(topology: Topology, p: XmacParams, until: u64) -> Sim<Record> {
    let at = |phase| XmacParams {
        phase_us: Some(phase),
        encounter_optimization: false,
        ..p
    };
    let macs: Vec<NodeMac> = vec![Xmac::new(at(100_000)).into(), Xmac::new(at(40_000)).into()];
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(common::ping_once()), Box::new(Idle)];
    common::run_recorded(topology, macs, apps, until)
}

#[test]
fn a_send_is_cpu_time_from_its_start_to_the_end_of_its_data_frame() {
    // Listening one strobe period (5,432 us) the train starts at 6,432 us,
    // a strobe every 5,432 us; node 1 listens over [40,000, 47,812): strobe
    // k = ceil((40,000 - 6,432) / 5,432) = 7 starts at 44,456 and ends at
    // 44,456 + 608 = 45,064 (13 bytes + 6 of PHY, 32 us each). Strobe ACK at
    // 45,064 + 192 = 45,256, data at 45,256 + 608 + 192 = 46,056; its 30
    // bytes (MHR 9, IPHC 2, UDP NHC 7, 10 of payload, FCS 2) + 6 end at
    // 46,056 + 36 x 32 = 47,208. cxmac's send_packet busy-loops from 1,000
    // us to then: 46,208 us of CPU beyond what the frames cost.
    let p = XmacParams::contiki(125_000);
    let busy = run(Topology::line(2, 1.0).unwrap(), p, 200_000);
    let idle = run(
        Topology::line(2, 1.0).unwrap(),
        XmacParams {
            busy_send_cpu: false,
            ..p
        },
        200_000,
    );
    let sent = busy.world.sent.as_ref().unwrap();
    let data = sent.iter().filter(|s| s.node == 0).nth(1).unwrap();
    assert_eq!(data.at, 46_056);
    assert_eq!(data.at + airtime_us(data.frame.len()), 47_208);
    let cpu = |s: &Sim<Record>| s.world.energest(0).times(200_000).cpu_active_us;
    assert_eq!(cpu(&busy) - cpu(&idle), 46_208);
    // the receiver sent nothing of its own: no busy time
    let rx_cpu = |s: &Sim<Record>| s.world.energest(1).times(200_000).cpu_active_us;
    assert_eq!(rx_cpu(&busy), rx_cpu(&idle));
}

#[test]
fn waiting_for_packet_keeps_the_radio_on_to_the_second_on_time_end() {
    // Node 1's strobe ACKs never reach node 0, which strobes its whole
    // train, 27 strobes ((125,000 + 18,677) / 5,432 + 1) from 6,432 us, the
    // last ending at 6,432 + 26 x 5,432 + 608 = 148,272 us, and (one
    // transmission allowed) gives the datagram up. Node 1 hears its first
    // strobe in its window at 40,000 us and answers every strobe; the last
    // sets waiting_for_packet at 148,272, in the off time: the next on time
    // ends at 165,000 + 7,812 = 172,812 (flag 2), the one after at 297,812
    // (flag 3: radio off). Its radio is on from 40,000 to 297,812 us.
    let deaf_back = Topology::from_links(2, &[(0, 1, 1.0), (1, 0, 1e-12)]).unwrap();
    let p = XmacParams {
        max_transmissions: 1,
        ..XmacParams::contiki(125_000)
    };
    let sim = run(deaf_back.clone(), p, 400_000);
    let t = sim.world.energest(1).times(400_000);
    assert_eq!(t.radio_rx_us + t.radio_tx_us, 297_812 - 40_000);
    assert_eq!(sim.stacks[0].mac.stats().drops, 1);
    // With a fixed wait of two on times (12,451 us) after the last ACK
    // (148,272 + 192): on to 160,915, then the windows at 165,000 and
    // 290,000 (7,812 us each; woken for real, not charged lazily).
    let fixed = XmacParams {
        waiting_for_packet: false,
        lazy_idle_listening: false,
        ..p
    };
    let sim = run(deaf_back, fixed, 400_000);
    let t = sim.world.energest(1).times(400_000);
    assert_eq!(t.radio_rx_us + t.radio_tx_us, 160_915 - 40_000 + 2 * 7_812);
}
