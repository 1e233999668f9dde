//! DTLS 1.2 record protection (RFC 6347 §4.1.2.1 over RFC 5246 §6.2.3).
//!
//! AEAD (RFC 5288 / RFC 6655 nonce layout): nonce = 4-byte implicit salt ||
//! 8-byte explicit nonce (epoch || seq), AAD = epoch || seq || type ||
//! version || plaintext length.
//!
//! CBC (RFC 5246 §6.2.3.2): fragment = IV (16 bytes, fresh and unpredictable
//! per record) || AES-CBC(plaintext || MAC || padding || padding_length),
//! MAC = HMAC(MAC key, epoch || seq || type || version || plaintext length
//! || plaintext), minimal padding. Received records whose padding or MAC is
//! wrong take the same path (the MAC is computed either way) and are
//! refused alike.
//!
//! A tls12_cid record (RFC 9146 §5) carries the CID in its header, and its
//! AAD (or the start of its MAC input) becomes seq_num_placeholder (8 ×
//! 0xFF) || tls12_cid || cid_length || tls12_cid || version || epoch ||
//! seq || cid || length of the DTLSInnerPlaintext.

use crate::error::InternalError;
use core::fmt;

use rand_chacha::ChaCha20Rng;
use rand_core::Rng;

use super::header::{ContentType, RecordHeader, RECORD_HEADER_LEN};
use crate::accounting::CryptoOps;
use crate::crypto::aead::AeadKey;
use crate::crypto::cbc::{ct_eq, hmac, CbcKey, BLOCK_LEN};
use crate::crypto::suite::{AeadKind, MacAlgorithm, RecordProtection};
use crate::error::Error;

/// Keys of a CBC direction.
struct CbcKeys {
    mac: MacAlgorithm,
    mac_key: [u8; 32],
    key: CbcKey,
    /// Sending side: the generator of the explicit IVs.
    iv_rng: Option<Box<ChaCha20Rng>>,
}

impl Drop for CbcKeys {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.mac_key);
    }
}

enum Inner {
    Aead(AeadKey),
    Cbc(Box<CbcKeys>),
}

/// Keys protecting one direction of one epoch.
pub struct RecordKeys {
    inner: Inner,
    /// AEAD: the implicit part of the nonce (unused for CBC).
    salt: [u8; 4],
}

impl Drop for RecordKeys {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.salt);
    }
}

// The AES schedules wipe themselves (the `zeroize` feature of aes and
// aes-gcm), the MAC keys and salt above.
impl zeroize::ZeroizeOnDrop for RecordKeys {}

impl fmt::Debug for RecordKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RecordKeys({:?}, [redacted])", self.protection())
    }
}

impl RecordKeys {
    /// Install an AEAD's 16-byte key and 4-byte salt.
    pub fn new(kind: AeadKind, key: &[u8; 16], salt: [u8; 4], ops: &mut CryptoOps) -> Self {
        RecordKeys {
            inner: Inner::Aead(AeadKey::new(kind, key, ops)),
            salt,
        }
    }

    /// Install the sending side of a CBC suite: `iv_rng` draws the explicit
    /// IV of every record (seed it from the caller's RNG).
    pub fn cbc_sender(
        mac: MacAlgorithm,
        key: &[u8; 16],
        mac_key: &[u8],
        iv_rng: ChaCha20Rng,
    ) -> Self {
        Self::cbc(mac, CbcKey::encryptor(key), mac_key, Some(Box::new(iv_rng)))
    }

    /// Install the receiving side of a CBC suite.
    pub fn cbc_receiver(mac: MacAlgorithm, key: &[u8; 16], mac_key: &[u8]) -> Self {
        Self::cbc(mac, CbcKey::decryptor(key), mac_key, None)
    }

    fn cbc(
        mac: MacAlgorithm,
        key: CbcKey,
        mac_key: &[u8],
        iv_rng: Option<Box<ChaCha20Rng>>,
    ) -> Self {
        let mut k = [0u8; 32];
        let n = mac_key.len().min(mac.mac_len());
        k[..n].copy_from_slice(&mac_key[..n]);
        RecordKeys {
            inner: Inner::Cbc(Box::new(CbcKeys {
                mac,
                mac_key: k,
                key,
                iv_rng,
            })),
            salt: [0; 4],
        }
    }

