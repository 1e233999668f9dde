//! Beacon-enabled IEEE 802.15.4 (802.15.4-2006 §7.5.1): superframes
//! announced by beacons, slotted CSMA/CA in the contention access period
//! (CAP), indirect transmission, and a cluster tree of coordinators.
//!
//! Every coordinator (the PAN coordinator at the root and each cluster head)
//! sends a beacon every BI = aBaseSuperframeDuration · 2^BO (15.36 ms · 2^BO
//! at 2.4 GHz) and then listens for the active period SD = 15.36 ms · 2^SO,
//! divided into 16 superframe slots; with no GTS the CAP runs from the end
//! of the beacon to the end of slot 15. A cluster head's superframe starts a
//! fixed offset after its parent's (one SD by default), so the active
//! periods along the tree follow each other without overlapping; a
//! configuration whose active periods do not fit in one BI is refused.
//!
//! A device (a leaf, or a cluster head in its parent's superframe) wakes a
//! guard time before each expected beacon of its coordinator and sleeps
//! again after it unless it has something to do in that CAP:
//! - frames towards the coordinator are sent directly, with slotted
//!   CSMA/CA and an acknowledgement;
//! - frames from the coordinator are indirect: the coordinator keeps them
//!   and lists the device's short address as pending in its beacons; the
//!   device polls with a Data Request command, the coordinator acknowledges
//!   with the frame pending bit set and sends the frame (slotted CSMA/CA
//!   again), which the device acknowledges. One data request fetches one
//!   frame; the data frame carries the frame pending bit if more wait
//!   (§7.2.1.1.3). What the device does then is a [`PollPolicy`]: poll again
//!   in the same CAP, or wait for the next beacon to list it again. A frame
//!   nobody polls for
//!   within macTransactionPersistenceTime is dropped; one that was sent and
//!   not acknowledged stays queued for the next poll (up to
//!   macMaxFrameRetries times).
//!
//! Slotted CSMA/CA (§7.5.1.4): NB = 0, CW = 2, BE = macMinBE; wait a random
//! 0..2^BE − 1 backoff periods (20 symbols, aligned with the superframe
//! start), counting only periods inside the CAP (the countdown pauses at the
//! end of one CAP and resumes in the next); then, if the two CCAs, the frame
//! and its acknowledgement (macAckWaitDuration) cannot finish before the end
//! of the CAP, wait for the next CAP and draw a new backoff; otherwise CCA
//! on consecutive backoff boundaries until CW reaches 0 and transmit on the
//! next boundary. The transaction includes the interframe space after the
//! acknowledgement (§7.5.1.1: SIFS after a frame of at most
//! aMaxSIFSFrameSize bytes, LIFS after a longer one). A busy CCA raises BE (up to macMaxBE) and NB; past
//! macMaxCSMABackoffs the frame is dropped (channel access failure). An
//! acknowledgement starts on the first backoff boundary at least
//! aTurnaroundTime after the frame; a frame not acknowledged within
//! macAckWaitDuration is tried again up to macMaxFrameRetries times.
//!
//! Radios are off outside the node's own active period (a coordinator
//! listens through its whole CAP), the guard time and beacon of its parent,
//! and its own transactions in the parent's CAP (off while a backoff counts
//! down).
//!
//! Simplifications (stated, not hidden): perfect synchronisation (clocks do
//! not drift; the guard time costs energy only), no GTS, no association or
//! beacon search (the tree is configured), a device uses a CAP only after
//! receiving that superframe's beacon unless `cap_without_beacon` is set,
//! an indirect frame that
//! cannot be sent in the CAP in which it was requested waits for the next
//! request, sibling cluster heads at the same depth share an offset (right
//! for a chain, not for bushy trees), and a frame whose next hop is neither
//! the parent nor a child (a route off the tree) is dropped.

use std::collections::{HashMap, VecDeque};
use std::fmt;

use wpan::frame::{
    command_id, Address, Beacon as BeaconBody, Body, FrameType, FrameVersion, Repr, SuperframeSpec,
};

use super::security::{LinkSecurity, NodeSecurity};
use super::{
    addressed_to, build_data_frame, build_data_frame_pending, draw_below, heard, open_data_frame,
    phy, short_addr, LinkAddressing, Mac, MacStats, Parsed, PAN_ID,
};
use crate::channel::{airtime_us, EmissionId};
use crate::energy::RadioState;
use crate::timer::{TimerTable, Token};
use crate::topology::Topology;
use crate::world::{Cx, Received};
use crate::{NodeId, Time};

/// aBaseSuperframeDuration: 960 symbols.
pub const BASE_SUPERFRAME_US: Time = 960 * phy::SYMBOL_US;
/// aNumSuperframeSlots.
pub const SUPERFRAME_SLOTS: u8 = 16;
/// aMaxLostBeacons.
pub const MAX_LOST_BEACONS: u32 = 4;
/// CW0: clear channel assessments before a transmission.
pub const CW0: u32 = 2;
/// aMaxSIFSFrameSize (802.15.4-2006 Table 85): a frame (MPDU) of at most
/// this many bytes is followed by a short interframe space, a longer one by
/// a long one.
pub const MAX_SIFS_FRAME_BYTES: usize = 18;
/// macMinSIFSPeriod at 2.4 GHz: 12 symbols (802.15.4-2006 Table 86).
pub const SIFS_US: Time = 12 * phy::SYMBOL_US;
/// macMinLIFSPeriod at 2.4 GHz: 40 symbols (802.15.4-2006 Table 86).
pub const LIFS_US: Time = 40 * phy::SYMBOL_US;

/// The interframe space that must follow a frame of `len` bytes (MPDU,
/// FCS included) before the sender's next frame (802.15.4-2006 §7.5.1.3).
pub fn ifs_us(len: usize) -> Time {
    if len <= MAX_SIFS_FRAME_BYTES {
        SIFS_US
    } else {
        LIFS_US
    }
}

