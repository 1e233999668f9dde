//! Confirmable messages (RFC 7252 section 4.2): the requester resends a
//! Confirmable request until its Acknowledgement arrives, after a first
//! timeout drawn between ACK_TIMEOUT and ACK_TIMEOUT · ACK_RANDOM_FACTOR
//! and doubling with each resend, at most MAX_RETRANSMIT times; the
//! responder answers a duplicate with the response it already sent
//! (section 4.5), not by handling the request again. Responses here are
//! piggybacked on the Acknowledgement (section 5.2.1).

use crate::message::{Message, Type};

/// Microseconds, the caller's clock (virtual or wall).
pub type Time = u64;

/// The transmission parameters (RFC 7252 section 4.8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub ack_timeout_us: Time,
    pub ack_random_factor: f64,
    pub max_retransmit: u32,
}

impl Default for Params {
    /// RFC 7252 section 4.8: ACK_TIMEOUT 2 s, ACK_RANDOM_FACTOR 1.5,
    /// MAX_RETRANSMIT 4.
    fn default() -> Self {
        Params {
            ack_timeout_us: 2_000_000,
            ack_random_factor: 1.5,
            max_retransmit: 4,
        }
    }
}

impl Params {
    /// EXCHANGE_LIFETIME (RFC 7252 section 4.8.2): MAX_TRANSMIT_SPAN
    /// (ACK_TIMEOUT × (2^MAX_RETRANSMIT - 1) × ACK_RANDOM_FACTOR) + 2 ×
    /// MAX_LATENCY (100 s) + PROCESSING_DELAY (ACK_TIMEOUT): how long a
    /// Confirmable message may still be repeated after it was first sent.
    pub fn exchange_lifetime_us(&self) -> Time {
        const MAX_LATENCY_US: f64 = 100e6;
        let span = self.ack_timeout_us as f64
            * (2f64.powi(self.max_retransmit as i32) - 1.0)
            * self.ack_random_factor;
        (span + 2.0 * MAX_LATENCY_US) as Time + self.ack_timeout_us
    }

    /// The first timeout for a uniform draw `u` in [0, 1).
    pub fn initial_timeout_us(&self, u: f64) -> Time {
        let span = self.ack_timeout_us as f64 * (self.ack_random_factor - 1.0);
        self.ack_timeout_us + (u * span) as Time
    }
}

/// What became of the request under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Its piggybacked response.
    Response(Message),
    /// MAX_RETRANSMIT resends and no Acknowledgement.
    GaveUp,
}

#[derive(Debug)]
struct Pending {
    message_id: u16,
    token: Vec<u8>,
    datagram: Vec<u8>,
    timeout_us: Time,
    deadline: Time,
    retransmissions: u32,
}

/// The client side: one Confirmable request at a time.
#[derive(Debug)]
pub struct Requester {
    params: Params,
    pending: Option<Pending>,
    outbox: Vec<Vec<u8>>,
    outcomes: Vec<Outcome>,
    /// Resends so far (all requests).
    pub retransmissions: u64,
    /// Datagrams that were not the awaited Acknowledgement (stale, malformed).
    pub dropped: u64,
}

impl Requester {
    pub fn new(params: Params) -> Self {
        Requester {
            params,
            pending: None,
            outbox: Vec::new(),
            outcomes: Vec::new(),
            retransmissions: 0,
            dropped: 0,
        }
    }

    /// Send `request` (Confirmable) now; `u` in [0, 1) draws its first timeout.
    pub fn request(&mut self, now: Time, request: &Message, u: f64) {
        debug_assert_eq!(request.ty, Type::Confirmable);
        let datagram = request.emit();
        self.outbox.push(datagram.clone());
        let timeout_us = self.params.initial_timeout_us(u);
        self.pending = Some(Pending {
            message_id: request.message_id,
            token: request.token.clone(),
            datagram,
            timeout_us,
            deadline: now + timeout_us,
            retransmissions: 0,
        });
    }

    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        (!self.outbox.is_empty()).then(|| self.outbox.remove(0))
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.pending.as_ref().map(|p| p.deadline)
    }

    pub fn poll_outcome(&mut self) -> Option<Outcome> {
        (!self.outcomes.is_empty()).then(|| self.outcomes.remove(0))
    }

    pub fn handle_timeout(&mut self, now: Time) {
        let Some(p) = self.pending.as_mut() else {
            return;
        };
        if now < p.deadline {
            return;
        }
        if p.retransmissions == self.params.max_retransmit {
            self.pending = None;
            self.outcomes.push(Outcome::GaveUp);
            return;
        }
        p.retransmissions += 1;
        p.timeout_us *= 2;
        p.deadline = now + p.timeout_us;
        self.retransmissions += 1;
        self.outbox.push(p.datagram.clone());
    }

    pub fn handle_datagram(&mut self, datagram: &[u8]) {
        let awaited = |m: &Message, p: &Pending| {
            m.ty == Type::Acknowledgement && m.message_id == p.message_id && m.token == p.token
        };
        match (Message::parse(datagram), self.pending.as_ref()) {
            (Ok(m), Some(p)) if awaited(&m, p) => {
                self.pending = None;
                self.outcomes.push(Outcome::Response(m));
            }
            _ => self.dropped += 1,
        }
    }
}