    /// Heap bytes held by the keys (expanded key schedule; for CBC also the
    /// MAC key and the IV generator).
    pub fn heap_bytes(&self) -> usize {
        match &self.inner {
            Inner::Aead(key) => key.heap_bytes(),
            Inner::Cbc(c) => {
                core::mem::size_of::<CbcKeys>()
                    + c.key.heap_bytes()
                    + c.iv_rng
                        .as_ref()
                        .map_or(0, |_| core::mem::size_of::<ChaCha20Rng>())
            }
        }
    }

    /// The protection.
    pub fn protection(&self) -> RecordProtection {
        match &self.inner {
            Inner::Aead(key) => RecordProtection::Aead(key.kind()),
            Inner::Cbc(c) => RecordProtection::Cbc(c.mac),
        }
    }

    /// 13 bytes: epoch || seq || type || version || plaintext length (the
    /// AEAD's AAD, the start of the CBC MAC input).
    fn pseudo_header(h: &RecordHeader, plain_len: usize) -> [u8; 13] {
        let mut aad = [0u8; 13];
        aad[..8].copy_from_slice(&h.epoch_seq().to_be_bytes());
        aad[8] = h.content_type.to_u8();
        aad[9..11].copy_from_slice(&h.version.to_be_bytes());
        aad[11..].copy_from_slice(&(plain_len as u16).to_be_bytes());
        aad
    }

    /// The additional data of a record: the 13-byte pseudo-header, or with
    /// a CID the RFC 9146 §5 form (`plain_len` is then the length of the
    /// DTLSInnerPlaintext).
    fn additional_data(h: &RecordHeader, cid: &[u8], plain_len: usize) -> Vec<u8> {
        if cid.is_empty() {
            return Self::pseudo_header(h, plain_len).to_vec();
        }
        let tls12_cid = ContentType::Tls12Cid.to_u8();
        let mut aad = Vec::with_capacity(23 + cid.len());
        aad.extend_from_slice(&[0xFF; 8]); // seq_num_placeholder
        aad.extend_from_slice(&[tls12_cid, cid.len() as u8, tls12_cid]);
        aad.extend_from_slice(&h.version.to_be_bytes());
        aad.extend_from_slice(&h.epoch_seq().to_be_bytes());
        aad.extend_from_slice(cid);
        aad.extend_from_slice(&(plain_len as u16).to_be_bytes());
        aad
    }

    fn nonce(salt: &[u8; 4], explicit: &[u8; 8]) -> [u8; 12] {
        let mut nonce = [0u8; 12];
        nonce[..4].copy_from_slice(salt);
        nonce[4..].copy_from_slice(explicit);
        nonce
    }

    /// Append a protected record (header, explicit nonce or IV, ciphertext,
    /// tag or MAC and padding). `header.length` is ignored (computed).
    /// Fails only on CBC keys installed for receiving.
    pub fn seal(
        &mut self,
        header: RecordHeader,
        plaintext: &[u8],
        out: &mut Vec<u8>,
        ops: &mut CryptoOps,
    ) -> Result<(), Error> {
        self.seal_with_cid(header, &[], plaintext, out, ops)
    }

