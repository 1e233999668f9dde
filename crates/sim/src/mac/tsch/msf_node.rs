//! MSF running in one node (RFC 9033): the negotiated cells it holds with
//! its routing parent (TX) and its children (RX), the 6P transactions
//! (RFC 8480, [`super::sixp`]) that add and remove them, and the cell-usage
//! window that asks for them ([`super::msf::CellUsage::decide`]).
//!
//! Sans-IO and clock-free like the 6P machine: the TSCH MAC feeds it the
//! time, the 6top IEs it received, the link-layer fate of the responses it
//! sent and the end of each usage window; it answers with 6top IEs to send
//! (in the autonomous cells, RFC 9033 §3) and a changed cell list.
//!
//! - after joining, one ADD of one TX cell to the parent (§4);
//! - every MAX_NUM_CELLS negotiated TX cells to the parent, more than
//!   LIM_NUMCELLSUSED_HIGH used: ADD one; fewer than LIM_NUMCELLSUSED_LOW:
//!   DELETE one, never the last (§5.1). Only the TX direction to the parent
//!   is adapted here; MSF's RX cells from the parent for downward traffic
//!   (§5.2) are not (stated simplification);
//! - the candidate CellList offers [`NUM_CANDIDATES`] cells at random slots
//!   the node leaves free, random channel offsets below NUM_CH_OFFSET
//!   (§8); the parent takes the first candidate whose slot it leaves free
//!   too, or answers SUCCESS with an empty list (RFC 8480 §3.3.1);
//! - a failed transaction (timeout, RC_ERR_BUSY / LOCKED, an empty
//!   CellList) is retried after a wait drawn in [WAIT_DURATION_MIN,
//!   WAIT_DURATION_MAX) (RFC 9033 §17: 30 s, 60 s; the "waitretry" of its
//!   return-code table); RC_ERR_SEQNUM and RC_ERR_CELLLIST start a CLEAR,
//!   after which both ends drop the cells they shared and the child asks
//!   again (the table's "clear");
//! - the parent is whatever the routing layer names ([`MsfNode::set_parent`]):
//!   today the next hop to the root on the scenario's computed routes.

use rand::{Rng, RngExt};
use wpan::sixtop::{self, CellOptions, Command, ReplyBody, Repr, Request, ReturnCode};

use super::msf::{Adapt, CellUsage, NUM_CH_OFFSET, SFID};
use super::sixp::{Outcome, Role, Sixp, SixpEvent};
use super::Cell;
use crate::mac::security::{extended_addr, node_of_extended};
use crate::{NodeId, Time};

/// Cells offered in an ADD's candidate CellList. RFC 9033 §8 asks for
/// "at least one" more than NumCells (as recalled); 5 is the 6TiSCH
/// simulator's default (as recalled).
pub const NUM_CANDIDATES: usize = 5;
/// WAIT_DURATION_MIN / _MAX (RFC 9033 §17).
pub const WAIT_DURATION_MIN_US: Time = 30_000_000;
pub const WAIT_DURATION_MAX_US: Time = 60_000_000;

/// The 6P timeout MSF uses (RFC 9033's "6P Timeout Value" section, as
/// recalled, not re-read; an estimate of its formula): the worst case of a 6P frame sent in a shared
/// cell with TSCH CSMA, (2^macMaxBe - 1) backoff slotframes per attempt,
/// macMaxFrameRetries + 1 attempts: (2^max_be - 1) · (max_retries + 1) ·
/// slotframe duration. 7, 3, 101 × 10 ms: 127 · 4 · 1.01 s = 513.08 s.
pub fn sixp_timeout_us(max_be: u32, max_retries: u32, slotframe_us: Time) -> Time {
    ((1u64 << max_be) - 1) * (u64::from(max_retries) + 1) * slotframe_us
}

/// What a node's MSF needs to know from the scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsfParams {
    /// The routing parent (None: the root, or a node with no route).
    pub parent: Option<NodeId>,
    /// The 6P timeout ([`sixp_timeout_us`]).
    pub sixp_timeout_us: Time,
}

