//! A per-event trace of one replication, when asked for: one row per frame
//! put on the air, per reception judged, per payload delivered to a network
//! layer, per timer fired and per application record, in the order they
//! happened. A row names its layer and kind in words, so this floor knows
//! nothing of the applications: they map their records onto rows. Bounded: past `limit` rows nothing more is kept, only counted,
//! so a long run cannot fill the memory.

use crate::channel::EmissionId;
use crate::world::Sent;
use crate::{NodeId, Time};

/// What became of a reception the channel judged (see `World::judge`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RxOutcome {
    Received,
    /// The train was cut before this copy.
    Cut,
    /// The receiver was not listening on that channel through the whole frame.
    NotListening,
    /// Another audible emission overlapped it (both are lost).
    Collided,
    /// Fault injection named this emission.
    Jammed,
    /// The link's delivery draw failed (or there is no link).
    Faded,
}

impl RxOutcome {
    /// Every outcome, in declaration order (`as usize` indexes it).
    pub const ALL: [RxOutcome; 6] = [
        RxOutcome::Received,
        RxOutcome::Cut,
        RxOutcome::NotListening,
        RxOutcome::Collided,
        RxOutcome::Jammed,
        RxOutcome::Faded,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RxOutcome::Received => "received",
            RxOutcome::Cut => "cut",
            RxOutcome::NotListening => "not_listening",
            RxOutcome::Collided => "collided",
            RxOutcome::Jammed => "jammed",
            RxOutcome::Faded => "faded",
        }
    }
}

/// One row of the trace.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraceEvent {
    pub at: Time,
    pub node: NodeId,
    /// "phy", "mac", "net", "app", "rpl", or "node" (its power-on).
    pub layer: &'static str,
    /// "tx", "rx", "deliver", "timer" or the application record's name.
    pub kind: &'static str,
    pub emission: Option<EmissionId>,
    /// The copy of a strobe train (0 for a plain frame).
    pub copy: Option<u64>,
    pub bytes: Option<u64>,
    /// The other end: the sender of a frame or payload, the client of a record.
    pub peer: Option<NodeId>,
    pub outcome: &'static str,
    /// A security protocol's message ("ClientHello", "Ack", "message_2"…)
    /// or the state its endpoint entered ("WaitServerHelloDone"); "" else.
    pub message: &'static str,
    /// A DTLS record's epoch (DTLS 1.3 protected records: its low two
    /// bits, all the unified header carries).
    pub epoch: Option<u64>,
    /// A DTLS record's sequence number (None where the header encrypts
    /// it, DTLS 1.3), or a CoAP message's Message ID.
    pub seq: Option<u64>,
}

/// A row a security protocol's application writes: a message sent or
/// received, a retransmission, a state entered.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProtocolRow {
    /// "dtls", "edhoc" or "coap".
    pub layer: &'static str,
    /// "tx", "rx", "retransmit" or "state".
    pub kind: &'static str,
    pub message: &'static str,
    pub bytes: Option<u64>,
    pub peer: Option<NodeId>,
    pub outcome: &'static str,
    /// See [`TraceEvent::epoch`] and [`TraceEvent::seq`].
    pub epoch: Option<u64>,
    pub seq: Option<u64>,
}

