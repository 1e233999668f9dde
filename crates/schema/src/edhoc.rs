//! `[edhoc]`: EDHOC (RFC 9528) instead of DTLS in the handshakes workload
//! (`workload.handshake = "edhoc"`), carried over CoAP (RFC 9528 appendix
//! A.2) with CoAP's confirmable retransmission (RFC 7252 section 4.2).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::param::params;
use crate::problem::Low::{Above, AtLeast};
use crate::problem::Problems;
use crate::units::us_from_ms;

/// The authentication method (RFC 9528 section 3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Method 3: static Diffie-Hellman keys on both sides.
    #[default]
    StaticDh,
    /// Method 0: signature keys on both sides (not in lakers 0.8: refused).
    Signature,
}

/// The cipher suite (RFC 9528 section 3.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Suite {
    /// Suite 2: AES-CCM-16-64-128, SHA-256, P-256, ES256.
    #[default]
    P256,
    /// Suite 0: AES-CCM-16-64-128, SHA-256, X25519, EdDSA (not in lakers 0.8: refused).
    X25519,
}

/// How ID_CRED_I and ID_CRED_R name the credentials (RFC 9528 section 3.5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Credentials {
    /// By reference: a one-byte kid.
    #[default]
    Kid,
    /// By value: the whole CWT Claims Set.
    Ccs,
}

/// Whose costs EDHOC's cryptography is charged at: one of the platform
/// file's `[crypto.*]` tables, or the board's own best.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CryptoStrategy {
    /// The board's own best: its `crypto.hardware` table where the platform
    /// file has one (public-key operations on an accelerator such as the
    /// CC2538's PKA), else `crypto.hybrid`, else `crypto.software`.
    #[default]
    Platform,
    Software,
    Hybrid,
    Hardware,
}

const HOUR_MS: f64 = 3_600_000.0;

params! {
    // RFC 7252 section 4.8 sets 2 s, 1.5 and 4; the ranges keep the timer
    // positive and the factor at least 1 (section 4.8: "MUST NOT be
    // decreased below 1.0"); tokens are 0 to 8 bytes (section 3)
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Edhoc at "edhoc": Default {
        /// The authentication method: static_dh (method 3) or signature (method 0).
        method: Method = Method::StaticDh,
        /// The cipher suite: p256 (suite 2) or x25519 (suite 0).
        suite: Suite = Suite::P256,
        /// How ID_CRED_I and ID_CRED_R name the credentials: kid or ccs.
        credentials: Credentials = Credentials::Kid,
        /// Whose costs EDHOC's cryptography is charged at: platform (the
        /// board's own best: crypto.hardware where the platform file has
        /// it, else hybrid, else software), software, hybrid or hardware.
        crypto_strategy: CryptoStrategy = CryptoStrategy::Platform,
        /// CoAP ACK_TIMEOUT (RFC 7252 section 4.8: 2 s).
        ack_timeout_ms: f64 = 2000.0; range (Above(0.0), HOUR_MS),
        /// CoAP ACK_RANDOM_FACTOR (RFC 7252 section 4.8: 1.5).
        ack_random_factor: f64 = 1.5; range (AtLeast(1.0), 10.0),
        /// CoAP MAX_RETRANSMIT (RFC 7252 section 4.8: 4).
        max_retransmit: u32 = 4; range (AtLeast(0.0), 20.0),
        /// CoAP token length; RFC 7252 section 5.3.1 asks for at least 32 bits
        /// of randomness from a client connected to the general Internet.
        token_bytes: u32 = 4; range (AtLeast(0.0), 8.0),
    }
}

impl Edhoc {
    pub fn validate(&self, p: &mut Problems) {
        self.check_ranges(p);
        if self.method == Method::Signature {
            let allowed = "'static_dh' (lakers 0.8 implements method 3 only)";
            p.push("edhoc.method", "signature", allowed);
        }
        if self.suite == Suite::X25519 {
            let allowed = "'p256' (lakers 0.8 implements cipher suite 2 only)";
            p.push("edhoc.suite", "x25519", allowed);
        }
    }

    /// The simulator's settings (after [`Edhoc::validate`]).
    pub fn setup(&self) -> sim::app::edhoc::EdhocSetup {
        sim::app::edhoc::EdhocSetup {
            edhoc: edhoc::Config {
                method: match self.method {
                    Method::StaticDh => edhoc::Method::StaticDh,
                    Method::Signature => edhoc::Method::Signature,
                },
                suite: match self.suite {
                    Suite::P256 => edhoc::Suite::P256,
                    Suite::X25519 => edhoc::Suite::X25519,
                },
                credentials: match self.credentials {
                    Credentials::Kid => edhoc::Credentials::ByReference,
                    Credentials::Ccs => edhoc::Credentials::ByValue,
                },
            },
            coap: coap::reliability::Params {
                ack_timeout_us: us_from_ms(self.ack_timeout_ms),
                ack_random_factor: self.ack_random_factor,
                max_retransmit: self.max_retransmit,
            },
            token_bytes: self.token_bytes as usize,
        }
    }
}
