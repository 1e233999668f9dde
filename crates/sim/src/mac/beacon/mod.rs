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

mod indirect;
mod slotted;
mod superframe;
mod tree;

pub use tree::cluster_tree;

use std::collections::VecDeque;
use std::fmt;

use wpan::frame::{command_id, Address, Beacon as BeaconBody, BodyRef, FrameType, FrameVersion};

use indirect::Indirect;
use slotted::{Cap, Direct, Engine, Side, Step};

use crate::channel::EmissionId;
use crate::energy::RadioState;
use crate::mac::address::{addressed_to, short_addr, LinkAddressing};
use crate::mac::common::{queued_data_frame, DataReceiver};
use crate::mac::frame::{ack_frame, heard, max_data_payload, Parsed};
use crate::mac::phy;
use crate::mac::security::{LinkSecurity, NodeSecurity};
use crate::mac::{Mac, MacStats};
use crate::timer::{TimerTable, Token};
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
    /// CSMA's receive path: the rules for a data frame are the same.
    receiver: DataReceiver,
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
            receiver: DataReceiver::default(),
            timers: TimerTable::new(),
            seq: 0,
            bsn: 0,
            stats: MacStats::default(),
        }
    }

    pub fn role(&self) -> &Role {
        &self.role
    }

    fn parent(&self) -> Option<NodeId> {
        self.role.parent.map(|(q, _)| q)
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
        self.stats.acks_sent += 1;
        self.ack_on_air = Some(cx.transmit(ack_frame(seq, pending)));
    }

    fn data_frame(&mut self, cx: &mut Cx, rx: &Received, parsed: Parsed) {
        let seq = parsed.seq().unwrap_or(0);
        let frame_pending = parsed.repr.frame_pending;
        if parsed.repr.ack_request {
            self.schedule_ack(cx, rx, seq, false);
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
        self.receiver
            .accept(cx, self.security.as_mut(), &mut self.stats, rx, parsed, seq);
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
            let (frame, ready_at) = queued_data_frame(
                cx,
                self.security.as_mut(),
                LinkAddressing::Short,
                seq,
                next_hop,
                payload,
            );
            self.up_queue.push_back(Direct {
                frame,
                seq,
                ready_at,
            });
            self.kick(cx, Side::Up);
        } else if let Some(i) = self.child_index(next_hop) {
            self.queue_indirect(i, payload, cx.now());
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
        match parsed.repr.body {
            BodyRef::Beacon(_) => {
                if Some(rx.from) == self.parent()
                    && parsed.repr.src_addr == Address::Short(short_addr(rx.from))
                {
                    if let Some(Ok(b)) = parsed.repr.body.beacon() {
                        self.parent_beacon(cx, &rx, &b);
                    }
                }
            }
            BodyRef::Ack(_) => {
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
            BodyRef::Command { id, .. } => {
                if id == command_id::DATA_REQUEST && parsed.is_for(cx.node) {
                    let seq = parsed.seq().unwrap_or(0);
                    self.data_request(cx, &rx, seq);
                }
            }
            BodyRef::Data(_) => {
                if parsed.is_for(cx.node) {
                    self.data_frame(cx, &rx, parsed);
                }
            }
            BodyRef::EnhancedBeacon(_) => {}
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
        max_data_payload(self.security.as_ref(), LinkAddressing::Short)
    }

    fn stats(&self) -> MacStats {
        self.stats
    }

    fn queued(&self) -> usize {
        self.up_queue.len() + self.indirect.iter().map(VecDeque::len).sum::<usize>()
    }

    fn security_stats(&self) -> Option<crate::mac::security::SecurityStats> {
        self.security.as_ref().map(|s| s.stats)
    }
}
