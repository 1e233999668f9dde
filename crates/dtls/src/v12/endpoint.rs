//! DTLS 1.2's part of the server endpoint ([`crate::endpoint`]): answers
//! ClientHellos without cookie statelessly (HelloVerifyRequest), creates a
//! session only for a ClientHello with a valid cookie and only when the
//! admission policy ([`session_table`]) gives it a slot, keeps established
//! sessions for resumption, and finds a datagram's connection ID in the
//! tls12_cid record header (RFC 9146).

use crate::error::ConfigError;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use rand_core::CryptoRng;
use session_table::{Refusal, SlotTable};

use crate::accounting::CryptoOps;
use crate::codec::Reader;
use crate::config::Config;
use crate::crypto::CookieGenerator;
use crate::endpoint::{fresh_cid, Counter, Endpoint, Held, Transmit, Version};
use crate::error::{AlertDescription, Error};
use crate::fragment::{transcript_form, FragmentHeader};
use crate::handshake_type::HandshakeType;
use crate::session::Session;
use crate::v12::config::ServerConfig;
use crate::v12::connection::Connection;
use crate::v12::handshake::messages::{ClientHello, HelloVerifyRequest};
use crate::v12::handshake::resumption::{SessionCache, SESSION_ID_LEN};
use crate::v12::record::header::{plaintext_record, split_datagram, DTLS1_0, DTLS1_2};
use crate::v12::record::{ContentType, RecordHeader};
use crate::Instant;

/// What the endpoint did outside any session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EndpointStats {
    /// HelloVerifyRequests sent.
    pub hello_verify_requests: u64,
    /// ClientHellos refused because every session slot was taken.
    pub refused_full: u64,
    /// ClientHellos refused because their address held its share of
    /// sessions.
    pub refused_address_cap: u64,
    /// Sessions removed to make room for a new handshake.
    pub evicted: u64,
    /// Verified ClientHellos dropped unanswered because their host had
    /// started a handshake moments before (per-host rate).
    pub rate_limited: u64,
    /// Half-open handshakes dropped at the half-open timeout.
    pub expired_half_open: u64,
    /// Established sessions dropped at the idle timeout.
    pub expired_idle: u64,
    /// Datagrams from unknown peers that were not a usable ClientHello.
    pub dropped: u64,
    /// Sessions created.
    pub sessions_created: u64,
    /// Sessions removed (closed or failed).
    pub sessions_removed: u64,
    /// Sessions that followed their peer to a new address (by CID).
    pub address_changes: u64,
    /// Cookie MACs computed.
    pub crypto: CryptoOps,
}

/// A DTLS 1.2 server endpoint.
pub type Server<R> = Endpoint<Dtls12<R>>;

/// DTLS 1.2's part of a [`Server`].
pub struct Dtls12<R: CryptoRng> {
    config: Arc<ServerConfig>,
    common: Arc<Config>,
    rng: R,
    cookies: CookieGenerator,
    /// Each session's slot, as the admission policy sees it.
    slots: SlotTable<SocketAddr>,
    stats: EndpointStats,
    /// Sessions a returning client may resume (RFC 5246 §7.3).
    cache: SessionCache,
}

impl<R: CryptoRng> Version for Dtls12<R> {
    type Session = Connection;
    type Config = ServerConfig;
    type Rng = R;
    type Stats = EndpointStats;

    fn new(config: Arc<ServerConfig>, mut rng: R, now: Instant) -> Result<Self, Error> {
        config.config.validate()?;
        config
            .session_limits()
            .validate()
            .map_err(|e| Error::Config(ConfigError::SessionLimits(e)))?;
        if config.psk_store.is_none() && config.certificate.is_none() {
            return Err(Error::Config(ConfigError::NoCredentials));
        }
        if !(1..=32).contains(&config.cookie_len) {
            return Err(Error::Config(ConfigError::CookieLen));
        }
        if let Some(c) = &config.certificate {
            let leaf = c
                .chain
                .first()
                .ok_or(Error::Config(ConfigError::EmptyChain))?;
            let pk = crate::cert::leaf_public_key(c.certificate_type(), leaf)
                .map_err(|_| Error::Config(ConfigError::CertificateNotP256))?;
            if crate::crypto::ecc::public_of(&c.private_key)? != pk {
                return Err(Error::Config(ConfigError::KeyMismatch));
            }
        }
        let cookies =
            CookieGenerator::new(&mut rng, now, config.cookie_rotation_us, config.cookie_len);
        Ok(Dtls12 {
            common: Arc::new(config.config.clone()),
            slots: SlotTable::new(config.session_limits(), config.eviction),
            cache: SessionCache::new(config.session_cache),
            config,
            rng,
            cookies,
            stats: EndpointStats::default(),
        })
    }

