//! Every knob of the stack, in one place.

use std::fmt;
use std::sync::Arc;

use zeroize::Zeroize;

use session_table::{Limits, Policy};

use crate::error::Error;
use crate::v13::certificate::{p256_point_of_spki, p256_spki, CertificateType};

/// Cipher suites this stack implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CipherSuite {
    /// TLS_PSK_WITH_AES_128_CCM_8 (0xC0A8, RFC 6655).
    PskAes128Ccm8,
    /// TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8 (0xC0AE, RFC 7251).
    EcdheEcdsaAes128Ccm8,
    /// TLS_PSK_WITH_AES_128_GCM_SHA256 (0x00A8, RFC 5487).
    PskAes128GcmSha256,
    /// TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 (0xC02B, RFC 5289).
    EcdheEcdsaAes128GcmSha256,
    /// TLS_PSK_WITH_AES_128_CBC_SHA (0x008C, RFC 4279): AES-128-CBC with
    /// HMAC-SHA1, MAC-then-encrypt (the PRF is still P_SHA256 in TLS 1.2).
    PskAes128CbcSha,
    /// TLS_PSK_WITH_AES_128_CBC_SHA256 (0x00AE, RFC 5487): AES-128-CBC with
    /// HMAC-SHA256, MAC-then-encrypt.
    PskAes128CbcSha256,
}

/// AEAD used by a suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AeadKind {
    /// AES-128-CCM with an 8-byte tag.
    Ccm8,
    /// AES-128-GCM (16-byte tag).
    Gcm,
}

/// MAC of a CBC suite (HMAC, RFC 2104).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacAlgorithm {
    /// HMAC-SHA1 (20-byte key and MAC).
    HmacSha1,
    /// HMAC-SHA256 (32-byte key and MAC).
    HmacSha256,
}

impl MacAlgorithm {
    /// MAC length (= MAC key length) in bytes.
    pub fn mac_len(self) -> usize {
        match self {
            MacAlgorithm::HmacSha1 => 20,
            MacAlgorithm::HmacSha256 => 32,
        }
    }
}

/// How a suite protects records (RFC 5246 §6.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordProtection {
    /// AEAD with an 8-byte explicit nonce (RFC 5246 §6.2.3.3).
    Aead(AeadKind),
    /// AES-128-CBC with a 16-byte explicit IV, MAC-then-encrypt
    /// (RFC 5246 §6.2.3.2).
    Cbc(MacAlgorithm),
}

/// AES block size (the CBC IV and padding unit).
const BLOCK: usize = 16;

impl RecordProtection {
    /// Bytes a protected record adds to `plain` bytes of plaintext (the
    /// 13-byte header comes on top). AEAD: explicit nonce + tag. CBC: IV +
    /// MAC + minimal padding (1..=16 bytes, the length byte included).
    pub fn overhead(self, plain: usize) -> usize {
        match self {
            RecordProtection::Aead(k) => k.overhead(),
            RecordProtection::Cbc(mac) => {
                let unpadded = plain + mac.mac_len();
                BLOCK + mac.mac_len() + (BLOCK - unpadded % BLOCK)
            }
        }
    }
    /// Largest overhead over all plaintext lengths.
    pub fn max_overhead(self) -> usize {
        match self {
            RecordProtection::Aead(k) => k.overhead(),
            RecordProtection::Cbc(mac) => BLOCK + mac.mac_len() + BLOCK,
        }
    }
    /// Largest plaintext whose protected fragment (what follows the record
    /// header) fits `fragment_budget` bytes.
    pub fn max_plaintext(self, fragment_budget: usize) -> usize {
        match self {
            RecordProtection::Aead(k) => fragment_budget.saturating_sub(k.overhead()),
            RecordProtection::Cbc(mac) => {
                let blocks = fragment_budget.saturating_sub(BLOCK) / BLOCK;
                (blocks * BLOCK).saturating_sub(mac.mac_len() + 1)
            }
        }
    }
    /// The AEAD, if this is one.
    pub fn aead(self) -> Option<AeadKind> {
        match self {
            RecordProtection::Aead(k) => Some(k),
            RecordProtection::Cbc(_) => None,
        }
    }
    /// Bytes of the key block one direction uses: (MAC key, encryption key,
    /// fixed IV). RFC 5246 §6.3.
    pub fn key_material(self) -> (usize, usize, usize) {
        match self {
            RecordProtection::Aead(_) => (0, 16, 4),
            RecordProtection::Cbc(mac) => (mac.mac_len(), 16, 0),
        }
    }
}

