//! How nodes are named on the link: in one PAN, a node's short address is
//! its index plus one; its extended address is derived from its index too
//! ([`security::extended_addr`]).

use wpan::frame::Address;

use super::security;
use crate::NodeId;

/// The PAN every node belongs to.
pub const PAN_ID: u16 = 0xabcd;

/// The neighbour a broadcast frame is queued for: every node in range
/// (short address 0xffff, no ACK requested).
pub const BROADCAST_NODE: NodeId = NodeId::MAX;

pub fn short_addr(node: NodeId) -> u16 {
    u16::try_from(node + 1).expect("fewer than 65535 nodes")
}

pub fn node_of(addr: Address) -> Option<NodeId> {
    match addr {
        Address::Short(s) if s != 0 && s != 0xffff => Some(usize::from(s) - 1),
        _ => None,
    }
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
        if node == BROADCAST_NODE {
            return Address::Short(wpan::frame::BROADCAST);
        }
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
