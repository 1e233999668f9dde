//! Orchestra's Enhanced-Beacon slotframe and what it takes from the other
//! slotframes (Contiki-NG 4.9, read at release/v4.9):
//!
//! - orchestra-rule-eb-per-time-source.c: a slotframe of
//!   `ORCHESTRA_EBSF_PERIOD` (397) slots, handle 0 (the first rule of
//!   orchestra-conf.h's default `ORCHESTRA_RULES`); a node sends its EBs in
//!   slot hash(own address) mod the period (`init`, a TX link of type
//!   ADVERTISING_ONLY) and listens at hash(time source) mod the period
//!   (`new_time_source`, an RX link), hash being `ORCHESTRA_LINKADDR_HASH`,
//!   the address's last byte; both on channel offset 1
//!   (`ORCHESTRA_EB_MIN/MAX_CHANNEL_OFFSET` 1).
//! - tsch-schedule.c `tsch_schedule_get_next_active_link`: where slotframes
//!   overlap, a link with TX beats one without, then the lowest slotframe
//!   handle wins; the loser with RX is kept as backup.
//! - tsch-slot-operation.c: the EB link only ever carries an EB
//!   (`get_packet_and_neighbor_for_link`, ADVERTISING_ONLY); with none
//!   queued the slot falls to the backup, which must have RX
//!   (`do_skip_best_link`). So in the node's own EB slot its unicast TX
//!   links (TX | SHARED, no RX: orchestra-rule-unicast-per-neighbor-rpl-ns.c)
//!   never send, and their backoff is not counted down there
//!   (`update_link_backoff` runs on the EB link); its unicast RX link
//!   listens only when no EB is queued. In the time source's EB slot the
//!   node's own unicast RX link loses to the EB RX link (both RX, handle 0
//!   first): it listens for EBs on channel offset 1, not for unicasts.
//! - tsch.c `tsch_send_eb_process`: once associated, the coordinator queues
//!   an EB at once, any other node after `random_rand() % TSCH_EB_PERIOD`;
//!   then one every [3/4, 1) of `TSCH_EB_PERIOD` (16 s, tsch-conf.h), only
//!   if none is queued still.
//!
//! The EB itself is not put on the air (nothing in the simulation listens for
//! it once the network is formed); only the slots it takes are.

use crate::Time;

/// A node's part of the EB slotframe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EbSlotframe {
    /// `ORCHESTRA_EBSF_PERIOD`, slots.
    pub period: u32,
    /// The slot the node sends its EBs in.
    pub own_slot: u32,
    /// The slot its time source sends EBs in (None: the coordinator).
    pub time_source_slot: Option<u32>,
    /// `TSCH_EB_PERIOD`, µs.
    pub eb_period_us: Time,
}

impl EbSlotframe {
    /// Is slot `asn` the node's own EB slot (its unicast TX links are
    /// hidden there)?
    pub fn is_own_slot(&self, asn: u64) -> bool {
        asn % u64::from(self.period) == u64::from(self.own_slot)
    }

    /// Is slot `asn` its time source's EB slot (it listens for EBs there)?
    pub fn is_time_source_slot(&self, asn: u64) -> bool {
        self.time_source_slot
            .is_some_and(|s| asn % u64::from(self.period) == u64::from(s))
    }
}

/// The EB slotframe of every node on the routing tree (a forest: each
/// border router a TSCH coordinator): a node's time source is its parent
/// ([`crate::topology::Topology::tree_parent`]), the
/// neighbour whose EB it joined by (in a line no other has joined before
/// it). Node k's address ends in k + 1 ([`crate::mac::security::extended_addr`]).
pub fn eb_slotframes(
    topology: &crate::topology::Topology,
    period: u32,
    eb_period_us: Time,
) -> Vec<EbSlotframe> {
    let hash = super::schedule::orchestra_hash;
    (0..topology.nodes())
        .map(|node| EbSlotframe {
            period,
            own_slot: hash(node) % period,
            time_source_slot: topology.tree_parent(node).map(|ts| hash(ts) % period),
            eb_period_us,
        })
        .collect()
}

/// When the node's EBs are queued and in which of its EB slots they go,
/// worked out as the slots are asked about (in increasing order).
#[derive(Debug, Clone)]
pub struct EbQueue {
    /// The next expiry of the EB process's timer.
    timer: Time,
    /// An EB waiting for the node's EB slot, queued at this time.
    queued: Option<Time>,
}

impl EbQueue {
    /// The EB process from `associated` on: the coordinator's first EB is
    /// queued then, another node's after `first_delay_us` (its draw below
    /// `TSCH_EB_PERIOD`).
    pub fn new(associated: Time, coordinator: bool, first_delay_us: Time) -> Self {
        EbQueue {
            timer: associated + if coordinator { 0 } else { first_delay_us },
            queued: None,
        }
    }