/// phyMaxFrameDuration at 2.4 GHz: SHR 10 + 2 · (aMaxPHYPacketSize + 1) symbols.
pub const MAX_FRAME_DURATION_US: Time = (10 + 2 * (phy::MAX_PSDU as Time + 1)) * phy::SYMBOL_US;

/// What a device does after receiving an indirect frame whose frame
/// pending bit says its coordinator holds more for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollPolicy {
    /// Send another data request at once, in the same CAP if the
    /// transaction still fits (IEEE 802.15.4-2006 §7.5.6.3: the frame
    /// pending bit of the data frame tells the device to extract more).
    Standard,
    /// One data request per beacon that lists the device as pending; the
    /// rest waits for the next beacon. What TinyOS's TKN15.4 (the open
    /// IEEE 802.15.4-2006 beacon-enabled MAC of the time) does: its
    /// BeaconSynchronizeP.nc polls once on each beacon listing the device
    /// (macAutoRequest), and PollP.nc leaves the frame pending bit of a
    /// received frame unread ("TODO: check if pending bit is set (then
    /// initiate another POLL)", PollP.nc rev. 1.4, 2009).
    OncePerBeacon,
}

/// Network-wide settings of the beacon-enabled MAC (times in µs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BeaconParams {
    /// macBeaconOrder BO: BI = 15.36 ms · 2^BO.
    pub beacon_order: u8,
    /// macSuperframeOrder SO: SD = 15.36 ms · 2^SO.
    pub superframe_order: u8,
    /// macMinBE.
    pub min_be: u32,
    /// macMaxBE.
    pub max_be: u32,
    /// macMaxCSMABackoffs.
    pub max_backoffs: u32,
    /// macMaxFrameRetries.
    pub max_retries: u32,
    /// How early a device wakes before its coordinator's expected beacon.
    pub guard_us: Time,
    /// Start of a cluster head's superframe after its parent's; None: one SD.
    pub offset_us: Option<Time>,
    /// When the PAN coordinator sends its first beacon. None: at a phase
    /// drawn uniformly in [0, BI) for each replication (by `run`), so that
    /// what starts at a fixed time meets the superframes at a random point
    /// of their cycle, as it would in a network running for a while
    /// ([`cluster_tree`] takes None as 0).
    pub first_beacon_us: Option<Time>,
    /// The PAN coordinator (root of the cluster tree); None: the DTLS
    /// server's node (see `run`).
    pub pan_coordinator: Option<NodeId>,
    /// How long a device that polled and was told a frame is pending waits
    /// for it; None: macMaxFrameTotalWaitTime from the CSMA parameters.
    pub frame_wait_us: Option<Time>,
    /// After missing its coordinator's beacon, a device still uses that
    /// superframe's CAP (from when it gave up waiting for the beacon) on
    /// the timing of the beacons before, up to aMaxLostBeacons (4) missed
    /// in a row; it cannot know about pending frames then. Off: a device
    /// sends only in CAPs whose beacon it received.
    pub cap_without_beacon: bool,
    /// macTransactionPersistenceTime in beacon intervals: an indirect
    /// frame not polled for this long is dropped (IEEE default 0x01f4).
    pub transaction_persistence_bi: u32,
    /// Whether a device polls again when told more frames are pending.
    pub poll: PollPolicy,
    /// CPU time to handle one frame (platform file).
    pub frame_processing_us: Time,
    /// IEEE 802.15.4 security of data frames (beacons, commands and ACKs
    /// stay unsecured).
    pub security: Option<LinkSecurity>,
}

impl BeaconParams {
    /// IEEE 802.15.4-2006 defaults (macMinBE 3, macMaxBE 5,
    /// macMaxCSMABackoffs 4, macMaxFrameRetries 3) for the given orders; the
    /// guard time is what two ±40 ppm crystals drift apart over one BI, at
    /// least one backoff period; a device polls once per beacon, as the
    /// open stack of the time did (see [`PollPolicy::OncePerBeacon`]).
    pub fn new(beacon_order: u8, superframe_order: u8) -> Self {
        let bi = BASE_SUPERFRAME_US << beacon_order.min(14);
        BeaconParams {
            beacon_order,
            superframe_order,
            min_be: 3,
            max_be: 5,
            max_backoffs: 4,
            max_retries: 3,
            guard_us: (bi * 80).div_ceil(1_000_000).max(phy::UNIT_BACKOFF_US),
            offset_us: None,
            first_beacon_us: None,
            pan_coordinator: None,
            cap_without_beacon: false,
            frame_wait_us: None,
            transaction_persistence_bi: 0x01f4,
            poll: PollPolicy::OncePerBeacon,
            frame_processing_us: 0,
            security: None,
        }
    }

    /// Beacon interval BI.
    pub fn beacon_interval_us(&self) -> Time {
        BASE_SUPERFRAME_US << self.beacon_order
    }

    /// Superframe (active period) duration SD.
    pub fn superframe_duration_us(&self) -> Time {
        BASE_SUPERFRAME_US << self.superframe_order
    }

    /// Offset of a cluster head's superframe from its parent's.
    pub fn offset_step_us(&self) -> Time {
        self.offset_us
            .unwrap_or_else(|| self.superframe_duration_us())
    }

    /// macMaxFrameTotalWaitTime (802.15.4-2006 §7.4.2), or the set value.
    pub fn frame_wait(&self) -> Time {
        if let Some(w) = self.frame_wait_us {
            return w;
        }
        let m = (self.max_be - self.min_be.min(self.max_be)).min(self.max_backoffs);
        let grow: u64 = (0..m).map(|k| 1u64 << (self.min_be + k)).sum();
        let flat = ((1u64 << self.max_be) - 1) * u64::from(self.max_backoffs - m);
        (grow + flat) * phy::UNIT_BACKOFF_US + MAX_FRAME_DURATION_US
    }

