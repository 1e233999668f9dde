//! DTLS 1.3's part of the server endpoint ([`crate::endpoint`]), as 1.2
//! has its own. A ClientHello from a peer without a session is
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

use crate::error::ConfigError;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use rand_core::CryptoRng;
use session_table::{Refusal, SlotTable};

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
use crate::endpoint::{fresh_cid, Counter, Endpoint, Held, Transmit, Version};
use crate::error::{AlertDescription, Error};
use crate::fragment::{fragment_ranges, FragmentHeader, HANDSHAKE_HEADER_LEN};
use crate::Instant;

/// What the endpoint did outside any session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EndpointStats13 {
    /// HelloRetryRequests sent (each allocating nothing).
    pub hello_retry_requests: u64,
    /// Verified ClientHellos refused because every session slot (or every
    /// half-open one) was taken.
    pub refused_full: u64,
    /// Verified ClientHellos refused because their address held its share
    /// of sessions.
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

/// A DTLS 1.3 server endpoint.
pub type Server13<R> = Endpoint<Dtls13<R>>;

/// DTLS 1.3's part of a [`Server13`].
pub struct Dtls13<R: CryptoRng> {
    config: Arc<ServerConfig13>,
    rng: R,
    cookies: CookieGenerator,
    /// Fragmented first ClientHellos being reassembled.
    pending_hellos: PendingHellos,
    /// Each session's slot, as the admission policy sees it: the same
    /// table and rules as the 1.2 server's ([`session_table`]).
    slots: SlotTable<SocketAddr>,
    stats: EndpointStats13,
}

impl<R: CryptoRng> Version for Dtls13<R> {
    type Session = Connection13;
    type Config = ServerConfig13;
    type Rng = R;
    type Stats = EndpointStats13;

    fn new(config: Arc<ServerConfig13>, mut rng: R, now: Instant) -> Result<Self, Error> {
        config.config.validate()?;
        config
            .session_limits()
            .validate()
            .map_err(|e| Error::Config(ConfigError::SessionLimits(e)))?;
        if !(1..=32).contains(&config.cookie_mac_len) {
            return Err(Error::Config(ConfigError::CookieMacLen));
        }
        let cookies = CookieGenerator::new(
            &mut rng,
            now,
            config.cookie_rotation_us,
            config.cookie_mac_len,
        );
        Ok(Dtls13 {
            slots: SlotTable::new(config.session_limits(), config.eviction),
            config,
            rng,
            cookies,
            pending_hellos: PendingHellos::default(),
            stats: EndpointStats13::default(),
        })
    }

    fn stats(&self) -> &EndpointStats13 {
        &self.stats
    }

    fn crypto(&self) -> &CryptoOps {
        &self.stats.crypto
    }

    fn cid_len(&self) -> Option<usize> {
        self.config.config.cid_len
    }

    fn leading_cid(datagram: &[u8], cid_len: usize) -> Option<&[u8]> {
        leading_cid(datagram, cid_len)
    }

    fn on_datagram(&mut self, now: Instant) {
        self.cookies.maybe_rotate(&mut self.rng, now);
    }

    /// A session takes copies of the hello that made it (a handshaking
    /// one answers them, an established one knows them late) and every
    /// other record from its peer; a whole hello with another random goes
    /// to the stateless check whatever the session's phase: a device that
    /// restarted on the same port is a new association, which replaces
    /// the old one once its cookie verifies (RFC 6347 §4.2.8, kept by RFC
    /// 9147 §5.1), rather than wait for a stale half-open handshake to give
    /// up. Fragments of a hello from a peer without a session go to
    /// reassembly.
    fn accept(ep: &mut Server13<R>, now: Instant, from: SocketAddr, datagram: &[u8]) {
        let hello = parse_initial_hello(datagram);
        let to_session = match (ep.sessions.get(&from), &hello) {
            (None, _) => false,
            (Some(s), Some(h)) => h.body.get(2..34) == Some(&s.hello_random[..]),
            (Some(_), None) => true,
        };
        if to_session {
            ep.deliver(now, from, datagram);
            return;
        }
        match hello {
            Some(h) => stateless(ep, now, from, h, datagram),
            None if !ep.sessions.contains_key(&from) => reassemble(ep, now, from, datagram),
            None => ep.version.stats.dropped += 1,
        }
    }

    fn new_cid(&mut self, in_use: &HashMap<Vec<u8>, SocketAddr>) -> Option<Vec<u8>> {
        fresh_cid(&mut self.rng, self.config.config.cid_len, in_use)
    }

