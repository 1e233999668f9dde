//! One DTLS 1.3 connection (client, or one server-side session) behind the
//! crate's sans-IO surface (`handle_datagram(now, …)`, `poll_transmit`,
//! `poll_timeout`, `handle_timeout`, `poll_event`), as the 1.2
//! [`crate::Connection`] answers it.
//!
//! It drives the handshake steps (`v13::client`, `v13::server`)
//! and owns what RFC 9147 adds around them: flights and their
//! retransmission timer (§5.8, with the crate's [`RetransmitPolicy`]), ACKs
//! (§7: sent on a gap in the peer's flight and for the client's final
//! flight; only what was not acknowledged is resent), fragmentation over
//! the path MTU and reassembly (the shared [`Reassembler`]), application
//! data in epoch 3 and close_notify.
//!
//! [`RetransmitPolicy`]: crate::RetransmitPolicy

use crate::error::{ConfigError, Malformed, Unexpected};
use std::net::SocketAddr;
use std::sync::Arc;

use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, SeedableRng};

use super::ack::Ack;
use super::client::{self, ClientState};
use super::config::{ClientConfig13, ServerConfig13};
use super::cookie::HrrCookie;
use super::flight::{Fragment, OutFlight, OutMessage};
use super::header::{parse_record, ContentType13, HeaderForm};
use super::record_layer::{Received, RecordLayer};
use super::server::{CookieCheck, ExpectClientHello, ServerState};
use super::step::{
    allowed_in_epoch, epoch, msg_type, AppSecrets, Cx, KeyChange, Message, PendingResumption,
};
use super::suite::CipherSuite13;
use super::ticket::{NewSessionTicket, Ticket13};
use crate::accounting::{MessageKind, Stats};
use crate::codec::Reader;
use crate::config::{Config, RecordPacking};
use crate::crypto::CookieGenerator;
use crate::error::v13::{HandshakeError13 as E13, RecordError};
use crate::error::{Alert, AlertDescription, AlertLevel, Error};
use crate::fragment::{FragmentHeader, HANDSHAKE_HEADER_LEN};
use crate::fragment::{Insert, Reassembler};
use crate::session::machine::Machine;
use crate::session::{Core, Session};
use crate::session::{Event, Phase, Role};
use crate::Instant;

/// Handshake fragments of one epoch to seal into one record.
struct OutRecord {
    epoch: u64,
    /// (fragment, message type, bytes of `content` it takes)
    pieces: Vec<(Fragment, u8, usize)>,
    content: Vec<u8>,
}

impl OutRecord {
    fn new(epoch: u64, f: Fragment, msg_type: u8, piece: Vec<u8>) -> Self {
        OutRecord {
            epoch,
            pieces: vec![(f, msg_type, piece.len())],
            content: piece,
        }
    }

    fn add(&mut self, f: Fragment, msg_type: u8, piece: Vec<u8>) {
        self.pieces.push((f, msg_type, piece.len()));
        self.content.extend_from_slice(&piece);
    }
}

/// The handshake of either side.
#[derive(Debug)]
enum Handshake {
    Client(ClientState),
    Server(ServerState),
    /// A step failed; the connection has failed with it.
    Failed,
}

/// A DTLS 1.3 connection with one peer.
pub struct Connection13 {
    role: Role,
    hs: Handshake,
    config: Config,
    core: Core,
    suite: Option<CipherSuite13>,
    records: RecordLayer,
    rng: ChaCha20Rng,
    reasm: Reassembler,
    out_message_seq: u16,
    /// This side's last flight while it may still need resending.
    flight: OutFlight,
    /// Handshake records of the peer's current flight (what an ACK lists).
    received: Ack,
    /// A server's application data of epoch 3 received before the
    /// client's Finished: delivered once the Finished is verified.
    early: Vec<Vec<u8>>,
    /// The application traffic secrets KeyUpdate derives the next epochs'
    /// keys from (RFC 8446 §7.2), once the handshake derived them.
    app: Option<AppSecrets>,
    /// This side's KeyUpdate is sent and not yet acknowledged: its sending
    /// keys move to the next epoch on the ACK (RFC 9147 §8).
    updating: bool,
    /// The time of the last datagram handled or call with a time.
    now: Instant,
    /// `Config13::key_update_after_records`.
    key_update_after: Option<u64>,
    /// `Config13::integrity_limit`.
    integrity_limit: Option<u64>,
    /// The peer's close_notify ended the handshake: a fatal alert after it
    /// (in the same datagram or a later one) says why, and is reported as
    /// the failure it is.
    closed_in_handshake: bool,
    /// The handshake resumed a session by ticket.
    resumed: bool,
    /// A client's means to take the server's NewSessionTicket.
    resumption: Option<PendingResumption>,
    /// `ClientConfig13::accept_tickets`: the handshake's means to take a
    /// ticket are kept (otherwise they go when it ends).
    accepts_tickets: bool,
    /// The newest ticket the server gave this client.
    ticket: Option<Ticket13>,
}

/// Epoch-3 records a server keeps while it waits for the client's
/// Finished: as many as the 1.2 connection keeps of its next epoch before
/// the peer's ChangeCipherSpec (RFC 6347 §4.1 lets a receiver buffer them).
const MAX_EARLY_RECORDS: usize = 8;

impl core::fmt::Debug for Connection13 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Connection13")
            .field("role", &self.role())
            .field("phase", &self.core.phase)
            .field("suite", &self.suite)
            .finish_non_exhaustive()
    }
}

