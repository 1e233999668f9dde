//! TSCH (IEEE 802.15.4-2015 §6.2.6): time-slotted channel hopping.
//!
//! All nodes share the absolute slot number (ASN = time / slot length). A
//! slotframe of L slots repeats; each directed link owns dedicated cells
//! (slot offset, channel offset) and the channel of a cell in a given slot
//! is `hopping[(ASN + channel offset) mod len]`. Radios are off outside the
//! node's cells.
//!
//! Inside a slot (the IEEE default 10 ms template, every timing a
//! parameter) the sender transmits at TsTxOffset, the receiver listens from
//! TsRxOffset for TsRxWait, answers with an Enhanced ACK TsTxAckDelay after
//! the frame, and the sender listens for it around that instant. With
//! link-layer security the four operations sec1..sec4 of the timeslot model (Sciancalepore et al., ETT 2017) happen at their real
//! durations: a frame whose securing (sec1) does not end by TsTxOffset is
//! not sent in that cell; a receiver that cannot unsecure the frame and
//! secure its ACK (sec2 + sec3) within TsTxAckDelay sends no ACK; a sender
//! that cannot unsecure the ACK (sec4) before the slot ends counts it as
//! missing. A frame not acknowledged is retried in the link's next cell, up
//! to `max_retries` times. Frames wait in a queue per neighbour drawing on
//! one pool of [`queues::POOL_FRAMES`], as Contiki-NG's ([`queues`]).
//!
//! Shared cells are listened to by everyone; a frame for a neighbour with no
//! dedicated cell goes there after TSCH CSMA backoff (a random number of
//! shared cells skipped, the window doubling after each failure).
//!
//! Only slots where something can happen are simulated: a node's next slot
//! is its next TX cell with a frame queued for its peer (or shared cell with
//! a frame for it), or a slot in which a neighbour about to send wakes it;
//! the idle listening of the receive cells in between is counted in closed
//! form ([`cells::NodeCells`]), the figure simulating them gives.
//!
//! Secured frames (data and Enhanced ACK) carry the TSCH nonce: the slot's
//! ASN, not a frame counter, so each attempt is secured anew in its slot and
//! a frame recorded in one slot fails its MIC in any other.
//!
//! Simplification (stated, not hidden): perfect synchronisation unless
//! clock drift is on ([`sync`]: with formation, each node's crystal
//! drifts, frames outside the receiver's guard are not heard, and
//! keep-alives, resynchronisation and loss of synchronisation follow
//! Contiki-NG's rules), and no routing messages in the shared cells. By
//! default every node is synchronised from power-on; with formation
//! ([`formation`]) a node scans until it hears an Enhanced Beacon, then
//! follows the slots and sends EBs in the shared cell.

use std::collections::{BTreeMap, HashMap};

use wpan::frame::Repr;

use models::security::SecurityLevel as ModelLevel;
use models::timeslot::StackCost;
use wpan::security::SecurityLevel;

use super::address::{addressed_to, LinkAddressing, BROADCAST_NODE, PAN_ID};
use super::common::draw_below;
use super::frame::{build_data_frame, heard, max_data_payload, open_data_frame, Parsed};
use super::phy;
use super::security::{LinkSecurity, NodeSecurity};
use super::{Mac, MacStats};
use crate::channel::{airtime_us, EmissionId};
use crate::energy::RadioState;
use crate::timer::{TimerTable, Token};
use crate::world::{Cx, Received};
use crate::{NodeId, Time};

pub mod adaptive_timesync;
pub mod after_join;
pub mod cells;
pub mod eb_slotframe;
pub mod formation;
pub mod msf;
pub mod msf_node;
pub mod queues;
pub mod scan;
pub mod schedule;
pub mod sixp;
pub mod sync;

use cells::NodeCells;
use formation::{Formation, FormationParams, FormationStats};
use queues::{FrameKind, Offered, Pending, Place, TxQueues};
use scan::{ScanEvent, Scanner};

/// Timeslot template (µs), IEEE 802.15.4-2015 Table 8-86 defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Template {
    pub slot_us: Time,
    pub tx_offset_us: Time,
    pub rx_offset_us: Time,
    pub rx_wait_us: Time,
    pub tx_ack_delay_us: Time,
    pub ack_wait_us: Time,
    pub max_tx_us: Time,
    pub max_ack_us: Time,
}

impl Default for Template {
    fn default() -> Self {
        Template {
            slot_us: 10_000,
            tx_offset_us: 2_120,
            rx_offset_us: 1_020,
            rx_wait_us: 2_200,
            tx_ack_delay_us: 1_000,
            ack_wait_us: 400,
            max_tx_us: 4_256,
            max_ack_us: 2_400,
        }
    }
}

impl Template {
    /// The ASN (absolute slot number) of the slot `at` falls in: slot 0
    /// starts at time 0 and every node shares the slot boundaries.
    pub fn asn_at(&self, at: Time) -> u64 {
        at / self.slot_us
    }
}

/// One cell of a node: in slot `slot` of every slotframe, send to or
/// receive from `peer` on channel offset `channel_offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    pub slot: u32,
    pub channel_offset: u8,
    pub peer: NodeId,
    pub tx: bool,
    /// A shared cell: every node listens, and sends there (with TSCH CSMA
    /// backoff) what it has no dedicated or contention cell for; `peer` and
    /// `tx` unused.
    pub shared: bool,
    /// A TX cell to `peer` that others sending to `peer` share too
    /// (receiver-based Orchestra's unicast cells): sent in after TSCH CSMA
    /// backoff, and only what has no dedicated cell to `peer`.
    pub contention: bool,
}

/// The IEEE 802.15.4 2.4 GHz channels 11..26 as offsets 0..15 (the
/// channel model only needs them told apart).
pub const DEFAULT_HOPPING: [u8; 16] = [5, 6, 12, 7, 15, 4, 14, 11, 8, 0, 1, 2, 13, 3, 9, 10];

#[derive(Debug, Clone, PartialEq)]
pub struct TschParams {
    pub template: Template,
    pub slotframe: u32,
    pub cells: Vec<Cell>,
    pub hopping: Vec<u8>,
    /// macMaxFrameRetries.
    pub max_retries: u32,
    pub frame_processing_us: Time,
    pub security: Option<LinkSecurity>,
    /// TSCH CSMA in shared cells: macMinBe and macMaxBe (IEEE defaults 1, 7).
    pub min_be: u32,
    pub max_be: u32,
    /// Short addresses, or extended ones at both ends of data frames and
    /// Enhanced ACKs (which then carry the destination PAN ID too).
    pub addressing: LinkAddressing,
    /// What the node's stack adds to each secured operation and to the
    /// slot (default: nothing, the datasheet lower bound).
    pub stack: SlotStack,
    /// Network formation (scan, then Enhanced Beacons); None: the node is
    /// synchronised from power-on.
    pub formation: Option<FormationParams>,
    /// MSF (RFC 9033) adds and removes negotiated cells with the parent
    /// by 6P; None: the cells are fixed.
    pub msf: Option<msf_node::MsfParams>,
    /// Clock drift, keep-alives and loss of synchronisation (with
    /// formation only); None: clocks do not drift.
    pub sync: Option<sync::SyncParams>,
    /// A busy-wait of the firmware ends at the first step of this length at
    /// or after its deadline (Cooja's native motes: 1 ms, see
    /// `mac.tsch.cooja_mote_ticks`); 0: exactly at it, as on hardware.
    pub busy_wait_step_us: Time,
    /// Orchestra's EB slotframe: the slots it takes from the others
    /// ([`eb_slotframe`]); None: not modelled.
    pub eb_slotframe: Option<eb_slotframe::EbSlotframe>,
}

impl TschParams {
    /// `cells` of a `slotframe` hopping over `hopping`, with IEEE
    /// 802.15.4-2015's defaults for the rest (the 10 ms template,
    /// macMaxFrameRetries 3, macMinBe 1, macMaxBe 7), short addresses, no
    /// security, no processing or stack cost, synchronised from power-on.
    pub fn new(slotframe: u32, cells: Vec<Cell>, hopping: Vec<u8>) -> Self {
        TschParams {
            template: Template::default(),
            slotframe,
            cells,
            hopping,
            max_retries: 3,
            frame_processing_us: 0,
            security: None,
            min_be: 1,
            max_be: 7,
            addressing: LinkAddressing::Short,
            stack: SlotStack::default(),
            formation: None,
            msf: None,
            sync: None,
            busy_wait_step_us: 0,
            eb_slotframe: None,
        }
    }
}

/// A real stack's costs around CCM* (the platform's implementation profile):
/// policy/key lookup and bus transfers per secured operation, and its own
/// work before TsTxOffset and within TsTxAckDelay. The rule is the closed
/// form's ([`models::timeslot::SecParts::of`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SlotStack {
    pub cost: StackCost,
    pub bus_us_per_byte: f64,
}

impl SlotStack {
    /// Lookup and bus time of one secured operation on a frame of
    /// `psdu_bytes` with `payload_bytes` of payload (whole µs), by the closed
    /// form's rule ([`StackCost::op_extra_us`]).
    fn op_extra_us(&self, level: SecurityLevel, psdu_bytes: usize, payload_bytes: usize) -> Time {
        let level = ModelLevel::from_value(level as u8).expect("a 3-bit level");
        let (lookup, bus) =
            self.cost
                .op_extra_us(level, psdu_bytes, payload_bytes, self.bus_us_per_byte);
        (lookup + bus).round() as Time
    }

    fn tx_prepare_us(&self) -> Time {
        self.cost.tx_prepare_us.round() as Time
    }

    fn ack_prepare_us(&self) -> Time {
        self.cost.ack_prepare_us.round() as Time
    }
}

