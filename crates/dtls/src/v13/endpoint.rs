//! The DTLS 1.3 server endpoint: one socket's worth of peers, as 1.2's
//! [`crate::Server`] is. A ClientHello from a peer without a session is
//! checked statelessly (RFC 9147 §5.1): without a valid cookie it is
//! answered with a HelloRetryRequest and nothing is kept; a session is
//! created only for a hello whose cookie verifies, and only while a slot is
//! free. Datagrams reach their session by the connection ID their first
//! record carries, else by the peer's address; a session whose peer moved
//! (NAT rebinding) follows it once a record newer than any before
//! authenticates under its CID (RFC 9146 §6, RFC 9147 §9).
//!
//! The stateless check needs the whole ClientHello: a hello that arrives
//! in fragments is first reassembled in a small table of fixed bound
//! ([`super::first_hello`]), then checked as one that came whole.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::Arc;

use rand_core::CryptoRng;

use super::config::ServerConfig13;
use super::connection::Connection13;
use super::first_hello::{Offered, PendingHellos, Reassembled};
use super::header::{
    leading_cid, split_datagram, ContentType13, Header13, PlaintextHeader, LEGACY_RECORD_VERSION,
    PLAINTEXT_HEADER_LEN,
};
use super::server::{vet_client_hello, Vetted};
use super::step::msg_type;
use crate::accounting::CryptoOps;
use crate::codec::Reader;
use crate::crypto::CookieGenerator;
use crate::endpoint::{fresh_cid, Transmit};
use crate::error::{AlertDescription, Error};
use crate::fragment::fragment_ranges;
use crate::fragment::{FragmentHeader, HANDSHAKE_HEADER_LEN};
use crate::session::{Event, Phase};
use crate::Instant;

/// What the endpoint did outside any session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EndpointStats13 {
    /// HelloRetryRequests sent (each allocating nothing).
    pub hello_retry_requests: u64,
    /// Verified ClientHellos refused because every session slot was taken.
    pub refused_full: u64,
    /// Datagrams from peers without a session that were not a usable
    /// ClientHello.
    pub dropped: u64,
    /// ClientHello fragments kept for reassembly (peers without a
    /// session).
    pub hello_fragments_kept: u64,
    /// Partial ClientHellos evicted by another address's when every
    /// reassembly slot was taken.
    pub partial_hellos_evicted: u64,
    /// ClientHellos made whole from fragments.
    pub hellos_reassembled: u64,
    /// Sessions created.
    pub sessions_created: u64,
    /// Sessions removed (closed or failed).
    pub sessions_removed: u64,
    /// Sessions that followed their peer to a new address.
    pub address_changes: u64,
    /// Operations of the stateless checks (cookie MACs, hello hashes).
    pub crypto: CryptoOps,
}

/// One session and what the endpoint knows of it.
struct Session {
    conn: Connection13,
    /// The random of the ClientHello that made it: a later hello with
    /// another random from the same address is a new association.
    hello_random: [u8; 32],
    /// The CID the session receives with, if the endpoint issues CIDs.
    cid: Option<Vec<u8>>,
}

/// A DTLS 1.3 server endpoint.
pub struct Server13<R: CryptoRng> {
    config: Arc<ServerConfig13>,
    rng: R,
    cookies: CookieGenerator,
    sessions: HashMap<SocketAddr, Session>,
    /// Fragmented first ClientHellos being reassembled.
    pending_hellos: PendingHellos,
    /// Session address by the CID it receives with.
    by_cid: HashMap<Vec<u8>, SocketAddr>,
    tx: VecDeque<Transmit>,
    events: VecDeque<(SocketAddr, Event)>,
    stats: EndpointStats13,
    /// Operations of sessions already removed.
    retired_crypto: CryptoOps,
}

impl<R: CryptoRng> core::fmt::Debug for Server13<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Server13")
            .field("sessions", &self.sessions.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// The first record of a datagram as a whole epoch-0 ClientHello.
struct InitialHello<'a> {
    record_seq: u64,
    message_seq: u16,
    body: &'a [u8],
}

fn parse_initial_hello(datagram: &[u8]) -> Option<InitialHello<'_>> {
    let (records, _) = split_datagram(datagram, 0);
    let view = records.into_iter().next()?;
    let Header13::Plaintext(h) = view.header else {
        return None;
    };
    if h.content_type != ContentType13::Handshake || h.epoch != 0 {
        return None;
    }
    let mut r = Reader::new(view.body);
    let (fh, body) = FragmentHeader::parse(&mut r).ok()?;
    let whole = fh.fragment_offset == 0 && fh.fragment_length == fh.length;
    (fh.msg_type == msg_type::CLIENT_HELLO && whole).then_some(InitialHello {
        record_seq: h.seq,
        message_seq: fh.message_seq,
        body,
    })
}

