//! DTLS 1.2 (RFC 6347): the 13-byte record header and its AEAD or
//! CBC/HMAC framing ([`record`]), the PRF key schedule ([`keys`]),
//! HelloVerifyRequest cookies, the handshake ([`handshake`]: client and
//! server, as `impl Connection` blocks), the [`connection::Connection`]
//! driving them, its client and server configurations ([`config`]) and the
//! server endpoint ([`endpoint::Server`]) with its session table and
//! resumption cache.

pub mod config;
pub mod connection;
pub mod endpoint;
pub mod handshake;
pub mod keys;
pub mod record;
