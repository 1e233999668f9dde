//! MSF (RFC 9033) and 6P (RFC 8480) driving a TSCH network: the frames of
//! a 6P ADD byte for byte, the autonomous cell of a node's address, and a
//! line whose negotiated cells follow its traffic.

mod common;

use common::{stacks, wismote_like_power};
use sim::app::record::Record;
use sim::engine::Sim;
use sim::mac::address::LinkAddressing;
use sim::mac::security::extended_addr;
use sim::mac::tsch::msf::{autonomous_cell, NUM_CH_OFFSET, SLOTFRAME_LENGTH};
use sim::mac::tsch::msf_node::{ie_content, sixp_timeout_us};
use sim::mac::tsch::sixtop_frame;
use sim::mac::{Mac, NodeMac};
use sim::node::app::{App, Idle};
use sim::scenario::{MacSpec, TschSchedule, TschSpec};
use sim::topology::Topology;
use sim::world::World;
use wpan::sixtop::{Cell, CellOptions, Message, ReplyBody, Repr, Request, ReturnCode};

fn msf_spec() -> MacSpec {
    MacSpec::Tsch(TschSpec::new(101, TschSchedule::Msf))
}

#[test]
fn the_autonomous_cell_of_a_node_address_by_hand() {
    // node 0's EUI-64 is 02-12-4b-00-00-00-00-01; SAX (RFC 9033 §3, v 0,
    // l_bit 5, r_bit 2), h' = h ^ ((h << 5) + (h >> 2) + c):
    // 02: 0 ^ 2 = 0x2;  12: 0x2 ^ (0x40 + 0 + 0x12) = 0x50;
    // 4b: 0x50 ^ (0xa00 + 0x14 + 0x4b) = 0xa0f;
    // 00: 0xa0f ^ (0x141e0 + 0x283) = 0x14e6c;
    // 00: 0x14e6c ^ (0x29cd80 + 0x539b) = 0x2b6f77;
    // 00: 0x2b6f77 ^ (0x56deee0 + 0xadbdd) = 0x553a5ca;
    // 00: 0x553a5ca ^ (0xaa74b940 + 0x154e972) = 0xae9a0778;
    // 01: 0xae9a0778 ^ (0x15d340ef00 + 0x2ba681de + 1) = 0x15507d77a7;
    // low 16 bits 0x77a7 = 30631: slot 1 + 30631 mod 100 = 32,
    // channel offset 30631 mod 16 = 7.
    let eui = extended_addr(0);
    assert_eq!(eui, 0x0212_4b00_0000_0001);
    let c = autonomous_cell(eui, SLOTFRAME_LENGTH, NUM_CH_OFFSET);
    assert_eq!((c.slot_offset, c.channel_offset), (32, 7));
    // and the schedule puts node 0's receive cell there, node 1's transmit
    // cell to it too (TX | SHARED), the minimal cell at slot 0
    let topology = Topology::line(2, 1.0).unwrap();
    let (len, cells) = sim::mac::tsch::schedule::msf_schedule(&topology);
    assert_eq!(len, 101);
    let rx0: Vec<_> = cells[0]
        .iter()
        .filter(|c| !c.tx)
        .map(|c| (c.slot, c.channel_offset))
        .collect();
    assert_eq!(rx0, [(32, 7)]);
    let to0: Vec<_> = (cells[1].iter())
        .filter(|c| c.contention)
        .map(|c| (c.slot, c.channel_offset, c.peer))
        .collect();
    assert_eq!(to0, [(32, 7, 0)]);
    assert!(cells[1]
        .iter()
        .any(|c| c.shared && c.slot == 0 && c.channel_offset == 0));
}