impl Connection13 {
    fn new_common(
        role: Role,
        hs: Handshake,
        config: Config,
        form: HeaderForm,
        rng: ChaCha20Rng,
        now: Instant,
    ) -> Self {
        Connection13 {
            role,
            hs,
            core: Core::new(config.retransmit, now),
            reasm: Reassembler::new(0, config.max_handshake_message_len),
            config,
            suite: None,
            records: RecordLayer::new(form, None, 0),
            rng,
            out_message_seq: 0,
            flight: OutFlight::default(),
            received: Ack::new(),
            early: Vec::new(),
            app: None,
            updating: false,
            now,
            key_update_after: None,
            integrity_limit: None,
            closed_in_handshake: false,
            resumed: false,
            resumption: None,
            accepts_tickets: false,
            ticket: None,
        }
    }

    /// A client; its ClientHello is queued at once.
    pub fn client<R: CryptoRng + ?Sized>(
        config: Arc<ClientConfig13>,
        rng: &mut R,
        now: Instant,
    ) -> Result<Self, Error> {
        Self::client_offering(config, None, rng, now)
    }

    /// A client offering to resume with `ticket`, received `age_ms` ago
    /// (RFC 8446 §4.2.11); the server may take it or go on with a full
    /// handshake ([`Connection13::resumed`] says which).
    pub fn client_resuming<R: CryptoRng + ?Sized>(
        config: Arc<ClientConfig13>,
        ticket: &Ticket13,
        age_ms: u32,
        rng: &mut R,
        now: Instant,
    ) -> Result<Self, Error> {
        Self::client_offering(config, Some((ticket, age_ms)), rng, now)
    }

    fn client_offering<R: CryptoRng + ?Sized>(
        config: Arc<ClientConfig13>,
        resume: Option<(&Ticket13, u32)>,
        rng: &mut R,
        now: Instant,
    ) -> Result<Self, Error> {
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let mut c = Self::new_common(
            Role::Client,
            Handshake::Failed,
            config.config.common.clone(),
            config.config.header_form,
            ChaCha20Rng::from_seed(seed),
            now,
        );
        c.key_update_after = config.config.key_update_after_records;
        c.integrity_limit = config.config.integrity_limit;
        c.accepts_tickets = config.accept_tickets;
        let mut cx = Cx::new(&mut c.core.stats.crypto, &mut c.rng);
        cx.now = now;
        let state = client::start(config, resume, &mut cx)?;
        let send = std::mem::take(&mut cx.send);
        c.hs = Handshake::Client(state);
        c.start_flight(now, send);
        Ok(c)
    }

    /// A server session for the client at `peer` (the HelloRetryRequest
    /// cookie is bound to it).
    pub fn server<R: CryptoRng + ?Sized>(
        config: Arc<ServerConfig13>,
        peer: SocketAddr,
        rng: &mut R,
        now: Instant,
    ) -> Result<Self, Error> {
        config.config.validate()?;
        if !(1..=32).contains(&config.cookie_mac_len) {
            return Err(Error::Config(ConfigError::CookieMacLen));
        }
        let cookies =
            CookieGenerator::new(rng, now, config.cookie_rotation_us, config.cookie_mac_len);
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let own_cid = config.config.cid_len.map(|n| {
            let mut cid = vec![0u8; n];
            rng.fill_bytes(&mut cid);
            cid
        });
        let common = config.config.common.clone();
        let form = config.config.header_form;
        let key_update_after = config.config.key_update_after_records;
        let integrity_limit = config.config.integrity_limit;
        let hs = Handshake::Server(ServerState::ClientHello(ExpectClientHello::new(
            config,
            CookieCheck::Own(cookies),
            peer,
            own_cid,
        )));
        let mut c = Self::new_common(
            Role::Server,
            hs,
            common,
            form,
            ChaCha20Rng::from_seed(seed),
            now,
        );
        c.key_update_after = key_update_after;
        c.integrity_limit = integrity_limit;
        Ok(c)
    }

    /// A server session an endpoint creates for a ClientHello it has
    /// already checked statelessly (`retry`: what the hello's valid cookie
    /// carried). The session starts where the stateless exchange left off:
    /// its first message_seq is the hello's, and its plaintext records
    /// continue from the hello's record number, so the ServerHello is not
    /// taken for a replay of the HelloRetryRequest (RFC 9147 §5.1).
    pub(crate) fn server_vetted(
        config: Arc<ServerConfig13>,
        peer: SocketAddr,
        retry: Option<HrrCookie>,
        first: (u64, u16),
        own_cid: Option<Vec<u8>>,
        seed: [u8; 32],
        now: Instant,
    ) -> Self {
        let (record_seq, message_seq) = first;
        let common = config.config.common.clone();
        let form = config.config.header_form;
        let key_update_after = config.config.key_update_after_records;
        let integrity_limit = config.config.integrity_limit;
        let hs = Handshake::Server(ServerState::ClientHello(ExpectClientHello::new(
            config,
            CookieCheck::Vetted(retry),
            peer,
            own_cid,
        )));
        let rng = ChaCha20Rng::from_seed(seed);
        let mut c = Self::new_common(Role::Server, hs, common, form, rng, now);
        c.key_update_after = key_update_after;
        c.integrity_limit = integrity_limit;
        c.reasm = Reassembler::new(message_seq, c.config.max_handshake_message_len);
        c.records.start_plaintext_at(record_seq);
        c
    }

    /// Negotiated cipher suite.
    pub fn cipher_suite(&self) -> Option<CipherSuite13> {
        self.suite
    }

    /// The handshake resumed a session by ticket.
    pub fn resumed(&self) -> bool {
        self.resumed
    }

    /// The newest ticket the server gave this client, to resume with later
    /// ([`Connection13::client_resuming`]).
    pub fn ticket(&self) -> Option<&Ticket13> {
        self.ticket.as_ref()
    }

