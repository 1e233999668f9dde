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
//!   DELETE one, never the last (§5.1);
//! - the same rule, counted apart, for the cells the node receives from
//!   its parent in (§5.1's second pair of counters): its negotiated RX
//!   cells from the parent, or, while it has none, its autonomous RX cell,
//!   "used" when the frame heard there came from the parent. Too busy: an
//!   ADD with CellOptions RX, after which the parent sends to it in a
//!   dedicated cell of its own; too idle: a DELETE, down to none. The rule
//!   as the 6TiSCH simulator's MSF runs it (SimEngine/Mote/sf.py,
//!   `indication_rx_cell_elapsed`, `_handle_rx_cell_elapsed_event`,
//!   `_adapt_to_traffic`), which is what downward traffic (a join
//!   response, a DTLS flight from the border router) needs when the
//!   child's autonomous cell, once a slotframe and shared with its own
//!   children, is all it has;
//! - the candidate CellList offers [`NUM_CANDIDATES`] cells at random slots
//!   the node leaves free, random channel offsets below NUM_CH_OFFSET
//!   (§8); the parent takes the first candidate whose slot it leaves free
//!   too, or answers SUCCESS with an empty list (RFC 8480 §3.3.1);
//! - a failed transaction (timeout, RC_ERR_BUSY / LOCKED, an empty
//!   CellList) is retried after a wait drawn in [WAIT_DURATION_MIN,
//!   WAIT_DURATION_MAX) (RFC 9033 §17: 30 s, 60 s; the "waitretry" of its
//!   return-code table); a usage window that asks for a cell during that
//!   wait asks nothing (the retry at its end is that ADD, and the next
//!   window asks again if the cells are still too busy);
//!   RC_ERR_SEQNUM and RC_ERR_CELLLIST start a CLEAR,
//!   after which both ends drop the cells they shared and the child asks
//!   again (the table's "clear");
//! - a child whose transmissions in its negotiated TX cells to the parent
//!   go unacknowledged [`MAX_FAILURES_WITHOUT_ACK`] times in a row (none
//!   acknowledged since the count began) has lost that link: the 6TiSCH
//!   simulator's RPL (SimEngine/Mote/rpl.py, `RplOF0.update_etx`) then
//!   marks the parent's ETX unacceptable (above RFC 8180's limit of 3) and
//!   its `sf.py` `indication_parent_change` sends the old parent a CLEAR and
//!   asks the new one for cells. Here routes are fixed, so the parent stays
//!   the same: a CLEAR to it (RFC 9033's return-code table: "clear"), both
//!   ends drop the cells they shared, and the child ADDs a first cell again.
//!   This is what repairs a half-installed cell (the parent never heard the
//!   ACK of its response, so never installed it). RFC 9033 §5.3's relocation
//!   compares a cell with the best cell to the same parent, so it cannot see
//!   a sole cell that nobody listens in;
//! - every HOUSEKEEPINGCOLLISION_PERIOD, a cell to the parent whose PDR
//!   (NumTxAck / NumTx, both halved at MAX_NUMTX) is more than
//!   RELOCATE_PDRTHRES below the best such cell's is moved by a 6P
//!   RELOCATE to a candidate the parent leaves free (RFC 9033 §5.3,
//!   "Handling Schedule Collisions"); as in the 6TiSCH simulator
//!   (sf.py `_housekeeping_collision`) a cell counts once its NumTx
//!   exceeds [`msf::MIN_NUM_TX`];
//! - the parent is whatever the routing layer names: the next hop to the
//!   root on the scenario's computed routes, fixed, or RPL's preferred
//!   parent ([`MsfNode::switch_parent`]). On a switch the node asks the new
//!   parent by 6P ADD for as many TX and as many RX negotiated cells as it
//!   held with the old one (at least the initial one TX cell, §4; at most
//!   [`MAX_CELLS_PER_ADD`] an ADD, the next ADD when one ends), and sends
//!   the old parent a CLEAR; the cells with the old parent are dropped when
//!   the CLEAR ends, whatever its outcome. The rule of the 6TiSCH
//!   simulator's MSF (SimEngine/Mote/sf.py,
//!   `SchedulingFunctionMSF.indication_parent_change`,
//!   `_request_adding_cells`; its CLEAR's callback drops the cells on
//!   success and failure alike), RFC 9033 §5.2's text not being in the
//!   stored sources. Where this differs from it: an ADD that fails is
//!   retried as any other here (one cell after MSF's wait), and a CLEAR
//!   that cannot start because a transaction with the old parent is open
//!   starts when that one ends.

use rand::{Rng, RngExt};
use wpan::sixtop::{self, CellOptions, Command, ReplyBody, Repr, Request, ReturnCode};

use super::msf::{self, Adapt, CellPdr, CellUsage, NUM_CH_OFFSET, SFID};
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

/// The most cells one ADD asks for on a parent switch: the 6TiSCH
/// simulator's `DEFAULT_CELL_LIST_LEN` (sf.py `_request_adding_cells`
/// asks for at most that many, then for the rest once the ADD ends).
pub const MAX_CELLS_PER_ADD: u32 = 5;

