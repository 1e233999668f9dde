//! The Join Proxy (JP) of RFC 9031: a joined neighbour of a pledge that
//! relays the pledge's CoAP join traffic to the JRC and back, keeping no
//! per-pledge state.
//!
//! What the texts read here say, and what this module does with it:
//!
//! - The pledge, not yet part of the network, talks only to its JP, over
//!   link-local addresses (the constrained-join-proxy draft, section
//!   "constrained Join Proxy functionality": "the Pledge can only
//!   communicate one-hop to its nearest neighbor ... using link-local IPv6
//!   addresses"). Here its JP is, with TSCH formation, the neighbour whose
//!   Enhanced Beacon it associated on (RFC 9031 §4-5: the pledge hears the
//!   EBs of nodes part of the network and joins through one), else its
//!   parent, its next hop to the JRC (the neighbour
//!   `sessions.join_after_parent` waits on). Both link-local
//!   addresses derive from the MAC addresses and IPHC elides both
//!   ([`crate::net::link_local_address`], RFC 6282 §3.1.1).
//! - Port: the JP's CoAP port, 5683 (the draft: a join port not discovered
//!   is the default CoAP port; RFC 7252 §6.1), [`JOIN_PORT`]; the JP sends
//!   to the JRC from that same port (the draft's "fixed source UDP port";
//!   OpenWSN's `opencoap_forward_message` sends from and to 5683).
//! - The pledge's request (RFC 9031 §8.1.1, as the draft's section
//!   "Stateless Join Proxy" lists it and OpenWSN's `cjoin`/`opencoap`
//!   implement it): a Confirmable POST carrying Proxy-Scheme "coap" and
//!   Uri-Host "6tisch.arpa" (the JRC's well-known name), both OSCORE class
//!   U (outer) options ([`for_join_proxy`]). The JP drops both, as
//!   OpenWSN's `opencoap_handle_proxy_scheme` does, and sends the rest to
//!   the JRC's address.
//! - No state at the JP: it puts what it needs to answer the pledge in the
//!   CoAP token of the forwarded request, an RFC 8974 extended token, which
//!   the JRC echoes (RFC 7252 §5.3.1) and must support (RFC 9031 §7.1 as
//!   the draft cites it: the state is carried "using the CoAP extended
//!   token in a way identical to that described in RFC 9031"). The drafts
//!   before RFC 9031 used a Stateless-Proxy option instead (OpenWSN's
//!   `opencoap_add_stateless_proxy_option`, unprotected "due to the lack of
//!   space"); the RFC's token is modelled here.
//! - The state object (its layout is the JP's own business, RFC 8974 §3.1;
//!   the draft's example holds the pledge's IID and port): the pledge's
//!   IID (8 bytes; fe80::/64 is implied), its UDP port (2), its Message ID
//!   (2) and its own token (0 to 8), sealed with AES-CCM and an 8-byte tag
//!   under a key only the JP holds, with a 4-byte sequence number in the
//!   clear as the nonce's varying part (RFC 8974 §5.2 as the draft quotes
//!   it: "AES-CCM with a 64-bit tag is recommended, combined with a
//!   sequence number"). The sequence number's 4 bytes are an estimate (no
//!   text fixes them). [`state_len`]: 26 bytes with a 2-byte pledge token.
//! - Message IDs: the JP is a CoAP endpoint on the JP-JRC leg (RFC 7252
//!   §5.7.2: a proxy makes its own request), and every pledge behind it
//!   shares its endpoint at the JRC, whose duplicate detection is per
//!   endpoint and Message ID (§4.5): OpenWSN forwards the pledge's own
//!   Message ID, and pledges that number alike would be answered each
//!   other's cached responses. Here the JP derives the forwarded Message
//!   ID from the pledge's IID, port and Message ID under its key (the
//!   same request resent maps to the same ID, so the JRC answers a
//!   pledge's retransmission from its cache, which EDHOC's message_3
//!   needs: its handshake is spent once answered), carries the pledge's
//!   Message ID in the state to answer with, and the JRC keeps every
//!   answer for EXCHANGE_LIFETIME (§4.8.2), not only each endpoint's last
//!   ([`super::coap_server::CoapServer::behind_proxies`]).
//! - The join rate (RFC 9031's CoJP parameter 7, bytes per second, which
//!   the JRC sets in the Configuration it sends a JP; §8.4.2 as recalled,
//!   not read here; [`coap::cojp`]): the JP forwards at most that average
//!   of join traffic into the network and drops what is over it
//!   (counted). Absent: no limit; 0: nothing forwarded. Under CoJP the
//!   JRC sends `sessions.join_rate_bytes_per_s` in every Configuration and
//!   a JP enforces what its own Join Response gave it
//!   ([`JoinProxyParams::rate_from_own_join`]; no limit before its own
//!   join, and a Parameter Update, RFC 9031's way to change it later, is
//!   not modelled). EDHOC's join carries no Configuration: every JP
//!   enforces the key's value. The average is kept by a token bucket one
//!   second deep (estimate: the parameter is an average and names no
//!   burst), counted on the UDP payload the JP forwards. The pledge's CoAP retransmission
//!   (RFC 9031 §8.1.1: the pledge's only reliability) is what gets a
//!   dropped request through later.
//!
//! Shortcuts: the JP's AES work is charged to its CPU's energy but does not
//! delay the datagram (a few AES blocks, tens of microseconds); a node
//! acts as a JP whether or not it has joined itself (with
//! `join_after_parent` its pledges start only after it has); the JRC's
//! node answers the pledges next to it on the link itself (the JRC is
//! their JP, proxying inside one node, as the 6TiSCH simulator's
//! `secjoin.py` has the DAG root answer link-local). Only CoAP join
//! traffic with the proxy options is proxied: CoJP's, and EDHOC's (the
//! lake-authz draft's appendix "Use with Constrained Join Protocol
//! (CoJP)": message_1 as a Confirmable POST with Proxy-Scheme "coap" and
//! Uri-Host "ake-authz.arpa", resolved by the JP; the responder then finds
//! each handshake by the C_R it gave it, since every initiator behind one
//! JP has the JP's address). DTLS joins stay routed (the
//! constrained-join-proxy draft's own DTLS relay is not RFC 9031's: 6TiSCH
//! "does not use DTLS", it says).
//!
//! RFC 9031's own text could not be read from this machine; its section
//! numbers are the constrained-join-proxy draft's citations of it and
//! recollection, and the mechanism is the draft's description of it
//! (draft-ietf-anima-constrained-join-proxy, sections "Stateless Join
//! Proxy" and "Constructing the extended token") with OpenWSN's
//! implementation of the earlier drafts.

