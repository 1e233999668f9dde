//! AES AEADs (RustCrypto `ccm`, `aes-gcm`) behind one type, with the
//! operation counting the simulator charges for: AES-128-CCM-8 and
//! AES-128-GCM (DTLS 1.2 and 1.3), AES-256-GCM (DTLS 1.3's
//! TLS_AES_256_GCM_SHA384). Framing-agnostic: DTLS 1.2
//! (explicit nonce, [`crate::v12::record::RecordKeys`]) and DTLS 1.3 (XORed
//! per-record nonce) build their nonces and AAD around it.

use aes::{Aes128Enc, Aes256Enc};
use ccm::aead::{AeadInOut, KeyInit};
use ccm::consts::{U12, U8};
use ccm::Ccm;
use core::fmt;

use crate::accounting::CryptoOps;
use crate::crypto::suite::AeadKind;

type Aes128Ccm8 = Ccm<Aes128Enc, U8, U12>;
type Aes128Gcm = aes_gcm::AesGcm<Aes128Enc, U12>;
type Aes256Gcm = aes_gcm::AesGcm<Aes256Enc, U12>;

enum Cipher {
    Ccm8(Box<Aes128Ccm8>),
    Gcm(Box<Aes128Gcm>),
    Gcm256(Box<Aes256Gcm>),
}

/// An installed AES AEAD key (12-byte nonces).
pub struct AeadKey {
    cipher: Cipher,
}

impl fmt::Debug for AeadKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AeadKey({:?}, [redacted])", self.kind())
    }
}

impl AeadKey {
    /// Expand a 16-byte key.
    pub fn new(kind: AeadKind, key: &[u8; 16], ops: &mut CryptoOps) -> Self {
        let cipher = match kind {
            AeadKind::Ccm8 => Cipher::Ccm8(Box::new(Aes128Ccm8::new(key.into()))),
            AeadKind::Gcm => {
                ops.aes_blocks += 1; // hash key H = E(K, 0^128)
                Cipher::Gcm(Box::new(Aes128Gcm::new(key.into())))
            }
        };
        AeadKey { cipher }
    }

    /// Expand a 32-byte AES-256-GCM key.
    pub fn aes256_gcm(key: &[u8; 32], ops: &mut CryptoOps) -> Self {
        ops.aes256_blocks += 1; // hash key H = E(K, 0^128)
        AeadKey {
            cipher: Cipher::Gcm256(Box::new(Aes256Gcm::new(key.into()))),
        }
    }

    /// Which AEAD construction (tag length and framing; an AES-256-GCM key
    /// reports [`AeadKind::Gcm`], see [`AeadKey::key_len`]).
    pub fn kind(&self) -> AeadKind {
        match self.cipher {
            Cipher::Ccm8(_) => AeadKind::Ccm8,
            Cipher::Gcm(_) | Cipher::Gcm256(_) => AeadKind::Gcm,
        }
    }

    /// AES key length in bytes (16 or 32).
    pub fn key_len(&self) -> usize {
        match self.cipher {
            Cipher::Ccm8(_) | Cipher::Gcm(_) => 16,
            Cipher::Gcm256(_) => 32,
        }
    }

    /// Heap bytes held by the expanded key schedule.
    pub fn heap_bytes(&self) -> usize {
        match self.cipher {
            Cipher::Ccm8(_) => core::mem::size_of::<Aes128Ccm8>(),
            Cipher::Gcm(_) => core::mem::size_of::<Aes128Gcm>(),
            Cipher::Gcm256(_) => core::mem::size_of::<Aes256Gcm>(),
        }
    }

    /// Append `plaintext` encrypted, then the tag, to `out`.
    pub fn seal(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        plaintext: &[u8],
        out: &mut Vec<u8>,
        ops: &mut CryptoOps,
    ) {
        let start = out.len();
        out.extend_from_slice(plaintext);
        let buf = &mut out[start..];
        let tag: Vec<u8> = match &self.cipher {
            Cipher::Ccm8(c) => {
                ops.ccm(aad.len(), plaintext.len());
                c.encrypt_inout_detached(nonce.into(), aad, buf.into())
                    .map(|t| t.to_vec())
            }
            Cipher::Gcm(c) => {
                ops.gcm(plaintext.len());
                c.encrypt_inout_detached(nonce.into(), aad, buf.into())
                    .map(|t| t.to_vec())
            }
            Cipher::Gcm256(c) => {
                ops.gcm256(plaintext.len());
                c.encrypt_inout_detached(nonce.into(), aad, buf.into())
                    .map(|t| t.to_vec())
            }
        }
        .expect("record sizes are far below AEAD limits");
        out.extend_from_slice(&tag);
    }

