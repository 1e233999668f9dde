//! Sans-IO DTLS 1.2 (RFC 6347) and DTLS 1.3 (RFC 9147) clients, servers
//! and server endpoints.
//!
//! No socket, no clock, no global state: the caller passes the current time
//! (an [`Instant`], microseconds on any monotonic scale: the simulator's
//! virtual time or a wall clock) into every call, feeds received datagrams
//! with `handle_datagram`, and polls datagrams to send (`poll_transmit`),
//! the next timer deadline (`poll_timeout`) and events (`poll_event`).
//! Randomness comes from an RNG the caller supplies.
//!
//! - [`Connection`] (1.2) and [`v13::connection::Connection13`]: one
//!   association (the client side, or one server-side session).
//! - [`Server`] (1.2) and [`v13::endpoint::Server13`]: a server endpoint
//!   with the stateless cookie exchange, routing by connection ID and a
//!   bounded session table.
//!
//! # Layout: shared parts, one folder per version
//!
//! Shared by both versions (one definition each; none of them imports from
//! a version folder, neither version folder imports from the other, and
//! the shared modules import each other without a cycle, which
//! `tests/layout.rs` checks):
//! - [`session`]: the [`Event`]s a connection reports, its [`Role`] and
//!   [`Phase`]; [`endpoint`]: the [`Transmit`] an endpoint hands out and
//!   the connection IDs it issues;
//! - [`error`] with its typed reasons, and [`alert`];
//! - [`config`]: the knobs both versions take ([`Config`], retransmission,
//!   record packing, PSK lookup); [`cert`]: certificate types, RFC 7250 raw
//!   public keys, a side's [`CertifiedKey`] and its [`CertificateVerifier`];
//! - [`crypto`]: AEAD and CBC primitives with their operation counting,
//!   cipher suites and [`Secret`]s ([`crypto::suite`]), P-256, the PRF and
//!   HMAC, stateless cookies;
//! - [`fragment`]: the 12-byte handshake header (the same in both versions),
//!   fragmentation and reassembly; [`handshake_type`]: the message types
//!   and their names; [`replay`]: the anti-replay window (one
//!   per epoch in 1.3); [`timer`]: retransmission timers
//!   ([`RetransmitPolicy`]: initial, backoff, limit); [`accounting`]: the
//!   per-message byte and crypto-operation counts, so the simulator charges
//!   1.3 as it charges 1.2; [`codec`]: big-endian readers and writers.
//!
//! Owned by each version:
//! - [`v12`]: the 13-byte record header and its AEAD/MAC framing, the PRF
//!   key schedule, HelloVerifyRequest cookies, the handshake (client and
//!   server) and its session resumption, the connection, the client and
//!   server configurations and the endpoint with its session table. Its
//!   handshake still keeps its progress in one struct with a phase.
//! - [`v13`]: suites, the HKDF key schedule with the "dtls13" label prefix,
//!   the transcript hash, the unified header with encrypted record numbers,
//!   DTLSInnerPlaintext protection, ACKs, the handshake message codecs, the
//!   handshake (one state struct per step, consumed by its handler and
//!   returning the next), the connection and the endpoint.
//!
//! Errors carry typed reasons (`#[non_exhaustive]` enums grouped by
//! cause, [`error`]), each printing as the text it reports.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod accounting;
pub mod alert;
pub mod cert;
pub mod codec;
pub mod config;
pub mod crypto;
pub mod endpoint;
pub mod error;
pub mod fragment;
pub mod handshake_type;
pub mod netq;
pub mod replay;
pub mod session;
pub mod timer;
pub mod v12;
pub mod v13;

/// A point in time in microseconds, on the caller's monotonic scale.
pub type Instant = u64;

pub use accounting::{ByteCounts, CryptoOps, MessageKind, Stats};
pub use alert::{Alert, AlertDescription, AlertLevel};
pub use cert::{CertificateVerifier, CertifiedKey};
pub use config::{Config, Extensions, PskStore, RecordPacking, RetransmitPolicy, SinglePsk};
pub use crypto::suite::{AeadKind, CipherSuite, MacAlgorithm, RecordProtection, Secret};
pub use endpoint::{Endpoint, Transmit};
pub use error::Error;
pub use session::{Event, Phase, Role, Session};
/// The server's session table and admission policy, shared with the simulator.
pub use session_table;
pub use v12::config::{ClientConfig, ServerConfig};
pub use v12::connection::{compact_session_bytes, Connection};
pub use v12::endpoint::{EndpointStats, Server};
pub use v12::handshake::resumption::ResumableSession;
