//! Record numbers of DTLS 1.3: their encryption on the wire (RFC 9147
//! §4.2.3) and the reconstruction of the full epoch and sequence number from
//! the bits a unified header carries (§4.2.2).

use aes::cipher::{Block, BlockCipherEncrypt, KeyInit};
use aes::{Aes128Enc, Aes256Enc};

use crate::accounting::CryptoOps;

/// Bytes of ciphertext the mask is computed from, and so the shortest
/// encrypted record accepted.
pub const MASK_SAMPLE_LEN: usize = 16;

enum SnAes {
    Aes128(Box<Aes128Enc>),
    Aes256(Box<Aes256Enc>),
}

/// The record-number cipher of one direction and epoch:
/// `Mask = AES-ECB(sn_key, Ciphertext[0..15])` for the AES-based AEADs.
pub struct SnCipher {
    aes: SnAes,
}

impl core::fmt::Debug for SnCipher {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SnCipher([redacted])")
    }
}

impl SnCipher {
    /// Bytes of the expanded AES key it holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        match self.aes {
            SnAes::Aes128(_) => core::mem::size_of::<Aes128Enc>(),
            SnAes::Aes256(_) => core::mem::size_of::<Aes256Enc>(),
        }
    }

    /// From `sn_key` (16 bytes for the AES-128 suites, 32 for AES-256);
    /// `None` for any other length.
    pub fn new(sn_key: &[u8]) -> Option<Self> {
        let aes = match sn_key.len() {
            16 => SnAes::Aes128(Box::new(Aes128Enc::new_from_slice(sn_key).ok()?)),
            32 => SnAes::Aes256(Box::new(Aes256Enc::new_from_slice(sn_key).ok()?)),
            _ => return None,
        };
        Some(SnCipher { aes })
    }

    /// The 16-byte mask for a record whose ciphertext starts with `sample`.
    pub fn mask(&self, sample: &[u8; MASK_SAMPLE_LEN], ops: &mut CryptoOps) -> [u8; 16] {
        let mut block = Block::<Aes128Enc>::from(*sample);
        match &self.aes {
            SnAes::Aes128(a) => {
                ops.aes_blocks += 1;
                a.encrypt_block(&mut block);
            }
            SnAes::Aes256(a) => {
                ops.aes256_blocks += 1;
                a.encrypt_block(&mut block);
            }
        }
        block.into()
    }

    /// XOR the sequence number field `seq` (1 or 2 bytes, in place) with the
    /// mask of `ciphertext`: encrypts a plain field and decrypts an
    /// encrypted one. Fails if the ciphertext is shorter than 16 bytes.
    pub fn apply(
        &self,
        seq: &mut [u8],
        ciphertext: &[u8],
        ops: &mut CryptoOps,
    ) -> Result<(), crate::error::v13::RecordError> {
        let sample: &[u8; MASK_SAMPLE_LEN] = ciphertext
            .get(..MASK_SAMPLE_LEN)
            .and_then(|s| s.try_into().ok())
            .ok_or(crate::error::v13::RecordError::CiphertextTooShort)?;
        let mask = self.mask(sample, ops);
        seq.iter_mut().zip(mask).for_each(|(b, m)| *b ^= m);
        Ok(())
    }
}

/// The full value whose low `bits` bits are `low`, numerically closest to
/// `expected` (RFC 9147 §4.2.2: closest to one plus the highest sequence
/// number deprotected so far in the epoch). Ties go to the lower value.
/// Never below 0 nor above `max`.
pub fn reconstruct(expected: u64, low: u64, bits: u32, max: u64) -> u64 {
    let window = 1u64 << bits;
    let low = low & (window - 1);
    let candidate = (expected & !(window - 1)) | low;
    let mut best = candidate;
    let distance = |v: u64| v.abs_diff(expected);
    if let Some(below) = candidate.checked_sub(window) {
        if distance(below) <= distance(best) {
            best = below;
        }
    }
    if let Some(above) = candidate.checked_add(window) {
        if above <= max && distance(above) < distance(best) {
            best = above;
        }
    }
    if best > max {
        // only possible when `candidate` itself lies beyond `max`
        best = candidate.saturating_sub(window);
    }
    best
}

/// Largest record sequence number of an epoch: 2^48 - 1 (RFC 9147 §4:
/// sequence numbers never exceed it, so DTLSPlaintext's 48 bits hold them).
pub const MAX_SEQ: u64 = (1 << 48) - 1;

/// The full sequence number of a record from its 8 or 16 wire bits, given
/// the highest sequence number deprotected so far in its epoch (`None`:
/// none yet, so the next expected is 0).
pub fn reconstruct_seq(highest: Option<u64>, low: u16, bits: u32) -> u64 {
    let expected = highest.map_or(0, |h| h.saturating_add(1));
    reconstruct(expected, u64::from(low), bits, MAX_SEQ)
}

