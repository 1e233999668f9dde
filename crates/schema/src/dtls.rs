//! `[dtls]`: the DTLS version, suite, record packing, fragment and MTU
//! limits, the pre-shared key and the retransmission timer, and their
//! conversion into `dtls::Config`.

use dtls::cert::CertificateType;
use dtls::v13::config::Credential13;
use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::v13::key_exchange::NamedGroup;
use dtls::v13::messages::PskMode as PskMode13;
use dtls::v13::suite::CipherSuite13;
use dtls::{
    CertificateVerifier, CertifiedKey, CipherSuite, ClientConfig, Config, Extensions,
    RecordPacking, RetransmitPolicy, Secret, ServerConfig,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::link_security::Strategy;
use crate::param::params;
use crate::problem::Low::{Above, AtLeast};
use crate::problem::Problems;
use crate::units::{ms_from_us as ms, us_from_ms};

crate::names::named!(
    /// A cipher suite by the name users type (`crates/models`' list, DTLS
    /// 1.2 and 1.3).
    Suite,
    || models::overhead::SUITES.iter().map(|s| s.name).collect()
);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
pub enum Version {
    #[default]
    #[serde(rename = "1.2")]
    V1_2,
    #[serde(rename = "1.3")]
    V1_3,
}

/// The group of a DTLS 1.3 (EC)DHE key exchange (RFC 8446 section 4.2.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Group {
    /// secp256r1 (NIST P-256): charged at the platform's P-256 ECDH cost.
    #[default]
    Secp256r1,
    /// x25519 (RFC 7748): charged at the platform's X25519 cost.
    X25519,
}

impl Group {
    fn named(self) -> NamedGroup {
        match self {
            Group::Secp256r1 => NamedGroup::Secp256r1,
            Group::X25519 => NamedGroup::X25519,
        }
    }
}

/// How a DTLS 1.3 PSK handshake makes its keys (RFC 8446 section 4.2.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PskMode {
    /// The PSK alone: no public-key operation.
    #[default]
    PskKe,
    /// The PSK with an ephemeral (EC)DH on `dtls.group` (forward secrecy):
    /// one key generation and one shared secret each side, charged at the
    /// platform's cost for that group.
    PskDheKe,
}

/// How a DTLS 1.3 handshake authenticates (RFC 8446 section 4.4.2, RFC
/// 7250); in DTLS 1.2 the suite says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Authentication {
    /// The pre-shared key (`dtls.psk_hex`, with `dtls.psk_mode`).
    #[default]
    Psk,
    /// ECDHE on secp256r1 and the server's raw public key (RFC 7250), its
    /// CertificateVerify an ECDSA P-256 signature; the client pins the key.
    RawPublicKey,
    /// ECDHE on secp256r1 and the server's self-signed X.509 certificate,
    /// pinned by the client.
    Certificate,
}

/// The server's P-256 private key in the certificate and raw-public-key
/// handshakes: RFC 6979 appendix A.2.5's test key. Any valid key costs the
/// same operations and sends the same number of bytes.
const SERVER_KEY: [u8; 32] = [
    0xc9, 0xaf, 0xa9, 0xd8, 0x45, 0xba, 0x75, 0x16, 0x6b, 0x5c, 0x21, 0x57, 0x67, 0xb1, 0xd6, 0x93,
    0x4e, 0x50, 0xc3, 0xdb, 0x36, 0xe8, 0x9b, 0x12, 0x7b, 0x8a, 0x62, 0x2b, 0x12, 0x0f, 0x67, 0x21,
];