#[test]
fn one_add_transaction_frames_byte_for_byte() {
    // node 1 asks its parent 0 for one TX cell, candidates (51, 10) and (52, 11)
    let req = Repr {
        sfid: 0,
        seqnum: 0,
        message: Message::Request(Request::Add {
            metadata: 0,
            cell_options: CellOptions::TX,
            num_cells: 1,
            cells: vec![
                Cell {
                    slot_offset: 51,
                    channel_offset: 10,
                },
                Cell {
                    slot_offset: 52,
                    channel_offset: 11,
                },
            ],
        }),
    };
    let frame = sixtop_frame(LinkAddressing::Short, 1, 1, 0, ie_content(&req), false)
        .to_bytes_with_fcs()
        .unwrap();
    let mpdu = wpan::fcs::check(&frame).unwrap();
    #[rustfmt::skip]
    let want: [u8; 30] = [
        // frame control 0xaa61: data (1), AR (0x20), PAN ID compression
        // (0x40), IE present (0x200), short destination (2 << 10), version
        // 2015 (2 << 12), short source (2 << 14); little endian
        0x61, 0xaa,
        0x01,       // sequence number
        0xcd, 0xab, // destination PAN 0xabcd
        0x01, 0x00, // destination: node 0's short address 0x0001
        0x02, 0x00, // source: node 1's 0x0002
        0x00, 0x3f, // header termination 1 (element ID 0x7e, length 0)
        // payload IE: type 1, group 5 (IETF), length 17: 0x8000 | 5 << 11 | 17
        0x11, 0xa8,
        0xc9,       // 6P sub-ID (RFC 8480 §5.1)
        0x00,       // version 0, type 0 (request) (§3.2.2)
        0x01,       // code: ADD
        0x00,       // SFID 0 (MSF)
        0x00,       // SeqNum 0
        0x00, 0x00, // metadata
        0x01,       // CellOptions TX
        0x01,       // NumCells 1
        51, 0, 10, 0, // CellList: slotOffset 51, channelOffset 10
        52, 0, 11, 0, //           slotOffset 52, channelOffset 11
    ];
    assert_eq!(mpdu, want);
    // the parent takes (52, 11): a response, type 1 (0x10), RC_SUCCESS,
    // SFID 0, SeqNum 0, CellList (52, 11); IE length 1 + 4 + 4 = 9
    let resp = Repr {
        sfid: 0,
        seqnum: 0,
        message: Message::Response {
            code: ReturnCode::Success,
            body: ReplyBody::CellList(vec![Cell {
                slot_offset: 52,
                channel_offset: 11,
            }]),
        },
    };
    let frame = sixtop_frame(LinkAddressing::Short, 7, 0, 1, ie_content(&resp), false)
        .to_bytes_with_fcs()
        .unwrap();
    #[rustfmt::skip]
    let want: [u8; 22] = [
        0x61, 0xaa, 0x07, 0xcd, 0xab, 0x02, 0x00, 0x01, 0x00, 0x00, 0x3f,
        0x09, 0xa8, 0xc9, 0x10, 0x00, 0x00, 0x00, 52, 0, 11, 0,
    ];
    assert_eq!(wpan::fcs::check(&frame).unwrap(), want);
}

#[test]
fn the_6p_timeout_by_hand() {
    // (2^7 - 1) · (3 + 1) · 101 · 10 ms = 127 · 4 · 1.01 s = 513.08 s
    assert_eq!(sixp_timeout_us(7, 3, 1_010_000), 513_080_000);
}

/// Node 2 of a line 0 - 1 - 2 sends a 10-byte datagram to node 0 every
/// 200 ms (a ping nobody answers, given up after 200 ms) from 1 s to 201 s.
fn line_with_traffic(seed: u64) -> Sim<Record> {
    line_with_traffic_over(seed, msf_spec())
}

fn line_with_traffic_over(seed: u64, spec: MacSpec) -> Sim<Record> {
    line_pinging(seed, spec, 2, 0)
}

/// A line 0 - 1 - 2 (node 0 the root) in which node `from` sends a 10-byte
/// datagram to node `to` every 200 ms from 1 s to 201 s, and nobody answers.
fn line_pinging(seed: u64, spec: MacSpec, from: usize, to: usize) -> Sim<Record> {
    let topology = Topology::line(3, 1.0).unwrap();
    let network = spec.network(&topology, 0, seed, 0).unwrap();
    let macs: Vec<NodeMac> = (0..3)
        .map(|n| spec.build(n, &network, spec.security()))
        .collect();
    let pinger = sim::app::echo::PingClient::new(sim::app::echo::PingParams {
        server: to,
        payload: 10,
        count: 1_000,
        first_at: 1_000_000,
        timeout_us: 200_000,
        pause_us: 0,
    });
    let mut apps: Vec<Box<dyn App<Record>>> = vec![Box::new(Idle), Box::new(Idle), Box::new(Idle)];
    apps[from] = Box::new(pinger);
    let mut sim = Sim::new(World::new(topology, seed, 0), stacks(macs, apps));
    let _ = wismote_like_power();
    sim.world.sent = Some(Vec::new());
    sim.start();
    sim
}

