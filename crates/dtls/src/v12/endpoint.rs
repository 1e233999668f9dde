//! The server endpoint: one socket's worth of peers. Answers ClientHellos
//! without cookie statelessly (HelloVerifyRequest), creates a session only
//! for a ClientHello with a valid cookie and only when the admission policy
//! ([`session_table`]) gives it a slot, and routes datagrams to sessions
//! by connection ID (RFC 9146) when one was negotiated, else by peer
//! address.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::Arc;

use rand_core::CryptoRng;
use session_table::{Admission, Expiry, Refusal, SlotTable};

use crate::accounting::CryptoOps;
use crate::codec::Reader;
use crate::config::Config;
use crate::crypto::CookieGenerator;
use crate::endpoint::{fresh_cid, Transmit};
use crate::error::{AlertDescription, Error};
use crate::fragment::HandshakeType;
use crate::fragment::{transcript_form, FragmentHeader};
use crate::session::{Event, Phase};
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
pub struct Server<R: CryptoRng> {
    config: Arc<ServerConfig>,
    common: Arc<Config>,
    rng: R,
    cookies: CookieGenerator,
    sessions: HashMap<SocketAddr, Connection>,
    /// Where the session owning each non-empty CID lives.
    by_cid: HashMap<Vec<u8>, SocketAddr>,
    /// Each session's slot, as the admission policy sees it.
    slots: SlotTable<SocketAddr>,
    tx: VecDeque<Transmit>,
    events: VecDeque<(SocketAddr, Event)>,
    stats: EndpointStats,
    /// Operations of sessions already removed.
    retired_crypto: CryptoOps,
    /// Sessions a returning client may resume (RFC 5246 §7.3).
    cache: SessionCache,
}

