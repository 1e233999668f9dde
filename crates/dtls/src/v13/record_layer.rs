//! The record layer of one DTLS 1.3 connection: plaintext epoch 0 and the
//! protected epochs (2: handshake, 3: application data), one write sequence
//! counter and one replay window per epoch (RFC 9147 §4.5.1).

use super::ack::RecordNumber;
use super::header::{
    ContentType13, Header13, HeaderForm, PlaintextHeader, RecordView, LEGACY_RECORD_VERSION,
    PLAINTEXT_HEADER_LEN,
};
use super::protection::{EpochKeys, HeaderOptions, ReceiveEpoch};
use super::record_number::{reconstruct_epoch, MASK_SAMPLE_LEN, MAX_SEQ};
use crate::accounting::CryptoOps;
use crate::error::v13::RecordError;
use crate::replay::ReplayWindow;

#[derive(Debug)]
struct WriteEpoch {
    epoch: u64,
    /// None for epoch 0 (plaintext).
    keys: Option<EpochKeys>,
    next_seq: u64,
}

/// One received record, authenticated (or plaintext epoch 0).
#[derive(Debug)]
pub(crate) struct Received {
    pub number: RecordNumber,
    pub content_type: ContentType13,
    pub content: Vec<u8>,
    /// Protected and newer than every record authenticated before in the
    /// newest epoch: what may move a peer's address (RFC 9146 §6, RFC 9147
    /// §9).
    pub newest: bool,
}

#[derive(Debug)]
pub(crate) struct RecordLayer {
    write: Vec<WriteEpoch>,
    read0: ReplayWindow,
    read: Vec<ReceiveEpoch>,
    /// The connection ID the peer asked for, if any.
    cid: Option<Vec<u8>>,
    form: HeaderForm,
    tag_len: usize,
    /// Length of the connection ID the peer puts in records to us.
    receive_cid_len: usize,
    /// The epoch of the last record that failed authentication, and how
    /// many have failed under its keys.
    last_failure: Option<(u64, u64)>,
}

impl RecordLayer {
    /// Protected records get headers of `form`; `cid` is the peer's
    /// connection ID, if any.
    pub fn new(form: HeaderForm, cid: Option<Vec<u8>>, receive_cid_len: usize) -> Self {
        RecordLayer {
            write: vec![WriteEpoch {
                epoch: 0,
                keys: None,
                next_seq: 0,
            }],
            read0: ReplayWindow::new(),
            read: Vec::new(),
            cid,
            form,
            tag_len: 0,
            receive_cid_len,
            last_failure: None,
        }
    }

    /// The connection IDs just negotiated: the peer's goes into every
    /// protected record from now on, and received ones carry ours (an
    /// empty one is not sent: the C bit stays clear).
    pub fn set_cids(&mut self, send: Vec<u8>, receive_len: usize) {
        self.cid = (!send.is_empty()).then_some(send);
        self.receive_cid_len = receive_len;
    }

    /// Bytes it holds on the heap: one entry and the expanded keys per
    /// epoch, and the peer's connection ID.
    pub fn heap_bytes(&self) -> usize {
        self.write.capacity() * core::mem::size_of::<WriteEpoch>()
            + self
                .write
                .iter()
                .filter_map(|w| w.keys.as_ref())
                .map(EpochKeys::heap_bytes)
                .sum::<usize>()
            + self.read.capacity() * core::mem::size_of::<ReceiveEpoch>()
            + self
                .read
                .iter()
                .map(ReceiveEpoch::heap_bytes)
                .sum::<usize>()
            + self.cid.as_ref().map_or(0, Vec::capacity)
    }

    /// Continue the plaintext epoch's record numbers from `seq`.
    pub fn start_plaintext_at(&mut self, seq: u64) {
        if let Some(w) = self.write.iter_mut().find(|w| w.epoch == 0) {
            w.next_seq = seq;
        }
    }

    pub fn install_write(&mut self, keys: EpochKeys, tag_len: usize) {
        self.tag_len = tag_len;
        self.write.push(WriteEpoch {
            epoch: keys.epoch(),
            keys: Some(keys),
            next_seq: 0,
        });
    }

    pub fn install_read(&mut self, keys: EpochKeys) {
        self.read.push(ReceiveEpoch::new(keys));
    }

    /// Records written so far in `epoch`.
    pub fn written(&self, epoch: u64) -> u64 {
        self.write
            .iter()
            .find(|w| w.epoch == epoch)
            .map_or(0, |w| w.next_seq)
    }

    /// Forget the sending keys of application epochs below `epoch` (after
    /// a KeyUpdate, RFC 9147 §8, the old epoch is done with). The
    /// handshake epoch (2) stays: a lost Finished may still be resent in it.
    pub fn retire_write_before(&mut self, epoch: u64) {
        self.write.retain(|w| w.epoch < 3 || w.epoch >= epoch);
    }

    /// Forget the receiving keys of application epochs below `epoch` (a
    /// receiver keeps the epoch before the newest, for records reordered
    /// across the peer's KeyUpdate).
    pub fn retire_read_before(&mut self, epoch: u64) {
        self.read.retain(|r| r.epoch() < 3 || r.epoch() >= epoch);
    }