/// Per-node counts, for the per-node results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MsfStats {
    /// 6P requests sent
    pub requests: u64,
    /// 6P responses sent
    pub responses: u64,
    /// transactions abandoned on the 6P timeout
    pub timeouts: u64,
    /// 6P messages that could not be used (malformed IE or message,
    /// unexpected response) and error return codes sent or received
    pub errors: u64,
    /// negotiated cells (TX and RX) held now
    pub cells: u64,
}

/// What the MAC must do for MSF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Send {
    /// neighbour
    pub to: NodeId,
    /// the 6top IE's content: sub-ID and 6P message (the MAC wraps it in
    /// an IETF payload IE, RFC 8480 §3.2.1)
    pub ie_content: Vec<u8>,
    /// a response (its link-layer fate goes back to [`MsfNode::on_response_sent`])
    pub response: bool,
}

/// MSF in one node.
pub struct MsfNode {
    parent: Option<NodeId>,
    sixp: Sixp,
    /// negotiated cells: TX to the parent, RX from children
    cells: Vec<Cell>,
    /// slots promised in responses not yet acknowledged
    reserved: Vec<u32>,
    /// NumCellsUsed of the current window
    used: u32,
    /// an ADD to retry at this time
    retry_at: Option<Time>,
    errors: u64,
    slotframe: u32,
}

impl MsfNode {
    pub fn new(p: MsfParams, slotframe: u32) -> Self {
        MsfNode {
            parent: p.parent,
            sixp: Sixp::new(SFID, p.sixp_timeout_us),
            cells: Vec::new(),
            reserved: Vec::new(),
            used: 0,
            retry_at: None,
            errors: 0,
            slotframe,
        }
    }