impl CipherSuite {
    /// All suites, in our default preference order (CCM-8 first, the CBC
    /// suites last).
    pub const ALL: [CipherSuite; 6] = [
        CipherSuite::PskAes128Ccm8,
        CipherSuite::EcdheEcdsaAes128Ccm8,
        CipherSuite::PskAes128GcmSha256,
        CipherSuite::EcdheEcdsaAes128GcmSha256,
        CipherSuite::PskAes128CbcSha256,
        CipherSuite::PskAes128CbcSha,
    ];
    /// IANA value.
    pub fn id(self) -> u16 {
        match self {
            CipherSuite::PskAes128Ccm8 => 0xC0A8,
            CipherSuite::EcdheEcdsaAes128Ccm8 => 0xC0AE,
            CipherSuite::PskAes128GcmSha256 => 0x00A8,
            CipherSuite::EcdheEcdsaAes128GcmSha256 => 0xC02B,
            CipherSuite::PskAes128CbcSha => 0x008C,
            CipherSuite::PskAes128CbcSha256 => 0x00AE,
        }
    }
    /// From the IANA value.
    pub fn from_id(id: u16) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.id() == id)
    }
    /// dtlsim's name of the suite (what scenario files and the CLI use).
    pub fn name(self) -> &'static str {
        match self {
            CipherSuite::PskAes128Ccm8 => "psk-aes128-ccm8",
            CipherSuite::EcdheEcdsaAes128Ccm8 => "ecdhe-ecdsa-aes128-ccm8",
            CipherSuite::PskAes128GcmSha256 => "psk-aes128-gcm-sha256",
            CipherSuite::EcdheEcdsaAes128GcmSha256 => "ecdhe-ecdsa-aes128-gcm-sha256",
            CipherSuite::PskAes128CbcSha => "psk-aes128-cbc-sha",
            CipherSuite::PskAes128CbcSha256 => "psk-aes128-cbc-sha256",
        }
    }
    /// From dtlsim's name or OpenSSL's (`PSK-AES128-CCM8`,
    /// `PSK-AES128-CBC-SHA`), in any case.
    pub fn from_name(name: &str) -> Option<Self> {
        let wanted = name.to_ascii_lowercase();
        Self::ALL.into_iter().find(|s| s.name() == wanted)
    }
    /// Pre-shared key suite?
    pub fn is_psk(self) -> bool {
        matches!(
            self,
            CipherSuite::PskAes128Ccm8
                | CipherSuite::PskAes128GcmSha256
                | CipherSuite::PskAes128CbcSha
                | CipherSuite::PskAes128CbcSha256
        )
    }
    /// Record protection.
    pub fn protection(self) -> RecordProtection {
        match self {
            CipherSuite::PskAes128Ccm8 | CipherSuite::EcdheEcdsaAes128Ccm8 => {
                RecordProtection::Aead(AeadKind::Ccm8)
            }
            CipherSuite::PskAes128GcmSha256 | CipherSuite::EcdheEcdsaAes128GcmSha256 => {
                RecordProtection::Aead(AeadKind::Gcm)
            }
            CipherSuite::PskAes128CbcSha => RecordProtection::Cbc(MacAlgorithm::HmacSha1),
            CipherSuite::PskAes128CbcSha256 => RecordProtection::Cbc(MacAlgorithm::HmacSha256),
        }
    }
}

impl AeadKind {
    /// Authentication tag length.
    pub fn tag_len(self) -> usize {
        match self {
            AeadKind::Ccm8 => 8,
            AeadKind::Gcm => 16,
        }
    }
    /// Bytes a protected DTLS 1.2 record adds to its plaintext (8-byte
    /// explicit nonce + tag; the 13-byte header comes on top).
    pub fn overhead(self) -> usize {
        8 + self.tag_len()
    }
}

/// How records are put into datagrams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordPacking {
    /// Every record in its own datagram (what tinyDTLS does).
    OneRecordPerDatagram,
    /// As many records of a flight as fit the MTU in one datagram.
    PackFlight,
}