crate::timer_kinds! {
    /// Timer kinds, one [`TimerTable`] entry each: re-arming a kind makes its
    /// earlier arming stale.
    enum Kind {
        /// A slot with one of this node's cells begins.
        Slot,
        /// A neighbour is about to send in this slot (an interrupt).
        NeighbourSends,
        /// Transmit the data frame (TsTxOffset).
        TxData,
        /// Start listening for the ACK.
        AckListen,
        /// The ACK wait (TsAckWait) is over: off unless an ACK began.
        AckGiveUp,
        /// The ACK did not come.
        AckTimeout,
        /// Nothing arrived in an RX cell: back to sleep.
        RxGiveUp,
        /// Send the Enhanced ACK (TsTxAckDelay after the frame).
        TxAck,
        /// Start listening in an RX cell (TsRxOffset).
        RxListen,
        /// Scanning: the dwell on a channel ended.
        ScanHop,
        /// Transmit the Enhanced Beacon (TsTxOffset).
        TxBeacon,
        /// MSF: MAX_NUM_CELLS negotiated cells elapsed (RFC 9033 §5.1).
        MsfWindow,
        /// MSF: a 6P timeout or a wait before retrying.
        MsfTimer,
        /// MSF: MAX_NUM_CELLS cells counted for reception from the parent
        /// elapsed (RFC 9033 §5.1's RX counters).
        MsfRxWindow,
        /// Clock drift: queue a keep-alive to the time source.
        KeepAlive,
        /// Clock drift: too long without resynchronisation, leave.
        Desync,
    }
}

/// TSCH CSMA's state for one neighbour: the backoff exponent, and the
/// first slot in which a frame to it may go in a shared or contention cell
/// again.
#[derive(Debug, Clone, Copy)]
struct Backoff {
    be: u32,
    until: u64,
}

/// Durations of the four security operations of the last exchange (µs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SecTimings {
    pub sec1_us: Time,
    pub sec2_us: Time,
    pub sec3_us: Time,
    pub sec4_us: Time,
    /// Of each, the stack's policy/key lookup and bus transfers ([`SlotStack`]);
    /// the rest is CCM*.
    pub stack_part_us: [Time; 4],
}

/// Timeslot failures, by cause (also what the minimal-timeslot search reads).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SlotFailures {
    pub sec1_late: u64,
    pub ack_not_prepared: u64,
    pub sec4_late: u64,
    pub no_ack: u64,
}

pub struct Tsch {
    p: TschParams,
    /// The frames waiting, a queue per neighbour (without a bound, a relay
    /// that receives faster than its cells drain keeps frames for ever and
    /// every frame behind them comes late).
    queues: TxQueues,
    timers: TimerTable<Kind>,
    seq: u8,
    /// The frame on the air in this slot, its seq, and the slot start.
    sending: Option<(EmissionId, u8, Time)>,
    awaiting_ack: Option<(u8, Time)>,
    /// The Enhanced ACK to send, already built (and secured).
    ack_due: Option<Vec<u8>>,
    ack_on_air: Option<EmissionId>,
    last_seq: HashMap<NodeId, u8>,
    security: Option<NodeSecurity>,
    stats: MacStats,
    pub failures: SlotFailures,
    pub timings: SecTimings,
    /// TSCH CSMA state per neighbour, as Contiki-NG keeps it per neighbour
    /// queue (tsch-queue.c): only neighbours a frame failed to in a shared
    /// or contention cell have one (see [`Tsch::shared_failed`]).
    csma: BTreeMap<NodeId, Backoff>,
    /// The shared or contention cell the frame on the air went in, if it
    /// went in one.
    shared_attempt: Option<Cell>,
    /// The frame on the air went in a negotiated MSF cell to the parent,
    /// at this slot offset (its fate goes to
    /// [`msf_node::MsfNode::on_parent_tx`]).
    parent_attempt: Option<u32>,
    /// The frame of this slot, built and secured at the slot's start.
    tx_frame: Option<Vec<u8>>,
    /// Whether that frame went secured (its Enhanced ACK comes back so).
    tx_secured: bool,
    /// The peers this node has a dedicated TX cell to, sorted (what goes
    /// to anyone else waits for a contention or shared cell).
    tx_peers: Vec<NodeId>,
    /// The peers this node has a contention TX cell to, sorted.
    contention_peers: Vec<NodeId>,
    cells: NodeCells,
    /// The last slot (ASN) simulated, and when the next is due.
    started: Option<u64>,
    next_slot_at: Option<Time>,
    /// Idle listening of skipped slots is counted up to here.
    charged_until: Time,
    /// Boxed: most networks form without it, and the MAC enum stays small.
    formation: Option<Box<Formation>>,
    /// MSF, with the cells the schedule gave (to which it adds its own).
    /// and, under routing by RPL, the neighbours it has an autonomous TX
    /// cell to on demand ([`Tsch::msf_on_demand`]).
    msf: Option<Box<MsfState>>,
    /// With the EB slotframe: when the node's EBs go, from association on.
    eb_queue: Option<Box<eb_slotframe::EbQueue>>,
    /// Clock drift and keep-alives (with formation only).
    sync: Option<Box<sync::SyncState>>,
    /// With routing above the MAC (RPL): broadcast data frames are heard,
    /// and each unicast data frame's fate waits here for the router
    /// ([`Tsch::take_tx_results`]). None: neither. Boxed: most networks
    /// carry no routing layer, and the MAC enum's size follows its largest.
    tx_results: Option<Box<TxResults>>,
}

/// The fates of unicast data frames waiting for the routing layer, and
/// whether the node left the network or joined it again since the routing
/// layer last looked ([`Tsch::take_network_changes`]).
#[derive(Debug, Default)]
struct TxResults(Vec<TxResult>, NetworkChanges);

/// What the routing layer is told of the node's membership of the TSCH
/// network (Contiki-NG tsch.h's `TSCH_CALLBACK_LEAVING_NETWORK` and
/// `TSCH_CALLBACK_JOINING_NETWORK`, which tsch-rpl.c implements).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct NetworkChanges {
    /// it left (lost synchronisation), at least once
    pub left: bool,
    /// it synchronised again after leaving, at least once
    pub rejoined: bool,
}

/// How a unicast data frame ended, as Contiki-NG's MAC reports it to
/// link-stats.c (`link_stats_packet_sent`: status and transmissions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxResult {
    pub to: NodeId,
    pub acked: bool,
    /// transmissions, the first included
    pub numtx: u32,
}

/// The peers a node has a dedicated (`contention` false) or contention TX
/// cell to, sorted.
fn peers_with(cells: &NodeCells, contention: bool) -> Vec<NodeId> {
    let mut peers: Vec<NodeId> = (cells.all().iter())
        .filter(|c| !c.shared && c.tx && c.contention == contention)
        .map(|c| c.peer)
        .collect();
    peers.sort_unstable();
    peers.dedup();
    peers
}

impl Tsch {
    pub fn new(p: TschParams) -> Self {
        let cells = NodeCells::new(p.slotframe, p.cells.clone());
        let (tx_peers, contention_peers) = (peers_with(&cells, false), peers_with(&cells, true));
        let formation = p.formation;
        let msf = p.msf.map(|m| {
            Box::new((
                msf_node::MsfNode::new(m, p.slotframe),
                p.cells.clone(),
                Vec::new(),
            ))
        });
        let sync = (p.sync)
            .filter(|_| p.formation.is_some())
            .map(|s| Box::new(sync::SyncState::new(s)));
        Tsch {
            sync,
            msf,
            security: p.security.map(NodeSecurity::new),
            p,
            queues: TxQueues::new(
                queues::POOL_FRAMES,
                queues::per_neighbour_default(queues::POOL_FRAMES),
            ),
            timers: TimerTable::new(),
            seq: 0,
            sending: None,
            awaiting_ack: None,
            ack_due: None,
            ack_on_air: None,
            last_seq: HashMap::new(),
            stats: MacStats::default(),
            failures: SlotFailures::default(),
            timings: SecTimings::default(),
            csma: BTreeMap::new(),
            shared_attempt: None,
            parent_attempt: None,
            tx_frame: None,
            tx_secured: false,
            tx_peers,
            contention_peers,
            cells,
            started: None,
            next_slot_at: None,
            charged_until: 0,
            formation: formation.map(|p| Box::new(Formation::new(p))),
            eb_queue: None,
            tx_results: None,
        }
    }

    /// Carry the routing layer's frames: hear broadcast data frames (RPL's
    /// DIOs) and keep each unicast data frame's fate for
    /// [`Tsch::take_tx_results`].
    pub fn carry_routing(&mut self) {
        self.tx_results.get_or_insert_with(Box::default);
    }

    /// The fates of unicast data frames since the last call.
    pub fn take_tx_results(&mut self) -> Vec<TxResult> {
        self.tx_results
            .as_mut()
            .map(|r| std::mem::take(&mut r.0))
            .unwrap_or_default()
    }

    /// Whether the node left the network or rejoined it since the last
    /// call (nothing without routing above the MAC).
    pub fn take_network_changes(&mut self) -> NetworkChanges {
        (self.tx_results.as_mut())
            .map_or_else(NetworkChanges::default, |r| std::mem::take(&mut r.1))
    }

    fn report_tx(&mut self, p: &Pending, acked: bool) {
        if let Some(r) = self.tx_results.as_mut() {
            if p.kind == FrameKind::Data && p.dst != BROADCAST_NODE {
                r.0.push(TxResult {
                    to: p.dst,
                    acked,
                    numtx: p.retries + 1,
                });
            }
        }
    }

    fn slot_us(&self) -> Time {
        self.p.template.slot_us
    }

    fn channel(&self, asn: u64, cell: &Cell) -> u8 {
        let n = self.p.hopping.len() as u64;
        self.p.hopping[((asn + u64::from(cell.channel_offset)) % n) as usize]
    }