    /// Has a server handshake in this state heard the client's second flight
    /// (its Certificate; a PSK client's second flight is its Finished, which
    /// completes the handshake)? Its slot is then protected
    /// ([`session_table::Limits::protect_progressed`]).
    fn progressed(state: &str) -> bool {
        state == "WaitClientCertificateVerify"
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

impl<R: CryptoRng> Server13<R> {
    /// Bytes of partial ClientHellos held for reassembly now (never above
    /// [`PendingHellos::BOUND_BYTES`]).
    pub fn pending_hello_bytes(&self) -> usize {
        self.version.pending_hellos.held_bytes()
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

/// Offer the ClientHello fragments of a datagram from a peer without a
/// session to the reassembly table; a hello made whole goes on to the
/// stateless check as if it had come in one record.
fn reassemble<R: CryptoRng>(ep: &mut Server13<R>, now: Instant, from: SocketAddr, datagram: &[u8]) {
    let fragments = hello_fragments(datagram);
    if fragments.is_empty() {
        ep.version.stats.dropped += 1;
        return;
    }
    for (record_seq, h, data) in fragments {
        match ep.version.pending_hellos.offer(from, record_seq, &h, data) {
            Offered::Refused => ep.version.stats.dropped += 1,
            Offered::Kept => ep.version.stats.hello_fragments_kept += 1,
            Offered::KeptEvicting => {
                ep.version.stats.hello_fragments_kept += 1;
                ep.version.stats.partial_hellos_evicted += 1;
            }
            Offered::Whole(r) => {
                ep.version.stats.hello_fragments_kept += 1;
                ep.version.stats.hellos_reassembled += 1;
                let whole = whole_hello_record(&r);
                let hello = InitialHello {
                    record_seq: r.record_seq,
                    message_seq: r.message_seq,
                    body: &r.body,
                };
                // the rest of this datagram can only repeat the hello
                return stateless(ep, now, from, hello, &whole);
            }
        }
    }
}

fn stateless<R: CryptoRng>(
    ep: &mut Server13<R>,
    now: Instant,
    from: SocketAddr,
    hello: InitialHello<'_>,
    datagram: &[u8],
) {
    let vetted = vet_client_hello(
        &ep.version.config,
        &ep.version.cookies,
        &from,
        hello.body,
        &mut ep.version.stats.crypto,
    );
    let retry = match vetted {
        // an unusable hello gets no answer: nothing is authenticated
        // yet and an alert would only help a scanner
        Err(_) => {
            ep.version.stats.dropped += 1;
            return;
        }
        Ok(Vetted::Retry(hrr)) => {
            send_hello_retry_request(ep, from, &hello, &hrr);
            ep.version.stats.hello_retry_requests += 1;
            return;
        }
        Ok(Vetted::Accept(retry)) => retry,
    };
    if ep.sessions.contains_key(&from) {
        // a verified new ClientHello from a known address replaces the
        // old association (RFC 9147 §5.1 as RFC 6347 §4.2.8)
        ep.remove_session(&from);
    }
    // the session table's admission rules, as for 1.2 (half-open limit,
    // per-address cap, timeouts, eviction policy)
    let refusal = Dtls13::admit(ep, from, now);
    if refusal == Some(Refusal::HostRate) {
        // the host started a handshake moments ago: this one gets no
        // answer (no state, no alert); its client retransmits
        return;
    }
    if refusal.is_some() {
        send_plain(
            ep,
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
        .map_or(0, |(_, len)| hrr_fragments(&ep.version.config, *len).len());
    let record_seq = hello.record_seq + hrr_records.saturating_sub(1) as u64;
    let mut seed = [0u8; 32];
    ep.version.rng.fill_bytes(&mut seed);
    let mut hello_random = [0u8; 32];
    hello_random.copy_from_slice(&hello.body[2..34]);
    let cid = ep.new_cid();
    let conn = Connection13::server_vetted(
        ep.version.config.clone(),
        from,
        retry.map(|(k, _)| k),
        (record_seq, hello.message_seq),
        cid.clone(),
        seed,
        now,
    );
    ep.version.stats.sessions_created += 1;
    ep.version.pending_hellos.forget(&from);
    let held = Held::new(conn, hello_random, cid);
    // the session processes the hello itself
    ep.insert_session(now, from, held, datagram);
}

/// (offset, length) of the HelloRetryRequest's fragments.
fn hrr_fragments(config: &ServerConfig13, len: usize) -> Vec<(usize, usize)> {
    let c = &config.config.common;
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
fn send_hello_retry_request<R: CryptoRng>(
    ep: &mut Server13<R>,
    to: SocketAddr,
    hello: &InitialHello<'_>,
    hrr: &[u8],
) {
    let fragments = hrr_fragments(&ep.version.config, hrr.len())
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
    send_plain(
        ep,
        to,
        hello.record_seq,
        ContentType13::Handshake,
        &fragments,
    );
}

/// Plaintext records of `contents`, numbered from `first_seq`, packed
/// into datagrams of at most the MTU.
fn send_plain<R: CryptoRng>(
    ep: &mut Server13<R>,
    to: SocketAddr,
    first_seq: u64,
    content_type: ContentType13,
    contents: &[Vec<u8>],
) {
    let mtu = ep.version.config.config.common.mtu;
    let mut datagram = Vec::new();
    for (i, content) in contents.iter().enumerate() {
        if !datagram.is_empty() && datagram.len() + PLAINTEXT_HEADER_LEN + content.len() > mtu {
            ep.tx.push_back(Transmit {
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
        ep.tx.push_back(Transmit {
            destination: to,
            payload: datagram,
        });
    }
}
