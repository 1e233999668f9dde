//! Sans-IO DTLS 1.2 (RFC 6347) client and server, and the parts of DTLS 1.3
//! (RFC 9147) built so far.
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
//! # Layout: what the two versions share, what each owns
//!
//! Shared by both versions (one definition each):
//! - the sans-IO surface: `handle_datagram(now, …)`, `poll_transmit`,
//!   `poll_timeout`, `handle_timeout`, `poll_event`, and the [`Event`]s and
//!   [`Error`]s they report; a connection is of one version, chosen by the
//!   handshake, and both versions answer the same calls;
//! - AEAD and CBC primitives with their operation counting ([`crypto::aead`],
//!   [`crypto::cbc`]), the anti-replay window ([`record::ReplayWindow`], one
//!   per epoch in 1.3), handshake fragmentation and reassembly
//!   ([`handshake::fragment`]: the 12-byte DTLS handshake header is the same
//!   in both versions), retransmission timers ([`timer`], [`RetransmitPolicy`]:
//!   initial, backoff, limit) and the per-message byte and crypto-operation
//!   accounting ([`accounting`]), so the simulator charges 1.3 as it charges
//!   1.2.
//!
//! Owned by each version:
//! - DTLS 1.2: the 13-byte record header and its AEAD/MAC framing
//!   ([`record`]), the PRF key schedule ([`crypto::keys`], [`crypto::prf`]),
//!   HelloVerifyRequest cookies, and the handshake ([`handshake`]: client and
//!   server). Its handshake still keeps its progress in one struct with a
//!   phase; splitting it into one state struct per step, as 1.3 does, is a
//!   later step.
//! - DTLS 1.3 ([`v13`]): suites, the HKDF key schedule with the "dtls13"
//!   label prefix, the transcript hash, the unified header with encrypted
//!   record numbers and epoch/sequence reconstruction, DTLSInnerPlaintext
//!   protection, ACKs and the handshake message codecs. Its handshake
//!   lives in `v13::client` and `v13::server`, one state struct per step
//!   (`ExpectServerHello { … }` consumed by its handler and returning the
//!   next state), and [`v13::connection::Connection13`] drives them
//!   through the shared surface above (external PSK so far).
//!
//! Errors of new code carry typed reasons (`#[non_exhaustive]` enums); the
//! 1.2 code's `&'static str` reasons move to typed ones with its refactor.

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
mod surface;
pub mod timer;
pub mod v13;

/// A point in time in microseconds, on the caller's monotonic scale.
pub type Instant = u64;

pub use accounting::{ByteCounts, CryptoOps, MessageKind, Stats};
pub use config::{
    AeadKind, CertificateVerifier, CertifiedKey, CipherSuite, ClientConfig, Config, Extensions,
    MacAlgorithm, PskStore, RecordPacking, RecordProtection, RetransmitPolicy, Secret,
    ServerConfig, SinglePsk,
};
pub use connection::{compact_session_bytes, Connection, Event, Phase, Role};
pub use endpoint::{EndpointStats, Server, Transmit};
pub use error::{Alert, AlertDescription, AlertLevel, Error};
pub use handshake::resumption::ResumableSession;
/// The server's session table and admission policy, shared with the simulator.
pub use session_table;