/// Retransmission policy (all times in microseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetransmitPolicy {
    /// Same interval every time.
    Fixed {
        /// Interval.
        interval_us: u64,
        /// Retransmissions before the handshake fails.
        max_retransmissions: u32,
    },
    /// RFC 6347: start at `initial_us`, double on every expiry up to `max_us`.
    Doubling {
        /// First interval (RFC 6347: 1 s).
        initial_us: u64,
        /// Ceiling (RFC 6347: 60 s).
        max_us: u64,
        /// Retransmissions before the handshake fails.
        max_retransmissions: u32,
    },
    /// tinyDTLS (dtls.c `dtls_send_multi`, `dtls_retransmit`): every queued
    /// handshake record waits `initial_us` (2 · CLOCK_SECOND) before its
    /// first retransmission and `initial_us << n` after its n-th, with no
    /// ceiling; after `max_retransmissions` (global.h
    /// `DTLS_DEFAULT_MAX_RETRANSMIT` = 7) the next expiry drops it. tinyDTLS
    /// keeps one timer per record, but all records of a flight are queued
    /// at one instant and every expected message of the peer's next flight
    /// clears the whole queue (`dtls_stop_retransmission` in
    /// `handle_handshake_msg`), so they expire together: one timer per
    /// flight with this schedule is the same thing.
    ///
    /// It answers nothing to a repeat of the peer's previous flight:
    /// `handle_handshake` drops a message whose message_seq is below the
    /// one it expects, a repeated ClientHello included while the handshake
    /// is under way (only a connected peer's epoch-0 ClientHello starts a
    /// new one, `hs_attempt_with_existing_peer`). This is the tinyDTLS of
    /// the reference measurements (2015; the code as first imported into
    /// eclipse/tinydtls, commit e1388b3 of 2016-02). Since 2022 tinyDTLS
    /// handles every epoch-0 ClientHello statelessly
    /// (`handle_0_client_hello`), so a repeated one restarts the
    /// handshake; not modelled. A lost flight is recovered by its own
    /// timer only. A server never resends its last flight
    /// (ChangeCipherSpec, Finished): it clears its queue on completing.
    Tinydtls {
        /// Wait before the first retransmission (tinyDTLS: 2 s).
        initial_us: u64,
        /// Retransmissions before the handshake fails (tinyDTLS: 7).
        max_retransmissions: u32,
    },
}

impl RetransmitPolicy {
    /// RFC 6347 defaults: 1 s doubling to 60 s, 6 retransmissions.
    pub const RFC6347: RetransmitPolicy = RetransmitPolicy::Doubling {
        initial_us: 1_000_000,
        max_us: 60_000_000,
        max_retransmissions: 6,
    };
    /// tinyDTLS: 2 s, then 4, 8, 16 … s, 7 retransmissions (dtls.c
    /// `dtls_send_multi` sets `timeout = 2 * CLOCK_SECOND`; global.h
    /// `DTLS_DEFAULT_MAX_RETRANSMIT` = 7).
    pub const TINYDTLS: RetransmitPolicy = RetransmitPolicy::Tinydtls {
        initial_us: 2_000_000,
        max_retransmissions: 7,
    };
    /// Wait after the `made`-th retransmission (0: after the first
    /// transmission) before the next.
    pub fn interval_us(&self, made: u32) -> u64 {
        let doubled = |initial: u64| initial.checked_shl(made).filter(|v| v >> made == initial);
        match *self {
            RetransmitPolicy::Fixed { interval_us, .. } => interval_us,
            RetransmitPolicy::Doubling {
                initial_us, max_us, ..
            } => doubled(initial_us).map_or(max_us, |v| v.min(max_us)),
            // dtls_retransmit: node->t = now + (node->timeout << node->retransmit_cnt)
            RetransmitPolicy::Tinydtls { initial_us, .. } => {
                doubled(initial_us).unwrap_or(u64::MAX)
            }
        }
    }
    /// Retransmission limit.
    pub fn max_retransmissions(&self) -> u32 {
        match *self {
            RetransmitPolicy::Fixed {
                max_retransmissions,
                ..
            }
            | RetransmitPolicy::Doubling {
                max_retransmissions,
                ..
            }
            | RetransmitPolicy::Tinydtls {
                max_retransmissions,
                ..
            } => max_retransmissions,
        }
    }
    /// Does a repeat of the peer's previous flight (a sign that ours was
    /// lost) make this side resend its current flight at once? RFC 6347
    /// §4.2.4 says yes; tinyDTLS never does (see [`RetransmitPolicy::Tinydtls`]).
    pub fn resends_on_repeat(&self) -> bool {
        !matches!(self, RetransmitPolicy::Tinydtls { .. })
    }
}

