//! Medium access control: one file per protocol.
//!
//! A MAC takes payloads for a neighbour from the network layer, gets them
//! across the channel as real IEEE 802.15.4 frames (built with `wpan`), and
//! passes received payloads up through [`Cx::deliver`]. It drives the radio
//! (listen / off / transmit) and its own timers; the engine calls it back.

pub mod beacon;
pub mod csma;
pub mod security;
pub mod tsch;
pub mod xmac;

use wpan::frame::{Address, Body, BodyRef, Frame, Repr, ReprRef};

use crate::channel::EmissionId;
use crate::rng::{stream, Purpose, NETWORK};
use crate::scenario::{MacSpec, TschSchedule};
use crate::topology::Topology;
use crate::world::{Cx, Received};
use crate::{NodeId, Time};
use beacon::BeaconParams;
use csma::CsmaParams;
use security::LinkSecurity;
use tsch::TschParams;
use xmac::XmacParams;

/// IEEE 802.15.4 2.4 GHz O-QPSK PHY and MAC constants (IEEE 802.15.4-2015, O-QPSK PHY and MAC PIB).
pub mod phy {
    use crate::Time;
    /// One symbol.
    pub const SYMBOL_US: Time = 16;
    /// aTurnaroundTime: 12 symbols.
    pub const TURNAROUND_US: Time = 12 * SYMBOL_US;
    /// CCA duration: 8 symbols.
    pub const CCA_US: Time = 8 * SYMBOL_US;
    /// aUnitBackoffPeriod: 20 symbols.
    pub const UNIT_BACKOFF_US: Time = 20 * SYMBOL_US;
    /// macAckWaitDuration: aUnitBackoffPeriod + aTurnaroundTime + SHR (10
    /// symbols) + 6 · phySymbolsPerOctet (2) = 54 symbols.
    pub const ACK_WAIT_US: Time = 54 * SYMBOL_US;
    /// aMaxPHYPacketSize.
    pub const MAX_PSDU: usize = 127;
}

/// Counters every MAC keeps, for the result rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MacStats {
    /// Data frames put on the air (first attempts and retries).
    pub data_frames_sent: u64,
    /// Bytes of those frames (PSDU, with FCS).
    pub data_bytes_sent: u64,
    /// Link-layer retransmissions of data frames.
    pub retransmissions: u64,
    /// Payloads given up (no ACK after all retries, channel never free, no strobe answered).
    pub drops: u64,
    /// ACK frames sent.
    pub acks_sent: u64,
    /// Data frames received and passed up.
    pub data_frames_received: u64,
    /// X-MAC strobes sent.
    pub strobes_sent: u64,
    /// Beacons sent (beacon-enabled coordinators).
    pub beacons_sent: u64,
    /// Data request commands sent (indirect transmission polls).
    pub data_requests_sent: u64,
}

pub trait Mac {
    /// Called once when the simulation starts.
    fn start(&mut self, cx: &mut Cx);
    /// Queue a MAC payload for the neighbour `next_hop`.
    fn send(&mut self, cx: &mut Cx, next_hop: NodeId, payload: Vec<u8>);
    /// A timer armed through the MAC's [`TimerTable`](crate::timer::TimerTable) fired.
    fn on_timer(&mut self, cx: &mut Cx, token: crate::timer::Token);
    /// A frame arrived intact (any destination: the MAC filters).
    fn on_frame(&mut self, cx: &mut Cx, rx: Received);
    /// The last copy of one of this node's emissions left the antenna.
    fn on_tx_end(&mut self, cx: &mut Cx, emission: EmissionId);
    /// Bring the energy meter up to now (time owed but not yet charged).
    fn settle_energy(&mut self, _cx: &mut Cx) {}
    /// Largest MAC payload one data frame can carry.
    fn max_payload(&self) -> usize;
    fn stats(&self) -> MacStats;
    /// Frames waiting to be sent (or acknowledged).
    fn queued(&self) -> usize;
    /// Frames the queue can still take, when it is bounded.
    fn free_frames(&self) -> Option<usize> {
        None
    }
    /// Link-layer security counters, when the network is secured.
    fn security_stats(&self) -> Option<security::SecurityStats> {
        None
    }
}