    /// [`RecordKeys::seal`] of a tls12_cid record carrying `cid` (empty:
    /// an ordinary record); `plaintext` is then the DTLSInnerPlaintext.
    pub fn seal_with_cid(
        &mut self,
        header: RecordHeader,
        cid: &[u8],
        plaintext: &[u8],
        out: &mut Vec<u8>,
        ops: &mut CryptoOps,
    ) -> Result<(), Error> {
        let h = RecordHeader {
            length: (plaintext.len() + self.protection().overhead(plaintext.len())) as u16,
            ..header
        };
        let aad = Self::additional_data(&h, cid, plaintext.len());
        match &mut self.inner {
            Inner::Aead(key) => {
                let explicit = h.epoch_seq().to_be_bytes();
                h.emit_with_cid(cid, out);
                out.extend_from_slice(&explicit);
                key.seal(
                    &Self::nonce(&self.salt, &explicit),
                    &aad,
                    plaintext,
                    out,
                    ops,
                );
            }
            Inner::Cbc(c) => {
                let rng = c
                    .iv_rng
                    .as_mut()
                    .ok_or(Error::Internal(InternalError::CbcKeysForReceiving))?;
                let mut iv = [0u8; BLOCK_LEN];
                rng.fill_bytes(&mut iv);
                let mac_len = c.mac.mac_len();
                let mac = hmac(c.mac, &c.mac_key[..mac_len], &[&aad, plaintext], ops);
                let mut body = Vec::with_capacity(usize::from(h.length) - BLOCK_LEN);
                body.extend_from_slice(plaintext);
                body.extend_from_slice(&mac[..mac_len]);
                let pad = BLOCK_LEN - body.len() % BLOCK_LEN; // 1..=16, length byte included
                body.resize(body.len() + pad, (pad - 1) as u8);
                if !c.key.encrypt(&iv, &mut body, ops) {
                    return Err(Error::Internal(InternalError::CbcEncryption));
                }
                h.emit_with_cid(cid, out);
                out.extend_from_slice(&iv);
                out.extend_from_slice(&body);
            }
        }
        Ok(())
    }

    /// Authenticate and decrypt a record fragment. `None` if it does not
    /// authenticate (the caller drops the record).
    pub fn open(&self, h: &RecordHeader, fragment: &[u8], ops: &mut CryptoOps) -> Option<Vec<u8>> {
        self.open_with_cid(h, &[], fragment, ops)
    }

    /// [`RecordKeys::open`] of a tls12_cid record that carried `cid`; the
    /// result is the DTLSInnerPlaintext.
    pub fn open_with_cid(
        &self,
        h: &RecordHeader,
        cid: &[u8],
        fragment: &[u8],
        ops: &mut CryptoOps,
    ) -> Option<Vec<u8>> {
        match &self.inner {
            Inner::Aead(key) => {
                let overhead = key.kind().overhead();
                if fragment.len() < overhead {
                    return None;
                }
                let plain_len = fragment.len() - overhead;
                let aad = Self::additional_data(h, cid, plain_len);
                let explicit: [u8; 8] = fragment[..8].try_into().ok()?;
                key.open(
                    &Self::nonce(&self.salt, &explicit),
                    &aad,
                    &fragment[8..],
                    ops,
                )
            }
            Inner::Cbc(c) => Self::open_cbc(c, h, cid, fragment, ops),
        }
    }

    fn open_cbc(
        c: &CbcKeys,
        h: &RecordHeader,
        cid: &[u8],
        fragment: &[u8],
        ops: &mut CryptoOps,
    ) -> Option<Vec<u8>> {
        let mac_len = c.mac.mac_len();
        // Public length checks: whole blocks after the IV, room for the MAC
        // and the padding length byte.
        let (iv, ct) = fragment.split_at_checked(BLOCK_LEN)?;
        if ct.len() % BLOCK_LEN != 0 || ct.len() < mac_len + 1 {
            return None;
        }
        let iv: [u8; BLOCK_LEN] = iv.try_into().ok()?;
        let mut buf = ct.to_vec();
        if !c.key.decrypt(&iv, &mut buf, ops) {
            return None;
        }
        let n = buf.len();
        // Padding check over the last min(256, n) bytes whatever the
        // padding length byte says (no early exit).
        let pad = usize::from(buf[n - 1]);
        let fits = pad + 1 + mac_len <= n;
        let mut bad = u8::from(!fits);
        for i in 1..=n.min(256) {
            let in_padding = u8::from(i <= pad + 1);
            bad |= in_padding & u8::from(buf[n - i] != buf[n - 1]);
        }
        let pad_ok = bad == 0;
        // With bad padding, go on as if the padding were the length byte
        // alone: the MAC is computed anyway, over the longest plaintext.
        let pad_total = usize::from(pad_ok) * (pad + 1) + usize::from(!pad_ok);
        let plain_len = n - mac_len - pad_total;
        let aad = Self::additional_data(h, cid, plain_len);
        let expected = hmac(
            c.mac,
            &c.mac_key[..mac_len],
            &[&aad, &buf[..plain_len]],
            ops,
        );
        let mac_ok = ct_eq(&expected[..mac_len], &buf[plain_len..plain_len + mac_len]);
        if (mac_ok & u8::from(pad_ok).wrapping_neg()) != 0xFF {
            return None;
        }
        buf.truncate(plain_len);
        Some(buf)
    }
}