use coap::message::{option, Message, Type};
use rand::RngExt;
use wpan::ccm_star::{nonce, Key};
use wpan::security::SecurityLevel;

use super::edhoc::COAP_PORT;
use super::record::{ProxyEvent, Record};
use super::AppCx;
use crate::mac::security::extended_addr;
use crate::net::Udp;
use crate::node::app::App;
use crate::node::cpu::CryptoCost;
use crate::rng::{stream, Purpose};
use crate::timer::Token;
use crate::{NodeId, Time};

/// The JP's join port, and the port it sends to the JRC from: CoAP's.
pub const JOIN_PORT: u16 = COAP_PORT;
/// Proxy-Scheme of a pledge's request (RFC 9031 §8.1.1).
pub const PROXY_SCHEME: &[u8] = b"coap";
/// Uri-Host of a pledge's request: the JRC's well-known name (RFC 9031
/// §8.1.1, the special-use domain of its §11).
pub const JRC_HOST: &[u8] = b"6tisch.arpa";
/// Uri-Host of an EDHOC initiator's request through a join proxy: the
/// lake-authz draft's name for the EDHOC responder (its appendix "Use
/// with Constrained Join Protocol (CoJP)", flight 1), which the JP
/// resolves to the same server here.
pub const EDHOC_HOST: &[u8] = b"ake-authz.arpa";
/// The state's sequence number (the nonce's varying part), in the clear.
const SEQ_BYTES: usize = 4;
/// The pledge's IID, port and Message ID.
const FIXED_STATE: usize = 8 + 2 + 2;
/// AES-CCM's tag on the state (RFC 8974 §5.2: 64 bits).
const STATE_TAG: usize = 8;
/// The nonce's security level byte: encryption with a 64-bit tag.
const LEVEL: SecurityLevel = SecurityLevel::EncMic64;

/// The bytes of the state a JP carries in the token, for a pledge token
/// of `pledge_token` bytes.
pub fn state_len(pledge_token: usize) -> usize {
    SEQ_BYTES + FIXED_STATE + pledge_token + STATE_TAG
}

/// A pledge's request as it goes to its JP: `m` (with OSCORE already
/// protected) with the outer Proxy-Scheme and Uri-Host `host` (OSCORE
/// class U, RFC 8613 §4.1.3).
pub fn for_join_proxy(m: Message, host: &[u8]) -> Message {
    m.with_option(option::URI_HOST, host.to_vec())
        .with_option(option::PROXY_SCHEME, PROXY_SCHEME.to_vec())
}

/// Whether `m` asks to be proxied to the JRC (by either of its names).
fn asks_for_jrc(m: &Message) -> bool {
    let host = m.option(option::URI_HOST);
    m.option(option::PROXY_SCHEME) == Some(PROXY_SCHEME)
        && (host == Some(JRC_HOST) || host == Some(EDHOC_HOST))
}

/// The join rate a JP enforces: a token bucket filled at `bytes_per_s`,
/// one second deep, full at the start. A datagram goes while the bucket
/// holds any credit, and may take it below zero: the average holds over
/// time whatever a request's size (a rate below one request's bytes
/// still lets one through now and then). Levels are in bytes × 10⁶ so
/// that microseconds of refill stay integers.
#[derive(Debug, Clone)]
pub struct JoinRate {
    bytes_per_s: i64,
    level: i64,
    at: Time,
}

impl JoinRate {
    pub fn new(bytes_per_s: u64) -> Self {
        let bytes_per_s = bytes_per_s.min(i64::MAX as u64 / 1_000_000) as i64;
        JoinRate {
            bytes_per_s,
            level: bytes_per_s * 1_000_000,
            at: 0,
        }
    }