    /// The epoch whose keys a record just failed to authenticate under,
    /// and how many records have failed under them (taken once).
    pub fn take_failure(&mut self) -> Option<(u64, u64)> {
        self.last_failure.take()
    }

    /// Drop the receiving keys of `epoch` (those of an epoch a key update
    /// has replaced, at its integrity limit: RFC 9147 §4.5.3).
    pub fn drop_read_epoch(&mut self, epoch: u64) {
        self.read.retain(|r| r.epoch() != epoch);
    }

    /// The newest epoch this side can read.
    pub fn read_epoch(&self) -> u64 {
        self.read.iter().map(ReceiveEpoch::epoch).max().unwrap_or(0)
    }

    /// The newest epoch this side can write in.
    pub fn write_epoch(&self) -> u64 {
        self.write.iter().map(|w| w.epoch).max().unwrap_or(0)
    }

    /// Bytes a record of `content_len` bytes takes on the wire in `epoch`,
    /// as the last record of its datagram or followed by another.
    pub fn record_len(&self, epoch: u64, content_len: usize, last_in_datagram: bool) -> usize {
        if epoch == 0 {
            return PLAINTEXT_HEADER_LEN + content_len;
        }
        let header = 1
            + self.cid.as_ref().map_or(0, Vec::len)
            + self.form.seq_len.bytes()
            + if self.form.length_present(last_in_datagram) {
                2
            } else {
                0
            };
        // content, inner content type, tag; padded so the record-number
        // mask has its 16-byte sample (RFC 9147 §4.2.3)
        header + (content_len + 1 + self.tag_len).max(MASK_SAMPLE_LEN)
    }

    /// Append one record of `content` in `epoch`, as the last record of
    /// its datagram or followed by another; its record number.
    pub fn seal(
        &mut self,
        epoch: u64,
        content_type: ContentType13,
        content: &[u8],
        last_in_datagram: bool,
        out: &mut Vec<u8>,
        ops: &mut CryptoOps,
    ) -> Result<RecordNumber, RecordError> {
        let header = HeaderOptions {
            cid: self.cid.clone(),
            seq_len: self.form.seq_len,
            length_present: self.form.length_present(last_in_datagram),
        };
        let w = self
            .write
            .iter_mut()
            .find(|w| w.epoch == epoch)
            .ok_or(RecordError::UnknownEpoch)?;
        let seq = w.next_seq;
        if seq > MAX_SEQ {
            return Err(RecordError::RecordOverflow);
        }
        match &w.keys {
            None => {
                if !content_type.allowed_in_plaintext() || content.len() > u16::MAX as usize {
                    return Err(RecordError::BadContentType(content_type.to_u8()));
                }
                PlaintextHeader {
                    content_type,
                    version: LEGACY_RECORD_VERSION,
                    epoch: 0,
                    seq,
                    length: content.len() as u16,
                }
                .emit(out);
                out.extend_from_slice(content);
            }
            Some(keys) => keys.seal(seq, content_type, content, 0, &header, out, ops)?,
        }
        w.next_seq += 1;
        Ok(RecordNumber { epoch, seq })
    }

    /// Authenticate and decrypt one record (epoch 0: check its header),
    /// with replay protection per epoch.
    pub fn open(
        &mut self,
        view: &RecordView<'_>,
        ops: &mut CryptoOps,
    ) -> Result<Received, RecordError> {
        match &view.header {
            Header13::Plaintext(h) => {
                if h.epoch != 0 {
                    return Err(RecordError::UnknownEpoch);
                }
                if !self.read0.check(h.seq) {
                    return Err(RecordError::Replay);
                }
                self.read0.mark(h.seq);
                Ok(Received {
                    number: RecordNumber {
                        epoch: 0,
                        seq: h.seq,
                    },
                    content_type: h.content_type,
                    content: view.body.to_vec(),
                    newest: false,
                })
            }
            Header13::Ciphertext(h) => {
                let epoch = reconstruct_epoch(h.epoch_bits, self.read.iter().map(|r| r.epoch()))
                    .ok_or(RecordError::UnknownEpoch)?;
                let r = self
                    .read
                    .iter_mut()
                    .find(|r| r.epoch() == epoch)
                    .ok_or(RecordError::UnknownEpoch)?;
                let before = r.highest();
                let opened = r
                    .open(h, view.header_bytes, view.body, ops)
                    .inspect_err(|e| {
                        if *e == RecordError::Authentication {
                            self.last_failure = Some((epoch, r.failed()));
                        }
                    })?;
                let newest_epoch = self.read.iter().map(|r| r.epoch()).max() == Some(epoch);
                Ok(Received {
                    newest: newest_epoch && before.is_none_or(|b| opened.seq > b),
                    number: RecordNumber {
                        epoch,
                        seq: opened.seq,
                    },
                    content_type: opened.content_type,
                    content: opened.content,
                })
            }
        }
    }

    /// Connection ID length of received protected records.
    pub fn cid_len(&self) -> usize {
        self.receive_cid_len
    }

    /// Length of the connection ID this side puts in its records.
    pub fn send_cid_len(&self) -> usize {
        self.cid.as_ref().map_or(0, Vec::len)
    }
}