    /// The cell the node listens in at slot offset `offset` when it sends
    /// nothing: its own receive cell before a shared one (Orchestra's
    /// unicast slotframe before its common one).
    fn listen_cell(&self, offset: u32) -> Option<Cell> {
        let cells = self.cells.at(offset);
        (cells.iter().find(|c| !c.tx && !c.shared))
            .or_else(|| cells.iter().find(|c| c.shared))
            .copied()
    }

    /// Would the node send in `cell` with what it has queued now (or, in a
    /// contention or shared cell, count down its backoff there)?
    fn sends_in(&self, cell: &Cell) -> bool {
        self.queue_index_for(cell).is_some()
    }

    /// The first queued frame that may go in `cell`: one for its peer in a
    /// dedicated cell; one for its peer without a dedicated cell to it in a
    /// contention cell; one for a neighbour with neither in a shared cell.
    fn queue_index_for(&self, cell: &Cell) -> Option<Place> {
        self.first_for(cell, |_| true)
    }

    /// The first queued frame that may go in `cell` (the rule of
    /// [`Tsch::goes_in`]) and passes `also`: a cell addressed to a neighbour
    /// serves that neighbour's queue, a shared cell every neighbour's
    /// (tsch-slot-operation.c `get_packet_and_neighbor_for_link`).
    fn first_for(&self, cell: &Cell, also: impl Fn(&Pending) -> bool) -> Option<Place> {
        let may = |p: &Pending| self.goes_in(cell, p) && also(p);
        if cell.shared {
            self.queues.first_of_all(may)
        } else if cell.tx {
            self.queues.first_to(cell.peer, may)
        } else {
            None
        }
    }

    /// May queued frame `p` go in `cell` (the rule of [`Tsch::queue_index_for`])?
    fn goes_in(&self, cell: &Cell, p: &Pending) -> bool {
        let has = |peers: &[NodeId], dst: NodeId| peers.binary_search(&dst).is_ok();
        if cell.shared {
            !has(&self.contention_peers, p.dst)
                && (p.kind != FrameKind::Data || !has(&self.tx_peers, p.dst))
        } else if !cell.tx {
            false
        } else if cell.contention {
            // 6P goes in the autonomous cells even when negotiated ones exist
            p.dst == cell.peer && (p.kind != FrameKind::Data || !has(&self.tx_peers, cell.peer))
        } else {
            p.dst == cell.peer && p.kind == FrameKind::Data
        }
    }

    /// Start of the first slot beginning at or after `after` (and after
    /// the last one simulated) in which the node would send; None if it has
    /// nothing to send. Receive slots wait for a neighbour to wake them.
    fn next_send_slot(&self, after: Time) -> Option<Time> {
        if self.scanning() {
            return None;
        }
        let slot_us = self.slot_us();
        let from = after
            .div_ceil(slot_us)
            .max(self.started.map_or(0, |s| s + 1));
        let data = self.next_acting_slot(from, |c| self.sends_in(c));
        // an EB due goes in the first shared cell from its due time
        let eb = self.eb_due().and_then(|due| {
            let from = from.max(due.div_ceil(slot_us));
            self.cells.next_slot_where(from, |c| c.shared)
        });
        let first = match (data, eb) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        first.map(|asn| asn * slot_us)
    }

    /// The first slot at or after `from` with a cell for which `acts` is
    /// true and that the cell has: in the node's own slot of Orchestra's EB
    /// slotframe only a shared cell does (its EB link hides the unicast TX
    /// links, which have no RX to be its backup; see [`eb_slotframe`]).
    fn next_acting_slot(&self, from: u64, acts: impl Fn(&Cell) -> bool) -> Option<u64> {
        let Some(eb) = self.p.eb_slotframe else {
            return self.cells.next_slot_where(from, acts);
        };
        // after both slotframes' common period the pattern repeats
        let horizon = from + u64::from(self.p.slotframe) * u64::from(eb.period);
        let mut at = from;
        while at < horizon {
            let asn = self.cells.next_slot_where(at, &acts)?;
            let offset = self.cells.offset_of(asn);
            if !eb.is_own_slot(asn) || self.cells.at(offset).iter().any(|c| c.shared && acts(c)) {
                return Some(asn);
            }
            at = asn + 1;
        }
        None
    }

    /// Does the node's EB go in slot `asn`, its own EB slot?
    fn eb_goes_in(&mut self, cx: &mut Cx, asn: u64) -> bool {
        let slot_us = self.slot_us();
        match (self.p.eb_slotframe, self.eb_queue.as_mut()) {
            (Some(sf), Some(q)) => q.goes_in(&sf, slot_us, asn * slot_us, |n| draw_below(cx, n)),
            _ => false,
        }
    }

    /// The node is part of the network from now: its EB process starts
    /// (the first EB at once at the coordinator, after a draw below
    /// `TSCH_EB_PERIOD` elsewhere: tsch.c `tsch_send_eb_process`).
    fn start_eb_process(&mut self, cx: &mut Cx) {
        if let Some(sf) = self.p.eb_slotframe {
            let coordinator = sf.time_source_slot.is_none();
            let first = if coordinator {
                0
            } else {
                draw_below(cx, sf.eb_period_us)
            };
            self.eb_queue = Some(Box::new(eb_slotframe::EbQueue::new(
                cx.now(),
                coordinator,
                first,
            )));
        }
    }

    /// Still scanning for an Enhanced Beacon (formation only).
    fn scanning(&self) -> bool {
        self.formation.as_ref().is_some_and(|f| f.scanner.is_some())
    }

    /// When an EB is due (formation only, once synchronised).
    fn eb_due(&self) -> Option<Time> {
        self.formation.as_ref().and_then(|f| f.eb_due())
    }

    /// The scan asks to listen on a channel, or has synchronised.
    fn on_scan_event(&mut self, cx: &mut Cx, ev: ScanEvent) {
        match ev {
            ScanEvent::Listen(channel) => {
                cx.tune(channel);
                cx.set_radio(RadioState::Listen);
                if let Some(sc) = self.formation.as_ref().and_then(|f| f.scanner.as_ref()) {
                    let at = sc.deadline();
                    self.timers.set(cx, Kind::ScanHop, at);
                }
            }
            ScanEvent::Synced(sync) => self.synchronise(cx, sync),
        }
    }

    /// Follow the network's slots from the EB heard: the EB's slot began
    /// `sync.slot_start`, which is slot `sync.asn`'s boundary for every
    /// node (clocks do not drift), so the node keeps the shared ASN = time
    /// / slot length from here and starts as a synchronised node does, its
    /// own first EB queued at once (Contiki-NG's `tsch_tx_process` queues
    /// one as soon as the node is associated, as recalled).
    fn synchronise(&mut self, cx: &mut Cx, sync: scan::Sync) {
        let now = cx.now();
        let slot_us = self.slot_us();
        debug_assert_eq!(
            sync.slot_start,
            sync.asn * slot_us,
            "an EB off the slot grid"
        );
        let f = self.formation.as_mut().expect("synchronised by a scan");
        if let Some(sc) = f.scanner.take() {
            f.stats.ebs_heard += sc.counts().0;
            f.stats.ebs_malformed += sc.malformed();
            f.stats.scan_us += now - sc.started();
            f.stats.scan_hops += sc.hops();
        }
        // the first synchronisation stays the node's (a rejoin is counted apart)
        let first = f.stats.synchronised_at.is_none();
        f.stats.synchronised_at.get_or_insert(now);
        f.hops = sync.join_metric.saturating_add(1);
        // its first EB at once, if it is part of the network (else on joining)
        f.next_eb_at = f.joined.then_some(now);
        self.timers.stop(Kind::ScanHop);
        cx.set_radio(RadioState::Off);
        self.charged_until = now.div_ceil(slot_us) * slot_us;
        cx.wake_on_neighbour_send(Some(self.timers.interrupt(Kind::NeighbourSends)));
        let next = self.next_send_slot(now);
        self.arm_slot(cx, next);
        // the EB's sender: a pledge's join proxy (RFC 9031 §4-5); a rejoin
        // after losing synchronisation takes the new sender, the one heard
        if let Some(source) = super::security::node_of_extended(sync.source) {
            cx.set_synced_on(source);
        }
        self.sync_associated(cx, sync.source);
        // joined: MSF asks its parent for a first cell (RFC 9033 §4); a
        // rejoin keeps MSF's cells
        if first {
            self.msf_joined(cx);
        }
    }

    /// Build this slot's EB (its ASN, the node's join metric) and send it
    /// in the shared `cell` at TsTxOffset, waking the hearers as a data
    /// frame does.
    fn send_eb(&mut self, cx: &mut Cx, cell: &Cell, asn: u64) {
        let channel = self.channel(asn, cell);
        let slotframe = self.p.slotframe;
        let f = self.formation.as_mut().expect("EBs only with formation");
        f.eb_seq = f.eb_seq.wrapping_add(1);
        f.eb_queued_at = f.next_eb_at.take().unwrap_or(cx.now());
        let metric = formation::hop_join_metric(f.hops);
        let src = super::security::extended_addr(cx.node);
        f.eb_frame = Some(formation::enhanced_beacon(
            f.eb_seq, src, asn, metric, slotframe,
        ));
        cx.wake_hearers(channel);
        cx.tune(channel);
        let at = cx.now() + self.p.template.tx_offset_us;
        self.timers.set(cx, Kind::TxBeacon, at);
    }

    /// What formation came to at this node (None without formation).
    pub fn formation_stats(&self) -> Option<FormationStats> {
        let sync = self.sync.as_ref().map(|s| s.stats);
        self.formation
            .as_ref()
            .map(|f| FormationStats { sync, ..f.report() })
    }