    /// Whether `bytes` more may go at `now` (and take them if so).
    pub fn admit(&mut self, now: Time, bytes: u64) -> bool {
        let depth = self.bytes_per_s * 1_000_000;
        let elapsed = i64::try_from(now.saturating_sub(self.at)).unwrap_or(i64::MAX);
        let refill = elapsed.saturating_mul(self.bytes_per_s);
        self.level = self.level.saturating_add(refill).min(depth);
        self.at = now;
        let fits = self.level > 0;
        if fits {
            let need = i64::try_from(bytes).unwrap_or(i64::MAX);
            self.level = self.level.saturating_sub(need.saturating_mul(1_000_000));
        }
        fits
    }
}

#[derive(Debug, Clone)]
pub struct JoinProxyParams {
    /// Where the JRC is.
    pub jrc: NodeId,
    /// Bytes per second of join traffic forwarded (None: no limit).
    pub join_rate_bytes_per_s: Option<u64>,
    /// The rate is the one the node's own join was given instead
    /// ([`App::configured_join_rate`]: a CoJP Join Response's, the JRC's
    /// setting), none until it has one.
    pub rate_from_own_join: bool,
    pub cost: CryptoCost,
    pub seed: u64,
    pub replication: u64,
}

/// The JP role of a node, around the node's own application (which sees
/// every datagram that is not join traffic to relay).
pub struct JoinProxy {
    inner: Box<dyn App<Record>>,
    node: NodeId,
    jrc: NodeId,
    key: Key,
    /// The state's sequence number: one per forwarded request.
    seq: u32,
    rate: Option<JoinRate>,
    /// Whether the rate follows the node's own join, and the setting the
    /// bucket was last built for.
    rate_from_own_join: bool,
    rate_setting: Option<f64>,
    cost: CryptoCost,
}

/// What the JP needs to answer a pledge.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PledgeState {
    pledge: NodeId,
    port: u16,
    message_id: u16,
    token: Vec<u8>,
}

impl JoinProxy {
    pub fn new(inner: Box<dyn App<Record>>, p: JoinProxyParams, node: NodeId) -> Self {
        let mut rng = stream(p.seed, p.replication, node as u64, Purpose::JoinProxy);
        let key: [u8; 16] = std::array::from_fn(|_| rng.random());
        JoinProxy {
            inner,
            node,
            jrc: p.jrc,
            key: Key::new(&key),
            seq: 0,
            rate: p.join_rate_bytes_per_s.map(JoinRate::new),
            rate_from_own_join: p.rate_from_own_join,
            rate_setting: None,
            cost: p.cost,
        }
    }

    /// Seal `s` into a token: sequence number, then the sealed IID, port,
    /// Message ID and token, then the tag. Returns the AES blocks spent.
    fn seal(&mut self, s: &PledgeState) -> (Vec<u8>, u32) {
        self.seq = self.seq.wrapping_add(1);
        let mut plain = extended_addr(s.pledge).to_be_bytes().to_vec();
        plain.extend_from_slice(&s.port.to_be_bytes());
        plain.extend_from_slice(&s.message_id.to_be_bytes());
        plain.extend_from_slice(&s.token);
        let mut tag = [0u8; STATE_TAG];
        let n = nonce(extended_addr(self.node), self.seq, LEVEL);
        let seq = self.seq.to_be_bytes();
        let blocks = self
            .key
            .seal(&n, &seq, &mut plain, &mut tag)
            .expect("a state of a few bytes and an 8-byte tag");
        let mut token = seq.to_vec();
        token.extend_from_slice(&plain);
        token.extend_from_slice(&tag);
        (token, blocks)
    }

    /// The Message ID of the request forwarded for the pledge's `s`: the
    /// first two bytes of a CBC-MAC (CCM*'s, authentication only) of its
    /// IID, port and Message ID under the JP's key. The same request
    /// resent by the pledge goes under the same ID, so the JRC's
    /// duplicate detection (RFC 7252 §4.5) answers it from its cache, as
    /// it would the pledge itself; different pledges' requests differ but
    /// by a 1-in-65 536 chance. Returns the AES blocks spent.
    fn forwarded_message_id(&self, s: &PledgeState) -> (u16, u32) {
        let mut a = extended_addr(s.pledge).to_be_bytes().to_vec();
        a.extend_from_slice(&s.port.to_be_bytes());
        a.extend_from_slice(&s.message_id.to_be_bytes());
        let mut mic = [0u8; 4];
        let n = nonce(extended_addr(self.node), 0, SecurityLevel::Mic32);
        let blocks = self
            .key
            .seal(&n, &a, &mut [], &mut mic)
            .expect("12 bytes and a 4-byte MIC");
        (u16::from_be_bytes([mic[0], mic[1]]), blocks)
    }

