//! The primitives both versions build on, each counting its operations:
//! AEAD and CBC/HMAC wrappers, cipher suites and secrets ([`suite`]),
//! P-256 ECDH/ECDSA ([`ecc`]), the TLS 1.2 PRF (P_SHA256) with HMAC and the
//! transcript hash ([`prf`]), and stateless cookies ([`cookie`]).

pub mod aead;
pub mod cbc;
pub mod cookie;
pub mod ecc;
pub mod prf;
pub mod suite;

pub use cookie::CookieGenerator;
pub use prf::{hmac_sha256, prf_sha256, Transcript};

/// Bytes from hex digits, white space ignored: the known-answer tests'
/// vectors as their sources print them.
#[cfg(test)]
pub(crate) fn test_hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}
