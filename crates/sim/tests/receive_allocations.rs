//! The receive path allocates nothing for a frame that is not for the node.
//!
//! Every node in range hears every frame; most are for someone else. This
//! binary counts heap allocations with a global allocator that wraps the
//! system's (`stats_alloc`, no unsafe code here) while a bystander's world
//! judges a reception and its MAC handles the frame, for each MAC and for
//! the frames a MAC reads even when they are for others (X-MAC strobes,
//! acknowledgements), and for a frame for the node that its MAC only looks
//! at. A data frame at its addressee allocates (its payload goes up the
//! stack), which shows the counter counts.
//!
//! One test function: the count is global to the process, so no other test
//! may run beside it.

use std::alloc::System;

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

use sim::app::record::Record;
use sim::energy::RadioState;
use sim::engine::{Sim, Stack};
use sim::mac::address::LinkAddressing;
use sim::mac::beacon::{cluster_tree, BeaconMac, BeaconParams};
use sim::mac::csma::{Csma, CsmaParams};
use sim::mac::frame::{ack_frame, build_data_frame, data_frame};
use sim::mac::security::LinkSecurity;
use sim::mac::tsch::{Cell, Tsch, TschParams};
use sim::mac::xmac::{Xmac, XmacParams};
use sim::mac::NodeMac;
use sim::net::Net;
use sim::node::app::{App, Idle};
use sim::topology::Topology;
use sim::world::World;
use wpan::security::SecurityLevel;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Nodes 0 - 1 - 2 in a line, all hearing each other's neighbours; node 1
/// sends to node 0, node 2 overhears.
const SENDER: usize = 1;
const ADDRESSEE: usize = 0;
const BYSTANDER: usize = 2;

fn sim(mac: impl Fn(usize) -> NodeMac) -> Sim<Record> {
    // a triangle, so the bystander hears the sender
    let topology = Topology::from_links(
        3,
        &[
            (0, 1, 1.0),
            (1, 0, 1.0),
            (1, 2, 1.0),
            (2, 1, 1.0),
            (0, 2, 1.0),
            (2, 0, 1.0),
        ],
    )
    .unwrap();
    let world = World::new(topology, 1, 0);
    let stacks = (0..3)
        .map(|n| Stack {
            mac: mac(n),
            net: Net::new(n, 60_000_000),
            app: Box::new(Idle) as Box<dyn App<Record>>,
        })
        .collect();
    let mut sim = Sim::new(world, stacks);
    sim.start();
    sim
}

/// Allocations while `node` judges `frame`, sent now by [`SENDER`], and its
/// MAC handles it.
fn allocations_to_receive(sim: &mut Sim<Record>, node: usize, frame: Vec<u8>) -> u64 {
    for n in [SENDER, node] {
        let mut cx = sim.world.cx(n);
        cx.tune(0);
        cx.set_radio(RadioState::Listen);
    }
    let emission = sim.world.cx(SENDER).transmit(frame);
    let region = Region::new(GLOBAL);
    let rx = sim
        .world
        .judge(node, emission, 0)
        .expect("heard: PDR 1, listening, same channel");
    sim.world.follow_train(node, emission, 0, false);
    use sim::mac::Mac;
    sim.stacks[node].mac.on_frame(&mut sim.world.cx(node), rx);
    let change = region.change();
    (change.allocations + change.reallocations) as u64
}

fn security() -> LinkSecurity {
    LinkSecurity {
        level: SecurityLevel::EncMic32,
        key_id_mode: 1,
        key: *b"0123456789abcdef",
        key_index: 1,
        frame_counter_suppressed: false,
        after_join: false,
        setup_us: 0.0,
        per_block_us: 0.0,
    }
}

fn secured_data(dst: usize) -> Vec<u8> {
    let mut sec = sim::mac::security::NodeSecurity::new(security());
    build_data_frame(
        Some(&mut sec),
        LinkAddressing::Short,
        7,
        SENDER,
        dst,
        vec![0x41; 40],
        None,
    )
    .0
}

#[test]
fn a_frame_for_another_node_costs_no_allocation() {
    let data = |dst| data_frame(7, SENDER, dst, vec![0x41; 40]);
    // X-MAC's frames (Contiki's NALP dispatch byte 0x01, then strobe 0x01 or strobe ACK 0x02)
    let strobe = |dst| data_frame(7, SENDER, dst, vec![0x01, 0x01]);
    let strobe_ack = |dst| data_frame(7, SENDER, dst, vec![0x01, 0x02]);
    let csma = |_| Csma::new(CsmaParams::default()).into();
    let csma_secured = |_| {
        Csma::new(CsmaParams {
            security: Some(security()),
            ..CsmaParams::default()
        })
        .into()
    };
    let xmac = |_| {
        Xmac::new(XmacParams {
            lazy_idle_listening: false,
            ..XmacParams::contiki(125_000)
        })
        .into()
    };
    let beacon_params = BeaconParams {
        first_beacon_us: Some(1_000_000),
        ..BeaconParams::new(6, 2)
    };
    let line = Topology::line(3, 1.0).unwrap();
    let roles = cluster_tree(&line, 0, &beacon_params).unwrap();
    let beacon = |n: usize| BeaconMac::new(beacon_params, roles[n].clone()).into();
    let tsch = |n: usize| {
        let cell = Cell {
            slot: 0,
            channel_offset: 0,
            peer: if n == ADDRESSEE { SENDER } else { ADDRESSEE },
            tx: n == SENDER,
            shared: false,
            contention: false,
        };
        Tsch::new(TschParams::new(7, vec![cell], vec![0])).into()
    };
    type Case<'a> = (
        &'a str,
        &'a dyn Fn(usize) -> NodeMac,
        &'a dyn Fn(usize) -> Vec<u8>,
    );
    let cases: [Case; 7] = [
        ("CSMA, data", &csma, &data),
        ("CSMA, ACK", &csma, &|_| ack_frame(7, false)),
        ("CSMA secured, data", &csma_secured, &secured_data),
        ("X-MAC, data", &xmac, &data),
        ("X-MAC, strobe", &xmac, &strobe),
        ("beacon-enabled, data", &beacon, &data),
        ("TSCH, data", &tsch, &data),
    ];
    for (name, mac, frame) in cases {
        let mut s = sim(mac);
        let bystander = allocations_to_receive(&mut s, BYSTANDER, frame(ADDRESSEE));
        assert_eq!(bystander, 0, "{name}: allocations at a bystander");
    }
    // A frame for the node that the MAC only looks at is read in place too:
    // a strobe ACK when no train is under way.
    let mut s = sim(xmac);
    assert_eq!(
        allocations_to_receive(&mut s, ADDRESSEE, strobe_ack(ADDRESSEE)),
        0,
        "X-MAC, a stray strobe ACK"
    );
    // the counter counts: the addressee of a data frame allocates its payload
    let mut s = sim(csma);
    assert!(allocations_to_receive(&mut s, ADDRESSEE, data(ADDRESSEE)) > 0);
}
