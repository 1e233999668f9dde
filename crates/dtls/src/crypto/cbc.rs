//! AES-128-CBC (RustCrypto `cbc`) and the record MACs HMAC-SHA1 /
//! HMAC-SHA256 (RustCrypto `hmac`, `sha1`, `sha2`), with the operation
//! counting the simulator charges for. Framing-agnostic: the TLS 1.2
//! MAC-then-encrypt layout is built in [`crate::v12::record::RecordKeys`].

use aes::{Aes128Dec, Aes128Enc};
use cbc::cipher::{Block, BlockModeDecrypt, BlockModeEncrypt, InnerIvInit, KeyInit};
use core::fmt;
use hmac::{Hmac, Mac};

use crate::accounting::CryptoOps;
use crate::crypto::suite::MacAlgorithm;

/// AES block size.
pub const BLOCK_LEN: usize = 16;

enum Schedule {
    Encrypt(Box<Aes128Enc>),
    Decrypt(Box<Aes128Dec>),
}

/// An expanded AES-128 key for one CBC direction: an encryption schedule
/// (the sending side) or a decryption schedule (the receiving side).
pub struct CbcKey {
    schedule: Schedule,
}

impl fmt::Debug for CbcKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = match self.schedule {
            Schedule::Encrypt(_) => "encrypt",
            Schedule::Decrypt(_) => "decrypt",
        };
        write!(f, "CbcKey({dir}, [redacted])")
    }
}

impl CbcKey {
    /// Expand a 16-byte key for encryption.
    pub fn encryptor(key: &[u8; 16]) -> Self {
        CbcKey {
            schedule: Schedule::Encrypt(Box::new(Aes128Enc::new(key.into()))),
        }
    }

    /// Expand a 16-byte key for decryption.
    pub fn decryptor(key: &[u8; 16]) -> Self {
        CbcKey {
            schedule: Schedule::Decrypt(Box::new(Aes128Dec::new(key.into()))),
        }
    }

    /// Heap bytes held by the expanded key schedule.
    pub fn heap_bytes(&self) -> usize {
        match self.schedule {
            Schedule::Encrypt(_) => core::mem::size_of::<Aes128Enc>(),
            Schedule::Decrypt(_) => core::mem::size_of::<Aes128Dec>(),
        }
    }

    /// Encrypt `buf` (a multiple of 16 bytes) in place. False (and `buf`
    /// untouched) if this is a decryption key or the length is not whole
    /// blocks.
    pub fn encrypt(&self, iv: &[u8; 16], buf: &mut [u8], ops: &mut CryptoOps) -> bool {
        let Schedule::Encrypt(k) = &self.schedule else {
            return false;
        };
        let (blocks, rest) = Block::<Aes128Enc>::slice_as_chunks_mut(buf);
        if !rest.is_empty() {
            return false;
        }
        ops.cbc(blocks.len() * BLOCK_LEN);
        cbc::Encryptor::<&Aes128Enc>::inner_iv_init(k, iv.into()).encrypt_blocks(blocks);
        true
    }

    /// Decrypt `buf` (a multiple of 16 bytes) in place. False (and `buf`
    /// untouched) if this is an encryption key or the length is not whole
    /// blocks.
    pub fn decrypt(&self, iv: &[u8; 16], buf: &mut [u8], ops: &mut CryptoOps) -> bool {
        let Schedule::Decrypt(k) = &self.schedule else {
            return false;
        };
        let (blocks, rest) = Block::<Aes128Dec>::slice_as_chunks_mut(buf);
        if !rest.is_empty() {
            return false;
        }
        ops.cbc(blocks.len() * BLOCK_LEN);
        cbc::Decryptor::<&Aes128Dec>::inner_iv_init(k, iv.into()).decrypt_blocks(blocks);
        true
    }
}

