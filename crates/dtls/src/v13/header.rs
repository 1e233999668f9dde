//! DTLS 1.3 record headers (RFC 9147 §4): the 13-byte DTLSPlaintext header
//! of epoch 0 and the variable-length unified header of protected records,
//! and how the first byte tells them apart (§4.1).
//!
//! ```text
//!  0 1 2 3 4 5 6 7
//! +-+-+-+-+-+-+-+-+
//! |0|0|1|C|S|L|E E|   C: CID present, S: 16-bit sequence number,
//! +-+-+-+-+-+-+-+-+   L: length present, EE: low two bits of the epoch
//! | Connection ID |   (length as negotiated, if C)
//! | 8/16-bit seq  |   (encrypted on the wire, §4.2.3)
//! | 16-bit length |   (if L; else the record fills the datagram)
//! +-+-+-+-+-+-+-+-+
//! ```

use crate::codec::{Reader, Writer};

use crate::error::v13::RecordError;

/// Length of the DTLSPlaintext header.
pub const PLAINTEXT_HEADER_LEN: usize = 13;
/// legacy_record_version of every DTLS 1.3 record: {254, 253} (RFC 9147
/// §4; receivers ignore it).
pub const LEGACY_RECORD_VERSION: u16 = 0xFEFD;
/// The fixed bits `001` of a unified header's first byte.
const FIXED_BITS: u8 = 0b0010_0000;
const FIXED_MASK: u8 = 0b1110_0000;
const C_BIT: u8 = 0x10;
const S_BIT: u8 = 0x08;
const L_BIT: u8 = 0x04;
const EPOCH_BITS: u8 = 0x03;

/// Content types of DTLS 1.3 (RFC 8446 §5.1; ack from RFC 9147 §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ContentType13 {
    /// alert(21)
    Alert,
    /// handshake(22)
    Handshake,
    /// application_data(23)
    ApplicationData,
    /// ack(26)
    Ack,
}

impl ContentType13 {
    /// Wire value.
    pub fn to_u8(self) -> u8 {
        match self {
            ContentType13::Alert => 21,
            ContentType13::Handshake => 22,
            ContentType13::ApplicationData => 23,
            ContentType13::Ack => 26,
        }
    }

    /// From the wire value.
    pub fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            21 => ContentType13::Alert,
            22 => ContentType13::Handshake,
            23 => ContentType13::ApplicationData,
            26 => ContentType13::Ack,
            _ => return None,
        })
    }

    /// May a record of this type travel as DTLSPlaintext? Alert, handshake
    /// and ack (RFC 9147 §4.1); application data never.
    pub fn allowed_in_plaintext(self) -> bool {
        !matches!(self, ContentType13::ApplicationData)
    }
}

/// A DTLSPlaintext header (epoch 0: ClientHello, ServerHello,
/// HelloRetryRequest, and alerts and ACKs before keys exist).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaintextHeader {
    /// Content type (never application data).
    pub content_type: ContentType13,
    /// legacy_record_version as received (ignored, RFC 9147 §4).
    pub version: u16,
    /// Low 16 bits of the epoch (0 for every plaintext record).
    pub epoch: u16,
    /// 48-bit sequence number.
    pub seq: u64,
    /// Fragment length.
    pub length: u16,
}

impl PlaintextHeader {
    /// Append the header to `out`.
    pub fn emit(&self, out: &mut Vec<u8>) {
        out.push(self.content_type.to_u8());
        out.put_u16(self.version);
        out.put_u16(self.epoch);
        out.put_u48(self.seq);
        out.put_u16(self.length);
    }
}

/// Sequence number length of a unified header (the S bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeqLen {
    /// 8 bits (S = 0).
    Bits8,
    /// 16 bits (S = 1).
    Bits16,
}

impl SeqLen {
    /// Bytes on the wire.
    pub fn bytes(self) -> usize {
        match self {
            SeqLen::Bits8 => 1,
            SeqLen::Bits16 => 2,
        }
    }
    /// Bits on the wire.
    pub fn bits(self) -> u32 {
        8 * self.bytes() as u32
    }
}