    /// Arm the slot timer for `next` (None: no slot), unless it already is.
    fn arm_slot(&mut self, cx: &mut Cx, next: Option<Time>) {
        if next != self.next_slot_at {
            match next {
                Some(at) => self.timers.set(cx, Kind::Slot, at),
                None => self.timers.stop(Kind::Slot),
            }
            self.next_slot_at = next;
        }
    }

    /// Count the idle listening of the skipped receive slots up to `to`
    /// (the radio was off in them, as far as the meter knows).
    fn charge_idle_listening(&mut self, cx: &mut Cx, to: Time) {
        if self.scanning() {
            return; // the radio listens for real; counting starts at synchronisation
        }
        if to > self.charged_until {
            // an idle RX wait lasts as long as the busy-wait does
            let mut template = self.p.template;
            template.rx_wait_us = self.busy_wait(template.rx_wait_us);
            let us = self.cells.idle_listen_us(self.charged_until, to, &template);
            if us > 0 {
                cx.reclassify_off_as_listen(us);
            }
            self.charged_until = to;
        }
    }

    /// The prepared frame goes out in `cell` this slot: its hearers are
    /// woken on the slot's channel and it is sent at TsTxOffset.
    fn send_in(&mut self, cx: &mut Cx, cell: &Cell, asn: u64, shared: bool) {
        self.shared_attempt = shared.then_some(*cell);
        if shared {
            self.parent_attempt = None;
        }
        let channel = self.channel(asn, cell);
        cx.wake_hearers(channel);
        cx.tune(channel);
        let at = cx.now() + self.p.template.tx_offset_us;
        self.timers.set(cx, Kind::TxData, at);
    }

    fn start_slot(&mut self, cx: &mut Cx) {
        let now = cx.now();
        let slot_us = self.slot_us();
        let asn = now / slot_us;
        if self.started == Some(asn) {
            return; // already simulated (a neighbour woke the node first)
        }
        self.charge_idle_listening(cx, now);
        self.started = Some(asn);
        self.charged_until = (asn + 1) * slot_us;
        let next = self.next_send_slot(now + 1);
        self.arm_slot(cx, next);
        let offset = self.cells.offset_of(asn);
        // Orchestra's EB slotframe: in the node's own EB slot its EB link
        // wins over every unicast link (a queued EB goes, nothing else);
        // in its time source's it listens for EBs, not for unicasts
        let eb_sf = self.p.eb_slotframe;
        let eb_own = eb_sf.is_some_and(|e| e.is_own_slot(asn));
        if eb_own && self.eb_goes_in(cx, asn) {
            return;
        }
        let eb_listen = eb_sf.is_some_and(|e| e.is_time_source_slot(asn));
        let cells = self.cells.at(offset);
        // a dedicated TX cell with a frame for its peer wins; then a
        // contention or shared cell with a frame for it (after backoff);
        // otherwise listen
        let dedicated = cells
            .iter()
            .filter(|c| !c.shared && !c.contention && !eb_own)
            .find_map(|c| self.queue_index_for(c).map(|i| (*c, i)));
        let contended = cells
            .iter()
            .filter(|c| c.shared || (c.contention && !eb_own))
            .find_map(|c| {
                let waited = |p: &Pending| self.csma.get(&p.dst).is_none_or(|b| asn >= b.until);
                self.first_for(c, waited).map(|i| (*c, i))
            });
        let listen = self.listen_cell(offset).filter(|_| !eb_listen);
        let eb_cell = (self.eb_due().is_some_and(|due| due <= now))
            .then(|| cells.iter().find(|c| c.shared).copied())
            .flatten();
        if let Some((cell, idx)) = dedicated {
            if self.prepare_tx(cx, idx, asn) {
                self.parent_attempt = None;
                // MSF's dedicated cells are its negotiated ones; its TX
                // counters count those to the parent (RFC 9033 §5.1)
                if let Some(m) = self
                    .msf
                    .as_mut()
                    .filter(|m| m.0.parent() == Some(cell.peer))
                {
                    m.0.on_cell_used();
                    self.parent_attempt = Some(cell.slot);
                }
                self.send_in(cx, &cell, asn, false);
            } else {
                self.retry_or_drop(cx);
            }
            return;
        }
        if let Some(cell) = eb_cell {
            // the EB goes before any data in the shared cell (Contiki-NG
            // serves an advertising link's EB queue first, as recalled)
            self.send_eb(cx, &cell, asn);
            return;
        }
        if let Some((cell, idx)) = contended {
            if self.prepare_tx(cx, idx, asn) {
                self.send_in(cx, &cell, asn, true);
                return;
            }
            self.retry_or_drop(cx);
        }
        if let Some(cell) = listen {
            let channel = self.channel(asn, &cell);
            cx.tune(channel);
            // listen from TsRxOffset; give up after TsRxWait unless a frame began
            let listen_at = now + self.p.template.rx_offset_us;
            self.timers.set(cx, Kind::RxListen, listen_at);
        }
    }

    /// Try the frame at `at` in this slot and build its frame for slot
    /// `asn` (sec1, charged as CPU time). False if securing, or turning the
    /// radio around, would not end by TsTxOffset: the frame is not sent.
    fn prepare_tx(&mut self, cx: &mut Cx, at: Place, asn: u64) -> bool {
        let pending = self.queues.start_attempt(at);
        let payload = pending.payload.len();
        let sealed = after_join::seals(self.p.security.as_ref(), cx, pending.dst);
        let sec = self.security.as_mut().filter(|_| sealed);
        let (frame, ccm1) = if pending.kind == FrameKind::Data {
            build_data_frame(
                sec,
                self.p.addressing,
                pending.seq,
                cx.node,
                pending.dst,
                pending.payload.clone(),
                Some(asn),
            )
        } else {
            let repr = sixtop_frame(
                self.p.addressing,
                pending.seq,
                cx.node,
                pending.dst,
                pending.payload.clone(),
                sec.is_some(),
            );
            super::frame::seal(sec, cx.node, repr, Some(asn))
        };
        let extra1 = if sealed {
            self.op_extra_us(frame.len(), payload)
        } else {
            0
        };
        let sec1 = ccm1 + extra1;
        let prepare = self.p.stack.tx_prepare_us();
        cx.charge_cpu(prepare + sec1);
        self.timings.sec1_us = sec1;
        self.timings.stack_part_us[0] = extra1;
        if (prepare + sec1).max(phy::TURNAROUND_US) > self.p.template.tx_offset_us {
            self.failures.sec1_late += 1;
            return false;
        }
        self.tx_frame = Some(frame);
        self.tx_secured = sealed;
        true
    }

    /// The stack's lookup and bus time for one secured operation on a frame
    /// (nothing when the link is not secured).
    fn op_extra_us(&self, psdu_bytes: usize, payload_bytes: usize) -> Time {
        match &self.p.security {
            Some(sec) => self
                .p
                .stack
                .op_extra_us(sec.level, psdu_bytes, payload_bytes),
            None => 0,
        }
    }

    /// The security layer to open a frame from `from` with (None inside:
    /// open it unsecured), or None when it is dropped: a pledge cannot open
    /// a secured frame, counted as naming a key it lacks (`after_join`).
    fn opening(
        &mut self,
        cx: &Cx,
        from: NodeId,
        frame: &[u8],
        to_me: bool,
    ) -> Option<Option<&mut NodeSecurity>> {
        let how = after_join::opens(self.p.security.as_ref(), cx, from, frame, to_me);
        self.open_as(how)
    }

    /// The security layer for `how` (see [`Self::opening`]).
    fn open_as(&mut self, how: after_join::Opens) -> Option<Option<&mut NodeSecurity>> {
        match how {
            after_join::Opens::Secured => Some(self.security.as_mut()),
            after_join::Opens::Unsecured => Some(None),
            after_join::Opens::Drop => {
                if let Some(sec) = self.security.as_mut() {
                    sec.refuse_without_key();
                }
                None
            }
        }
    }

    fn asn_at(&self, at: Time) -> u64 {
        self.p.template.asn_at(at)
    }

    /// A broadcast data frame heard (a DIO): opened and passed up, not
    /// acknowledged. Only a data frame: an EB goes to formation and sync.
    fn accept_broadcast(&mut self, cx: &mut Cx, rx: &Received) {
        let Some(parsed) = Parsed::of(&rx.frame) else {
            return;
        };
        if parsed.data().is_none() {
            return;
        }
        let asn = self.asn_at(rx.at);
        let Some(sec) = self.opening(cx, rx.from, &rx.frame, false) else {
            return;
        };
        let Some((payload, ccm2)) = open_data_frame(sec, rx.from, &rx.frame, parsed, Some(asn))
        else {
            return;
        };
        let extra2 = self.op_extra_us(rx.frame.len(), payload.len());
        cx.charge_cpu(ccm2 + extra2);
        self.stats.data_frames_received += 1;
        cx.deliver_after(ccm2 + extra2, rx.from, rx.frame.len(), payload);
    }