    /// The node joined (synchronised): the initial ADD of one cell (§4).
    pub fn on_joined(
        &mut self,
        now: Time,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<Send> {
        self.add_one(now, busy, rng)
    }

    /// The routing layer's parent changed (not used yet: routes are fixed).
    pub fn set_parent(&mut self, parent: Option<NodeId>) {
        self.parent = parent;
    }

    pub fn parent(&self) -> Option<NodeId> {
        self.parent
    }

    /// The negotiated cells now.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Negotiated TX cells to the parent.
    pub fn tx_cells(&self) -> usize {
        self.cells.iter().filter(|c| c.tx).count()
    }

    /// A frame went out in a negotiated TX cell (NumCellsUsed, §5.1).
    pub fn on_cell_used(&mut self) {
        self.used += 1;
    }

    /// MAX_NUM_CELLS negotiated TX cells elapsed since the window began.
    pub fn on_window_end(
        &mut self,
        now: Time,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<Send> {
        let used = std::mem::take(&mut self.used);
        match CellUsage::decide(used, self.tx_cells()) {
            Adapt::Keep => Vec::new(),
            Adapt::AddOne => self.add_one(now, busy, rng),
            Adapt::DeleteOne => self.delete_one(now),
        }
    }

    /// When the MAC must call [`MsfNode::on_timer`]: a 6P timeout or a retry.
    pub fn next_deadline(&self) -> Option<Time> {
        match (self.sixp.next_deadline(), self.retry_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn on_timer(
        &mut self,
        now: Time,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<Send> {
        let mut out = Vec::new();
        let events = self.sixp.on_timer(now);
        self.handle(now, events, busy, rng, &mut out);
        if self.retry_at.is_some_and(|at| at <= now) {
            self.retry_at = None;
            out.extend(self.add_one(now, busy, rng));
        }
        out
    }

    /// A 6top IE's content (sub-ID and 6P message) arrived from `from`.
    pub fn on_ie(
        &mut self,
        now: Time,
        from: NodeId,
        content: &[u8],
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<Send> {
        if content.first() != Some(&sixtop::SUBIE_ID_6P) {
            self.errors += 1;
            return Vec::new();
        }
        let dropped = self.sixp.stats().dropped;
        let reserved = &mut self.reserved;
        let own = &self.cells;
        let me_parent = self.parent;
        let mut decide = |peer: u64, r: &Request| -> (ReturnCode, ReplyBody) {
            let Some(child) = node_of_extended(peer) else {
                return (ReturnCode::Err, ReplyBody::Empty);
            };
            decide(child, r, own, reserved, busy, me_parent)
        };
        let events = self
            .sixp
            .on_receive(extended_addr(from), &content[1..], &mut decide);
        self.errors += self.sixp.stats().dropped - dropped;
        let mut out = Vec::new();
        self.handle(now, events, busy, rng, &mut out);
        out
    }

    /// The link layer's fate of the response sent to `to`.
    pub fn on_response_sent(
        &mut self,
        now: Time,
        to: NodeId,
        acked: bool,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<Send> {
        let events = self.sixp.on_response_sent(extended_addr(to), acked);
        let mut out = Vec::new();
        self.handle(now, events, busy, rng, &mut out);
        out
    }

    /// A frame for this node whose payload IEs could not be read, or held
    /// no 6top IE: counted and dropped.
    pub fn count_malformed(&mut self) {
        self.errors += 1;
    }

    pub fn stats(&self) -> MsfStats {
        let s = self.sixp.stats();
        MsfStats {
            requests: s.requests_sent,
            responses: s.responses_sent,
            timeouts: s.timeouts,
            errors: self.errors,
            cells: self.cells.len() as u64,
        }
    }

    fn request(&mut self, now: Time, to: NodeId, req: Request) -> Vec<Send> {
        match self.sixp.request(now, extended_addr(to), req) {
            Ok(ev) => {
                let mut out = Vec::new();
                push_send(ev, &mut out);
                out
            }
            Err(_) => Vec::new(), // a transaction is open: it decides first
        }
    }

    fn add_one(&mut self, now: Time, busy: &dyn Fn(u32) -> bool, rng: &mut impl Rng) -> Vec<Send> {
        let Some(parent) = self.parent else {
            return Vec::new();
        };
        let free: Vec<u32> = (1..self.slotframe).filter(|&s| !busy(s)).collect();
        let mut cells = Vec::new();
        for _ in 0..NUM_CANDIDATES.min(free.len()) {
            let slot = free[rng.random_range(0..free.len())];
            if cells
                .iter()
                .any(|c: &sixtop::Cell| u32::from(c.slot_offset) == slot)
            {
                continue;
            }
            cells.push(sixtop::Cell {
                slot_offset: slot as u16,
                channel_offset: rng.random_range(0..NUM_CH_OFFSET),
            });
        }
        let req = Request::Add {
            metadata: 0,
            cell_options: CellOptions::TX,
            num_cells: 1,
            cells,
        };
        self.request(now, parent, req)
    }

    fn delete_one(&mut self, now: Time) -> Vec<Send> {
        let Some(parent) = self.parent else {
            return Vec::new();
        };
        let Some(last) = self.cells.iter().rev().find(|c| c.tx && c.peer == parent) else {
            return Vec::new();
        };
        let req = Request::Delete {
            metadata: 0,
            cell_options: CellOptions::TX,
            num_cells: 1,
            cells: vec![to_wire(last)],
        };
        self.request(now, parent, req)
    }

    fn wait_then_retry(&mut self, now: Time, rng: &mut impl Rng) {
        self.retry_at = Some(now + rng.random_range(WAIT_DURATION_MIN_US..WAIT_DURATION_MAX_US));
    }

    fn handle(
        &mut self,
        now: Time,
        events: Vec<SixpEvent>,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
        out: &mut Vec<Send>,
    ) {
        for ev in events {
            let SixpEvent::Done {
                peer,
                role,
                command,
                outcome,
            } = ev
            else {
                push_send(ev, out);
                continue;
            };
            let Some(peer) = node_of_extended(peer) else {
                continue;
            };
            if role == Role::Responder {
                self.reserved.clear();
            }
            match (role, outcome) {
                (
                    _,
                    Outcome::Reply {
                        code: ReturnCode::Success,
                        body,
                    },
                ) => {
                    let listed = match body {
                        ReplyBody::CellList(c) => c,
                        _ => Vec::new(),
                    };
                    let tx = role == Role::Initiator;
                    match command {
                        Command::Add if listed.is_empty() && tx => self.wait_then_retry(now, rng),
                        Command::Add => self
                            .cells
                            .extend(listed.iter().map(|c| from_wire(c, peer, tx))),
                        Command::Delete => self.cells.retain(|c| {
                            !(c.peer == peer
                                && listed.iter().any(|l| from_wire(l, peer, c.tx) == *c))
                        }),
                        Command::Clear => {
                            self.cells.retain(|c| c.peer != peer);
                            if tx && Some(peer) == self.parent {
                                out.extend(self.add_one(now, busy, rng));
                            }
                        }
                        _ => {}
                    }
                }
                (Role::Initiator, Outcome::Inconsistent)
                | (
                    Role::Initiator,
                    Outcome::Reply {
                        code: ReturnCode::ErrCelllist,
                        ..
                    },
                ) => {
                    self.errors += 1;
                    out.extend(self.request(now, peer, Request::Clear { metadata: 0 }));
                }
                (Role::Initiator, Outcome::Reply { .. }) => {
                    self.errors += 1;
                    self.wait_then_retry(now, rng);
                }
                (Role::Initiator, Outcome::Timeout)
                    if command == Command::Add || command == Command::Clear =>
                {
                    self.wait_then_retry(now, rng);
                }
                _ => {}
            }
        }
    }
}

/// The parent's answer to a child's request (RFC 9033 §5.1 as responder).
fn decide(
    child: NodeId,
    r: &Request,
    own: &[Cell],
    reserved: &mut Vec<u32>,
    busy: &dyn Fn(u32) -> bool,
    parent: Option<NodeId>,
) -> (ReturnCode, ReplyBody) {
    match r {
        Request::Add {
            cell_options,
            cells,
            ..
        } if *cell_options == CellOptions::TX && Some(child) != parent => {
            let free = cells.iter().find(|c| {
                let s = u32::from(c.slot_offset);
                s > 0 && !busy(s) && !reserved.contains(&s) && c.channel_offset < NUM_CH_OFFSET
            });
            if let Some(c) = free {
                reserved.push(u32::from(c.slot_offset));
            }
            (
                ReturnCode::Success,
                ReplyBody::CellList(free.copied().into_iter().collect()),
            )
        }
        Request::Delete { cells, .. } => {
            let held = cells
                .iter()
                .all(|c| own.contains(&from_wire(c, child, false)));
            if held {
                (ReturnCode::Success, ReplyBody::CellList(cells.clone()))
            } else {
                (ReturnCode::ErrCelllist, ReplyBody::Empty)
            }
        }
        Request::Clear { .. } => (ReturnCode::Success, ReplyBody::Empty),
        _ => (ReturnCode::Err, ReplyBody::Empty),
    }
}

fn push_send(ev: SixpEvent, out: &mut Vec<Send>) {
    if let SixpEvent::Send { peer, repr } = ev {
        if let Some(to) = node_of_extended(peer) {
            out.push(Send {
                to,
                response: !matches!(repr.message, sixtop::Message::Request(_)),
                ie_content: ie_content(&repr),
            });
        }
    }
}

/// The content of the 6top IE carrying a 6P message: the 6P sub-ID, then
/// the message (RFC 8480 §3.2.1).
pub fn ie_content(repr: &Repr) -> Vec<u8> {
    let mut b = vec![0u8; 1 + repr.buffer_len()];
    b[0] = sixtop::SUBIE_ID_6P;
    repr.emit(&mut b[1..]).expect("sized by buffer_len");
    b
}

fn to_wire(c: &Cell) -> sixtop::Cell {
    sixtop::Cell {
        slot_offset: c.slot as u16,
        channel_offset: u16::from(c.channel_offset),
    }
}

/// A negotiated cell: TX to `peer` or RX from it.
fn from_wire(c: &sixtop::Cell, peer: NodeId, tx: bool) -> Cell {
    Cell {
        slot: u32::from(c.slot_offset),
        channel_offset: c.channel_offset as u8,
        peer,
        tx,
        shared: false,
        contention: false,
    }
}