/// Transmissions to the parent in negotiated TX cells, none acknowledged,
/// after which the link is taken as lost: the 6TiSCH simulator's
/// `RplOF0.MAX_NUM_OF_CONSECUTIVE_FAILURES_WITHOUT_SUCCESS` (rpl.py; an
/// implementation's constant, no RFC gives one).
pub const MAX_FAILURES_WITHOUT_ACK: u32 = 10;
/// Transmissions after which that count begins again (the simulator's
/// `RplOF0.ETX_NUM_TX_CUTOFF`, the window its ETX is computed over).
pub const ETX_NUM_TX_CUTOFF: u32 = 100;

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
    /// CLEARs started because the link to the parent was lost
    /// ([`MAX_FAILURES_WITHOUT_ACK`])
    pub link_lost: u64,
    /// parent switches the routing layer told ([`MsfNode::switch_parent`])
    pub parent_switches: u64,
    /// cells moved by RELOCATE (RFC 9033 §5.3)
    pub relocated: u64,
    /// 6P messages that could not be used (malformed IE or message,
    /// unexpected response) and error return codes sent or received
    pub errors: u64,
    /// negotiated cells (TX and RX) held now
    pub cells: u64,
    /// the most cells used in one closed usage window of MAX_NUM_CELLS
    /// (§5.1's NumCellsUsed when read): TX cells to the parent, and cells
    /// heard from the parent in; above LIM_NUMCELLSUSED_HIGH MSF asks for
    /// a cell
    pub busiest_tx_window: u64,
    pub busiest_rx_window: u64,
    /// as the initiator, with the parent: cells an ADD installed, ADDs
    /// answered SUCCESS with no cell (no candidate free at the parent),
    /// cells a DELETE removed
    pub cells_added: u64,
    pub adds_empty: u64,
    pub cells_deleted: u64,
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
    /// NumCellsUsed of the current window: TX cells to the parent
    used: u32,
    /// and cells heard from the parent in
    rx_used: u32,
    /// an ADD to retry at this time, of a TX cell (true) or an RX one
    retry_at: Option<(Time, bool)>,
    /// transmissions in negotiated TX cells to the parent since the count
    /// began, and how many of them were acknowledged
    num_tx: u32,
    num_tx_ack: u32,
    link_lost: u64,
    /// the most cells used in a closed window, TX and RX ([`MsfStats`])
    busiest_windows: (u32, u32),
    /// cells added, ADDs answered empty, cells deleted ([`MsfStats`])
    adapted: (u64, u64, u64),
    /// NumTx / NumTxAck of each negotiated TX cell to the parent, by slot
    pdr: Vec<(u32, CellPdr)>,
    /// the next collision housekeeping (RFC 9033 §5.3)
    housekeeping_at: Option<Time>,
    /// the cells a RELOCATE open with a peer moves (either role)
    relocating: Vec<(NodeId, Vec<sixtop::Cell>)>,
    relocated: u64,
    /// the open transactions: peer, this node's role, and whether the
    /// cells they add or delete are TX cells on this node's side
    open: Vec<(NodeId, Role, bool)>,
    errors: u64,
    slotframe: u32,
    /// after a parent switch: the TX and RX cells still to ask the new
    /// parent for
    to_add: Option<(NodeId, u32, u32)>,
    /// old parents whose cells a CLEAR is to drop: (peer, CLEAR sent)
    to_clear: Vec<(NodeId, bool)>,
    parent_switches: u64,
}

impl MsfNode {
    pub fn new(p: MsfParams, slotframe: u32) -> Self {
        MsfNode {
            parent: p.parent,
            sixp: Sixp::new(SFID, p.sixp_timeout_us),
            cells: Vec::new(),
            reserved: Vec::new(),
            used: 0,
            rx_used: 0,
            retry_at: None,
            num_tx: 0,
            num_tx_ack: 0,
            link_lost: 0,
            busiest_windows: (0, 0),
            adapted: (0, 0, 0),
            pdr: Vec::new(),
            housekeeping_at: None,
            relocating: Vec::new(),
            relocated: 0,
            open: Vec::new(),
            errors: 0,
            slotframe,
            to_add: None,
            to_clear: Vec::new(),
            parent_switches: 0,
        }
    }