    /// The server's NewSessionTicket (RFC 8446 §4.6.1), a post-handshake
    /// message in epoch 3 acknowledged by an ACK (RFC 9147 §7): its PSK,
    /// HKDF-Expand-Label(resumption_master_secret, "resumption",
    /// ticket_nonce), kept with the ticket. A lifetime of 0 says to discard
    /// it.
    fn handle_new_session_ticket(&mut self, body: &[u8]) -> Result<(), Error> {
        let unexpected = E13::UnexpectedMessage {
            got: msg_type::NEW_SESSION_TICKET,
        };
        if self.core.phase != Phase::Established || self.role != Role::Client {
            return Err(unexpected.into());
        }
        let nst = NewSessionTicket::decode(body)?;
        let Some(r) = self.resumption.as_mut() else {
            // a client that takes no tickets acknowledges and ignores it
            self.send_ack();
            self.received = Ack::new();
            return Ok(());
        };
        let ops = &mut self.core.stats.crypto;
        let hkdf = r.master_hkdf();
        let res = r.resumption_master_secret(ops);
        let psk = hkdf.resumption_psk(&res, &nst.ticket_nonce, ops);
        self.ticket = (nst.ticket_lifetime > 0).then(|| Ticket13 {
            identity: nst.ticket,
            psk: crate::Secret(psk.as_bytes().to_vec()),
            suite: r.suite,
            lifetime_s: nst
                .ticket_lifetime
                .min(super::ticket::MAX_TICKET_LIFETIME_S),
            age_add: nst.ticket_age_add,
        });
        self.send_ack();
        self.received = Ack::new();
        Ok(())
    }

    /// The epoch this side sends in (3 after the handshake, one more after
    /// each KeyUpdate of its own).
    pub fn write_epoch(&self) -> u64 {
        self.records.write_epoch()
    }

    /// Update this side's sending keys (KeyUpdate, RFC 9147 §8, RFC 8446
    /// §4.6.3), asking the peer to update its own too when `request_peer`.
    /// The KeyUpdate goes in the current epoch and is resent until
    /// acknowledged; only then does this side send in the next epoch.
    /// Refused before the handshake completed and while a previous
    /// KeyUpdate of this side is not acknowledged.
    pub fn update_keys(&mut self, now: Instant, request_peer: bool) -> Result<(), Error> {
        self.now = self.now.max(now);
        if self.core.phase != Phase::Established || self.app.is_none() {
            return Err(Error::NotConnected);
        }
        if self.updating || !self.flight.is_empty() {
            return Err(E13::KeyUpdatePending.into());
        }
        // RFC 9147 §6.1: the epoch may not wrap
        if self.records.write_epoch() == u64::MAX {
            return Err(E13::EpochsExhausted.into());
        }
        let e = self.records.write_epoch();
        self.updating = true;
        self.start_flight(
            now,
            vec![(msg_type::KEY_UPDATE, e, vec![u8::from(request_peer)])],
        );
        Ok(())
    }

    /// The peer acknowledged our KeyUpdate: send in the next epoch, with
    /// keys from application_traffic_secret_N+1 (RFC 8446 §7.2).
    fn key_update_acknowledged(&mut self) {
        self.updating = false;
        let Some(app) = self.app.as_mut() else {
            return;
        };
        let mut cx = Cx::new(&mut self.core.stats.crypto, &mut self.rng);
        app.write = app.hkdf.next_traffic_secret(&app.write, cx.ops);
        let next = self.records.write_epoch() + 1;
        let keys = cx.epoch_keys(app.hkdf, app.suite, next, &app.write);
        self.records.install_write(keys, app.suite.tag_len());
        self.records.retire_write_before(next);
    }

    /// The peer's KeyUpdate (RFC 9147 §8): receive in its next epoch,
    /// acknowledge it, and update our own keys if it asks and we are not
    /// updating already (RFC 8446 §4.6.3).
    fn handle_key_update(&mut self, now: Instant, body: &[u8]) -> Result<(), Error> {
        if self.core.phase != Phase::Established {
            return Err(E13::UnexpectedMessage {
                got: msg_type::KEY_UPDATE,
            }
            .into());
        }
        // update_not_requested(0), update_requested(1); any other value
        // is illegal_parameter (RFC 8446 §4.6.3)
        let requested = match body {
            [0] => false,
            [1] => true,
            _ => return Err(E13::IllegalParameter.into()),
        };
        let Some(app) = self.app.as_mut() else {
            return Err(E13::UnexpectedMessage {
                got: msg_type::KEY_UPDATE,
            }
            .into());
        };
        let next = self.records.read_epoch() + 1;
        let mut cx = Cx::new(&mut self.core.stats.crypto, &mut self.rng);
        app.read = app.hkdf.next_traffic_secret(&app.read, cx.ops);
        let keys = cx.epoch_keys(app.hkdf, app.suite, next, &app.read);
        self.records.install_read(keys);
        // the epoch before stays, for records reordered across the update
        self.records.retire_read_before(next - 1);
        // a KeyUpdate has no answer of its own: it is acknowledged
        self.send_ack();
        self.received = Ack::new();
        if requested && !self.updating && self.flight.is_empty() {
            self.update_keys(now, false)?;
        }
        Ok(())
    }

    // ---- internals -------------------------------------------------------

