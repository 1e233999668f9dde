//! Sans-IO DTLS 1.2 (RFC 6347) client and server.
//!
//! No socket, no clock, no global state: the caller passes the current time
//! (an [`Instant`], microseconds on any monotonic scale: the simulator's
//! virtual time or a wall clock) into every call, feeds received datagrams
//! with `handle_datagram`, and polls datagrams to send (`poll_transmit`),
//! the next timer deadline (`poll_timeout`) and events (`poll_event`).
//! Randomness comes from an RNG the caller supplies.
//!
//! - [`Connection`]: one association (the client side, or one server-side
//!   session).
//! - [`Server`]: a server endpoint with the stateless cookie exchange, PSK
//!   lookup through [`PskStore`], and a bounded session table.
//!
//! The record protection ([`record`]), key schedule, AEAD and CBC wrappers
//! ([`crypto`]), timers ([`timer`]) and accounting ([`accounting`]) are
//! independent of the DTLS 1.2 handshake so that DTLS 1.3 can share them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod accounting;
pub mod codec;
pub mod config;
pub mod connection;
pub mod crypto;
pub mod endpoint;
pub mod error;
pub mod handshake;
pub mod record;
pub mod timer;

/// A point in time in microseconds, on the caller's monotonic scale.
pub type Instant = u64;

pub use accounting::{ByteCounts, CryptoOps, MessageKind, Stats};
pub use config::{
    AeadKind, CertificateVerifier, CertifiedKey, CipherSuite, ClientConfig, Config, Extensions,
    MacAlgorithm, PskStore, RecordPacking, RecordProtection, RetransmitPolicy, Secret,
    ServerConfig, SinglePsk,
};
pub use connection::{Connection, Event, Phase, Role};
pub use endpoint::{EndpointStats, Server, Transmit};
pub use error::{Alert, AlertDescription, AlertLevel, Error};