impl<R: CryptoRng> core::fmt::Debug for Server<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Server")
            .field("sessions", &self.sessions.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl<R: CryptoRng> Server<R> {
    /// New endpoint. `rng` supplies every random byte (seed it for the
    /// simulator).
    pub fn new(config: Arc<ServerConfig>, mut rng: R, now: Instant) -> Result<Self, Error> {
        config.config.validate()?;
        config.session_limits().validate().map_err(Error::Config)?;
        if config.psk_store.is_none() && config.certificate.is_none() {
            return Err(Error::Config(
                "server has neither PSK store nor certificate",
            ));
        }
        if !(1..=32).contains(&config.cookie_len) {
            return Err(Error::Config("cookie_len must be 1..=32"));
        }
        if let Some(c) = &config.certificate {
            let leaf = c
                .chain
                .first()
                .ok_or(Error::Config("empty certificate chain"))?;
            let pk = crate::cert::leaf_public_key(c.certificate_type(), leaf).map_err(|_| {
                Error::Config("certificate is not a P-256 X.509 certificate or raw public key")
            })?;
            if crate::crypto::ecc::public_of(&c.private_key)? != pk {
                return Err(Error::Config("private key does not match the certificate"));
            }
        }
        let cookies =
            CookieGenerator::new(&mut rng, now, config.cookie_rotation_us, config.cookie_len);
        Ok(Server {
            common: Arc::new(config.config.clone()),
            slots: SlotTable::new(config.session_limits(), config.eviction),
            cache: SessionCache::new(config.session_cache),
            config,
            rng,
            cookies,
            sessions: HashMap::new(),
            by_cid: HashMap::new(),
            tx: VecDeque::new(),
            events: VecDeque::new(),
            stats: EndpointStats::default(),
            retired_crypto: CryptoOps::default(),
        })
    }

    /// Feed a datagram received from `from`.
    pub fn handle_datagram(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        self.cookies.maybe_rotate(&mut self.rng, now);
        if let Some(home) = self.session_by_cid(datagram) {
            self.deliver_by_cid(now, home, from, datagram);
            return;
        }
        // An epoch-0 ClientHello from a known address goes through the
        // cookie exchange: a late copy of the hello that made the session
        // reaches the session, a verified new one (a restarted client)
        // replaces it (RFC 6347 §4.2.8).
        let new_hello = self.sessions.contains_key(&from) && starts_with_client_hello(datagram);
        match self.sessions.get_mut(&from) {
            Some(conn) if !new_hello => {
                conn.handle_datagram(now, datagram);
                self.heard_from(from, now);
                self.drain(from);
            }
            _ => self.stateless(now, from, datagram),
        }
    }

    /// The session whose CID the datagram's first record carries.
    fn session_by_cid(&self, datagram: &[u8]) -> Option<SocketAddr> {
        let n = self.common.cid_len.filter(|n| *n > 0)?;
        self.by_cid.get(leading_cid(datagram, n)?).copied()
    }

    /// A datagram for the session at `home` arrived from `from`: the
    /// session moves there only if it authenticates a record newer than
    /// any before (RFC 9146 §6: an old record replayed from elsewhere does
    /// not move it).
    fn deliver_by_cid(&mut self, now: Instant, home: SocketAddr, from: SocketAddr, d: &[u8]) {
        let Some(conn) = self.sessions.get_mut(&home) else {
            return;
        };
        conn.take_newest_authenticated();
        conn.handle_datagram(now, d);
        let moved = home != from && conn.take_newest_authenticated();
        self.heard_from(home, now);
        if !moved {
            self.drain(home);
            return;
        }
        // whatever was at the new address is replaced
        self.remove_session(&from);
        if let Some(conn) = self.sessions.remove(&home) {
            if let Some(cid) = conn.own_cid.as_ref().filter(|c| !c.is_empty()) {
                self.by_cid.insert(cid.clone(), from);
            }
            self.sessions.insert(from, conn);
            self.slots.moved(&home, from);
            self.stats.address_changes += 1;
        }
        self.drain(from);
    }

    /// A fresh CID no session uses.
    fn new_cid(&mut self) -> Option<Vec<u8>> {
        fresh_cid(&mut self.rng, self.common.cid_len, &self.by_cid)
    }

    /// Next datagram to send.
    pub fn poll_transmit(&mut self, _now: Instant) -> Option<Transmit> {
        self.tx.pop_front()
    }

    /// Earliest deadline of all sessions: a retransmission timer, or a
    /// half-open handshake's or an idle session's timeout.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let timers = self.sessions.values().filter_map(Connection::poll_timeout);
        timers.chain(self.slots.next_expiry()).min()
    }

    /// Run expired timers.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.expire_slots(now);
        let due: Vec<SocketAddr> = self
            .sessions
            .iter()
            .filter(|(_, c)| c.poll_timeout().is_some_and(|d| d <= now))
            .map(|(a, _)| *a)
            .collect();
        for a in due {
            if let Some(c) = self.sessions.get_mut(&a) {
                c.handle_timeout(now);
            }
            self.drain(a);
        }
    }

    /// Next event and the peer it concerns.
    pub fn poll_event(&mut self) -> Option<(SocketAddr, Event)> {
        self.events.pop_front()
    }

    /// Send application data to an established peer.
    pub fn send(&mut self, to: SocketAddr, data: &[u8]) -> Result<(), Error> {
        let c = self.sessions.get_mut(&to).ok_or(Error::NotConnected)?;
        c.send(data)?;
        self.drain(to);
        Ok(())
    }

    /// Close a session with close_notify.
    pub fn close(&mut self, peer: SocketAddr) {
        if let Some(c) = self.sessions.get_mut(&peer) {
            c.close();
        }
        self.drain(peer);
    }

    /// The session with `peer`, if any.
    pub fn session(&self, peer: &SocketAddr) -> Option<&Connection> {
        self.sessions.get(peer)
    }

    /// Number of sessions (handshaking or established).
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// Peers with a session.
    pub fn peers(&self) -> impl Iterator<Item = &SocketAddr> {
        self.sessions.keys()
    }

    /// Sessions held for resumption.
    pub fn cached_sessions(&self) -> usize {
        self.cache.len()
    }

    /// Endpoint counters.
    pub fn stats(&self) -> &EndpointStats {
        &self.stats
    }

    fn drain(&mut self, peer: SocketAddr) {
        let Some(c) = self.sessions.get_mut(&peer) else {
            return;
        };
        while let Some(d) = c.poll_transmit(0) {
            self.tx.push_back(Transmit {
                destination: peer,
                payload: d,
            });
        }
        while let Some(e) = c.poll_event() {
            if e == Event::Connected {
                if let Some(s) = c.resumable_session() {
                    self.cache.put(s.clone());
                }
            }
            self.events.push_back((peer, e));
        }
        if matches!(c.phase(), Phase::Closed | Phase::Failed) {
            self.remove_session(&peer);
        }
    }

    /// Forget a session, keeping its operation counts in the endpoint's total.
    fn remove_session(&mut self, peer: &SocketAddr) {
        self.slots.release(peer);
        if let Some(c) = self.sessions.remove(peer) {
            if let Some(cid) = &c.own_cid {
                if self.by_cid.get(cid) == Some(peer) {
                    self.by_cid.remove(cid);
                }
            }
            self.retired_crypto.add(&c.stats().crypto);
            self.stats.sessions_removed += 1;
        }
    }

    /// Cryptographic operations of the endpoint (cookies) and of every
    /// session it ever held: what a simulated server's CPU has done so far.
    pub fn crypto_total(&self) -> CryptoOps {
        let mut total = self.stats.crypto;
        total.add(&self.retired_crypto);
        for c in self.sessions.values() {
            total.add(&c.stats().crypto);
        }
        total
    }

    /// A datagram of the session with `peer` was handled at `now`: its slot
    /// was used, and is no longer half-open once the handshake completed.
    fn heard_from(&mut self, peer: SocketAddr, now: Instant) {
        self.slots.touch(&peer, now);
        let done = self
            .sessions
            .get(&peer)
            .is_some_and(|c| c.phase() != Phase::Handshaking);
        if done {
            self.slots.established(&peer, now);
        }
    }

    /// Drop the half-open handshakes past the half-open timeout and the
    /// sessions past the idle timeout (an idle one is told with a
    /// close_notify, in case its peer is still there).
    fn expire_slots(&mut self, now: Instant) {
        for (a, why) in self.slots.expire(now) {
            match why {
                Expiry::HalfOpen => self.stats.expired_half_open += 1,
                Expiry::Idle => {
                    self.stats.expired_idle += 1;
                    self.close(a);
                }
            }
            self.remove_session(&a);
        }
    }

    fn stateless(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        let Some(hello) = parse_initial_hello(datagram) else {
            self.stats.dropped += 1;
            return;
        };
        if self.config.require_cookie {
            let binding = hello.cookie_binding();
            let ok = !hello.cookie.is_empty()
                && self
                    .cookies
                    .verify(&from, &binding, &hello.cookie, &mut self.stats.crypto);
            if !ok {
                let cookie = self.cookies.make(&from, &binding, &mut self.stats.crypto);
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
                self.tx.push_back(Transmit {
                    destination: from,
                    payload,
                });
                self.stats.hello_verify_requests += 1;
                return;
            }
        }
        if let Some(old) = self.sessions.get_mut(&from) {
            if old.hello_id == crate::v12::handshake::server::hello_id(&hello.random) {
                // A late copy of the hello that made this session.
                old.handle_datagram(now, datagram);
                self.drain(from);
                return;
            }
            // RFC 6347 §4.2.8: a verified new ClientHello from a known
            // address replaces the old association, half-open or
            // established; the new one starts with a fresh epoch-0 replay
            // window and reassembly buffer.
            self.remove_session(&from);
        }
        self.expire_slots(now);
        let refusal = match self.slots.admit(from, now) {
            Admission::Admitted => None,
            Admission::Evicted(victim) => {
                self.stats.evicted += 1;
                self.remove_session(&victim);
                None
            }
            Admission::Refused(r) => Some(r),
        };
        if let Some(r) = refusal {
            match r {
                Refusal::Full | Refusal::HalfOpenLimit => self.stats.refused_full += 1,
                Refusal::PerHost => self.stats.refused_address_cap += 1,
            }
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
            self.tx.push_back(Transmit {
                destination: from,
                payload,
            });
            return;
        }
        let mut conn = Connection::server_accept(
            self.config.clone(),
            self.common.clone(),
            &mut self.rng,
            now,
            hello.record_seq,
            hello.message_seq,
        );
        let cached = self.cache.get(&hello.session_id).cloned();
        let new_id = if self.cache.enabled() {
            let mut id = vec![0u8; SESSION_ID_LEN];
            self.rng.fill_bytes(&mut id);
            id
        } else {
            Vec::new()
        };
        conn.server_sessions(cached, new_id);
        conn.own_cid = self.new_cid();
        if let Some(c) = conn.own_cid.as_ref().filter(|c| !c.is_empty()) {
            self.by_cid.insert(c.clone(), from);
        }
        conn.handle_datagram(now, datagram);
        self.stats.sessions_created += 1;
        self.sessions.insert(from, conn);
        self.drain(from);
    }
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

/// The CID of a datagram whose first record is a tls12_cid record (RFC
/// 9146 §4: after type, version, epoch and sequence number).
fn leading_cid(datagram: &[u8], cid_len: usize) -> Option<&[u8]> {
    if *datagram.first()? != ContentType::Tls12Cid.to_u8() {
        return None;
    }
    datagram.get(11..11 + cid_len)
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