/// Size of a record carrying `plain` bytes under `protection` (None:
/// epoch 0, plaintext).
pub fn record_len(protection: Option<RecordProtection>, plain: usize) -> usize {
    RECORD_HEADER_LEN + plain + protection.map_or(0, |p| p.overhead(plain))
}

/// Largest plaintext a record under `protection` can carry within a
/// datagram of `datagram` bytes (the record alone in it).
pub fn max_plaintext(protection: Option<RecordProtection>, datagram: usize) -> usize {
    let budget = datagram.saturating_sub(RECORD_HEADER_LEN);
    protection.map_or(budget, |p| p.max_plaintext(budget))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v12::record::header::{split_datagram, split_datagram_cid, DTLS1_2};

    #[test]
    fn seal_open_roundtrip_and_tamper() {
        for kind in [AeadKind::Ccm8, AeadKind::Gcm] {
            let mut ops = CryptoOps::default();
            let mut k = RecordKeys::new(kind, &[7u8; 16], [1, 2, 3, 4], &mut ops);
            let mut out = Vec::new();
            let h = RecordHeader {
                content_type: ContentType::ApplicationData,
                version: DTLS1_2,
                epoch: 1,
                seq: 42,
                length: 0,
            };
            k.seal(h, b"hello", &mut out, &mut ops).unwrap();
            assert_eq!(out.len(), record_len(Some(RecordProtection::Aead(kind)), 5));
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

    /// RFC 9146 §5.2: the AAD of a tls12_cid record, byte by byte, and a
    /// round trip that the CID authenticates (AEAD and CBC).
    #[test]
    fn tls12_cid_additional_data_and_roundtrip() {
        let h = RecordHeader {
            content_type: ContentType::Tls12Cid,
            version: DTLS1_2,
            epoch: 1,
            seq: 0x0102_0304_0506,
            length: 0,
        };
        let aad = RecordKeys::additional_data(&h, &[0xAA, 0xBB], 7);
        let expected = [
            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, // seq_num_placeholder
            25, 2, 25, // tls12_cid, cid_length, tls12_cid
            0xFE, 0xFD, // version
            0, 1, 1, 2, 3, 4, 5, 6, // epoch, sequence_number
            0xAA, 0xBB, // cid
            0, 7, // length_of_DTLSInnerPlaintext
        ];
        assert_eq!(aad, expected);
        let inner = b"hello\x17"; // content || real type (application_data)
        let (mut cbc_tx, cbc_rx) = cbc_pair(MacAlgorithm::HmacSha256, 5);
        let mut ops = CryptoOps::default();
        let mut aead = RecordKeys::new(AeadKind::Ccm8, &[7u8; 16], [1, 2, 3, 4], &mut ops);
        for (tx, rx) in [
            (&mut cbc_tx, &cbc_rx),
            (
                &mut aead,
                &RecordKeys::new(AeadKind::Ccm8, &[7u8; 16], [1, 2, 3, 4], &mut ops),
            ),
        ] {
            let mut out = Vec::new();
            tx.seal_with_cid(h, &[0xAA, 0xBB], inner, &mut out, &mut ops)
                .unwrap();
            assert_eq!(out[0], 25);
            assert_eq!(out[11..13], [0xAA, 0xBB]);
            let (recs, bad) = split_datagram_cid(&out, &[0xAA, 0xBB]);
            assert!(!bad);
            let (rh, frag) = &recs[0];
            let opened = rx.open_with_cid(rh, &[0xAA, 0xBB], frag, &mut ops);
            assert_eq!(opened.as_deref(), Some(&inner[..]));
            // the CID is authenticated
            assert!(rx
                .open_with_cid(rh, &[0xAA, 0xBC], frag, &mut ops)
                .is_none());
            assert!(rx.open(rh, frag, &mut ops).is_none());
            // a receiver expecting another CID, or none, refuses the record
            assert!(split_datagram_cid(&out, &[0xAA, 0xBC]).0.is_empty());
            assert!(split_datagram(&out).0.is_empty());
        }
    }

    fn app_header(seq: u64) -> RecordHeader {
        RecordHeader {
            content_type: ContentType::ApplicationData,
            version: DTLS1_2,
            epoch: 1,
            seq,
            length: 0,
        }
    }

    fn cbc_pair(mac: MacAlgorithm, seed: u64) -> (RecordKeys, RecordKeys) {
        use rand_core::SeedableRng;
        let mac_key = [9u8; 32];
        (
            RecordKeys::cbc_sender(
                mac,
                &[7u8; 16],
                &mac_key[..mac.mac_len()],
                ChaCha20Rng::seed_from_u64(seed),
            ),
            RecordKeys::cbc_receiver(mac, &[7u8; 16], &mac_key[..mac.mac_len()]),
        )
    }

    /// Every plaintext length 0..=64 round-trips with the exact record
    /// length 13 + 16 + MAC + minimal padding, and the accounting matches.
    #[test]
    fn cbc_roundtrip_every_length() {
        for mac in [MacAlgorithm::HmacSha1, MacAlgorithm::HmacSha256] {
            let (mut tx, rx) = cbc_pair(mac, 1);
            let m = mac.mac_len();
            for n in 0..=64usize {
                let plain: Vec<u8> = (0..n as u8).collect();
                let mut ops = CryptoOps::default();
                let mut out = Vec::new();
                tx.seal(app_header(n as u64), &plain, &mut out, &mut ops)
                    .unwrap();
                let pad = 16 - (n + m) % 16;
                assert_eq!(out.len(), 13 + 16 + n + m + pad, "n = {n}");
                assert_eq!(out.len(), record_len(Some(RecordProtection::Cbc(mac)), n));
                assert_eq!((out.len() - 13 - 16) % 16, 0);
                let hmac_cost = 1 + (13 + n as u64 + 9).div_ceil(64) + 2;
                let blocks = ((n + m + pad) / 16) as u64;
                let sha = match mac {
                    MacAlgorithm::HmacSha1 => ops.sha1_compressions,
                    MacAlgorithm::HmacSha256 => ops.sha256_compressions,
                };
                assert_eq!((ops.aes_blocks, sha), (blocks, hmac_cost));
                let (recs, _) = split_datagram(&out);
                let (h, frag) = &recs[0];
                let mut ops = CryptoOps::default();
                assert_eq!(rx.open(h, frag, &mut ops).as_deref(), Some(&plain[..]));
                let sha = ops.sha1_compressions + ops.sha256_compressions;
                assert_eq!((ops.aes_blocks, sha), (blocks, hmac_cost));
                // the wrong direction refuses
                assert!(tx.open(h, frag, &mut ops).is_none());
            }
        }
    }

    /// The CBC variant does not make the AEAD keys (and so the connection
    /// state of the AEAD suites) any larger.
    #[test]
    fn record_keys_stay_small() {
        assert_eq!(core::mem::size_of::<RecordKeys>(), 24);
        assert_eq!(core::mem::size_of::<Option<RecordKeys>>(), 24);
    }

    #[test]
    fn cbc_ivs_are_fresh_and_receiver_cannot_seal() {
        let (mut tx, mut rx) = cbc_pair(MacAlgorithm::HmacSha1, 2);
        let mut ops = CryptoOps::default();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        tx.seal(app_header(1), b"same", &mut a, &mut ops).unwrap();
        tx.seal(app_header(1), b"same", &mut b, &mut ops).unwrap();
        assert_ne!(a[13..29], b[13..29], "IV reused");
        assert_ne!(a[29..], b[29..]);
        assert!(rx.seal(app_header(1), b"x", &mut a, &mut ops).is_err());
        // seeded: the same seed gives the same IVs
        let (mut tx2, _) = cbc_pair(MacAlgorithm::HmacSha1, 2);
        let mut c = Vec::new();
        tx2.seal(app_header(1), b"same", &mut c, &mut ops).unwrap();
        assert_eq!(a, c);
    }

    /// A fragment built by hand: plaintext || MAC (possibly wrong) ||
    /// padding as given, encrypted under the test key.
    fn handmade(
        mac: MacAlgorithm,
        h: &RecordHeader,
        plain: &[u8],
        mac_ok: bool,
        padding: &[u8],
    ) -> Vec<u8> {
        let mut ops = CryptoOps::default();
        let mac_key = [9u8; 32];
        let aad = RecordKeys::pseudo_header(h, plain.len());
        let mut tag = hmac(mac, &mac_key[..mac.mac_len()], &[&aad, plain], &mut ops);
        if !mac_ok {
            tag[3] ^= 0x10;
        }
        let mut body = plain.to_vec();
        body.extend_from_slice(&tag[..mac.mac_len()]);
        body.extend_from_slice(padding);
        let iv = [0x5Au8; 16];
        assert!(CbcKey::encryptor(&[7u8; 16]).encrypt(&iv, &mut body, &mut ops));
        let mut frag = iv.to_vec();
        frag.extend_from_slice(&body);
        frag
    }

    /// Bad padding and bad MAC are refused alike, and both compute the MAC;
    /// longer-than-minimal valid padding is accepted (RFC 5246 allows up to
    /// 255 bytes).
    #[test]
    fn cbc_padding_and_mac_checks() {
        let mac = MacAlgorithm::HmacSha1;
        let (_, rx) = cbc_pair(mac, 3);
        let h = app_header(7);
        let plain = [0x42u8; 11]; // 11 + 20 = 31: minimal padding 1 byte
        let open = |frag: &[u8]| {
            let mut ops = CryptoOps::default();
            let r = rx.open(&h, frag, &mut ops);
            (r, ops.sha1_compressions)
        };
        let (ok, cost_ok) = open(&handmade(mac, &h, &plain, true, &[0]));
        assert_eq!(ok.as_deref(), Some(&plain[..]));
        // 17 padding bytes of value 16: valid, not minimal
        let (long, _) = open(&handmade(mac, &h, &plain, true, &[16; 17]));
        assert_eq!(long.as_deref(), Some(&plain[..]));
        // wrong MAC, right padding
        let (r, cost_bad_mac) = open(&handmade(mac, &h, &plain, false, &[0]));
        assert!(r.is_none());
        // right MAC, padding bytes that disagree with the length byte
        let mut bad_pad = [16u8; 17];
        bad_pad[6] = 2;
        let (r, cost_bad_pad) = open(&handmade(mac, &h, &plain, true, &bad_pad));
        assert!(r.is_none());
        // padding length larger than the record
        let (r, cost_huge) = open(&handmade(mac, &h, &plain, true, &[0xFF; 17]));
        assert!(r.is_none());
        // the MAC was computed in every case
        for c in [cost_ok, cost_bad_mac, cost_bad_pad, cost_huge] {
            assert!(c >= 4, "{c}");
        }
        assert_eq!(cost_ok, cost_bad_mac);
        // truncated or misaligned fragments
        let good = handmade(mac, &h, &plain, true, &[0]);
        for cut in [0, 15, 16, 17, 31, 32, good.len() - 1] {
            assert!(open(&good[..cut]).0.is_none(), "cut {cut}");
        }
        // header fields are authenticated
        let mut h2 = h;
        h2.seq += 1;
        assert!(rx.open(&h2, &good, &mut CryptoOps::default()).is_none());
        let mut h3 = h;
        h3.content_type = ContentType::Handshake;
        assert!(rx.open(&h3, &good, &mut CryptoOps::default()).is_none());
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
