//! DTLS messages, state changes and retransmissions to the trace, for a
//! client connection and for each session of a server endpoint alike.
//!
//! A message row is one handshake message, ChangeCipherSpec, alert, ACK or
//! application-data record, in the order its datagram carried it, with the
//! record's epoch and sequence number as the header shows them. What the
//! header hides (the message types of protected records) comes from the
//! stack's own per-kind counts ([`dtls::accounting::ByteCounts`]): what it
//! charged since the last look, taken in the order of the message types.
//! The stack keeps no clock; the application stamps each row with the
//! virtual time it knows.

use dtls::accounting::{ByteCounts, MessageKind};
use dtls::Stats;

use super::AppCx;
use crate::trace::ProtocolRow;
use crate::{NodeId, Time};

/// Per-kind counts (kind, bytes, records) at the last look.
type Counts = Vec<(MessageKind, u64, u64)>;

/// How much of one connection's (or server session's) doings the trace
/// has already. A default cursor has seen nothing, not even a state: its
/// first look writes the state the connection is in.
#[derive(Debug, Clone, Default)]
pub(super) struct Cursor {
    sent: Counts,
    received: Counts,
    state: &'static str,
    retransmissions: u64,
}

impl Cursor {
    /// A connection first seen in state `state` (a row for it: it is
    /// entered). Its counts start empty, so what it charged as it was
    /// created (a client's ClientHello) is traced when it leaves.
    pub(super) fn new(cx: &mut AppCx, state: &'static str, peer: NodeId) -> Self {
        let now = cx.now();
        cx.trace(now, row("state", state, None, peer, ""));
        Cursor {
            state,
            ..Cursor::default()
        }
    }

    /// Rows for one datagram that arrived from `peer`: each of its records,
    /// "accepted" if the stack counted it since the last look, "dropped" if
    /// not (a replay, a failed authentication, a wrong epoch). `stats` is
    /// None when no connection holds the peer (a server answering
    /// statelessly, or refusing): its records are "stateless". A cursor
    /// is needed wherever `stats` is given.
    pub(super) fn received(
        cursor: Option<&mut Cursor>,
        cx: &mut AppCx,
        stats: Option<&Stats>,
        peer: NodeId,
        datagram: &[u8],
    ) {
        let now = cx.now();
        let mut named = match (cursor, stats) {
            (Some(c), Some(s)) => Named::since(&mut c.received, &s.received),
            _ => Named::default(),
        };
        let outcome = |known: bool| match (stats.is_some(), known) {
            (false, _) => "stateless",
            (true, true) => "accepted",
            (true, false) => "dropped",
        };
        for r in wire::records(datagram) {
            for (message, bytes, known) in named.messages_of(&r) {
                cx.trace(
                    now,
                    r.numbered(row("rx", message, bytes, peer, outcome(known))),
                );
            }
        }
    }

    /// Rows for what happened since the last look, other than datagrams
    /// received: the state entered, a flight resent (both at now), and each
    /// message of the `datagrams` sent to `peer` (at `sent_at`, when they
    /// leave the CPU). `stats` is None for datagrams sent with no
    /// connection behind them (a server's HelloVerifyRequest).
    pub(super) fn advance(
        cursor: Option<&mut Cursor>,
        cx: &mut AppCx,
        stats: Option<(&Stats, &'static str)>,
        peer: NodeId,
        datagrams: &[&[u8]],
        sent_at: Time,
    ) {
        let now = cx.now();
        let mut named = Named::default();
        if let (Some(c), Some((stats, state))) = (cursor, stats) {
            if state != c.state {
                c.state = state;
                cx.trace(now, row("state", state, None, peer, ""));
            }
            if stats.retransmissions > c.retransmissions {
                c.retransmissions = stats.retransmissions;
                cx.trace(now, row("retransmit", "", None, peer, "flight_resent"));
            }
            named = Named::since(&mut c.sent, &stats.sent);
        }
        for d in datagrams {
            for r in wire::records(d) {
                for (message, bytes, _) in named.messages_of(&r) {
                    cx.trace_stamped(sent_at, r.numbered(row("tx", message, bytes, peer, "sent")));
                }
            }
        }
    }

    /// The connection ended and its endpoint forgot it (a server session
    /// closed or failed): a row for its last state.
    pub(super) fn ended(&self, cx: &mut AppCx, state: &'static str, peer: NodeId) {
        if state != self.state {
            let now = cx.now();
            cx.trace(now, row("state", state, None, peer, ""));
        }
    }
}

/// What the stack charged since the last look, kind by kind: the names of
/// records whose header hides them.
#[derive(Debug, Default)]
struct Named {
    /// (kind, bytes, records) charged since, in the order of the kinds.
    fresh: Counts,
}

impl Named {
    /// The counts charged since `last`, which becomes `now`.
    fn since(last: &mut Counts, now: &ByteCounts) -> Self {
        let mut fresh = Counts::new();
        for (kind, bytes, records) in now.iter() {
            let (b, r) = last
                .iter()
                .find(|e| e.0 == kind)
                .map_or((0, 0), |e| (e.1, e.2));
            if bytes > b {
                fresh.push((kind, bytes - b, records - r));
            }
        }
        *last = now.iter().collect();
        Named { fresh }
    }

