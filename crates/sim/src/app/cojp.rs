//! The Constrained Join Protocol (CoJP, RFC 9031) in virtual time: a
//! pledge's Join Request to the JRC and the JRC's Join Response, one CoAP
//! exchange under OSCORE with the pre-shared-key context (the bytes are
//! `coap::join`'s).
//!
//! - [`Pledge`]: POSTs the Join Request as a Confirmable message, CoAP's
//!   retransmission (RFC 7252 §4.2, the `coap` crate) its only reliability
//!   (RFC 9031 §8.1.1), and is *joined* once a Join Response arrives that
//!   opens and carries a link-layer key set (RFC 9031 §8.4.3). A request
//!   CoAP gives up on is a failed join; the pledge tries again after its
//!   pause.
//! - [`Jrc`]: answers every well-formed Join Request with the network's
//!   Configuration (one link-layer key, a short identifier), a duplicate
//!   with the response it cached (RFC 7252 §4.5), and counts and drops
//!   what is not a Join Request.
//!
//! The Join Proxy: the pledge's parent. With `sessions.join_proxy` (off by
//! default) it is RFC 9031's stateless proxy ([`super::join_proxy`]): the
//! pledge sends its request, with the outer Proxy-Scheme and Uri-Host
//! options, to its parent's link-local address; the parent sends it on to
//! the JRC from its own address with the pledge's state sealed in an RFC
//! 8974 extended token, reads the JRC's echo of it and relays the response
//! to the pledge on the link; its join rate drops what is over it. A
//! pledge next to the JRC asks the JRC on the link. Without it the join's
//! datagrams cross the parent as any routed datagram: the pledge is
//! routed as any node, no rewriting, no state in the message, no join
//! rate, and the pledge talks to the JRC before it is joined.
//!
//! RFC 9031's section numbers here are as recalled: its text could not be
//! read from this machine.
//!
//! OSCORE is charged, not computed: the message lengths are exact
//! ([`coap::oscore::seal`]), and each party's CPU pays the AES-CCM blocks
//! its sealing or opening takes ([`ccm_blocks`]) at the platform's cost,
//! and the pledge the key derivation once.

use coap::cojp::{role, Configuration, JoinRequest, LinkLayerKey, ShortIdentifier};
use coap::join::{join_request, join_response, read_join_request, read_join_response};
use coap::message::Message;
use coap::reliability::{Outcome, Params, Requester};
use dtls::CryptoOps;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::coap_server::{CoapServer, Incoming};
use super::dtls::Kind;
use super::edhoc::COAP_PORT;
use super::join_proxy::{for_join_proxy, JOIN_PORT, JRC_HOST};
use super::record::{HandshakeRecord, Record};
use super::AppCx;
use crate::app::pause::{Pause, Pauses};
use crate::clock::TickClock;
use crate::net::{sockaddr, sockaddr_on_link, Udp};
use crate::node::app::App;
use crate::node::cpu::{Cpu, CryptoCost};
use crate::rng::{stream, Purpose};
use crate::timer::{TimerTable, Token};
use crate::{NodeId, Time};

/// The pledge's source port.
const PLEDGE_PORT: u16 = 49152;
/// Bytes of a link-layer key (AES-128, IEEE 802.15.4 CCM*).
const KEY_BYTES: usize = 16;

/// AES block operations of AES-CCM over `bytes` of plaintext with one block
/// of additional data (RFC 3610 §2: CBC-MAC over B0, the AAD and the
/// plaintext's blocks; CTR over the plaintext's blocks and A0 for the tag).
/// OSCORE's AAD is a short CBOR array (RFC 8613 §5.4), one block here.
pub fn ccm_blocks(bytes: usize) -> u64 {
    let n = bytes.div_ceil(16) as u64;
    1 + 1 + n + n + 1
}

