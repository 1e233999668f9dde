//! This side's current flight (RFC 9147 §5.8): its handshake messages kept
//! whole until the flight is acknowledged, which fragment went in which
//! record, and which fragments the peer has ACKed, so a retransmission
//! resends only what was not acknowledged (§7.1).
//!
//! An ACK that leaves part of the flight unacknowledged should make the
//! sender resend the rest at once (§7.2). An ACK speaks only for records
//! sent before the newest one it lists, though: the peer ACKs a gap as soon
//! as it sees one, while the later records of the same flight may still be
//! on their way. So a record is taken for lost when the peer acknowledged
//! a record sent after it (QUIC's packet threshold of one, RFC 9002
//! §6.1.1), and only the byte ranges of lost records are resent early; the
//! timer resends everything unacknowledged.

use super::ack::{Ack, RecordNumber};

/// One handshake message of a flight.
#[derive(Clone, Debug)]
pub(crate) struct OutMessage {
    pub msg_type: u8,
    pub seq: u16,
    pub epoch: u64,
    pub body: Vec<u8>,
}

/// A piece of a message to put into one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fragment {
    pub message: usize,
    pub offset: usize,
    pub len: usize,
}

/// Byte ranges of `0..len` that `covered` (sorted, merged) leaves open; an
/// empty message is open unless `empty_covered`.
fn gaps(len: usize, covered: &[(usize, usize)], empty_covered: bool) -> Vec<(usize, usize)> {
    if len == 0 {
        return if empty_covered { vec![] } else { vec![(0, 0)] };
    }
    let mut gaps = Vec::new();
    let mut at = 0;
    for &(s, e) in covered {
        if s > at {
            gaps.push((at, s));
        }
        at = at.max(e);
    }
    if at < len {
        gaps.push((at, len));
    }
    gaps
}

/// Sort and merge byte ranges.
fn merge(ranges: &mut Vec<(usize, usize)>) {
    ranges.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for &(s, e) in ranges.iter() {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    *ranges = merged;
}

#[derive(Clone, Debug)]
struct Tracked {
    msg: OutMessage,
    /// Acknowledged byte ranges, sorted and merged.
    acked: Vec<(usize, usize)>,
    /// An empty message, acknowledged.
    empty_acked: bool,
}

impl Tracked {
    fn unacked(&self) -> Vec<(usize, usize)> {
        gaps(self.msg.body.len(), &self.acked, self.empty_acked)
    }

    fn ack(&mut self, offset: usize, len: usize) {
        if len == 0 {
            self.empty_acked = true;
            return;
        }
        self.acked.push((offset, offset + len));
        merge(&mut self.acked);
    }
}

/// What became of a record of the flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    /// Neither acknowledged nor known lost: maybe still on its way.
    InFlight,
    Acked,
    /// A later record was acknowledged and this one not, or the flight was
    /// resent whole since: its bytes are no longer on their way.
    Lost,
}

#[derive(Clone, Copy, Debug)]
struct SentRecord {
    number: RecordNumber,
    fragment: Fragment,
    fate: Fate,
}

/// What an ACK did to the flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AckOutcome {
    /// Every message of the flight is now acknowledged.
    pub complete: bool,
    /// Records were newly found lost: [`OutFlight::lost_fragments`] has
    /// something to resend.
    pub newly_lost: bool,
}

/// The flight this side sent last.
#[derive(Clone, Debug, Default)]
pub(crate) struct OutFlight {
    messages: Vec<Tracked>,
    /// Every record sent for the flight, in sending order.
    sent: Vec<SentRecord>,
}

impl OutFlight {
    pub fn new(messages: Vec<OutMessage>) -> Self {
        OutFlight {
            messages: messages
                .into_iter()
                .map(|msg| Tracked {
                    msg,
                    acked: Vec::new(),
                    empty_acked: false,
                })
                .collect(),
            sent: Vec::new(),
        }
    }

    /// Bytes it holds on the heap: the messages kept whole, their
    /// acknowledged ranges, and one entry per record sent.
    pub fn heap_bytes(&self) -> usize {
        self.messages.capacity() * core::mem::size_of::<Tracked>()
            + self
                .messages
                .iter()
                .map(|t| {
                    t.msg.body.capacity()
                        + t.acked.capacity() * core::mem::size_of::<(usize, usize)>()
                })
                .sum::<usize>()
            + self.sent.capacity() * core::mem::size_of::<SentRecord>()
    }

    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    pub fn message(&self, i: usize) -> &OutMessage {
        &self.messages[i].msg
    }

    /// The fragments not yet acknowledged, each at most `max_len(epoch)`
    /// bytes of body, in message order. They are all to be resent: every
    /// record sent before is given up for lost.
    pub fn resend_all(&mut self, max_len: impl Fn(u64) -> usize) -> Vec<Fragment> {
        for r in &mut self.sent {
            if r.fate == Fate::InFlight {
                r.fate = Fate::Lost;
            }
        }
        self.split(max_len, |_, t| t.unacked())
    }