    /// Check the values on their own (the tree is checked by [`cluster_tree`]).
    pub fn validate(&self) -> Result<(), BeaconConfigError> {
        let (bo, so) = (self.beacon_order, self.superframe_order);
        if bo > 14 || so > bo {
            return Err(BeaconConfigError::Orders { bo, so });
        }
        if self.min_be > self.max_be || self.max_be > 8 || self.max_be < 3 {
            return Err(BeaconConfigError::BackoffExponents {
                min_be: self.min_be,
                max_be: self.max_be,
            });
        }
        if self.max_backoffs > 5 {
            return Err(BeaconConfigError::MaxBackoffs(self.max_backoffs));
        }
        if self.guard_us >= self.beacon_interval_us() {
            return Err(BeaconConfigError::Guard {
                guard_us: self.guard_us,
                bi_us: self.beacon_interval_us(),
            });
        }
        Ok(())
    }
}

/// Why a beacon-enabled configuration is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BeaconConfigError {
    /// Not 0 ≤ SO ≤ BO ≤ 14.
    Orders { bo: u8, so: u8 },
    /// Not macMinBE ≤ macMaxBE, 3 ≤ macMaxBE ≤ 8.
    BackoffExponents { min_be: u32, max_be: u32 },
    /// macMaxCSMABackoffs above 5.
    MaxBackoffs(u32),
    /// The guard time is not shorter than the beacon interval.
    Guard { guard_us: Time, bi_us: Time },
    /// The PAN coordinator is not a node of the topology.
    UnknownRoot { root: NodeId, nodes: usize },
    /// The active periods of the coordinators at two depths overlap (the
    /// superframes of depth d start at d · offset, modulo BI).
    ActivePeriodsOverlap {
        depths: (usize, usize),
        offset_us: Time,
        sd_us: Time,
        bi_us: Time,
    },
}

impl fmt::Display for BeaconConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BeaconConfigError::Orders { bo, so } => {
                write!(f, "need 0 <= SO <= BO <= 14, got BO = {bo}, SO = {so}")
            }
            BeaconConfigError::BackoffExponents { min_be, max_be } => write!(
                f,
                "need macMinBE <= macMaxBE and 3 <= macMaxBE <= 8, got {min_be} and {max_be}"
            ),
            BeaconConfigError::MaxBackoffs(n) => {
                write!(f, "macMaxCSMABackoffs must be 0..=5, got {n}")
            }
            BeaconConfigError::Guard { guard_us, bi_us } => write!(
                f,
                "guard time {guard_us} us is not shorter than the beacon interval {bi_us} us"
            ),
            BeaconConfigError::UnknownRoot { root, nodes } => write!(
                f,
                "PAN coordinator node {root} is not one of the {nodes} nodes"
            ),
            BeaconConfigError::ActivePeriodsOverlap {
                depths: (a, b),
                offset_us,
                sd_us,
                bi_us,
            } => write!(
                f,
                "the active periods of the coordinators at depths {a} and {b} overlap: \
                 superframes {offset_us} us apart per hop, SD {sd_us} us, BI {bi_us} us \
                 (every two coordinators' superframes must start at least SD apart \
                 around the beacon interval)"
            ),
        }
    }
}

impl std::error::Error for BeaconConfigError {}

/// A node's place in the cluster tree.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Role {
    /// Its coordinator, and when that coordinator's first superframe starts.
    pub parent: Option<(NodeId, Time)>,
    /// The devices it coordinates (their frames from it are indirect).
    pub children: Vec<NodeId>,
    /// When its own first superframe starts, if it is a coordinator.
    pub own_first_sf_us: Option<Time>,
    /// It is the PAN coordinator (the root).
    pub pan_coordinator: bool,
}

/// The cluster tree towards `root`: each node's parent is its next hop to
/// the root; every node with children (and the root) is a coordinator whose
/// superframe starts `depth` offsets after the root's (modulo BI: an offset
/// of BI − SD puts each cluster head's superframe just before its
/// parent's). Refused unless all coordinators' active periods are disjoint.
pub fn cluster_tree(
    topology: &Topology,
    root: NodeId,
    p: &BeaconParams,
) -> Result<Vec<Role>, BeaconConfigError> {
    p.validate()?;
    let n = topology.nodes();
    if root >= n {
        return Err(BeaconConfigError::UnknownRoot { root, nodes: n });
    }
    let step = p.offset_step_us();
    let sd = p.superframe_duration_us();
    let bi = p.beacon_interval_us();
    let parent: Vec<Option<NodeId>> = (0..n)
        .map(|v| {
            if v == root {
                None
            } else {
                topology.next_hop(v, root)
            }
        })
        .collect();
    let depth = |v: NodeId| topology.hops(v, root).unwrap_or(0);
    let first = p.first_beacon_us.unwrap_or(0);
    let sf_start = |v: NodeId| first + depth(v) as Time * step;
    let mut roles: Vec<Role> = (0..n)
        .map(|v| Role {
            parent: parent[v].map(|q| (q, sf_start(q))),
            children: (0..n).filter(|&c| parent[c] == Some(v)).collect(),
            own_first_sf_us: None,
            pan_coordinator: v == root,
        })
        .collect();
    let mut deepest = 0;
    for (v, role) in roles.iter_mut().enumerate() {
        if v == root || !role.children.is_empty() {
            role.own_first_sf_us = Some(sf_start(v));
            deepest = deepest.max(depth(v));
        }
    }
    // Depths i < j start (j − i) offsets apart, modulo BI: their active
    // periods are disjoint if that distance is at least SD both ways round.
    for k in 1..=deepest {
        let apart = (k as Time * step) % bi;
        if apart < sd || apart > bi - sd {
            return Err(BeaconConfigError::ActivePeriodsOverlap {
                depths: (0, k),
                offset_us: step,
                sd_us: sd,
                bi_us: bi,
            });
        }
    }
    Ok(roles)
}

/// One superframe's contention access period, as this node knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cap {
    sf_start: Time,
    /// First backoff boundary after the beacon.
    start: Time,
    /// End of the last CAP slot (slot 15: the end of the active period).
    end: Time,
}