/// The server side's memory of what it answered (RFC 7252 section 4.5):
/// the last request's message ID per peer and the response to it.
#[derive(Debug, Default)]
pub struct Deduplicator<Peer> {
    last: Vec<(Peer, u16, Vec<u8>)>,
}

impl<Peer: PartialEq + Clone> Deduplicator<Peer> {
    /// The response already sent to this request, if it is a duplicate.
    pub fn seen(&self, peer: &Peer, message_id: u16) -> Option<&[u8]> {
        self.last
            .iter()
            .find(|(p, id, _)| p == peer && *id == message_id)
            .map(|(_, _, r)| r.as_slice())
    }

    pub fn answered(&mut self, peer: &Peer, message_id: u16, response: Vec<u8>) {
        self.last.retain(|(p, _, _)| p != peer);
        self.last.push((peer.clone(), message_id, response));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::code;

    /// RFC 7252 section 4.8.2's default: 93 s + 200 s + 2 s = 247 s.
    #[test]
    fn the_default_exchange_lifetime_is_247_s() {
        assert_eq!(Params::default().exchange_lifetime_us(), 247_000_000);
    }

    fn con() -> Message {
        Message::new(Type::Confirmable, code::POST, 7, &[1])
    }

    #[test]
    fn resends_double_then_give_up_after_max_retransmit() {
        let mut r = Requester::new(Params::default());
        r.request(0, &con(), 0.0);
        assert!(r.poll_transmit().is_some());
        // RFC 7252 section 4.2: 2, 4, 8, 16 s between sends, then 32 s of
        // waiting for the last: given up at 62 s (MAX_TRANSMIT_WAIT is
        // 93 s with the largest first timeout, section 4.8.2).
        let mut sends = vec![];
        while let Some(t) = r.poll_timeout() {
            r.handle_timeout(t);
            if r.poll_transmit().is_some() {
                sends.push(t);
            }
        }
        assert_eq!(sends, vec![2_000_000, 6_000_000, 14_000_000, 30_000_000]);
        assert_eq!(r.poll_outcome(), Some(Outcome::GaveUp));
        assert_eq!(r.retransmissions, 4);
    }

    #[test]
    fn first_timeout_is_drawn_within_the_random_factor() {
        let p = Params::default();
        assert_eq!(p.initial_timeout_us(0.0), 2_000_000);
        assert_eq!(p.initial_timeout_us(0.5), 2_500_000);
        assert!(p.initial_timeout_us(0.999_999) < 3_000_000);
    }

    #[test]
    fn the_matching_acknowledgement_ends_the_exchange() {
        let mut r = Requester::new(Params::default());
        r.request(0, &con(), 0.0);
        let stale = Message::new(Type::Acknowledgement, code::CHANGED, 6, &[1]).emit();
        r.handle_datagram(&stale);
        r.handle_datagram(&[0xff]);
        assert_eq!(r.dropped, 2);
        let ack = Message::new(Type::Acknowledgement, code::CHANGED, 7, &[1]);
        r.handle_datagram(&ack.emit());
        assert_eq!(r.poll_outcome(), Some(Outcome::Response(ack)));
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn a_duplicate_gets_the_same_response() {
        let mut d = Deduplicator::default();
        d.answered(&3u16, 7, vec![1, 2]);
        assert_eq!(d.seen(&3, 7), Some(&[1u8, 2][..]));
        assert_eq!(d.seen(&3, 8), None);
        d.answered(&3u16, 8, vec![3]);
        assert_eq!(d.seen(&3, 7), None);
    }
}