/// How this side writes the unified headers of its protected records
/// (RFC 9147 §4). Receivers accept every form; the choice only costs or
/// saves bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HeaderForm {
    /// 8-bit sequence numbers are enough while the receiver can
    /// reconstruct the full number: it takes the value closest to one more
    /// than the highest it deprotected (RFC 9147 §4.2.2), so fewer than 128
    /// records of an epoch may be lost or reordered in a row; 16 bits allow
    /// 32 768.
    pub seq_len: SeqLen,
    /// Leave the length field out of the last record of each datagram
    /// (RFC 9147 §4: it then fills the rest of the datagram); every other
    /// record keeps it, so the receiver can find the next.
    pub omit_last_length: bool,
}

impl HeaderForm {
    /// The smallest correct form: 8-bit sequence number, no length on a
    /// datagram's last record (RFC 9147 §4, Figure 4's minimal header):
    /// 1 byte per record less than [`HeaderForm::FULL`], 3 on the last.
    pub const COMPACT: HeaderForm = HeaderForm {
        seq_len: SeqLen::Bits8,
        omit_last_length: true,
    };
    /// 16-bit sequence number and a length on every record.
    pub const FULL: HeaderForm = HeaderForm {
        seq_len: SeqLen::Bits16,
        omit_last_length: false,
    };

    /// Is the length field written on a record, last in its datagram or
    /// not?
    pub fn length_present(self, last_in_datagram: bool) -> bool {
        !(last_in_datagram && self.omit_last_length)
    }
}

/// A unified header (RFC 9147 §4, Figure 3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnifiedHeader {
    /// Low two bits of the epoch.
    pub epoch_bits: u8,
    /// Connection ID; `None` clears the C bit.
    pub cid: Option<Vec<u8>>,
    /// Length of the sequence number field.
    pub seq_len: SeqLen,
    /// The sequence number field as it stands: the low 8 or 16 bits of the
    /// record sequence number before record-number encryption, or the
    /// encrypted bits as received.
    pub seq_bits: u16,
    /// Length of the encrypted record, if the L bit is set; `None`: the
    /// record fills the rest of the datagram.
    pub length: Option<u16>,
}

impl UnifiedHeader {
    /// Bytes the header takes.
    pub fn len(&self) -> usize {
        1 + self.cid.as_ref().map_or(0, Vec::len)
            + self.seq_len.bytes()
            + if self.length.is_some() { 2 } else { 0 }
    }

    /// Never empty: at least the first byte and the sequence number.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The first byte: `001CSLEE`.
    pub fn first_byte(&self) -> u8 {
        let mut b = FIXED_BITS | (self.epoch_bits & EPOCH_BITS);
        if self.cid.is_some() {
            b |= C_BIT;
        }
        if self.seq_len == SeqLen::Bits16 {
            b |= S_BIT;
        }
        if self.length.is_some() {
            b |= L_BIT;
        }
        b
    }

    /// Offset of the sequence number field within the header.
    pub fn seq_offset(&self) -> usize {
        1 + self.cid.as_ref().map_or(0, Vec::len)
    }

    /// Append the header to `out`.
    pub fn emit(&self, out: &mut Vec<u8>) {
        out.push(self.first_byte());
        if let Some(cid) = &self.cid {
            out.extend_from_slice(cid);
        }
        match self.seq_len {
            SeqLen::Bits8 => out.push(self.seq_bits as u8),
            SeqLen::Bits16 => out.put_u16(self.seq_bits),
        }
        if let Some(len) = self.length {
            out.put_u16(len);
        }
    }
}

/// A record header of either form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Header13 {
    /// DTLSPlaintext.
    Plaintext(PlaintextHeader),
    /// DTLSCiphertext's unified header.
    Ciphertext(UnifiedHeader),
}

/// One record of a datagram: its header, the header's bytes (the AEAD's
/// additional data once the sequence number is decrypted) and its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordView<'a> {
    /// Parsed header.
    pub header: Header13,
    /// The header as received.
    pub header_bytes: &'a [u8],
    /// Fragment (plaintext) or encrypted record (ciphertext).
    pub body: &'a [u8],
}

/// Parse the record at the front of `buf`. `cid_len` is the length of the
/// connection ID this endpoint asked its peer to use (0: none). Returns the
/// record and the bytes it took.
pub fn parse_record(buf: &[u8], cid_len: usize) -> Result<(RecordView<'_>, usize), RecordError> {
    let first = *buf.first().ok_or(RecordError::TruncatedHeader)?;
    if first & FIXED_MASK == FIXED_BITS {
        parse_unified(buf, first, cid_len)
    } else {
        match ContentType13::from_u8(first) {
            Some(ct) if ct.allowed_in_plaintext() => parse_plaintext(buf, ct),
            _ => Err(RecordError::UnknownFirstByte(first)),
        }
    }
}

