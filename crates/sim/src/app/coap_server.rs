//! A CoAP server's side of Confirmable requests (RFC 7252 §4.2, §4.5), the
//! one the CoJP JRC and the EDHOC responder share: a request that is not a
//! Confirmable message is refused; a request seen before from the same
//! endpoint with the same Message ID gets the answer cached for it again,
//! with no work; a new one is answered after the CPU has done its work, and
//! the answer is cached. Answers leave when the CPU releases them.
//!
//! What the answer is, and what a request that cannot be answered costs,
//! stays with each application.

use coap::message::{Message, Type};
use coap::reliability::Deduplicator;

use super::AppCx;
use crate::net::Udp;
use crate::node::cpu::Cpu;
use crate::timer::{TimerTable, Token};
use crate::{NodeId, Time};

crate::timer_kinds! {
    enum Kind {
        /// The CPU releases a deferred answer.
        Send,
    }
}

/// What a datagram to the server turned out to be.
pub enum Incoming {
    /// Not a CoAP message, or not a Confirmable one.
    Refused,
    /// A retransmission of a request already answered: its cached answer
    /// goes again when the CPU is free (`at`).
    Cached { at: Time, answer: Vec<u8> },
    /// A new request, to be answered with [`CoapServer::answer`].
    New(Message),
}

pub struct CoapServer {
    port: u16,
    cpu: Cpu,
    timers: TimerTable<Kind>,
    answered: Deduplicator<(NodeId, u16)>,
    /// Behind join proxies: every answer kept this long (EXCHANGE_LIFETIME,
    /// RFC 7252 §4.5, §4.8.2), not only each endpoint's last, since many
    /// clients share a proxy's endpoint. None: the last per endpoint.
    keep_us: Option<Time>,
    kept: Vec<Kept>,
}

/// An answer kept behind proxies.
struct Kept {
    peer: (NodeId, u16),
    message_id: u16,
    answer: Vec<u8>,
    at: Time,
}

impl CoapServer {
    pub fn new(port: u16) -> Self {
        CoapServer {
            port,
            cpu: Cpu::default(),
            timers: TimerTable::new(),
            answered: Deduplicator::default(),
            keep_us: None,
            kept: Vec::new(),
        }
    }

    /// The same server keeping every answer for `keep_us` (Some) when its
    /// clients reach it through stateless join proxies.
    pub fn behind_proxies(mut self, keep_us: Option<Time>) -> Self {
        self.keep_us = keep_us;
        self
    }

    /// The answer cached for `message_id` from `peer`, if any.
    fn cached(&mut self, now: Time, peer: &(NodeId, u16), message_id: u16) -> Option<Vec<u8>> {
        match self.keep_us {
            None => self.answered.seen(peer, message_id).map(<[u8]>::to_vec),
            Some(keep) => {
                self.kept.retain(|k| now.saturating_sub(k.at) <= keep);
                (self.kept.iter())
                    .find(|k| k.peer == *peer && k.message_id == message_id)
                    .map(|k| k.answer.clone())
            }
        }
    }

    /// Take a datagram sent to the server's port.
    pub fn receive(&mut self, cx: &mut AppCx, udp: &Udp) -> Incoming {
        let Ok(request) = Message::parse(&udp.payload) else {
            return Incoming::Refused;
        };
        if request.ty != Type::Confirmable {
            return Incoming::Refused;
        }
        let peer = (udp.src, udp.src_port);
        match self.cached(cx.now(), &peer, request.message_id) {
            Some(answer) => {
                let at = self.cpu.run(cx, 0);
                // answered in the scope asked in (a pledge on the link)
                self.cpu.send_at(at, udp.src_sockaddr(), answer.clone());
                Incoming::Cached { at, answer }
            }
            None => Incoming::New(request),
        }
    }

    /// Answer the new request `message_id` from `udp`'s sender with
    /// `answer` after `cpu_us` of work; returns when it can leave.
    pub fn answer(
        &mut self,
        cx: &mut AppCx,
        udp: &Udp,
        message_id: u16,
        answer: Vec<u8>,
        cpu_us: Time,
    ) -> Time {
        let at = self.cpu.run(cx, cpu_us);
        let peer = (udp.src, udp.src_port);
        match self.keep_us {
            None => self.answered.answered(&peer, message_id, answer.clone()),
            Some(_) => self.kept.push(Kept {
                peer,
                message_id,
                answer: answer.clone(),
                at: cx.now(),
            }),
        }
        self.cpu.send_at(at, udp.src_sockaddr(), answer);
        at
    }

    /// Send what the CPU has released, and arm the timer for the rest.
    pub fn flush(&mut self, cx: &mut AppCx) {
        self.cpu.flush(cx, &mut self.timers, Kind::Send, self.port);
    }

    pub fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        if let Some(Kind::Send) = self.timers.fired(token) {
            self.flush(cx);
        }
    }
}
