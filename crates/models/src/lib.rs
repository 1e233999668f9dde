//! Closed-form models of dtlsim, each with its source in its module. No simulation here: each module is
//! a formula with its assumptions, so the simulator can be checked against it
//! where those assumptions hold.
//!
//! - [`tsch`]: expected per-hop and per-handshake latency in TSCH.
//! - [`engset`]: session blocking in a server with R slots (M/M/R/R/N).
//! - [`overhead`]: bytes DTLS and the 802.15.4/6LoWPAN stack add per datagram.
//! - [`timeslot`]: the shortest TSCH timeslot that fits link-layer CCM*.

pub mod engset;
pub mod error;
pub mod overhead;
pub mod security;
pub mod timeslot;
pub mod tsch;

pub use error::ModelError;