/// SHA-256 compressions of deriving the OSCORE sender key, recipient key
/// and common IV from the PSK (RFC 8613 §3.2.1: HKDF-Extract, then three
/// HKDF-Expand of one block each; an HMAC is 4 compressions of short
/// input). Estimate, from HKDF's structure rather than a measured stack.
const CONTEXT_DERIVATION_SHA256: u64 = 4 * 4;

/// The identifier of the pledge at `node`: an EUI-64-like 8 bytes (the
/// ID Context of its OSCORE context, RFC 9031 §7.1).
pub fn pledge_id(node: NodeId) -> [u8; 8] {
    let mut id = [0x02, 0, 0, 0, 0, 0, 0, 0];
    id[4..].copy_from_slice(&(node as u32).to_be_bytes());
    id
}

/// The CoAP settings of a join.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CojpSetup {
    pub coap: Params,
    /// Token length (RFC 7252 §5.3.1), 0 to 8 bytes.
    pub token_bytes: usize,
}

#[derive(Debug, Clone)]
pub struct PledgeParams {
    pub jrc: NodeId,
    /// The neighbour the pledge joins through, its join proxy, talked to
    /// on the link ([`super::join_proxy`]); the JRC itself when it is the
    /// neighbour. None: the request is routed to the JRC as any datagram.
    pub proxy: Option<NodeId>,
    pub setup: CojpSetup,
    /// When the first Join Request starts.
    pub first_at: Time,
    /// The wait before trying again after a failed join.
    pub retry: Pause,
    pub cost: CryptoCost,
    pub seed: u64,
    pub replication: u64,
    pub timer_tick_us: Time,
}

/// A pledge: joins once, trying again until a Join Response comes.
pub struct Pledge {
    p: PledgeParams,
    node: NodeId,
    clock: TickClock,
    rng: ChaCha8Rng,
    retries: Pauses,
    cpu: Cpu,
    timers: TimerTable<Kind>,
    coap: Requester,
    current: Option<HandshakeRecord>,
    /// OSCORE sender sequence number (RFC 8613 §3.1): never reused.
    seq: u64,
    message_id: u16,
    attempts: u32,
    derived: bool,
    joined: bool,
    /// The join rate its Join Response gave it (bytes per second).
    join_rate: Option<f64>,
}

impl Pledge {
    pub fn new(p: PledgeParams, node: NodeId) -> Self {
        Pledge {
            clock: TickClock::new(p.timer_tick_us, p.seed, p.replication, node),
            rng: stream(p.seed, p.replication, node as u64, Purpose::Dtls),
            retries: Pauses::new(p.retry, p.seed, p.replication, node),
            coap: Requester::new(p.setup.coap),
            p,
            node,
            cpu: Cpu::default(),
            timers: TimerTable::new(),
            current: None,
            seq: 0,
            message_id: 0,
            attempts: 0,
            derived: false,
            joined: false,
            join_rate: None,
        }
    }

    pub(crate) fn begin(&mut self, cx: &mut AppCx) {
        let now = cx.now();
        cx.record(Record::HandshakeStarted {
            index: self.attempts,
        });
        self.current = Some(HandshakeRecord::started(self.attempts, now));
        self.attempts += 1;
        self.coap = Requester::new(self.p.setup.coap);
        let token: Vec<u8> = (0..self.p.setup.token_bytes)
            .map(|_| self.rng.random())
            .collect();
        self.message_id = self.message_id.wrapping_add(1);
        let object = JoinRequest {
            role: Some(role::NODE),
            network_id: None,
        };
        let plain_len = object.to_cbor().len();
        let mut request = join_request(
            self.message_id,
            &token,
            self.seq,
            &pledge_id(self.node),
            &object,
        );
        if self.p.proxy.is_some() {
            request = for_join_proxy(request, JRC_HOST);
        }
        self.seq += 1;
        let mut ops = CryptoOps {
            aes_blocks: ccm_blocks(plain_len),
            ..CryptoOps::default()
        };
        if !std::mem::replace(&mut self.derived, true) {
            ops.sha256_compressions = CONTEXT_DERIVATION_SHA256;
        }
        let ready = self.charge(cx, &ops);
        let u: f64 = self.rng.random();
        self.coap.request(ready, &request, u);
        self.pump(cx, ready);
    }

