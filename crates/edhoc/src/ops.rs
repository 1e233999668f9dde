//! The cryptographic operations an EDHOC party performed, counted at the
//! lakers crypto interface so that the simulator can charge them at the
//! platform's cost. The counts follow the algorithms of cipher suite 2
//! (RFC 9528 section 3.6): SHA-256, HKDF-SHA-256 (RFC 5869) over HMAC
//! (RFC 2104), AES-CCM-16-64-128 (RFC 9053 section 4.2, RFC 3610) and P-256.

use std::cell::Cell;
use std::rc::Rc;

use lakers_shared::{
    BufferCiphertext3, BufferPlaintext3, BytesCcmIvLen, BytesCcmKeyLen, BytesHashLen,
    BytesMaxBuffer, BytesMaxInfoBuffer, BytesP256ElemLen, Crypto, EDHOCError,
};

/// SHA-256 block (FIPS 180-4 section 5.1.1: 512-bit blocks).
const SHA256_BLOCK: usize = 64;
/// SHA-256 digest length.
const SHA256_LEN: usize = 32;
/// SHA-256 padding adds at least one 0x80 byte and the 64-bit length.
const SHA256_PAD_MIN: usize = 9;
/// AES block.
const AES_BLOCK: usize = 16;
/// CCM encodes l(a) < 2^16 - 2^8 in two bytes before the associated data
/// (RFC 3610 section 2.2).
const CCM_AD_LENGTH_FIELD: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ops {
    /// AES-128 block encryptions (CBC-MAC and CTR of AES-CCM).
    pub aes_blocks: u64,
    /// SHA-256 compression-function calls (hashes, HMAC inside HKDF).
    pub sha256_compressions: u64,
    /// P-256 scalar multiplications: key generation and ECDH each count one.
    pub p256_ecdh: u64,
}

impl Ops {
    /// What was done since `before`.
    pub fn since(&self, before: &Ops) -> Ops {
        Ops {
            aes_blocks: self.aes_blocks - before.aes_blocks,
            sha256_compressions: self.sha256_compressions - before.sha256_compressions,
            p256_ecdh: self.p256_ecdh - before.p256_ecdh,
        }
    }
}

/// SHA-256 compressions to hash `len` bytes.
pub fn sha256_compressions(len: usize) -> u64 {
    (len + SHA256_PAD_MIN).div_ceil(SHA256_BLOCK) as u64
}

/// HMAC-SHA-256 (RFC 2104) of `len` bytes with a key of at most one block:
/// inner hash over the padded key block and the message, outer hash over
/// the padded key block and the inner digest.
pub fn hmac_compressions(len: usize) -> u64 {
    sha256_compressions(SHA256_BLOCK + len) + sha256_compressions(SHA256_BLOCK + SHA256_LEN)
}

/// HKDF-Expand (RFC 5869 section 2.3) of `length` bytes with `info_len`
/// bytes of info: T(i) = HMAC(PRK, T(i-1) | info | i).
pub fn hkdf_expand_compressions(info_len: usize, length: usize) -> u64 {
    (0..length.div_ceil(SHA256_LEN))
        .map(|i| hmac_compressions(if i == 0 { 0 } else { SHA256_LEN } + info_len + 1))
        .sum()
}

/// AES-CCM (RFC 3610) over `ad_len` bytes of associated data and `len`
/// bytes of text: CBC-MAC over B0, the length-prefixed data and the text,
/// then CTR over the text and A0 (for the tag).
pub fn ccm_aes_blocks(ad_len: usize, len: usize) -> u64 {
    let ad = if ad_len == 0 {
        0
    } else {
        (ad_len + CCM_AD_LENGTH_FIELD).div_ceil(AES_BLOCK)
    };
    let text = len.div_ceil(AES_BLOCK);
    (1 + ad + text + text + 1) as u64
}

/// lakers' RustCrypto backend with every operation counted.
#[derive(Debug)]
pub struct Counted<C> {
    inner: C,
    ops: Rc<Cell<Ops>>,
}

impl<C> Counted<C> {
    pub fn new(inner: C, ops: Rc<Cell<Ops>>) -> Self {
        Counted { inner, ops }
    }