    fn handle_record(
        &mut self,
        now: Instant,
        rec: Received,
        wire_len: usize,
        repeat: &mut bool,
    ) -> Result<(), Error> {
        match rec.content_type {
            ContentType13::Handshake => self.handle_handshake_record(now, rec, wire_len, repeat),
            ContentType13::Ack => {
                self.core.stats.received.add(MessageKind::Ack, wire_len);
                let Ok(ack) = Ack::decode(&rec.content) else {
                    self.core.stats.records_dropped += 1;
                    return Ok(());
                };
                if self.flight.is_empty() {
                    return Ok(());
                }
                let outcome = self.flight.on_ack(&ack);
                if outcome.complete {
                    self.flight = OutFlight::default();
                    self.core.timer.stop();
                    if self.updating {
                        self.key_update_acknowledged();
                    }
                } else if outcome.newly_lost {
                    // RFC 9147 §7.2: resend what the ACK shows lost at
                    // once rather than wait for the timer
                    self.core.stats.retransmissions += 1;
                    self.transmit_lost();
                }
                Ok(())
            }
            ContentType13::Alert => {
                self.core.stats.received.add(MessageKind::Alert, wire_len);
                self.handle_alert(&rec)
            }
            ContentType13::ApplicationData => {
                // a client sends application data right after its Finished
                // (RFC 9147 §5.8.4: the client's final flight); if the
                // Finished is lost or overtaken, its record reaches a
                // server still waiting for it. It authenticated under the
                // client's epoch-3 keys: kept, a bounded number of them, and
                // delivered once the Finished is verified (as 1.2 buffers
                // its next epoch, RFC 6347 §4.1), not lost.
                if rec.number.epoch == epoch::APPLICATION
                    && self.core.phase == Phase::Handshaking
                    && self.role == Role::Server
                    && self.early.len() < MAX_EARLY_RECORDS
                {
                    self.core
                        .stats
                        .received
                        .add(MessageKind::ApplicationData, wire_len);
                    self.early.push(rec.content);
                    return Ok(());
                }
                if rec.number.epoch < epoch::APPLICATION || self.core.phase != Phase::Established {
                    self.core.stats.records_dropped += 1;
                    return Ok(());
                }
                self.core
                    .stats
                    .received
                    .add(MessageKind::ApplicationData, wire_len);
                self.core
                    .events
                    .push_back(Event::ApplicationData(rec.content));
                Ok(())
            }
        }
    }

    fn handle_alert(&mut self, rec: &Received) -> Result<(), Error> {
        // Once both sides hold application keys, every alert comes
        // protected (RFC 8446 §6, RFC 9147 §4): a plaintext one is anyone's
        // who can spoof the peer's address, so it is dropped, as invalid
        // records are (RFC 9147 §4.5.2), rather than allowed to end the
        // session.
        if rec.number.epoch == epoch::PLAINTEXT && self.core.phase == Phase::Established {
            self.core.stats.records_dropped += 1;
            return Ok(());
        }
        let level = match rec.content.as_slice() {
            [1, _] => AlertLevel::Warning,
            [2, _] => AlertLevel::Fatal,
            _ if rec.number.epoch != epoch::PLAINTEXT => {
                return Err(Error::Decode(Malformed::Alert))
            }
            _ => {
                self.core.stats.records_dropped += 1;
                return Ok(());
            }
        };
        let description = AlertDescription::from_u8(rec.content[1]);
        self.core
            .events
            .push_back(Event::AlertReceived(Alert { level, description }));
        self.core.timer.stop();
        self.flight = OutFlight::default();
        if description == AlertDescription::CloseNotify {
            if self.core.phase == Phase::Closed {
                return Ok(());
            }
            self.closed_in_handshake = self.core.phase == Phase::Handshaking;
            self.core.phase = Phase::Closed;
            self.core.events.push_back(Event::Closed);
        } else {
            if self.core.phase == Phase::Closed {
                // after a close_notify that ended the handshake: the
                // session failed, it was not closed
                self.core.events.retain(|e| !matches!(e, Event::Closed));
            }
            // every other alert ends a TLS 1.3 connection (RFC 8446 §6)
            self.core.phase = Phase::Failed;
            self.core
                .events
                .push_back(Event::Failed(Error::AlertReceived(description)));
        }
        Ok(())
    }

    /// Does the handshake wait for a message sent in plaintext (a server
    /// its ClientHello, a client its ServerHello or HelloRetryRequest)?
    fn takes_plaintext(&self) -> bool {
        self.core.phase == Phase::Handshaking
            && matches!(
                self.hs,
                Handshake::Server(ServerState::ClientHello(_))
                    | Handshake::Client(ClientState::ServerHello(_))
            )
    }

    fn expects_client_hello(&self) -> bool {
        matches!(self.hs, Handshake::Server(ServerState::ClientHello(_)))
    }