impl ProtocolRow {
    pub fn at(self, at: Time, node: NodeId) -> TraceEvent {
        TraceEvent {
            at,
            node,
            layer: self.layer,
            kind: self.kind,
            emission: None,
            copy: None,
            bytes: self.bytes,
            peer: self.peer,
            outcome: self.outcome,
            message: self.message,
            epoch: self.epoch,
            seq: self.seq,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Trace {
    pub events: Vec<TraceEvent>,
    limit: usize,
    /// Rows not kept for the limit.
    pub dropped: u64,
    /// The time of the latest row made during the run.
    latest: Time,
    /// Rows made during the run at a time before an earlier row's: virtual
    /// time went backwards (0 in a sound run; `finish` sorts the rows, so
    /// this is the only record of it).
    pub went_back: u64,
}

impl Trace {
    pub fn new(limit: usize) -> Self {
        Trace {
            events: Vec::new(),
            limit,
            dropped: 0,
            latest: 0,
            went_back: 0,
        }
    }

    /// A row made during the run, at the engine's current time.
    pub fn push(&mut self, e: TraceEvent) {
        if e.at < self.latest {
            self.went_back += 1;
        }
        self.latest = self.latest.max(e.at);
        self.keep(e);
    }

    /// A row made during the run for a moment other than the engine's
    /// current time (a message stamped when it will leave the CPU): kept,
    /// but outside the check that time never goes back.
    pub fn push_stamped(&mut self, e: TraceEvent) {
        self.keep(e);
    }

    fn keep(&mut self, e: TraceEvent) {
        if self.events.len() < self.limit {
            self.events.push(e);
        } else {
            self.dropped += 1;
        }
    }

    /// The run is over: add every copy of every frame sent (as the pcap
    /// writes them) and the rows of the applications' records, then order
    /// all rows by time (stable: rows of one instant keep the order they
    /// were made in).
    pub fn finish(&mut self, sent: &[Sent], records: impl IntoIterator<Item = TraceEvent>) {
        for s in sent {
            for copy in 0..s.copies {
                self.keep(TraceEvent {
                    at: s.at + copy * s.period,
                    node: s.node,
                    layer: "phy",
                    kind: "tx",
                    emission: Some(s.emission),
                    copy: Some(copy),
                    bytes: Some(s.frame.len() as u64),
                    peer: None,
                    outcome: "sent",
                    ..TraceEvent::default()
                });
            }
        }
        for row in records {
            self.keep(row);
        }
        self.events.sort_by_key(|e| e.at);
    }

    /// Check the frame rows of a finished trace: virtual time never went
    /// backwards, and every reception judged belongs to a copy that was
    /// sent (or, cut, to one a train no longer sends), comes from its
    /// sender, ends after the copy began, is judged once per receiver and
    /// ends with one of the [`RxOutcome`]s. A copy no receiver judged had
    /// no receiver listening when it began (radios asleep, or no link).
    /// Returns what the frames became, or every rule broken.
    pub fn check_frames(&self) -> Result<FrameOutcomes, Vec<String>> {
        use std::collections::{BTreeMap, BTreeSet};
        let mut problems = Vec::new();
        if self.dropped > 0 {
            problems.push(format!(
                "{} rows past the limit: the trace is incomplete",
                self.dropped
            ));
        }
        if self.went_back > 0 {
            problems.push(format!("time went backwards {} times", self.went_back));
        }
        // (emission, copy) → (sender, start); emission → (sender, copies)
        let mut copies = BTreeMap::new();
        let mut emissions: BTreeMap<EmissionId, (NodeId, u64)> = BTreeMap::new();
        for e in self
            .events
            .iter()
            .filter(|e| e.layer == "phy" && e.kind == "tx")
        {
            let (Some(id), Some(copy)) = (e.emission, e.copy) else {
                problems.push(format!("a tx row names no emission or copy: {e:?}"));
                continue;
            };
            copies.insert((id, copy), (e.node, e.at));
            let sent = emissions.entry(id).or_insert((e.node, 0));
            sent.1 = sent.1.max(copy + 1);
        }
        let mut out = FrameOutcomes {
            copies_sent: copies.len() as u64,
            ..FrameOutcomes::default()
        };
        let mut judged = BTreeSet::new();
        let mut heard = BTreeSet::new();
        for e in self
            .events
            .iter()
            .filter(|e| e.layer == "phy" && e.kind == "rx")
        {
            let (Some(id), Some(copy)) = (e.emission, e.copy) else {
                problems.push(format!("an rx row names no emission or copy: {e:?}"));
                continue;
            };
            let Some(&(sender, sent)) = emissions.get(&id) else {
                problems.push(format!("a reception of emission {id}, never sent: {e:?}"));
                continue;
            };
            if e.peer != Some(sender) || e.node == sender {
                problems.push(format!("a reception not from its sender {sender}: {e:?}"));
            }
            if !judged.insert((id, copy, e.node)) {
                problems.push(format!("a copy judged twice at one receiver: {e:?}"));
            }
            let Some(outcome) = RxOutcome::ALL.into_iter().find(|o| o.name() == e.outcome) else {
                problems.push(format!("a reception with no known outcome: {e:?}"));
                continue;
            };
            if copy >= sent {
                // a copy the train no longer sends can only have been cut
                if outcome != RxOutcome::Cut {
                    problems.push(format!(
                        "copy {copy} of {sent} sent is {}: {e:?}",
                        e.outcome
                    ));
                }
            } else {
                let (_, start) = copies[&(id, copy)];
                if e.at <= start {
                    problems.push(format!(
                        "a reception ends before its copy began at {start}: {e:?}"
                    ));
                }
                heard.insert((id, copy));
            }
            out.receptions[outcome as usize] += 1;
        }
        out.copies_unheard = out.copies_sent - heard.len() as u64;
        if problems.is_empty() {
            Ok(out)
        } else {
            Err(problems)
        }
    }
}

/// What the frames of one traced run became (see [`Trace::check_frames`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameOutcomes {
    /// Copies put on the air (a plain frame is one copy).
    pub copies_sent: u64,
    /// Copies no receiver was listening for when they began.
    pub copies_unheard: u64,
    /// Receptions judged, by outcome, in the order of [`RxOutcome::ALL`].
    pub receptions: [u64; RxOutcome::ALL.len()],
}