    /// The fragments neither acknowledged nor still on their way in a
    /// record not known lost, each at most `max_len(epoch)` bytes of body.
    pub fn lost_fragments(&self, max_len: impl Fn(u64) -> usize) -> Vec<Fragment> {
        self.split(max_len, |i, t| {
            let mut covered = t.acked.clone();
            let mut empty_covered = t.empty_acked;
            for r in &self.sent {
                if r.fate == Fate::InFlight && r.fragment.message == i {
                    covered.push((r.fragment.offset, r.fragment.offset + r.fragment.len));
                    empty_covered |= r.fragment.len == 0;
                }
            }
            merge(&mut covered);
            gaps(t.msg.body.len(), &covered, empty_covered)
        })
    }

    /// Split each message's `open` ranges into fragments of at most
    /// `max_len(epoch)` bytes, in message order.
    fn split(
        &self,
        max_len: impl Fn(u64) -> usize,
        open: impl Fn(usize, &Tracked) -> Vec<(usize, usize)>,
    ) -> Vec<Fragment> {
        let mut out = Vec::new();
        for (i, t) in self.messages.iter().enumerate() {
            let max = max_len(t.msg.epoch).max(1);
            for (s, e) in open(i, t) {
                let mut at = s;
                loop {
                    let len = max.min(e - at);
                    out.push(Fragment {
                        message: i,
                        offset: at,
                        len,
                    });
                    at += len;
                    if at >= e {
                        break;
                    }
                }
            }
        }
        out
    }

    pub fn record_sent(&mut self, number: RecordNumber, fragment: Fragment) {
        self.sent.push(SentRecord {
            number,
            fragment,
            fate: Fate::InFlight,
        });
    }

    /// Mark what `ack` covers, and as lost every record still in flight
    /// that was sent before the newest record `ack` covers.
    pub fn on_ack(&mut self, ack: &Ack) -> AckOutcome {
        let mut newest_acked = None;
        for (i, r) in self.sent.iter_mut().enumerate() {
            if ack.contains(&r.number) {
                r.fate = Fate::Acked;
                let f = r.fragment;
                self.messages[f.message].ack(f.offset, f.len);
                newest_acked = Some(i);
            }
        }
        let mut newly_lost = false;
        for r in &mut self.sent[..newest_acked.unwrap_or(0)] {
            if r.fate == Fate::InFlight {
                r.fate = Fate::Lost;
                newly_lost = true;
            }
        }
        let complete = self.is_acked();
        AckOutcome {
            complete,
            newly_lost: newly_lost && !complete,
        }
    }

    pub fn is_acked(&self) -> bool {
        self.messages.iter().all(|t| t.unacked().is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(seq: u16, len: usize) -> OutMessage {
        OutMessage {
            msg_type: 20,
            seq,
            epoch: 2,
            body: vec![0; len],
        }
    }

    #[test]
    fn only_unacknowledged_fragments_come_back() {
        let mut f = OutFlight::new(vec![msg(1, 10), msg(2, 5)]);
        let frags = f.resend_all(|_| 4);
        assert_eq!(frags.len(), 3 + 2);
        for (i, fr) in frags.iter().enumerate() {
            f.record_sent(
                RecordNumber {
                    epoch: 2,
                    seq: i as u64,
                },
                *fr,
            );
        }
        let mut ack = Ack::new();
        ack.insert(RecordNumber { epoch: 2, seq: 1 });
        ack.insert(RecordNumber { epoch: 2, seq: 3 });
        assert!(!f.on_ack(&ack).complete);
        let left = f.resend_all(|_| 100);
        assert_eq!(
            left,
            vec![
                Fragment {
                    message: 0,
                    offset: 0,
                    len: 4
                },
                Fragment {
                    message: 0,
                    offset: 8,
                    len: 2
                },
                Fragment {
                    message: 1,
                    offset: 4,
                    len: 1
                },
            ]
        );
        for n in [0, 2, 4] {
            ack.insert(RecordNumber { epoch: 2, seq: n });
        }
        assert!(f.on_ack(&ack).complete);
        assert!(f.resend_all(|_| 4).is_empty());
    }

    #[test]
    fn an_ack_loses_only_records_sent_before_its_newest() {
        let mut f = OutFlight::new(vec![msg(1, 12)]);
        let frags = f.resend_all(|_| 4);
        for (i, fr) in frags.iter().enumerate() {
            f.record_sent(
                RecordNumber {
                    epoch: 2,
                    seq: i as u64,
                },
                *fr,
            );
        }
        // record 0 is lost, 1 arrives and is ACKed, 2 is still on its way
        let mut ack = Ack::new();
        ack.insert(RecordNumber { epoch: 2, seq: 1 });
        let outcome = f.on_ack(&ack);
        assert_eq!(
            outcome,
            AckOutcome {
                complete: false,
                newly_lost: true
            }
        );
        let lost = f.lost_fragments(|_| 100);
        assert_eq!(lost, vec![frags[0]]);
        f.record_sent(RecordNumber { epoch: 2, seq: 3 }, lost[0]);
        // the same ACK again (the peer saw record 2 next) finds nothing new
        assert!(!f.on_ack(&ack).newly_lost);
        assert!(f.lost_fragments(|_| 100).is_empty());
        // the timer gives up on everything still open
        assert_eq!(f.resend_all(|_| 100).len(), 2);
    }
}
