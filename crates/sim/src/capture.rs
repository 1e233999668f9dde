//! What a capture of a replication holds: every copy of every frame on the
//! air (a sniffer that hears the whole network), or what one node's radio
//! sent and received (a sniffer at that node).
//!
//! A network-wide capture shows a datagram once per hop it crosses; a
//! capture at one node shows its own link-layer traffic only — the frames it
//! put on the air and those it received intact that were for it (its short or
//! extended address, the broadcast address, or an address-less
//! acknowledgement of its own last frame) — so the DTLS records of an end
//! node's session appear once each (or once per retransmission).

use wpan::frame::{Address, Frame, FrameType};

use crate::mac::address::addressed_to;
use crate::world::Sent;
use crate::{NodeId, Time};

/// Every copy on the air, in time order: (time, frame), each copy of a
/// strobe train at its own time.
pub fn on_the_air(frames: &[Sent]) -> Vec<(Time, &Sent)> {
    let mut copies: Vec<(Time, &Sent)> = frames
        .iter()
        .flat_map(|f| (0..f.copies).map(move |i| (f.at + i * f.period, f)))
        .collect();
    copies.sort_by_key(|c| c.0);
    copies
}

/// What `node` sent and received, in time order: every copy it put on the
/// air, and every copy it received intact (`heard`: receiver, emission,
/// copy) that was for it.
pub fn at_node<'a>(
    frames: &'a [Sent],
    heard: &[(NodeId, u64, u64)],
    node: NodeId,
) -> Vec<(Time, &'a Sent)> {
    let mut received: Vec<(u64, u64)> = heard
        .iter()
        .filter(|h| h.0 == node)
        .map(|&(_, emission, copy)| (emission, copy))
        .collect();
    received.sort_unstable();
    received.dedup();
    let was_received = |f: &Sent, copy: u64| received.binary_search(&(f.emission, copy)).is_ok();
    // the sequence number of the node's last frame (an address-less ACK
    // carries only the sequence number of the frame it acknowledges)
    let mut last_own_seq: Option<u8> = None;
    let mut kept = Vec::new();
    for (at, f) in on_the_air(frames) {
        // a plain frame has one copy (and no period)
        let copy = (at - f.at).checked_div(f.period).unwrap_or(0);
        let Ok(view) = Frame::new_checked(&f.frame[..]) else {
            continue;
        };
        if f.node == node {
            last_own_seq = view.sequence_number();
            kept.push((at, f));
            continue;
        }
        if !was_received(f, copy) {
            continue;
        }
        let dst = view.dst_addr();
        let for_node = match dst {
            Address::Absent => {
                view.frame_type() == FrameType::Ack
                    && view.sequence_number().is_some()
                    && view.sequence_number() == last_own_seq
            }
            _ => dst.is_broadcast() || addressed_to(dst, node),
        };
        if for_node {
            kept.push((at, f));
        }
    }
    kept
}