fn tx_cells(sim: &Sim<Record>, node: usize) -> u64 {
    sim.stacks[node].mac.msf().unwrap().cells
}

#[test]
fn a_line_adds_cells_under_traffic_and_gives_them_back_when_it_stops() {
    let mut sim = line_with_traffic(5);
    // the initial ADD (RFC 9033 §4) gives node 2 one cell to node 1 in
    // its first seconds
    sim.run(30_000_000, |_| false);
    let before = sim.stacks[2].mac.msf().unwrap();
    assert!(before.requests >= 1, "{before:?}");
    assert!(before.cells >= 1, "{before:?}");
    // five frames a second against one cell a slotframe (1.01 s): more
    // than 75 of 100 cells used, a cell added when the first window of
    // 100 cells (about 101 s) ends
    sim.run(200_000_000, |_| false);
    let busy = sim.stacks[2].mac.msf().unwrap();
    assert!(busy.cells >= 2, "{busy:?}");
    // the queue never empties at five frames a second: every one of the
    // first window's 100 cells carried a frame, and the parent, holding
    // slots to spare, answered every ADD with a cell
    assert_eq!(busy.busiest_tx_window, 100, "{busy:?}");
    assert_eq!(busy.adds_empty, 0, "{busy:?}");
    assert_eq!(
        busy.cells_added - busy.cells_deleted,
        busy.cells,
        "{busy:?}"
    );
    // the parent holds the matching receive cells
    let parent = sim.stacks[1].mac.msf().unwrap();
    assert!(parent.cells >= busy.cells, "{parent:?} {busy:?}");
    // traffic stops at 201 s: fewer than 25 of 100 used, deleted one by
    // one down to the one MSF keeps
    sim.run(900_000_000, |_| false);
    let idle = sim.stacks[2].mac.msf().unwrap();
    assert_eq!(idle.cells, 1, "{idle:?}");
    // every cell it added beyond the first it deleted again
    assert_eq!(idle.cells_added - idle.cells_deleted, 1, "{idle:?}");
    assert!(idle.cells_deleted >= busy.cells - 1, "{idle:?}");
    // (a request offered to a queue full of pings is dropped and its
    // transaction ends on the 6P timeout: timeouts may be counted here)
    assert_eq!(idle.errors, 0, "{idle:?}");
    assert!(idle.requests >= busy.requests + u64::from(busy.cells as u32 - 1));
    assert_eq!(tx_cells(&sim, 2), 1);
}

#[test]
fn six_p_frames_are_secured_like_data_under_link_layer_security() {
    // ENC-MIC-64 with the TSCH nonce: the 6top IE is encrypted with the
    // rest of the payload and the cells are negotiated all the same
    let mut spec = msf_spec();
    let MacSpec::Tsch(t) = &mut spec else {
        unreachable!()
    };
    t.security = Some(sim::mac::security::LinkSecurity {
        level: wpan::security::SecurityLevel::EncMic64,
        key_id_mode: 1,
        key: [7; 16],
        key_index: 1,
        frame_counter_suppressed: true,
        after_join: false,
        setup_us: 100.0,
        per_block_us: 20.0,
    });
    let mut sim = line_with_traffic_over(5, spec);
    sim.run(200_000_000, |_| false);
    let busy = sim.stacks[2].mac.msf().unwrap();
    eprintln!(
        "DBG {:?} {:?} {:?}",
        sim.stacks[1].mac.msf(),
        sim.stacks[1].mac.security_stats(),
        sim.stacks[1].mac.stats()
    );
    assert!(busy.cells >= 2, "{busy:?}");
    assert_eq!(busy.errors, 0, "{busy:?}");
    // no 6P ADD request goes in the clear: its sub-ID, type/version,
    // command and SFID (c9 00 01 00) never show on the air
    let sent = sim.world.sent.as_ref().unwrap();
    let add = [0xc9, 0x00, 0x01, 0x00];
    // (and frames were secured: every one carries the security bit, 0x08)
    assert!(sent.iter().all(|s| s.frame[0] & 0x08 != 0));
    assert!(!sent.iter().any(|s| s.frame.windows(4).any(|w| w == add)));
}

#[test]
fn the_same_seed_gives_the_same_frames_bit_for_bit() {
    let run = |seed| {
        let mut sim = line_with_traffic(seed);
        sim.run(120_000_000, |_| false);
        let sent = sim.world.sent.take().unwrap();
        let frames: Vec<(usize, u64, Vec<u8>)> = sent
            .iter()
            .map(|s| (s.node, s.at, s.frame.to_vec()))
            .collect();
        (
            frames,
            (0..3)
                .map(|n| sim.stacks[n].mac.msf().unwrap())
                .collect::<Vec<_>>(),
        )
    };
    let (a, b) = (run(9), run(9));
    assert!(a.0.len() > 100);
    assert_eq!(a, b);
}