impl Cap {
    /// The first backoff boundary of this superframe at or after `t`.
    fn boundary(&self, t: Time) -> Time {
        let bp = phy::UNIT_BACKOFF_US;
        self.sf_start + t.saturating_sub(self.sf_start).div_ceil(bp) * bp
    }
}

/// Which superframe a CSMA engine works in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// The parent's superframe: direct frames up, polls.
    Up,
    /// This node's own superframe: indirect frames down.
    Down,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum What {
    Data,
    Poll,
    Indirect(NodeId),
}

struct Transaction {
    what: What,
    frame: Vec<u8>,
    seq: u8,
    retries: u32,
    /// When securing it is done.
    ready_at: Time,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Idle,
    /// Waiting for the next CAP (no beacon yet, or the countdown paused).
    WaitCap,
    Backoff,
    Cca,
    /// Both CCAs clear; transmit on the next boundary.
    Tx,
    Sending(EmissionId),
    AwaitAck,
    /// A poll was acknowledged with the frame pending bit: listen for the frame.
    AwaitData,
}

/// The slotted CSMA/CA state of one transaction.
struct Engine {
    step: Step,
    tx: Option<Transaction>,
    nb: u32,
    be: u32,
    cw: u32,
    /// Backoff periods still to count down (paused across CAPs).
    backoff_left: u64,
    /// At the next CAP, draw a new backoff rather than resume the countdown.
    redraw: bool,
}

impl Engine {
    fn new() -> Self {
        Engine {
            step: Step::Idle,
            tx: None,
            nb: 0,
            be: 0,
            cw: CW0,
            backoff_left: 0,
            redraw: false,
        }
    }
}

struct Direct {
    frame: Vec<u8>,
    seq: u8,
    ready_at: Time,
}

struct Indirect {
    payload: Vec<u8>,
    /// Built on the first request and kept, so a retry is the same frame
    /// (same sequence number and frame counter: the device drops the duplicate).
    built: Option<(Vec<u8>, u8)>,
    retries: u32,
    /// When the network layer handed it over (for macTransactionPersistenceTime).
    queued_at: Time,
}

crate::timer_kinds! {
    /// Timer kinds, one [`TimerTable`] entry each: re-arming a kind makes its
    /// earlier arming stale.
    enum Kind {
        OwnBeacon,
        OwnEnd,
        BeaconWake,
        BeaconMiss,
        ParentEnd,
        Up,
        Down,
        Ack,
    }
}

pub struct BeaconMac {
    p: BeaconParams,
    role: Role,
    up_queue: VecDeque<Direct>,
    /// Per child (in `role.children` order), the frames waiting for its poll.
    indirect: Vec<VecDeque<Indirect>>,
    /// Children that polled in this CAP and were told a frame is pending.
    requested: VecDeque<NodeId>,
    poll_due: bool,
    up: Engine,
    down: Engine,
    parent_cap: Option<Cap>,
    own_cap: Option<Cap>,
    /// Listening for the parent's beacon of the superframe starting then.
    beacon_window: Option<Time>,
    /// Beacons of the parent missed in a row.
    lost_beacons: u32,
    own_sf: Option<Time>,
    own_beacon_on_air: Option<EmissionId>,
    ack_due: Option<(u8, bool)>,
    ack_on_air: Option<EmissionId>,
    last_seq: HashMap<NodeId, u8>,
    timers: TimerTable<Kind>,
    seq: u8,
    bsn: u8,
    security: Option<NodeSecurity>,
    stats: MacStats,
}

impl BeaconMac {
    pub fn new(p: BeaconParams, role: Role) -> Self {
        let children = role.children.len();
        BeaconMac {
            security: p.security.map(NodeSecurity::new),
            p,
            role,
            up_queue: VecDeque::new(),
            indirect: (0..children).map(|_| VecDeque::new()).collect(),
            requested: VecDeque::new(),
            poll_due: false,
            up: Engine::new(),
            down: Engine::new(),
            parent_cap: None,
            own_cap: None,
            beacon_window: None,
            lost_beacons: 0,
            own_sf: None,
            own_beacon_on_air: None,
            ack_due: None,
            ack_on_air: None,
            last_seq: HashMap::new(),
            timers: TimerTable::new(),
            seq: 0,
            bsn: 0,
            stats: MacStats::default(),
        }
    }

    pub fn role(&self) -> &Role {
        &self.role
    }

    /// Frames waiting at this coordinator for `child`'s poll.
    pub fn pending_for(&self, child: NodeId) -> usize {
        self.child_index(child)
            .map_or(0, |i| self.indirect[i].len())
    }

    fn child_index(&self, node: NodeId) -> Option<usize> {
        self.role.children.iter().position(|&c| c == node)
    }

    fn parent(&self) -> Option<NodeId> {
        self.role.parent.map(|(q, _)| q)
    }

    fn engine(&mut self, side: Side) -> &mut Engine {
        match side {
            Side::Up => &mut self.up,
            Side::Down => &mut self.down,
        }
    }

    fn cap(&self, side: Side) -> Option<Cap> {
        match side {
            Side::Up => self.parent_cap,
            Side::Down => self.own_cap,
        }
    }

    fn timer_kind(side: Side) -> Kind {
        match side {
            Side::Up => Kind::Up,
            Side::Down => Kind::Down,
        }
    }

    /// Start of the first superframe at or after `t` of a coordinator whose
    /// first superframe started at `first`.
    fn sf_at_or_after(&self, first: Time, t: Time) -> Time {
        let bi = self.p.beacon_interval_us();
        if t <= first {
            first
        } else {
            first + (t - first).div_ceil(bi) * bi
        }
    }

    /// The superframe active at `t` (this node's own or its parent's), for
    /// aligning an acknowledgement on its backoff grid.
    fn cap_at(&self, t: Time) -> Option<Cap> {
        let sd = self.p.superframe_duration_us();
        [self.own_cap, self.parent_cap]
            .into_iter()
            .flatten()
            .find(|c| c.sf_start <= t && t < c.sf_start + sd)
    }