    /// A data frame for this node, opened: acknowledge it (within
    /// TsTxAckDelay) and pass on what it carried.
    fn accept_frame(&mut self, cx: &mut Cx, rx: &Received, seq: u8, opened: Opened, ccm2: Time) {
        let t = self.p.template;
        let payload = match &opened {
            Opened::Data(p) => p.as_slice(),
            Opened::Sixtop(ie) => ie.as_slice(),
            Opened::Malformed => &[],
        };
        let extra2 = self.op_extra_us(rx.frame.len(), payload.len());
        let sec2 = ccm2 + extra2;
        let prepare = self.p.stack.ack_prepare_us();
        cx.charge_cpu(sec2 + prepare);
        self.msf_count_rx(rx, cx.node);
        if self.last_seq.insert(rx.from, seq) == Some(seq) {
            // our ACK was lost and the sender retries: acknowledge it again
            let (ack, sec3) = self.ack_frame(cx, rx.from, seq, &rx.frame);
            cx.charge_cpu(sec3);
            if (sec2 + prepare + sec3).max(phy::TURNAROUND_US) <= t.tx_ack_delay_us {
                self.ack_due = Some(ack);
                self.timers.set(cx, Kind::TxAck, rx.at + t.tx_ack_delay_us);
            }
            return;
        }
        // sec3: the ACK is built and secured now, sent TsTxAckDelay after the frame
        let (ack, sec3) = self.ack_frame(cx, rx.from, seq, &rx.frame);
        cx.charge_cpu(sec3);
        self.timings.sec2_us = sec2;
        self.timings.sec3_us = sec3;
        self.timings.stack_part_us[1] = extra2;
        // unsecure, build and secure the ACK, and turn the radio around, within TsTxAckDelay
        if (sec2 + prepare + sec3).max(phy::TURNAROUND_US) <= t.tx_ack_delay_us {
            self.ack_due = Some(ack);
            self.timers.set(cx, Kind::TxAck, rx.at + t.tx_ack_delay_us);
        } else {
            self.failures.ack_not_prepared += 1;
        }
        match opened {
            Opened::Data(payload) => {
                self.stats.data_frames_received += 1;
                if payload.is_empty() && self.sync.is_some() {
                    return; // a keep-alive: acknowledged, nothing to pass on
                }
                cx.deliver_after(sec2, rx.from, rx.frame.len(), payload);
            }
            Opened::Sixtop(content) => {
                let (now, from) = (cx.now(), rx.from);
                self.msf_step(cx, &mut |m, busy, cx| {
                    m.on_ie(now, from, &content, busy, cx.rng())
                });
            }
            Opened::Malformed => {
                if let Some(m) = self.msf.as_mut() {
                    m.0.count_malformed();
                }
            }
        }
    }

    /// Queue a frame for `dst`; false if there was no room for it (counted;
    /// a data frame a 6P message took the place of is counted the same).
    fn enqueue(&mut self, cx: &mut Cx, dst: NodeId, payload: Vec<u8>, kind: FrameKind) -> bool {
        let seq = self.seq.wrapping_add(1);
        let offered = self.queues.offer(Pending {
            dst,
            payload,
            seq,
            retries: 0,
            kind,
        });
        if offered != Offered::Queued {
            self.stats.drops += 1;
            self.stats.drops_queue_full += 1;
        }
        if offered == Offered::Refused {
            return false;
        }
        self.seq = seq;
        if self.scanning() {
            return true; // it waits for the node to synchronise
        }
        // a new frame can only bring the next slot forward (a slot that
        // begins now and has not begun for this node yet is still open)
        let next = self.next_send_slot(cx.now());
        if next.is_some_and(|at| self.next_slot_at.is_none_or(|armed| at < armed)) {
            self.arm_slot(cx, next);
        }
        true
    }

    /// Run one step of MSF (`step` gets it, the node's busy slots and the
    /// node's random stream), then carry out what it asks: queue its 6P
    /// frames, take on its cells, re-arm its timers.
    fn msf_step(&mut self, cx: &mut Cx, step: &mut MsfStep) {
        let Some(m) = self.msf.as_mut() else {
            return;
        };
        let cells = &self.cells;
        let busy = |slot: u32| !cells.at(slot).is_empty();
        let sends = step(&mut m.0, &busy, cx);
        for s in sends {
            let kind = if s.response {
                FrameKind::SixpResponse
            } else {
                FrameKind::SixpRequest
            };
            if !self.enqueue(cx, s.to, s.ie_content, kind) && s.response {
                // never sent: the transaction ends as if it was not acknowledged
                let now = cx.now();
                self.msf_step(cx, &mut |m, busy, cx| {
                    m.on_response_sent(now, s.to, false, busy, cx.rng())
                });
            }
        }
        self.msf_take_cells(cx);
        let deadline = self.msf.as_ref().and_then(|m| m.0.next_deadline());
        match deadline {
            Some(at) => self.timers.set(cx, Kind::MsfTimer, at.max(cx.now())),
            None => self.timers.stop(Kind::MsfTimer),
        }
    }

    /// The frame sent in a negotiated cell to the parent was acknowledged
    /// or not: MSF counts it (RFC 9033 §5.3's NumTx / NumTxAck, see
    /// [`msf_node::MsfNode::on_parent_tx`]).
    fn parent_tx_ended(&mut self, cx: &mut Cx, acked: bool) {
        if let Some(slot) = self.parent_attempt.take() {
            let now = cx.now();
            self.msf_step(cx, &mut |m, _, _| m.on_parent_tx(now, slot, acked));
        }
    }

    /// The node's cells now.
    pub fn cells(&self) -> &[Cell] {
        self.cells.all()
    }

    /// The node's cells become `cells` (Orchestra's as RPL's neighbours
    /// change; under MSF the cells before negotiation, to which MSF's
    /// negotiated ones are added): idle listening so far is counted on the
    /// old ones, and the next slot is found on the new.
    pub fn replace_cells(&mut self, cx: &mut Cx, cells: Vec<Cell>) {
        if let Some(m) = self.msf.as_mut() {
            m.1 = cells;
            self.msf_take_cells(cx);
            return;
        }
        let cells = NodeCells::new(self.p.slotframe, cells);
        if self.install_cells(cx, cells) {
            self.find_next_slot(cx);
        }
    }

    /// The node's cells become `cells` unless they are the same (then
    /// false): idle listening so far is counted on the old ones.
    fn install_cells(&mut self, cx: &mut Cx, cells: NodeCells) -> bool {
        if cells.all() == self.cells.all() {
            return false;
        }
        let now = cx.now();
        self.charge_idle_listening(cx, now);
        self.cells = cells;
        self.tx_peers = peers_with(&self.cells, false);
        self.contention_peers = peers_with(&self.cells, true);
        true
    }

    /// After the cells changed, the next slot is found on the new ones.
    fn find_next_slot(&mut self, cx: &mut Cx) {
        if !self.scanning() {
            let next = self.next_send_slot(cx.now());
            self.arm_slot(cx, next);
        }
    }

    /// MSF's negotiated cells changed: the node's schedule is rebuilt from
    /// the schedule's cells and them, and a new usage window begins.
    fn msf_take_cells(&mut self, cx: &mut Cx) {
        let Some(m) = self.msf.as_ref() else {
            return;
        };
        let cells = NodeCells::new(self.p.slotframe, msf_all_cells(m));
        if !self.install_cells(cx, cells) {
            return;
        }
        if let Some(m) = self.msf.as_mut() {
            m.0.restart_windows();
        }
        self.arm_msf_window(cx);
        self.arm_msf_rx_window(cx);
        self.find_next_slot(cx);
    }

    /// The usage window ends with the MAX_NUM_CELLS-th negotiated TX cell
    /// from the next slot on (RFC 9033 §5.1): the timer fires just before
    /// that cell's slot ends, after any frame sent in it was counted.
    fn arm_msf_window(&mut self, cx: &mut Cx) {
        let parent = self.msf.as_ref().and_then(|m| m.0.parent());
        let negotiated = |c: &Cell| c.tx && !c.shared && !c.contention && Some(c.peer) == parent;
        self.arm_window_over(cx, Kind::MsfWindow, negotiated);
    }

    /// The RX window (RFC 9033 §5.1's second pair of counters) ends with
    /// the MAX_NUM_CELLS-th cell [`Tsch::msf_rx_counts`] counts, from the
    /// next slot on.
    fn arm_msf_rx_window(&mut self, cx: &mut Cx) {
        let node = cx.node;
        let has_parent = self.msf.as_ref().is_some_and(|m| m.0.parent().is_some());
        if !has_parent {
            return; // the root receives from no parent
        }
        let cells: Vec<Cell> = (self.cells.all().iter())
            .filter(|c| self.msf_rx_counts(c, node))
            .copied()
            .collect();
        self.arm_window_over(cx, Kind::MsfRxWindow, |c| cells.contains(c));
    }

    /// Arm `kind` just before the end of the MAX_NUM_CELLS-th slot from the
    /// next one on that has a cell passing `counts` (stopped if none has).
    fn arm_window_over(&mut self, cx: &mut Cx, kind: Kind, counts: impl Fn(&Cell) -> bool) {
        let mut from = cx.now() / self.slot_us() + 1;
        let mut last = None;
        for _ in 0..msf::MAX_NUM_CELLS {
            let Some(asn) = self.cells.next_slot_where(from, &counts) else {
                break;
            };
            last = Some(asn);
            from = asn + 1;
        }
        match last {
            Some(asn) => self.timers.set(cx, kind, (asn + 1) * self.slot_us() - 1),
            None => self.timers.stop(kind),
        }
    }

    /// Does MSF's RX window count `cell` of `node`: a negotiated RX cell
    /// from the parent, or, while there is none, the node's autonomous RX
    /// cell (the one whose peer is the node itself, as `msf_schedule` lays
    /// it out)? The rule of the 6TiSCH simulator's MSF
    /// (SimEngine/Mote/sf.py `indication_rx_cell_elapsed`).
    fn msf_rx_counts(&self, cell: &Cell, node: NodeId) -> bool {
        let Some(m) = self.msf.as_ref() else {
            return false;
        };
        let Some(parent) = m.0.parent() else {
            return false;
        };
        if cell.tx || cell.shared {
            return false;
        }
        cell.peer == parent || (cell.peer == node && m.0.rx_cells() == 0)
    }

    /// MSF: a frame from the parent heard in a cell the RX window counts.
    fn msf_count_rx(&mut self, rx: &Received, node: NodeId) {
        let from_parent = (self.msf.as_ref()).is_some_and(|m| m.0.parent() == Some(rx.from));
        if !from_parent {
            return;
        }
        let asn = self.asn_at(rx.at);
        let listened = self.listen_cell(self.cells.offset_of(asn));
        if listened.is_some_and(|c| self.msf_rx_counts(&c, node)) {
            if let Some(m) = self.msf.as_mut() {
                m.0.on_rx_used();
            }
        }
    }

