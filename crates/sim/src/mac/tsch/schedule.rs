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
                contention: false,
            });
        }
    }
    Ok(per_node)
}

/// Shared cells in the first `shared` slots for everyone, and one dedicated
/// cell per child→parent link of the routing tree (forest: one tree per border router, [`Topology::tree_parent`]), at a random
/// slot neither end uses yet; with `down`, one per parent→child link too,
/// drawn the same way right after the child's.
/// The 6TiSCH minimal configuration (RFC 8180 §4.1): every node has the one
/// shared cell at slot offset 0, channel offset 0, and nothing else.
pub fn minimal_schedule(nodes: usize) -> Vec<Vec<Cell>> {
    (0..nodes).map(|_| vec![shared_cell(0, 0)]).collect()
}

/// A shared cell: everyone listens, and sends there with TSCH CSMA backoff.
fn shared_cell(slot: u32, channel_offset: u8) -> Cell {
    Cell {
        slot,
        channel_offset,
        peer: 0,
        tx: true,
        shared: true,
        contention: false,
    }
}

pub fn tree_schedule(
    topology: &Topology,
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
                .map(|slot| shared_cell(slot, 0))
                .collect()
        })
        .collect();
    for child in 0..n {
        let Some(parent) = topology.tree_parent(child) else {
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
                    contention: false,
                });
                per_node[to].push(Cell {
                    slot,
                    channel_offset,
                    peer: from,
                    tx: false,
                    shared: false,
                    contention: false,
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
                    contention: false,
                });
                per_node[b].push(Cell {
                    slot,
                    channel_offset,
                    peer: a,
                    tx: false,
                    shared: false,
                    contention: false,
                });
            }
        }
    }
    per_node
}

/// Contiki-NG's Orchestra (Duquennoy et al., SenSys 2015), receiver-based,
/// with its RPL storing-mode unicast rule
/// (os/services/orchestra/orchestra-rule-unicast-per-neighbor-rpl-storing.c)
/// and its common shared rule (orchestra-rule-default-common.c), on the
/// routing tree (forest: one tree per border router, [`Topology::tree_parent`]):
///
/// - every node listens in its own unicast cell: slot offset hash(own
///   address) mod `unicast_period`, channel offset hash mod 254 + 2
///   (`ORCHESTRA_UNICAST_MIN_CHANNEL_OFFSET` 2, `..._MAX_` 255);
/// - it sends to its RPL parent and to each child in that neighbour's
///   unicast cell, shared with the neighbour's other senders (TSCH CSMA);
/// - a common shared cell at slot offset 0 of every `common_period` slots,
///   channel offset 1 (`ORCHESTRA_DEFAULT_COMMON_CHANNEL_OFFSET`), for
///   anything else;
///
/// where hash is `ORCHESTRA_LINKADDR_HASH`, the last byte of the link-layer
/// address (orchestra-conf.h). The two slotframes are laid out over their
/// least common multiple, the length returned with the cells; where both
/// hold a cell, a frame for the unicast cell goes first (Orchestra gives
/// the unicast slotframe the lower handle, hence priority). The
/// enhanced-beacon slotframe is not among these cells: the slots it takes
/// are the MAC's to skip ([`super::eb_slotframe`]), when asked for.
///
/// With `line_neighbours_up_to` N > 0 a node also counts as neighbours the
/// line positions next to its own (node k is the (k + 1)-th) up to the N-th,
/// present or not, as a firmware that fills its neighbour table by node id
/// does: Orchestra's `neighbor_updated` adds a shared TX link in each
/// neighbour-table entry's unicast cell (orchestra-rule-unicast-per-neighbor-
/// rpl-ns.c `add_uc_link`, read at v4.9). Nothing is ever sent to an absent
/// neighbour, but TSCH CSMA counts its window down in that cell too.
pub fn orchestra_schedule(
    topology: &Topology,
    unicast_period: u32,
    common_period: u32,
    line_neighbours_up_to: u32,
) -> (u32, Vec<Vec<Cell>>) {
    let length = lcm(unicast_period, common_period);
    let n = topology.nodes();
    let mut neighbours: Vec<Vec<NodeId>> = vec![Vec::new(); n];
    for child in 0..n {
        if let Some(parent) = topology.tree_parent(child) {
            neighbours[child].push(parent);
            neighbours[parent].push(child);
        }
    }
    let up_to = line_neighbours_up_to as usize;
    for (node, list) in neighbours.iter_mut().enumerate() {
        // position k + 1 is node k: the nodes next to this one, up to the N-th
        let beside = [node.checked_sub(1), Some(node + 1)];
        for other in beside.into_iter().flatten().filter(|&o| o < up_to) {
            if !list.contains(&other) {
                list.push(other);
            }
        }
    }
    let per_node = (0..n)
        .map(|node| orchestra_cells(node, &neighbours[node], unicast_period, common_period))
        .collect();
    (length, per_node)
}