    fn stats(&self) -> &EndpointStats {
        &self.stats
    }

    fn crypto(&self) -> &CryptoOps {
        &self.stats.crypto
    }

    fn cid_len(&self) -> Option<usize> {
        self.common.cid_len
    }

    /// The CID of a datagram whose first record is a tls12_cid record (RFC
    /// 9146 §4: after type, version, epoch and sequence number).
    fn leading_cid(datagram: &[u8], cid_len: usize) -> Option<&[u8]> {
        if *datagram.first()? != ContentType::Tls12Cid.to_u8() {
            return None;
        }
        datagram.get(11..11 + cid_len)
    }

    fn on_datagram(&mut self, now: Instant) {
        self.cookies.maybe_rotate(&mut self.rng, now);
    }

    /// An epoch-0 ClientHello from a known address goes through the cookie
    /// exchange: a late copy of the hello that made the session reaches
    /// the session, a verified new one (a restarted client) replaces it
    /// (RFC 6347 §4.2.8). Anything else from a known address is the
    /// session's.
    fn accept(ep: &mut Server<R>, now: Instant, from: SocketAddr, datagram: &[u8]) {
        let known = ep.sessions.contains_key(&from);
        if known && !starts_with_client_hello(datagram) {
            ep.deliver(now, from, datagram);
        } else {
            stateless(ep, now, from, datagram);
        }
    }

    fn new_cid(&mut self, in_use: &HashMap<Vec<u8>, SocketAddr>) -> Option<Vec<u8>> {
        fresh_cid(&mut self.rng, self.common.cid_len, in_use)
    }

    /// Has a server handshake in this state heard the client's second flight
    /// (ClientKeyExchange, or its Certificate first)? Its slot is then
    /// protected ([`session_table::Limits::protect_progressed`]).
    fn progressed(state: &str) -> bool {
        matches!(state, "WaitCertificateVerify" | "WaitClientFinished")
    }

    fn connected(&mut self, session: &Connection) {
        if let Some(s) = session.resumable_session() {
            self.cache.put(s.clone());
        }
    }

    fn slots(&self) -> &SlotTable<SocketAddr> {
        &self.slots
    }

    fn slots_mut(&mut self) -> &mut SlotTable<SocketAddr> {
        &mut self.slots
    }

    fn counter(&mut self, c: Counter) -> &mut u64 {
        crate::endpoint::table_counter!(&mut self.stats, c)
    }
}

impl<R: CryptoRng> Server<R> {
    /// Sessions held for resumption.
    pub fn cached_sessions(&self) -> usize {
        self.version.cache.len()
    }
}

/// A datagram from an address without a session, or a new ClientHello
/// from one with a session: the cookie exchange, then admission.
fn stateless<R: CryptoRng>(ep: &mut Server<R>, now: Instant, from: SocketAddr, datagram: &[u8]) {
    let Some(hello) = parse_initial_hello(datagram) else {
        ep.version.stats.dropped += 1;
        return;
    };
    // The cookie round this hello completes, as it was on the wire: the
    // first hello (this one without its cookie: RFC 6347 §4.2.1 has the
    // client repeat it, cookie added) and our HelloVerifyRequest. No state
    // was kept for it, so the session counts it once it exists.
    let mut cookie_round = None;
    if ep.version.config.require_cookie {
        let binding = hello.cookie_binding();
        let ok = !hello.cookie.is_empty()
            && ep.version.cookies.verify(
                &from,
                &binding,
                &hello.cookie,
                &mut ep.version.stats.crypto,
            );
        if !ok {
            let cookie = ep
                .version
                .cookies
                .make(&from, &binding, &mut ep.version.stats.crypto);
            let mut b = Vec::new();
            HelloVerifyRequest {
                version: DTLS1_0,
                cookie,
            }
            .emit(&mut b);
            let payload = plain_handshake_record(
                hello.record_seq,
                HandshakeType::HelloVerifyRequest.to_u8(),
                hello.message_seq,
                &b,
            );
            ep.tx.push_back(Transmit {
                destination: from,
                payload,
            });
            ep.version.stats.hello_verify_requests += 1;
            return;
        }
        let mut b = Vec::new();
        HelloVerifyRequest {
            version: DTLS1_0,
            cookie: hello.cookie.clone(),
        }
        .emit(&mut b);
        let verify_request = plain_handshake_record(
            hello.record_seq,
            HandshakeType::HelloVerifyRequest.to_u8(),
            hello.message_seq,
            &b,
        );
        cookie_round = Some((
            datagram.len().saturating_sub(hello.cookie.len()),
            verify_request.len(),
        ));
    }
    if let Some(old) = ep.sessions.get_mut(&from) {
        if old.hello_random == hello.random {
            // A late copy of the hello that made this session.
            old.conn.handle_datagram(now, datagram);
            ep.drain(from);
            return;
        }
        // RFC 6347 §4.2.8: a verified new ClientHello from a known
        // address replaces the old association, half-open or
        // established; the new one starts with a fresh epoch-0 replay
        // window and reassembly buffer.
        ep.remove_session(&from);
    }
    let refusal = Dtls12::admit(ep, from, now);
    if refusal == Some(Refusal::HostRate) {
        // the host started a handshake moments ago: this one gets no
        // answer (no state, no alert); its client retransmits
        return;
    }
    if refusal.is_some() {
        let mut payload = Vec::new();
        RecordHeader {
            content_type: ContentType::Alert,
            version: DTLS1_2,
            epoch: 0,
            seq: hello.record_seq,
            length: 2,
        }
        .emit(&mut payload);
        payload.extend_from_slice(&[2, AlertDescription::HandshakeFailure.to_u8()]);
        ep.tx.push_back(Transmit {
            destination: from,
            payload,
        });
        return;
    }
    let v = &mut ep.version;
    let mut conn = Connection::server_accept(
        v.config.clone(),
        v.common.clone(),
        &mut v.rng,
        now,
        hello.record_seq,
        hello.message_seq,
    );
    let cached = v.cache.get(&hello.session_id).cloned();
    let new_id = if v.cache.enabled() {
        let mut id = vec![0u8; SESSION_ID_LEN];
        v.rng.fill_bytes(&mut id);
        id
    } else {
        Vec::new()
    };
    conn.server_sessions(cached, new_id);
    conn.own_cid = ep.new_cid();
    if let Some((hello_bytes, verify_request_bytes)) = cookie_round {
        conn.count_cookie_round(hello_bytes, verify_request_bytes);
    }
    ep.version.stats.sessions_created += 1;
    let cid = conn.own_cid.clone();
    let held = Held::new(conn, hello.random, cid);
    ep.insert_session(now, from, held, datagram);
}