    /// The pledge's state from a token this JP sealed (None: not one).
    fn open(&self, token: &[u8]) -> (Option<PledgeState>, u32) {
        if token.len() < state_len(0) || token.len() > state_len(coap::message::MAX_TOKEN_LEN) {
            return (None, 0);
        }
        let (seq, rest) = token.split_at(SEQ_BYTES);
        let (sealed, tag) = rest.split_at(rest.len() - STATE_TAG);
        let mut plain = sealed.to_vec();
        let counter = u32::from_be_bytes(seq.try_into().expect("4 bytes"));
        let n = nonce(extended_addr(self.node), counter, LEVEL);
        let Ok(blocks) = self.key.open(&n, seq, &mut plain, tag) else {
            let blocks = wpan::ccm_star::aes_blocks_for(SEQ_BYTES, plain.len(), STATE_TAG);
            return (None, blocks);
        };
        let ext = u64::from_be_bytes(plain[..8].try_into().expect("8 bytes"));
        let state = crate::mac::security::node_of_extended(ext).map(|pledge| PledgeState {
            pledge,
            port: u16::from_be_bytes([plain[8], plain[9]]),
            message_id: u16::from_be_bytes([plain[10], plain[11]]),
            token: plain[FIXED_STATE..].to_vec(),
        });
        (state, blocks)
    }

    fn charge(&self, cx: &mut AppCx, aes_blocks: u32) {
        let ops = dtls::CryptoOps {
            aes_blocks: u64::from(aes_blocks),
            ..dtls::CryptoOps::default()
        };
        cx.charge_cpu(self.cost.of(&ops));
    }

    fn record(cx: &mut AppCx, pledge: NodeId, event: ProxyEvent, bytes: usize) {
        cx.record(Record::JoinProxy {
            pledge,
            event,
            bytes: bytes as u64,
        });
    }

    /// A pledge's request on the link: to the JRC, with the pledge's state.
    fn on_request(&mut self, cx: &mut AppCx, udp: Udp) {
        let request = match Message::parse(&udp.payload) {
            Ok(m) if m.ty == Type::Confirmable && asks_for_jrc(&m) => m,
            _ => return Self::record(cx, udp.src, ProxyEvent::Refused, udp.payload.len()),
        };
        let state = PledgeState {
            pledge: udp.src,
            port: udp.src_port,
            message_id: request.message_id,
            token: request.token.clone(),
        };
        let (token, blocks) = self.seal(&state);
        let (message_id, more) = self.forwarded_message_id(&state);
        self.charge(cx, blocks + more);
        let forwarded = Message {
            message_id,
            token,
            options: request
                .options
                .into_iter()
                .filter(|(n, _)| *n != option::PROXY_SCHEME && *n != option::URI_HOST)
                .collect(),
            ..request
        }
        .emit();
        self.follow_own_join_rate();
        let admitted = match self.rate.as_mut() {
            Some(rate) => rate.admit(cx.now(), forwarded.len() as u64),
            None => true,
        };
        if !admitted {
            return Self::record(cx, udp.src, ProxyEvent::DroppedRate, forwarded.len());
        }
        Self::record(cx, udp.src, ProxyEvent::Forwarded, forwarded.len());
        cx.send(self.jrc, JOIN_PORT, JOIN_PORT, forwarded);
    }

    /// With the rate from the node's own join: a bucket for the setting
    /// its join last gave (positive infinity, or none: no limit), built
    /// full when the setting first comes or changes.
    fn follow_own_join_rate(&mut self) {
        if !self.rate_from_own_join {
            return;
        }
        let setting = self.inner.configured_join_rate();
        if setting == self.rate_setting {
            return;
        }
        self.rate_setting = setting;
        // a float's bytes per second, whole bytes (saturating)
        self.rate = setting
            .filter(|r| r.is_finite())
            .map(|r| JoinRate::new(r as u64));
    }

    /// The JRC's response: its state read back, to the pledge on the link.
    fn on_response(&mut self, cx: &mut AppCx, udp: Udp) {
        let Ok(response) = Message::parse(&udp.payload) else {
            return Self::record(cx, self.node, ProxyEvent::Refused, udp.payload.len());
        };
        let (state, blocks) = self.open(&response.token);
        self.charge(cx, blocks);
        let Some(s) = state else {
            return Self::record(cx, self.node, ProxyEvent::Refused, udp.payload.len());
        };
        let relayed = Message {
            message_id: s.message_id,
            token: s.token,
            ..response
        }
        .emit();
        Self::record(cx, s.pledge, ProxyEvent::Relayed, relayed.len());
        cx.send_on_link(s.pledge, JOIN_PORT, s.port, relayed);
    }
}

impl App<Record> for JoinProxy {
    fn start(&mut self, cx: &mut AppCx) {
        self.inner.start(cx);
    }

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        if udp.dst_port == JOIN_PORT && udp.link_local {
            self.on_request(cx, udp);
        } else if udp.dst_port == JOIN_PORT && udp.src == self.jrc {
            self.on_response(cx, udp);
        } else {
            self.inner.on_udp(cx, udp);
        }
    }

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        self.inner.on_timer(cx, token);
    }

    fn on_run_end(&mut self, cx: &mut AppCx, why: &str) {
        self.inner.on_run_end(cx, why);
    }

    fn release(&mut self, cx: &mut AppCx) {
        self.inner.release(cx);
    }

    fn configured_join_rate(&self) -> Option<f64> {
        self.inner.configured_join_rate()
    }
}

#[cfg(test)]
mod tests {
    //! One CoJP exchange through a JP, every leg's bytes by hand; the
    //! state's integrity; the join rate's bucket.