/// Which hello extensions are sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extensions {
    /// extended_master_secret (RFC 7627). The server answers it when offered.
    pub extended_master_secret: bool,
    /// Refuse peers that do not negotiate the extended master secret.
    pub require_extended_master_secret: bool,
    /// Client: send an empty renegotiation_info (RFC 5746). The server always
    /// answers it (or the SCSV) when offered: OpenSSL 3.0 clients refuse
    /// servers that do not.
    pub renegotiation_info: bool,
    /// Client, ECDHE suites: send supported_groups, ec_point_formats and
    /// signature_algorithms (OpenSSL needs them).
    pub ecc_extensions: bool,
}

impl Default for Extensions {
    fn default() -> Self {
        Extensions {
            extended_master_secret: true,
            require_extended_master_secret: false,
            renegotiation_info: true,
            ecc_extensions: true,
        }
    }
}

/// Knobs common to client and server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Largest datagram (UDP payload) this side sends. Handshake messages
    /// are fragmented to fit; the one floor is the first fragment of a
    /// ClientHello, which holds everything up to the cookie (61 B + the
    /// server's cookie length) because a stateless server needs it whole.
    /// Application data records are not fragmented (an application record
    /// larger than the MTU makes a larger datagram).
    pub mtu: usize,
    /// Largest handshake fragment body (bytes after the 12-byte handshake
    /// header) put in one record.
    pub max_fragment_len: usize,
    /// One record per datagram, or a packed flight.
    pub packing: RecordPacking,
    /// Retransmission timer.
    pub retransmit: RetransmitPolicy,
    /// Suites offered (client) or accepted (server), in preference order.
    pub cipher_suites: Vec<CipherSuite>,
    /// Hello extensions.
    pub extensions: Extensions,
    /// How many records of the peer's new epoch may fail authentication
    /// during the handshake before the handshake is aborted with a
    /// bad_record_mac alert (a wrong PSK shows up this way). The default, 1,
    /// alerts at the first failed Finished, so a peer that never resends
    /// (tinyDTLS) still learns why. Records failing authentication after
    /// the handshake are always dropped silently.
    pub handshake_auth_failures_before_alert: u32,
    /// Largest handshake message accepted (reassembly buffer bound).
    pub max_handshake_message_len: usize,
    /// Connection ID for DTLS 1.2 (RFC 9146): `None` does not offer or
    /// answer the connection_id extension; `Some(n)` negotiates it, asking
    /// the peer to put a random n-byte CID of this side in every protected
    /// record to it (0: this side sends CIDs but wants none). DTLS 1.3
    /// has its own knob, `Config13::cid_len`.
    pub cid_len: Option<usize>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            mtu: 1400,
            max_fragment_len: 1400,
            packing: RecordPacking::PackFlight,
            retransmit: RetransmitPolicy::RFC6347,
            cipher_suites: CipherSuite::ALL.to_vec(),
            extensions: Extensions::default(),
            handshake_auth_failures_before_alert: 1,
            max_handshake_message_len: 8192,
            cid_len: None,
        }
    }
}

