//! This side's current flight (RFC 9147 §5.8): its handshake messages kept
//! whole until the flight is acknowledged, which fragment went in which
//! record, and which fragments the peer has ACKed, so a retransmission
//! resends only what was not acknowledged (§7.1).

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
        let len = self.msg.body.len();
        if len == 0 {
            return if self.empty_acked {
                vec![]
            } else {
                vec![(0, 0)]
            };
        }
        let mut gaps = Vec::new();
        let mut at = 0;
        for &(s, e) in &self.acked {
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

    fn ack(&mut self, offset: usize, len: usize) {
        if len == 0 {
            self.empty_acked = true;
            return;
        }
        self.acked.push((offset, offset + len));
        self.acked.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(self.acked.len());
        for &(s, e) in &self.acked {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        self.acked = merged;
    }
}

/// The flight this side sent last.
#[derive(Clone, Debug, Default)]
pub(crate) struct OutFlight {
    messages: Vec<Tracked>,
    /// Record number → fragment it carried.
    sent: Vec<(RecordNumber, Fragment)>,
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

    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    pub fn message(&self, i: usize) -> &OutMessage {
        &self.messages[i].msg
    }

    /// The fragments not yet acknowledged, each at most `max_len(epoch)`
    /// bytes of body, in message order.
    pub fn unacked_fragments(&self, max_len: impl Fn(u64) -> usize) -> Vec<Fragment> {
        let mut out = Vec::new();
        for (i, t) in self.messages.iter().enumerate() {
            let max = max_len(t.msg.epoch).max(1);
            for (s, e) in t.unacked() {
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
        self.sent.push((number, fragment));
    }

    /// Mark what `ack` covers; true when the whole flight is acknowledged.
    pub fn on_ack(&mut self, ack: &Ack) -> bool {
        for (n, f) in &self.sent {
            if ack.contains(n) {
                self.messages[f.message].ack(f.offset, f.len);
            }
        }
        self.is_acked()
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
        let frags = f.unacked_fragments(|_| 4);
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
        assert!(!f.on_ack(&ack));
        let left = f.unacked_fragments(|_| 100);
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
        assert!(f.on_ack(&ack));
        assert!(f.unacked_fragments(|_| 4).is_empty());
    }
}