    /// Does an EB go in the node's EB slot starting at `slot_start` (µs)?
    /// `sf` is the node's slotframe part, `slot_us` the slot length, and
    /// `draw(n)` a draw in `0..n` for the timer's next gap. Asked for EB
    /// slots in increasing order; slots not asked about are accounted for.
    pub fn goes_in(
        &mut self,
        sf: &EbSlotframe,
        slot_us: Time,
        slot_start: Time,
        mut draw: impl FnMut(u64) -> u64,
    ) -> bool {
        let frame_us = u64::from(sf.period) * slot_us;
        let own_offset = u64::from(sf.own_slot) * slot_us;
        // start of the first own EB slot at or after `t`
        let first_slot_from = |t: Time| {
            let k = t.saturating_sub(own_offset).div_ceil(frame_us);
            own_offset + k * frame_us
        };
        loop {
            let sent_at = self.queued.map(first_slot_from);
            match sent_at {
                // an earlier EB slot sent it (before the timer fired again)
                Some(s) if s < slot_start && s < self.timer => self.queued = None,
                _ if self.timer <= slot_start => {
                    if self.queued.is_none() {
                        self.queued = Some(self.timer);
                    }
                    self.timer += super::formation::eb_gap_us(sf.eb_period_us, &mut draw);
                }
                _ => break,
            }
        }
        let goes = self
            .queued
            .is_some_and(|q| first_slot_from(q) == slot_start);
        if goes {
            self.queued = None;
        }
        goes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    #[test]
    fn eb_slots_of_a_line_by_hand() {
        // a line 0 - 1 - 2 - 3 rooted at 0: addresses end in 1..4, so node
        // k sends EBs in slot k + 1 of 397 and listens in its parent's, k
        let line = Topology::line(4, 1.0).unwrap();
        let sf = eb_slotframes(&line, 397, 16_000_000);
        assert_eq!(sf[0].own_slot, 1);
        assert_eq!(sf[0].time_source_slot, None);
        for (k, node) in sf.iter().enumerate().skip(1) {
            assert_eq!(node.own_slot, k as u32 + 1);
            assert_eq!(node.time_source_slot, Some(k as u32));
        }
        // node 1 (address ...02): its EB slots are ASN 2, 399, 796, ...;
        // its time source's (node 0's) ASN 1, 398, ...
        let n1 = sf[1];
        let own: Vec<u64> = (0..1200).filter(|&a| n1.is_own_slot(a)).collect();
        assert_eq!(own, vec![2, 399, 796, 1193]);
        let ts: Vec<u64> = (0..1200).filter(|&a| n1.is_time_source_slot(a)).collect();
        assert_eq!(ts, vec![1, 398, 795, 1192]);
        assert!(!(0..1200).any(|a| sf[0].is_time_source_slot(a)));
        // the hash wraps: with a period of 3 node 2 (…03) sends in slot 0
        assert_eq!(eb_slotframes(&line, 3, 1)[2].own_slot, 0);
    }

    #[test]
    fn an_eb_goes_in_the_first_own_slot_after_it_is_queued() {
        // period 397 slots of 10 ms: own slot 1 starts at 10 ms + k·3.97 s
        let sf = EbSlotframe {
            period: 397,
            own_slot: 1,
            time_source_slot: None,
            eb_period_us: 16_000_000,
        };
        let slot = |k: u64| 10_000 + k * 3_970_000;
        // the coordinator queues at 5 s: its EB goes in the slot at 7.95 s
        // (k = 2), the next timer is 5 s + 12 s + draw (here 1 s) = 18 s,
        // whose EB goes at 19.86 s (k = 5), then 31 s: 31.77 s (k = 8)
        let mut q = EbQueue::new(5_000_000, true, 0);
        let draw = |n: u64| {
            assert_eq!(n, 4_000_000);
            1_000_000
        };
        let got: Vec<u64> = (0..12)
            .filter(|&k| q.goes_in(&sf, 10_000, slot(k), draw))
            .collect();
        assert_eq!(got, vec![2, 5, 8]);
        // asked only about some slots: the EBs of the others are accounted
        // for, not carried over (the one of k = 5 is not sent at k = 6)
        let mut q = EbQueue::new(5_000_000, true, 0);
        let got: Vec<u64> = [0, 1, 6, 8, 9]
            .into_iter()
            .filter(|&k| q.goes_in(&sf, 10_000, slot(k), draw))
            .collect();
        assert_eq!(got, vec![8]);
        // another node waits its first delay (here 10 s) from association:
        // queued at 15 s, 28 s, 41 s
        let mut q = EbQueue::new(5_000_000, false, 10_000_000);
        let got: Vec<u64> = (0..12)
            .filter(|&k| q.goes_in(&sf, 10_000, slot(k), draw))
            .collect();
        assert_eq!(got, vec![4, 8, 11]);
    }
}
