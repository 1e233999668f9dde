//! The 13-byte DTLS 1.2 record header (RFC 6347 §4.1).

use crate::codec::{Reader, Writer};
use crate::error::Error;
use crate::error::Malformed;

/// Length of the DTLS 1.2 record header.
pub const RECORD_HEADER_LEN: usize = 13;
/// DTLS 1.2 version on the wire.
pub const DTLS1_2: u16 = 0xFEFD;
/// DTLS 1.0 version on the wire (allowed in the first ClientHello record and
/// the HelloVerifyRequest).
pub const DTLS1_0: u16 = 0xFEFF;
/// Largest 48-bit sequence number.
pub const MAX_SEQ: u64 = (1 << 48) - 1;

/// Record content types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ContentType {
    /// change_cipher_spec(20)
    ChangeCipherSpec,
    /// alert(21)
    Alert,
    /// handshake(22)
    Handshake,
    /// application_data(23)
    ApplicationData,
    /// tls12_cid(25): the outer type of a record carrying a connection ID
    /// (RFC 9146 §4); the real type is inside the protected plaintext.
    Tls12Cid,
}

impl ContentType {
    /// Wire value.
    pub fn to_u8(self) -> u8 {
        match self {
            ContentType::ChangeCipherSpec => 20,
            ContentType::Alert => 21,
            ContentType::Handshake => 22,
            ContentType::ApplicationData => 23,
            ContentType::Tls12Cid => 25,
        }
    }
    /// From the wire value.
    pub fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            20 => ContentType::ChangeCipherSpec,
            21 => ContentType::Alert,
            22 => ContentType::Handshake,
            23 => ContentType::ApplicationData,
            25 => ContentType::Tls12Cid,
            _ => return None,
        })
    }
}

/// A parsed record header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordHeader {
    /// Content type.
    pub content_type: ContentType,
    /// Protocol version.
    pub version: u16,
    /// Epoch.
    pub epoch: u16,
    /// 48-bit sequence number.
    pub seq: u64,
    /// Length of the fragment that follows.
    pub length: u16,
}

impl RecordHeader {
    /// Parse one record from the front of `buf`: its header and fragment.
    pub fn parse(r: &mut Reader<'_>) -> Result<(RecordHeader, Vec<u8>), Error> {
        Self::parse_with_cid(r, &[])
    }

    /// Parse one record, where a tls12_cid record must carry `cid` (the
    /// CID this side asked for; empty: no tls12_cid record is expected).
    /// The CID's length is not on the wire: the receiver knows its own
    /// (RFC 9146 §4).
    pub fn parse_with_cid(
        r: &mut Reader<'_>,
        cid: &[u8],
    ) -> Result<(RecordHeader, Vec<u8>), Error> {
        let ct = r.u8()?;
        let content_type = ContentType::from_u8(ct).ok_or(Error::Decode(Malformed::ContentType))?;
        let version = r.u16()?;
        if version >> 8 != 0xFE {
            return Err(Error::Decode(Malformed::RecordVersion));
        }
        let epoch = r.u16()?;
        let seq = r.u48()?;
        if content_type == ContentType::Tls12Cid && (cid.is_empty() || r.take(cid.len())? != cid) {
            return Err(Error::Decode(Malformed::ConnectionId));
        }
        let fragment = r.vec16()?;
        Ok((
            RecordHeader {
                content_type,
                version,
                epoch,
                seq,
                length: fragment.len() as u16,
            },
            fragment.to_vec(),
        ))
    }

    /// Append the header to `out`.
    pub fn emit(&self, out: &mut Vec<u8>) {
        self.emit_with_cid(&[], out);
    }

    /// Append the header with `cid` between sequence number and length
    /// (a tls12_cid record, RFC 9146 §4; `cid` is empty otherwise).
    pub fn emit_with_cid(&self, cid: &[u8], out: &mut Vec<u8>) {
        out.push(self.content_type.to_u8());
        out.put_u16(self.version);
        out.put_u16(self.epoch);
        out.put_u48(self.seq);
        out.extend_from_slice(cid);
        out.put_u16(self.length);
    }

    /// 64-bit epoch || sequence number, as used in the AEAD nonce and AAD.
    pub fn epoch_seq(&self) -> u64 {
        (u64::from(self.epoch) << 48) | self.seq
    }
}

/// One unprotected DTLS 1.2 record carrying `fragment` (epoch 0, or a
/// test's forged record in a later epoch).
pub fn plaintext_record(
    content_type: ContentType,
    epoch: u16,
    seq: u64,
    fragment: &[u8],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(13 + fragment.len());
    RecordHeader {
        content_type,
        version: DTLS1_2,
        epoch,
        seq,
        length: fragment.len() as u16,
    }
    .emit(&mut out);
    out.extend_from_slice(fragment);
    out
}

/// Split a datagram into records. Parsing stops at the first malformed
/// record: what precedes it is returned, the rest is dropped (RFC 6347
/// §4.1.2.7: invalid records are discarded).
pub fn split_datagram(datagram: &[u8]) -> (Vec<(RecordHeader, Vec<u8>)>, bool) {
    split_datagram_cid(datagram, &[])
}

/// [`split_datagram`] for a receiver whose records carry `cid` (a
/// tls12_cid record with another CID counts as malformed).
pub fn split_datagram_cid(datagram: &[u8], cid: &[u8]) -> (Vec<(RecordHeader, Vec<u8>)>, bool) {
    let mut r = Reader::new(datagram);
    let mut out = Vec::new();
    while !r.is_empty() {
        match RecordHeader::parse_with_cid(&mut r, cid) {
            Ok(rec) => out.push(rec),
            Err(_) => return (out, true),
        }
    }
    (out, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_roundtrip() {
        let h = RecordHeader {
            content_type: ContentType::Handshake,
            version: DTLS1_2,
            epoch: 1,
            seq: 0x0102_0304_0506,
            length: 3,
        };
        let mut out = Vec::new();
        h.emit(&mut out);
        out.extend_from_slice(&[7, 8, 9]);
        assert_eq!(out.len(), RECORD_HEADER_LEN + 3);
        let (recs, bad) = split_datagram(&out);
        assert!(!bad);
        assert_eq!(recs, vec![(h, vec![7, 8, 9])]);
        assert_eq!(h.epoch_seq(), 0x0001_0102_0304_0506);
    }

    #[test]
    fn truncated_record_is_dropped() {
        let mut out = Vec::new();
        RecordHeader {
            content_type: ContentType::Alert,
            version: DTLS1_2,
            epoch: 0,
            seq: 1,
            length: 2,
        }
        .emit(&mut out);
        out.push(1);
        let (recs, bad) = split_datagram(&out);
        assert!(recs.is_empty());
        assert!(bad);
    }
}