    /// Radio on while anything needs it, off otherwise (never cut a transmission).
    fn update_radio(&mut self, cx: &mut Cx) {
        if cx.radio() == RadioState::Tx {
            return;
        }
        let busy = |s: Step| {
            matches!(
                s,
                Step::Cca | Step::Tx | Step::Sending(_) | Step::AwaitAck | Step::AwaitData
            )
        };
        let on = self.own_cap.is_some()
            || self.beacon_window.is_some()
            || self.ack_due.is_some()
            || self.ack_on_air.is_some()
            || busy(self.up.step)
            || busy(self.down.step);
        cx.set_radio(if on {
            RadioState::Listen
        } else {
            RadioState::Off
        });
    }

    fn next_seq(&mut self) -> u8 {
        self.seq = self.seq.wrapping_add(1);
        self.seq
    }

    /// The next transaction of the device side: a poll, or a frame up.
    fn next_up(&mut self, cx: &mut Cx) -> Option<Transaction> {
        let parent = self.parent()?;
        if self.poll_due {
            self.poll_due = false;
            let seq = self.next_seq();
            let frame = Repr::data_request(
                seq,
                PAN_ID,
                Address::Short(short_addr(parent)),
                Address::Short(short_addr(cx.node)),
            )
            .to_bytes_with_fcs()
            .expect("a data request always fits");
            return Some(Transaction {
                what: What::Poll,
                frame,
                seq,
                retries: 0,
                ready_at: cx.now(),
            });
        }
        let head = self.up_queue.front()?;
        Some(Transaction {
            what: What::Data,
            frame: head.frame.clone(),
            seq: head.seq,
            retries: 0,
            ready_at: head.ready_at,
        })
    }

