//! DTLS 1.3 (RFC 9147): what differs from DTLS 1.2: suites, key schedule,
//! the unified record header with encrypted record numbers, record
//! protection with DTLSInnerPlaintext, ACKs and the handshake messages.
//!
//! Built so far, each complete and tested: [`suite`], [`key_schedule`],
//! [`transcript`], [`header`], [`record_number`], [`protection`], [`ack`],
//! [`messages`] and their typed errors ([`crate::error::v13`]); the external-PSK
//! handshake (psk_ke, psk_dhe_ke over [`key_exchange`]'s x25519 and
//! secp256r1; stateless HelloRetryRequest cookie) in `client` and `server`,
//! one state struct per step consumed by its handler, driven by
//! [`connection::Connection13`], a [`crate::Session`], with flights, ACKs
//! and retransmission (`flight`, `record_layer`); 1.3's part of the shared
//! server endpoint ([`endpoint::Server13`]), creating a session only for a
//! ClientHello whose cookie verifies (connection IDs negotiated through
//! `Config13::cid_len`, RFC 9146 §3 and RFC 9147 §9, route a moved peer's
//! datagrams to its session);
//! compact unified headers ([`header::HeaderForm`], the default);
//! (EC)DHE handshakes authenticated by X.509 certificates or RFC 7250 raw
//! public keys with ecdsa_secp256r1_sha256 ([`certificate`] message
//! codecs over the shared [`crate::cert`], `auth` on the crate's P-256
//! ECDSA), server-only or mutual.
//! KeyUpdate; session resumption by ticket ([`ticket`]: NewSessionTicket,
//! the server's bounded ticket store, psk_ke and psk_dhe_ke resumption).

pub mod ack;
pub(crate) mod auth;
pub mod certificate;
pub(crate) mod client;
pub mod config;
pub mod connection;
pub(crate) mod cookie;
pub mod endpoint;
pub mod first_hello;
pub(crate) mod flight;
pub mod header;
pub mod key_exchange;
pub mod key_schedule;
pub mod messages;
pub mod protection;
pub(crate) mod record_layer;
pub mod record_number;
pub(crate) mod server;
pub(crate) mod step;
pub mod suite;
pub mod ticket;
pub mod transcript;