    /// MSF has joined: its first ADD (RFC 9033 §4) and its RX window.
    fn msf_joined(&mut self, cx: &mut Cx) {
        let now = cx.now();
        self.msf_step(cx, &mut |m, busy, cx| m.on_joined(now, busy, cx.rng()));
        self.arm_msf_rx_window(cx);
    }

    /// MSF under routing by RPL: an autonomous TX cell (RFC 9033 §3) to
    /// each neighbour a unicast frame waits for and no TX cell of the node
    /// serves, while one waits: the 6TiSCH simulator's on-demand AutoTxCell
    /// (SimEngine/Mote/tsch.py `enqueue` and `dequeue`, sf.py
    /// `allocate_autonomous_tx_cell`): a pledge's join proxy answering it,
    /// a CLEAR to a parent left. The engine calls it after each of the
    /// node's events; the usage windows are not restarted (these cells are
    /// not what they count).
    pub fn msf_on_demand(&mut self, cx: &mut Cx) {
        let Some(m) = self.msf.as_ref() else {
            return;
        };
        let served = |dst: NodeId| {
            (m.1.iter().chain(m.0.cells())).any(|c| c.tx && !c.shared && c.peer == dst)
        };
        let wanted: Vec<NodeId> = (self.queues.waiting_for())
            .filter(|&d| d != BROADCAST_NODE && !served(d))
            .collect();
        if wanted == m.2 {
            return;
        }
        if let Some(m) = self.msf.as_mut() {
            m.2 = wanted;
        }
        let Some(m) = self.msf.as_ref() else {
            return;
        };
        let cells = NodeCells::new(self.p.slotframe, msf_all_cells(m));
        if self.install_cells(cx, cells) {
            self.find_next_slot(cx);
        }
    }

    /// The routing layer's parent changed (RPL's preferred parent): MSF
    /// moves its negotiated cells to it ([`msf_node::MsfNode::switch_parent`]),
    /// and its usage windows count the cells with the new parent.
    pub fn msf_switch_parent(&mut self, cx: &mut Cx, parent: Option<NodeId>) {
        if self.msf.is_none() {
            return;
        }
        let now = cx.now();
        self.msf_step(cx, &mut |m, busy, cx| {
            m.switch_parent(now, parent, busy, cx.rng())
        });
        self.arm_msf_window(cx);
        self.arm_msf_rx_window(cx);
    }

    /// MSF's parent now (None without MSF).
    pub fn msf_parent(&self) -> Option<Option<NodeId>> {
        self.msf.as_ref().map(|m| m.0.parent())
    }

    /// MSF's negotiated cells now (None without MSF).
    pub fn msf_cells(&self) -> Option<&[Cell]> {
        self.msf.as_ref().map(|m| m.0.cells())
    }

    /// MSF's per-node counts (None without MSF).
    pub fn msf_stats(&self) -> Option<msf_node::MsfStats> {
        self.msf.as_ref().map(|m| m.0.stats())
    }

    /// The frame tried in this slot failed: it stays for its next cell, or
    /// is dropped after `max_retries` retries.
    fn retry_or_drop(&mut self, cx: &mut Cx) {
        let max_retries = self.p.max_retries;
        let Some(p) = self.queues.in_flight_mut() else {
            return;
        };
        if p.retries < max_retries {
            p.retries += 1;
            self.stats.retransmissions += 1;
            self.queues.end_attempt();
        } else {
            let p = self.queues.finish_attempt().expect("a frame in flight");
            self.stats.drops += 1;
            self.report_tx(&p, false);
            self.sync_frame_dropped(cx, &p);
            if p.kind == FrameKind::SixpResponse {
                let now = cx.now();
                self.msf_step(cx, &mut |m, busy, cx| {
                    m.on_response_sent(now, p.dst, false, busy, cx.rng())
                });
            }
        }
    }

    /// How long a busy-wait for `deadline_us` lasts: to the deadline on
    /// hardware, to the first whole step after it on a Cooja mote, whose
    /// busy-wait yields to Cooja and runs again one step later (Contiki-NG
    /// arch/platform/cooja rtimer-arch.h `RTIMER_BUSYWAIT_UNTIL_ABS`; Cooja
    /// ContikiClock.java `doActionsAfterTick`: "Handle next Contiki event in
    /// one millisecond").
    fn busy_wait(&self, deadline_us: Time) -> Time {
        match self.p.busy_wait_step_us {
            0 => deadline_us,
            step => deadline_us.div_ceil(step) * step,
        }
    }

    fn sleep(&mut self, cx: &mut Cx) {
        let eb_on_air = self
            .formation
            .as_ref()
            .is_some_and(|f| f.eb_on_air.is_some());
        if self.ack_on_air.is_none() && self.sending.is_none() && !eb_on_air {
            cx.set_radio(RadioState::Off);
        }
    }

    /// The Enhanced ACK to `to` for `acked` (secured as that frame was).
    fn ack_frame(&mut self, cx: &mut Cx, to: NodeId, seq: u8, acked: &[u8]) -> (Vec<u8>, Time) {
        let mut repr = Repr::enh_ack(seq, self.p.addressing.dst(to), 0, false);
        if self.p.addressing == LinkAddressing::Extended {
            // as Contiki-NG sends it (and the timeslot closed form in crates/models counts it)
            repr.dst_pan = Some(PAN_ID);
        }
        let asn = self.asn_at(cx.now());
        let sealed = after_join::seals_ack(self.p.security.as_ref(), acked);
        let (ack, ccm3) = match self.security.as_mut().filter(|_| sealed) {
            Some(sec) => sec.seal(cx.node, repr, Some(asn)),
            None => (repr.to_bytes_with_fcs().expect("an ACK always fits"), 0),
        };
        let extra3 = if sealed {
            self.op_extra_us(ack.len(), 0)
        } else {
            0
        };
        self.timings.stack_part_us[2] = extra3;
        (ack, ccm3 + extra3)
    }

    /// The Enhanced ACK for `seq`, if this frame is one (unsecured when
    /// needed), and the CPU time that took.
    fn open_ack(
        &mut self,
        cx: &Cx,
        from: NodeId,
        frame: &[u8],
        parsed: &Parsed,
        asn: u64,
    ) -> Option<(u8, Time)> {
        if !parsed.is_ack() {
            return None;
        }
        let sent_secured = self.tx_secured;
        let how = after_join::opens_ack(self.p.security.as_ref(), cx, sent_secured, frame);
        match self.open_as(how)? {
            None => parsed.seq().map(|s| (s, 0)),
            Some(sec) => sec
                .open(from, frame, Some(asn))
                .ok()
                .and_then(|(r, cpu)| r.seq.map(|s| (s, cpu))),
        }
    }

    /// TSCH CSMA after a failed shared-cell attempt: widen the window, draw
    /// how many cells to skip, and find the slot after the last of them.
    ///
    /// The cells counted are those Contiki-NG counts the window down in: at
    /// the end of each TX link with the shared option, the queues of the
    /// neighbours without a TX link of their own if the link is addressed to
    /// broadcast, else the queue of the neighbour it is addressed to
    /// (tsch-slot-operation.c `update_link_backoff`, tsch-queue.c
    /// `tsch_queue_update_all_backoff_windows`, read at v4.9). Under the
    /// minimal schedule that is the shared cell. Under Orchestra it is the
    /// common cell and every neighbour's receiver-based unicast cell, which
    /// orchestra-rule-unicast-per-neighbor-rpl-storing.c `add_uc_link` adds
    /// as shared TX links to the broadcast address (dtlsim's contention
    /// cells), not only the cells the waiting frame can go in. Under MSF an
    /// autonomous cell is a shared TX link to its one neighbour (RFC 9033
    /// §3), so only those to the same neighbour count, and for a frame in
    /// the minimal cell only the minimal cell. The window is the
    /// neighbour's: frames to other neighbours do not wait for it.
    fn shared_failed(&mut self, cx: &mut Cx) {
        let (Some(tried), Some(peer)) =
            (self.shared_attempt, self.queues.in_flight().map(|p| p.dst))
        else {
            return;
        };
        let min_be = self.p.min_be;
        let be = (self.csma.get(&peer).map_or(min_be, |b| b.be) + 1).min(self.p.max_be);
        let window = draw_below(cx, 1u64 << be);
        let msf = self.msf.is_some();
        let counts = |c: &Cell| match (msf, tried.shared) {
            (true, true) => c.shared,
            (true, false) => c.tx && c.contention && c.peer == tried.peer,
            (false, _) => c.shared || (c.tx && c.contention),
        };
        let mut until = self.started.map_or(0, |asn| asn + 1);
        for _ in 0..window {
            match self.next_acting_slot(until, counts) {
                Some(asn) => until = asn + 1,
                None => break,
            }
        }
        self.csma.insert(peer, Backoff { be, until });
    }

    pub fn security_stats_now(&self) -> Option<super::security::SecurityStats> {
        self.security.as_ref().map(|s| s.stats)
    }
}

impl Mac for Tsch {
    fn start(&mut self, cx: &mut Cx) {
        cx.set_radio(RadioState::Off);
        let now = cx.now();
        self.sync_power_on(cx);
        let cfg = self.scan_config();
        if let Some(f) = self.formation.as_mut() {
            f.stats.powered_on_at = now;
            if !f.p.root {
                let (scanner, ev) = Scanner::start(cfg, now, cx.rng());
                f.scanner = Some(scanner);
                self.on_scan_event(cx, ev);
                return;
            }
            f.next_eb_at = Some(now); // the root beacons from power-on
        }
        self.charged_until = now.div_ceil(self.slot_us()) * self.slot_us();
        self.start_eb_process(cx);
        cx.wake_on_neighbour_send(Some(self.timers.interrupt(Kind::NeighbourSends)));
        let next = self.next_send_slot(now);
        self.arm_slot(cx, next);
        self.msf_joined(cx);
    }

