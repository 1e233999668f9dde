//! The DTLS 1.3 knobs. What 1.2 and 1.3 share (MTU, fragment size, record
//! packing, retransmission policy, reassembly bound) stays in the crate's
//! [`Config`]; what only 1.3 has (its suites, groups and PSK modes) is here.

use crate::error::ConfigError;
use std::fmt;
use std::sync::Arc;

use super::header::HeaderForm;
use super::key_exchange::NamedGroup;
use super::suite::CipherSuite13;
use super::ticket::TicketStore13;
use crate::cert::{p256_spki, CertificateType};
use crate::cert::{CertificateVerifier, CertifiedKey};
use crate::config::{Config, PskStore, SinglePsk};
use crate::crypto::ecc;
use crate::crypto::suite::Secret;
use crate::error::Error;
use crate::v13::messages::PskMode;
use session_table::{Limits, Policy};

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
    /// Certificate types accepted from the peer, in preference order
    /// (RFC 7250): X.509 and/or raw public keys. A client sends
    /// server_certificate_type unless this is X.509 alone (the default
    /// when the extension is absent, RFC 7250 §4.1).
    pub certificate_types: Vec<CertificateType>,
    /// Start a KeyUpdate (RFC 9147 §8) once this many records were sent
    /// in the current epoch. None: at the suite's confidentiality limit
    /// (RFC 9147 §4.5.3; [`CipherSuite13::record_limit`]).
    pub key_update_after_records: Option<u64>,
    /// Close the connection once this many records failed authentication
    /// under one key (RFC 9147 §4.5.3). None: the suite's integrity limit
    /// ([`CipherSuite13::integrity_limit`]).
    pub integrity_limit: Option<u64>,
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
            certificate_types: vec![CertificateType::X509],
            key_update_after_records: None,
            integrity_limit: None,
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
            return Err(Error::Config(ConfigError::NoSuite13));
        }
        if self.psk_modes.is_empty() {
            return Err(Error::Config(ConfigError::NoPskMode));
        }
        if self.psk_modes.contains(&PskMode::PskDheKe) && self.groups.is_empty() {
            return Err(Error::Config(ConfigError::PskDheWithoutGroup));
        }
        if self.certificate_types.is_empty() {
            return Err(Error::Config(ConfigError::NoCertificateType));
        }
        if self.cid_len.is_some_and(|n| n > MAX_CID_LEN) {
            return Err(Error::Config(ConfigError::CidLenOver20));
        }
        Ok(())
    }
}

/// This side's certificate (chain) or raw public key and its P-256
/// private key.
#[derive(Clone, Debug)]
pub struct Credential13 {
    /// What `entries` hold.
    pub certificate_type: CertificateType,
    /// cert_data of the Certificate message, leaf first: X.509 DER
    /// certificates, or one SubjectPublicKeyInfo (RFC 7250 §3).
    pub entries: Vec<Vec<u8>>,
    /// The leaf's private key (32-byte P-256 scalar).
    pub private_key: Secret,
}

impl Credential13 {
    /// An X.509 chain, as the 1.2 stack takes it.
    pub fn x509(key: CertifiedKey) -> Self {
        Credential13 {
            certificate_type: CertificateType::X509,
            entries: key.chain,
            private_key: key.private_key,
        }
    }

    /// An X.509 certificate of its own, for `common_name`, signed with
    /// `private_key` (a P-256 scalar).
    pub fn self_signed(private_key: Secret, common_name: &str) -> Result<Self, Error> {
        let cert = ecc::self_signed_certificate(&private_key, common_name)?;
        Ok(Self::x509(CertifiedKey {
            chain: vec![cert],
            private_key,
        }))
    }

    /// A raw public key (RFC 7250): the SubjectPublicKeyInfo of the
    /// private key's public point.
    pub fn raw_public_key(private_key: Secret) -> Result<Self, Error> {
        let point = ecc::public_of(&private_key)?;
        Ok(Credential13 {
            certificate_type: CertificateType::RawPublicKey,
            entries: vec![p256_spki(&point)],
            private_key,
        })
    }

    /// The leaf's cert_data: what a peer pins.
    pub fn leaf(&self) -> &[u8] {
        self.entries.first().map_or(&[], Vec::as_slice)
    }
}

/// A DTLS 1.3 client: with an external PSK, or (EC)DHE with the server
/// authenticated by certificate or raw public key.
#[derive(Clone, Debug)]
pub struct ClientConfig13 {
    /// Handshake choices.
    pub config: Config13,
    /// PSK identity and key; `None`: (EC)DHE with certificates.
    pub psk: Option<(Vec<u8>, Secret)>,
    /// How the server's certificate or raw public key is accepted
    /// (certificate mode).
    pub server_verifier: CertificateVerifier,
    /// Offered when the server sends a CertificateRequest (certificate
    /// mode); without one the client answers with an empty Certificate.
    pub certificate: Option<Credential13>,
    /// Take the server's session tickets (RFC 8446 §4.6.1): keep, for the
    /// session's life, the master secret and transcript a ticket's PSK is
    /// derived from. Off (the default): they go when the handshake ends,
    /// and a ticket is acknowledged and ignored, as §4.6.1 lets a client.
    pub accept_tickets: bool,
}

impl ClientConfig13 {
    /// A PSK client.
    pub fn psk(config: Config13, identity: &[u8], key: &[u8]) -> Self {
        ClientConfig13 {
            config,
            psk: Some((identity.to_vec(), Secret(key.to_vec()))),
            server_verifier: CertificateVerifier::AcceptAny,
            certificate: None,
            accept_tickets: false,
        }
    }

