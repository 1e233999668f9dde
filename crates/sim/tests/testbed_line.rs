//! A line laid out as on a testbed: every node hears every other, the line
//! made only by the routes. The end nodes of a 3-node line then sense and
//! disturb each other, while datagrams still go through the middle node.

mod common;

use std::rc::Rc;

use dtls::{Config, RecordPacking, RetransmitPolicy};
use sim::channel::{airtime_us, Channel};
use sim::mac::xmac::XmacParams;
use sim::row::Value;
use sim::run::run_replication;
use sim::scenario::{MacSpec, Scenario, TopologySpec};
use sim::topology::{Audible, Topology};

fn frame(len: usize) -> Rc<[u8]> {
    vec![0u8; len].into()
}

#[test]
fn the_end_nodes_of_a_testbed_line_sense_and_disturb_each_other() {
    for (audible, heard) in [(Audible::All, true), (Audible::Routes, false)] {
        let topology = Topology::line_audible(3, 1.0, audible).unwrap();
        // routes are the line's either way
        assert_eq!(topology.next_hop(0, 2), Some(1));
        assert_eq!(topology.next_hop(2, 0), Some(1));
        assert_eq!(topology.hops(0, 2), Some(2));
        // CCA: node 2 senses node 0's 20-byte frame (on air [500, 1332) µs)
        let mut ch = Channel::new(topology.clone());
        ch.emit(0, 500, frame(20), 0, 1, 0);
        assert_eq!(ch.busy(2, 600, 700, 0), heard, "{audible:?}");
        // collision: node 1's 50-byte frame to node 2, on air [0, 1792) µs,
        // is overlapped there by node 0's
        let mut ch = Channel::new(topology);
        let to_2 = ch.emit(1, 0, frame(50), 0, 1, 0);
        ch.emit(0, 500, frame(20), 0, 1, 0);
        assert_eq!(airtime_us(50), 1792);
        assert_eq!(ch.interfered(2, to_2, 0, 1792), heard, "{audible:?}");
    }
}

fn handshake(audible: Audible) -> Scenario {
    let config = Config {
        packing: RecordPacking::OneRecordPerDatagram,
        retransmit: RetransmitPolicy::Tinydtls {
            initial_us: 2_000_000,
            max_retransmissions: 7,
        },
        ..Config::tightest_psk_ccm8()
    };
    common::one_psk_handshake(
        TopologySpec::Line {
            nodes: 3,
            pdr: 1.0,
            audible,
        },
        2,
        // long enough a check interval that trains are long and often overheard
        MacSpec::Xmac(XmacParams::contiki(500_000)),
        config,
        11,
    )
}

#[test]
fn a_handshake_over_a_testbed_line_is_relayed_and_overheard() {
    // no hidden terminals left on three nodes in range of each other: no
    // handshake dies of unanswered retransmissions, and none ends in
    // tinyDTLS's decrypt_error (a Finished before its ChangeCipherSpec).
    // Replication 6 did while the model let the server's timer run on past
    // the client's ClientKeyExchange and resend its hellos into the
    // client's flight; tinyDTLS clears its queue on that first message
    // (RetransmitPolicy::peer_input_clears_flight).
    let (mut completed, mut decrypt_error, mut differ) = (0, 0, 0);
    for rep in 0..8 {
        let all = run_replication(&handshake(Audible::All), rep, false, &[]).unwrap();
        let line = run_replication(&handshake(Audible::Routes), rep, false, &[]).unwrap();
        completed += i32::from(common::get(&all.rows[0], "success") == Value::Bool(true));
        decrypt_error += i32::from(
            common::get(&all.rows[0], "failure")
                == Value::Text("peer sent fatal alert DecryptError".into()),
        );
        // the relay forwards every datagram either way
        assert!(common::int(&all.rows[0], "node1_frames_sent") > 0);
        differ += i32::from(all.rows != line.rows);
    }
    assert_eq!(
        (completed, decrypt_error),
        (8, 0),
        "{completed} of 8 completed"
    );
    // the end nodes now hear each other's strobes: the runs are not the line's
    assert!(differ >= 6, "only {differ} of 8 runs changed");
}