    fn settle_energy(&mut self, cx: &mut Cx) {
        let now = cx.now();
        self.charge_idle_listening(cx, now);
    }

    /// With formation: a node not yet joined sends no EB; on joining, if
    /// synchronised, it queues its first at once, as on synchronising. A
    /// node that stops being part of the network (routed by RPL: it lost
    /// its parent) queues no more; one already queued goes.
    fn set_joined(&mut self, cx: &mut Cx, joined: bool) {
        let Some(f) = self.formation.as_mut() else {
            return;
        };
        let was = std::mem::replace(&mut f.joined, joined);
        if !joined {
            f.next_eb_at = None;
            return;
        }
        let idle = f.eb_frame.is_none() && f.eb_on_air.is_none() && f.next_eb_at.is_none();
        if !was && f.scanner.is_none() && idle && f.stats.synchronised_at.is_some() {
            let now = cx.now();
            f.next_eb_at = Some(now);
            let next = self.next_send_slot(now);
            self.arm_slot(cx, next);
        }
    }

    fn send(&mut self, cx: &mut Cx, next_hop: NodeId, payload: Vec<u8>) {
        cx.charge_cpu(self.p.frame_processing_us);
        self.enqueue(cx, next_hop, payload, FrameKind::Data);
    }

    fn on_timer(&mut self, cx: &mut Cx, token: Token) {
        let Some(kind) = self.timers.fired(token) else {
            return;
        };
        let now = cx.now();
        let t = self.p.template;
        match kind {
            Kind::Slot => {
                self.next_slot_at = None; // this arming is used up
                self.start_slot(cx);
            }
            Kind::NeighbourSends => {
                // only a slot in which the node would listen on that channel
                // can hear it (in any other, listening is as idle as counted)
                let asn = now / t.slot_us;
                let listen = self.listen_cell(self.cells.offset_of(asn));
                let channel = listen.map(|c| self.channel(asn, &c));
                if self.started != Some(asn) && channel.is_some() && channel == cx.waking_channel()
                {
                    self.start_slot(cx);
                }
            }
            Kind::TxData => {
                let (Some(head), Some(frame)) = (self.queues.in_flight(), self.tx_frame.take())
                else {
                    return;
                };
                let seq = head.seq;
                self.stats.data_frames_sent += 1;
                self.stats.data_bytes_sent += frame.len() as u64;
                let id = cx.transmit(frame);
                let slot_start = now - t.tx_offset_us;
                self.sending = Some((id, seq, slot_start));
            }
            Kind::AckListen => {
                cx.set_radio(RadioState::Listen);
                let wait = self.busy_wait(t.ack_wait_us);
                self.timers.set(cx, Kind::AckGiveUp, now + wait);
            }
            Kind::AckGiveUp => {
                // nothing began within TsAckWait: the radio goes off
                // (tsch_tx_slot: "Wait for ACK to come", then radio off);
                // the failure is counted at AckTimeout as before
                if self.awaiting_ack.is_some() && !cx.frame_on_air(self.busy_wait(t.ack_wait_us)) {
                    self.sleep(cx);
                }
            }
            Kind::AckTimeout => {
                if self.awaiting_ack.take().is_some() {
                    self.failures.no_ack += 1;
                    self.parent_tx_ended(cx, false);
                    self.shared_failed(cx);
                    self.retry_or_drop(cx);
                    self.sleep(cx);
                }
            }
            Kind::RxListen => {
                cx.set_radio(RadioState::Listen);
                let wait = self.busy_wait(t.rx_wait_us);
                self.timers.set(cx, Kind::RxGiveUp, now + wait);
            }
            Kind::RxGiveUp => {
                // keep listening while a frame that began in the window is on the air
                let began = cx.frame_on_air(self.busy_wait(t.rx_wait_us));
                let slot_start = now - now % t.slot_us;
                let longest_end = slot_start + t.tx_offset_us + t.max_tx_us;
                if began && now < longest_end {
                    self.timers.set(cx, Kind::RxGiveUp, longest_end);
                } else if self.ack_due.is_none() {
                    self.sleep(cx);
                }
            }
            Kind::TxAck => {
                if let Some(frame) = self.ack_due.take() {
                    self.ack_on_air = Some(cx.transmit(frame));
                    self.stats.acks_sent += 1;
                }
            }
            Kind::ScanHop => {
                let rng = cx.rng();
                let ev = (self.formation.as_mut())
                    .and_then(|f| f.scanner.as_mut())
                    .and_then(|sc| sc.on_deadline(now, rng));
                if let Some(ev) = ev {
                    self.on_scan_event(cx, ev);
                }
            }
            Kind::MsfWindow => {
                self.msf_step(cx, &mut |m, busy, cx| m.on_window_end(now, busy, cx.rng()));
                self.arm_msf_window(cx);
            }
            Kind::MsfRxWindow => {
                self.msf_step(cx, &mut |m, busy, cx| {
                    m.on_rx_window_end(now, busy, cx.rng())
                });
                self.arm_msf_rx_window(cx);
            }
            Kind::MsfTimer => {
                self.msf_step(cx, &mut |m, busy, cx| m.on_timer(now, busy, cx.rng()));
            }
            Kind::KeepAlive => self.sync_keepalive_due(cx),
            Kind::Desync => self.sync_desync_due(cx),
            Kind::TxBeacon => {
                if let Some(f) = self.formation.as_mut() {
                    if let Some(frame) = f.eb_frame.take() {
                        f.eb_on_air = Some(cx.transmit(frame));
                        f.stats.ebs_sent += 1;
                    }
                }
            }
        }
    }

    fn on_frame(&mut self, cx: &mut Cx, rx: Received) {
        if let Some(sc) = self.formation.as_mut().and_then(|f| f.scanner.as_mut()) {
            // scanning: every frame heard goes to the scan, whose first bit
            // arrived one airtime before its last
            let Ok(mpdu) = wpan::fcs::check(&rx.frame) else {
                return;
            };
            let first_bit = rx.at.saturating_sub(airtime_us(rx.frame.len()));
            if let Some(ev) = sc.on_frame(first_bit, mpdu) {
                self.on_scan_event(cx, ev);
            }
            return;
        }
        // the frame has ended: the radio goes off whatever it carried, and on
        // again only to send an ACK (Contiki-NG tsch-slot-operation.c,
        // tsch_rx_slot: "Wait until packet is received, turn radio off", as
        // TSCH_RADIO_ON_DURING_TIMESLOT is 0; Cooja-NG's radio logs show it)
        self.sleep(cx);
        if self.sync_screen(cx, &rx) {
            return; // outside the guard, or an EB (with clock drift only)
        }
        let Some(view) = heard(&rx.frame) else {
            return;
        };
        if !addressed_to(view.dst_addr(), cx.node) {
            if self.tx_results.is_some() && view.dst_addr().is_broadcast() {
                self.accept_broadcast(cx, &rx);
            }
            return; // not for us: dropped before anything is allocated
        }
        let Some(parsed) = Parsed::of_heard(view) else {
            // a secured frame whose payload IEs are encrypted cannot be read
            // before it is unsecured: under MSF, a 6P frame
            let asn = self.asn_at(rx.at);
            let msf = self.msf.is_some();
            let sec = self.opening(cx, rx.from, &rx.frame, true).flatten();
            let opened = match (msf, sec) {
                (true, Some(sec)) => sec.open(rx.from, &rx.frame, Some(asn)).ok(),
                _ => None,
            };
            match opened {
                Some((repr, ccm2)) if !repr.payload_ies.is_empty() && repr.seq.is_some() => {
                    let seq = repr.seq.unwrap_or(0);
                    let opened = sixtop_of(&repr.payload_ies);
                    self.accept_frame(cx, &rx, seq, opened, ccm2);
                }
                _ => {
                    if let Some(m) = self.msf.as_mut() {
                        m.0.count_malformed(); // e.g. a payload IE list that does not parse
                    }
                }
            }
            return;
        };
        let t = self.p.template;
        if let Some((seq, slot_start)) = self.awaiting_ack {
            let asn = self.asn_at(rx.at);
            if let Some((acked, ccm4)) = self.open_ack(cx, rx.from, &rx.frame, &parsed, asn) {
                let extra4 = self.op_extra_us(rx.frame.len(), 0);
                let sec4 = ccm4 + extra4;
                cx.charge_cpu(sec4);
                self.timings.sec4_us = sec4;
                self.timings.stack_part_us[3] = extra4;
                if acked != seq {
                    return;
                }
                self.awaiting_ack = None;
                self.timers.stop(Kind::AckTimeout);
                self.parent_tx_ended(cx, true);
                self.sync_on_ack(cx, rx.from);
                if rx.at + sec4 > slot_start + t.slot_us {
                    // the ACK could not be checked before the slot ended
                    self.failures.sec4_late += 1;
                    self.retry_or_drop(cx);
                } else {
                    let done = self.queues.finish_attempt();
                    if let Some(p) = done.as_ref() {
                        self.report_tx(p, true);
                    }
                    if let Some(p) = done.as_ref().filter(|_| self.shared_attempt.is_some()) {
                        // success in a shared cell resets the neighbour's CSMA
                        self.csma.remove(&p.dst);
                    }
                    if let Some(p) = done.filter(|p| p.kind == FrameKind::SixpResponse) {
                        let now = cx.now();
                        self.msf_step(cx, &mut |m, busy, cx| {
                            m.on_response_sent(now, p.dst, true, busy, cx.rng())
                        });
                    }
                }
                self.sleep(cx);
                return;
            }
        }
        if parsed.is_ack() {
            return;
        }
        // a data frame in one of our RX cells: a retry is secured anew for
        // its slot, so it is unsecured like any frame before it is known as one
        let seq = parsed.seq().unwrap_or(0);
        let asn = self.asn_at(rx.at);
        let msf = self.msf.is_some();
        let Some(sec) = self.opening(cx, rx.from, &rx.frame, true) else {
            return; // a pledge cannot open a secured frame (counted): no ACK
        };
        let opened = if msf {
            open_sixtop_or_data(sec, rx.from, &rx.frame, parsed, asn)
        } else {
            open_data_frame(sec, rx.from, &rx.frame, parsed, Some(asn))
                .map(|(p, cpu)| (Opened::Data(p), cpu))
        };
        let Some((opened, ccm2)) = opened else {
            return; // refused (counted by the security layer): no ACK
        };
        self.accept_frame(cx, &rx, seq, opened, ccm2);
    }

