//! The DTLS 1.3 cipher suites this stack offers (RFC 8446 §B.4; DTLS-OK per
//! the IANA TLS registry, RFC 9147 §13) and what each one fixes: AEAD, key
//! and IV lengths, and the hash of the key schedule and transcript.

use crate::crypto::suite::AeadKind;

/// Hash function of a TLS 1.3 suite (HKDF and transcript hash).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashAlg {
    /// SHA-256 (FIPS 180-4), 32-byte output.
    Sha256,
    /// SHA-384 (FIPS 180-4), 48-byte output.
    Sha384,
}

impl HashAlg {
    /// Output length in bytes (`Hash.length` of RFC 8446 §7.1).
    pub fn output_len(self) -> usize {
        match self {
            HashAlg::Sha256 => 32,
            HashAlg::Sha384 => 48,
        }
    }

    /// Bytes of a running hash context in a compact C implementation: the
    /// chaining state, the message length and one block of buffered input
    /// (FIPS 180-4 §6.2 and §6.5). SHA-256: 108 B, tinyDTLS's
    /// `dtls_sha256_ctx` (8 × 4 B state, 8 B bit count, 64 B block, and
    /// the 4 B of alignment its layout takes), the figure the 1.2 session
    /// uses. SHA-384, derived the same way: 8 × 8 B state, a 16 B bit
    /// count, a 128 B block = 208 B.
    pub fn compact_context_len(self) -> usize {
        match self {
            HashAlg::Sha256 => 108,
            HashAlg::Sha384 => 8 * 8 + 16 + 128,
        }
    }
}

/// A TLS 1.3 cipher suite usable with DTLS 1.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CipherSuite13 {
    /// TLS_AES_128_CCM_8_SHA256 (0x1305): the constrained-device default
    /// (RFC 7925 profile's AEAD; RFC 9147 §4.5.3 asks for forgery limits).
    Aes128Ccm8Sha256,
    /// TLS_AES_128_GCM_SHA256 (0x1301).
    Aes128GcmSha256,
    /// TLS_AES_256_GCM_SHA384 (0x1302).
    Aes256GcmSha384,
}

impl CipherSuite13 {
    /// How many records may be protected under one key: the AEAD's
    /// confidentiality limit (RFC 9147 §4.5.3, after RFC 8446 §5.5):
    /// 2^24.5 full-size records for AES-GCM, 2^23.5 for AES-CCM (CCM_8
    /// included). A side updates its keys (KeyUpdate, §8) before it.
    pub fn record_limit(self) -> u64 {
        match self {
            // 2^23.5, rounded down
            CipherSuite13::Aes128Ccm8Sha256 => 11_863_283,
            // 2^24.5, rounded down
            CipherSuite13::Aes128GcmSha256 | CipherSuite13::Aes256GcmSha384 => 23_726_566,
        }
    }

    /// How many records may fail authentication under one key before the
    /// connection is closed (RFC 9147 §4.5.3, integrity limits):
    /// - AEAD_AES_128_GCM and AEAD_AES_256_GCM: 2^36 (§4.5.3);
    /// - AEAD_AES_128_CCM_8: §4.5.3 gives no limit that both keeps the
    ///   other suites' margin and resists denial of service, and requires an
    ///   implementation to set one; Appendix B.3 derives 2^7 from the
    ///   single-key bound v / 2^t (t = 64) for the same 2^-57 margin
    ///   (Appendix B.2). That is this stack's default; with additional
    ///   forgery protections a deployment may set its own
    ///   (`Config13::integrity_limit`).
    ///
    /// A side asks for a key update at half the limit, so a stream of
    /// forgeries moves the keys on rather than ends the connection (§4.5.3:
    /// "SHOULD initiate a key update with update_requested before reaching
    /// this limit").
    pub fn integrity_limit(self) -> u64 {
        match self {
            // RFC 9147 Appendix B.3: v <= 2^7
            CipherSuite13::Aes128Ccm8Sha256 => 1 << 7,
            // RFC 9147 §4.5.3: 2^36
            CipherSuite13::Aes128GcmSha256 | CipherSuite13::Aes256GcmSha384 => 1 << 36,
        }
    }

    /// Every suite, in this stack's order of preference.
    pub const ALL: [CipherSuite13; 3] = [
        CipherSuite13::Aes128Ccm8Sha256,
        CipherSuite13::Aes128GcmSha256,
        CipherSuite13::Aes256GcmSha384,
    ];

    /// IANA value (RFC 8446 §B.4).
    pub fn id(self) -> u16 {
        match self {
            CipherSuite13::Aes128GcmSha256 => 0x1301,
            CipherSuite13::Aes256GcmSha384 => 0x1302,
            CipherSuite13::Aes128Ccm8Sha256 => 0x1305,
        }
    }

    /// RFC 8446 §B.4 name.
    pub fn name(self) -> &'static str {
        match self {
            CipherSuite13::Aes128Ccm8Sha256 => "TLS_AES_128_CCM_8_SHA256",
            CipherSuite13::Aes128GcmSha256 => "TLS_AES_128_GCM_SHA256",
            CipherSuite13::Aes256GcmSha384 => "TLS_AES_256_GCM_SHA384",
        }
    }

    /// From the IANA value; `None` for suites this stack does not implement.
    pub fn from_id(id: u16) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.id() == id)
    }

    /// Hash of the key schedule and transcript.
    pub fn hash(self) -> HashAlg {
        match self {
            CipherSuite13::Aes128Ccm8Sha256 | CipherSuite13::Aes128GcmSha256 => HashAlg::Sha256,
            CipherSuite13::Aes256GcmSha384 => HashAlg::Sha384,
        }
    }

    /// AEAD construction (tag length).
    pub fn aead(self) -> AeadKind {
        match self {
            CipherSuite13::Aes128Ccm8Sha256 => AeadKind::Ccm8,
            CipherSuite13::Aes128GcmSha256 | CipherSuite13::Aes256GcmSha384 => AeadKind::Gcm,
        }
    }

    /// AEAD key length, also the length of `sn_key` (RFC 9147 §4.2.3:
    /// `key_length`).
    pub fn key_len(self) -> usize {
        match self {
            CipherSuite13::Aes128Ccm8Sha256 | CipherSuite13::Aes128GcmSha256 => 16,
            CipherSuite13::Aes256GcmSha384 => 32,
        }
    }

    /// AEAD nonce (= write IV) length: 12 bytes for every suite here
    /// (RFC 8446 §5.3: `iv_length` = the AEAD's N_MIN, 12 for AES-GCM and
    /// AES-CCM per RFC 5116 §5.1 and RFC 6655 §3).
    pub fn iv_len(self) -> usize {
        12
    }

    /// Authentication tag length.
    pub fn tag_len(self) -> usize {
        self.aead().tag_len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_unknown_refused() {
        for s in CipherSuite13::ALL {
            assert_eq!(CipherSuite13::from_id(s.id()), Some(s));
        }
        assert_eq!(CipherSuite13::from_id(0x1303), None, "ChaCha20 not offered");
        assert_eq!(CipherSuite13::from_id(0xC0A8), None, "a DTLS 1.2 suite");
        assert_eq!(CipherSuite13::Aes256GcmSha384.hash().output_len(), 48);
        assert_eq!(CipherSuite13::Aes128Ccm8Sha256.tag_len(), 8);
    }
}