    fn handle_handshake_record(
        &mut self,
        now: Instant,
        rec: Received,
        wire_len: usize,
        repeat: &mut bool,
    ) -> Result<(), Error> {
        let protected = rec.number.epoch != epoch::PLAINTEXT;
        // the record's overhead is charged to its first message (as sent)
        let overhead = wire_len - rec.content.len();
        let mut r = Reader::new(&rec.content);
        let mut first = true;
        while !r.is_empty() {
            let at = r.remaining();
            let (h, fragment) = match FragmentHeader::parse(&mut r) {
                Ok(x) => x,
                Err(e) if protected => return Err(e),
                // unauthenticated: drop the rest of the record
                Err(_) => {
                    self.core.stats.records_dropped += 1;
                    return Ok(());
                }
            };
            if !allowed_in_epoch(h.msg_type, rec.number.epoch) {
                self.core.stats.records_dropped += 1;
                return Ok(());
            }
            // RFC 9147 §4.5.2: past its first flight (and once
            // established) a side takes only protected handshake messages.
            // A plaintext one can then only be a late copy of the peer's
            // first flight (an old message_seq, kept below: it tells us our
            // answer was lost) or forged by anyone who can spoof the peer's
            // address: a new one is an invalid record, discarded, not
            // buffered where it could clash with the genuine message, and
            // never a reason to alert and end the session.
            if !protected && !self.takes_plaintext() && h.message_seq >= self.reasm.next_seq() {
                self.core.stats.records_dropped += 1;
                return Ok(());
            }
            let piece = at - r.remaining();
            let kind = MessageKind::Handshake(h.msg_type);
            if first {
                self.core.stats.received.add(kind, overhead + piece);
                first = false;
            } else {
                self.core.stats.received.add_shared(kind, piece);
            }
            // a stateless server takes every ClientHello afresh
            if self.expects_client_hello()
                && h.msg_type == msg_type::CLIENT_HELLO
                && h.message_seq < self.reasm.next_seq()
            {
                self.reasm = Reassembler::new(h.message_seq, self.config.max_handshake_message_len);
            }
            let inserted = match self.reasm.insert(&h, fragment) {
                Ok(i) => i,
                Err(e) if protected => return Err(e),
                // an unauthenticated fragment too long for the reassembly
                // bound or disagreeing with one buffered: an invalid record
                // (RFC 9147 §4.5.2), dropped; the handshake goes on
                Err(_) => {
                    self.core.stats.records_dropped += 1;
                    return Ok(());
                }
            };
            match inserted {
                Insert::Accepted => {
                    self.received.insert(rec.number);
                }
                // a protected message of an epoch past the handshake
                // repeated: the peer's KeyUpdate, whose ACK was lost; it
                // is acknowledged again (RFC 9147 §7, §8)
                Insert::Old
                    if self.core.phase == Phase::Established
                        && rec.number.epoch >= epoch::APPLICATION =>
                {
                    let mut ack = Ack::new();
                    ack.insert(rec.number);
                    let mut content = Vec::with_capacity(ack.encoded_len());
                    ack.encode(&mut content);
                    let e = self.records.write_epoch();
                    let _ = self.queue_record(e, ContentType13::Ack, &content, MessageKind::Ack);
                }
                Insert::Old => *repeat = true,
                Insert::Ignored => {}
            }
        }
        let before = self.core.phase;
        while let Some((t, seq, body)) = self.reasm.pop() {
            self.handle_message(now, t, seq, &body)?;
            // the handshake just ended (what follows is read once
            // connected), or the connection did; once established, the
            // peer's KeyUpdates are read one after the other
            if self.core.phase != before {
                break;
            }
        }
        Ok(())
    }

    fn handle_message(&mut self, now: Instant, t: u8, seq: u16, body: &[u8]) -> Result<(), Error> {
        if t == msg_type::KEY_UPDATE {
            return self.handle_key_update(now, body);
        }
        if t == msg_type::NEW_SESSION_TICKET {
            return self.handle_new_session_ticket(body);
        }
        // the peer's next flight has begun: it has ours (implicit ACK)
        self.flight = OutFlight::default();
        self.core.timer.stop();
        let m = Message {
            msg_type: t,
            seq,
            body,
        };
        let mut cx = Cx::new(&mut self.core.stats.crypto, &mut self.rng);
        cx.now = now;
        let hs = std::mem::replace(&mut self.hs, Handshake::Failed);
        self.hs = match hs {
            Handshake::Client(s) => Handshake::Client(s.handle(m, &mut cx)?),
            Handshake::Server(s) => Handshake::Server(s.handle(m, &mut cx)?),
            Handshake::Failed => return Err(Error::UnexpectedMessage(Unexpected::AfterHandshake)),
        };
        let Cx {
            send,
            keys,
            next_message_seq,
            suite,
            cids,
            connected,
            app_secrets: cx_app,
            ticket,
            resumption,
            resumed,
            ..
        } = cx;
        self.resumed |= resumed;
        if resumption.is_some() && self.accepts_tickets {
            self.resumption = resumption;
        }
        if let Some((send, receive)) = cids {
            self.records.set_cids(send, receive.len());
            self.core.cid_negotiated = true;
        }
        if let Some(s) = suite {
            self.suite = Some(s);
        }
        if let Some(app) = cx_app {
            self.app = Some(app);
        }
        for k in keys {
            match k {
                KeyChange::Read(k) => self.records.install_read(k),
                KeyChange::Write(k) => {
                    let tag = self.suite.map_or(16, CipherSuite13::tag_len);
                    self.records.install_write(k, tag);
                }
            }
        }
        if let Some(s) = next_message_seq {
            self.out_message_seq = s;
        }
        if !send.is_empty() {
            self.start_flight(now, send);
        }
        if connected {
            self.core.phase = Phase::Established;
            self.core.hs_completed_at = Some(now);
            self.core.events.push_back(Event::Connected);
            for data in std::mem::take(&mut self.early) {
                self.core.events.push_back(Event::ApplicationData(data));
            }
            if self.role() == Role::Server {
                // the client's final flight is acknowledged explicitly
                // (RFC 9147 §5.8.3)
                self.send_ack();
                self.reasm.clear();
                // then the ticket, a post-handshake message of epoch 3
                // resent until acknowledged (RFC 9147 §5.8.4, §7)
                if let Some(body) = ticket {
                    let e = self.records.write_epoch();
                    self.start_flight(now, vec![(msg_type::NEW_SESSION_TICKET, e, body)]);
                }
            }
        }
        Ok(())
    }

    /// Send a new flight and, unless it is a stateless HelloRetryRequest
    /// (the client retransmits its hello instead), keep it for
    /// retransmission.
    fn start_flight(&mut self, now: Instant, send: Vec<(u8, u64, Vec<u8>)>) {
        let messages = send
            .into_iter()
            .map(|(msg_type, epoch, body)| {
                let seq = self.out_message_seq;
                self.out_message_seq = self.out_message_seq.wrapping_add(1);
                OutMessage {
                    msg_type,
                    seq,
                    epoch,
                    body,
                }
            })
            .collect();
        // our new flight acknowledges the peer's
        self.received = Ack::new();
        self.flight = OutFlight::new(messages);
        self.transmit_flight();
        if self.expects_client_hello() {
            self.flight = OutFlight::default();
        } else {
            self.core.timer.start(now);
        }
    }