fn parse_plaintext(
    buf: &[u8],
    content_type: ContentType13,
) -> Result<(RecordView<'_>, usize), RecordError> {
    if buf.len() < PLAINTEXT_HEADER_LEN {
        return Err(RecordError::TruncatedHeader);
    }
    let mut r = Reader::new(&buf[1..PLAINTEXT_HEADER_LEN]);
    let truncated = |_| RecordError::TruncatedHeader;
    let version = r.u16().map_err(truncated)?;
    let epoch = r.u16().map_err(truncated)?;
    let seq = r.u48().map_err(truncated)?;
    let length = r.u16().map_err(truncated)?;
    let end = PLAINTEXT_HEADER_LEN + length as usize;
    if buf.len() < end {
        return Err(RecordError::LengthBeyondDatagram);
    }
    let header = PlaintextHeader {
        content_type,
        version,
        epoch,
        seq,
        length,
    };
    let view = RecordView {
        header: Header13::Plaintext(header),
        header_bytes: &buf[..PLAINTEXT_HEADER_LEN],
        body: &buf[PLAINTEXT_HEADER_LEN..end],
    };
    Ok((view, end))
}

fn parse_unified(
    buf: &[u8],
    first: u8,
    cid_len: usize,
) -> Result<(RecordView<'_>, usize), RecordError> {
    let has_cid = first & C_BIT != 0;
    if has_cid != (cid_len > 0) {
        return Err(RecordError::UnexpectedCid);
    }
    let seq_len = if first & S_BIT != 0 {
        SeqLen::Bits16
    } else {
        SeqLen::Bits8
    };
    let mut r = Reader::new(&buf[1..]);
    let truncated = |_| RecordError::TruncatedHeader;
    let cid = if has_cid {
        Some(r.take(cid_len).map_err(truncated)?.to_vec())
    } else {
        None
    };
    let seq_bits = match seq_len {
        SeqLen::Bits8 => u16::from(r.u8().map_err(truncated)?),
        SeqLen::Bits16 => r.u16().map_err(truncated)?,
    };
    let length = if first & L_BIT != 0 {
        Some(r.u16().map_err(truncated)?)
    } else {
        None
    };
    let header_len = buf.len() - r.remaining();
    let end = match length {
        Some(n) => header_len + n as usize,
        None => buf.len(),
    };
    if buf.len() < end {
        return Err(RecordError::LengthBeyondDatagram);
    }
    let header = UnifiedHeader {
        epoch_bits: first & EPOCH_BITS,
        cid,
        seq_len,
        seq_bits,
        length,
    };
    let view = RecordView {
        header: Header13::Ciphertext(header),
        header_bytes: &buf[..header_len],
        body: &buf[header_len..end],
    };
    Ok((view, end))
}

/// The connection ID of a datagram's first record, if it is a unified
/// header with the C bit set (RFC 9147 §4): what a server endpoint routes
/// on before it knows the session.
pub fn leading_cid(datagram: &[u8], cid_len: usize) -> Option<&[u8]> {
    let first = *datagram.first()?;
    let with_cid = first & FIXED_MASK == FIXED_BITS && first & C_BIT != 0;
    with_cid.then(|| datagram.get(1..1 + cid_len)).flatten()
}