impl Config {
    /// Tightest settings for a PSK-CCM8 handshake: one suite, no optional
    /// extension, packed flights.
    pub fn tightest_psk_ccm8() -> Self {
        Config {
            cipher_suites: vec![CipherSuite::PskAes128Ccm8],
            extensions: Extensions {
                extended_master_secret: false,
                require_extended_master_secret: false,
                renegotiation_info: false,
                ecc_extensions: false,
            },
            ..Config::default()
        }
    }
    /// tinyDTLS-like settings: one record per datagram, tinyDTLS's
    /// retransmission timer, PSK-CCM8 with the extended master secret.
    pub fn tinydtls_like() -> Self {
        Config {
            packing: RecordPacking::OneRecordPerDatagram,
            retransmit: RetransmitPolicy::TINYDTLS,
            cipher_suites: vec![CipherSuite::PskAes128Ccm8],
            extensions: Extensions {
                extended_master_secret: true,
                require_extended_master_secret: false,
                renegotiation_info: false,
                ecc_extensions: false,
            },
            ..Config::default()
        }
    }
    pub(crate) fn validate(&self) -> Result<(), crate::Error> {
        if !(64..=65507).contains(&self.mtu) {
            return Err(crate::Error::Config("mtu must be 64..=65507"));
        }
        if self.max_handshake_message_len > 0xff_ffff {
            return Err(crate::Error::Config(
                "max_handshake_message_len above 2^24 - 1",
            ));
        }
        if self.max_fragment_len == 0 {
            return Err(crate::Error::Config("max_fragment_len must be positive"));
        }
        if self.cipher_suites.is_empty() {
            return Err(crate::Error::Config("no cipher suite"));
        }
        // RFC 9146 §3: opaque cid<0..2^8-1>
        if self.cid_len.is_some_and(|n| n > 255) {
            return Err(crate::Error::Config("cid_len must be 0..=255"));
        }
        Ok(())
    }
}

/// A byte string that never appears in `Debug` output and is wiped when
/// dropped.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(pub Vec<u8>);

impl Drop for Secret {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for Secret {}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret([{} bytes redacted])", self.0.len())
    }
}

/// Server-side PSK lookup.
pub trait PskStore: Send + Sync {
    /// The key for `identity`, or None if unknown.
    fn lookup(&self, identity: &[u8]) -> Option<Secret>;
}

/// A store with one identity.
#[derive(Clone, Debug)]
pub struct SinglePsk {
    /// Identity.
    pub identity: Vec<u8>,
    /// Key.
    pub key: Secret,
}

impl PskStore for SinglePsk {
    fn lookup(&self, identity: &[u8]) -> Option<Secret> {
        (identity == self.identity.as_slice()).then(|| self.key.clone())
    }
}

impl PskStore for std::collections::HashMap<Vec<u8>, Secret> {
    fn lookup(&self, identity: &[u8]) -> Option<Secret> {
        self.get(identity).cloned()
    }
}

/// A certificate chain (DER, leaf first) and the P-256 private key of the
/// leaf.
#[derive(Clone)]
pub struct CertifiedKey {
    /// DER certificates, leaf first.
    pub chain: Vec<Vec<u8>>,
    /// The leaf's private key (32-byte P-256 scalar).
    pub private_key: Secret,
}

impl fmt::Debug for CertifiedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CertifiedKey")
            .field("chain_len", &self.chain.len())
            .field("private_key", &self.private_key)
            .finish()
    }
}

/// How a peer's certificate is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CertificateVerifier {
    /// Accept exactly this certificate (DER) as the peer's leaf (pinning; the
    /// right model for a self-signed device certificate).
    Pinned(Vec<u8>),
    /// Accept any certificate (tests and measurements only).
    AcceptAny,
}

impl CertificateVerifier {
    /// The pinning rule, for DTLS 1.2 and 1.3 alike: the peer's leaf (X.509
    /// DER, or a raw public key's SubjectPublicKeyInfo) must be the pinned
    /// bytes.
    pub(crate) fn accept(&self, leaf: &[u8]) -> Result<(), Error> {
        match self {
            CertificateVerifier::Pinned(pinned) if !crate::crypto::cookie::ct_eq(pinned, leaf) => {
                Err(Error::BadCertificate("not the pinned certificate"))
            }
            _ => Ok(()),
        }
    }

    /// The certificate type this verifier takes (RFC 7250): a pinned
    /// SubjectPublicKeyInfo is a raw public key, anything else X.509.
    pub fn certificate_type(&self) -> CertificateType {
        match self {
            CertificateVerifier::Pinned(p) if p256_point_of_spki(p).is_some() => {
                CertificateType::RawPublicKey
            }
            _ => CertificateType::X509,
        }
    }
}

