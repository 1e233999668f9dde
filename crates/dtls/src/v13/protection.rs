//! DTLS 1.3 record protection (RFC 9147 §4, RFC 8446 §5.2–5.4): the
//! DTLSInnerPlaintext (content, true content type, zero padding) sealed with
//! the suite's AEAD under the per-record nonce, the whole unified header as
//! additional data, then the header's sequence number encrypted with the
//! mask of the ciphertext.
//!
//! Nonce (RFC 8446 §5.3): the 64-bit record sequence number, left-padded
//! to 12 bytes, XORed with the write IV. DTLS 1.3 uses the sequence number
//! alone, without the epoch (RFC 9147 §4), since every epoch has its own
//! keys.

use super::header::{ContentType13, SeqLen, UnifiedHeader};
use super::key_schedule::TrafficKeys;
use super::record_number::{reconstruct_seq, SnCipher, MASK_SAMPLE_LEN};
use super::suite::CipherSuite13;
use crate::accounting::CryptoOps;
use crate::crypto::aead::AeadKey;
use crate::error::v13::RecordError;
use crate::replay::ReplayWindow;

/// Largest content of one record: 2^14 bytes (RFC 8446 §5.1).
pub const MAX_CONTENT: usize = 1 << 14;
/// Largest encrypted record: 2^14 + 256 bytes (RFC 8446 §5.2).
pub const MAX_CIPHERTEXT: usize = MAX_CONTENT + 256;

/// How this endpoint writes its unified headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderOptions {
    /// The connection ID the peer asked for, if any.
    pub cid: Option<Vec<u8>>,
    /// 8- or 16-bit sequence numbers.
    pub seq_len: SeqLen,
    /// Write the length field (required for every record but the last of a
    /// datagram, RFC 9147 §4).
    pub length_present: bool,
}

/// A record that deprotected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    /// Full reconstructed sequence number.
    pub seq: u64,
    /// The true content type from DTLSInnerPlaintext.
    pub content_type: ContentType13,
    /// The content, padding removed.
    pub content: Vec<u8>,
}

/// AEAD, write IV and record-number cipher of one direction and epoch.
#[derive(Debug)]
pub struct EpochKeys {
    epoch: u64,
    aead: AeadKey,
    iv: [u8; 12],
    sn: SnCipher,
    tag_len: usize,
}

