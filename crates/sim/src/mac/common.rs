//! What the MACs that send short-addressed data frames from a queue (CSMA,
//! X-MAC, beacon-enabled) do alike: number and secure a data frame before
//! it queues, and receive one — drop a repeat, unsecure it, count it and
//! pass it up — whatever their timing.

use std::collections::HashMap;

use super::address::LinkAddressing;
use super::frame::{build_data_frame, open_data_frame, Parsed};
use super::security::NodeSecurity;
use super::MacStats;
use crate::world::{Cx, Received};
use crate::{NodeId, Time};

/// A data frame for `next_hop` numbered `seq`, secured when the node is
/// (short addresses): its bytes, and when the CPU, charged now, is done
/// securing it (what the frame waits for before its first attempt).
pub fn queued_data_frame(
    cx: &mut Cx,
    security: Option<&mut NodeSecurity>,
    addressing: LinkAddressing,
    seq: u8,
    next_hop: NodeId,
    payload: Vec<u8>,
) -> (Vec<u8>, Time) {
    let (frame, cpu) =
        build_data_frame(security, addressing, seq, cx.node, next_hop, payload, None);
    cx.charge_cpu(cpu);
    (frame, cx.now() + cpu)
}

/// A data frame for this node, past the MAC's own checks: unsecured when
/// the network is secured (refused if it does not open), counted, and its
/// payload passed up once the CPU is done with it.
pub fn pass_up(
    cx: &mut Cx,
    security: Option<&mut NodeSecurity>,
    stats: &mut MacStats,
    rx: &Received,
    parsed: Parsed,
) {
    if let Some((payload, cpu)) = open_data_frame(security, rx.from, &rx.frame, parsed, None) {
        cx.charge_cpu(cpu);
        stats.data_frames_received += 1;
        cx.deliver_after(cpu, rx.from, rx.frame.len(), payload);
    }
}

/// What happens to a data frame for this node once its acknowledgement is
/// scheduled, the same in unslotted CSMA/CA and in a beacon-enabled CAP
/// (only the acknowledgement's timing differs: here aTurnaroundTime after
/// the frame, there on the next backoff boundary): a repeat of the last
/// frame from the same neighbour (same sequence number: the sender missed
/// the ACK) is dropped (802.15.4-2006 §7.5.6.2); the rest is unsecured,
/// counted and passed up.
#[derive(Debug, Default)]
pub struct DataReceiver {
    /// Last sequence number seen per neighbour.
    last_seq: HashMap<NodeId, u8>,
}

impl DataReceiver {
    pub fn accept(
        &mut self,
        cx: &mut Cx,
        security: Option<&mut NodeSecurity>,
        stats: &mut MacStats,
        rx: &Received,
        parsed: Parsed,
        seq: u8,
    ) {
        let duplicate = self.last_seq.insert(rx.from, seq) == Some(seq);
        if duplicate {
            return;
        }
        pass_up(cx, security, stats, rx, parsed);
    }
}

/// A uniform draw in `[0, n)` from the node's MAC stream.
pub fn draw_below(cx: &mut Cx, n: u64) -> u64 {
    use rand::RngExt;
    if n == 0 {
        0
    } else {
        cx.rng().random_range(0..n)
    }
}
