//! Counters the simulator charges for: cryptographic operations and bytes on
//! the wire per message type.
//!
//! Operation counts are those of a straightforward constrained
//! implementation of each primitive (what tinyDTLS or a hardware AES engine
//! would execute), computed from the exact input lengths of every call made:
//! - AES-CCM on `a` bytes of AAD and `p` bytes of payload:
//!   `2 + ceil((a + 2) / 16) + 2 * ceil(p / 16)` AES blocks (B0, the AAD
//!   blocks, CBC-MAC and CTR over the payload, and the tag block S0);
//! - AES-GCM: `ceil(p / 16) + 1` AES blocks per record (the hash key H is
//!   counted once when the key is installed); with a 256-bit key
//!   (TLS_AES_256_GCM_SHA384) they are AES-256 blocks, counted apart: 14
//!   rounds to AES-128's 10 (FIPS 197 §5, Nr), so a platform prices them
//!   apart (a 128-bit-only engine cannot run them at all);
//! - SHA-256 over `n` bytes: `ceil((n + 9) / 64)` compressions;
//! - HMAC-SHA256 over `m` bytes (key ≤ 64 bytes): `1 + ceil((m + 9) / 64) + 2`;
//! - AES-128-CBC over a padded plaintext of `p` bytes (a multiple of 16):
//!   `p / 16` AES blocks, encryption or decryption (the explicit IV is drawn
//!   from a random generator, not computed with AES);
//! - SHA-1 over `n` bytes: `ceil((n + 9) / 64)` compressions, and
//!   HMAC-SHA1 over `m` bytes: `1 + ceil((m + 9) / 64) + 2`, as for SHA-256;
//! - SHA-384 (TLS_AES_256_GCM_SHA384's transcript and HKDF) runs SHA-512's
//!   compression over 128-byte blocks with a 16-byte length field (FIPS
//!   180-4 §5.1.2, §6.5): over `n` bytes `ceil((n + 17) / 128)`
//!   compressions, and HMAC-SHA384 over `m` bytes (key ≤ 128 bytes)
//!   `1 + ceil((m + 17) / 128) + 2` (the outer hash of a 48-byte inner
//!   digest fits one block after the key block).

/// Counts of cryptographic operations performed by one connection (or by a
/// server's stateless cookie logic).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CryptoOps {
    /// AES-128 block encryptions.
    pub aes_blocks: u64,
    /// AES-256 block encryptions (TLS_AES_256_GCM_SHA384's records and
    /// record-number masks).
    pub aes256_blocks: u64,
    /// SHA-256 compression-function calls.
    pub sha256_compressions: u64,
    /// SHA-1 compression-function calls (HMAC-SHA1 of the CBC-SHA suite).
    pub sha1_compressions: u64,
    /// SHA-512 compression-function calls (SHA-384 and HMAC-SHA384 of
    /// TLS_AES_256_GCM_SHA384; 128-byte blocks).
    pub sha512_compressions: u64,
    /// P-256 ECDH operations: key generation (one scalar multiplication) and
    /// shared-secret computation each count one.
    pub ecdh_ops: u64,
    /// ECDSA P-256 signatures produced.
    pub ecdsa_signs: u64,
    /// ECDSA P-256 signatures verified.
    pub ecdsa_verifies: u64,
}

impl CryptoOps {
    /// Add another set of counts.
    pub fn add(&mut self, o: &CryptoOps) {
        self.aes_blocks += o.aes_blocks;
        self.aes256_blocks += o.aes256_blocks;
        self.sha256_compressions += o.sha256_compressions;
        self.sha1_compressions += o.sha1_compressions;
        self.sha512_compressions += o.sha512_compressions;
        self.ecdh_ops += o.ecdh_ops;
        self.ecdsa_signs += o.ecdsa_signs;
        self.ecdsa_verifies += o.ecdsa_verifies;
    }
    /// The counts accumulated since `before` (an earlier copy of these
    /// counters; saturating).
    pub fn since(&self, before: &CryptoOps) -> CryptoOps {
        CryptoOps {
            aes_blocks: self.aes_blocks.saturating_sub(before.aes_blocks),
            aes256_blocks: self.aes256_blocks.saturating_sub(before.aes256_blocks),
            sha256_compressions: self
                .sha256_compressions
                .saturating_sub(before.sha256_compressions),
            sha1_compressions: self
                .sha1_compressions
                .saturating_sub(before.sha1_compressions),
            sha512_compressions: self
                .sha512_compressions
                .saturating_sub(before.sha512_compressions),
            ecdh_ops: self.ecdh_ops.saturating_sub(before.ecdh_ops),
            ecdsa_signs: self.ecdsa_signs.saturating_sub(before.ecdsa_signs),
            ecdsa_verifies: self.ecdsa_verifies.saturating_sub(before.ecdsa_verifies),
        }
    }
    pub(crate) fn ccm(&mut self, aad: usize, payload: usize) {
        self.aes_blocks += 2 + (aad as u64 + 2).div_ceil(16) + 2 * (payload as u64).div_ceil(16);
    }
    pub(crate) fn gcm(&mut self, payload: usize) {
        self.aes_blocks += gcm_blocks(payload);
    }
    pub(crate) fn gcm256(&mut self, payload: usize) {
        self.aes256_blocks += gcm_blocks(payload);
    }
    pub(crate) fn sha256(&mut self, n: usize) {
        self.sha256_compressions += (n as u64 + 9).div_ceil(64);
    }
    pub(crate) fn hmac_sha256(&mut self, m: usize) {
        self.sha256_compressions += 1 + (m as u64 + 9).div_ceil(64) + 2;
    }
    pub(crate) fn sha384(&mut self, n: usize) {
        self.sha512_compressions += (n as u64 + 17).div_ceil(128);
    }
    pub(crate) fn hmac_sha384(&mut self, m: usize) {
        self.sha512_compressions += 1 + (m as u64 + 17).div_ceil(128) + 2;
    }
    pub(crate) fn hmac_sha1(&mut self, m: usize) {
        self.sha1_compressions += 1 + (m as u64 + 9).div_ceil(64) + 2;
    }
    pub(crate) fn cbc(&mut self, padded: usize) {
        self.aes_blocks += (padded as u64).div_ceil(16);
    }
}

