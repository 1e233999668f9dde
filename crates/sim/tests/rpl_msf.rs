//! MSF (RFC 9033) under RPL: a node's negotiated cells follow RPL's
//! preferred parent when it switches (6P ADD to the new parent, CLEAR to
//! the old one), frame by frame.

mod common;

use common::stacks;
use sim::app::record::Record;
use sim::engine::Sim;
use sim::mac::address::node_of;
use sim::mac::tsch::formation::FormationParams;
use sim::mac::{Mac, NodeMac};
use sim::node::app::{App, Idle};
use sim::rpl::node::RplParams;
use sim::rpl::router::RplRouter;
use sim::scenario::{MacSpec, TschSchedule, TschSpec};
use sim::topology::Topology;
use sim::world::World;
use wpan::sixtop::Repr;

/// A diamond: the root 0 hears 1 and 2, and node 3 hears 1 and 2; the
/// link between 3 and 1 loses `lossy` of its frames each way.
fn diamond(seed: u64, lossy: f64) -> Sim<Record> {
    diamond_with(seed, lossy, TschSchedule::Msf)
}

fn diamond_with(seed: u64, lossy: f64, schedule: TschSchedule) -> Sim<Record> {
    let ok = 1.0;
    let bad = 1.0 - lossy;
    let links = [
        (0, 1, ok),
        (1, 0, ok),
        (0, 2, ok),
        (2, 0, ok),
        (1, 3, bad),
        (3, 1, bad),
        (2, 3, ok),
        (3, 2, ok),
    ];
    let topology = Topology::from_links(4, &links).unwrap();
    let spec = MacSpec::Tsch(TschSpec {
        formation: Some(FormationParams::contiki(false)),
        rpl: true,
        ..TschSpec::new(101, schedule)
    });
    let network = spec.network(&topology, 0, seed, 0).unwrap();
    let macs: Vec<NodeMac> = (0..4).map(|n| spec.build(n, &network, None)).collect();
    let apps: Vec<Box<dyn App<Record>>> = (0..4).map(|_| Box::new(Idle) as _).collect();
    let mut sim = Sim::new(World::new(topology, seed, 0), stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim.route_by_rpl(RplRouter::new(4, 0, RplParams::CONTIKI_NG, seed, 0));
    sim.start();
    for n in 1..4 {
        sim.set_joined(n, true);
    }
    sim
}

/// The 6P messages on the air to or from `node`, each once (a retry is
/// the same frame again): (first sent at, from, to, message).
fn sixp_messages(sim: &Sim<Record>, node: usize) -> Vec<(u64, usize, usize, Repr)> {
    use wpan::ie::PayloadIe;
    let mut out: Vec<(u64, usize, usize, Repr)> = Vec::new();
    for s in sim.world.sent.as_ref().unwrap() {
        let Ok(body) = wpan::fcs::check(&s.frame) else {
            continue;
        };
        let Ok(f) = wpan::frame::Repr::parse(body) else {
            continue;
        };
        let Some(to) = node_of(f.dst_addr) else {
            continue;
        };
        let content = f.payload_ies.iter().find_map(|ie| match ie {
            PayloadIe::Other { group, content } if *group == wpan::sixtop::IETF_IE_GROUP => {
                Some(content.clone())
            }
            _ => None,
        });
        let Some(repr) = content.and_then(|c| Repr::parse_ietf_ie_content(&c, None).ok()) else {
            continue;
        };
        if s.node != node && to != node {
            continue;
        }
        if !out.iter().any(|m| (m.1, m.2, &m.3) == (s.node, to, &repr)) {
            out.push((s.at, s.node, to, repr));
        }
    }
    out
}

/// `node`'s negotiated cells as (slot, channel offset, peer, tx), sorted.
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

/// The peers `node` has an autonomous TX cell to (RFC 9033 §3), sorted.
fn autonomous_tx_peers(sim: &Sim<Record>, node: usize) -> Vec<usize> {
    let NodeMac::Tsch(t) = &sim.stacks[node].mac else {
        unreachable!("a TSCH network")
    };
    let mut peers: Vec<usize> = (t.cells().iter())
        .filter(|c| c.tx && c.contention)
        .map(|c| c.peer)
        .collect();
    peers.sort_unstable();
    peers
}

#[test]
fn msf_moves_its_cells_to_rpls_new_parent_frame_by_frame() {
    use wpan::sixtop::{CellOptions, Command, Message, Request, ReturnCode};
    // seed 12, the 3 - 1 link losing half its frames: node 3's MSF starts
    // with its computed parent 2 (the better link); RPL names node 1
    // first (the first DIO heard: both links start at the default ETX),
    // then leaves it for node 2 once its unicast frames to 1 go
    // unacknowledged (its ETX grows)
    let mut sim = diamond(12, 0.5);
    assert_eq!(sim.world.channel.topology().tree_parent(3), Some(2));
    let mut changes = Vec::new();
    for t in 1..=700u64 {
        sim.run(t * 1_000_000, |_| false);
        let p = sim.router.as_ref().unwrap().nodes[3].parent();
        if changes.last().map(|c: &(u64, Option<usize>)| c.1) != Some(p) && p.is_some() {
            changes.push((t * 1_000_000, p));
        }
    }
    let [(named, Some(1)), (switched, Some(2))] = changes[..] else {
        panic!("RPL's parents of node 3: {changes:?}");
    };
    // node 3's 6P requests, in the order sent, with the answers
    let msgs = sixp_messages(&sim, 3);
    let requests: Vec<_> = (msgs.iter())
        .filter_map(|(at, from, to, r)| match &r.message {
            Message::Request(req) if *from == 3 => Some((*at, *to, req.clone())),
            _ => None,
        })
        .collect();
    let summary: Vec<(usize, Command)> = (requests.iter()).map(|r| (r.1, r.2.command())).collect();
    assert_eq!(
        summary,
        [
            (2, Command::Add),   // the initial ADD (RFC 9033 §4), to the computed parent
            (1, Command::Add),   // RPL names 1: as many TX cells (1) from it
            (2, Command::Clear), // and a CLEAR to the parent MSF had
            (2, Command::Add),   // RPL switches to 2: as many TX cells (1) from it
            (1, Command::Clear), // and a CLEAR to 1
        ],
        "{msgs:#?}"
    );
    // each sent within seconds of the switch that asks for it (waiting
    // for a cell to its peer), after it (the switch seen at the end of
    // the second it happened in)
    let within = |at: u64, switch: u64| (switch - 1_000_000..switch + 5_000_000).contains(&at);
    assert!(within(requests[1].0, named) && within(requests[2].0, named));
    assert!(within(requests[3].0, switched) && within(requests[4].0, switched));
    for r in [&requests[1], &requests[3]] {
        let Request::Add {
            cell_options,
            num_cells,
            ..
        } = &r.2
        else {
            unreachable!()
        };
        assert_eq!((*cell_options, *num_cells), (CellOptions::TX, 1));
    }
    // every request answered SUCCESS by the peer it went to
    for (at, to, req) in &requests {
        let answered = msgs.iter().any(|(a, from, dst, r)| {
            *a >= *at
                && (*from, *dst) == (*to, 3)
                && matches!(
                    r.message,
                    Message::Response {
                        code: ReturnCode::Success,
                        ..
                    }
                )
        });
        assert!(answered, "{req:?} to {to} at {at}");
    }
    // afterwards: node 3 holds one TX cell, with node 2, which holds it
    // as an RX cell from node 3; node 1 holds nothing with node 3
    let cells3 = negotiated(&sim, 3);
    assert_eq!(cells3.len(), 1, "{cells3:?}");
    let (slot, channel, peer, tx) = cells3[0];
    assert_eq!((peer, tx), (2, true));
    assert!(negotiated(&sim, 2).contains(&(slot, channel, 3, false)));
    assert!(negotiated(&sim, 1).iter().all(|c| c.2 != 3));
    let m = sim.stacks[3].mac.msf().unwrap();
    assert_eq!((m.parent_switches, m.timeouts, m.errors), (2, 0, 0));
    // the autonomous TX cells follow RPL too: node 3 sends in node 2's
    // only, and every node has one to each of its RPL parent and the next
    // hops of its stored routes (node 1 may still hold its route to 3
    // until its lifetime ends: the No-Path DAO crosses the lossy link)
    assert_eq!(autonomous_tx_peers(&sim, 3), [2]);
    let r = sim.router.as_ref().unwrap();
    for n in 0..4 {
        let mut rpl: Vec<usize> = (r.nodes[n].routes().values())
            .filter(|x| x.expires > sim.now())
            .map(|x| x.via)
            .chain(r.nodes[n].parent())
            .collect();
        rpl.sort_unstable();
        rpl.dedup();
        assert_eq!(autonomous_tx_peers(&sim, n), rpl, "node {n}");
    }
    assert!(autonomous_tx_peers(&sim, 2).contains(&3));
}

#[test]
fn the_same_seed_switches_the_same_frames() {
    let run = || {
        let mut sim = diamond(12, 0.5);
        sim.run(600_000_000, |_| false);
        let sent = sim.world.sent.take().unwrap();
        let frames: Vec<(usize, u64, Vec<u8>)> = (sent.iter())
            .map(|s| (s.node, s.at, s.frame.to_vec()))
            .collect();
        (
            frames,
            (0..4).map(|n| sim.stacks[n].mac.msf()).collect::<Vec<_>>(),
        )
    };
    let (a, b) = (run(), run());
    assert!(a.0.len() > 100);
    assert_eq!(a, b);
}