/// The MAC of a node: one of the protocols, dispatched without a vtable,
/// and reachable as itself by tools that read its insides (the timeslot
/// probe, tests).
pub enum NodeMac {
    Csma(csma::Csma),
    Xmac(xmac::Xmac),
    Tsch(tsch::Tsch),
    Beacon(beacon::BeaconMac),
}

macro_rules! each_mac {
    ($self:expr, $m:ident => $e:expr) => {
        match $self {
            NodeMac::Csma($m) => $e,
            NodeMac::Xmac($m) => $e,
            NodeMac::Tsch($m) => $e,
            NodeMac::Beacon($m) => $e,
        }
    };
}

impl NodeMac {
    pub fn as_tsch(&self) -> Option<&tsch::Tsch> {
        match self {
            NodeMac::Tsch(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_beacon(&self) -> Option<&beacon::BeaconMac> {
        match self {
            NodeMac::Beacon(m) => Some(m),
            _ => None,
        }
    }
}

impl Mac for NodeMac {
    fn start(&mut self, cx: &mut Cx) {
        each_mac!(self, m => m.start(cx))
    }
    fn send(&mut self, cx: &mut Cx, next_hop: NodeId, payload: Vec<u8>) {
        each_mac!(self, m => m.send(cx, next_hop, payload))
    }
    fn on_timer(&mut self, cx: &mut Cx, token: crate::timer::Token) {
        each_mac!(self, m => m.on_timer(cx, token))
    }
    fn on_frame(&mut self, cx: &mut Cx, rx: Received) {
        each_mac!(self, m => m.on_frame(cx, rx))
    }
    fn on_tx_end(&mut self, cx: &mut Cx, emission: EmissionId) {
        each_mac!(self, m => m.on_tx_end(cx, emission))
    }
    fn settle_energy(&mut self, cx: &mut Cx) {
        each_mac!(self, m => m.settle_energy(cx))
    }
    fn max_payload(&self) -> usize {
        each_mac!(self, m => m.max_payload())
    }
    fn stats(&self) -> MacStats {
        each_mac!(self, m => m.stats())
    }
    fn queued(&self) -> usize {
        each_mac!(self, m => m.queued())
    }
    fn free_frames(&self) -> Option<usize> {
        each_mac!(self, m => m.free_frames())
    }
    fn security_stats(&self) -> Option<security::SecurityStats> {
        each_mac!(self, m => m.security_stats())
    }
}

macro_rules! node_mac_from {
    ($($variant:ident($t:ty)),+) => {
        $(impl From<$t> for NodeMac {
            fn from(m: $t) -> Self {
                NodeMac::$variant(m)
            }
        })+
    };
}

node_mac_from!(
    Csma(csma::Csma),
    Xmac(xmac::Xmac),
    Tsch(tsch::Tsch),
    Beacon(beacon::BeaconMac)
);

/// What the nodes of one network share, drawn once per replication before
/// any MAC is built: the TSCH schedule, or the beacon-enabled cluster tree.
pub enum Network {
    /// Nothing shared (CSMA, X-MAC).
    Independent,
    /// The slotframe length and each node's cells.
    Tsch {
        slotframe: u32,
        cells: Vec<Vec<tsch::Cell>>,
    },
    /// Each node's role in the cluster tree (with the beacon schedule's phase).
    Beacon(Vec<beacon::Role>),
}

/// Why a MAC configuration cannot run on a topology.
#[derive(Debug)]
pub enum NetworkError {
    Schedule(String),
    /// A beacon-enabled configuration that cannot work (e.g. the active
    /// periods of the cluster heads do not fit in one beacon interval).
    Beacon(beacon::BeaconConfigError),
}

impl MacSpec {
    /// Plan what the network shares, for replication `replication` of a
    /// scenario with `seed`; `coordinator` is the default PAN coordinator
    /// (beacon-enabled) and TSCH tree root is node 0.
    pub fn network(
        &self,
        topology: &Topology,
        coordinator: NodeId,
        seed: u64,
        replication: u64,
    ) -> Result<Network, NetworkError> {
        use tsch::schedule::orchestra_schedule;
        Ok(match self {
            MacSpec::Csma(_) | MacSpec::Xmac(_) => Network::Independent,
            MacSpec::Tsch(t) => {
                let (slotframe, cells) = match &t.schedule {
                    TschSchedule::Orchestra {
                        unicast_period,
                        common_period,
                    } => orchestra_schedule(topology, 0, *unicast_period, *common_period),
                    other => (
                        t.slotframe,
                        Self::slotframe_schedule(t, other, topology, seed, replication)?,
                    ),
                };
                Network::Tsch { slotframe, cells }
            }
            MacSpec::Beacon(p) => {
                let root = p.pan_coordinator.unwrap_or(coordinator);
                let mut p = *p;
                p.validate().map_err(NetworkError::Beacon)?;
                if p.first_beacon_us.is_none() {
                    // the beacon schedule's phase, the same for the whole network
                    use rand::RngExt;
                    let mut rng = stream(seed, replication, NETWORK, Purpose::Mac);
                    p.first_beacon_us = Some(rng.random_range(0..p.beacon_interval_us()));
                }
                let roles =
                    beacon::cluster_tree(topology, root, &p).map_err(NetworkError::Beacon)?;
                Network::Beacon(roles)
            }
        })
    }

    /// The cells of a schedule laid out on the scenario's slotframe.
    fn slotframe_schedule(
        t: &crate::scenario::TschSpec,
        schedule: &TschSchedule,
        topology: &Topology,
        seed: u64,
        replication: u64,
    ) -> Result<Vec<Vec<tsch::Cell>>, NetworkError> {
        use tsch::schedule::{given_schedule, random_schedule, tree_schedule};
        Ok(match schedule {
            TschSchedule::RandomLinks { cells } => {
                random_schedule(topology, *cells, t.slotframe, seed, replication)
            }
            TschSchedule::Given(cells) => given_schedule(topology.nodes(), cells, t.slotframe)
                .map_err(NetworkError::Schedule)?,
            TschSchedule::Tree { shared } => {
                tree_schedule(topology, 0, *shared, false, t.slotframe, seed, replication)
            }
            TschSchedule::TreeBoth { shared } => {
                tree_schedule(topology, 0, *shared, true, t.slotframe, seed, replication)
            }
            TschSchedule::Orchestra { .. } => unreachable!("laid out on its own slotframes"),
        })
    }

    /// The MAC of `node` in `network` (planned from this spec), with its own
    /// link-layer key material (`security`, which may differ from the
    /// network's to model a misconfigured node).
    pub fn build(
        &self,
        node: NodeId,
        network: &Network,
        security: Option<LinkSecurity>,
    ) -> NodeMac {
        match (self, network) {
            (MacSpec::Csma(p), _) => csma::Csma::new(CsmaParams { security, ..*p }).into(),
            (MacSpec::Xmac(p), _) => xmac::Xmac::new(XmacParams { security, ..*p }).into(),
            (MacSpec::Tsch(t), Network::Tsch { slotframe, cells }) => tsch::Tsch::new(TschParams {
                template: t.template,
                slotframe: *slotframe,
                cells: cells[node].clone(),
                hopping: tsch::DEFAULT_HOPPING.to_vec(),
                max_retries: t.max_retries,
                frame_processing_us: t.frame_processing_us,
                security,
                min_be: 1,
                max_be: 7,
                addressing: t.addressing,
                stack: t.stack,
            })
            .into(),
            (MacSpec::Beacon(p), Network::Beacon(roles)) => {
                beacon::BeaconMac::new(BeaconParams { security, ..*p }, roles[node].clone()).into()
            }
            _ => panic!("a network planned from another MAC spec"),
        }
    }

    /// The network's link-layer security, if any.
    pub fn security(&self) -> Option<LinkSecurity> {
        match self {
            MacSpec::Csma(p) => p.security,
            MacSpec::Xmac(p) => p.security,
            MacSpec::Tsch(t) => t.security,
            MacSpec::Beacon(p) => p.security,
        }
    }

    /// How data frames name the two ends of a link.
    pub fn addressing(&self) -> LinkAddressing {
        match self {
            MacSpec::Tsch(t) => t.addressing,
            _ => LinkAddressing::Short,
        }
    }
}

/// How nodes are named on the link: short address = node index + 1.
pub const PAN_ID: u16 = 0xabcd;

pub fn short_addr(node: NodeId) -> u16 {
    u16::try_from(node + 1).expect("fewer than 65535 nodes")
}

pub fn node_of(addr: Address) -> Option<NodeId> {
    match addr {
        Address::Short(s) if s != 0 && s != 0xffff => Some(usize::from(s) - 1),
        _ => None,
    }
}

/// MAC header + FCS of a data frame between two short addresses with PAN ID
/// compression: FCF 2, seq 1, PAN 2, addresses 2 + 2, FCS 2.
pub const DATA_OVERHEAD: usize = 2 + 1 + 2 + 2 + 2 + 2;
/// An extended address takes 6 bytes more than a short one.
pub const EXTENDED_ADDR_EXTRA: usize = 6;

/// How data frames (and TSCH Enhanced ACKs) name the two ends of a link.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LinkAddressing {
    /// 16-bit short addresses; a secured frame still names its source by its
    /// extended address, because the CCM* nonce is built from it (and a
    /// capture can then be decrypted).
    #[default]
    Short,
    /// 64-bit extended addresses at both ends, as TSCH stacks (Contiki-NG,
    /// OpenWSN) send them and as the timeslot closed form (crates/models) assumes.
    Extended,
}

impl LinkAddressing {
    pub fn from_extended(extended: bool) -> Self {
        if extended {
            LinkAddressing::Extended
        } else {
            LinkAddressing::Short
        }
    }

    pub fn dst(self, node: NodeId) -> Address {
        match self {
            LinkAddressing::Short => Address::Short(short_addr(node)),
            LinkAddressing::Extended => Address::Extended(security::extended_addr(node)),
        }
    }

    pub fn src(self, node: NodeId, secured: bool) -> Address {
        match (self, secured) {
            (LinkAddressing::Short, false) => Address::Short(short_addr(node)),
            _ => Address::Extended(security::extended_addr(node)),
        }
    }

    /// MAC header + FCS of an unsecured data frame (PAN ID compression).
    pub fn data_overhead(self, secured: bool) -> usize {
        let extended = |a: Address| match a {
            Address::Extended(_) => EXTENDED_ADDR_EXTRA,
            _ => 0,
        };
        DATA_OVERHEAD + extended(self.dst(0)) + extended(self.src(0, secured))
    }
}

/// A data frame (with FCS) from `src` to `dst`.
pub fn data_frame(seq: u8, src: NodeId, dst: NodeId, payload: Vec<u8>) -> Vec<u8> {
    Repr::data(
        seq,
        PAN_ID,
        Address::Short(short_addr(dst)),
        Address::Short(short_addr(src)),
        payload,
    )
    .to_bytes_with_fcs()
    .expect("a data frame of a valid size")
}

/// Largest MAC payload of a data frame, secured or not (the same for every MAC).
pub fn max_data_payload(sec: Option<&security::NodeSecurity>, addressing: LinkAddressing) -> usize {
    let security = sec.map_or(0, |s| s.overhead());
    phy::MAX_PSDU - addressing.data_overhead(sec.is_some()) - security
}

/// A data frame from `src` to `dst`, secured when the network says so:
/// the bytes on the air and the CPU time securing took.
pub fn build_data_frame(
    sec: Option<&mut security::NodeSecurity>,
    addressing: LinkAddressing,
    seq: u8,
    src: NodeId,
    dst: NodeId,
    payload: Vec<u8>,
    asn: Option<u64>,
) -> (Vec<u8>, Time) {
    build_data_frame_pending(sec, addressing, seq, src, dst, payload, false, asn)
}

/// [`build_data_frame`] with the frame pending bit: a coordinator tells the
/// device it is sending to that more frames wait for it (indirect
/// transmission). The bit is in the frame control field, which CCM*
/// authenticates, so it is set before the frame is secured.
#[allow(clippy::too_many_arguments)]
pub fn build_data_frame_pending(
    sec: Option<&mut security::NodeSecurity>,
    addressing: LinkAddressing,
    seq: u8,
    src: NodeId,
    dst: NodeId,
    payload: Vec<u8>,
    frame_pending: bool,
    asn: Option<u64>,
) -> (Vec<u8>, Time) {
    let mut repr = Repr::data(
        seq,
        PAN_ID,
        addressing.dst(dst),
        addressing.src(src, sec.is_some()),
        payload,
    );
    repr.frame_pending = frame_pending;
    match sec {
        None => (
            repr.to_bytes_with_fcs()
                .expect("a data frame of a valid size"),
            0,
        ),
        Some(sec) => sec.seal(src, repr, asn),
    }
}

/// The payload of a data frame for this node (received in TSCH slot `asn`,
/// if given), unsecured when the network is secured, with the CPU time that
/// took; None if refused or not data. The one copy of the payload, for the
/// layers above.
pub fn open_data_frame(
    sec: Option<&mut security::NodeSecurity>,
    from: NodeId,
    frame: &[u8],
    parsed: Parsed,
    asn: Option<u64>,
) -> Option<(Vec<u8>, Time)> {
    match sec {
        None => parsed.data().map(|p| (p.to_vec(), 0)),
        Some(sec) => match sec.open(from, frame, asn) {
            Ok((repr, cpu)) => match repr.body {
                Body::Data(p) => Some((p, cpu)),
                _ => None,
            },
            Err(_) => None,
        },
    }
}

/// An immediate ACK (with FCS).
pub fn ack_frame(seq: u8) -> Vec<u8> {
    Repr::imm_ack(seq, false)
        .to_bytes_with_fcs()
        .expect("an ACK always fits")
}

/// The header of a received frame (with FCS), read in place without
/// allocating; None when the FCS or the header is bad (then [`Parsed::of`]
/// refuses the frame too). MACs drop frames for other nodes on this view
/// and parse only what they keep.
pub fn heard(frame: &[u8]) -> Option<Frame<&[u8]>> {
    Frame::new_checked(wpan::fcs::check(frame).ok()?).ok()
}

/// Whether a destination address names `node`, by its short or its
/// extended address.
pub fn addressed_to(dst: Address, node: NodeId) -> bool {
    match dst {
        Address::Short(s) => s == short_addr(node),
        Address::Extended(e) => e == security::extended_addr(node),
        Address::Absent => false,
    }
}

/// What the MAC needs of a received frame: its fields, its body borrowed
/// from the frame (nothing copied until the MAC keeps something).
pub struct Parsed<'a> {
    pub repr: ReprRef<'a>,
}

impl<'a> Parsed<'a> {
    /// The header (and, unless encrypted, the body) of a frame with FCS.
    pub fn of(frame: &'a [u8]) -> Option<Parsed<'a>> {
        Self::of_mpdu(wpan::fcs::check(frame).ok()?)
    }

    /// The same for the frame of a [`heard`] view, whose FCS is checked.
    pub fn of_heard(view: Frame<&'a [u8]>) -> Option<Parsed<'a>> {
        Self::of_mpdu(view.into_inner())
    }

    fn of_mpdu(mpdu: &'a [u8]) -> Option<Parsed<'a>> {
        if let Ok(repr) = ReprRef::parse(mpdu) {
            return Some(Parsed { repr });
        }
        // A secured frame whose MIC directly follows header IEs (a secured
        // Enhanced ACK): read it without the MIC.
        let layout = wpan::frame::Layout::parse_secured(mpdu).ok()?;
        let aux = layout.aux_offset?;
        let (header, _) = wpan::security::SecurityHeader::parse(&mpdu[aux..]).ok()?;
        let without_mic = mpdu.get(..mpdu.len().checked_sub(header.level.mic_len())?)?;
        ReprRef::parse(without_mic).ok().map(|repr| Parsed { repr })
    }

    pub fn is_ack(&self) -> bool {
        matches!(self.repr.body, BodyRef::Ack(_))
    }

    pub fn seq(&self) -> Option<u8> {
        self.repr.seq
    }

    /// Addressed to `node`, by its short or its extended address.
    pub fn is_for(&self, node: NodeId) -> bool {
        addressed_to(self.repr.dst_addr, node)
    }

    /// A data frame's payload (as on the air: encrypted if secured).
    pub fn data(&self) -> Option<&'a [u8]> {
        match self.repr.body {
            BodyRef::Data(p) => Some(p),
            _ => None,
        }
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

/// Convenience: a time `d` after now.
pub fn after(cx: &Cx, d: Time) -> Time {
    cx.now() + d
}