    /// Decrypt `ciphertext || tag`; `None` if it does not authenticate.
    pub fn open(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        sealed: &[u8],
        ops: &mut CryptoOps,
    ) -> Option<Vec<u8>> {
        let tag_len = self.kind().tag_len();
        let n = sealed.len().checked_sub(tag_len)?;
        let mut buf = sealed[..n].to_vec();
        let tag = &sealed[n..];
        let ok = match &self.cipher {
            Cipher::Ccm8(c) => {
                ops.ccm(aad.len(), n);
                let tag = ccm::Tag::<U8>::try_from(tag).ok()?;
                c.decrypt_inout_detached(nonce.into(), aad, (&mut buf[..]).into(), &tag)
            }
            Cipher::Gcm(c) => {
                ops.gcm(n);
                let tag = aes_gcm::Tag::try_from(tag).ok()?;
                c.decrypt_inout_detached(nonce.into(), aad, (&mut buf[..]).into(), &tag)
            }
            Cipher::Gcm256(c) => {
                ops.gcm256(n);
                let tag = aes_gcm::Tag::try_from(tag).ok()?;
                c.decrypt_inout_detached(nonce.into(), aad, (&mut buf[..]).into(), &tag)
            }
        };
        ok.ok().map(|()| buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::test_hex as hex;

    /// NIST SP 800-38C, Appendix C, Example 3 (96-bit nonce, 64-bit tag).
    #[test]
    fn ccm8_known_answer() {
        let mut ops = CryptoOps::default();
        let key: [u8; 16] = hex("404142434445464748494a4b4c4d4e4f").try_into().unwrap();
        let nonce: [u8; 12] = hex("101112131415161718191a1b").try_into().unwrap();
        let aad = hex("000102030405060708090a0b0c0d0e0f10111213");
        let p = hex("202122232425262728292a2b2c2d2e2f3031323334353637");
        let k = AeadKey::new(AeadKind::Ccm8, &key, &mut ops);
        let mut out = Vec::new();
        k.seal(&nonce, &aad, &p, &mut out, &mut ops);
        assert_eq!(
            out,
            hex("e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5 484392fbc1b09951")
        );
        assert_eq!(k.open(&nonce, &aad, &out, &mut ops), Some(p));
    }

    /// The GCM specification (McGrew and Viega), test case 2.
    #[test]
    fn gcm_known_answer() {
        let mut ops = CryptoOps::default();
        let k = AeadKey::new(AeadKind::Gcm, &[0; 16], &mut ops);
        let mut out = Vec::new();
        k.seal(&[0; 12], &[], &[0; 16], &mut out, &mut ops);
        assert_eq!(
            out,
            hex("0388dace60b6a392f328c2b971b2fe78 ab6e47d42cec13bdf53a67b21257bddf")
        );
        let mut bad = out.clone();
        bad[20] ^= 1;
        assert!(k.open(&[0; 12], &[], &bad, &mut ops).is_none());
        assert!(k.open(&[0; 12], &[], &out[..10], &mut ops).is_none());
    }

    /// The GCM specification (McGrew and Viega), test case 14 (256-bit zero
    /// key, zero IV, one zero block).
    #[test]
    fn gcm256_known_answer() {
        let mut ops = CryptoOps::default();
        let k = AeadKey::aes256_gcm(&[0; 32], &mut ops);
        assert_eq!(k.key_len(), 32);
        let mut out = Vec::new();
        k.seal(&[0; 12], &[], &[0; 16], &mut out, &mut ops);
        assert_eq!(
            out,
            hex("cea7403d4d606b6e074ec5d3baf39d18 d0d1c8a799996bf0265b98b5d48ab919")
        );
        assert_eq!(k.open(&[0; 12], &[], &out, &mut ops), Some(vec![0; 16]));
    }
}