/// AES blocks of one GCM record: the counter blocks of the payload and the
/// one that masks the tag.
fn gcm_blocks(payload: usize) -> u64 {
    (payload as u64).div_ceil(16) + 1
}

/// Kinds of message a byte count is charged to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MessageKind {
    /// A handshake message of this type (RFC 5246 HandshakeType value).
    Handshake(u8),
    /// ChangeCipherSpec.
    ChangeCipherSpec,
    /// Alert.
    Alert,
    /// Application data.
    ApplicationData,
    /// DTLS 1.3 ACK (RFC 9147 §7).
    Ack,
}

impl MessageKind {
    /// Human-readable name.
    pub fn name(self) -> &'static str {
        match self {
            // EncryptedExtensions (RFC 8446 §4.3.1) exists in 1.3 only
            MessageKind::Handshake(8) => "EncryptedExtensions",
            MessageKind::Handshake(t) => crate::handshake_type::HandshakeType::name_of(t),
            MessageKind::ChangeCipherSpec => "ChangeCipherSpec",
            MessageKind::Alert => "Alert",
            MessageKind::ApplicationData => "ApplicationData",
            MessageKind::Ack => "Ack",
        }
    }
}

/// Bytes per message kind. A record's bytes on the wire (header, explicit
/// nonce, tag, handshake header and body) are charged to the kind of message
/// it carries. A DTLS 1.3 record that carries several handshake messages is
/// charged to the first, with that message's header and body; each other
/// message is charged its own header and body, and no record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ByteCounts {
    entries: Vec<(MessageKind, u64, u64)>,
    /// Every charge in order, kept only once [`ByteCounts::keep_log`] asked
    /// for it (a trace): None costs nothing per message.
    log: Option<Vec<(MessageKind, u64)>>,
}

impl ByteCounts {
    /// From now on, keep every message charged, in order (see
    /// [`ByteCounts::log`]). What was charged before starts the log, one
    /// entry per kind in kind order: exact for what a connection charges
    /// as it is created (its first flight, one ClientHello).
    pub fn keep_log(&mut self) {
        if self.log.is_none() {
            self.log = Some(self.entries.iter().map(|e| (e.0, e.1)).collect());
        }
    }

    /// The messages charged since [`ByteCounts::keep_log`], in the order the
    /// stack sent or accepted them, with the bytes charged to each (a
    /// message sharing a record with an earlier one: its own header and
    /// body only). Empty when no log is kept.
    pub fn log(&self) -> &[(MessageKind, u64)] {
        self.log.as_deref().unwrap_or(&[])
    }

    pub(crate) fn add(&mut self, kind: MessageKind, bytes: usize) {
        self.charge(kind, bytes, 1);
    }

    /// Bytes of a message that shares a record charged to another.
    pub(crate) fn add_shared(&mut self, kind: MessageKind, bytes: usize) {
        self.charge(kind, bytes, 0);
    }

    fn charge(&mut self, kind: MessageKind, bytes: usize, records: u64) {
        if let Some(log) = self.log.as_mut() {
            log.push((kind, bytes as u64));
        }
        if let Some(e) = self.entries.iter_mut().find(|e| e.0 == kind) {
            e.1 += bytes as u64;
            e.2 += records;
        } else {
            self.entries.push((kind, bytes as u64, records));
            self.entries.sort_by_key(|e| e.0);
        }
    }
    /// (kind, bytes, records) for every kind seen.
    pub fn iter(&self) -> impl Iterator<Item = (MessageKind, u64, u64)> + '_ {
        self.entries.iter().copied()
    }
    /// Bytes charged to one kind.
    pub fn bytes(&self, kind: MessageKind) -> u64 {
        self.entries.iter().find(|e| e.0 == kind).map_or(0, |e| e.1)
    }
    /// Sum over all kinds (record bytes; equals UDP payload bytes).
    pub fn total(&self) -> u64 {
        self.entries.iter().map(|e| e.1).sum()
    }
}

/// Everything one connection counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Cryptographic operations.
    pub crypto: CryptoOps,
    /// Bytes sent per message kind.
    pub sent: ByteCounts,
    /// Bytes received (and accepted as records) per message kind.
    pub received: ByteCounts,
    /// Datagrams handed to the caller for sending.
    pub datagrams_sent: u64,
    /// Datagrams received.
    pub datagrams_received: u64,
    /// UDP payload bytes sent.
    pub bytes_sent: u64,
    /// UDP payload bytes received.
    pub bytes_received: u64,
    /// Flight retransmissions (timer or peer-triggered).
    pub retransmissions: u64,
    /// Records dropped (bad authentication, replay, malformed, wrong epoch).
    pub records_dropped: u64,
}