/// The part of a ClientHello the stateless cookie exchange needs; it is in
/// the first fragment (offset 0), so a fragmented hello works too.
struct InitialHello {
    record_seq: u64,
    message_seq: u16,
    version: u16,
    random: [u8; 32],
    session_id: Vec<u8>,
    cookie: Vec<u8>,
}

impl InitialHello {
    /// What the cookie binds besides the address: version, random and
    /// session_id (they may not change between the two hellos).
    fn cookie_binding(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(2 + 32 + 1 + self.session_id.len());
        v.extend_from_slice(&self.version.to_be_bytes());
        v.extend_from_slice(&self.random);
        v.push(self.session_id.len() as u8);
        v.extend_from_slice(&self.session_id);
        v
    }
}

/// Does the datagram start with the first fragment (offset 0) of an
/// epoch-0 ClientHello? Later fragments belong to the session.
fn starts_with_client_hello(datagram: &[u8]) -> bool {
    datagram.len() > 13 + 12
        && datagram[0] == 22
        && datagram[3..5] == [0, 0]
        && datagram[13] == 1
        && datagram[19..22] == [0, 0, 0]
}

/// The first record of a datagram as the first fragment of an epoch-0
/// ClientHello, parsed up to and including its cookie.
fn parse_initial_hello(datagram: &[u8]) -> Option<InitialHello> {
    let (records, _) = split_datagram(datagram);
    let (rh, frag) = records.into_iter().next()?;
    if rh.content_type != ContentType::Handshake || rh.epoch != 0 {
        return None;
    }
    let mut r = Reader::new(&frag);
    let (fh, body) = FragmentHeader::parse(&mut r).ok()?;
    if fh.msg_type != HandshakeType::ClientHello.to_u8() || fh.fragment_offset != 0 {
        return None;
    }
    if fh.fragment_length == fh.length {
        // Unfragmented: check the whole hello now.
        ClientHello::parse(body).ok()?;
    }
    let mut b = Reader::new(body);
    let version = b.u16().ok()?;
    let random = b.array().ok()?;
    let session_id = b.vec8().ok()?.to_vec();
    let cookie = b.vec8().ok()?.to_vec();
    if session_id.len() > 32 {
        return None;
    }
    Some(InitialHello {
        record_seq: rh.seq,
        message_seq: fh.message_seq,
        version,
        random,
        session_id,
        cookie,
    })
}

fn plain_handshake_record(record_seq: u64, msg_type: u8, message_seq: u16, body: &[u8]) -> Vec<u8> {
    let message = transcript_form(msg_type, message_seq, body);
    plaintext_record(ContentType::Handshake, 0, record_seq, &message)
}
