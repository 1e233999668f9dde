//! DTLS 1.3 (RFC 9147): what differs from DTLS 1.2: suites, key schedule,
//! the unified record header with encrypted record numbers, record
//! protection with DTLSInnerPlaintext, ACKs and the handshake messages.
//!
//! Built so far, each complete and tested: [`suite`], [`key_schedule`],
//! [`transcript`], [`header`], [`record_number`], [`protection`], [`ack`], [`messages`] and their
//! typed errors ([`error`]). The handshake state machines (`client`,
//! `server`: one state struct per step) and the connection that drives them
//! through the shared sans-IO API come next; see the crate documentation for
//! the layout.

pub mod ack;
pub mod error;
pub mod header;
pub mod key_schedule;
pub mod messages;
pub mod protection;
pub mod record_number;
pub mod suite;
pub mod transcript;