#[test]
fn a_malformed_6p_ie_is_counted_and_dropped() {
    // node 0 hears from node 1 a 6top IE whose 6P message is one byte
    // long, then one whose IETF IE is not 6P: each counted, none answered
    let topology = Topology::line(2, 1.0).unwrap();
    let spec = msf_spec();
    let network = spec.network(&topology, 0, 1, 0).unwrap();
    let mut mac = spec.build(0, &network, None);
    let mut world = World::new(topology, 1, 0);
    let mut cx = world.cx(0);
    mac.start(&mut cx);
    for (i, content) in [vec![0xc9, 0x00], vec![0x01, 0x02]].into_iter().enumerate() {
        let frame = sixtop_frame(LinkAddressing::Short, i as u8, 1, 0, content, false)
            .to_bytes_with_fcs()
            .unwrap();
        let rx = sim::world::Received {
            frame: frame.into(),
            from: 1,
            emission: i as u64,
            copy: 0,
            at: 5_000 + i as u64 * 1_010_000,
        };
        mac.on_frame(&mut cx, rx);
    }
    let m = mac.msf().unwrap();
    assert_eq!((m.errors, m.responses, m.requests), (2, 0, 0));
    assert_eq!(mac.queued(), 0);
}

/// The negotiated cells of `node` as (slot, channel offset, peer, tx).
fn negotiated(sim: &Sim<Record>, node: usize) -> Vec<(u32, u8, usize, bool)> {
    let NodeMac::Tsch(t) = &sim.stacks[node].mac else {
        unreachable!("a TSCH network")
    };
    let mut cells: Vec<_> = (t.msf_cells().unwrap().iter())
        .map(|c| (c.slot, c.channel_offset, c.peer, c.tx))
        .collect();
    cells.sort_unstable();
    cells
}

#[test]
fn downward_traffic_gets_a_child_a_receive_cell_from_its_parent() {
    // the root (node 0) sends to node 2 five times a second, through node 1
    let mut sim = line_pinging(5, msf_spec(), 0, 2);
    // before node 2's first RX window ends (100 of its autonomous cells,
    // one a 1.01 s slotframe: about 101 s from power-on), it holds only
    // the TX cell of its initial ADD (RFC 9033 §4), to node 1
    sim.run(90_000_000, |_| false);
    let early = negotiated(&sim, 2);
    assert_eq!(early.len(), 1, "{early:?}");
    assert!(early[0].3 && early[0].2 == 1, "{early:?}");
    // node 1 has a frame for node 2 in every one of node 2's autonomous
    // cells (one arrives every 200 ms, one leaves every 1.01 s): all 100
    // cells used, more than LIM_NUMCELLSUSED_HIGH 75, so node 2 asks node 1
    // for an RX cell (6P ADD, CellOptions RX) and node 1 holds the same
    // cell as a TX cell to node 2
    sim.run(140_000_000, |_| false);
    let child = negotiated(&sim, 2);
    let rx: Vec<_> = child.iter().filter(|c| !c.3).collect();
    assert!(!rx.is_empty(), "{child:?}");
    assert!(rx.iter().all(|c| c.2 == 1), "{child:?}");
    let parent = negotiated(&sim, 1);
    for c in &rx {
        assert!(parent.contains(&(c.0, c.1, 2, true)), "{c:?} {parent:?}");
    }
    // the same rule one hop up: node 1 receives from node 0 as busily
    let relay_rx = parent.iter().filter(|c| !c.3 && c.2 == 0).count();
    assert!(relay_rx >= 1, "{parent:?}");
    // traffic stops at 201 s: fewer than 25 of 100 used, and the RX cells
    // are given back one by one, down to none (MSF keeps no RX cell)
    sim.run(1_000_000_000, |_| false);
    let idle = negotiated(&sim, 2);
    assert!(idle.iter().all(|c| c.3), "{idle:?}");
    assert!(negotiated(&sim, 1).iter().all(|c| !(c.3 && c.2 == 2)));
    let m = sim.stacks[2].mac.msf().unwrap();
    assert_eq!(m.errors, 0, "{m:?}");
}