    /// Run `ops` on the CPU; when it is done.
    fn charge(&mut self, cx: &mut AppCx, ops: &CryptoOps) -> Time {
        let cpu_us = self.p.cost.of(ops);
        if let Some(r) = self.current.as_mut() {
            r.client_crypto_us += cpu_us;
            r.client.crypto.aes_blocks += ops.aes_blocks;
            r.client.crypto.sha256_compressions += ops.sha256_compressions;
        }
        self.cpu.run(cx, cpu_us)
    }

    /// The join proxy asked now: with TSCH formation the neighbour whose
    /// Enhanced Beacon the node associated on (RFC 9031 §4-5: a pledge
    /// joins through a node whose EB it heard), else the one it was built
    /// with (its next hop on the computed routes).
    fn join_proxy(&self, cx: &AppCx) -> Option<NodeId> {
        self.p.proxy.map(|jp| cx.synced_on().unwrap_or(jp))
    }

    /// Queue what CoAP wants sent (at `ready` or later), re-arm its timer,
    /// act on its outcome.
    fn pump(&mut self, cx: &mut AppCx, ready: Time) {
        let to = match self.join_proxy(cx) {
            Some(jp) => sockaddr_on_link(jp, JOIN_PORT),
            None => sockaddr(self.p.jrc, COAP_PORT),
        };
        while let Some(d) = self.coap.poll_transmit() {
            if let Some(r) = self.current.as_mut() {
                r.client.datagrams_sent += 1;
                r.client.bytes_sent += d.len() as u64;
                r.datagrams.push((true, d.len()));
            }
            self.cpu.send_at(ready.max(cx.now()), to, d);
        }
        self.cpu
            .flush(cx, &mut self.timers, Kind::Send, PLEDGE_PORT);
        match self.coap.poll_timeout() {
            Some(t) => self
                .timers
                .set(cx, Kind::Retransmit, self.clock.round_up(t)),
            None => self.timers.stop(Kind::Retransmit),
        }
        while let Some(outcome) = self.coap.poll_outcome() {
            match outcome {
                Outcome::GaveUp => {
                    let now = cx.now();
                    self.finish(cx, now, Some("CoAP: MAX_RETRANSMIT reached".into()));
                }
                Outcome::Response(m) => self.on_response(cx, m),
            }
        }
    }

    /// Joined when the response opens to a Configuration with a key set.
    fn on_response(&mut self, cx: &mut AppCx, m: Message) {
        let ops = CryptoOps {
            aes_blocks: ccm_blocks(m.payload.len().saturating_sub(coap::oscore::TAG_LEN)),
            ..CryptoOps::default()
        };
        let ready = self.charge(cx, &ops);
        let failure = match read_join_response(&m) {
            Ok(c) if c.keys.as_ref().is_some_and(|k| !k.is_empty()) => {
                self.join_rate = c.join_rate;
                None
            }
            Ok(_) => Some("CoJP: Join Response without a link-layer key set".to_string()),
            Err(e) => Some(format!("CoJP Join Response: {e:?}")),
        };
        self.finish(cx, ready, failure);
    }

    fn finish(&mut self, cx: &mut AppCx, at: Time, failure: Option<String>) {
        self.timers.stop(Kind::Retransmit);
        let Some(mut r) = self.current.take() else {
            return;
        };
        r.success = failure.is_none();
        r.failure = failure;
        r.ended_at = at;
        r.keys_at = r.success.then_some(at);
        r.client.retransmissions = self.coap.retransmissions;
        r.client.records_dropped = self.coap.dropped;
        let joined = r.success;
        cx.record(Record::HandshakeEnded(Box::new(r)));
        if joined {
            self.joined = true;
        } else {
            let next = self.clock.round_up(at + self.retries.next_us());
            self.timers.add(cx, Kind::Next, next);
        }
    }