impl EpochKeys {
    /// Bytes of the expanded keys (AEAD and record-number cipher) it holds
    /// on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.aead.heap_bytes() + self.sn.heap_bytes()
    }

    /// Install `keys` (from [`super::key_schedule::Hkdf13::traffic_keys`])
    /// for `epoch`.
    pub fn new(epoch: u64, suite: CipherSuite13, keys: &TrafficKeys, ops: &mut CryptoOps) -> Self {
        let aead = match keys.key().try_into() {
            Ok(k32) => AeadKey::aes256_gcm(k32, ops),
            Err(_) => {
                let k16: &[u8; 16] = keys
                    .key()
                    .try_into()
                    .expect("suites have 16- or 32-byte keys");
                AeadKey::new(suite.aead(), k16, ops)
            }
        };
        EpochKeys {
            epoch,
            aead,
            iv: keys.iv,
            sn: SnCipher::new(keys.sn_key()).expect("sn_key is as long as the AEAD key"),
            tag_len: suite.tag_len(),
        }
    }

    /// The epoch these keys protect.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Per-record nonce: write IV XOR the left-padded 64-bit sequence number.
    pub fn nonce(&self, seq: u64) -> [u8; 12] {
        let mut n = self.iv;
        n[4..]
            .iter_mut()
            .zip(seq.to_be_bytes())
            .for_each(|(a, b)| *a ^= b);
        n
    }

    /// Protect one record of `content_type` with sequence number `seq`,
    /// padded with `padding` zero bytes (more if the ciphertext would be
    /// shorter than the 16 bytes the record-number mask needs, RFC 9147
    /// §4.2.3), and append it, header first, to `out`.
    #[allow(clippy::too_many_arguments)]
    pub fn seal(
        &self,
        seq: u64,
        content_type: ContentType13,
        content: &[u8],
        padding: usize,
        opts: &HeaderOptions,
        out: &mut Vec<u8>,
        ops: &mut CryptoOps,
    ) -> Result<(), RecordError> {
        if content.len() > MAX_CONTENT {
            return Err(RecordError::RecordOverflow);
        }
        let short = MASK_SAMPLE_LEN.saturating_sub(content.len() + 1 + padding + self.tag_len);
        let padding = padding + short;
        let ciphertext_len = content.len() + 1 + padding + self.tag_len;
        if ciphertext_len > MAX_CIPHERTEXT {
            return Err(RecordError::RecordOverflow);
        }
        let mut inner = Vec::with_capacity(content.len() + 1 + padding);
        inner.extend_from_slice(content);
        inner.push(content_type.to_u8());
        inner.resize(inner.len() + padding, 0);

        let header = UnifiedHeader {
            epoch_bits: (self.epoch & 3) as u8,
            cid: opts.cid.clone(),
            seq_len: opts.seq_len,
            seq_bits: (seq & 0xFFFF) as u16,
            length: opts.length_present.then_some(ciphertext_len as u16),
        };
        let start = out.len();
        header.emit(out);
        let aad = out[start..].to_vec();
        let body = out.len();
        self.aead.seal(&self.nonce(seq), &aad, &inner, out, ops);
        let (head, ciphertext) = out.split_at_mut(body);
        let seq_at = start + header.seq_offset();
        self.sn.apply(
            &mut head[seq_at..seq_at + opts.seq_len.bytes()],
            ciphertext,
            ops,
        )
    }

    /// Deprotect one record: decrypt its sequence number, reconstruct it
    /// around `highest` (the highest sequence number deprotected so far in
    /// this epoch), authenticate and decrypt, strip the padding.
    pub fn open(
        &self,
        header: &UnifiedHeader,
        header_bytes: &[u8],
        body: &[u8],
        highest: Option<u64>,
        ops: &mut CryptoOps,
    ) -> Result<Opened, RecordError> {
        if body.len() < MASK_SAMPLE_LEN {
            return Err(RecordError::CiphertextTooShort);
        }
        if body.len() > MAX_CIPHERTEXT {
            return Err(RecordError::RecordOverflow);
        }
        let mut aad = header_bytes.to_vec();
        let seq_at = header.seq_offset();
        let seq_field = aad
            .get_mut(seq_at..seq_at + header.seq_len.bytes())
            .ok_or(RecordError::TruncatedHeader)?;
        self.sn.apply(seq_field, body, ops)?;
        let low = seq_field.iter().fold(0u16, |a, &b| (a << 8) | u16::from(b));
        let seq = reconstruct_seq(highest, low, header.seq_len.bits());
        let mut inner = self
            .aead
            .open(&self.nonce(seq), &aad, body, ops)
            .ok_or(RecordError::Authentication)?;
        let type_at = inner
            .iter()
            .rposition(|&b| b != 0)
            .ok_or(RecordError::NoContentType)?;
        let ct = inner[type_at];
        let content_type = ContentType13::from_u8(ct).ok_or(RecordError::BadContentType(ct))?;
        inner.truncate(type_at);
        if inner.len() > MAX_CONTENT {
            return Err(RecordError::RecordOverflow);
        }
        Ok(Opened {
            seq,
            content_type,
            content: inner,
        })
    }
}

/// The receiving side of one epoch: its keys and its replay window (one
/// window per epoch, RFC 9147 §4.5.1).
#[derive(Debug)]
pub struct ReceiveEpoch {
    keys: EpochKeys,
    window: ReplayWindow,
    /// Records that failed authentication under these keys (RFC 9147
    /// §4.5.3: "count the number of received packets that fail
    /// authentication with each key").
    failed: u64,
}

impl ReceiveEpoch {
    /// A fresh epoch: nothing received yet.
    pub fn new(keys: EpochKeys) -> Self {
        ReceiveEpoch {
            keys,
            window: ReplayWindow::new(),
            failed: 0,
        }
    }

    /// Records that failed authentication under these keys so far.
    pub fn failed(&self) -> u64 {
        self.failed
    }

    /// The epoch.
    pub fn epoch(&self) -> u64 {
        self.keys.epoch()
    }

    /// Bytes of the expanded keys it holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.keys.heap_bytes()
    }

    /// The highest record number authenticated so far in this epoch.
    pub fn highest(&self) -> Option<u64> {
        self.window.highest()
    }

    /// Deprotect a record, then refuse it if it is a replay; the window
    /// moves only for records that authenticated (RFC 9147 §4.5.1).
    pub fn open(
        &mut self,
        header: &UnifiedHeader,
        header_bytes: &[u8],
        body: &[u8],
        ops: &mut CryptoOps,
    ) -> Result<Opened, RecordError> {
        let opened = self
            .keys
            .open(header, header_bytes, body, self.window.highest(), ops)
            .inspect_err(|e| {
                if *e == RecordError::Authentication {
                    self.failed += 1;
                }
            })?;
        if !self.window.check(opened.seq) {
            return Err(RecordError::Replay);
        }
        self.window.mark(opened.seq);
        Ok(opened)
    }
}