    /// Largest handshake fragment body in one record of `epoch`.
    fn max_fragment(&self, epoch: u64) -> usize {
        let fixed = self.records.record_len(epoch, HANDSHAKE_HEADER_LEN, false);
        self.config
            .max_fragment_len
            .min(self.config.mtu.saturating_sub(fixed))
            .max(1)
    }

    /// Largest handshake fragment body per epoch of a flight's message.
    fn fragment_limits(&self) -> impl Fn(u64) -> usize {
        let max = [epoch::PLAINTEXT, epoch::HANDSHAKE].map(|e| self.max_fragment(e));
        move |e| {
            if e == epoch::PLAINTEXT {
                max[0]
            } else {
                max[1]
            }
        }
    }

    /// Resend the fragments an ACK showed lost.
    fn transmit_lost(&mut self) {
        let fragments = self.flight.lost_fragments(self.fragment_limits());
        self.transmit(fragments);
    }

    /// Send `fragments` of the flight, packed into datagrams of at most the
    /// MTU (or one record each). Consecutive fragments of one epoch share a
    /// record (RFC 9147 §5.5 lets a record carry several handshake
    /// messages): a record's header, content type and tag are paid once,
    /// as the IETF's comparison of CoAP security protocols counts a DTLS
    /// 1.3 flight. Datagram boundaries are chosen first, so the last record
    /// of each can go without a length field.
    fn transmit(&mut self, fragments: Vec<Fragment>) {
        let one_each = self.config.packing == RecordPacking::OneRecordPerDatagram;
        let mtu = self.config.mtu;
        // records per datagram and the datagram's length so far; a record is
        // counted with its length field, which only the last may drop
        let mut datagrams: Vec<(Vec<OutRecord>, usize)> = Vec::new();
        for f in fragments {
            let m = self.flight.message(f.message);
            let mut piece = Vec::with_capacity(HANDSHAKE_HEADER_LEN + f.len);
            FragmentHeader {
                msg_type: m.msg_type,
                length: m.body.len() as u32,
                message_seq: m.seq,
                fragment_offset: f.offset as u32,
                fragment_length: f.len as u32,
            }
            .emit(&mut piece);
            piece.extend_from_slice(&m.body[f.offset..f.offset + f.len]);
            let epoch = m.epoch;
            let alone = self.records.record_len(epoch, piece.len(), false);
            if let Some((records, filled)) = datagrams.last_mut().filter(|_| !one_each) {
                let last = records.last_mut().expect("a datagram holds a record");
                let before = self
                    .records
                    .record_len(last.epoch, last.content.len(), false);
                let joined =
                    self.records
                        .record_len(epoch, last.content.len() + piece.len(), false);
                if last.epoch == epoch && *filled - before + joined <= mtu {
                    last.add(f, m.msg_type, piece);
                    *filled += joined - before;
                    continue;
                }
                if *filled + alone <= mtu {
                    records.push(OutRecord::new(epoch, f, m.msg_type, piece));
                    *filled += alone;
                    continue;
                }
            }
            datagrams.push((vec![OutRecord::new(epoch, f, m.msg_type, piece)], alone));
        }
        for (records, _) in datagrams {
            let mut datagram = Vec::new();
            let last = records.len() - 1;
            for (i, r) in records.into_iter().enumerate() {
                let start = datagram.len();
                let Ok(number) = self.records.seal(
                    r.epoch,
                    ContentType13::Handshake,
                    &r.content,
                    i == last,
                    &mut datagram,
                    &mut self.core.stats.crypto,
                ) else {
                    datagram.truncate(start);
                    continue;
                };
                // the record's overhead is charged to its first message
                let overhead = datagram.len() - start - r.content.len();
                for (j, &(f, t, len)) in r.pieces.iter().enumerate() {
                    let kind = MessageKind::Handshake(t);
                    if j == 0 {
                        self.core.stats.sent.add(kind, overhead + len);
                    } else {
                        self.core.stats.sent.add_shared(kind, len);
                    }
                    self.flight.record_sent(number, f);
                }
            }
            if !datagram.is_empty() {
                self.core.tx.push_back(datagram);
            }
        }
    }

    /// ACK the handshake records received of the peer's current flight.
    fn send_ack(&mut self) {
        if self.received.is_empty() {
            return;
        }
        let mut content = Vec::with_capacity(self.received.encoded_len());
        self.received.encode(&mut content);
        let e = self.records.write_epoch();
        // an ACK that cannot be sealed is not sent: the peer resends
        let _ = self.queue_record(e, ContentType13::Ack, &content, MessageKind::Ack);
    }

    /// The peer repeated a message already processed: our answer to it was
    /// lost. Resend what of our flight is unacknowledged, or (a server
    /// done with the handshake) the ACK of the client's Finished, at most
    /// once per timer interval.
    fn answer_repeat(&mut self, now: Instant) {
        if !self.config.retransmit.resends_on_repeat() {
            return;
        }
        let resend = !self.flight.is_empty();
        let ack = !resend && self.core.phase == Phase::Established && self.role() == Role::Server;
        // one rule for every answer to a repeat, shared with DTLS 1.2
        if !(resend || ack) || !self.core.timer.resend_on_repeat(now) {
            return;
        }
        if resend {
            self.core.stats.retransmissions += 1;
            self.transmit_flight();
        } else {
            self.send_ack();
        }
    }