    /// Whether a Join Response has been accepted.
    pub fn joined(&self) -> bool {
        self.joined
    }
}

impl App<Record> for Pledge {
    fn configured_join_rate(&self) -> Option<f64> {
        self.join_rate
    }

    fn start(&mut self, cx: &mut AppCx) {
        let at = self.clock.round_up(self.p.first_at);
        self.timers.add(cx, Kind::Next, at);
    }

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        let from = match self.join_proxy(cx) {
            Some(jp) => udp.src == jp && udp.link_local,
            None => udp.src == self.p.jrc && !udp.link_local,
        };
        if self.current.is_none() || !from || udp.dst_port != PLEDGE_PORT {
            return;
        }
        if let Some(r) = self.current.as_mut() {
            r.client.datagrams_received += 1;
            r.client.bytes_received += udp.payload.len() as u64;
            r.datagrams.push((false, udp.payload.len()));
        }
        self.coap.handle_datagram(&udp.payload);
        self.pump(cx, cx.now());
    }

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        match self.timers.fired(token) {
            Some(Kind::Next) if !self.joined => self.begin(cx),
            Some(Kind::Send) => self
                .cpu
                .flush(cx, &mut self.timers, Kind::Send, PLEDGE_PORT),
            Some(Kind::Retransmit) => {
                let resent = self.coap.retransmissions;
                self.coap.handle_timeout(cx.now());
                if self.current.is_some() && self.coap.retransmissions > resent {
                    cx.record(Record::Retransmitted);
                }
                self.pump(cx, cx.now());
            }
            _ => {}
        }
    }

    fn on_run_end(&mut self, cx: &mut AppCx, why: &str) {
        if self.current.is_some() {
            let now = cx.now();
            self.finish(cx, now, Some(why.to_string()));
        }
    }
}

#[derive(Debug, Clone)]
pub struct JrcParams {
    /// Its pledges reach it through stateless join proxies: every answer
    /// is kept this long for their retransmissions
    /// ([`CoapServer::behind_proxies`]). None: the last per endpoint.
    pub behind_proxies: Option<Time>,
    /// The join rate it sets in each Configuration (RFC 9031's parameter
    /// 7, bytes per second; None: not sent, no limit).
    pub join_rate_bytes_per_s: Option<u64>,
    pub cost: CryptoCost,
    pub seed: u64,
    pub replication: u64,
}

/// The Join Registrar/Coordinator: one Configuration for every pledge.
pub struct Jrc {
    p: JrcParams,
    server: CoapServer,
    /// The network's link-layer key (K1 = K2, RFC 9031 §8.4.3's default
    /// usage), drawn once per run.
    key: Vec<u8>,
    /// Datagrams that were not a well-formed Join Request (dropped).
    pub refused: u64,
}

impl Jrc {
    pub fn new(p: JrcParams, node: NodeId) -> Self {
        let mut rng = stream(p.seed, p.replication, node as u64, Purpose::Dtls);
        let key = (0..KEY_BYTES).map(|_| rng.random()).collect();
        Jrc {
            server: CoapServer::new(COAP_PORT).behind_proxies(p.behind_proxies),
            p,
            key,
            refused: 0,
        }
    }

    fn configuration(&self, pledge: &[u8]) -> Configuration {
        let short = pledge[pledge.len().saturating_sub(2)..].to_vec();
        Configuration {
            keys: Some(vec![LinkLayerKey {
                key_id: 1,
                key_usage: None,
                key_value: self.key.clone(),
            }]),
            short_id: Some(ShortIdentifier {
                identifier: short,
                lease_time: None,
            }),
            // bytes per second as the parameter's float
            join_rate: self.p.join_rate_bytes_per_s.map(|r| r as f64),
            ..Configuration::default()
        }
    }
}

