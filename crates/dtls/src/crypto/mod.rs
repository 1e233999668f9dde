//! AEAD and CBC/HMAC wrappers, key schedule and MACs: TLS 1.2 PRF (P_SHA256), extended master secret,
//! key block, Finished, transcript hash, HelloVerifyRequest cookies.

pub mod aead;
pub mod cbc;
pub mod cookie;
pub mod ecc;
pub mod keys;
pub mod prf;

pub use cookie::CookieGenerator;
pub use prf::{hmac_sha256, prf_sha256, Transcript};