    /// Seal `content` as one record of `epoch` in a datagram of its own,
    /// count it as `kind` and queue it.
    fn queue_record(
        &mut self,
        epoch: u64,
        content_type: ContentType13,
        content: &[u8],
        kind: MessageKind,
    ) -> Result<(), RecordError> {
        let mut out = Vec::new();
        self.records.seal(
            epoch,
            content_type,
            content,
            true,
            &mut out,
            &mut self.core.stats.crypto,
        )?;
        self.core.stats.sent.add(kind, out.len());
        self.core.tx.push_back(out);
        Ok(())
    }

    /// A record failed authentication under the keys of `epoch`, the
    /// `failed`-th to (RFC 9147 §4.5.3). At half the AEAD's integrity
    /// limit on the newest keys a key update is asked for (ours, and the
    /// peer's with update_requested), so the peer's records move to fresh
    /// keys; at the limit, the keys of an epoch a newer one replaced are
    /// dropped, and the newest keys' end the connection (close_notify).
    fn failed_authentication(&mut self, now: Instant, epoch: u64, failed: u64) {
        let Some(limit) = self
            .integrity_limit
            .or(self.suite.map(CipherSuite13::integrity_limit))
        else {
            return;
        };
        let newest = epoch == self.records.read_epoch();
        if failed >= limit {
            if newest {
                if self.core.phase == Phase::Established {
                    self.send_alert(AlertLevel::Warning, AlertDescription::CloseNotify);
                }
                self.fail(Error::Record13(RecordError::IntegrityLimit));
            } else {
                self.records.drop_read_epoch(epoch);
            }
        } else if newest
            && failed >= limit.div_ceil(2)
            && self.core.phase == Phase::Established
            && !self.updating
            && self.flight.is_empty()
        {
            // cannot start (the epochs exhausted): the limit still holds
            let _ = self.update_keys(now, true);
        }
    }

    fn fail(&mut self, e: Error) {
        if let Some(d) = e.alert() {
            self.send_alert(AlertLevel::Fatal, d);
        }
        self.core.phase = Phase::Failed;
        self.core.timer.stop();
        self.drop_flight();
        self.hs = Handshake::Failed;
        self.core.events.push_back(Event::Failed(e));
    }
}