impl App<Record> for Jrc {
    fn start(&mut self, _: &mut AppCx) {}

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        if udp.dst_port != COAP_PORT {
            return;
        }
        match self.server.receive(cx, &udp) {
            Incoming::Refused => {
                self.refused += 1;
                return;
            }
            Incoming::Cached { .. } => {}
            Incoming::New(_) => {
                let Ok((id, outer, _request)) = read_join_request(&udp.payload) else {
                    // an OSCORE request that does not verify gets no answer
                    // here (RFC 8613 §8.2 would send an unprotected 4.01)
                    self.refused += 1;
                    return;
                };
                let response = join_response(&outer, &self.configuration(&id));
                // open the request, seal the response
                let opened = outer.payload.len().saturating_sub(coap::oscore::TAG_LEN);
                let sealed = response.payload.len().saturating_sub(coap::oscore::TAG_LEN);
                let ops = CryptoOps {
                    aes_blocks: ccm_blocks(opened) + ccm_blocks(sealed),
                    ..CryptoOps::default()
                };
                let cpu_us = self.p.cost.of(&ops);
                self.server
                    .answer(cx, &udp, outer.message_id, response.emit(), cpu_us);
            }
        }
        self.server.flush(cx);
    }

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        self.server.on_timer(cx, token);
    }
}

#[cfg(test)]
mod tests {
    //! A join exchanged by hand between the apps, and bad input at the JRC.

    use super::*;
    use crate::app::test_support::{pledge_params, sent};
    use crate::node::app::Recorder;
    use crate::topology::Topology;
    use crate::world::World;

    const PLEDGE: NodeId = 1;
    const JRC: NodeId = 0;

    fn pair() -> (Pledge, Jrc) {
        let pledge = Pledge::new(pledge_params(JRC, None), PLEDGE);
        let jrc = Jrc::new(
            JrcParams {
                behind_proxies: None,
                join_rate_bytes_per_s: None,
                cost: CryptoCost::default(),
                seed: 1,
                replication: 0,
            },
            JRC,
        );
        (pledge, jrc)
    }

    #[test]
    fn a_join_request_is_answered_with_the_key_and_the_pledge_is_joined() {
        let mut world = World::new(Topology::line(2, 1.0).unwrap(), 1, 0);
        let mut rec = Recorder::default();
        let (mut pledge, mut jrc) = pair();
        let req = sent(&mut world, &mut rec, PLEDGE, |cx| pledge.begin(cx));
        assert_eq!(req.len(), 1);
        assert_eq!(req[0].payload.len(), 36);
        // garbage and a cut request first: counted, unanswered
        for bad in [vec![0xff; 3], req[0].payload[..20].to_vec()] {
            let udp = Udp::new(PLEDGE, PLEDGE_PORT, JRC, COAP_PORT, bad);
            assert!(sent(&mut world, &mut rec, JRC, |cx| jrc.on_udp(cx, udp)).is_empty());
        }
        assert_eq!(jrc.refused, 2);
        let udp = Udp::new(PLEDGE, PLEDGE_PORT, JRC, COAP_PORT, req[0].payload.clone());
        let resp = sent(&mut world, &mut rec, JRC, |cx| jrc.on_udp(cx, udp));
        assert_eq!(resp.len(), 1);
        assert_eq!(resp[0].payload.len(), 46);
        let udp = Udp::new(JRC, COAP_PORT, PLEDGE, PLEDGE_PORT, resp[0].payload.clone());
        sent(&mut world, &mut rec, PLEDGE, |cx| pledge.on_udp(cx, udp));
        assert!(pledge.joined());
        let ended: Vec<_> = rec
            .entries()
            .iter()
            .filter_map(|e| match &e.record {
                Record::HandshakeEnded(r) => Some(r.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(ended.len(), 1);
        assert!(ended[0].success, "{:?}", ended[0].failure);
        assert_eq!(
            ended[0].client.bytes_sent + ended[0].client.bytes_received,
            82
        );
    }
}
