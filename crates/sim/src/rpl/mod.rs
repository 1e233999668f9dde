//! RPL (RFC 6550) as sans-IO pieces: the Trickle timer that paces DIOs
//! ([`trickle`], RFC 6206) and the MRHOF objective function with ETX
//! ([`mrhof`], RFC 6719) that turns neighbours' DIOs into a rank and a
//! preferred parent. The DIO/DAO/DAO-ACK/DIS messages themselves are wire
//! formats and live in `wpan::rpl`.

pub mod mrhof;
pub mod trickle;
