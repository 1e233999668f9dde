//! The DTLS 1.3 knobs. What 1.2 and 1.3 share (MTU, fragment size, record
//! packing, retransmission policy, reassembly bound) stays in the crate's
//! [`Config`]; what only 1.3 has (its suites, groups and PSK modes) is here.

use std::fmt;
use std::sync::Arc;

use super::header::HeaderForm;
use super::key_exchange::NamedGroup;
use super::messages::PskMode;
use super::suite::CipherSuite13;
use crate::config::{Config, PskStore, Secret, SinglePsk};
use crate::error::Error;

/// Longest connection ID this stack issues: RFC 9146 allows 255 bytes;
/// 20 is what RFC 9000 (QUIC) settled on and more than any constrained
/// deployment needs.
pub const MAX_CID_LEN: usize = 20;

/// Handshake choices common to client and server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config13 {
    /// The shared knobs (MTU, fragment size, packing, retransmission,
    /// reassembly bound); its 1.2 `cipher_suites` and `extensions` are not
    /// used by 1.3.
    pub common: Config,
    /// Suites offered (client) or accepted (server), in preference order.
    /// A client with an external PSK offers only the suites whose hash is
    /// that of the first one (the PSK's hash, RFC 8446 §4.2.11).
    pub suites: Vec<CipherSuite13>,
    /// Key exchange modes, in preference order: psk_dhe_ke (forward secrecy,
    /// one ECDH each side) or psk_ke (no public-key operation).
    pub psk_modes: Vec<PskMode>,
    /// Groups for psk_dhe_ke, in preference order; the client sends a share
    /// for the first only and learns of others through HelloRetryRequest.
    pub groups: Vec<NamedGroup>,
    /// Connection ID (RFC 9146 §3, RFC 9147 §9): `None` does not offer
    /// the connection_id extension; `Some(n)` negotiates it, asking the
    /// peer to put a random n-byte CID of this side in every protected
    /// record to it (0: this side sends CIDs but wants none).
    pub cid_len: Option<usize>,
    /// Unified headers of protected records: 8- or 16-bit sequence numbers,
    /// length left out of a datagram's last record or not (RFC 9147 §4).
    /// The default is the smallest correct form, [`HeaderForm::COMPACT`].
    pub header_form: HeaderForm,
}

impl Default for Config13 {
    fn default() -> Self {
        Config13 {
            common: Config::default(),
            suites: CipherSuite13::ALL.to_vec(),
            psk_modes: vec![PskMode::PskDheKe, PskMode::PskKe],
            groups: vec![NamedGroup::X25519, NamedGroup::Secp256r1],
            cid_len: None,
            header_form: HeaderForm::COMPACT,
        }
    }
}

impl Config13 {
    /// The constrained profile: TLS_AES_128_CCM_8_SHA256 with psk_ke only.
    pub fn psk_ccm8() -> Self {
        Config13 {
            suites: vec![CipherSuite13::Aes128Ccm8Sha256],
            psk_modes: vec![PskMode::PskKe],
            ..Config13::default()
        }
    }

    pub(crate) fn validate(&self) -> Result<(), Error> {
        self.common.validate()?;
        if self.suites.is_empty() {
            return Err(Error::Config("no DTLS 1.3 cipher suite"));
        }
        if self.psk_modes.is_empty() {
            return Err(Error::Config("no PSK key exchange mode"));
        }
        if self.psk_modes.contains(&PskMode::PskDheKe) && self.groups.is_empty() {
            return Err(Error::Config("psk_dhe_ke without a group"));
        }
        if self.cid_len.is_some_and(|n| n > MAX_CID_LEN) {
            return Err(Error::Config("cid_len must be 0..=20"));
        }
        Ok(())
    }
}

/// A DTLS 1.3 client with an external PSK.
#[derive(Clone, Debug)]
pub struct ClientConfig13 {
    /// Handshake choices.
    pub config: Config13,
    /// PSK identity and key.
    pub psk: (Vec<u8>, Secret),
}

impl ClientConfig13 {
    /// A PSK client.
    pub fn psk(config: Config13, identity: &[u8], key: &[u8]) -> Self {
        ClientConfig13 {
            config,
            psk: (identity.to_vec(), Secret(key.to_vec())),
        }
    }
}

/// A DTLS 1.3 server with external PSKs.
#[derive(Clone)]
pub struct ServerConfig13 {
    /// Handshake choices.
    pub config: Config13,
    /// PSK lookup.
    pub psk_store: Arc<dyn PskStore>,
    /// Answer a ClientHello without a valid cookie with a HelloRetryRequest
    /// carrying one (RFC 9147 §5.1), as 1.2's HelloVerifyRequest does.
    pub require_cookie: bool,
    /// Length of the cookie's MAC (1..=32 bytes); the cookie also carries
    /// the hash of the first ClientHello, the suite and the group.
    pub cookie_mac_len: usize,
    /// Cookie secret rotation period; cookies made with the previous secret
    /// stay valid for one more period.
    pub cookie_rotation_us: u64,
    /// Sessions a server endpoint holds at once (handshaking or
    /// established); a verified ClientHello beyond them is refused.
    pub max_sessions: usize,
}

impl fmt::Debug for ServerConfig13 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig13")
            .field("config", &self.config)
            .field("require_cookie", &self.require_cookie)
            .field("cookie_mac_len", &self.cookie_mac_len)
            .field("cookie_rotation_us", &self.cookie_rotation_us)
            .field("max_sessions", &self.max_sessions)
            .finish_non_exhaustive()
    }
}

impl ServerConfig13 {
    /// A PSK server with one identity.
    pub fn psk(config: Config13, identity: &[u8], key: &[u8]) -> Self {
        ServerConfig13 {
            config,
            psk_store: Arc::new(SinglePsk {
                identity: identity.to_vec(),
                key: Secret(key.to_vec()),
            }),
            require_cookie: true,
            cookie_mac_len: 16,
            cookie_rotation_us: 60_000_000,
            max_sessions: 16,
        }
    }
}