/// The server's key and its self-signed certificate (DER), which the client pins.
fn server_certificate() -> CertifiedKey {
    let private_key = Secret(SERVER_KEY.to_vec());
    let cert = dtls::crypto::ecc::self_signed_certificate(&private_key, "dtlsim server")
        .expect("RFC 6979's test key is a valid P-256 scalar");
    CertifiedKey {
        chain: vec![cert],
        private_key,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Eviction {
    /// Refuse the newcomer.
    #[default]
    Refuse,
    /// Evict the session with the oldest traffic.
    EvictLru,
    /// Evict the session that took its slot first.
    EvictOldest,
    /// Evict the oldest half-open handshake; refuse if there is none.
    EvictHalfOpen,
}

impl Eviction {
    /// The session table's policy of the same name.
    pub fn policy(self) -> dtls::session_table::Policy {
        use dtls::session_table::Policy;
        match self {
            Eviction::Refuse => Policy::Refuse,
            Eviction::EvictLru => Policy::EvictLeastRecentlyUsed,
            Eviction::EvictOldest => Policy::EvictOldest,
            Eviction::EvictHalfOpen => Policy::EvictHalfOpen,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Records {
    /// One record per datagram.
    #[default]
    One,
    /// A flight's records packed into datagrams up to the MTU.
    Flight,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// `initial_ms` every time.
    Fixed,
    /// RFC 6347 section 4.2.4: `initial_ms`, doubling up to `max_ms`.
    #[default]
    Doubling,
    /// tinyDTLS's per-record timer: `initial_ms` then `initial_ms << n`
    /// after the n-th retransmission, with no ceiling (no `max_ms`).
    Tinydtls,
}

/// RFC 6347 section 4.2.4's timer as the dtls crate names it (initial,
/// ceiling, count): the declared defaults of `fixed` and `doubling`
/// (`tinydtls` has its own, filled in when it settles).
fn rfc6347() -> (f64, f64, u32) {
    let p = RetransmitPolicy::RFC6347;
    let max_us = match p {
        RetransmitPolicy::Doubling { max_us, .. } => max_us,
        _ => 0,
    };
    (ms(p.interval_us(0)), ms(max_us), p.max_retransmissions())
}

params! {
    /// The DTLS retransmission timer. Defaults depend on the policy: RFC 6347
    /// section 4.2.4 (1 s, at most 60 s; the RFC sets no count, dtlsim gives up
    /// after 6 retransmissions) for `fixed` and `doubling`; tinyDTLS's
    /// for `tinydtls`: 2 s before the first retransmission (dtls.c
    /// `dtls_send_multi`: timeout = 2 * CLOCK_SECOND), 7 retransmissions
    /// (global.h DTLS_DEFAULT_MAX_RETRANSMIT).
    #[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Retransmission at "dtls.retransmission" {
        /// fixed, doubling (RFC 6347) or tinydtls.
        policy: Policy [serde(default), schemars(extend("x-sweep" = false))] = Policy::Doubling,
        /// The first timeout (tinydtls: 2000 ms).
        initial_ms: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")] = Some(rfc6347().0); range (Above(0.0), 600_000.0),
        /// doubling: the ceiling.
        max_ms: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")] = Some(rfc6347().1); range (Above(0.0), 600_000.0),
        /// Retransmissions before giving up (tinydtls: 7).
        max_retransmissions: Option<u32> [serde(default, skip_serializing_if = "Option::is_none")] = Some(rfc6347().2); range (AtLeast(0.0), 100.0),
    }
}

impl Retransmission {
    fn settle(&mut self, p: &mut Problems) {
        // The defaults are the dtls crate's named policies, not a copy.
        let default = match self.policy {
            Policy::Tinydtls => RetransmitPolicy::TINYDTLS,
            Policy::Fixed | Policy::Doubling => RetransmitPolicy::RFC6347,
        };
        let max = match (self.policy, default) {
            (Policy::Doubling, RetransmitPolicy::Doubling { max_us, .. }) => {
                Some(max_us as f64 / 1000.0)
            }
            _ => None,
        };
        if let (Some(v), None) = (self.max_ms, max) {
            p.unused("dtls.retransmission.max_ms", v, "policy = 'doubling'");
        }
        self.initial_ms
            .get_or_insert(default.interval_us(0) as f64 / 1000.0);
        self.max_ms = max.map(|m| self.max_ms.unwrap_or(m));
        self.max_retransmissions
            .get_or_insert(default.max_retransmissions());
    }

    fn validate(&self, p: &mut Problems) {
        let at = |k: &str| format!("dtls.retransmission.{k}");
        self.check_ranges(p);
        if let (Some(initial), Some(max)) = (self.initial_ms, self.max_ms) {
            p.at_most(&at("initial_ms"), initial, &at("max_ms"), max);
        }
    }

    pub fn policy(&self) -> RetransmitPolicy {
        let initial_us = us_from_ms(self.initial_ms.unwrap_or_default());
        let max_retransmissions = self.max_retransmissions.unwrap_or_default();
        match self.policy {
            Policy::Fixed => RetransmitPolicy::Fixed {
                interval_us: initial_us,
                max_retransmissions,
            },
            Policy::Doubling => RetransmitPolicy::Doubling {
                initial_us,
                max_us: us_from_ms(self.max_ms.unwrap_or_default()),
                max_retransmissions,
            },
            Policy::Tinydtls => RetransmitPolicy::Tinydtls {
                initial_us,
                max_retransmissions,
            },
        }
    }
}

params! {
    // Debug by hand: the key is never printed (a panic or a log shows the rest)
    #[derive(Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Dtls at "dtls": Default {
        /// 1.2 or 1.3.
        version: Version = Version::V1_2,
        /// The cipher suite.
        suite: Suite = Suite("psk-aes128-ccm8"),
        /// One record per datagram, or a flight's records packed up to the MTU.
        records_per_datagram: Records = Records::One,
        /// The largest handshake fragment (a fragment carries RFC 6347
        /// 4.2.2's 12-byte header: below 16 bytes it would carry at most 3
        /// bytes of the message).
        max_fragment_bytes: u32 = 16_384; range (AtLeast(16.0), 16_384.0),
        /// The largest datagram (65 507: the largest UDP payload over IPv4).
        mtu_bytes: u32 = 1280; range (AtLeast(64.0), 65_507.0),
        /// RFC 7627's extended master secret.
        extended_master_secret: bool = true,
        /// The PSK identity, 1 to 128 characters.
        identity: String = "Client_identity".into(),
        /// The pre-shared key, 1 to 64 bytes in hex.
        psk_hex: String = "000102030405060708090a0b0c0d0e0f".into(),
        /// Sessions the server holds at once.
        server_max_sessions: u32 = 16; range (AtLeast(1.0), 100_000.0),
        /// DTLS 1.2: what a handshake that passed the cookie exchange does
        /// when every session slot is taken: refuse it, or evict the least
        /// recently used session, the oldest, or the oldest half-open one.
        /// With one slot, evict-oldest is tinyDTLS built with DTLS_PEER_MAX
        /// 1 as the Cooja oracles' firmware runs it (a new session's
        /// ClientHello replaces the peer held).
        server_eviction: Eviction = Eviction::Refuse,
        /// DTLS 1.3: psk_ke or psk_dhe_ke.
        psk_mode: PskMode = PskMode::PskKe,
        /// DTLS 1.3: the pre-shared key, or ECDHE with the server's raw public
        /// key or certificate.
        authentication: Authentication = Authentication::Psk,
        /// DTLS 1.3: negotiate connection IDs (RFC 9146 section 3, RFC 9147
        /// section 9) of this many bytes each way (at most the DTLS 1.3
        /// stack's longest, 20); absent: none.
        cid_bytes: Option<u32> [serde(skip_serializing_if = "Option::is_none")] = None;
            range (AtLeast(0.0), 20.0),
        /// DTLS 1.3: the (EC)DHE group of psk_dhe_ke and the public-key modes.
        group: Group = Group::Secp256r1,
        /// Where the node's DTLS cryptography runs (costs from the platform file).
        crypto_strategy: Strategy = Strategy::Software,
        /// The retransmission timer.
        retransmission: Retransmission = Retransmission::default(),
    }
}

impl std::fmt::Debug for Dtls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dtls")
            .field("version", &self.version)
            .field("suite", &self.suite)
            .field("records_per_datagram", &self.records_per_datagram)
            .field("max_fragment_bytes", &self.max_fragment_bytes)
            .field("mtu_bytes", &self.mtu_bytes)
            .field("extended_master_secret", &self.extended_master_secret)
            .field("identity", &self.identity)
            .field("psk_hex", &"(redacted)")
            .field("server_max_sessions", &self.server_max_sessions)
            .field("server_eviction", &self.server_eviction)
            .field("psk_mode", &self.psk_mode)
            .field("authentication", &self.authentication)
            .field("cid_bytes", &self.cid_bytes)
            .field("group", &self.group)
            .field("crypto_strategy", &self.crypto_strategy)
            .field("retransmission", &self.retransmission)
            .finish()
    }
}

/// Bytes from hex digits; None unless every pair is hex.
pub fn hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.is_ascii() {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

impl Dtls {
    pub fn settle(&mut self, p: &mut Problems) {
        self.retransmission.settle(p);
    }

    pub fn validate(&self, p: &mut Problems) {
        self.check_ranges(p);
        let n = self.identity.chars().count();
        if !(1..=128).contains(&n) {
            p.push(
                "dtls.identity",
                &self.identity,
                "must be 1 to 128 characters",
            );
        }
        if !hex(&self.psk_hex).is_some_and(|k| (1..=64).contains(&k.len())) {
            p.push(
                "dtls.psk_hex",
                &self.psk_hex,
                "must be 1 to 64 bytes in hex digits",
            );
        }
        if self.version == Version::V1_2 {
            if self.psk_mode != PskMode::PskKe {
                let why = "psk_dhe_ke is a DTLS 1.3 mode (dtls.version = '1.3')";
                p.push("dtls.psk_mode", self.psk_mode, why);
            }
            if self.authentication != Authentication::Psk {
                let why = "in DTLS 1.2 the suite says how the handshake authenticates \
                           (dtls.suite = 'ecdhe-ecdsa-aes128-ccm8' for a certificate)";
                p.push("dtls.authentication", self.authentication, why);
            }
            if let Some(n) = self.cid_bytes {
                let why = "the simulator runs connection IDs with DTLS 1.3 so far";
                p.push("dtls.cid_bytes", n, why);
            }
        }
        if self.version == Version::V1_3 && self.server_eviction != Eviction::Refuse {
            let why = "the simulator's DTLS 1.3 server refuses a newcomer when full so far \
                       (dtls.version = '1.2' for an eviction policy)";
            p.push("dtls.server_eviction", self.server_eviction, why);
        }
        let no_dh = self.authentication == Authentication::Psk && self.psk_mode == PskMode::PskKe;
        if self.group != Group::Secp256r1 && (self.version == Version::V1_2 || no_dh) {
            let why = "a DTLS 1.3 (EC)DHE group: with dtls.version = '1.3' and psk_mode = \
                       'psk_dhe_ke' or a public-key dtls.authentication (DTLS 1.2's \
                       ECDHE suites run secp256r1)";
            p.push("dtls.group", self.group, why);
        }
        self.retransmission.validate(p);
    }

    /// What 1.2 and 1.3 share: MTU, fragment size, packing, the timer.
    fn common(&self) -> Config {
        Config {
            mtu: self.mtu_bytes as usize,
            max_fragment_len: self.max_fragment_bytes as usize,
            packing: match self.records_per_datagram {
                Records::One => RecordPacking::OneRecordPerDatagram,
                Records::Flight => RecordPacking::PackFlight,
            },
            retransmit: self.retransmission.policy(),
            ..Config::default()
        }
    }

    /// The DTLS configuration of one endpoint, with `suite` (the point's,
    /// or the one a ping workload names).
    pub fn config(&self, suite: CipherSuite) -> Config {
        Config {
            cipher_suites: vec![suite],
            extensions: Extensions {
                extended_master_secret: self.extended_master_secret,
                require_extended_master_secret: false,
                renegotiation_info: false,
                // the simulated constrained nodes send neither (tinyDTLS);
                // the command line's client turns it on (crates/py)
                renegotiation_scsv: false,
                ecc_extensions: !suite.is_psk(),
            },
            ..self.common()
        }
    }

    /// A DTLS 1.3 PSK client and server with the suite `suite_name` names:
    /// a 1.3 suite, or a 1.2 PSK suite meaning the 1.3 suite with its AEAD
    /// and hash (so one scenario sweeps `dtls.version` over 1.2 and 1.3);
    /// refused if the 1.3 stack has none (`key` names the scenario key).
    pub fn psk_pair13(
        &self,
        suite_name: &str,
        key: &str,
    ) -> Result<(ClientConfig13, ServerConfig13), Problems> {
        let suite = match suite_name {
            "aes128-ccm8-sha256" | "psk-aes128-ccm8" => CipherSuite13::Aes128Ccm8Sha256,
            "aes128-gcm-sha256" | "psk-aes128-gcm-sha256" => CipherSuite13::Aes128GcmSha256,
            _ => {
                let mut p = Problems::default();
                let runs = "the DTLS 1.3 stack runs aes128-ccm8-sha256, aes128-gcm-sha256 \
                            (or their DTLS 1.2 PSK names psk-aes128-ccm8, psk-aes128-gcm-sha256)";
                p.push(key, suite_name, runs);
                return Err(p);
            }
        };
        let (psk_modes, groups) = match (self.authentication, self.psk_mode) {
            (Authentication::Psk, PskMode::PskKe) => (vec![PskMode13::PskKe], Vec::new()),
            (Authentication::Psk, PskMode::PskDheKe) => {
                (vec![PskMode13::PskDheKe], vec![self.group.named()])
            }
            // certificate modes: ECDHE on the chosen group (the stack wants
            // a PSK mode configured; with no PSK offered none is sent)
            _ => (vec![PskMode13::PskKe], vec![self.group.named()]),
        };
        let certificate_types = match self.authentication {
            Authentication::RawPublicKey => vec![CertificateType::RawPublicKey],
            Authentication::Psk | Authentication::Certificate => vec![CertificateType::X509],
        };
        let config = Config13 {
            common: self.common(),
            suites: vec![suite],
            psk_modes,
            groups,
            cid_len: self.cid_bytes.map(|n| n as usize),
            certificate_types,
            ..Config13::default()
        };
        let psk = hex(&self.psk_hex).unwrap_or_default();
        let (client, mut server) = match self.authentication {
            Authentication::Psk => (
                ClientConfig13::psk(config.clone(), self.identity.as_bytes(), &psk),
                ServerConfig13::psk(config, self.identity.as_bytes(), &psk),
            ),
            Authentication::RawPublicKey | Authentication::Certificate => {
                let key = server_certificate();
                let credential = if self.authentication == Authentication::RawPublicKey {
                    Credential13::raw_public_key(key.private_key)
                        .expect("RFC 6979's test key is a valid P-256 scalar")
                } else {
                    Credential13::x509(key)
                };
                let pinned = CertificateVerifier::Pinned(credential.leaf().to_vec());
                (
                    ClientConfig13::certificate(config.clone(), pinned),
                    ServerConfig13::certificate(config, credential),
                )
            }
        };
        server.max_sessions = self.server_max_sessions as usize;
        Ok((client, server))
    }

    /// A DTLS 1.2 client and server with `suite_name`: PSK, or ECDHE-ECDSA
    /// with the server's certificate; refused if the DTLS stack has no such
    /// suite (`key` names the scenario key the suite came from).
    pub fn psk_pair(
        &self,
        suite_name: &str,
        key: &str,
    ) -> Result<(ClientConfig, ServerConfig), Problems> {
        let mut p = Problems::default();
        let Some(suite) = CipherSuite::from_name(suite_name) else {
            let names: Vec<_> = CipherSuite::ALL.iter().map(|s| s.name()).collect();
            p.push(
                key,
                suite_name,
                format!("the DTLS 1.2 stack runs {}", names.join(", ")),
            );
            return Err(p);
        };
        let psk = hex(&self.psk_hex).unwrap_or_default();
        let config = self.config(suite);
        let mut client = ClientConfig::psk(config.clone(), self.identity.as_bytes(), &psk);
        let mut server = ServerConfig::psk(config, self.identity.as_bytes(), &psk);
        if !suite.is_psk() {
            // ECDHE-ECDSA: the server's self-signed certificate, pinned by the client
            let key = server_certificate();
            client.server_verifier = CertificateVerifier::Pinned(key.chain[0].clone());
            server.certificate = Some(key);
        }
        server.max_sessions = self.server_max_sessions as usize;
        server.eviction = self.server_eviction.policy();
        Ok((client, server))
    }
}

#[cfg(test)]
mod debug_tests {
    use super::Dtls;

    #[test]
    fn debug_does_not_print_the_key() {
        let d = Dtls {
            psk_hex: "5ec2e75ec2e7".into(),
            ..Dtls::default()
        };
        let shown = format!("{d:?}");
        assert!(!shown.contains("5ec2e7"), "{shown}");
        assert!(shown.contains("psk_hex: \"(redacted)\"") && shown.contains("identity"));
    }
}