/// The epoch-0 ClientHello fragments of a datagram: (record number,
/// header, fragment body).
fn hello_fragments(datagram: &[u8]) -> Vec<(u64, FragmentHeader, &[u8])> {
    let (records, _) = split_datagram(datagram, 0);
    let mut out = Vec::new();
    for view in records {
        let Header13::Plaintext(h) = view.header else {
            continue;
        };
        if h.content_type != ContentType13::Handshake || h.epoch != 0 {
            continue;
        }
        let mut r = Reader::new(view.body);
        while !r.is_empty() {
            let Ok((fh, body)) = FragmentHeader::parse(&mut r) else {
                break;
            };
            if fh.msg_type == msg_type::CLIENT_HELLO {
                out.push((h.seq, fh, body));
            }
        }
    }
    out
}

/// A reassembled ClientHello as one plaintext record, the form a session
/// takes its first hello in.
fn whole_hello_record(r: &Reassembled) -> Vec<u8> {
    let mut message = Vec::with_capacity(HANDSHAKE_HEADER_LEN + r.body.len());
    FragmentHeader {
        msg_type: msg_type::CLIENT_HELLO,
        length: r.body.len() as u32,
        message_seq: r.message_seq,
        fragment_offset: 0,
        fragment_length: r.body.len() as u32,
    }
    .emit(&mut message);
    message.extend_from_slice(&r.body);
    let mut record = Vec::with_capacity(PLAINTEXT_HEADER_LEN + message.len());
    PlaintextHeader {
        content_type: ContentType13::Handshake,
        version: LEGACY_RECORD_VERSION,
        epoch: 0,
        seq: r.record_seq,
        length: message.len() as u16,
    }
    .emit(&mut record);
    record.extend_from_slice(&message);
    record
}