/// Split a datagram into records. Parsing stops at the first record that
/// cannot be parsed; what precedes it is returned with the reason the rest
/// was dropped (RFC 9147 §4.5.2: invalid records are discarded).
pub fn split_datagram(
    datagram: &[u8],
    cid_len: usize,
) -> (Vec<RecordView<'_>>, Option<RecordError>) {
    let mut out = Vec::new();
    let mut rest = datagram;
    while !rest.is_empty() {
        match parse_record(rest, cid_len) {
            Ok((view, used)) => {
                rest = &rest[used..];
                out.push(view);
            }
            Err(e) => return (out, Some(e)),
        }
    }
    (out, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9147 Figure 4's minimal DTLSCiphertext: `001000EE`, 8-bit
    /// sequence number, no length: the record fills the datagram.
    #[test]
    fn minimal_header_bytes() {
        let h = UnifiedHeader {
            epoch_bits: 3,
            cid: None,
            seq_len: SeqLen::Bits8,
            seq_bits: 0x5A,
            length: None,
        };
        let mut out = Vec::new();
        h.emit(&mut out);
        assert_eq!(out, [0b0010_0011, 0x5A]);
        assert_eq!(h.len(), 2);
        out.extend_from_slice(&[0xEE; 20]);
        let (view, used) = parse_record(&out, 0).unwrap();
        assert_eq!(used, 22);
        assert_eq!(view.header, Header13::Ciphertext(h));
        assert_eq!(view.header_bytes, &[0x23, 0x5A]);
        assert_eq!(view.body, &[0xEE; 20]);
    }

    /// Figure 4's full DTLSCiphertext: `00111111`-style first byte with C, S
    /// and L set, a 4-byte CID, 16-bit sequence number, 16-bit length; then
    /// a DTLSPlaintext ACK record in the same datagram.
    #[test]
    fn full_header_with_cid_and_a_second_record() {
        let h = UnifiedHeader {
            epoch_bits: 2,
            cid: Some(vec![0xC1, 0xC2, 0xC3, 0xC4]),
            seq_len: SeqLen::Bits16,
            seq_bits: 0x0102,
            length: Some(3),
        };
        let mut d = Vec::new();
        h.emit(&mut d);
        d.extend_from_slice(&[9, 9, 9]);
        assert_eq!(
            d,
            [
                0b0011_1110,
                0xC1,
                0xC2,
                0xC3,
                0xC4,
                0x01,
                0x02,
                0x00,
                0x03,
                9,
                9,
                9
            ]
        );
        let p = PlaintextHeader {
            content_type: ContentType13::Ack,
            version: LEGACY_RECORD_VERSION,
            epoch: 0,
            seq: 7,
            length: 2,
        };
        p.emit(&mut d);
        d.extend_from_slice(&[0, 0]);
        assert_eq!(&d[12..25], &[26, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 7, 0, 2]);
        let (records, err) = split_datagram(&d, 4);
        assert_eq!(err, None);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].header, Header13::Ciphertext(h));
        assert_eq!(records[0].header_bytes.len(), 9);
        assert_eq!(records[1].header, Header13::Plaintext(p));
        assert_eq!(records[1].body, &[0, 0]);
    }

    #[test]
    fn demultiplexing_by_first_byte() {
        // application_data and change_cipher_spec are not DTLS 1.3 plaintext
        for b in [20u8, 23, 24, 25, 0, 64, 0xFF] {
            let mut d = vec![b];
            d.extend_from_slice(&[0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            assert_eq!(
                parse_record(&d, 0).unwrap_err(),
                RecordError::UnknownFirstByte(b)
            );
        }
        // C bit against the negotiated CID length
        assert_eq!(
            parse_record(&[0x30, 1, 2, 3], 0).unwrap_err(),
            RecordError::UnexpectedCid
        );
        assert_eq!(
            parse_record(&[0x20, 1, 2, 3], 2).unwrap_err(),
            RecordError::UnexpectedCid
        );
        // truncations
        assert_eq!(
            parse_record(&[], 0).unwrap_err(),
            RecordError::TruncatedHeader
        );
        assert_eq!(
            parse_record(&[0x28, 1], 0).unwrap_err(),
            RecordError::TruncatedHeader
        );
        assert_eq!(
            parse_record(&[0x2C, 1, 0, 5, 1, 2], 0).unwrap_err(),
            RecordError::LengthBeyondDatagram
        );
        assert_eq!(
            parse_record(&[22, 0xFE, 0xFD, 0, 0], 0).unwrap_err(),
            RecordError::TruncatedHeader
        );
    }

    #[test]
    fn a_bad_record_ends_the_datagram() {
        let mut d = vec![0x24, 0x01, 0x00, 0x01, 0xAA];
        d.extend_from_slice(&[23, 0xFE, 0xFD]);
        let (records, err) = split_datagram(&d, 0);
        assert_eq!(records.len(), 1);
        assert_eq!(err, Some(RecordError::UnknownFirstByte(23)));
    }
}