/// HMAC over the concatenation of `parts`; the MAC is the first
/// `alg.mac_len()` bytes of the result. Keys are at most 32 bytes here
/// (one key block, as the accounting assumes).
pub fn hmac(alg: MacAlgorithm, key: &[u8], parts: &[&[u8]], ops: &mut CryptoOps) -> [u8; 32] {
    let n: usize = parts.iter().map(|p| p.len()).sum();
    let mut out = [0u8; 32];
    match alg {
        MacAlgorithm::HmacSha1 => {
            let mut m = Hmac::<sha1::Sha1>::new_from_slice(key).expect("HMAC takes any key length");
            for p in parts {
                m.update(p);
            }
            ops.hmac_sha1(n);
            out[..20].copy_from_slice(&m.finalize().into_bytes());
        }
        MacAlgorithm::HmacSha256 => {
            let mut m =
                Hmac::<sha2::Sha256>::new_from_slice(key).expect("HMAC takes any key length");
            for p in parts {
                m.update(p);
            }
            ops.hmac_sha256(n);
            out.copy_from_slice(&m.finalize().into_bytes());
        }
    }
    out
}

/// Equality of two byte strings of the same length without a data-dependent
/// early exit (0xFF: equal, 0: different or lengths differ).
pub fn ct_eq(a: &[u8], b: &[u8]) -> u8 {
    if a.len() != b.len() {
        return 0;
    }
    let diff = a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y));
    // 0 → 0xFF, anything else → 0
    (u16::from(diff).wrapping_sub(1) >> 8) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::test_hex as hex;

    /// NIST SP 800-38A, F.2.1/F.2.2 (CBC-AES128), all four blocks.
    #[test]
    fn cbc_known_answer() {
        let key: [u8; 16] = hex("2b7e151628aed2a6abf7158809cf4f3c").try_into().unwrap();
        let iv: [u8; 16] = hex("000102030405060708090a0b0c0d0e0f").try_into().unwrap();
        let plain = hex(
            "6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
             30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710",
        );
        let cipher = hex(
            "7649abac8119b246cee98e9b12e9197d 5086cb9b507219ee95db113a917678b2
             73bed6b8e3c1743b7116e69e22229516 3ff1caa1681fac09120eca307586e1a7",
        );
        let mut ops = CryptoOps::default();
        let mut buf = plain.clone();
        assert!(CbcKey::encryptor(&key).encrypt(&iv, &mut buf, &mut ops));
        assert_eq!(buf, cipher);
        assert_eq!(ops.aes_blocks, 4);
        assert!(CbcKey::decryptor(&key).decrypt(&iv, &mut buf, &mut ops));
        assert_eq!(buf, plain);
        assert_eq!(ops.aes_blocks, 8);
        // wrong direction or partial block: refused, untouched
        assert!(!CbcKey::decryptor(&key).encrypt(&iv, &mut buf, &mut ops));
        assert!(!CbcKey::encryptor(&key).encrypt(&iv, &mut buf[..15], &mut ops));
        assert_eq!(buf, plain);
    }

    /// RFC 2202 test case 2 (HMAC-SHA1) and RFC 4231 test case 2
    /// (HMAC-SHA256): key "Jefe".
    #[test]
    fn hmac_known_answers() {
        let mut ops = CryptoOps::default();
        let data = b"what do ya want for nothing?";
        let m = hmac(
            MacAlgorithm::HmacSha1,
            b"Jefe",
            &[&data[..10], &data[10..]],
            &mut ops,
        );
        assert_eq!(m[..20], hex("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")[..]);
        assert_eq!(m[20..], [0; 12]);
        // 28 bytes: 1 + ceil(37 / 64) + 2
        assert_eq!(ops.sha1_compressions, 4);
        assert_eq!(ops.sha256_compressions, 0);
        let m = hmac(MacAlgorithm::HmacSha256, b"Jefe", &[data], &mut ops);
        assert_eq!(
            m[..],
            hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")[..]
        );
        assert_eq!(ops.sha256_compressions, 4);
    }

    #[test]
    fn constant_time_compare() {
        assert_eq!(ct_eq(b"abc", b"abc"), 0xFF);
        assert_eq!(ct_eq(b"abc", b"abd"), 0);
        assert_eq!(ct_eq(b"abc", b"ab"), 0);
        assert_eq!(ct_eq(b"", b""), 0xFF);
    }
}