    use super::*;
    use crate::app::cojp::{Jrc, JrcParams, Pledge, PledgeParams};
    use crate::app::pause::Pause;
    use crate::app::test_support::{self, sent};
    use crate::mac::address::LinkAddressing;
    use crate::mac::frame::addressed_frame;
    use crate::net::{Net, NetInput};
    use crate::node::app::{Idle, Recorder};
    use crate::topology::Topology;
    use crate::world::World;
    use coap::reliability::Params;

    const JRC: NodeId = 0;
    const JP: NodeId = 1;
    const PLEDGE: NodeId = 2;

    fn pledge_params(proxy: Option<NodeId>) -> PledgeParams {
        test_support::pledge_params(JRC, proxy)
    }

    fn pledge(proxy: Option<NodeId>) -> Pledge {
        Pledge::new(pledge_params(proxy), PLEDGE)
    }

    fn jrc() -> Jrc {
        let p = JrcParams {
            behind_proxies: Some(Params::default().exchange_lifetime_us()),
            join_rate_bytes_per_s: None,
            cost: CryptoCost::default(),
            seed: 1,
            replication: 0,
        };
        Jrc::new(p, JRC)
    }

    fn proxy(rate: Option<u64>) -> JoinProxy {
        let p = JoinProxyParams {
            join_rate_bytes_per_s: rate,
            ..proxy_params()
        };
        JoinProxy::new(Box::new(Idle), p, JP)
    }

    /// The frame `udp` is on the link from `node` to `next_hop` (short
    /// addresses): MAC header and FCS, 6LoWPAN headers, UDP payload.
    fn frame_len(node: NodeId, next_hop: NodeId, udp: &Udp) -> usize {
        let mut net = Net::new(node, 60_000_000);
        let payloads = net.send(node, next_hop, 116, udp);
        assert_eq!(payloads.len(), 1);
        addressed_frame(
            LinkAddressing::Short,
            0,
            node,
            next_hop,
            payloads[0].clone(),
        )
        .len()
    }

