//! RPL's control traffic alone over a topology's links, to see which tree
//! RPL settles on and what its DIOs and DAOs cost, before it carries any
//! data: every node runs [`RplNode`], and the link layer between them is
//! reduced to the topology's delivery ratios.
//!
//! The link layer, simplified (stated, not hidden): a message arrives
//! `latency_us` after it is sent, and its sender learns its fate then; a DIO (broadcast, no ACK) reaches each neighbour with the link's
//! PDR; a unicast frame (DAO) is sent up to 1 + `max_retries` times, each
//! attempt reaching the neighbour with the link's PDR and its ACK coming
//! back with the reverse link's, and the sender learns the outcome and the
//! number of transmissions as a MAC reports them (what Contiki-NG's
//! link-stats.c is given). No cells, no queues, no collisions: what the
//! shared cell and the trunk links do to these messages is the TSCH
//! network's part, not this one's.

use super::node::{RplNode, RplParams, To};
use crate::rng::{stream, Purpose, UniformBelow};
use crate::topology::Topology;
use crate::{NodeId, Time};

/// The nodes after a run, and what the link layer carried.
pub struct ControlRun {
    pub nodes: Vec<RplNode>,
    /// frames put on the air (every attempt of a unicast, one per DIO)
    pub frames: u64,
}

/// The link layer between the nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkLayer {
    /// retries of an unacknowledged unicast frame (macMaxFrameRetries)
    pub max_retries: u32,
    /// from a message's sending to its arrival, and to the sender's
    /// learning its fate
    pub latency_us: Time,
}

enum Ev {
    /// a node's timer (stale unless still armed at this time)
    Timer(NodeId),
    /// a message arrives at `to`
    Deliver {
        from: NodeId,
        to: NodeId,
        icmp: Vec<u8>,
    },
    /// the sender learns a unicast frame's fate
    TxDone {
        from: NodeId,
        to: NodeId,
        acked: bool,
        numtx: u32,
    },
}

/// Run RPL on `topology` (root `root`) until `until` µs, node `n` starting
/// at `start_at[n]` (a 6TiSCH node starts once it has joined). Same seed,
/// same run.
pub fn run(
    topology: &Topology,
    root: NodeId,
    params: RplParams,
    start_at: &[Time],
    until: Time,
    link: LinkLayer,
    seed: u64,
) -> ControlRun {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = topology.nodes();
    assert_eq!(start_at.len(), n, "one start time per node");
    let mut rngs: Vec<_> = (0..n)
        .map(|i| stream(seed, 0, i as u64, Purpose::Mac))
        .collect();
    let mut channel = stream(seed, 0, crate::rng::NETWORK, Purpose::Channel);
    let mut nodes: Vec<RplNode> = (0..n).map(|i| RplNode::new(i, root, params)).collect();
    // (time, sequence) orders the events; the sequence keeps ties in
    // the order they were made
    let mut queue: BinaryHeap<Reverse<(Time, u64)>> = BinaryHeap::new();
    let mut events: std::collections::HashMap<u64, Ev> = Default::default();
    let mut seq = 0u64;
    let mut push = |queue: &mut BinaryHeap<Reverse<(Time, u64)>>,
                    events: &mut std::collections::HashMap<u64, Ev>,
                    at: Time,
                    ev: Ev| {
        seq += 1;
        queue.push(Reverse((at, seq)));
        events.insert(seq, ev);
    };
    let mut armed: Vec<Option<Time>> = vec![None; n];
    for (i, &t) in start_at.iter().enumerate() {
        push(&mut queue, &mut events, t, Ev::Timer(i));
        armed[i] = Some(t);
    }
    let mut frames = 0u64;
    while let Some(Reverse((at, id))) = queue.pop() {
        if at > until {
            break;
        }
        let ev = events.remove(&id).expect("one event per entry");
        let (who, outs) = match ev {
            Ev::Timer(i) => {
                if armed[i] != Some(at) {
                    continue; // re-armed since
                }
                armed[i] = None;
                if nodes[i].started() {
                    (i, nodes[i].on_deadline(at, &mut rngs[i]))
                } else {
                    nodes[i].start(at, &mut rngs[i]);
                    (i, Vec::new())
                }
            }
            Ev::Deliver { from, to, icmp } => {
                (to, nodes[to].on_message(at, from, &icmp, &mut rngs[to]))
            }
            Ev::TxDone {
                from,
                to,
                acked,
                numtx,
            } => (
                from,
                nodes[from].on_tx_result(at, to, acked, numtx, &mut rngs[from]),
            ),
        };
        let arrive = at + link.latency_us;
        for out in outs {
            match out.to {
                To::AllNodes => {
                    frames += 1;
                    for to in topology.hearers(who) {
                        if draw(&mut channel, topology.pdr(who, to).unwrap_or(0.0)) {
                            let icmp = out.icmp.clone();
                            push(
                                &mut queue,
                                &mut events,
                                arrive,
                                Ev::Deliver {
                                    from: who,
                                    to,
                                    icmp,
                                },
                            );
                        }
                    }
                }
                To::Neighbour(to) => {
                    let there = topology.pdr(who, to).unwrap_or(0.0);
                    let back = topology.pdr(to, who).unwrap_or(0.0);
                    let (mut delivered, mut acked, mut numtx) = (false, false, 0);
                    while numtx <= link.max_retries && !acked {
                        numtx += 1;
                        frames += 1;
                        if draw(&mut channel, there) {
                            delivered = true;
                            acked = draw(&mut channel, back);
                        }
                    }
                    if delivered {
                        let icmp = out.icmp;
                        push(
                            &mut queue,
                            &mut events,
                            arrive,
                            Ev::Deliver {
                                from: who,
                                to,
                                icmp,
                            },
                        );
                    }
                    let done = Ev::TxDone {
                        from: who,
                        to,
                        acked,
                        numtx,
                    };
                    push(&mut queue, &mut events, arrive, done);
                }
            }
        }
        let next = if nodes[who].started() {
            nodes[who].deadline()
        } else {
            Some(start_at[who])
        };
        if armed[who] != next {
            armed[who] = next;
            if let Some(t) = next {
                push(&mut queue, &mut events, t, Ev::Timer(who));
            }
        }
    }
    ControlRun { nodes, frames }
}

