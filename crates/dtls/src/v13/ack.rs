//! The ACK message of DTLS 1.3 (RFC 9147 §7): the record numbers of the
//! handshake records received in the current flight, in increasing order.
//!
//! ```text
//! struct { uint64 epoch; uint64 sequence_number; } RecordNumber;
//! struct { RecordNumber record_numbers<0..2^16-1>; } ACK;
//! ```

use std::collections::BTreeSet;

use crate::codec::{Reader, Writer};

use crate::error::v13::{Field, MessageError};

/// Bytes of one RecordNumber.
const RECORD_NUMBER_LEN: usize = 16;

/// A record's full number (RFC 9147 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecordNumber {
    /// Epoch.
    pub epoch: u64,
    /// Sequence number within the epoch.
    pub seq: u64,
}

/// The record numbers an ACK reports: kept sorted and without duplicates,
/// as §7 asks ("in numerically increasing order").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ack {
    numbers: BTreeSet<RecordNumber>,
}

impl Ack {
    /// Empty list (an empty ACK is legal: RFC 9147 §7 uses it to signal
    /// that nothing of the current flight arrived).
    pub fn new() -> Self {
        Self::default()
    }

    /// Most record numbers one ACK can carry (a 16-bit length of 16-byte
    /// entries).
    pub const MAX_ENTRIES: usize = 0xFFFF / RECORD_NUMBER_LEN;

    /// Note a received record; false if the list is full.
    pub fn insert(&mut self, n: RecordNumber) -> bool {
        if self.numbers.len() >= Self::MAX_ENTRIES && !self.numbers.contains(&n) {
            return false;
        }
        self.numbers.insert(n);
        true
    }

    /// Does the list acknowledge `n`?
    pub fn contains(&self, n: &RecordNumber) -> bool {
        self.numbers.contains(n)
    }

    /// The record numbers, ascending.
    pub fn iter(&self) -> impl Iterator<Item = &RecordNumber> {
        self.numbers.iter()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.numbers.len()
    }

    /// No entries?
    pub fn is_empty(&self) -> bool {
        self.numbers.is_empty()
    }

    /// Bytes it holds on the heap. estimate: the B-tree's leaf nodes only,
    /// each with room for 11 entries (std's `B = 6`, `CAPACITY = 2B − 1`)
    /// behind a parent pointer and two 16-bit indices; a set of more than
    /// 11 entries also has internal nodes, not counted.
    pub fn heap_bytes(&self) -> usize {
        const LEAF_CAPACITY: usize = 11;
        const LEAF_BYTES: usize = 8 + 2 + 2 + 4 + LEAF_CAPACITY * RECORD_NUMBER_LEN;
        self.numbers.len().div_ceil(LEAF_CAPACITY) * LEAF_BYTES
    }

    /// Bytes of the encoded message.
    pub fn encoded_len(&self) -> usize {
        2 + RECORD_NUMBER_LEN * self.numbers.len()
    }

    /// Append the encoded ACK to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.put_u16((RECORD_NUMBER_LEN * self.numbers.len()) as u16);
        for n in &self.numbers {
            out.extend_from_slice(&n.epoch.to_be_bytes());
            out.extend_from_slice(&n.seq.to_be_bytes());
        }
    }

    /// Decode an ACK record's content. The list must be whole 16-byte
    /// entries and fill the content; entries out of order are accepted and
    /// sorted (what matters to the sender is which records arrived).
    pub fn decode(content: &[u8]) -> Result<Self, MessageError> {
        const F: Field = Field::AckRecordNumbers;
        let mut r = Reader::new(content);
        let list = r.vec16().map_err(|_| MessageError::Truncated(F))?;
        if !r.is_empty() {
            return Err(MessageError::TrailingBytes(F));
        }
        if list.len() % RECORD_NUMBER_LEN != 0 {
            return Err(MessageError::BadLength(F));
        }
        let numbers = list
            .chunks_exact(RECORD_NUMBER_LEN)
            .map(|c| RecordNumber {
                epoch: u64::from_be_bytes(c[..8].try_into().expect("8 bytes")),
                seq: u64::from_be_bytes(c[8..].try_into().expect("8 bytes")),
            })
            .collect();
        Ok(Ack { numbers })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bytes_of_a_two_entry_ack() {
        let mut a = Ack::new();
        assert!(a.insert(RecordNumber { epoch: 2, seq: 5 }));
        assert!(a.insert(RecordNumber { epoch: 2, seq: 1 }));
        assert!(
            a.insert(RecordNumber { epoch: 2, seq: 1 }),
            "duplicates fold"
        );
        let mut out = Vec::new();
        a.encode(&mut out);
        assert_eq!(out.len(), a.encoded_len());
        assert_eq!(
            out,
            [
                0, 32, // 2 entries
                0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, // (2, 1) first
                0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 5,
            ]
        );
        assert_eq!(Ack::decode(&out), Ok(a));
        assert_eq!(Ack::decode(&[0, 0]), Ok(Ack::new()));
    }

    #[test]
    fn malformed_acks() {
        let f = Field::AckRecordNumbers;
        assert_eq!(Ack::decode(&[]), Err(MessageError::Truncated(f)));
        assert_eq!(Ack::decode(&[0, 16, 0]), Err(MessageError::Truncated(f)));
        assert_eq!(Ack::decode(&[0, 0, 0]), Err(MessageError::TrailingBytes(f)));
        let mut odd = vec![0, 8];
        odd.extend_from_slice(&[0; 8]);
        assert_eq!(Ack::decode(&odd), Err(MessageError::BadLength(f)));
    }

    proptest! {
        #[test]
        fn round_trip(entries in proptest::collection::vec((any::<u64>(), any::<u64>()), 0..40)) {
            let mut a = Ack::new();
            for (epoch, seq) in entries {
                a.insert(RecordNumber { epoch, seq });
            }
            let mut out = Vec::new();
            a.encode(&mut out);
            prop_assert_eq!(Ack::decode(&out), Ok(a));
        }

        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..80)) {
            let _ = Ack::decode(&data);
        }
    }
}
