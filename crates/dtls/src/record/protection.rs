//! AEAD record protection for DTLS 1.2 (RFC 5288 / RFC 6655 nonce layout):
//! nonce = 4-byte implicit salt || 8-byte explicit nonce (epoch || seq),
//! AAD = epoch || seq || type || version || plaintext length.

use core::fmt;

use super::header::{RecordHeader, RECORD_HEADER_LEN};
use crate::accounting::CryptoOps;
use crate::config::AeadKind;
use crate::crypto::aead::AeadKey;

/// Keys protecting one direction of one epoch.
pub struct RecordKeys {
    key: AeadKey,
    salt: [u8; 4],
}

impl fmt::Debug for RecordKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RecordKeys({:?}, [redacted])", self.kind())
    }
}

impl RecordKeys {
    /// Install a 16-byte key and 4-byte salt.
    pub fn new(kind: AeadKind, key: &[u8; 16], salt: [u8; 4], ops: &mut CryptoOps) -> Self {
        RecordKeys {
            key: AeadKey::new(kind, key, ops),
            salt,
        }
    }

    /// Heap bytes held by the expanded key schedule.
    pub fn heap_bytes(&self) -> usize {
        self.key.heap_bytes()
    }

    /// The AEAD.
    pub fn kind(&self) -> AeadKind {
        self.key.kind()
    }

    fn nonce_aad(&self, h: &RecordHeader, plain_len: usize) -> ([u8; 12], [u8; 13]) {
        let es = h.epoch_seq().to_be_bytes();
        let mut nonce = [0u8; 12];
        nonce[..4].copy_from_slice(&self.salt);
        nonce[4..].copy_from_slice(&es);
        let mut aad = [0u8; 13];
        aad[..8].copy_from_slice(&es);
        aad[8] = h.content_type.to_u8();
        aad[9..11].copy_from_slice(&h.version.to_be_bytes());
        aad[11..].copy_from_slice(&(plain_len as u16).to_be_bytes());
        (nonce, aad)
    }

    /// Append a protected record (header, explicit nonce, ciphertext, tag).
    /// `header.length` is ignored (computed).
    pub fn seal(
        &self,
        header: RecordHeader,
        plaintext: &[u8],
        out: &mut Vec<u8>,
        ops: &mut CryptoOps,
    ) {
        let kind = self.kind();
        let h = RecordHeader {
            length: (plaintext.len() + kind.overhead()) as u16,
            ..header
        };
        let (nonce, aad) = self.nonce_aad(&h, plaintext.len());
        h.emit(out);
        out.extend_from_slice(&nonce[4..]);
        self.key.seal(&nonce, &aad, plaintext, out, ops);
    }

    /// Authenticate and decrypt a record fragment. `None` if it does not
    /// authenticate (the caller drops the record).
    pub fn open(&self, h: &RecordHeader, fragment: &[u8], ops: &mut CryptoOps) -> Option<Vec<u8>> {
        let kind = self.kind();
        if fragment.len() < kind.overhead() {
            return None;
        }
        let plain_len = fragment.len() - kind.overhead();
        let (mut nonce, aad) = self.nonce_aad(h, plain_len);
        nonce[4..].copy_from_slice(&fragment[..8]);
        self.key.open(&nonce, &aad, &fragment[8..], ops)
    }
}

/// Size of a record carrying `plain` bytes under `kind` (None: epoch 0).
pub fn record_len(kind: Option<AeadKind>, plain: usize) -> usize {
    RECORD_HEADER_LEN + plain + kind.map_or(0, AeadKind::overhead)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::header::{split_datagram, ContentType, DTLS1_2};

    #[test]
    fn seal_open_roundtrip_and_tamper() {
        for kind in [AeadKind::Ccm8, AeadKind::Gcm] {
            let mut ops = CryptoOps::default();
            let k = RecordKeys::new(kind, &[7u8; 16], [1, 2, 3, 4], &mut ops);
            let mut out = Vec::new();
            let h = RecordHeader {
                content_type: ContentType::ApplicationData,
                version: DTLS1_2,
                epoch: 1,
                seq: 42,
                length: 0,
            };
            k.seal(h, b"hello", &mut out, &mut ops);
            assert_eq!(out.len(), record_len(Some(kind), 5));
            let (recs, _) = split_datagram(&out);
            let (h, frag) = &recs[0];
            assert_eq!(k.open(h, frag, &mut ops).as_deref(), Some(&b"hello"[..]));
            let mut bad = frag.clone();
            bad[10] ^= 1;
            assert!(k.open(h, &bad, &mut ops).is_none());
            let mut h2 = *h;
            h2.seq += 1;
            assert!(k.open(&h2, frag, &mut ops).is_none());
        }
    }

    /// The AES block count charged for a small CCM record (the AEAD itself
    /// has known-answer tests in `crypto::aead`).
    #[test]
    fn ccm_block_count() {
        let mut ops = CryptoOps::default();
        ops.ccm(13, 5);
        // B0 + 1 AAD block + 1 MAC block + 1 CTR block + S0
        assert_eq!(ops.aes_blocks, 5);
    }
}
