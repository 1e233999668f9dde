//! RPL (RFC 6550) as sans-IO pieces: the Trickle timer that paces DIOs
//! ([`trickle`], RFC 6206), the MRHOF objective function with ETX
//! ([`mrhof`], RFC 6719) that turns neighbours' DIOs into a rank and a
//! preferred parent, the link ETX measured from the node's own unicast
//! frames ([`link_stats`]) and a node's storing-mode RPL that ties them
//! together ([`node`]), and every node's RPL as a network's router
//! ([`router`]). The DIO/DAO/DAO-ACK/DIS messages themselves are
//! wire formats and live in `wpan::rpl`.

pub mod control_plane;
pub mod link_stats;
pub mod mrhof;
pub mod node;
pub mod router;
pub mod trickle;
