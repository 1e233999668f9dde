//! One node's cells in the slotframe, indexed by slot offset: which cells a
//! slot holds, the next slot holding a cell the MAC would act in, and the
//! idle listening of the receive cells it was not woken for.
//!
//! A node that has nothing to send in a slot only listens there: from
//! TsRxOffset for TsRxWait, then back to sleep, unless a frame began. Such
//! slots are not simulated one by one; their listening time is counted in
//! closed form ([`NodeCells::idle_listen_us`]), the same figure simulating
//! them gives, and a neighbour about to send wakes the node for its slot.

use super::{Cell, Template};
use crate::Time;

pub struct NodeCells {
    slotframe: u32,
    /// Sorted by slot offset, TX before RX within a slot.
    cells: Vec<Cell>,
    /// Slot offsets holding a cell the node listens in (RX or shared).
    listen_offsets: Vec<u32>,
}

impl NodeCells {
    pub fn new(slotframe: u32, mut cells: Vec<Cell>) -> Self {
        cells.sort_by_key(|c| (c.slot, !c.tx));
        let mut listen_offsets: Vec<u32> = cells
            .iter()
            .filter(|c| !c.tx || c.shared)
            .map(|c| c.slot)
            .collect();
        listen_offsets.dedup();
        NodeCells {
            slotframe,
            cells,
            listen_offsets,
        }
    }

    pub fn all(&self) -> &[Cell] {
        &self.cells
    }

    /// This node's cells in slot offset `offset`.
    pub fn at(&self, offset: u32) -> &[Cell] {
        let from = self.cells.partition_point(|c| c.slot < offset);
        let to = from + self.cells[from..].partition_point(|c| c.slot == offset);
        &self.cells[from..to]
    }

    pub fn offset_of(&self, asn: u64) -> u32 {
        (asn % u64::from(self.slotframe)) as u32
    }

    /// Does the node listen in slot offset `offset` when it sends nothing there?
    pub fn listens_at(&self, offset: u32) -> bool {
        self.listen_offsets.binary_search(&offset).is_ok()
    }

    /// The first slot at or after `from` (an ASN) holding a cell for which
    /// `acts` is true; None if no cell is.
    pub fn next_slot_where(&self, from: u64, acts: impl Fn(&Cell) -> bool) -> Option<u64> {
        let l = u64::from(self.slotframe);
        let offset = from % l;
        let frame_start = from - offset;
        let later = self.cells.partition_point(|c| u64::from(c.slot) < offset);
        let (before, after) = self.cells.split_at(later);
        if let Some(c) = after.iter().find(|c| acts(c)) {
            return Some(frame_start + u64::from(c.slot));
        }
        before
            .iter()
            .find(|c| acts(c))
            .map(|c| frame_start + l + u64::from(c.slot))
    }

    /// Listening time within `[from, to)` of the node's receive windows
    /// (TsRxOffset to TsRxOffset + TsRxWait of every slot it listens in), as
    /// if it listened in each and heard nothing.
    pub fn idle_listen_us(&self, from: Time, to: Time, t: &Template) -> Time {
        if to <= from || self.listen_offsets.is_empty() {
            return 0;
        }
        let window = |asn: u64| {
            if !self.listens_at(self.offset_of(asn)) {
                return 0;
            }
            let a = asn * t.slot_us + t.rx_offset_us;
            (a + t.rx_wait_us).min(to).saturating_sub(a.max(from))
        };
        let (first, last) = (from / t.slot_us, (to - 1) / t.slot_us);
        if first == last {
            return window(first);
        }
        window(first) + window(last) + self.listen_slots(first + 1, last) * t.rx_wait_us
    }

    /// Slots in `[a, b)` (ASNs) the node listens in.
    fn listen_slots(&self, a: u64, b: u64) -> u64 {
        let l = u64::from(self.slotframe);
        let n = b.saturating_sub(a);
        let per_frame = self.listen_offsets.len() as u64;
        let (start, rest) = (a % l, n % l);
        let count = |lo: u64, hi: u64| {
            let offsets = &self.listen_offsets;
            (offsets.partition_point(|&o| u64::from(o) < hi)
                - offsets.partition_point(|&o| u64::from(o) < lo)) as u64
        };
        let partial = if start + rest <= l {
            count(start, start + rest)
        } else {
            count(start, l) + count(0, start + rest - l)
        };
        n / l * per_frame + partial
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cell(slot: u32, tx: bool, shared: bool) -> Cell {
        Cell {
            slot,
            channel_offset: 0,
            peer: 1,
            tx,
            shared,
            contention: false,
        }
    }

    #[test]
    fn idle_listening_by_hand() {
        // slotframe 7: RX in slot 2, TX in slot 4, shared in slot 0
        let cells = NodeCells::new(
            7,
            vec![
                cell(4, true, false),
                cell(2, false, false),
                cell(0, true, true),
            ],
        );
        let t = Template::default();
        // one slotframe from 0: listens in slots 0 and 2 (TsRxWait 2200 µs each)
        assert_eq!(cells.idle_listen_us(0, 70_000, &t), 4_400);
        // from the middle of slot 2's window (it opens at 21 020 µs) to slot 9's
        assert_eq!(cells.idle_listen_us(22_020, 90_000, &t), 1_200 + 2_200);
        // slot 4 (TX) holds no listening
        assert_eq!(cells.idle_listen_us(40_000, 50_000, &t), 0);
        assert_eq!(cells.next_slot_where(5, |c| c.tx && !c.shared), Some(11));
        assert_eq!(cells.next_slot_where(3, |c| c.tx && !c.shared), Some(4));
        assert_eq!(cells.next_slot_where(0, |_| false), None);
    }

    proptest! {
        #[test]
        fn idle_listening_matches_slot_by_slot(
            l in 1u32..30, slots in proptest::collection::vec((0u32..30, any::<bool>()), 0..6),
            from in 0u64..2_000_000, len in 0u64..3_000_000,
        ) {
            let t = Template::default();
            let cells: Vec<Cell> = slots.iter().filter(|(s, _)| *s < l)
                .map(|&(s, tx)| cell(s, tx, false)).collect();
            let nc = NodeCells::new(l, cells);
            let to = from + len;
            let brute: u64 = (from / t.slot_us..=to / t.slot_us).map(|asn| {
                if !nc.listens_at(nc.offset_of(asn)) { return 0; }
                let a = asn * t.slot_us + t.rx_offset_us;
                (a + t.rx_wait_us).min(to).saturating_sub(a.max(from))
            }).sum();
            prop_assert_eq!(nc.idle_listen_us(from, to, &t), brute);
        }
    }
}