    /// Line JRC 0 - JP 1 - pledge 2. By hand (RFC 7252 §3, RFC 8974
    /// §2.1, RFC 6282, IEEE 802.15.4 with short addresses and PAN ID
    /// compression: FCF 2 + sequence 1 + PAN 2 + addresses 2 + 2 + FCS 2
    /// = 11 bytes of MAC; IPHC 2 bytes with every address elided; UDP NHC
    /// 1 + ports 4 + checksum 2 = 7):
    ///
    /// - pledge → JP: the 36-byte Join Request (token 2) + Uri-Host
    ///   "6tisch.arpa" (1 + 11) + Proxy-Scheme "coap" (option 39, delta 30
    ///   from OSCORE's 9: 1 + 1 + 4) = 54; frame 11 + 2 + 7 + 54 = 74.
    /// - JP → JRC: 54 - 18 (both options) - 2 (pledge token) + 1 (TKL 13's
    ///   extra byte) + 26 (state: sequence 4, IID 8, port 2, Message ID 2,
    ///   token 2, tag 8) = 61; frame 11 + 2 + 7 + 61 = 81.
    /// - JRC → JP: the 46-byte Join Response with the 26-byte token: 46 -
    ///   2 + 1 + 26 = 71; frame 91.
    /// - JP → pledge: 46; frame 11 + 2 + 7 + 46 = 66.
    ///
    /// Routed as before: the request 36 in frames of 58 (destination in 16
    /// bits) and 59 (forwarded: source in 16 bits, hop limit inline), the
    /// response 46 in 68 and 69.
    #[test]
    fn a_join_through_a_proxy_has_the_bytes_counted_by_hand() {
        let mut world = World::new(Topology::line(3, 1.0).unwrap(), 1, 0);
        let mut rec = Recorder::default();
        let (mut p, mut jp, mut server) = (pledge(Some(JP)), proxy(None), jrc());
        let req = sent(&mut world, &mut rec, PLEDGE, |cx| p.begin(cx));
        assert_eq!(req.len(), 1);
        let req = req[0].clone();
        assert!(req.link_local);
        assert_eq!((req.dst, req.dst_port), (JP, JOIN_PORT));
        assert_eq!(req.payload.len(), 54);
        assert_eq!(frame_len(PLEDGE, JP, &req), 74);
        // the JP's network layer hands it up as link-local
        let mut net = Net::new(JP, 60_000_000);
        let f = Net::new(PLEDGE, 1).send(PLEDGE, JP, 116, &req);
        assert_eq!(
            net.receive(0, PLEDGE, &f[0]),
            NetInput::Deliver(req.clone())
        );

        let fwd = sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, req.clone()));
        assert_eq!(fwd.len(), 1);
        let fwd = fwd[0].clone();
        assert!(!fwd.link_local);
        assert_eq!(
            (fwd.src, fwd.src_port, fwd.dst, fwd.dst_port),
            (JP, 5683, JRC, 5683)
        );
        assert_eq!(state_len(2), 26);
        assert_eq!(fwd.payload.len(), 61);
        assert_eq!(frame_len(JP, JRC, &fwd), 81);
        let m = Message::parse(&fwd.payload).unwrap();
        assert_eq!(m.option(option::PROXY_SCHEME), None);
        assert_eq!(m.option(option::URI_HOST), None);

        let resp = sent(&mut world, &mut rec, JRC, |cx| {
            server.on_udp(cx, fwd.clone())
        });
        assert_eq!(resp.len(), 1);
        let resp = resp[0].clone();
        assert_eq!(
            (resp.dst, resp.dst_port, resp.link_local),
            (JP, 5683, false)
        );
        assert_eq!(resp.payload.len(), 71);
        assert_eq!(frame_len(JRC, JP, &resp), 91);

        let back = sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, resp.clone()));
        assert_eq!(back.len(), 1);
        let back = back[0].clone();
        assert!(back.link_local);
        assert_eq!(
            (back.src, back.dst, back.dst_port),
            (JP, PLEDGE, req.src_port)
        );
        assert_eq!(back.payload.len(), 46);
        assert_eq!(frame_len(JP, PLEDGE, &back), 66);
        // the pledge's own Message ID and token are back
        let (asked, answered) = (
            Message::parse(&req.payload).unwrap(),
            Message::parse(&back.payload).unwrap(),
        );
        assert_eq!(
            (answered.message_id, &answered.token),
            (asked.message_id, &asked.token)
        );
        sent(&mut world, &mut rec, PLEDGE, |cx| p.on_udp(cx, back));
        assert!(p.joined());
        let events: Vec<_> = rec
            .entries()
            .iter()
            .filter_map(|e| match e.record {
                Record::JoinProxy {
                    pledge,
                    event,
                    bytes,
                } => Some((e.node, pledge, event, bytes)),
                _ => None,
            })
            .take(2)
            .collect();
        assert_eq!(
            events,
            [
                (JP, PLEDGE, ProxyEvent::Forwarded, 61),
                (JP, PLEDGE, ProxyEvent::Relayed, 46)
            ]
        );

        // the pledge's request again (a retransmission): the JP forwards it
        // under the same Message ID with a fresh state, and the JRC answers
        // it from its cache, the first answer byte for byte, which the JP
        // still opens; another pledge's request goes under another ID
        let again = sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, req.clone())).remove(0);
        let id = |u: &Udp| Message::parse(&u.payload).unwrap().message_id;
        assert_eq!(id(&again), id(&fwd));
        assert_ne!(again.payload, fwd.payload);
        let cached = sent(&mut world, &mut rec, JRC, |cx| server.on_udp(cx, again)).remove(0);
        assert_eq!(cached.payload, resp.payload);
        assert_eq!(
            sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, cached)).len(),
            1
        );
        let other = Udp {
            src: 3,
            ..req.clone()
        };
        let theirs = sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, other)).remove(0);
        assert_ne!(id(&theirs), id(&fwd));

        // as before, routed: the same exchange without the JP
        let mut routed = pledge(None);
        let r = sent(&mut world, &mut rec, PLEDGE, |cx| routed.begin(cx));
        assert_eq!(r[0].payload.len(), 36);
        assert_eq!(frame_len(PLEDGE, JP, &r[0]), 58);
        let mut hop = r[0].clone();
        hop.hop_limit -= 1;
        assert_eq!(frame_len(JP, JRC, &hop), 59);
        let a = Udp::new(JRC, 5683, PLEDGE, r[0].src_port, vec![0; 46]);
        assert_eq!(frame_len(JRC, JP, &a), 68);
        let mut hop = a.clone();
        hop.hop_limit -= 1;
        assert_eq!(frame_len(JP, PLEDGE, &hop), 69);
    }

    /// A pledge next to the JRC asks it on the link; it answers there.
    #[test]
    fn the_jrc_answers_its_neighbours_on_the_link() {
        let mut world = World::new(Topology::line(3, 1.0).unwrap(), 1, 0);
        let mut rec = Recorder::default();
        let mut p = Pledge::new(pledge_params(Some(JRC)), JP);
        let mut server = jrc();
        let req = sent(&mut world, &mut rec, JP, |cx| p.begin(cx));
        assert!(req[0].link_local && req[0].dst == JRC);
        let resp = sent(&mut world, &mut rec, JRC, |cx| {
            server.on_udp(cx, req[0].clone())
        });
        assert!(resp[0].link_local && resp[0].dst == JP);
        assert_eq!(resp[0].payload.len(), 46);
        sent(&mut world, &mut rec, JP, |cx| p.on_udp(cx, resp[0].clone()));
        assert!(p.joined());
    }

    /// A response whose token the JP did not seal, or that was altered,
    /// is refused (counted), not relayed; a request without the proxy
    /// options is refused too.
    #[test]
    fn a_forged_state_or_an_unproxied_request_is_refused() {
        let mut world = World::new(Topology::line(3, 1.0).unwrap(), 1, 0);
        let mut rec = Recorder::default();
        let (mut p, mut jp, mut server) = (pledge(Some(JP)), proxy(None), jrc());
        let req = sent(&mut world, &mut rec, PLEDGE, |cx| p.begin(cx))[0].clone();
        let fwd = sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, req.clone()))[0].clone();
        let resp = sent(&mut world, &mut rec, JRC, |cx| server.on_udp(cx, fwd))[0].clone();
        let mut m = Message::parse(&resp.payload).unwrap();
        m.token[10] ^= 1;
        let forged = Udp {
            payload: m.emit(),
            ..resp.clone()
        };
        assert!(sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, forged)).is_empty());
        // another JP's key opens nothing of this one's
        let mut other = JoinProxy::new(
            Box::new(Idle),
            JoinProxyParams {
                seed: 2,
                ..proxy_params()
            },
            JP,
        );
        assert!(sent(&mut world, &mut rec, JP, |cx| other
            .on_udp(cx, resp.clone()))
        .is_empty());
        let plain = Udp::on_link(PLEDGE, 49152, JP, JOIN_PORT, vec![0x40, 1, 0, 1]);
        assert!(sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, plain)).is_empty());
        let refused = rec
            .entries()
            .iter()
            .filter(|e| {
                matches!(
                    e.record,
                    Record::JoinProxy {
                        event: ProxyEvent::Refused,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(refused, 3);
        // the genuine one still goes
        assert_eq!(
            sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, resp)).len(),
            1
        );
    }

    /// Two EDHOC initiators behind one JP finish their handshakes with
    /// one responder, which tells them apart by the C_R it gave each (both
    /// have the JP's address): 0 and 1. Each request to the JP carries
    /// the proxy options, Uri-Host "ake-authz.arpa" (1 + 1 + 14 bytes) and
    /// Proxy-Scheme "coap" (delta 27 from Content-Format's 12: 1 + 1 +
    /// 4), 22 bytes more than routed; the JP's request carries the state
    /// for the initiator's 4-byte token: 28 bytes and TKL 13's extra byte.
    #[test]
    fn edhoc_initiators_behind_one_proxy_are_told_apart_by_c_r() {
        use crate::app::edhoc::{
            EdhocClient, EdhocClientParams, EdhocServer, EdhocServerParams, EdhocSetup,
        };
        let setup = EdhocSetup {
            edhoc: edhoc::Config::default(),
            coap: Params::default(),
            token_bytes: 4,
        };
        let client = |node: NodeId, proxy: Option<NodeId>| {
            let p = EdhocClientParams {
                server: JRC,
                proxy,
                setup,
                handshakes: 1,
                first_at: 0,
                pause: Pause::fixed(0),
                until_success: false,
                cost: CryptoCost::default(),
                seed: 1,
                replication: 0,
                timer_tick_us: 0,
            };
            EdhocClient::new(p, node)
        };
        let mut world = World::new(Topology::line(4, 1.0).unwrap(), 1, 0);
        let mut rec = Recorder::default();
        let mut server = EdhocServer::new(
            EdhocServerParams {
                setup,
                by_connection_id: true,
                cost: CryptoCost::default(),
                seed: 1,
                replication: 0,
            },
            JRC,
        );
        let mut jp = proxy(None);
        let mut a = client(2, Some(JP));
        let mut b = client(3, Some(JP));
        let routed = sent(&mut world, &mut rec, 2, |cx| client(2, None).begin(cx));
        let ra = sent(&mut world, &mut rec, 2, |cx| a.begin(cx)).remove(0);
        let rb = sent(&mut world, &mut rec, 3, |cx| b.begin(cx)).remove(0);
        assert!(ra.link_local && ra.dst == JP);
        assert_eq!(ra.payload.len(), routed[0].payload.len() + 22);
        // message_1 both ways through the JP
        let mut m2 = Vec::new();
        for (pledge, req) in [(2, ra), (3, rb)] {
            let fwd = sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, req.clone())).remove(0);
            assert_eq!(
                fwd.payload.len(),
                req.payload.len() - 22 - 4 + 1 + state_len(4)
            );
            let resp = sent(&mut world, &mut rec, JRC, |cx| server.on_udp(cx, fwd)).remove(0);
            let back = sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, resp)).remove(0);
            assert_eq!((back.dst, back.link_local), (pledge, true));
            m2.push(back);
        }
        // message_3, each prefixed by its own C_R
        let r3a = sent(&mut world, &mut rec, 2, |cx| a.on_udp(cx, m2[0].clone())).remove(0);
        let r3b = sent(&mut world, &mut rec, 3, |cx| b.on_udp(cx, m2[1].clone())).remove(0);
        let c_r = |u: &Udp| Message::parse(&u.payload).unwrap().payload[0];
        assert_eq!((c_r(&r3a), c_r(&r3b)), (0x00, 0x01));
        // the second's message_3 first: found by its C_R, not its address
        for (pledge, req) in [(3, r3b), (2, r3a)] {
            let fwd = sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, req)).remove(0);
            let resp = sent(&mut world, &mut rec, JRC, |cx| server.on_udp(cx, fwd)).remove(0);
            let back = sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, resp)).remove(0);
            let done = if pledge == 2 { &mut a } else { &mut b };
            sent(&mut world, &mut rec, pledge, |cx| done.on_udp(cx, back));
        }
        assert_eq!(server.refused, 0);
        let ended: Vec<_> = rec
            .entries()
            .iter()
            .filter_map(|e| match &e.record {
                Record::HandshakeEnded(h) => Some((e.node, h.success)),
                _ => None,
            })
            .collect();
        assert_eq!(ended, [(3, true), (2, true)]);
    }

    fn proxy_params() -> JoinProxyParams {
        JoinProxyParams {
            jrc: JRC,
            join_rate_bytes_per_s: None,
            rate_from_own_join: false,
            cost: CryptoCost::default(),
            seed: 1,
            replication: 0,
        }
    }

    /// 61 bytes a second, one second deep: one forwarded request empties
    /// it; a byte more at once is dropped; half a second later the half
    /// credit lets a request through, in debt, which the next half second
    /// pays back (nothing goes), and so on; never more than a second's
    /// worth banked; at 0 bytes a second nothing ever goes; at 20 (polled
    /// every 0.1 s), a 61-byte request about every 3 s: at 0, then once
    /// the 41-byte debt is paid (2.05 s, so 2.1 s), and so on. At the JP:
    /// the second pledge request
    /// in the same instant is dropped and counted.
    #[test]
    fn the_join_rate_drops_what_is_over_it_and_refills() {
        let mut r = JoinRate::new(61);
        assert!(r.admit(0, 61));
        assert!(!r.admit(0, 1));
        assert!(r.admit(500_000, 61));
        assert!(!r.admit(1_000_000, 61));
        assert!(r.admit(1_500_000, 61));
        assert!(r.admit(5_000_000, 61));
        assert!(!r.admit(5_000_000, 61));
        assert!(!JoinRate::new(0).admit(10_000_000, 1));
        let mut slow = JoinRate::new(20);
        let passed: Vec<Time> = (0..100)
            .map(|k| k * 100_000)
            .filter(|&t| slow.admit(t, 61))
            .collect();
        assert_eq!(passed, [0, 2_100_000, 5_200_000, 8_200_000]);

        let mut world = World::new(Topology::line(3, 1.0).unwrap(), 1, 0);
        let mut rec = Recorder::default();
        let (mut p, mut jp) = (pledge(Some(JP)), proxy(Some(61)));
        let req = sent(&mut world, &mut rec, PLEDGE, |cx| p.begin(cx))[0].clone();
        assert_eq!(
            sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, req.clone())).len(),
            1
        );
        assert!(sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, req)).is_empty());
        let dropped: Vec<_> = rec
            .entries()
            .iter()
            .filter_map(|e| match e.record {
                Record::JoinProxy {
                    event: ProxyEvent::DroppedRate,
                    bytes,
                    ..
                } => Some(bytes),
                _ => None,
            })
            .collect();
        assert_eq!(dropped, [61]);
    }

    /// The join rate from the JRC (CoJP): a JRC set to 61 bytes a second
    /// sends it in each Configuration, 4 bytes more (label 07, the half
    /// float f9 53 a0: 61 = 1.90625 x 2^5, exponent 5 + 15 = 20, mantissa
    /// 0.90625 x 1024 = 928), so the Join Response on the link is 46 + 4 =
    /// 50 bytes. A node whose JP follows its own join forwards without a
    /// limit before it has joined (two requests at once both go), and once
    /// its Join Response gave it 61 bytes a second, the second of two
    /// requests at once is dropped, as with the scenario's key.
    #[test]
    fn a_cojp_joined_proxy_enforces_the_rate_its_join_response_gave_it() {
        let mut world = World::new(Topology::line(3, 1.0).unwrap(), 1, 0);
        let mut rec = Recorder::default();
        let mut server = Jrc::new(
            JrcParams {
                behind_proxies: Some(Params::default().exchange_lifetime_us()),
                join_rate_bytes_per_s: Some(61),
                cost: CryptoCost::default(),
                seed: 1,
                replication: 0,
            },
            JRC,
        );
        // the JP's own pledge asks the JRC next to it on the link
        let mut own = Pledge::new(pledge_params(Some(JRC)), JP);
        let own_req = sent(&mut world, &mut rec, JP, |cx| own.begin(cx)).remove(0);
        let mut jp = JoinProxy::new(
            Box::new(own),
            JoinProxyParams {
                rate_from_own_join: true,
                ..proxy_params()
            },
            JP,
        );
        let mut p = pledge(Some(JP));
        let req = sent(&mut world, &mut rec, PLEDGE, |cx| p.begin(cx)).remove(0);
        for _ in 0..2 {
            let fwd = sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, req.clone()));
            assert_eq!(fwd.len(), 1);
        }
        let resp = sent(&mut world, &mut rec, JRC, |cx| server.on_udp(cx, own_req)).remove(0);
        assert!(resp.link_local && resp.dst == JP);
        assert_eq!(resp.payload.len(), 50);
        sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, resp));
        assert_eq!(jp.configured_join_rate(), Some(61.0));
        let at_once: Vec<usize> = (0..2)
            .map(|_| sent(&mut world, &mut rec, JP, |cx| jp.on_udp(cx, req.clone())).len())
            .collect();
        assert_eq!(at_once, [1, 0]);
        let dropped = rec
            .entries()
            .iter()
            .filter(|e| {
                matches!(
                    e.record,
                    Record::JoinProxy {
                        event: ProxyEvent::DroppedRate,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(dropped, 1);
        // the rate's bytes by hand
        let c = coap::cojp::Configuration {
            join_rate: Some(61.0),
            ..coap::cojp::Configuration::default()
        };
        assert_eq!(c.to_cbor(), [0xa1, 0x07, 0xf9, 0x53, 0xa0]);
    }
}