impl CertifiedKey {
    /// A raw public key (RFC 7250) for DTLS 1.2: the "chain" is the one
    /// SubjectPublicKeyInfo of the private key's public point.
    pub fn raw_public_key(private_key: Secret) -> Result<Self, Error> {
        let point = crate::crypto::ecc::public_of(&private_key)?;
        Ok(CertifiedKey {
            chain: vec![p256_spki(&point)],
            private_key,
        })
    }

    /// What `chain` holds. A P-256 SubjectPublicKeyInfo alone is a raw
    /// public key: it is 91 bytes, and no X.509 certificate is that short
    /// (its tbsCertificate carries a SubjectPublicKeyInfo besides issuer,
    /// validity and subject).
    pub fn certificate_type(&self) -> CertificateType {
        match self.chain.as_slice() {
            [one] if p256_point_of_spki(one).is_some() => CertificateType::RawPublicKey,
            _ => CertificateType::X509,
        }
    }
}

/// Client configuration.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// Common knobs.
    pub config: Config,
    /// PSK identity and key (for the PSK suites).
    pub psk: Option<(Vec<u8>, Secret)>,
    /// How the server certificate is accepted (ECDHE suites).
    pub server_verifier: CertificateVerifier,
    /// Client certificate offered if the server asks for one.
    pub client_certificate: Option<CertifiedKey>,
}

impl ClientConfig {
    /// A PSK client.
    pub fn psk(config: Config, identity: &[u8], key: &[u8]) -> Self {
        ClientConfig {
            config,
            psk: Some((identity.to_vec(), Secret(key.to_vec()))),
            server_verifier: CertificateVerifier::AcceptAny,
            client_certificate: None,
        }
    }
}

/// Server configuration.
#[derive(Clone)]
pub struct ServerConfig {
    /// Common knobs.
    pub config: Config,
    /// PSK lookup (None: no PSK suite is accepted).
    pub psk_store: Option<Arc<dyn PskStore>>,
    /// identity hint sent in a ServerKeyExchange (None: no ServerKeyExchange
    /// for PSK suites).
    pub psk_identity_hint: Option<Vec<u8>>,
    /// Certificate and key (None: no ECDHE-ECDSA suite is accepted).
    pub certificate: Option<CertifiedKey>,
    /// Ask the client for a certificate (ECDHE suites), verified this way.
    pub client_verifier: Option<CertificateVerifier>,
    /// Maximum concurrent sessions (handshaking or established).
    pub max_sessions: usize,
    /// Maximum concurrent half-open handshakes (cookie verified, not
    /// complete); see [`session_table`].
    pub max_half_open: usize,
    /// A half-open handshake older than this is dropped (default
    /// [`session_table::HALF_OPEN_TIMEOUT_US`], so a client silent after the
    /// cookie exchange cannot hold a slot forever; `u64::MAX`: never).
    pub half_open_timeout_us: u64,
    /// An established session silent this long is dropped (u64::MAX:
    /// never, as in tinyDTLS, which keeps no idle timer).
    pub idle_timeout_us: u64,
    /// Sessions kept for resumption by session ID (RFC 5246 §7.3), the
    /// oldest dropped first; 0: none, and no session ID is given (tinyDTLS
    /// has no resumption).
    pub session_cache: usize,
    /// Maximum sessions from one IP address (any port).
    pub max_sessions_per_address: usize,
    /// What makes room for a new handshake when a limit is reached.
    pub eviction: Policy,
    /// Answer a PSK identity the store does not know with an
    /// `unknown_psk_identity` alert. Off (the default), the handshake goes
    /// on with a random stand-in key and fails at the client's Finished with
    /// `bad_record_mac`, exactly as a known identity with a wrong key does,
    /// so a client cannot probe which identities exist (RFC 4279 §2 allows
    /// both answers).
    pub reveal_unknown_psk_identity: bool,
    /// Cookie length in bytes (1..=32).
    pub cookie_len: usize,
    /// Cookie secret rotation period; cookies made with the previous secret
    /// stay valid for one more period.
    pub cookie_rotation_us: u64,
    /// Send a HelloVerifyRequest (stateless cookie exchange). Turning it off
    /// is a measurement knob only: the server then creates state on the
    /// first ClientHello.
    pub require_cookie: bool,
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("config", &self.config)
            .field("psk_store", &self.psk_store.as_ref().map(|_| "…"))
            .field("psk_identity_hint", &self.psk_identity_hint)
            .field("certificate", &self.certificate)
            .field("client_verifier", &self.client_verifier)
            .field("max_sessions", &self.max_sessions)
            .field("max_half_open", &self.max_half_open)
            .field("half_open_timeout_us", &self.half_open_timeout_us)
            .field("idle_timeout_us", &self.idle_timeout_us)
            .field("session_cache", &self.session_cache)
            .field("max_sessions_per_address", &self.max_sessions_per_address)
            .field("eviction", &self.eviction)
            .field(
                "reveal_unknown_psk_identity",
                &self.reveal_unknown_psk_identity,
            )
            .field("cookie_len", &self.cookie_len)
            .field("cookie_rotation_us", &self.cookie_rotation_us)
            .field("require_cookie", &self.require_cookie)
            .finish()
    }
}