    /// An (EC)DHE client that authenticates the server this way.
    pub fn certificate(config: Config13, server_verifier: CertificateVerifier) -> Self {
        ClientConfig13 {
            config,
            psk: None,
            server_verifier,
            certificate: None,
            accept_tickets: false,
        }
    }
}

/// A DTLS 1.3 server with external PSKs.
#[derive(Clone)]
pub struct ServerConfig13 {
    /// Handshake choices.
    pub config: Config13,
    /// PSK lookup (`None`: no PSK handshake).
    pub psk_store: Option<Arc<dyn PskStore>>,
    /// Certificate or raw public key for (EC)DHE handshakes without a PSK
    /// (`None`: none accepted).
    pub certificate: Option<Credential13>,
    /// Ask the client for a certificate (CertificateRequest), accepted
    /// this way; a client that sends none is refused.
    pub client_verifier: Option<CertificateVerifier>,
    /// Answer a PSK identity the store does not know with an
    /// `unknown_psk_identity` alert. Off (the default), it is answered as a
    /// known identity with a wrong key is (the binder checked against a
    /// stand-in key, then `decrypt_error`), so a client cannot probe which
    /// identities exist, as the 1.2 server's
    /// `ServerConfig::reveal_unknown_psk_identity`.
    pub reveal_unknown_psk_identity: bool,
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
    /// established); what happens to a verified ClientHello beyond them is
    /// [`ServerConfig13::eviction`]'s to say. The session-table bounds
    /// below are 1.2's ([`crate::ServerConfig`]), with the same defaults,
    /// kept by the same [`session_table`].
    pub max_sessions: usize,
    /// Maximum concurrent half-open handshakes (cookie verified, not
    /// complete).
    pub max_half_open: usize,
    /// A half-open handshake older than this is dropped (default
    /// [`session_table::HALF_OPEN_TIMEOUT_US`]; `u64::MAX`: never).
    pub half_open_timeout_us: u64,
    /// An established session silent this long is dropped (`u64::MAX`:
    /// never).
    pub idle_timeout_us: u64,
    /// Maximum sessions from one IP address (any port).
    pub max_sessions_per_address: usize,
    /// What makes room for a new handshake when a limit is reached.
    pub eviction: Policy,
    /// An established session silent at least this long is evicted
    /// rather than a new handshake refused (`u64::MAX`: never; see
    /// [`session_table::Limits::idle_evictable_us`]).
    pub idle_evictable_us: u64,
    /// Protect handshakes whose client answered the server's first flight
    /// from eviction by newcomers, and evict from the host holding the most
    /// half-open handshakes ([`session_table::Limits::protect_progressed`]).
    pub protect_progressed: bool,
    /// A host starts at most one handshake per this many µs; a verified
    /// hello sooner is dropped unanswered (`u64::MAX`: no limit; see
    /// [`session_table::Limits::per_host_interval_us`]).
    pub per_host_interval_us: u64,
    /// Issue a session ticket after each handshake and resume the
    /// handshakes that offer one (`None`: no tickets; see
    /// [`crate::v13::ticket`]).
    pub tickets: Option<Arc<TicketStore13>>,
}

impl fmt::Debug for ServerConfig13 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig13")
            .field("config", &self.config)
            .field("certificate", &self.certificate)
            .field("client_verifier", &self.client_verifier)
            .field(
                "reveal_unknown_psk_identity",
                &self.reveal_unknown_psk_identity,
            )
            .field("require_cookie", &self.require_cookie)
            .field("cookie_mac_len", &self.cookie_mac_len)
            .field("cookie_rotation_us", &self.cookie_rotation_us)
            .field("max_sessions", &self.max_sessions)
            .field("max_half_open", &self.max_half_open)
            .field("half_open_timeout_us", &self.half_open_timeout_us)
            .field("idle_timeout_us", &self.idle_timeout_us)
            .field("max_sessions_per_address", &self.max_sessions_per_address)
            .field("eviction", &self.eviction)
            .field("idle_evictable_us", &self.idle_evictable_us)
            .field("protect_progressed", &self.protect_progressed)
            .field("per_host_interval_us", &self.per_host_interval_us)
            .field("tickets", &self.tickets)
            .finish_non_exhaustive()
    }
}

impl ServerConfig13 {
    /// A PSK server with one identity.
    pub fn psk(config: Config13, identity: &[u8], key: &[u8]) -> Self {
        ServerConfig13 {
            config,
            psk_store: Some(Arc::new(SinglePsk {
                identity: identity.to_vec(),
                key: Secret(key.to_vec()),
            })),
            certificate: None,
            client_verifier: None,
            reveal_unknown_psk_identity: false,
            require_cookie: true,
            cookie_mac_len: 16,
            cookie_rotation_us: 60_000_000,
            // the 1.2 server's defaults (`ServerConfig::psk`): a table of
            // 16 that refuses when full, handshakes half-open no longer
            // than a live peer needs; a server facing the open network
            // sets `Limits::guarded` (the UDP driver does)
            max_sessions: 16,
            max_half_open: 16,
            half_open_timeout_us: session_table::HALF_OPEN_TIMEOUT_US,
            idle_timeout_us: u64::MAX,
            max_sessions_per_address: usize::MAX,
            eviction: Policy::Refuse,
            idle_evictable_us: u64::MAX,
            protect_progressed: false,
            per_host_interval_us: u64::MAX,
            tickets: None,
        }
    }

    crate::config::session_limit_methods!();
}

impl ServerConfig13 {
    /// An (EC)DHE server authenticated by `certificate`, no PSK.
    pub fn certificate(config: Config13, certificate: Credential13) -> Self {
        ServerConfig13 {
            psk_store: None,
            certificate: Some(certificate),
            ..ServerConfig13::psk(config, b"", b"")
        }
    }
}