    /// The next transaction of the coordinator side: the head frame of a
    /// child that polled.
    fn next_down(&mut self, cx: &mut Cx) -> Option<Transaction> {
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
                let (frame, c) = build_data_frame_pending(
                    self.security.as_mut(),
                    LinkAddressing::Short,
                    seq,
                    node,
                    child,
                    head.payload.clone(),
                    more,
                    None,
                );
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

    /// Start the next transaction of `side` if its engine is free and no
    /// acknowledgement of this node is still to go out (the frame it
    /// acknowledges ends its sender's transaction; a new one starts after).
    fn kick(&mut self, cx: &mut Cx, side: Side) {
        if self.engine(side).step != Step::Idle
            || self.ack_due.is_some()
            || self.ack_on_air.is_some()
        {
            return;
        }
        let tx = match side {
            Side::Up => self.next_up(cx),
            Side::Down => self.next_down(cx),
        };
        let Some(tx) = tx else {
            return;
        };
        let min_be = self.p.min_be;
        let e = self.engine(side);
        e.tx = Some(tx);
        e.nb = 0;
        e.be = min_be;
        e.cw = CW0;
        self.begin_backoff(cx, side);
    }

    /// Draw a backoff and count it down (or wait for a CAP to draw it in).
    fn begin_backoff(&mut self, cx: &mut Cx, side: Side) {
        let active = self.cap(side).is_some_and(|c| cx.now() < c.end);
        if !active {
            let e = self.engine(side);
            e.step = Step::WaitCap;
            e.redraw = true;
            return;
        }
        let be = self.engine(side).be;
        let draw = draw_below(cx, 1u64 << be);
        let e = self.engine(side);
        e.backoff_left = draw;
        e.redraw = false;
        e.cw = CW0;
        self.countdown(cx, side);
    }

    /// Count the remaining backoff periods down inside the CAP, pausing at
    /// its end if they do not all fit.
    fn countdown(&mut self, cx: &mut Cx, side: Side) {
        let bp = phy::UNIT_BACKOFF_US;
        let Some(cap) = self.cap(side) else {
            self.defer(cx, side, false);
            return;
        };
        let ready = self.engine(side).tx.as_ref().map_or(0, |t| t.ready_at);
        let b = cap.boundary(cx.now().max(ready).max(cap.start));
        let room = cap.end.saturating_sub(b) / bp;
        let left = self.engine(side).backoff_left;
        if left <= room {
            self.engine(side).step = Step::Backoff;
            self.timers.set(cx, Self::timer_kind(side), b + left * bp);
        } else {
            self.engine(side).backoff_left = left - room;
            self.defer(cx, side, false);
        }
    }

    /// The transaction waits for the next CAP. An indirect frame waits for
    /// the next poll instead: its device stops listening after this CAP.
    fn defer(&mut self, cx: &mut Cx, side: Side, redraw: bool) {
        self.timers.stop(Self::timer_kind(side));
        if side == Side::Down {
            self.down.step = Step::Idle;
            self.down.tx = None;
            self.update_radio(cx);
            return;
        }
        self.up.step = Step::WaitCap;
        self.up.redraw = redraw;
        self.update_radio(cx);
    }

    /// A CAP of `side` began: resume what waited for it.
    fn cap_started(&mut self, cx: &mut Cx, side: Side) {
        match self.engine(side).step {
            Step::WaitCap => {
                if self.engine(side).redraw {
                    self.begin_backoff(cx, side);
                } else {
                    self.countdown(cx, side);
                }
            }
            Step::Idle => self.kick(cx, side),
            _ => {}
        }
    }

    /// The backoff is over: go on if the whole transaction fits in the CAP.
    fn backoff_done(&mut self, cx: &mut Cx, side: Side) {
        let now = cx.now();
        let Some(cap) = self.cap(side) else {
            return self.defer(cx, side, true);
        };
        let Some(len) = self.engine(side).tx.as_ref().map(|t| t.frame.len()) else {
            return;
        };
        // §7.5.1.1: CCAs, frame, acknowledgement and IFS all inside the CAP
        let cw = u64::from(self.engine(side).cw);
        let end =
            now + cw * phy::UNIT_BACKOFF_US + airtime_us(len) + phy::ACK_WAIT_US + ifs_us(len);
        if end > cap.end {
            return self.defer(cx, side, true);
        }
        self.engine(side).step = Step::Cca;
        self.timers
            .set(cx, Self::timer_kind(side), now + phy::CCA_US);
        self.update_radio(cx);
    }

    fn cca_done(&mut self, cx: &mut Cx, side: Side) {
        let busy = cx.radio() == RadioState::Tx || cx.channel_busy(phy::CCA_US);
        if busy {
            return self.channel_busy(cx, side);
        }
        let Some(cap) = self.cap(side) else {
            return self.defer(cx, side, true);
        };
        let next = cap.boundary(cx.now());
        let e = self.engine(side);
        e.cw -= 1;
        if e.cw == 0 {
            e.step = Step::Tx;
            self.timers.set(cx, Self::timer_kind(side), next);
        } else {
            self.timers
                .set(cx, Self::timer_kind(side), next + phy::CCA_US);
        }
    }

    /// CCA found the channel busy: back off with a larger exponent, or give up.
    fn channel_busy(&mut self, cx: &mut Cx, side: Side) {
        let (max_be, max_backoffs) = (self.p.max_be, self.p.max_backoffs);
        let e = self.engine(side);
        e.nb += 1;
        e.be = (e.be + 1).min(max_be);
        e.cw = CW0;
        if e.nb > max_backoffs {
            // channel access failure
            self.finish(cx, side, false);
        } else {
            self.begin_backoff(cx, side);
            self.update_radio(cx);
        }
    }

    fn transmit(&mut self, cx: &mut Cx, side: Side) {
        if cx.radio() == RadioState::Tx {
            // this node's own acknowledgement is on the air
            return self.channel_busy(cx, side);
        }
        let Some((frame, what)) = self
            .engine(side)
            .tx
            .as_ref()
            .map(|t| (t.frame.clone(), t.what))
        else {
            return;
        };
        match what {
            What::Poll => self.stats.data_requests_sent += 1,
            What::Data | What::Indirect(_) => {
                self.stats.data_frames_sent += 1;
                self.stats.data_bytes_sent += frame.len() as u64;
            }
        }
        cx.charge_cpu(self.p.frame_processing_us);
        let id = cx.transmit(frame);
        self.engine(side).step = Step::Sending(id);
    }

    /// No acknowledgement: try again, or give up.
    fn ack_timeout(&mut self, cx: &mut Cx, side: Side) {
        let Some(what) = self.engine(side).tx.as_ref().map(|t| t.what) else {
            return;
        };
        if let What::Indirect(child) = what {
            // it waits in the transaction queue for the next poll
            if let Some(i) = self.child_index(child) {
                if let Some(head) = self.indirect[i].front_mut() {
                    head.retries += 1;
                    if head.retries > self.p.max_retries {
                        self.indirect[i].pop_front();
                        self.stats.drops += 1;
                    } else {
                        self.stats.retransmissions += 1;
                    }
                }
            }
            self.engine(side).step = Step::Idle;
            self.engine(side).tx = None;
            self.kick(cx, side);
            self.update_radio(cx);
            return;
        }
        let max = self.p.max_retries;
        let retries = {
            let t = self.engine(side).tx.as_mut().expect("checked");
            t.retries += 1;
            t.retries
        };
        if retries > max {
            return self.finish(cx, side, false);
        }
        if what == What::Data {
            self.stats.retransmissions += 1;
        }
        let min_be = self.p.min_be;
        let e = self.engine(side);
        e.nb = 0;
        e.be = min_be;
        self.begin_backoff(cx, side);
        self.update_radio(cx);
    }

    /// The transaction is over (`ok`: acknowledged); start the next one.
    fn finish(&mut self, cx: &mut Cx, side: Side, ok: bool) {
        self.timers.stop(Self::timer_kind(side));
        let tx = self.engine(side).tx.take();
        self.engine(side).step = Step::Idle;
        if let Some(tx) = tx {
            match tx.what {
                What::Data => {
                    self.up_queue.pop_front();
                    if !ok {
                        self.stats.drops += 1;
                    }
                }
                What::Indirect(child) => {
                    if let Some(i) = self.child_index(child) {
                        if ok {
                            self.indirect[i].pop_front();
                        }
                    }
                }
                What::Poll => {}
            }
        }
        self.kick(cx, side);
        self.update_radio(cx);
    }

    fn acked(&mut self, cx: &mut Cx, side: Side, frame_pending: bool) {
        let Some(what) = self.engine(side).tx.as_ref().map(|t| t.what) else {
            return;
        };
        if what == What::Poll && frame_pending {
            let now = cx.now();
            let until = self
                .cap(side)
                .map_or(now, |c| c.end)
                .min(now + self.p.frame_wait());
            self.engine(side).step = Step::AwaitData;
            self.timers.set(cx, Self::timer_kind(side), until);
            self.update_radio(cx);
            return;
        }
        self.finish(cx, side, true);
    }

    fn on_engine_timer(&mut self, cx: &mut Cx, side: Side) {
        match self.engine(side).step {
            Step::Backoff => self.backoff_done(cx, side),
            Step::Cca => self.cca_done(cx, side),
            Step::Tx => self.transmit(cx, side),
            Step::AwaitAck => self.ack_timeout(cx, side),
            Step::AwaitData => self.finish(cx, side, true),
            Step::Idle | Step::WaitCap | Step::Sending(_) => {}
        }
    }

    // --- the coordinator's own superframe -------------------------------

    fn send_beacon(&mut self, cx: &mut Cx) {
        if self.own_sf.is_some() {
            // BO = SO: the last superframe ends as this one begins (its end
            // timer, due now, is superseded by the one armed below)
            self.own_superframe_over(cx);
        }
        let now = cx.now();
        let bi = self.p.beacon_interval_us();
        let sd = self.p.superframe_duration_us();
        self.own_sf = Some(now);
        self.timers.set(cx, Kind::OwnBeacon, now + bi);
        self.timers.set(cx, Kind::OwnEnd, now + sd);
        // frames nobody polled for within macTransactionPersistenceTime expire
        let persistence = u64::from(self.p.transaction_persistence_bi) * bi;
        // (no indirect frame is in flight: the last CAP is over)
        for queue in &mut self.indirect {
            let before = queue.len();
            queue.retain(|f| now - f.queued_at < persistence);
            self.stats.drops += (before - queue.len()) as u64;
        }
        // at most seven pending addresses fit a beacon (§7.2.2.1.6)
        let pending_short: Vec<u16> = self
            .role
            .children
            .iter()
            .zip(&self.indirect)
            .filter(|(_, q)| !q.is_empty())
            .map(|(&c, _)| short_addr(c))
            .take(7)
            .collect();
        let body = BeaconBody {
            superframe: SuperframeSpec {
                beacon_order: self.p.beacon_order,
                superframe_order: self.p.superframe_order,
                final_cap_slot: SUPERFRAME_SLOTS - 1,
                battery_life_extension: false,
                pan_coordinator: self.role.pan_coordinator,
                association_permit: false,
            },
            gts_permit: false,
            pending_short,
            pending_ext: Vec::new(),
            payload: Vec::new(),
        };
        let frame = Repr::beacon(self.bsn, PAN_ID, Address::Short(short_addr(cx.node)), body)
            .to_bytes_with_fcs()
            .expect("a beacon with at most seven pending addresses fits");
        self.bsn = self.bsn.wrapping_add(1);
        self.stats.beacons_sent += 1;
        cx.charge_cpu(self.p.frame_processing_us);
        self.own_beacon_on_air = Some(cx.transmit(frame));
    }

    fn own_superframe_over(&mut self, cx: &mut Cx) {
        self.own_cap = None;
        self.own_sf = None;
        self.requested.clear();
        if self.down.step != Step::Idle {
            // an indirect frame not sent in this CAP waits for the next poll
            self.defer(cx, Side::Down, false);
        }
        self.update_radio(cx);
    }

    // --- the parent's superframe ----------------------------------------

    /// Wake a guard time before the parent's next beacon.
    fn arm_beacon_wake(&mut self, cx: &mut Cx, after: Time) {
        let Some((_, first)) = self.role.parent else {
            return;
        };
        let sf = self.sf_at_or_after(first, after);
        let at = sf.saturating_sub(self.p.guard_us);
        self.timers.set(cx, Kind::BeaconWake, at);
    }

    fn beacon_wake(&mut self, cx: &mut Cx) {
        let Some((_, first)) = self.role.parent else {
            return;
        };
        let now = cx.now();
        let sf = self.sf_at_or_after(first, now);
        self.beacon_window = Some(sf);
        // a beacon of at most aMaxPHYPacketSize bytes has ended by then
        self.timers
            .set(cx, Kind::BeaconMiss, sf + airtime_us(phy::MAX_PSDU));
        self.arm_beacon_wake(cx, sf + 1);
        self.update_radio(cx);
    }

    fn beacon_missed(&mut self, cx: &mut Cx) {
        let Some(sf) = self.beacon_window.take() else {
            return;
        };
        self.lost_beacons += 1;
        if self.p.cap_without_beacon && self.lost_beacons <= MAX_LOST_BEACONS {
            let now = cx.now();
            let end = sf + self.p.superframe_duration_us();
            let cap = Cap {
                sf_start: sf,
                start: 0,
                end,
            };
            self.parent_cap = Some(Cap {
                start: cap.boundary(now),
                ..cap
            });
            self.timers.set(cx, Kind::ParentEnd, end);
            self.cap_started(cx, Side::Up);
        }
        self.update_radio(cx);
    }

    fn parent_beacon(&mut self, cx: &mut Cx, rx: &Received, beacon: &BeaconBody) {
        let Some(sf) = self.beacon_window.take() else {
            return;
        };
        self.lost_beacons = 0;
        self.timers.stop(Kind::BeaconMiss);
        let sd = self.p.superframe_duration_us();
        let cap = Cap {
            sf_start: sf,
            start: 0,
            end: sf + sd,
        };
        self.parent_cap = Some(Cap {
            start: cap.boundary(rx.at),
            ..cap
        });
        self.timers.set(cx, Kind::ParentEnd, sf + sd);
        let me = short_addr(cx.node);
        let my_ext = super::security::extended_addr(cx.node);
        if beacon.pending_short.contains(&me) || beacon.pending_ext.contains(&my_ext) {
            self.poll_due = true;
        }
        self.cap_started(cx, Side::Up);
        self.update_radio(cx);
    }

    // --- receiving ---------------------------------------------------------

    fn schedule_ack(&mut self, cx: &mut Cx, rx: &Received, seq: u8, frame_pending: bool) {
        let earliest = rx.at + phy::TURNAROUND_US;
        let at = self
            .cap_at(rx.at)
            .map_or(earliest, |c| c.boundary(earliest));
        self.ack_due = Some((seq, frame_pending));
        self.timers.set(cx, Kind::Ack, at);
    }

    fn send_ack(&mut self, cx: &mut Cx) {
        let Some((seq, pending)) = self.ack_due.take() else {
            return;
        };
        if cx.radio() == RadioState::Tx {
            // busy sending: the sender will try again
            self.kick(cx, Side::Down);
            self.kick(cx, Side::Up);
            return self.update_radio(cx);
        }
        let frame = Repr::imm_ack(seq, pending)
            .to_bytes_with_fcs()
            .expect("an ACK always fits");
        self.stats.acks_sent += 1;
        self.ack_on_air = Some(cx.transmit(frame));
    }

    fn data_request(&mut self, cx: &mut Cx, rx: &Received, seq: u8) {
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

    fn data_frame(&mut self, cx: &mut Cx, rx: Received, parsed: Parsed) {
        let seq = parsed.seq().unwrap_or(0);
        let frame_pending = parsed.repr.frame_pending;
        if parsed.repr.ack_request {
            self.schedule_ack(cx, &rx, seq, false);
        }
        let from_parent = Some(rx.from) == self.parent();
        if from_parent {
            if frame_pending && self.p.poll == PollPolicy::Standard {
                self.poll_due = true;
            }
            if self.up.step == Step::AwaitData {
                self.finish(cx, Side::Up, true);
            }
        }
        let duplicate = self.last_seq.insert(rx.from, seq) == Some(seq);
        if duplicate {
            return;
        }
        if let Some((payload, cpu)) =
            open_data_frame(self.security.as_mut(), rx.from, &rx.frame, parsed, None)
        {
            cx.charge_cpu(cpu);
            self.stats.data_frames_received += 1;
            cx.deliver_after(cpu, rx.from, rx.frame.len(), payload);
        }
    }
}

impl Mac for BeaconMac {
    fn start(&mut self, cx: &mut Cx) {
        cx.set_radio(RadioState::Off);
        let now = cx.now();
        if let Some(first) = self.role.own_first_sf_us {
            let at = self.sf_at_or_after(first, now);
            self.timers.set(cx, Kind::OwnBeacon, at);
        }
        self.arm_beacon_wake(cx, now);
    }

    fn send(&mut self, cx: &mut Cx, next_hop: NodeId, payload: Vec<u8>) {
        if Some(next_hop) == self.parent() {
            let seq = self.next_seq();
            let (frame, cpu) = build_data_frame(
                self.security.as_mut(),
                LinkAddressing::Short,
                seq,
                cx.node,
                next_hop,
                payload,
                None,
            );
            cx.charge_cpu(cpu);
            self.up_queue.push_back(Direct {
                frame,
                seq,
                ready_at: cx.now() + cpu,
            });
            self.kick(cx, Side::Up);
        } else if let Some(i) = self.child_index(next_hop) {
            // listed as pending in the next beacon
            self.indirect[i].push_back(Indirect {
                payload,
                built: None,
                retries: 0,
                queued_at: cx.now(),
            });
        } else {
            // not a link of the cluster tree
            self.stats.drops += 1;
        }
    }

    fn on_timer(&mut self, cx: &mut Cx, token: Token) {
        let Some(kind) = self.timers.fired(token) else {
            return;
        };
        match kind {
            Kind::OwnBeacon => self.send_beacon(cx),
            Kind::OwnEnd => self.own_superframe_over(cx),
            Kind::BeaconWake => self.beacon_wake(cx),
            Kind::BeaconMiss => self.beacon_missed(cx),
            Kind::ParentEnd => {
                self.parent_cap = None;
                self.update_radio(cx);
            }
            Kind::Up => self.on_engine_timer(cx, Side::Up),
            Kind::Down => self.on_engine_timer(cx, Side::Down),
            Kind::Ack => self.send_ack(cx),
        }
    }

    fn on_frame(&mut self, cx: &mut Cx, rx: Received) {
        let Some(view) = heard(&rx.frame) else {
            return;
        };
        let ignored = match view.frame_type() {
            // only data and data requests for us are acted on
            FrameType::Data | FrameType::MacCommand => !addressed_to(view.dst_addr(), cx.node),
            // Enhanced Beacons are not part of beacon-enabled 802.15.4
            FrameType::Beacon => view.frame_version() == FrameVersion::V2015,
            FrameType::Ack => false,
        };
        if ignored {
            return; // dropped before anything is allocated
        }
        let Some(parsed) = Parsed::of_heard(view) else {
            return;
        };
        match &parsed.repr.body {
            Body::Beacon(b) => {
                if Some(rx.from) == self.parent()
                    && parsed.repr.src_addr == Address::Short(short_addr(rx.from))
                {
                    let b = b.clone();
                    self.parent_beacon(cx, &rx, &b);
                }
            }
            Body::Ack(_) => {
                let seq = parsed.seq();
                for side in [Side::Up, Side::Down] {
                    let e = self.engine(side);
                    if e.step == Step::AwaitAck && e.tx.as_ref().map(|t| t.seq) == seq {
                        self.timers.stop(Self::timer_kind(side));
                        self.acked(cx, side, parsed.repr.frame_pending);
                        break;
                    }
                }
            }
            Body::Command(c) => {
                if c.id == command_id::DATA_REQUEST && parsed.is_for(cx.node) {
                    let seq = parsed.seq().unwrap_or(0);
                    self.data_request(cx, &rx, seq);
                }
            }
            Body::Data(_) => {
                if parsed.is_for(cx.node) {
                    self.data_frame(cx, rx, parsed);
                }
            }
            Body::EnhancedBeacon(_) => {}
        }
    }

    fn on_tx_end(&mut self, cx: &mut Cx, emission: EmissionId) {
        if self.own_beacon_on_air == Some(emission) {
            self.own_beacon_on_air = None;
            if let Some(sf) = self.own_sf {
                let cap = Cap {
                    sf_start: sf,
                    start: 0,
                    end: sf + self.p.superframe_duration_us(),
                };
                self.own_cap = Some(Cap {
                    start: cap.boundary(cx.now()),
                    ..cap
                });
                self.cap_started(cx, Side::Down);
            }
            return self.update_radio(cx);
        }
        if self.ack_on_air == Some(emission) {
            self.ack_on_air = None;
            // a polled frame goes after the acknowledgement of the poll, a
            // device's next poll or frame after that of the frame it received
            self.kick(cx, Side::Down);
            self.kick(cx, Side::Up);
            return self.update_radio(cx);
        }
        for side in [Side::Up, Side::Down] {
            if self.engine(side).step == Step::Sending(emission) {
                self.engine(side).step = Step::AwaitAck;
                let at = cx.now() + phy::ACK_WAIT_US;
                self.timers.set(cx, Self::timer_kind(side), at);
            }
        }
        self.update_radio(cx);
    }

    fn max_payload(&self) -> usize {
        super::max_data_payload(self.security.as_ref(), LinkAddressing::Short)
    }

    fn stats(&self) -> MacStats {
        self.stats
    }

    fn queued(&self) -> usize {
        self.up_queue.len() + self.indirect.iter().map(VecDeque::len).sum::<usize>()
    }

    fn security_stats(&self) -> Option<super::security::SecurityStats> {
        self.security.as_ref().map(|s| s.stats)
    }
}
