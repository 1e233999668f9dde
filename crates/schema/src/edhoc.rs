//! `[edhoc]`: EDHOC (RFC 9528) instead of DTLS in the handshakes workload
//! (`workload.handshake = "edhoc"`), carried over CoAP (RFC 9528 appendix
//! A.2) with CoAP's confirmable retransmission (RFC 7252 section 4.2).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Edhoc {
    pub method: Method,
    pub suite: Suite,
    pub credentials: Credentials,
    /// CoAP ACK_TIMEOUT (RFC 7252 section 4.8: 2 s).
    pub ack_timeout_ms: f64,
    /// CoAP ACK_RANDOM_FACTOR (RFC 7252 section 4.8: 1.5).
    pub ack_random_factor: f64,
    /// CoAP MAX_RETRANSMIT (RFC 7252 section 4.8: 4).
    pub max_retransmit: u32,
    /// CoAP token length; RFC 7252 section 5.3.1 asks for at least 32 bits
    /// of randomness from a client connected to the general Internet.
    pub token_bytes: u32,
}

impl Default for Edhoc {
    fn default() -> Self {
        Edhoc {
            method: Method::StaticDh,
            suite: Suite::P256,
            credentials: Credentials::Kid,
            ack_timeout_ms: 2000.0,
            ack_random_factor: 1.5,
            max_retransmit: 4,
            token_bytes: 4,
        }
    }
}

impl Edhoc {
    pub fn validate(&self, p: &mut Problems) {
        p.within("edhoc.ack_timeout_ms", self.ack_timeout_ms);
        p.within("edhoc.ack_random_factor", self.ack_random_factor);
        p.within("edhoc.max_retransmit", self.max_retransmit);
        p.within("edhoc.token_bytes", self.token_bytes);
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