impl<R: CryptoRng> Server13<R> {
    /// New endpoint. `rng` supplies every random byte (seed it for the
    /// simulator).
    pub fn new(config: Arc<ServerConfig13>, mut rng: R, now: Instant) -> Result<Self, Error> {
        config.config.validate()?;
        if !(1..=32).contains(&config.cookie_mac_len) {
            return Err(Error::Config("cookie_mac_len must be 1..=32"));
        }
        let cookies = CookieGenerator::new(
            &mut rng,
            now,
            config.cookie_rotation_us,
            config.cookie_mac_len,
        );
        Ok(Server13 {
            config,
            rng,
            cookies,
            sessions: HashMap::new(),
            pending_hellos: PendingHellos::default(),
            by_cid: HashMap::new(),
            tx: VecDeque::new(),
            events: VecDeque::new(),
            stats: EndpointStats13::default(),
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
        let hello = parse_initial_hello(datagram);
        let to_session = match (self.sessions.get(&from), &hello) {
            (None, _) => false,
            // a handshaking session takes repeats of its hello
            (Some(s), _) if s.conn.phase() == Phase::Handshaking => true,
            // a late copy of the hello that made this session
            (Some(s), Some(h)) => h.body.get(2..34) == Some(&s.hello_random[..]),
            (Some(_), None) => true,
        };
        if to_session {
            if let Some(s) = self.sessions.get_mut(&from) {
                s.conn.handle_datagram(now, datagram);
            }
            self.drain(from);
            return;
        }
        match hello {
            Some(h) => self.stateless(now, from, h, datagram),
            None if !self.sessions.contains_key(&from) => self.reassemble(now, from, datagram),
            None => self.stats.dropped += 1,
        }
    }

    /// Offer the ClientHello fragments of a datagram from a peer without a
    /// session to the reassembly table; a hello made whole goes on to the
    /// stateless check as if it had come in one record.
    fn reassemble(&mut self, now: Instant, from: SocketAddr, datagram: &[u8]) {
        let fragments = hello_fragments(datagram);
        if fragments.is_empty() {
            self.stats.dropped += 1;
            return;
        }
        for (record_seq, h, data) in fragments {
            match self.pending_hellos.offer(from, record_seq, &h, data) {
                Offered::Refused => self.stats.dropped += 1,
                Offered::Kept => self.stats.hello_fragments_kept += 1,
                Offered::KeptEvicting => {
                    self.stats.hello_fragments_kept += 1;
                    self.stats.partial_hellos_evicted += 1;
                }
                Offered::Whole(r) => {
                    self.stats.hello_fragments_kept += 1;
                    self.stats.hellos_reassembled += 1;
                    let whole = whole_hello_record(&r);
                    let hello = InitialHello {
                        record_seq: r.record_seq,
                        message_seq: r.message_seq,
                        body: &r.body,
                    };
                    // the rest of this datagram can only repeat the hello
                    return self.stateless(now, from, hello, &whole);
                }
            }
        }
    }

    fn session_by_cid(&self, datagram: &[u8]) -> Option<SocketAddr> {
        let n = self.config.config.cid_len.filter(|n| *n > 0)?;
        self.by_cid.get(leading_cid(datagram, n)?).copied()
    }

    /// A datagram for the session at `home` arrived from `from`: the
    /// session moves there if it authenticates a record newer than any
    /// before (an old record replayed from elsewhere does not move it).
    fn deliver_by_cid(&mut self, now: Instant, home: SocketAddr, from: SocketAddr, d: &[u8]) {
        let Some(s) = self.sessions.get_mut(&home) else {
            return;
        };
        s.conn.take_newest_authenticated();
        s.conn.handle_datagram(now, d);
        let moved = home != from && s.conn.take_newest_authenticated();
        if !moved {
            self.drain(home);
            return;
        }
        // whatever was at the new address is replaced
        self.remove_session(&from);
        if let Some(s) = self.sessions.remove(&home) {
            if let Some(cid) = &s.cid {
                self.by_cid.insert(cid.clone(), from);
            }
            self.sessions.insert(from, s);
            self.stats.address_changes += 1;
        }
        self.drain(from);
    }

    /// A fresh CID no session uses.
    fn new_cid(&mut self) -> Option<Vec<u8>> {
        fresh_cid(&mut self.rng, self.config.config.cid_len, &self.by_cid)
    }

    /// Next datagram to send.
    pub fn poll_transmit(&mut self, _now: Instant) -> Option<Transmit> {
        self.tx.pop_front()
    }

    /// Earliest timer deadline of all sessions.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.sessions
            .values()
            .filter_map(|s| s.conn.poll_timeout())
            .min()
    }

    /// Run expired timers.
    pub fn handle_timeout(&mut self, now: Instant) {
        let due: Vec<SocketAddr> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.conn.poll_timeout().is_some_and(|d| d <= now))
            .map(|(a, _)| *a)
            .collect();
        for a in due {
            if let Some(s) = self.sessions.get_mut(&a) {
                s.conn.handle_timeout(now);
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
        let s = self.sessions.get_mut(&to).ok_or(Error::NotConnected)?;
        s.conn.send(data)?;
        self.drain(to);
        Ok(())
    }

    /// Close a session with close_notify.
    pub fn close(&mut self, peer: SocketAddr) {
        if let Some(s) = self.sessions.get_mut(&peer) {
            s.conn.close();
        }
        self.drain(peer);
    }

    /// The session with `peer`, if any.
    pub fn session(&self, peer: &SocketAddr) -> Option<&Connection13> {
        self.sessions.get(peer).map(|s| &s.conn)
    }

    /// Number of sessions (handshaking or established).
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// Peers with a session.
    pub fn peers(&self) -> impl Iterator<Item = &SocketAddr> {
        self.sessions.keys()
    }

    /// Bytes of partial ClientHellos held for reassembly now (never above
    /// [`PendingHellos::BOUND_BYTES`]).
    pub fn pending_hello_bytes(&self) -> usize {
        self.pending_hellos.held_bytes()
    }

    /// Endpoint counters.
    pub fn stats(&self) -> &EndpointStats13 {
        &self.stats
    }

    /// Cryptographic operations of the endpoint (stateless checks) and of
    /// every session it ever held.
    pub fn crypto_total(&self) -> CryptoOps {
        let mut total = self.stats.crypto;
        total.add(&self.retired_crypto);
        for s in self.sessions.values() {
            total.add(&s.conn.stats().crypto);
        }
        total
    }

    fn drain(&mut self, peer: SocketAddr) {
        let Some(s) = self.sessions.get_mut(&peer) else {
            return;
        };
        while let Some(d) = s.conn.poll_transmit(0) {
            self.tx.push_back(Transmit {
                destination: peer,
                payload: d,
            });
        }
        while let Some(e) = s.conn.poll_event() {
            self.events.push_back((peer, e));
        }
        if matches!(s.conn.phase(), Phase::Closed | Phase::Failed) {
            self.remove_session(&peer);
        }
    }

    fn remove_session(&mut self, peer: &SocketAddr) {
        if let Some(s) = self.sessions.remove(peer) {
            if let Some(cid) = &s.cid {
                if self.by_cid.get(cid) == Some(peer) {
                    self.by_cid.remove(cid);
                }
            }
            self.retired_crypto.add(&s.conn.stats().crypto);
            self.stats.sessions_removed += 1;
        }
    }

    fn stateless(
        &mut self,
        now: Instant,
        from: SocketAddr,
        hello: InitialHello<'_>,
        datagram: &[u8],
    ) {
        let vetted = vet_client_hello(
            &self.config,
            &self.cookies,
            &from,
            hello.body,
            &mut self.stats.crypto,
        );
        let retry = match vetted {
            // an unusable hello gets no answer: nothing is authenticated
            // yet and an alert would only help a scanner
            Err(_) => {
                self.stats.dropped += 1;
                return;
            }
            Ok(Vetted::Retry(hrr)) => {
                self.send_hello_retry_request(from, &hello, &hrr);
                self.stats.hello_retry_requests += 1;
                return;
            }
            Ok(Vetted::Accept(retry)) => retry,
        };
        if self.sessions.contains_key(&from) {
            // a verified new ClientHello from a known address replaces the
            // old association (RFC 9147 §5.1 as RFC 6347 §4.2.8)
            self.remove_session(&from);
        }
        if self.sessions.len() >= self.config.max_sessions {
            self.stats.refused_full += 1;
            self.send_plain(
                from,
                hello.record_seq,
                ContentType13::Alert,
                &[[2, AlertDescription::HandshakeFailure.to_u8()].to_vec()],
            );
            return;
        }
        // the session's plaintext records continue after those the
        // HelloRetryRequest took
        let hrr_records = retry
            .as_ref()
            .map_or(0, |(_, len)| self.hrr_fragments(*len).len());
        let record_seq = hello.record_seq + hrr_records.saturating_sub(1) as u64;
        let mut seed = [0u8; 32];
        self.rng.fill_bytes(&mut seed);
        let mut hello_random = [0u8; 32];
        hello_random.copy_from_slice(&hello.body[2..34]);
        let cid = self.new_cid();
        let conn = Connection13::server_vetted(
            self.config.clone(),
            from,
            retry.map(|(k, _)| k),
            (record_seq, hello.message_seq),
            cid.clone(),
            seed,
            now,
        );
        self.stats.sessions_created += 1;
        self.pending_hellos.forget(&from);
        if let Some(c) = cid.as_ref().filter(|c| !c.is_empty()) {
            self.by_cid.insert(c.clone(), from);
        }
        self.sessions.insert(
            from,
            Session {
                conn,
                hello_random,
                cid,
            },
        );
        // the session processes the hello itself
        if let Some(s) = self.sessions.get_mut(&from) {
            s.conn.handle_datagram(now, datagram);
        }
        self.drain(from);
    }

    /// (offset, length) of the HelloRetryRequest's fragments.
    fn hrr_fragments(&self, len: usize) -> Vec<(usize, usize)> {
        let c = &self.config.config.common;
        let max = c
            .max_fragment_len
            .min(
                c.mtu
                    .saturating_sub(PLAINTEXT_HEADER_LEN + HANDSHAKE_HEADER_LEN),
            )
            .max(1);
        fragment_ranges(len, max, 0)
    }

    /// The HelloRetryRequest in the hello's message_seq, its records
    /// numbered from the hello's (RFC 9147 §5.2, as RFC 6347 §4.2.1 for the
    /// HelloVerifyRequest).
    fn send_hello_retry_request(&mut self, to: SocketAddr, hello: &InitialHello<'_>, hrr: &[u8]) {
        let fragments = self
            .hrr_fragments(hrr.len())
            .into_iter()
            .map(|(offset, len)| {
                let mut f = Vec::with_capacity(HANDSHAKE_HEADER_LEN + len);
                FragmentHeader {
                    msg_type: msg_type::SERVER_HELLO,
                    length: hrr.len() as u32,
                    message_seq: hello.message_seq,
                    fragment_offset: offset as u32,
                    fragment_length: len as u32,
                }
                .emit(&mut f);
                f.extend_from_slice(&hrr[offset..offset + len]);
                f
            })
            .collect::<Vec<_>>();
        self.send_plain(to, hello.record_seq, ContentType13::Handshake, &fragments);
    }

    /// Plaintext records of `contents`, numbered from `first_seq`, packed
    /// into datagrams of at most the MTU.
    fn send_plain(
        &mut self,
        to: SocketAddr,
        first_seq: u64,
        content_type: ContentType13,
        contents: &[Vec<u8>],
    ) {
        let mtu = self.config.config.common.mtu;
        let mut datagram = Vec::new();
        for (i, content) in contents.iter().enumerate() {
            if !datagram.is_empty() && datagram.len() + PLAINTEXT_HEADER_LEN + content.len() > mtu {
                self.tx.push_back(Transmit {
                    destination: to,
                    payload: std::mem::take(&mut datagram),
                });
            }
            PlaintextHeader {
                content_type,
                version: LEGACY_RECORD_VERSION,
                epoch: 0,
                seq: first_seq + i as u64,
                length: content.len() as u16,
            }
            .emit(&mut datagram);
            datagram.extend_from_slice(content);
        }
        if !datagram.is_empty() {
            self.tx.push_back(Transmit {
                destination: to,
                payload: datagram,
            });
        }
    }
}
