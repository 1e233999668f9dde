//! Who sends to whom in which cell: the TSCH schedules a scenario can ask
//! for, built once per replication for the whole network.

use super::Cell;
use crate::rng::{stream, Purpose, NETWORK};
use crate::scenario::GivenCell;
use crate::topology::Topology;
use crate::NodeId;

/// The cells of each node for a given list; refuses cells outside the
/// slotframe or the topology, and two cells of one node in one slot (a
/// radio does one thing per slot).
pub fn given_schedule(
    nodes: usize,
    cells: &[GivenCell],
    slotframe: u32,
) -> Result<Vec<Vec<Cell>>, String> {
    let mut per_node: Vec<Vec<Cell>> = vec![Vec::new(); nodes];
    for c in cells {
        if c.from >= nodes || c.to >= nodes || c.from == c.to {
            return Err(format!(
                "cell {}→{}: nodes must differ and be in [0, {}]",
                c.from,
                c.to,
                nodes - 1
            ));
        }
        if c.slot >= slotframe || c.channel_offset > 15 {
            return Err(format!(
                "cell {}→{} at slot {}, channel offset {}: slot must be in [0, {}], offset in [0, 15]",
                c.from,
                c.to,
                c.slot,
                c.channel_offset,
                slotframe - 1
            ));
        }
        for (node, peer, tx) in [(c.from, c.to, true), (c.to, c.from, false)] {
            if per_node[node].iter().any(|x| x.slot == c.slot) {
                return Err(format!("node {node} has two cells in slot {}", c.slot));
            }
            per_node[node].push(Cell {
                slot: c.slot,
                channel_offset: c.channel_offset,
                peer,
                tx,
                shared: false,
            });
        }
    }
    Ok(per_node)
}

/// Shared cells in the first `shared` slots for everyone, and one dedicated
/// cell per child→parent link of the routing tree to `root`, at a random
/// slot neither end uses yet; with `down`, one per parent→child link too,
/// drawn the same way right after the child's.
pub fn tree_schedule(
    topology: &Topology,
    root: NodeId,
    shared: u32,
    down: bool,
    slotframe: u32,
    seed: u64,
    replication: u64,
) -> Vec<Vec<Cell>> {
    use rand::seq::IndexedRandom;
    let mut rng = stream(seed, replication, NETWORK, Purpose::Topology);
    let n = topology.nodes();
    let mut per_node: Vec<Vec<Cell>> = (0..n)
        .map(|_| {
            (0..shared.min(slotframe))
                .map(|slot| Cell {
                    slot,
                    channel_offset: 0,
                    peer: 0,
                    tx: true,
                    shared: true,
                })
                .collect()
        })
        .collect();
    for child in (0..n).filter(|&c| c != root) {
        let Some(parent) = topology.next_hop(child, root) else {
            continue;
        };
        let channel_offset = 1 + (child % 15) as u8;
        let directions: &[(NodeId, NodeId)] = if down {
            &[(child, parent), (parent, child)]
        } else {
            &[(child, parent)]
        };
        for &(from, to) in directions {
            let busy = |node: usize, slot: u32| per_node[node].iter().any(|c| c.slot == slot);
            let free: Vec<u32> = (0..slotframe)
                .filter(|&s| !busy(from, s) && !busy(to, s))
                .collect();
            if let Some(&slot) = free.choose(&mut rng) {
                per_node[from].push(Cell {
                    slot,
                    channel_offset,
                    peer: to,
                    tx: true,
                    shared: false,
                });
                per_node[to].push(Cell {
                    slot,
                    channel_offset,
                    peer: from,
                    tx: false,
                    shared: false,
                });
            }
        }
    }
    per_node
}

/// Random dedicated cells: for every directed link, `cells` distinct slot
/// offsets uniformly among those neither end uses yet (a radio cannot send
/// and receive, or receive on two channels, in one slot), channel offset =
/// the link's index.
pub fn random_schedule(
    topology: &Topology,
    cells: u32,
    slotframe: u32,
    seed: u64,
    replication: u64,
) -> Vec<Vec<Cell>> {
    use rand::seq::IndexedRandom;
    let mut rng = stream(seed, replication, NETWORK, Purpose::Topology);
    let n = topology.nodes();
    let mut per_node: Vec<Vec<Cell>> = vec![Vec::new(); n];
    let mut link = 0u32;
    for a in 0..n {
        for b in 0..n {
            if a == b || topology.pdr(a, b).is_none() {
                continue;
            }
            let busy = |node: usize, slot: u32| per_node[node].iter().any(|c| c.slot == slot);
            let free: Vec<u32> = (0..slotframe)
                .filter(|&s| !busy(a, s) && !busy(b, s))
                .collect();
            let chosen: Vec<u32> = free
                .sample(&mut rng, (cells as usize).min(free.len()))
                .copied()
                .collect();
            let channel_offset = (link % 16) as u8;
            link += 1;
            for slot in chosen {
                per_node[a].push(Cell {
                    slot,
                    channel_offset,
                    peer: b,
                    tx: true,
                    shared: false,
                });
                per_node[b].push(Cell {
                    slot,
                    channel_offset,
                    peer: a,
                    tx: false,
                    shared: false,
                });
            }
        }
    }
    per_node
}