    /// Take one message of `kind`: the bytes the stack charged it (per
    /// record when several of its records came at once), or None when the
    /// stack charged none.
    fn take(&mut self, kind: MessageKind) -> Option<u64> {
        let at = self.fresh.iter().position(|e| e.0 == kind)?;
        let (_, bytes, records) = self.fresh[at];
        if records > 1 {
            let each = bytes / records;
            self.fresh[at] = (kind, bytes - each, records - 1);
            Some(each)
        } else {
            self.fresh.remove(at);
            Some(bytes)
        }
    }

    /// The messages of one record: (name, bytes, whether the stack charged
    /// it). Plaintext records name themselves; a protected one takes the
    /// first fresh kind its content type allows, and a DTLS 1.3 protected
    /// record (content type hidden) takes the next kind that began a
    /// record together with the kinds that shared it.
    fn messages_of(&mut self, r: &wire::Record) -> Vec<(&'static str, Option<u64>, bool)> {
        use wire::Content;
        let wire_bytes = Some(r.bytes);
        let named = |me: &mut Self, kind: MessageKind, alone: bool| {
            let charged = me.take(kind);
            let bytes = if alone {
                charged.or(wire_bytes)
            } else {
                charged
            };
            (kind.name(), bytes, charged.is_some())
        };
        match &r.content {
            Content::Handshake(types) if !types.is_empty() => types
                .iter()
                .map(|&(t, retry)| {
                    let m = named(self, MessageKind::Handshake(t), types.len() == 1);
                    if retry {
                        ("HelloRetryRequest", m.1, m.2)
                    } else {
                        m
                    }
                })
                .collect(),
            Content::Handshake(_) => {
                let kind = self
                    .fresh
                    .iter()
                    .find(|e| matches!(e.0, MessageKind::Handshake(_)))
                    .map(|e| e.0);
                match kind {
                    Some(kind) => vec![named(self, kind, true)],
                    None => vec![("Handshake", wire_bytes, false)],
                }
            }
            Content::Kind(kind) => vec![named(self, *kind, true)],
            Content::Hidden => {
                let Some(first) = self.fresh.iter().position(|e| e.2 > 0) else {
                    return vec![("", wire_bytes, false)];
                };
                let mut kinds = vec![self.fresh[first].0];
                kinds.extend(
                    self.fresh[first + 1..]
                        .iter()
                        .take_while(|e| e.2 == 0)
                        .map(|e| e.0),
                );
                let alone = kinds.len() == 1;
                kinds.into_iter().map(|k| named(self, k, alone)).collect()
            }
        }
    }
}

fn row(
    kind: &'static str,
    message: &'static str,
    bytes: Option<u64>,
    peer: NodeId,
    outcome: &'static str,
) -> ProtocolRow {
    ProtocolRow {
        layer: "dtls",
        kind,
        message,
        bytes,
        peer: Some(peer),
        outcome,
        epoch: None,
        seq: None,
    }
}

/// DTLS record headers read off a datagram: the 13-byte header of DTLS 1.2
/// (RFC 6347 section 4.1) and of DTLS 1.3's plaintext records, and DTLS
/// 1.3's unified header (RFC 9147 section 4), told apart by the first
/// byte's top bits `001` (RFC 9147 section 4.1).
mod wire {
    use super::ProtocolRow;
    use dtls::accounting::MessageKind;
    use dtls::v13::messages::HRR_RANDOM;

    /// What a record's header and plaintext show of its content.
    #[derive(Debug, PartialEq)]
    pub(super) enum Content {
        /// handshake(22): the types of the messages it carries when in
        /// plaintext (epoch 0), none when protected; with each, whether it
        /// is a DTLS 1.3 HelloRetryRequest (a ServerHello with the special
        /// random of RFC 8446 section 4.1.3).
        Handshake(Vec<(u8, bool)>),
        /// change_cipher_spec(20), alert(21), application_data(23), ack(26).
        Kind(MessageKind),
        /// A protected DTLS 1.3 record or a DTLS 1.2 record with a
        /// connection ID (RFC 9146): the type is inside the encryption.
        Hidden,
    }

    #[derive(Debug, PartialEq)]
    pub(super) struct Record {
        pub content: Content,
        /// The epoch (DTLS 1.3 protected records: its low two bits, all
        /// the header carries).
        pub epoch: u64,
        /// The sequence number; None when encrypted on the wire (DTLS 1.3,
        /// RFC 9147 section 4.2.3).
        pub seq: Option<u64>,
        /// Header and fragment.
        pub bytes: u64,
    }

    impl Record {
        /// `row` with this record's epoch and sequence number.
        pub(super) fn numbered(&self, row: ProtocolRow) -> ProtocolRow {
            ProtocolRow {
                epoch: Some(self.epoch),
                seq: self.seq,
                ..row
            }
        }
    }

    const TLS12_CID: u8 = 25;