/// Orchestra's hash of a node's link-layer address,
/// `ORCHESTRA_LINKADDR_HASH`: the address's last byte (orchestra-conf.h).
/// It places both the unicast cells here and the EB slots
/// ([`super::eb_slotframe`]).
pub fn orchestra_hash(node: NodeId) -> u32 {
    (crate::mac::security::extended_addr(node) & 0xff) as u32
}

/// One node's cells under [`orchestra_schedule`]'s rules with
/// `neighbours` as the neighbours it sends to (its RPL parent and
/// children): the storing rule adds and removes a neighbour's TX cell as
/// RPL's parent and children change (orchestra-rule-unicast-per-neighbor-
/// rpl-storing.c `neighbor_updated`, `add_uc_link`, `remove_uc_link`).
pub fn orchestra_cells(
    node: NodeId,
    neighbours: &[NodeId],
    unicast_period: u32,
    common_period: u32,
) -> Vec<Cell> {
    let length = lcm(unicast_period, common_period);
    let unicast_slot = |node: NodeId| orchestra_hash(node) % unicast_period;
    let unicast_channel = |node: NodeId| (orchestra_hash(node) % (255 - 2 + 1) + 2) as u8;
    let mut cells = Vec::new();
    for slot in (0..length).step_by(common_period as usize) {
        cells.push(shared_cell(slot, 1));
    }
    for frame in (0..length).step_by(unicast_period as usize) {
        cells.push(Cell {
            slot: frame + unicast_slot(node),
            channel_offset: unicast_channel(node),
            peer: node,
            tx: false,
            shared: false,
            contention: false,
        });
        for &peer in neighbours {
            cells.push(Cell {
                slot: frame + unicast_slot(peer),
                channel_offset: unicast_channel(peer),
                peer,
                tx: true,
                shared: false,
                contention: true,
            });
        }
    }
    cells
}

/// MSF's cells before any negotiation (RFC 9033 §3, §4), on the routing
/// tree to `root`, in one slotframe of SLOTFRAME_LENGTH (101) slots that
/// stands for both of MSF's: slotframe 0's minimal shared cell (RFC 8180
/// §4.1: slot 0, channel offset 0) and slotframe 1's autonomous cells,
/// both 101 slots long, so they overlay slot for slot:
///
/// - every node listens in its own autonomous cell (AutoRxCell), placed by
///   the SAX hash of its EUI-64 ([`super::msf::autonomous_cell`]);
/// - it sends to its parent and to each child in that neighbour's
///   autonomous cell (AutoTxCell, TX | SHARED: shared with the
///   neighbour's other senders, after TSCH CSMA backoff).
///
/// The negotiated cells are the MSF of each node's to add
/// ([`super::msf_node`]).
pub fn msf_schedule(topology: &Topology) -> (u32, Vec<Vec<Cell>>) {
    let n = topology.nodes();
    let mut neighbours: Vec<Vec<NodeId>> = vec![Vec::new(); n];
    for child in 0..n {
        if let Some(parent) = topology.tree_parent(child) {
            neighbours[child].push(parent);
            neighbours[parent].push(child);
        }
    }
    let cells = (0..n)
        .map(|node| msf_cells(node, &neighbours[node]))
        .collect();
    (u32::from(super::msf::SLOTFRAME_LENGTH), cells)
}

/// One node's MSF cells before negotiation ([`msf_schedule`]): the minimal
/// shared cell, its AutoRxCell, and an AutoTxCell to each of `neighbours`
/// (its parent and children: on the computed tree, or RPL's).
pub fn msf_cells(node: NodeId, neighbours: &[NodeId]) -> Vec<Cell> {
    use super::msf::{autonomous_cell, NUM_CH_OFFSET, SLOTFRAME_LENGTH};
    let auto = |node: NodeId| {
        let eui = crate::mac::security::extended_addr(node);
        autonomous_cell(eui, SLOTFRAME_LENGTH, NUM_CH_OFFSET)
    };
    let own = auto(node);
    let mut cells = vec![shared_cell(0, 0)];
    cells.push(Cell {
        slot: u32::from(own.slot_offset),
        channel_offset: own.channel_offset as u8,
        peer: node,
        tx: false,
        shared: false,
        contention: false,
    });
    for &peer in neighbours {
        let theirs = auto(peer);
        cells.push(Cell {
            slot: u32::from(theirs.slot_offset),
            channel_offset: theirs.channel_offset as u8,
            peer,
            tx: true,
            shared: false,
            contention: true,
        });
    }
    cells
}