/// The epoch a record belongs to from its two epoch bits: the most recent
/// epoch among those the receiver holds keys for whose low bits match
/// (RFC 9147 §4.2.2); `None` if none matches.
pub fn reconstruct_epoch(bits: u8, epochs_with_keys: impl IntoIterator<Item = u64>) -> Option<u64> {
    epochs_with_keys
        .into_iter()
        .filter(|e| e & 3 == u64::from(bits & 3))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reconstruction_across_8_and_16_bit_wraps() {
        // 8 bits: expected 0x1FE, record 0x01 is 0x201 (after the wrap)
        assert_eq!(reconstruct_seq(Some(0x1FD), 0x01, 8), 0x201);
        // a late record from before the wrap
        assert_eq!(reconstruct_seq(Some(0x202), 0xFF, 8), 0x1FF);
        // 16 bits, forward wrap and a late one
        assert_eq!(reconstruct_seq(Some(0x1_FFFE), 0x0003, 16), 0x2_0003);
        assert_eq!(reconstruct_seq(Some(0x2_0001), 0xFFF0, 16), 0x1_FFF0);
        // the first records of an epoch never go negative
        assert_eq!(reconstruct_seq(None, 0xFF, 8), 0xFF);
        assert_eq!(reconstruct_seq(None, 0x05, 8), 0x05);
        assert_eq!(reconstruct_seq(Some(3), 0x80, 8), 0x80);
        // at the top of the sequence space nothing beyond 2^48 - 1
        assert_eq!(reconstruct_seq(Some(MAX_SEQ - 1), 0x00, 8), MAX_SEQ - 0xFF);
        assert_eq!(reconstruct_seq(Some(MAX_SEQ - 1), 0xFF, 8), MAX_SEQ);
    }

    #[test]
    fn epoch_from_two_bits() {
        // during the handshake: epochs 0..3 are unambiguous
        assert_eq!(reconstruct_epoch(2, [0, 1, 2]), Some(2));
        assert_eq!(reconstruct_epoch(3, [0, 2]), None);
        // after KeyUpdates: the most recent matching epoch
        assert_eq!(reconstruct_epoch(1, [3, 4, 5]), Some(5));
        assert_eq!(reconstruct_epoch(0, [3, 4, 5]), Some(4));
    }

    /// The RFC 9147 §4.2.3 mask against AES-ECB computed by Python's
    /// `cryptography` (tests/vectors/dtls13_key_schedule.py, last line).
    #[test]
    fn mask_known_answer() {
        let sn_key = [
            0x79, 0x06, 0xb7, 0x18, 0x62, 0x0e, 0xd3, 0x72, 0xb2, 0x1e, 0x94, 0x0c, 0xa4, 0x44,
            0x36, 0x64,
        ];
        let c = SnCipher::new(&sn_key).unwrap();
        let sample: [u8; 16] = core::array::from_fn(|i| 0xA0 + i as u8);
        let mut ops = CryptoOps::default();
        assert_eq!(
            c.mask(&sample, &mut ops),
            [
                0xbf, 0xb0, 0x4e, 0x3d, 0x64, 0xbc, 0x59, 0x15, 0xdb, 0x44, 0xc4, 0xea, 0xdb, 0xd6,
                0xed, 0x06
            ]
        );
        assert_eq!(ops.aes_blocks, 1);
        let mut seq = [0x12, 0x34];
        c.apply(&mut seq, &sample, &mut ops).unwrap();
        assert_eq!(seq, [0x12 ^ 0xbf, 0x34 ^ 0xb0]);
        c.apply(&mut seq, &sample, &mut ops).unwrap();
        assert_eq!(seq, [0x12, 0x34]);
        assert!(c.apply(&mut seq, &sample[..15], &mut ops).is_err());
        assert!(SnCipher::new(&[0; 24]).is_none());
    }

    proptest! {
        /// Any record within half a window of the expected number is
        /// reconstructed exactly.
        #[test]
        fn reconstruct_within_half_window(seq in 0u64..(1 << 40), delta in -127i64..=128, wide: bool) {
            let bits = if wide { 16 } else { 8 };
            let scale = if wide { 256 } else { 1 };
            let expected = seq as i64 + delta * scale;
            prop_assume!(expected >= 1);
            let highest = Some(expected as u64 - 1);
            let low = (seq & ((1 << bits) - 1)) as u16;
            prop_assert_eq!(reconstruct_seq(highest, low, bits), seq);
        }
    }
}