    /// Every record of a datagram, until one whose length cannot be read
    /// (a connection ID of a length only the endpoints know: that record
    /// is taken to fill the rest of the datagram).
    pub(super) fn records(datagram: &[u8]) -> Vec<Record> {
        let mut out = Vec::new();
        let mut rest = datagram;
        while let Some(&first) = rest.first() {
            let (record, used) = if first & 0xe0 == 0x20 {
                unified(rest)
            } else {
                match plaintext_header(rest) {
                    Some(r) => r,
                    None => break,
                }
            };
            out.push(record);
            rest = &rest[used.min(rest.len())..];
        }
        out
    }

    fn be(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0, |v, &b| (v << 8) | u64::from(b))
    }

    /// type(1) version(2) epoch(2) sequence_number(6) [cid] length(2).
    fn plaintext_header(d: &[u8]) -> Option<(Record, usize)> {
        if d.len() < 13 {
            return None;
        }
        let (epoch, seq) = (be(&d[3..5]), Some(be(&d[5..11])));
        if d[0] == TLS12_CID {
            let bytes = d.len() as u64;
            let content = Content::Hidden;
            return Some((
                Record {
                    content,
                    epoch,
                    seq,
                    bytes,
                },
                d.len(),
            ));
        }
        let len = 13 + be(&d[11..13]) as usize;
        let fragment = &d[13..len.min(d.len())];
        let content = match d[0] {
            20 => Content::Kind(MessageKind::ChangeCipherSpec),
            21 => Content::Kind(MessageKind::Alert),
            22 if epoch == 0 => Content::Handshake(handshake_types(fragment)),
            22 => Content::Handshake(Vec::new()),
            23 => Content::Kind(MessageKind::ApplicationData),
            26 => Content::Kind(MessageKind::Ack),
            _ => return None,
        };
        let bytes = len.min(d.len()) as u64;
        Some((
            Record {
                content,
                epoch,
                seq,
                bytes,
            },
            len,
        ))
    }

    /// The types of the handshake messages (fragments) in a plaintext
    /// record: msg_type(1) length(3) message_seq(2) fragment_offset(3)
    /// fragment_length(3), then the fragment (a ServerHello's begins with
    /// legacy_version(2) and random(32)).
    fn handshake_types(mut f: &[u8]) -> Vec<(u8, bool)> {
        let mut types = Vec::new();
        while f.len() >= 12 {
            let retry = f[0] == 2 && f.get(14..46) == Some(&HRR_RANDOM[..]);
            types.push((f[0], retry));
            let next = 12 + be(&f[9..12]) as usize;
            f = &f[next.min(f.len())..];
        }
        types
    }

    /// 001CSLEE [cid] seq(1 or 2) [length(2)].
    fn unified(d: &[u8]) -> (Record, usize) {
        let (cid, long_seq, has_len) = (d[0] & 0x10 != 0, d[0] & 0x08 != 0, d[0] & 0x04 != 0);
        let epoch = u64::from(d[0] & 0x03);
        let header = 1 + if long_seq { 2 } else { 1 } + if has_len { 2 } else { 0 };
        let len = match (cid, has_len) {
            (false, true) if d.len() >= header => header + be(&d[header - 2..header]) as usize,
            _ => d.len(),
        };
        let bytes = len.min(d.len()) as u64;
        let record = Record {
            content: Content::Hidden,
            epoch,
            seq: None,
            bytes,
        };
        (record, len)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_plaintext_flight_and_a_protected_record_are_read_in_order() {
            // ServerHello (2) and ServerHelloDone (14) in epoch 0, then a
            // CCS, then an epoch-1 handshake record (a Finished)
            let mut d = vec![22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 3, 0, 28];
            d.extend([2, 0, 0, 4, 0, 1, 0, 0, 0, 0, 0, 4, 1, 2, 3, 4]);
            d.extend([14, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]);
            d.extend([20, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 1]);
            d.extend([22, 0xfe, 0xfd, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 9, 9]);
            let r = records(&d);
            assert_eq!(r.len(), 3);
            assert_eq!(
                r[0].content,
                Content::Handshake(vec![(2, false), (14, false)])
            );
            assert_eq!((r[0].epoch, r[0].seq, r[0].bytes), (0, Some(3), 41));
            assert_eq!(r[1].content, Content::Kind(MessageKind::ChangeCipherSpec));
            assert_eq!(r[2].content, Content::Handshake(vec![]));
            assert_eq!((r[2].epoch, r[2].seq, r[2].bytes), (1, Some(0), 15));
        }

        #[test]
        fn a_unified_header_shows_its_epoch_bits_and_hides_its_sequence_number() {
            // 001 C=0 S=0 L=1 EE=2, seq byte, length 3
            let d = [0b0010_0110, 0x55, 0, 3, 1, 2, 3, 0b0010_0011, 0x01, 7, 7];
            let r = records(&d);
            assert_eq!(r.len(), 2);
            assert_eq!((r[0].epoch, r[0].seq, r[0].bytes), (2, None, 7));
            // no length: the record fills the datagram
            assert_eq!((r[1].epoch, r[1].bytes), (3, 4));
        }
    }
}