impl Session for Connection13 {
    fn cipher_suite_name(&self) -> Option<&'static str> {
        self.suite.map(CipherSuite13::name)
    }

    /// Over once no retransmission is pending: a client resends its
    /// Finished until the server's ACK (RFC 9147 §5.8.3).
    fn peer_has_final_flight(&self) -> bool {
        self.poll_timeout().is_none()
    }

    /// Feed one received datagram.
    fn handle_datagram(&mut self, now: Instant, datagram: &[u8]) {
        self.now = self.now.max(now);
        self.core.stats.datagrams_received += 1;
        self.core.stats.bytes_received += datagram.len() as u64;
        if self.core.phase == Phase::Failed
            || (self.core.phase == Phase::Closed && !self.closed_in_handshake)
        {
            return;
        }
        let mut repeat = false;
        let flights_before = self.core.stats.sent.total();
        let mut rest = datagram;
        while !rest.is_empty() {
            // after a close_notify that ended the handshake, an alert in the
            // same datagram or a later one may still say why (close_notify, then
            // handshake_failure): it is read, nothing else
            let why_after_close = self.closed_in_handshake && self.core.phase == Phase::Closed;
            if matches!(self.core.phase, Phase::Closed | Phase::Failed) && !why_after_close {
                return;
            }
            // one record at a time: the ServerHello that negotiates CIDs
            // may share its datagram with records that carry one
            let Ok((view, used)) = parse_record(rest, self.records.cid_len()) else {
                self.core.stats.records_dropped += 1;
                break;
            };
            rest = &rest[used..];
            let view = &view;
            let wire_len = view.header_bytes.len() + view.body.len();
            // invalid records are dropped silently (RFC 9147 §4.5.2), but
            // those that fail authentication are counted per key (§4.5.3)
            let Ok(rec) = self.records.open(view, &mut self.core.stats.crypto) else {
                self.core.stats.records_dropped += 1;
                if let Some((epoch, failed)) = self.records.take_failure() {
                    self.failed_authentication(now, epoch, failed);
                }
                continue;
            };
            if why_after_close && rec.content_type != ContentType13::Alert {
                return;
            }
            self.core.newest_authenticated |= rec.newest;
            if let Err(e) = self.handle_record(now, rec, wire_len, &mut repeat) {
                self.fail(e);
                return;
            }
        }
        let answered = self.core.stats.sent.total() != flights_before;
        if !answered && self.core.phase == Phase::Handshaking && self.reasm.has_gap() {
            self.send_ack();
        }
        if repeat {
            self.answer_repeat(now);
        }
    }

    /// Send application data (one record in the current epoch: 3, or a
    /// later one after KeyUpdates); once the epoch has carried the records
    /// its keys may protect (the suite's confidentiality limit, RFC 9147
    /// §4.5.3, or `Config13::key_update_after_records`), a KeyUpdate starts
    /// (§8).
    fn send(&mut self, data: &[u8]) -> Result<(), Error> {
        self.core
            .refuse_send(data.len(), super::protection::MAX_CONTENT)?;
        let e = self.records.write_epoch();
        self.queue_record(
            e,
            ContentType13::ApplicationData,
            data,
            MessageKind::ApplicationData,
        )
        .map_err(Error::Record13)?;
        let limit = self
            .key_update_after
            .or(self.suite.map(CipherSuite13::record_limit));
        if limit.is_some_and(|n| self.records.written(e) >= n)
            && !self.updating
            && self.flight.is_empty()
        {
            // a KeyUpdate that cannot start now (the epochs exhausted) is
            // not this record's failure
            let _ = self.update_keys(self.now, false);
        }
        Ok(())
    }

    /// Client or server.
    fn role(&self) -> Role {
        self.role
    }

    /// Where the connection stands, named for a trace: the message its
    /// handshake waits for (`WaitServerHello`, …), then `Connected`,
    /// `Closed` or `Failed`.
    fn state_name(&self) -> &'static str {
        match (self.core.phase, &self.hs) {
            (Phase::Established, _) => "Connected",
            (Phase::Closed, _) => "Closed",
            (Phase::Failed, _) | (_, Handshake::Failed) => "Failed",
            (Phase::Handshaking, Handshake::Client(c)) => match c {
                ClientState::ServerHello(_) => "WaitServerHello",
                ClientState::EncryptedExtensions(_) => "WaitEncryptedExtensions",
                ClientState::Certificate(_) => "WaitServerCertificate",
                ClientState::CertificateVerify(_) => "WaitServerCertificateVerify",
                ClientState::Finished(_) => "WaitServerFinished",
                ClientState::Done => "Handshaking",
            },
            (Phase::Handshaking, Handshake::Server(s)) => match s {
                ServerState::ClientHello(_) => "WaitClientHello",
                ServerState::ClientCertificate(_) => "WaitClientCertificate",
                ServerState::ClientCertificateVerify(_) => "WaitClientCertificateVerify",
                ServerState::Finished(_) => "WaitClientFinished",
                ServerState::Done => "Handshaking",
            },
        }
    }

    /// Size in bytes of the state this connection holds now, counted as the
    /// 1.2 [`crate::Connection::state_bytes`] counts it: the structure
    /// itself and every heap allocation it owns (handshake step, expanded
    /// keys of every epoch, the flight kept for retransmission, the ACK
    /// list, reassembly buffers), less the accounting counters ([`Stats`])
    /// and the I/O queues (datagrams and events not yet polled). The
    /// configuration is shared (`Arc`) and not counted.
    fn state_bytes(&self) -> usize {
        let hs = match &self.hs {
            Handshake::Client(s) => s.heap_bytes(),
            Handshake::Server(s) => s.heap_bytes(),
            Handshake::Failed => 0,
        };
        core::mem::size_of::<Self>() - core::mem::size_of::<Stats>()
            + hs
            + self.records.heap_bytes()
            + self.reasm.buffered_bytes()
            + self.flight.heap_bytes()
            + self.received.heap_bytes()
            + self.early.iter().map(Vec::capacity).sum::<usize>()
    }

    /// Bytes the session needs in a compact C implementation, laid out as
    /// the 1.2 [`crate::Connection::compact_state_bytes`] lays out its
    /// session: peer address (16 B IPv6 + 2 B port), role/state/suite
    /// (3 B), epochs (2 × 2 B), sequence numbers (2 × 6 B), replay window
    /// (6 + 8 B); per direction the AEAD key and 12-byte IV (RFC 8446
    /// §7.3), the record-number key (RFC 9147 §4.2.3, as long as the AEAD
    /// key) and the application traffic secret KeyUpdate derives the next
    /// keys from (RFC 8446 §7.2; `Hash.length` bytes); with connection IDs
    /// both CIDs and a length byte for each. During the handshake add the
    /// message sequence numbers (4 B) and what the handshake step holds
    /// (`ClientState::compact_bytes`, `ServerState::compact_bytes`). Before
    /// a suite is chosen the default TLS_AES_128_CCM_8_SHA256 is assumed.
    fn compact_state_bytes(&self) -> usize {
        let suite = self.suite.unwrap_or(CipherSuite13::Aes128Ccm8Sha256);
        let direction = 2 * suite.key_len() + suite.iv_len() + suite.hash().output_len();
        let cids = if self.core.cid_negotiated {
            2 + self.records.cid_len() + self.records.send_cid_len()
        } else {
            0
        };
        let established = 18 + 3 + 4 + 12 + 14 + 2 * direction + cids;
        if self.core.phase != Phase::Handshaking {
            return established;
        }
        let step = match &self.hs {
            Handshake::Client(s) => s.compact_bytes(),
            Handshake::Server(s) => s.compact_bytes(),
            Handshake::Failed => 0,
        };
        established + 4 + step
    }
}

impl Machine for Connection13 {
    fn core(&self) -> &Core {
        &self.core
    }

    fn core_mut(&mut self) -> &mut Core {
        &mut self.core
    }

    /// (Re)send every fragment of the flight not yet acknowledged.
    fn transmit_flight(&mut self) {
        let fragments = self.flight.resend_all(self.fragment_limits());
        self.transmit(fragments);
    }

    fn send_alert(&mut self, level: AlertLevel, d: AlertDescription) {
        let body = [level.to_u8(), d.to_u8()];
        let e = self.records.write_epoch();
        // an alert that cannot be sealed is not sent: the connection
        // closes or fails all the same
        let _ = self.queue_record(e, ContentType13::Alert, &body, MessageKind::Alert);
    }

    /// The flight kept for retransmission: a closed or failed connection,
    /// or a client past its handshake, no longer resends it.
    fn drop_flight(&mut self) {
        self.flight = OutFlight::default();
        self.early = Vec::new();
        self.updating = false;
    }

    fn retransmit_limit_reached(&mut self) {
        if self.core.phase == Phase::Established {
            // the client's final flight never got its ACK: the session
            // works anyway (the server has our Finished once it sends in
            // epoch 3); stop resending
            self.drop_flight();
        } else {
            self.fail(Error::Timeout);
        }
    }
}
