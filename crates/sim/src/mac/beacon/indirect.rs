//! Indirect transmission (802.15.4-2006 §7.5.6.3): a coordinator keeps the
//! frames for its devices until they poll with a data request, lists them
//! as pending in its beacons, and drops those nobody polls for within
//! macTransactionPersistenceTime.

use super::slotted::{Transaction, What};
use super::BeaconMac;
use crate::mac::address::{short_addr, LinkAddressing};
use crate::mac::frame::{data_repr, seal};
use crate::world::{Cx, Received};
use crate::{NodeId, Time};

pub(super) struct Indirect {
    pub(super) payload: Vec<u8>,
    /// Built on the first request and kept, so a retry is the same frame
    /// (same sequence number and frame counter: the device drops the duplicate).
    pub(super) built: Option<(Vec<u8>, u8)>,
    pub(super) retries: u32,
    /// When the network layer handed it over (for macTransactionPersistenceTime).
    pub(super) queued_at: Time,
}

impl BeaconMac {
    /// Keep `payload` for `child` until it polls (listed as pending in the
    /// next beacon).
    pub(super) fn queue_indirect(&mut self, i: usize, payload: Vec<u8>, now: Time) {
        self.indirect[i].push_back(Indirect {
            payload,
            built: None,
            retries: 0,
            queued_at: now,
        });
    }

    /// Frames nobody polled for within macTransactionPersistenceTime expire.
    pub(super) fn expire_indirect(&mut self, now: Time) {
        let persistence =
            u64::from(self.p.transaction_persistence_bi) * self.p.beacon_interval_us();
        for queue in &mut self.indirect {
            let before = queue.len();
            queue.retain(|f| now - f.queued_at < persistence);
            self.stats.drops += (before - queue.len()) as u64;
        }
    }

    /// The devices a beacon lists as pending: at most seven fit
    /// (§7.2.2.1.6).
    pub(super) fn pending_addresses(&self) -> Vec<u16> {
        self.role
            .children
            .iter()
            .zip(&self.indirect)
            .filter(|(_, q)| !q.is_empty())
            .map(|(&c, _)| short_addr(c))
            .take(7)
            .collect()
    }

    /// Frames waiting at this coordinator for `child`'s poll.
    pub fn pending_for(&self, child: NodeId) -> usize {
        self.child_index(child)
            .map_or(0, |i| self.indirect[i].len())
    }

    pub(super) fn child_index(&self, node: NodeId) -> Option<usize> {
        self.role.children.iter().position(|&c| c == node)
    }

    /// The next transaction of the coordinator side: the head frame of a
    /// child that polled.
    pub(super) fn next_down(&mut self, cx: &mut Cx) -> Option<Transaction> {
        while let Some(child) = self.requested.pop_front() {
            let Some(i) = self.child_index(child) else {
                continue;
            };
            let more = self.indirect[i].len() > 1;
            let node = cx.node;
            let seq = self.seq.wrapping_add(1);
            let Some(head) = self.indirect[i].front_mut() else {
                continue;
            };
            let mut cpu = 0;
            if head.built.is_none() {
                let payload = head.payload.clone();
                let secured = self.security.is_some();
                let mut repr = data_repr(LinkAddressing::Short, seq, node, child, payload, secured);
                // the frame pending bit: more frames wait for the device
                repr.frame_pending = more;
                let (frame, c) = seal(self.security.as_mut(), node, repr, None);
                self.seq = seq;
                cpu = c;
                head.built = Some((frame, seq));
            }
            let (frame, seq) = head.built.clone().expect("built above");
            cx.charge_cpu(cpu);
            return Some(Transaction {
                what: What::Indirect(child),
                frame,
                seq,
                retries: 0,
                ready_at: cx.now() + cpu,
            });
        }
        None
    }

    pub(super) fn data_request(&mut self, cx: &mut Cx, rx: &Received, seq: u8) {
        let child = rx.from;
        let Some(i) = self.child_index(child) else {
            return;
        };
        let pending = !self.indirect[i].is_empty();
        self.schedule_ack(cx, rx, seq, pending);
        let in_flight = matches!(
            self.down.tx.as_ref().map(|t| t.what),
            Some(What::Indirect(c)) if c == child
        );
        if pending && !in_flight && !self.requested.contains(&child) {
            // the frame goes after the acknowledgement (see on_tx_end)
            self.requested.push_back(child);
        }
    }
}
