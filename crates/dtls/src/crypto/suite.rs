//! What a cipher suite is made of: the DTLS 1.2 suites this stack
//! implements, their record protection (AEAD kind, or CBC with a MAC
//! algorithm) and key material, and [`Secret`], the byte string every key
//! is kept in. DTLS 1.3's suites are in `v13::suite`, built on the same
//! AEAD kinds.

use std::fmt;

use zeroize::Zeroize;

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
