//! Medium access control: one folder or file per protocol ([`csma`],
//! [`xmac`], [`contikimac`], [`csl`], [`tsch`], [`beacon`]), over what
//! they share.
//!
//! A MAC takes payloads for a neighbour from the network layer, gets them
//! across the channel as real IEEE 802.15.4 frames (built with `wpan`), and
//! passes received payloads up through [`Cx::deliver`]. It drives the radio
//! (listen / off / transmit) and its own timers; the engine calls it back
//! through the [`Mac`] trait, dispatched by [`NodeMac`].
//!
//! Shared by the protocols: the PHY's constants ([`phy`]), link addresses
//! ([`address`]), the frames ([`frame`]), the receive path and a data
//! frame's way into a queue ([`common`]), link-layer security
//! ([`security`]), and what a network plans before its MACs are built
//! ([`network`]).

pub mod address;
pub mod beacon;
pub mod common;
pub mod contikimac;
pub mod cooja_mote;
pub mod csl;
pub mod csma;
pub mod frame;
pub mod network;
pub mod phy;
pub mod security;
pub mod tsch;
pub mod xmac;

use crate::channel::EmissionId;
use crate::world::{Cx, Received};
use crate::NodeId;

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
    /// Of `drops`: payloads refused on arrival because the queue (or the
    /// packet pool) was full; the rest were given up while being sent.
    pub drops_queue_full: u64,
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
    /// For the event census: the kind of the timer `token` names and
    /// whether it fires stale (a MAC that does not say: "timer").
    fn describe_timer(&self, _token: crate::timer::Token) -> (&'static str, bool) {
        ("timer", false)
    }
    /// The last copy of one of this node's emissions left the antenna.
    fn on_tx_end(&mut self, cx: &mut Cx, emission: EmissionId);
    /// A frame this node's radio was hearing ended without being received
    /// (collided, faded, or from beyond its receiving range).
    fn on_frame_lost(&mut self, _cx: &mut Cx) {}
    /// Bring the energy meter up to now (time owed but not yet charged).
    fn settle_energy(&mut self, _cx: &mut Cx) {}
    /// The node has joined the network (its join protocol succeeded), or
    /// not yet: a MAC that forms a network advertises it only once joined
    /// (TSCH with formation); the others ignore it.
    fn set_joined(&mut self, _cx: &mut Cx, _joined: bool) {}
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
    /// How the node joined the network's timing, when the MAC forms one
    /// (TSCH with formation).
    fn formation(&self) -> Option<tsch::formation::FormationStats> {
        None
    }
    /// 6P and MSF counts, when the MAC runs MSF (TSCH with schedule msf).
    fn msf(&self) -> Option<tsch::msf_node::MsfStats> {
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
    Contikimac(contikimac::Contikimac),
    Csl(csl::Csl),
}

macro_rules! each_mac {
    ($self:expr, $m:ident => $e:expr) => {
        match $self {
            NodeMac::Csma($m) => $e,
            NodeMac::Xmac($m) => $e,
            NodeMac::Tsch($m) => $e,
            NodeMac::Beacon($m) => $e,
            NodeMac::Contikimac($m) => $e,
            NodeMac::Csl($m) => $e,
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
    fn describe_timer(&self, token: crate::timer::Token) -> (&'static str, bool) {
        each_mac!(self, m => m.describe_timer(token))
    }
    fn on_tx_end(&mut self, cx: &mut Cx, emission: EmissionId) {
        each_mac!(self, m => m.on_tx_end(cx, emission))
    }
    fn on_frame_lost(&mut self, cx: &mut Cx) {
        each_mac!(self, m => m.on_frame_lost(cx))
    }
    fn settle_energy(&mut self, cx: &mut Cx) {
        each_mac!(self, m => m.settle_energy(cx))
    }
    fn set_joined(&mut self, cx: &mut Cx, joined: bool) {
        each_mac!(self, m => m.set_joined(cx, joined))
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
    fn formation(&self) -> Option<tsch::formation::FormationStats> {
        each_mac!(self, m => m.formation())
    }

    fn msf(&self) -> Option<tsch::msf_node::MsfStats> {
        each_mac!(self, m => m.msf())
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
    Beacon(beacon::BeaconMac),
    Contikimac(contikimac::Contikimac),
    Csl(csl::Csl)
);