impl ServerConfig {
    /// The session-table bounds these settings give.
    pub fn session_limits(&self) -> Limits {
        Limits {
            slots: self.max_sessions,
            half_open_max: Some(self.max_half_open),
            // u64::MAX is "none": no expiry (a deadline at the end of time
            // would be reported by poll_timeout as a timer to run)
            half_open_timeout_us: (self.half_open_timeout_us != u64::MAX)
                .then_some(self.half_open_timeout_us),
            idle_timeout_us: (self.idle_timeout_us != u64::MAX).then_some(self.idle_timeout_us),
            per_host_max: Some(self.max_sessions_per_address),
        }
    }

    /// Set every session-table bound and the eviction policy at once.
    pub fn set_session_limits(&mut self, limits: Limits, eviction: Policy) {
        self.max_sessions = limits.slots;
        self.max_half_open = limits.half_open_max.unwrap_or(limits.slots);
        self.half_open_timeout_us = limits.half_open_timeout_us.unwrap_or(u64::MAX);
        self.idle_timeout_us = limits.idle_timeout_us.unwrap_or(u64::MAX);
        self.max_sessions_per_address = limits.per_host_max.unwrap_or(usize::MAX);
        self.eviction = eviction;
    }

    /// A PSK server with one identity.
    pub fn psk(config: Config, identity: &[u8], key: &[u8]) -> Self {
        ServerConfig {
            config,
            psk_store: Some(Arc::new(SinglePsk {
                identity: identity.to_vec(),
                key: Secret(key.to_vec()),
            })),
            psk_identity_hint: None,
            certificate: None,
            client_verifier: None,
            // A table of 16 that refuses when full, as the constrained
            // servers the simulator models do; a server facing the open
            // network sets session_table::Limits::guarded (the UDP driver does).
            max_sessions: 16,
            max_half_open: 16,
            half_open_timeout_us: session_table::HALF_OPEN_TIMEOUT_US,
            idle_timeout_us: u64::MAX,
            session_cache: 0,
            max_sessions_per_address: usize::MAX,
            eviction: Policy::Refuse,
            reveal_unknown_psk_identity: false,
            cookie_len: 16,
            cookie_rotation_us: 60_000_000,
            require_cookie: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_stay_out_of_debug_output() {
        let key = [0xA5u8; 16];
        let c = ClientConfig::psk(Config::default(), b"me", &key);
        let s = ServerConfig::psk(Config::default(), b"me", &key);
        let ck = CertifiedKey {
            chain: vec![vec![1, 2, 3]],
            private_key: Secret(vec![0xA5; 32]),
        };
        for text in [format!("{c:?}"), format!("{s:?}"), format!("{ck:?}")] {
            assert!(!text.contains("165"), "{text}");
            assert!(!text.to_lowercase().contains("a5"), "{text}");
        }
        assert!(format!("{c:?}").contains("redacted"));
    }

    #[test]
    fn the_half_open_timeout_outlasts_two_flights_of_a_live_rfc6347_peer() {
        let p = RetransmitPolicy::RFC6347;
        let one_flight: u64 = (0..=p.max_retransmissions())
            .map(|k| p.interval_us(k))
            .sum();
        assert_eq!(session_table::HALF_OPEN_TIMEOUT_US, 2 * one_flight);
        let s = ServerConfig::psk(Config::default(), b"me", &[1; 16]);
        assert_eq!(s.half_open_timeout_us, session_table::HALF_OPEN_TIMEOUT_US);
    }
}