    fn on_tx_end(&mut self, cx: &mut Cx, emission: EmissionId) {
        let t = self.p.template;
        if let Some(f) = self.formation.as_mut() {
            if f.eb_on_air == Some(emission) {
                f.eb_on_air = None;
                cx.set_radio(RadioState::Off);
                let gap = formation::eb_gap_us(f.p.eb_period_us, |n| draw_below(cx, n));
                // no next EB once it stopped being part of the network
                // (routed by RPL: it lost its parent, `Sim::set_joined`)
                f.next_eb_at = f.joined.then_some(f.eb_queued_at + gap);
                let next = self.next_send_slot(cx.now());
                self.arm_slot(cx, next);
                return;
            }
        }
        if self.ack_on_air == Some(emission) {
            self.ack_on_air = None;
            cx.set_radio(RadioState::Off);
            return;
        }
        if let Some((id, seq, slot_start)) = self.sending {
            if id == emission {
                self.sending = None;
                cx.set_radio(RadioState::Off);
                if self
                    .queues
                    .in_flight()
                    .is_some_and(|p| p.dst == BROADCAST_NODE)
                {
                    // no ACK is asked for: sent is done (tsch-slot-operation.c
                    // tsch_tx_slot, a broadcast's status MAC_TX_OK)
                    if let Some(p) = self.queues.finish_attempt() {
                        if self.shared_attempt.is_some() {
                            self.csma.remove(&p.dst);
                        }
                    }
                    return;
                }
                let now = cx.now();
                let expected = now + t.tx_ack_delay_us;
                self.awaiting_ack = Some((seq, slot_start));
                self.timers
                    .set(cx, Kind::AckListen, expected - t.ack_wait_us / 2);
                let ack_len = airtime_us(127).min(t.max_ack_us);
                self.timers
                    .set(cx, Kind::AckTimeout, expected + t.ack_wait_us / 2 + ack_len);
            }
        }
    }

    fn max_payload(&self) -> usize {
        max_data_payload(self.security.as_ref(), self.p.addressing)
    }

    fn queued(&self) -> usize {
        self.queues.len()
    }

    fn free_frames(&self) -> Option<usize> {
        Some(self.queues.free())
    }

    fn stats(&self) -> MacStats {
        self.stats
    }

    fn msf(&self) -> Option<msf_node::MsfStats> {
        self.msf_stats()
    }

    fn security_stats(&self) -> Option<super::security::SecurityStats> {
        self.security_stats_now()
    }

    fn formation(&self) -> Option<FormationStats> {
        self.formation_stats()
    }
}

/// A frame carrying a 6P message: a data frame (frame version 2015) with
/// no payload of its own and one IETF payload IE (RFC 8137) holding the
/// 6top IE's content, sub-ID and message (RFC 8480 §3.2.1).
pub fn sixtop_frame(
    addressing: LinkAddressing,
    seq: u8,
    src: NodeId,
    dst: NodeId,
    ie_content: Vec<u8>,
    secured: bool,
) -> Repr {
    let mut repr = super::frame::data_repr(addressing, seq, src, dst, Vec::new(), secured);
    repr.version = wpan::frame::FrameVersion::V2015;
    repr.payload_ies = vec![wpan::ie::PayloadIe::Other {
        group: wpan::sixtop::IETF_IE_GROUP,
        content: ie_content,
    }];
    repr
}

/// One call into MSF: it, the node's busy slots, the node's context.
/// MSF, the cells before negotiation, the neighbours with an autonomous
/// TX cell on demand.
type MsfState = (msf_node::MsfNode, Vec<Cell>, Vec<NodeId>);

/// A node's cells under MSF: the schedule's (or RPL's) cells before
/// negotiation, the autonomous TX cells on demand, the negotiated cells.
fn msf_all_cells(m: &MsfState) -> Vec<Cell> {
    let mut cells = m.1.clone();
    if !m.2.is_empty() {
        let auto = schedule::msf_cells(0, &m.2);
        cells.extend(auto.into_iter().filter(|c| c.tx && c.contention));
    }
    cells.extend_from_slice(m.0.cells());
    cells
}

type MsfStep<'a> =
    dyn FnMut(&mut msf_node::MsfNode, &dyn Fn(u32) -> bool, &mut Cx) -> Vec<msf_node::Send> + 'a;

/// What a received data frame carried, under MSF.
enum Opened {
    /// a payload for the layers above
    Data(Vec<u8>),
    /// a 6top IE's content
    Sixtop(Vec<u8>),
    /// payload IEs with no 6top IE, or that do not parse
    Malformed,
}

/// The 6top IE among a frame's payload IEs (Malformed: none).
fn sixtop_of(ies: &[wpan::ie::PayloadIe]) -> Opened {
    use wpan::ie::PayloadIe;
    ies.iter()
        .find_map(|ie| match ie {
            PayloadIe::Other { group, content } if *group == wpan::sixtop::IETF_IE_GROUP => {
                Some(Opened::Sixtop(content.clone()))
            }
            _ => None,
        })
        .unwrap_or(Opened::Malformed)
}

/// Open a data frame that may carry a 6top IE (unsecured when needed): its
/// 6top IE if it has payload IEs, its payload otherwise, and the CPU time.
fn open_sixtop_or_data(
    sec: Option<&mut NodeSecurity>,
    from: NodeId,
    frame: &[u8],
    parsed: Parsed,
    asn: u64,
) -> Option<(Opened, Time)> {
    use wpan::frame::Body;
    use wpan::ie::PayloadIe;
    let sixtop = sixtop_of;
    match sec {
        None => {
            let raw = parsed.repr.payload_ies;
            if raw.is_empty() {
                return parsed.data().map(|p| (Opened::Data(p.to_vec()), 0));
            }
            let opened = match PayloadIe::parse_list(raw) {
                Ok((ies, _)) => sixtop(&ies),
                Err(_) => Opened::Malformed,
            };
            Some((opened, 0))
        }
        Some(sec) => {
            let (repr, cpu) = sec.open(from, frame, Some(asn)).ok()?;
            if !repr.payload_ies.is_empty() {
                return Some((sixtop(&repr.payload_ies), cpu));
            }
            match repr.body {
                Body::Data(p) => Some((Opened::Data(p), cpu)),
                _ => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;
    use crate::world::World;

    #[test]
    fn a_pledge_drops_a_secured_frame_and_counts_it_and_opens_an_unsecured_one() {
        use crate::mac::address::LinkAddressing;
        use crate::mac::frame::build_data_frame;
        use crate::mac::security::LinkSecurity;
        let sec = LinkSecurity {
            level: wpan::security::SecurityLevel::Mic32,
            key_id_mode: 1,
            key: [3; 16],
            key_index: 1,
            frame_counter_suppressed: false,
            after_join: true,
            setup_us: 10.0,
            per_block_us: 1.0,
        };
        let topology = Topology::line(2, 1.0).unwrap();
        let mut world = World::new(topology, 1, 0);
        world.set_pledge(1, true);
        let mut proxy = NodeSecurity::new(sec);
        let secured = build_data_frame(
            Some(&mut proxy),
            LinkAddressing::Extended,
            1,
            0,
            1,
            vec![9; 20],
            Some(7),
        )
        .0;
        let plain = build_data_frame(
            None,
            LinkAddressing::Extended,
            2,
            0,
            1,
            vec![9; 20],
            Some(8),
        )
        .0;
        let mut pledge = Tsch::new(TschParams {
            security: Some(sec),
            ..TschParams::new(7, vec![], vec![0])
        });
        let cx = world.cx(1);
        assert!(pledge.opening(&cx, 0, &secured, true).is_none());
        assert!(matches!(pledge.opening(&cx, 0, &plain, true), Some(None)));
        let stats = pledge.security_stats_now().unwrap();
        assert_eq!(stats.refused_unknown_key, 1);
        // joined, it opens the secured frame through its key
        world.set_pledge(1, false);
        let cx = world.cx(1);
        let sec_layer = pledge.opening(&cx, 0, &secured, true).unwrap().unwrap();
        assert!(sec_layer.open(0, &secured, Some(7)).is_ok());
    }

    #[test]
    fn a_full_queue_drops_what_is_offered_and_counts_it() {
        let topology = Topology::line(2, 1.0).unwrap();
        let mut world = World::new(topology, 1, 0);
        let mut mac = Tsch::new(TschParams::new(7, vec![], vec![0]));
        let mut cx = world.cx(0);
        for i in 0..queues::POOL_FRAMES + 3 {
            mac.send(&mut cx, 1, vec![i as u8]);
        }
        assert_eq!(mac.queued(), queues::POOL_FRAMES);
        assert_eq!(mac.stats().drops, 3);
        // what was kept is the first offered, in order
        let kept: Vec<u8> = mac.queues.frames().map(|p| p.payload[0]).collect();
        assert_eq!(kept, (0..queues::POOL_FRAMES as u8).collect::<Vec<_>>());
    }
}