    fn add(&self, f: impl FnOnce(&mut Ops)) {
        let mut ops = self.ops.get();
        f(&mut ops);
        self.ops.set(ops);
    }
}

impl<C: Crypto> Crypto for Counted<C> {
    fn sha256_digest(&mut self, message: &BytesMaxBuffer, message_len: usize) -> BytesHashLen {
        self.add(|o| o.sha256_compressions += sha256_compressions(message_len));
        self.inner.sha256_digest(message, message_len)
    }

    fn hkdf_expand(
        &mut self,
        prk: &BytesHashLen,
        info: &BytesMaxInfoBuffer,
        info_len: usize,
        length: usize,
    ) -> BytesMaxBuffer {
        self.add(|o| o.sha256_compressions += hkdf_expand_compressions(info_len, length));
        self.inner.hkdf_expand(prk, info, info_len, length)
    }

    fn hkdf_extract(&mut self, salt: &BytesHashLen, ikm: &BytesP256ElemLen) -> BytesHashLen {
        // HKDF-Extract = HMAC(salt, IKM) (RFC 5869 section 2.2).
        self.add(|o| o.sha256_compressions += hmac_compressions(ikm.len()));
        self.inner.hkdf_extract(salt, ikm)
    }

    fn aes_ccm_encrypt_tag_8(
        &mut self,
        key: &BytesCcmKeyLen,
        iv: &BytesCcmIvLen,
        ad: &[u8],
        plaintext: &BufferPlaintext3,
    ) -> BufferCiphertext3 {
        self.add(|o| o.aes_blocks += ccm_aes_blocks(ad.len(), plaintext.len));
        self.inner.aes_ccm_encrypt_tag_8(key, iv, ad, plaintext)
    }

    fn aes_ccm_decrypt_tag_8(
        &mut self,
        key: &BytesCcmKeyLen,
        iv: &BytesCcmIvLen,
        ad: &[u8],
        ciphertext: &BufferCiphertext3,
    ) -> Result<BufferPlaintext3, EDHOCError> {
        let text = ciphertext
            .len
            .saturating_sub(lakers_shared::AES_CCM_TAG_LEN);
        self.add(|o| o.aes_blocks += ccm_aes_blocks(ad.len(), text));
        self.inner.aes_ccm_decrypt_tag_8(key, iv, ad, ciphertext)
    }

    fn p256_ecdh(
        &mut self,
        private_key: &BytesP256ElemLen,
        public_key: &BytesP256ElemLen,
    ) -> BytesP256ElemLen {
        self.add(|o| o.p256_ecdh += 1);
        self.inner.p256_ecdh(private_key, public_key)
    }

    fn get_random_byte(&mut self) -> u8 {
        self.inner.get_random_byte()
    }

    fn p256_generate_key_pair(&mut self) -> (BytesP256ElemLen, BytesP256ElemLen) {
        self.add(|o| o.p256_ecdh += 1);
        self.inner.p256_generate_key_pair()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_block_counts_follow_the_padding_rule() {
        // 55 bytes + 9 fit one block; 56 need two (FIPS 180-4 section 5.1.1).
        assert_eq!(sha256_compressions(0), 1);
        assert_eq!(sha256_compressions(55), 1);
        assert_eq!(sha256_compressions(56), 2);
        // HMAC of 32 bytes: inner 64 + 32 (2 blocks), outer 64 + 32 (2 blocks).
        assert_eq!(hmac_compressions(32), 4);
        // one 16-byte output, 10 bytes of info: one HMAC over 11 bytes.
        assert_eq!(hkdf_expand_compressions(10, 16), hmac_compressions(11));
        assert_eq!(
            hkdf_expand_compressions(10, 64),
            hmac_compressions(11) + hmac_compressions(43)
        );
    }

    #[test]
    fn ccm_blocks_count_mac_and_counter_passes() {
        // no data, 10 bytes: B0 + 1 text block for the MAC, 1 + A0 for CTR.
        assert_eq!(ccm_aes_blocks(0, 10), 4);
        // 45 bytes of data (47 with its length): 3 blocks more.
        assert_eq!(ccm_aes_blocks(45, 10), 7);
    }
}