    /// The node joined (synchronised): the initial ADD of one cell (§4).
    pub fn on_joined(
        &mut self,
        now: Time,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<Send> {
        self.housekeeping_at = Some(now + msf::HOUSEKEEPINGCOLLISION_PERIOD_US);
        self.add_one(now, true, busy, rng)
    }

    /// The routing layer's parent changed to `parent` (see the module
    /// note): the ADDs to the new parent and the CLEAR to the old one.
    pub fn switch_parent(
        &mut self,
        now: Time,
        parent: Option<NodeId>,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<Send> {
        let old = self.parent;
        if parent == old {
            return Vec::new();
        }
        self.parent_switches += 1;
        // sf.py: as many of each as with the old parent, at least
        // NUM_INITIAL_NEGOTIATED_TX_CELLS (1) and _RX_CELLS (0)
        let (tx, rx) = match old {
            Some(_) => (self.tx_cells().max(1) as u32, self.rx_cells() as u32),
            None => (1, 0),
        };
        self.parent = parent;
        // what was counted or waited for belonged to the old parent
        (self.num_tx, self.num_tx_ack) = (0, 0);
        self.pdr.clear();
        self.retry_at = None;
        self.restart_windows();
        self.to_add = parent.map(|p| (p, tx, rx));
        self.to_clear.retain(|c| Some(c.0) != parent);
        // a CLEAR to the old parent if cells are held with it, or may be
        // once a transaction open with it ends (sent then if they are)
        if let Some(old) = old {
            let held = self.cells.iter().any(|c| c.peer == old);
            if (held || self.sixp.is_open(extended_addr(old)))
                && !self.to_clear.iter().any(|c| c.0 == old)
            {
                self.to_clear.push((old, false));
            }
        }
        let mut out = Vec::new();
        self.follow_switch(now, busy, rng, &mut out);
        out
    }

    /// Send what a parent switch still asks for when no transaction with
    /// that peer is open: the next ADD to the new parent, the CLEARs to
    /// old ones.
    fn follow_switch(
        &mut self,
        now: Time,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
        out: &mut Vec<Send>,
    ) {
        let cells = &self.cells;
        let sixp = &self.sixp;
        (self.to_clear).retain(|&(peer, sent)| {
            sent || sixp.is_open(extended_addr(peer)) || cells.iter().any(|c| c.peer == peer)
        });
        for i in 0..self.to_clear.len() {
            let (peer, sent) = self.to_clear[i];
            if !sent && !self.sixp.is_open(extended_addr(peer)) {
                let req = Request::Clear { metadata: 0 };
                let sends = self.request(now, peer, req, true);
                self.to_clear[i].1 = !sends.is_empty();
                out.extend(sends);
            }
        }
        let Some((peer, tx, rx)) = self.to_add else {
            return;
        };
        if self.sixp.is_open(extended_addr(peer)) {
            return;
        }
        let (want_tx, n) = match (tx, rx) {
            (0, 0) => {
                self.to_add = None;
                return;
            }
            (0, rx) => (false, rx.min(MAX_CELLS_PER_ADD)),
            (tx, _) => (true, tx.min(MAX_CELLS_PER_ADD)),
        };
        let sends = self.add_cells(now, want_tx, n, busy, rng);
        if !sends.is_empty() {
            self.to_add = Some(if want_tx {
                (peer, tx - n, rx)
            } else {
                (peer, tx, rx - n)
            });
        }
        out.extend(sends);
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
        self.cells_with_parent(true)
    }

    /// Negotiated RX cells from the parent.
    pub fn rx_cells(&self) -> usize {
        self.cells_with_parent(false)
    }

    fn cells_with_parent(&self, tx: bool) -> usize {
        (self.cells.iter())
            .filter(|c| c.tx == tx && Some(c.peer) == self.parent)
            .count()
    }

    /// A frame went out in a negotiated TX cell to the parent
    /// (NumCellsUsed, §5.1).
    pub fn on_cell_used(&mut self) {
        self.used += 1;
    }

    /// A transmission in a negotiated TX cell to the parent ended,
    /// acknowledged or not. The [`MAX_FAILURES_WITHOUT_ACK`]-th with none
    /// acknowledged since the count began starts a CLEAR with the parent
    /// (see the module note).
    pub fn on_parent_tx(&mut self, now: Time, slot: u32, acked: bool) -> Vec<Send> {
        let Some(parent) = self.parent else {
            return Vec::new();
        };
        // a frame that went in a cell dropped while it was on the air (a
        // CLEAR ended meanwhile) says nothing of the cells held now
        if !(self.cells.iter()).any(|c| c.tx && c.peer == parent && c.slot == slot) {
            return Vec::new();
        }
        match self.pdr.iter_mut().find(|c| c.0 == slot) {
            Some(c) => c.1.on_tx(acked),
            None => {
                let mut c = CellPdr::default();
                c.on_tx(acked);
                self.pdr.push((slot, c));
            }
        }
        self.num_tx += 1;
        self.num_tx_ack += u32::from(acked);
        if self.num_tx >= ETX_NUM_TX_CUTOFF {
            (self.num_tx, self.num_tx_ack) = (0, 0);
        }
        if self.num_tx_ack > 0 || self.num_tx < MAX_FAILURES_WITHOUT_ACK {
            return Vec::new();
        }
        (self.num_tx, self.num_tx_ack) = (0, 0);
        // counted when the CLEAR starts: while a transaction with the
        // parent is open (a CLEAR among them) that one decides first
        let out = self.request(now, parent, Request::Clear { metadata: 0 }, true);
        if !out.is_empty() {
            self.link_lost += 1;
        }
        out
    }

    /// Drop the cells shared with `peer`; with the parent, the count of
    /// unacknowledged sends in them begins again.
    fn drop_cells_with(&mut self, peer: NodeId) {
        self.cells.retain(|c| c.peer != peer);
        if Some(peer) == self.parent {
            (self.num_tx, self.num_tx_ack) = (0, 0);
        }
    }

    /// A frame from the parent was heard in a cell the RX counters count
    /// (see the module note).
    pub fn on_rx_used(&mut self) {
        self.rx_used += 1;
    }

    /// The cells changed: both windows begin again (the MAC re-arms them),
    /// so that each counts MAX_NUM_CELLS cells of one schedule.
    pub fn restart_windows(&mut self) {
        (self.used, self.rx_used) = (0, 0);
    }

    /// MAX_NUM_CELLS negotiated TX cells elapsed since the window began.
    pub fn on_window_end(
        &mut self,
        now: Time,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<Send> {
        let used = std::mem::take(&mut self.used);
        self.busiest_windows.0 = self.busiest_windows.0.max(used);
        match CellUsage::decide(used, self.tx_cells()) {
            Adapt::Keep => Vec::new(),
            Adapt::AddOne if self.retry_at.is_some() => Vec::new(),
            Adapt::AddOne => self.add_one(now, true, busy, rng),
            Adapt::DeleteOne => self.delete_one(now, true),
        }
    }

    /// MAX_NUM_CELLS cells counted for reception from the parent elapsed
    /// since the window began (none of them kept: the autonomous cell
    /// remains).
    pub fn on_rx_window_end(
        &mut self,
        now: Time,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<Send> {
        let used = std::mem::take(&mut self.rx_used);
        self.busiest_windows.1 = self.busiest_windows.1.max(used);
        match CellUsage::decide_keeping(used, self.rx_cells(), 0) {
            Adapt::Keep => Vec::new(),
            Adapt::AddOne if self.retry_at.is_some() => Vec::new(),
            Adapt::AddOne => self.add_one(now, false, busy, rng),
            Adapt::DeleteOne => self.delete_one(now, false),
        }
    }

    /// When the MAC must call [`MsfNode::on_timer`]: a 6P timeout or a retry.
    pub fn next_deadline(&self) -> Option<Time> {
        [
            self.sixp.next_deadline(),
            self.retry_at.map(|r| r.0),
            self.housekeeping_at,
        ]
        .into_iter()
        .flatten()
        .min()
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
        if let Some((at, tx)) = self.retry_at.filter(|r| r.0 <= now) {
            debug_assert!(at <= now);
            self.retry_at = None;
            out.extend(self.add_one(now, tx, busy, rng));
        }
        if self.housekeeping_at.is_some_and(|at| at <= now) {
            self.housekeeping_at = Some(now + msf::HOUSEKEEPINGCOLLISION_PERIOD_US);
            out.extend(self.housekeeping(now, busy, rng));
        }
        out
    }

    /// RFC 9033 §5.3: relocate the TX cells to the parent whose PDR is
    /// more than RELOCATE_PDRTHRES below the best one's (only cells with
    /// NumTx above [`msf::MIN_NUM_TX`] count; one cell has nothing to be
    /// compared with).
    fn housekeeping(
        &mut self,
        now: Time,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<Send> {
        let Some(parent) = self.parent else {
            return Vec::new();
        };
        let held =
            |slot: u32| (self.cells.iter()).find(|c| c.tx && c.peer == parent && c.slot == slot);
        let counted: Vec<(Cell, CellPdr)> = (self.pdr.iter())
            .filter(|(_, p)| p.num_tx() > msf::MIN_NUM_TX)
            .filter_map(|&(slot, p)| held(slot).map(|c| (*c, p)))
            .collect();
        let pdrs: Vec<CellPdr> = counted.iter().map(|c| c.1).collect();
        let relocation: Vec<sixtop::Cell> = msf::cells_to_relocate(&pdrs)
            .into_iter()
            .map(|i| to_wire(&counted[i].0))
            .collect();
        if relocation.is_empty() {
            return Vec::new();
        }
        let candidates = self.candidates(relocation.len(), busy, rng);
        let req = Request::Relocate {
            metadata: 0,
            cell_options: CellOptions::TX,
            relocation: relocation.clone(),
            candidates,
        };
        let out = self.request(now, parent, req, true);
        if !out.is_empty() {
            note_relocating(&mut self.relocating, parent, relocation);
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
        let open = &mut self.open;
        let relocating = &mut self.relocating;
        let me_parent = self.parent;
        let mut decide = |peer: u64, r: &Request| -> (ReturnCode, ReplyBody) {
            let Some(child) = node_of_extended(peer) else {
                return (ReturnCode::Err, ReplyBody::Empty);
            };
            // the cells' direction on this side: the requester's reversed
            let tx_here = matches!(r, Request::Add { cell_options, .. } | Request::Delete { cell_options, .. } if *cell_options == CellOptions::RX);
            remember(open, child, Role::Responder, tx_here);
            if let Request::Relocate { relocation, .. } = r {
                note_relocating(relocating, child, relocation.clone());
            }
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
            link_lost: self.link_lost,
            parent_switches: self.parent_switches,
            relocated: self.relocated,
            errors: self.errors,
            cells: self.cells.len() as u64,
            busiest_tx_window: u64::from(self.busiest_windows.0),
            busiest_rx_window: u64::from(self.busiest_windows.1),
            cells_added: self.adapted.0,
            adds_empty: self.adapted.1,
            cells_deleted: self.adapted.2,
        }
    }

    /// Start a transaction with `to` whose cells are TX cells on this
    /// side (`tx`) or RX ones.
    fn request(&mut self, now: Time, to: NodeId, req: Request, tx: bool) -> Vec<Send> {
        match self.sixp.request(now, extended_addr(to), req) {
            Ok(ev) => {
                remember(&mut self.open, to, Role::Initiator, tx);
                let mut out = Vec::new();
                push_send(ev, &mut out);
                out
            }
            Err(_) => Vec::new(), // a transaction is open: it decides first
        }
    }

    /// ADD one cell with the parent: TX to it (`tx`) or RX from it.
    fn add_one(
        &mut self,
        now: Time,
        tx: bool,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<Send> {
        self.add_cells(now, tx, 1, busy, rng)
    }

    /// ADD `n` cells with the parent, TX or RX.
    fn add_cells(
        &mut self,
        now: Time,
        tx: bool,
        n: u32,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<Send> {
        let Some(parent) = self.parent else {
            return Vec::new();
        };
        let cells = self.candidates(n as usize, busy, rng);
        let req = Request::Add {
            metadata: 0,
            cell_options: options(tx),
            num_cells: n as u8,
            cells,
        };
        self.request(now, parent, req, tx)
    }

    /// A candidate CellList for `n` cells: [`NUM_CANDIDATES`] - 1 more
    /// than asked for (RFC 9033 §8: NUM_CANDIDATES for one), at random
    /// free slots, random channel offsets below NUM_CH_OFFSET.
    fn candidates(
        &self,
        n: usize,
        busy: &dyn Fn(u32) -> bool,
        rng: &mut impl Rng,
    ) -> Vec<sixtop::Cell> {
        let free: Vec<u32> = (1..self.slotframe).filter(|&s| !busy(s)).collect();
        let mut cells: Vec<sixtop::Cell> = Vec::new();
        for _ in 0..(NUM_CANDIDATES + n - 1).min(free.len()) {
            let slot = free[rng.random_range(0..free.len())];
            if cells.iter().any(|c| u32::from(c.slot_offset) == slot) {
                continue;
            }
            cells.push(sixtop::Cell {
                slot_offset: slot as u16,
                channel_offset: rng.random_range(0..NUM_CH_OFFSET),
            });
        }
        cells
    }

    /// DELETE the last cell added with the parent: TX (`tx`) or RX.
    fn delete_one(&mut self, now: Time, tx: bool) -> Vec<Send> {
        let Some(parent) = self.parent else {
            return Vec::new();
        };
        let Some(last) = (self.cells.iter().rev()).find(|c| c.tx == tx && c.peer == parent) else {
            return Vec::new();
        };
        let req = Request::Delete {
            metadata: 0,
            cell_options: options(tx),
            num_cells: 1,
            cells: vec![to_wire(last)],
        };
        self.request(now, parent, req, tx)
    }

    /// Try the ADD of a `tx` (or RX) cell again after MSF's wait.
    fn wait_then_retry(&mut self, now: Time, tx: bool, rng: &mut impl Rng) {
        let at = now + rng.random_range(WAIT_DURATION_MIN_US..WAIT_DURATION_MAX_US);
        self.retry_at = Some((at, tx));
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
            let moving = (self.relocating.iter())
                .position(|r| r.0 == peer)
                .map(|i| self.relocating.swap_remove(i).1)
                .unwrap_or_default();
            // the cells' direction on this side (a transaction opened
            // before it was remembered: TX for the initiator, as before)
            let at = (self.open.iter()).position(|o| (o.0, o.1) == (peer, role));
            let tx = at.map_or(role == Role::Initiator, |i| self.open.swap_remove(i).2);
            let clearing = (self.to_clear.iter()).position(|c| *c == (peer, true));
            if let (Some(i), Role::Initiator, Command::Clear) = (clearing, role, command) {
                // the CLEAR to an old parent ended: its cells go, whatever
                // the outcome (sf.py `indication_parent_change`'s callback)
                self.to_clear.swap_remove(i);
                self.cells.retain(|c| c.peer != peer);
                continue;
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
                    let initiator = role == Role::Initiator;
                    match command {
                        Command::Add if listed.is_empty() && initiator => {
                            self.adapted.1 += 1;
                            self.wait_then_retry(now, tx, rng)
                        }
                        Command::Add => {
                            if initiator {
                                self.adapted.0 += listed.len() as u64;
                            }
                            (self.cells).extend(listed.iter().map(|c| from_wire(c, peer, tx)))
                        }
                        Command::Relocate => {
                            // RFC 8480 §3.3.3: the relocated cells, in the
                            // request's order, move to the cells answered
                            for (old, new) in moving.iter().zip(&listed) {
                                let old = from_wire(old, peer, tx);
                                self.cells.retain(|c| *c != old);
                                self.pdr.retain(|p| p.0 != old.slot || !tx);
                                self.cells.push(from_wire(new, peer, tx));
                                self.relocated += 1;
                            }
                        }
                        Command::Delete => {
                            if initiator {
                                self.adapted.2 += listed.len() as u64;
                            }
                            self.cells.retain(|c| {
                                !(c.peer == peer
                                    && c.tx == tx
                                    && listed.iter().any(|l| from_wire(l, peer, tx) == *c))
                            })
                        }
                        Command::Clear => {
                            self.drop_cells_with(peer);
                            if initiator && Some(peer) == self.parent {
                                out.extend(self.add_one(now, true, busy, rng));
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
                    out.extend(self.request(now, peer, Request::Clear { metadata: 0 }, true));
                }
                (Role::Initiator, Outcome::Reply { .. }) => {
                    self.errors += 1;
                    self.wait_then_retry(now, tx, rng);
                }
                (Role::Initiator, Outcome::Timeout) if command == Command::Clear => {
                    // the cells with the peer are dropped whatever the CLEAR's
                    // fate (the 6TiSCH simulator's sf.py: its CLEAR's callback
                    // runs `_clear_cells` on every event), then a first cell
                    // is asked for again after MSF's wait
                    self.drop_cells_with(peer);
                    self.wait_then_retry(now, true, rng);
                }
                (Role::Responder, Outcome::NotDelivered) if command == Command::Clear => {
                    // the initiator drops them on its timeout: so does the
                    // responder (the module note of [`super::sixp`])
                    self.drop_cells_with(peer);
                }
                (Role::Initiator, Outcome::Timeout) if command == Command::Add => {
                    self.wait_then_retry(now, tx, rng);
                }
                _ => {}
            }
        }
        // a parent switch goes on once transactions with the peers end
        if self.to_add.is_some() || !self.to_clear.is_empty() {
            self.follow_switch(now, busy, rng, out);
        }
        // counters only for the TX cells to the parent held now
        let (cells, parent) = (&self.cells, self.parent);
        (self.pdr)
            .retain(|p| (cells.iter()).any(|c| c.tx && Some(c.peer) == parent && c.slot == p.0));
    }
}

/// Note the direction of an open transaction with `peer` (one per peer
/// and role: a newer one replaces it).
fn remember(open: &mut Vec<(NodeId, Role, bool)>, peer: NodeId, role: Role, tx: bool) {
    open.retain(|o| (o.0, o.1) != (peer, role));
    open.push((peer, role, tx));
}

/// Note the cells a RELOCATE with `peer` moves (one open per peer).
fn note_relocating(
    relocating: &mut Vec<(NodeId, Vec<sixtop::Cell>)>,
    peer: NodeId,
    cells: Vec<sixtop::Cell>,
) {
    relocating.retain(|r| r.0 != peer);
    relocating.push((peer, cells));
}

/// The CellOptions of a negotiated cell, TX or RX.
fn options(tx: bool) -> CellOptions {
    if tx {
        CellOptions::TX
    } else {
        CellOptions::RX
    }
}

/// The parent's answer to a child's request (RFC 9033 §5.1 as responder):
/// an ADD of a TX cell (the parent receives in it) or of an RX cell (the
/// parent sends in it) takes the first candidate the parent leaves free.
fn decide(
    child: NodeId,
    r: &Request,
    own: &[Cell],
    reserved: &mut Vec<u32>,
    busy: &dyn Fn(u32) -> bool,
    parent: Option<NodeId>,
) -> (ReturnCode, ReplyBody) {
    let mut take_free = |cells: &[sixtop::Cell], n: usize| {
        let mut chosen: Vec<sixtop::Cell> = Vec::new();
        for c in cells {
            let s = u32::from(c.slot_offset);
            if chosen.len() < n
                && s > 0
                && !busy(s)
                && !reserved.contains(&s)
                && c.channel_offset < NUM_CH_OFFSET
                && !chosen.iter().any(|x| x.slot_offset == c.slot_offset)
            {
                reserved.push(s);
                chosen.push(*c);
            }
        }
        chosen
    };
    match r {
        Request::Add {
            cell_options,
            cells,
            num_cells,
            ..
        } if (*cell_options == CellOptions::TX || *cell_options == CellOptions::RX)
            && Some(child) != parent =>
        {
            (
                ReturnCode::Success,
                ReplyBody::CellList(take_free(cells, usize::from(*num_cells))),
            )
        }
        // a child moves TX cells of its own (RX cells on this side): each
        // must be one this side holds (RFC 8480 §3.3.3), and each gets the
        // next candidate this side leaves free
        Request::Relocate {
            cell_options,
            relocation,
            candidates,
            ..
        } if *cell_options == CellOptions::TX && Some(child) != parent => {
            let held = (relocation.iter()).all(|c| own.contains(&from_wire(c, child, false)));
            if !held {
                return (ReturnCode::ErrCelllist, ReplyBody::Empty);
            }
            let chosen = take_free(candidates, relocation.len());
            (ReturnCode::Success, ReplyBody::CellList(chosen))
        }
        Request::Delete {
            cells,
            cell_options,
            ..
        } => {
            // the child's TX cells are this side's RX cells, and the other way
            let tx_here = *cell_options == CellOptions::RX;
            let held = cells
                .iter()
                .all(|c| own.contains(&from_wire(c, child, tx_here)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    const PARENT: NodeId = 1;
    const CHILD: NodeId = 2;

    fn node(parent: Option<NodeId>) -> MsfNode {
        MsfNode::new(
            MsfParams {
                parent,
                sixp_timeout_us: 513_080_000,
            },
            101,
        )
    }

    /// A child and its parent after the child's first ADD (RFC 9033 §4):
    /// the child leaves only slot 40 free, the parent answers with it and
    /// the child installs it; the parent's side still waits on the ACK of
    /// its response (`on_response_sent`).
    fn after_first_add(rng: &mut ChaCha8Rng) -> (MsfNode, MsfNode) {
        let (mut child, mut parent) = (node(Some(PARENT)), node(None));
        let add = child.on_joined(0, &|s: u32| s != 40, rng);
        let answer = parent.on_ie(1_000, CHILD, &add[0].ie_content, &|_: u32| false, rng);
        child.on_ie(2_000, PARENT, &answer[0].ie_content, &|s: u32| s != 40, rng);
        (child, parent)
    }

    #[test]
    fn a_busy_receive_window_adds_an_rx_cell_the_parent_sends_in() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (mut child, mut parent) = (node(Some(PARENT)), node(None));
        // the child leaves only slot 40 free, so its candidate list is that one slot
        let child_busy = |s: u32| s != 40;
        let parent_busy = |_: u32| false;
        // 75 of 100 used is not more than LIM_NUMCELLSUSED_HIGH: nothing
        for _ in 0..75 {
            child.on_rx_used();
        }
        assert!(child.on_rx_window_end(0, &child_busy, &mut rng).is_empty());
        // 76: an ADD of one RX cell to the parent (RFC 8480 §3.2.2: 6P
        // sub-ID c9, version 0 / type request 00, code ADD 01, SFID 0,
        // SeqNum 0, metadata 00 00, CellOptions RX 02, NumCells 1, then
        // the one candidate, slot 40 = 28 00, a channel offset below 16)
        for _ in 0..76 {
            child.on_rx_used();
        }
        let sent = child.on_rx_window_end(1_000, &child_busy, &mut rng);
        assert_eq!(sent.len(), 1);
        let req = &sent[0];
        assert_eq!((req.to, req.response), (PARENT, false));
        assert_eq!(
            req.ie_content[..11],
            [0xc9, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01, 0x28, 0x00]
        );
        assert_eq!(req.ie_content.len(), 13);
        let channel = req.ie_content[11];
        assert!(channel < 16 && req.ie_content[12] == 0);
        // the parent takes the candidate and answers SUCCESS with it
        let answer = parent.on_ie(2_000, CHILD, &req.ie_content, &parent_busy, &mut rng);
        assert_eq!(answer.len(), 1);
        assert!(answer[0].response);
        assert_eq!(
            answer[0].ie_content,
            [0xc9, 0x10, 0x00, 0x00, 0x00, 0x28, 0x00, channel, 0x00]
        );
        // the child holds an RX cell from its parent once the response is in
        let done = child.on_ie(3_000, PARENT, &answer[0].ie_content, &child_busy, &mut rng);
        assert!(done.is_empty());
        let rx = Cell {
            slot: 40,
            channel_offset: channel,
            peer: PARENT,
            tx: false,
            shared: false,
            contention: false,
        };
        assert_eq!(child.cells(), [rx]);
        assert_eq!((child.rx_cells(), child.tx_cells()), (1, 0));
        // and the parent a TX cell to the child once its response is acknowledged
        assert!(parent.cells().is_empty());
        parent.on_response_sent(4_000, CHILD, true, &parent_busy, &mut rng);
        assert_eq!(
            parent.cells(),
            [Cell {
                peer: CHILD,
                tx: true,
                ..rx
            }]
        );
        // an idle window (24 of 100 < LIM_NUMCELLSUSED_LOW) gives it back:
        // a DELETE of that cell with CellOptions RX, down to no RX cell
        for _ in 0..24 {
            child.on_rx_used();
        }
        let del = child.on_rx_window_end(5_000, &child_busy, &mut rng);
        assert_eq!(del.len(), 1);
        assert_eq!(
            del[0].ie_content,
            [0xc9, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x02, 0x01, 0x28, 0x00, channel, 0x00]
        );
        let ok = parent.on_ie(6_000, CHILD, &del[0].ie_content, &parent_busy, &mut rng);
        child.on_ie(7_000, PARENT, &ok[0].ie_content, &child_busy, &mut rng);
        parent.on_response_sent(8_000, CHILD, true, &parent_busy, &mut rng);
        assert!(child.cells().is_empty() && parent.cells().is_empty());
        // with no RX cell left, an idle window asks for nothing
        assert!(child
            .on_rx_window_end(9_000, &child_busy, &mut rng)
            .is_empty());
    }

    #[test]
    fn a_cell_the_parent_never_installed_is_cleared_after_ten_unacknowledged_sends() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let child_busy = |s: u32| s != 40;
        let parent_busy = |_: u32| false;
        // after the first ADD the ACK of the response fades, so the parent
        // never installs the cell the child holds (RFC 8480 §3.4.6: only an
        // acknowledged response completes the responder's side)
        let (mut child, mut parent) = after_first_add(&mut rng);
        parent.on_response_sent(3_000, CHILD, false, &parent_busy, &mut rng);
        assert_eq!((child.tx_cells(), parent.cells().len()), (1, 0));
        // one acknowledged send, then 98 without an ACK: the link is not
        // lost while the count (ETX_NUM_TX_CUTOFF = 100 sends) holds an ACK
        assert!(child.on_parent_tx(4_000, 40, true).is_empty());
        for i in 0..98 {
            assert!(
                child.on_parent_tx(5_000 + i, 40, false).is_empty(),
                "send {i}"
            );
        }
        // the 100th send ends that count; nine more without an ACK ask for
        // nothing, the tenth starts a CLEAR
        assert!(child.on_parent_tx(7_000, 40, false).is_empty());
        for i in 0..9 {
            assert!(
                child.on_parent_tx(8_000 + i, 40, false).is_empty(),
                "send {i}"
            );
        }
        let clear = child.on_parent_tx(9_000, 40, false);
        assert_eq!(clear.len(), 1);
        // RFC 8480 §3.2.2 / §6.2.3: 6P sub-ID c9, version 0 / type request,
        // code CLEAR 07, SFID 0, SeqNum 1 (one transaction completed on
        // the child's side), metadata 00 00
        assert_eq!(
            (clear[0].to, clear[0].response, &clear[0].ie_content[..]),
            (
                PARENT,
                false,
                &[0xc9, 0x00, 0x07, 0x00, 0x01, 0x00, 0x00][..]
            )
        );
        assert_eq!(child.stats().link_lost, 1);
        // the parent answers SUCCESS with the request's SeqNum (a CLEAR is
        // not checked against it); the child drops its cell and asks for a
        // first one again with SeqNum 0 (a CLEAR resets it, RFC 8480 §3.4.6)
        let ok = parent.on_ie(10_000, CHILD, &clear[0].ie_content, &parent_busy, &mut rng);
        assert_eq!(ok[0].ie_content, [0xc9, 0x10, 0x00, 0x00, 0x01]);
        parent.on_response_sent(10_500, CHILD, true, &parent_busy, &mut rng);
        let again = child.on_ie(11_000, PARENT, &ok[0].ie_content, &child_busy, &mut rng);
        assert_eq!(child.cells(), []);
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].ie_content[..5], [0xc9, 0x00, 0x01, 0x00, 0x00]);
        // this time the response is acknowledged: both ends hold the cell
        let answer = parent.on_ie(12_000, CHILD, &again[0].ie_content, &parent_busy, &mut rng);
        parent.on_response_sent(12_500, CHILD, true, &parent_busy, &mut rng);
        child.on_ie(13_000, PARENT, &answer[0].ie_content, &child_busy, &mut rng);
        assert_eq!((child.tx_cells(), parent.cells().len()), (1, 1));
    }

    #[test]
    fn a_clear_that_times_out_still_drops_the_cells_and_retries_after_msf_wait() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let child_busy = |s: u32| s != 40;
        let (mut child, _) = after_first_add(&mut rng);
        for i in 0..MAX_FAILURES_WITHOUT_ACK {
            let sent = child.on_parent_tx(3_000 + u64::from(i), 40, false);
            assert_eq!(sent.len(), usize::from(i + 1 == MAX_FAILURES_WITHOUT_ACK));
        }
        // while the CLEAR is open, more sends without an ACK start nothing
        // and are no second lost link (the CLEAR under way decides)
        for i in 0..2 * MAX_FAILURES_WITHOUT_ACK - 1 {
            assert!(child
                .on_parent_tx(4_000 + u64::from(i), 40, false)
                .is_empty());
        }
        assert_eq!(child.stats().link_lost, 1);
        // nobody answers: at the 6P timeout the cell is gone, and an ADD
        // waits for WAIT_DURATION_MIN..MAX (RFC 9033 §17: 30-60 s)
        // (the collision housekeeping runs every minute meanwhile: one
        // cell, nothing to compare it with, nothing sent)
        let deadline = 3_009 + 513_080_000;
        let mut at = child.next_deadline().expect("the housekeeping");
        while at < deadline {
            assert!(child.on_timer(at, &child_busy, &mut rng).is_empty());
            at = child.next_deadline().expect("a deadline");
        }
        assert_eq!(at, deadline);
        assert!(child.on_timer(deadline, &child_busy, &mut rng).is_empty());
        assert_eq!(child.cells(), []);
        // a frame on the air in the dropped cell when it went ends without
        // an ACK: it says nothing of a cell held now, so no CLEAR (that
        // would be a request before MSF's wait)
        assert!(child.on_parent_tx(deadline + 1, 40, false).is_empty());
        assert_eq!(child.stats().link_lost, 1);
        let (retry, add) = loop {
            let at = child.next_deadline().expect("the ADD's wait");
            let sent = child.on_timer(at, &child_busy, &mut rng);
            if !sent.is_empty() {
                break (at, sent);
            }
        };
        assert!(
            (deadline + WAIT_DURATION_MIN_US..deadline + WAIT_DURATION_MAX_US).contains(&retry)
        );
        assert_eq!(add.len(), 1);
        assert_eq!(add[0].ie_content[2], 0x01);
    }

    #[test]
    fn a_cell_far_below_the_best_cells_pdr_is_relocated_at_the_housekeeping() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut child, mut parent) = (node(Some(PARENT)), node(None));
        let parent_busy = |_: u32| false;
        // two TX cells to the parent, at slots 40 and 60, both installed
        // at both ends
        let only = |free: u32| move |s: u32| s != free;
        let add = child.on_joined(0, &only(40), &mut rng);
        let answer = parent.on_ie(1_000, CHILD, &add[0].ie_content, &parent_busy, &mut rng);
        parent.on_response_sent(1_500, CHILD, true, &parent_busy, &mut rng);
        child.on_ie(2_000, PARENT, &answer[0].ie_content, &only(40), &mut rng);
        for _ in 0..76 {
            child.on_cell_used();
        }
        let add = child.on_window_end(3_000, &only(60), &mut rng);
        let answer = parent.on_ie(4_000, CHILD, &add[0].ie_content, &parent_busy, &mut rng);
        parent.on_response_sent(4_500, CHILD, true, &parent_busy, &mut rng);
        child.on_ie(5_000, PARENT, &answer[0].ie_content, &only(60), &mut rng);
        let slots = |n: &MsfNode| {
            let mut s: Vec<u32> = n.cells().iter().map(|c| c.slot).collect();
            s.sort();
            s
        };
        assert_eq!(
            (slots(&child), slots(&parent)),
            (vec![40, 60], vec![40, 60])
        );
        let ch60 = child
            .cells()
            .iter()
            .find(|c| c.slot == 60)
            .unwrap()
            .channel_offset;
        // 150 sends in each: all acknowledged at 40, 30 at 60 (PDR 100 %
        // and 20 %: 20 + RELOCATE_PDRTHRES 50 < 100)
        for i in 0..150 {
            assert!(child.on_parent_tx(6_000 + i, 40, true).is_empty());
            assert!(child.on_parent_tx(6_000 + i, 60, i < 30).is_empty());
        }
        // the housekeeping, a minute after joining (HOUSEKEEPINGCOLLISION_PERIOD):
        // a RELOCATE of the cell at 60 (RFC 8480 §3.2.2, §3.3.3: code 03,
        // SeqNum 2, metadata 00 00, CellOptions TX 01, NumCells 1, the
        // relocation CellList (60 = 3c 00), then the candidates: the child
        // leaves only slot 70 free)
        assert_eq!(child.next_deadline(), Some(60_000_000));
        let reloc = child.on_timer(60_000_000, &only(70), &mut rng);
        assert_eq!(reloc.len(), 1);
        let c = &reloc[0].ie_content;
        assert_eq!(
            c[..13],
            [0xc9, 0x00, 0x03, 0x00, 0x02, 0x00, 0x00, 0x01, 0x01, 0x3c, 0x00, ch60, 0x00]
        );
        assert_eq!((c.len(), c[13], c[14]), (17, 70, 0));
        // the parent holds the cell: SUCCESS with the candidate
        let ok = parent.on_ie(60_001_000, CHILD, c, &parent_busy, &mut rng);
        assert_eq!(ok[0].ie_content[..7], [0xc9, 0x10, 0x00, 0x00, 0x02, 70, 0]);
        parent.on_response_sent(60_002_000, CHILD, true, &parent_busy, &mut rng);
        child.on_ie(60_003_000, PARENT, &ok[0].ie_content, &only(70), &mut rng);
        assert_eq!(
            (slots(&child), slots(&parent)),
            (vec![40, 70], vec![40, 70])
        );
        assert_eq!((child.stats().relocated, parent.stats().relocated), (1, 1));
        // the moved cell's counters begin again: the next housekeeping
        // has only the cell at 40 to count, and asks for nothing
        assert!(child.on_timer(120_000_000, &only(80), &mut rng).is_empty());
    }

    /// Complete one request of `child` at `peer` (both ends install).
    fn exchange(
        child: &mut MsfNode,
        peer: &mut MsfNode,
        peer_id: NodeId,
        req: &Send,
        child_busy: &dyn Fn(u32) -> bool,
        rng: &mut ChaCha8Rng,
    ) -> Vec<Send> {
        assert_eq!((req.to, req.response), (peer_id, false));
        let answer = peer.on_ie(0, CHILD, &req.ie_content, &|_| false, rng);
        peer.on_response_sent(0, CHILD, true, &|_| false, rng);
        child.on_ie(0, peer_id, &answer[0].ie_content, child_busy, rng)
    }

    #[test]
    fn a_parent_switch_asks_the_new_parent_for_as_many_cells_and_clears_the_old() {
        // the 6TiSCH simulator's rule (sf.py `indication_parent_change`):
        // a child holding 2 TX and 1 RX cells with its parent (1) switches
        // to node 3
        const NEW: NodeId = 3;
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        let (mut child, mut old) = (node(Some(PARENT)), node(None));
        let mut new = node(None);
        let free = |slots: &'static [u32]| move |s: u32| !slots.contains(&s);
        let add = child.on_joined(0, &free(&[40]), &mut rng);
        exchange(
            &mut child,
            &mut old,
            PARENT,
            &add[0],
            &free(&[40]),
            &mut rng,
        );
        for _ in 0..76 {
            child.on_cell_used();
            child.on_rx_used();
        }
        let add = child.on_window_end(1, &free(&[50]), &mut rng);
        exchange(
            &mut child,
            &mut old,
            PARENT,
            &add[0],
            &free(&[50]),
            &mut rng,
        );
        let add = child.on_rx_window_end(2, &free(&[60]), &mut rng);
        exchange(
            &mut child,
            &mut old,
            PARENT,
            &add[0],
            &free(&[60]),
            &mut rng,
        );
        assert_eq!((child.tx_cells(), child.rx_cells()), (2, 1));
        assert_eq!(old.cells().len(), 3);
        // the switch: a CLEAR to the old parent (RFC 8480 §3.2.2: code 07,
        // SeqNum 3 after three transactions) and an ADD of 2 TX cells to
        // the new one (code 01, SeqNum 0, CellOptions TX 01, NumCells 2,
        // 4 + 2 candidates: every slot but 0 is free)
        let all_free = |_: u32| false;
        let sent = child.switch_parent(10, Some(NEW), &all_free, &mut rng);
        assert_eq!(sent.len(), 2);
        assert_eq!(
            (sent[0].to, &sent[0].ie_content[..]),
            (PARENT, &[0xc9, 0x00, 0x07, 0x00, 0x03, 0x00, 0x00][..])
        );
        assert_eq!(sent[1].to, NEW);
        assert_eq!(
            sent[1].ie_content[..9],
            [0xc9, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02]
        );
        // (up to NUM_CANDIDATES + 1 candidates: a slot drawn twice is offered once)
        let listed = (sent[1].ie_content.len() - 9) / 4;
        assert!((2..=NUM_CANDIDATES + 1).contains(&listed), "{listed}");
        assert_eq!(child.parent(), Some(NEW));
        assert_eq!(child.stats().parent_switches, 1);
        // the cells with the old parent stay until the CLEAR ends
        assert_eq!(child.cells().iter().filter(|c| c.peer == PARENT).count(), 3);
        // the new parent grants both TX cells; the child then asks for the
        // one RX cell (CellOptions RX 02, NumCells 1)
        let next = exchange(&mut child, &mut new, NEW, &sent[1], &all_free, &mut rng);
        assert_eq!(child.tx_cells(), 2);
        assert_eq!(next.len(), 1);
        assert_eq!(
            next[0].ie_content[..9],
            [0xc9, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x01]
        );
        let done = exchange(&mut child, &mut new, NEW, &next[0], &all_free, &mut rng);
        assert!(done.is_empty(), "nothing more to ask for");
        assert_eq!((child.tx_cells(), child.rx_cells()), (2, 1));
        assert_eq!(new.cells().len(), 3);
        // the old parent answers the CLEAR: both ends drop what they shared,
        // and the child asks the old parent for nothing again
        let again = exchange(&mut child, &mut old, PARENT, &sent[0], &all_free, &mut rng);
        assert!(again.is_empty());
        assert!(child.cells().iter().all(|c| c.peer == NEW));
        assert!(old.cells().is_empty());
    }

    #[test]
    fn a_clear_to_the_old_parent_that_times_out_still_drops_its_cells() {
        const NEW: NodeId = 3;
        let mut rng = ChaCha8Rng::seed_from_u64(19);
        let (mut child, _) = after_first_add(&mut rng);
        let sent = child.switch_parent(10_000, Some(NEW), &|s| s == 40, &mut rng);
        assert_eq!(sent.len(), 2, "a CLEAR and an ADD");
        // neither answers: at the 6P timeout the cell with the old parent
        // is gone, and nothing is retried with it (the ADD to the new one
        // waits MSF's 30-60 s, RFC 9033 §17)
        let deadline = 10_000 + 513_080_000;
        let mut out = Vec::new();
        while let Some(at) = child.next_deadline().filter(|&at| at <= deadline) {
            out.extend(child.on_timer(at, &|s| s == 40, &mut rng));
        }
        assert!(out.is_empty(), "{out:?}");
        assert_eq!(child.cells(), []);
        let (retry, add) = loop {
            let at = child.next_deadline().expect("the ADD's wait");
            let sent = child.on_timer(at, &|s| s == 40, &mut rng);
            if !sent.is_empty() {
                break (at, sent);
            }
        };
        assert!(
            (deadline + WAIT_DURATION_MIN_US..deadline + WAIT_DURATION_MAX_US).contains(&retry)
        );
        assert_eq!(add.len(), 1);
        assert_eq!((add[0].to, add[0].ie_content[2]), (NEW, 0x01));
    }

    #[test]
    fn a_relocate_of_a_cell_the_parent_does_not_hold_is_refused_and_cleared() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let mut parent = node(None);
        let req = Repr {
            sfid: SFID,
            seqnum: 0,
            message: sixtop::Message::Request(Request::Relocate {
                metadata: 0,
                cell_options: CellOptions::TX,
                relocation: vec![sixtop::Cell {
                    slot_offset: 33,
                    channel_offset: 1,
                }],
                candidates: vec![sixtop::Cell {
                    slot_offset: 44,
                    channel_offset: 2,
                }],
            }),
        };
        let answer = parent.on_ie(0, CHILD, &ie_content(&req), &|_| false, &mut rng);
        // RC_ERR_CELLLIST (RFC 8480 §6.2.4: 7), which RFC 9033's return-code
        // table answers with a CLEAR
        assert_eq!(answer[0].ie_content, [0xc9, 0x10, 0x07, 0x00, 0x00]);
    }
}