fn lcm(a: u32, b: u32) -> u32 {
    let gcd = |mut a: u32, mut b: u32| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    a / gcd(a, b) * b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_orchestra_hash_is_the_address_last_byte() {
        // node k's address ends in k + 1: node 254 ends in 0xff, node 255
        // in 0x0100, whose last byte is 0
        assert_eq!(orchestra_hash(0), 1);
        assert_eq!(orchestra_hash(254), 255);
        assert_eq!(orchestra_hash(255), 0);
    }

    #[test]
    fn the_minimal_schedule_is_one_shared_cell_at_slot_0() {
        let cells = minimal_schedule(3);
        assert_eq!(cells.len(), 3);
        for node in cells {
            assert_eq!(node.len(), 1);
            let c = node[0];
            assert_eq!(
                (c.slot, c.channel_offset, c.shared, c.contention),
                (0, 0, true, false)
            );
        }
    }

    #[test]
    fn orchestra_cells_by_hand() {
        // a line 0 - 1 - 2, root 0; addresses end in 0x01, 0x02, 0x03
        let topology = Topology::line(3, 1.0).unwrap();
        let (length, cells) = orchestra_schedule(&topology, 17, 31, 0);
        assert_eq!(length, 527);
        let of = |node: usize, tx: bool, contention: bool| -> Vec<(u32, u8, usize)> {
            (cells[node].iter())
                .filter(|c| !c.shared && c.tx == tx && c.contention == contention)
                .map(|c| (c.slot, c.channel_offset, c.peer))
                .take(2)
                .collect()
        };
        // node 1 listens at 2 mod 17 on channel offset 2 % 254 + 2 = 4
        assert_eq!(of(1, false, false), [(2, 4, 1), (19, 4, 1)]);
        // it sends to its parent 0 at 1 mod 17 (offset 3), to its child 2 at 3 mod 17 (offset 5)
        let tx: Vec<_> = (cells[1].iter())
            .filter(|c| c.contention && c.slot < 17)
            .map(|c| (c.slot, c.channel_offset, c.peer))
            .collect();
        assert_eq!(tx, [(1, 3, 0), (3, 5, 2)]);
        // the leaf sends only to its parent; the common cell every 31 slots
        assert!(cells[2]
            .iter()
            .filter(|c| c.contention)
            .all(|c| c.peer == 1));
        let shared: Vec<u32> = cells[2]
            .iter()
            .filter(|c| c.shared)
            .map(|c| c.slot)
            .collect();
        assert_eq!(shared.len(), 17);
        assert_eq!(&shared[..3], [0, 31, 62]);
        assert_eq!(cells[2].iter().filter(|c| !c.tx).count(), 527 / 17);
    }

    #[test]
    fn orchestra_absent_line_neighbours_by_hand() {
        // The Cooja-NG oracle's 1-hop line: Cooja's node 1 (dtlsim node 0,
        // address ending in 0x01) and node 2 (node 1, 0x02); its firmware
        // adds ids 1 ± 1 and 2 ± 1 up to 8 as neighbours, so node 2 also
        // holds node 3 (dtlsim node 2, 0x03), which is not there.
        let topology = Topology::line(2, 1.0).unwrap();
        let tx = |cells: &Vec<Cell>| -> Vec<(u32, usize)> {
            let mut v: Vec<_> = (cells.iter())
                .filter(|c| c.contention && c.slot < 17)
                .map(|c| (c.slot, c.peer))
                .collect();
            v.sort_unstable();
            v
        };
        let (_, plain) = orchestra_schedule(&topology, 17, 31, 0);
        assert_eq!(tx(&plain[1]), [(1, 0)]);
        let (_, cells) = orchestra_schedule(&topology, 17, 31, 8);
        // the server (position 1) has no position 0: only node 1's cell, slot 2
        assert_eq!(tx(&cells[0]), [(2, 1)]);
        // the client: the server's cell (slot 1) and the absent node 2's
        // (slot 3 = 0x03 mod 17), one every 17 slots, 31 in the 527
        assert_eq!(tx(&cells[1]), [(1, 0), (3, 2)]);
        let absent = cells[1].iter().filter(|c| c.contention && c.peer == 2);
        assert_eq!(absent.count(), 31);
        // listening and the common cell are as without it
        let rx = |cells: &Vec<Cell>| cells.iter().filter(|c| !c.tx).count();
        assert_eq!(rx(&cells[1]), rx(&plain[1]));
        // up to position 2 holds no more: the client is the 2nd
        let (_, two) = orchestra_schedule(&topology, 17, 31, 2);
        assert_eq!(tx(&two[1]), [(1, 0)]);
    }
}