/// True with probability `p` (one draw in millionths).
fn draw(rng: &mut impl UniformBelow, p: f64) -> bool {
    (rng.below(1_000_000) as f64) < p * 1_000_000.0
}

/// How the tree below the root is shaped: for each child of the root, the
/// number of nodes whose route to the root goes through it (itself
/// included), largest first, and the deepest node's hop count. `parent`
/// gives each node's next hop up (None: the root, or no route).
pub fn trunks(parent: &[Option<NodeId>], root: NodeId) -> (Vec<(NodeId, usize)>, usize) {
    let n = parent.len();
    let mut count: std::collections::BTreeMap<NodeId, usize> = Default::default();
    let mut deepest = 0;
    for start in (0..n).filter(|&v| v != root) {
        let (mut at, mut hops) = (start, 0);
        // a route that loops or ends without the root counts nowhere
        while let Some(p) = parent[at] {
            hops += 1;
            if p == root || hops > n {
                break;
            }
            at = p;
        }
        if parent[at] == Some(root) && hops <= n {
            *count.entry(at).or_default() += 1;
            deepest = deepest.max(hops);
        }
    }
    let mut v: Vec<(NodeId, usize)> = count.into_iter().collect();
    v.sort_by_key(|&(id, c)| (std::cmp::Reverse(c), id));
    (v, deepest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpl::mrhof::INFINITE_RANK;

    const LINK: LinkLayer = LinkLayer {
        max_retries: 3,
        latency_us: 10_000,
    };

    #[test]
    fn a_lossy_direct_link_loses_to_two_good_hops() {
        // 0 - 1 perfect, 1 - 2 perfect, 0 - 2 at 0.3 both ways: ETX 1/0.3
        // each way, a path cost above two perfect hops plus the hysteresis
        let links = [
            (0, 1, 1.0),
            (1, 0, 1.0),
            (1, 2, 1.0),
            (2, 1, 1.0),
            (0, 2, 0.3),
            (2, 0, 0.3),
        ];
        let t = Topology::from_links(3, &links).unwrap();
        let run = run(
            &t,
            0,
            RplParams::CONTIKI_NG,
            &[0, 0, 0],
            600_000_000,
            LINK,
            7,
        );
        let parents: Vec<_> = run.nodes.iter().map(|n| n.parent()).collect();
        assert_eq!(parents, [None, Some(0), Some(1)]);
        assert_eq!(run.nodes[0].next_hop(2, 600_000_000), Some(1));
        assert_ne!(run.nodes[2].rank(), INFINITE_RANK);
        let (trunk, deepest) = trunks(&parents, 0);
        assert_eq!((trunk, deepest), (vec![(1, 2)], 2));
        // reproducible
        let again = super::run(
            &t,
            0,
            RplParams::CONTIKI_NG,
            &[0, 0, 0],
            600_000_000,
            LINK,
            7,
        );
        assert_eq!(again.frames, run.frames);
    }

    #[test]
    fn a_node_not_started_stays_out() {
        let t = Topology::line(3, 1.0).unwrap();
        let run = run(
            &t,
            0,
            RplParams::CONTIKI_NG,
            &[0, 0, Time::MAX],
            60_000_000,
            LINK,
            1,
        );
        assert_eq!(run.nodes[1].parent(), Some(0));
        assert_eq!(run.nodes[2].parent(), None);
        assert!(run.nodes[2].stats().dio_sent == 0 && !run.nodes[2].started());
        assert_eq!(run.nodes[0].routes().len(), 1);
    }
}
