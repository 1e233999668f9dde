//! One DTLS 1.2 connection (client or server side): record layer, flight
//! (re)transmission, handshake driver. Sans-IO: the caller passes `now` and
//! datagrams in, and polls datagrams, deadlines and events out.

use crate::error::{InternalError, Malformed, Unexpected};
use crate::netq::NetqLease;
use std::sync::Arc;

use crate::accounting::{MessageKind, Stats};
use crate::codec::Reader;
use crate::config::{Config, RecordPacking};
use crate::crypto::suite::{CipherSuite, RecordProtection, Secret};
use crate::error::{Alert, AlertDescription, AlertLevel, Error};
use crate::fragment::{fragment_ranges, Insert, Reassembler};
use crate::fragment::{transcript_form, FragmentHeader, HANDSHAKE_HEADER_LEN};
use crate::replay::ReplayWindow;
use crate::session::machine::Machine;
use crate::session::{Core, Session};
use crate::session::{Event, Phase, Role};
use crate::v12::config::{ClientConfig, ServerConfig};
use crate::v12::handshake::HandshakeState;
use crate::v12::keys;
use crate::v12::record::header::{split_datagram_cid, DTLS1_2, MAX_SEQ};
use crate::v12::record::protection::max_plaintext;
use crate::v12::record::{ContentType, RecordHeader, RecordKeys};
use crate::Instant;

/// A message of a flight, kept in plaintext so a retransmission can be
/// re-protected with fresh record sequence numbers.
#[derive(Clone, Debug)]
pub(crate) enum OutMessage {
    Handshake {
        msg_type: u8,
        seq: u16,
        body: Vec<u8>,
        epoch: u16,
    },
    ChangeCipherSpec,
}

pub(crate) enum Credentials {
    Client(Arc<ClientConfig>),
    Server(Arc<ServerConfig>),
}

/// A DTLS 1.2 connection with one peer.
pub struct Connection {
    pub(crate) creds: Credentials,
    pub(crate) config: Arc<Config>,
    pub(crate) core: Core,
    pub(crate) hs: Option<Box<HandshakeState>>,
    pub(crate) suite: Option<CipherSuite>,
    // record layer
    pub(crate) write_epoch: u16,
    pub(crate) write_seq: [u64; 2],
    pub(crate) read_epoch: u16,
    pub(crate) replay: [ReplayWindow; 2],
    pub(crate) write_keys: Option<RecordKeys>,
    pub(crate) read_keys: Option<RecordKeys>,
    // handshake transport
    pub(crate) out_msg_seq: u16,
    pub(crate) reasm: Reassembler,
    pub(crate) flight: Vec<OutMessage>,
    /// With tinyDTLS's buffers (`Config::netq`): the nodes the flight kept
    /// for retransmission holds, and those of the peer's early handshake
    /// messages buffered by message_seq.
    pub(crate) flight_nodes: Option<NetqLease>,
    pub(crate) early_nodes: Vec<(u16, NetqLease)>,
    /// (message_seq, epoch) of the last message of the peer's previous
    /// flight: receiving it again means our current flight was lost. The
    /// epoch matters: a trigger that was protected (Finished) must arrive
    /// protected, so that an off-path attacker cannot make us resend.
    pub(crate) retransmit_trigger: Option<(u16, u16)>,
    pub(crate) hs_auth_failures: u32,
    /// Records of the next epoch that arrived before the peer's
    /// ChangeCipherSpec (reordered: tinyDTLS sends CCS and Finished in
    /// separate datagrams), processed once it arrives. Bounded by
    /// [`MAX_EARLY_RECORDS`] and the largest handshake message.
    pub(crate) early_records: Vec<(RecordHeader, Vec<u8>)>,
    /// The CID this side offers (RFC 9146 §3): the client draws it, the
    /// server endpoint assigns it. `None`: no connection_id extension.
    pub(crate) own_cid: Option<Vec<u8>>,
    /// Negotiated CIDs: the one put in our records to the peer and the
    /// one the peer puts in its records to us (empty: ordinary records).
    pub(crate) write_cid: Vec<u8>,
    pub(crate) read_cid: Vec<u8>,
    /// Highest sequence number of an authenticated epoch-1 record (one
    /// higher than any before sets `Core::newest_authenticated`).
    pub(crate) newest_read_seq: Option<u64>,
    /// The session as both sides may resume it (RFC 5246 §7.3), once
    /// established under a session ID; and whether this handshake resumed it.
    pub(crate) session: Option<crate::v12::handshake::resumption::ResumableSession>,
    pub(crate) resumed: bool,
    /// The peer's close_notify ended the handshake: a fatal alert after it
    /// (in the same datagram or a later one) says why (a peer that aborts
    /// with close_notify then handshake_failure), and is reported as the
    /// failure it is.
    pub(crate) closed_in_handshake: bool,
    // I/O queues
}

impl core::fmt::Debug for Connection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Connection")
            .field("role", &self.role())
            .field("phase", &self.core.phase)
            .field("suite", &self.suite)
            .field("write_epoch", &self.write_epoch)
            .field("read_epoch", &self.read_epoch)
            .finish_non_exhaustive()
    }
}

impl Connection {
    pub(crate) fn new_common(creds: Credentials, config: Arc<Config>, now: Instant) -> Self {
        let max_len = config.max_handshake_message_len;
        Connection {
            creds,
            core: Core::new(config.retransmit, now),
            config,
            hs: None,
            suite: None,
            write_epoch: 0,
            write_seq: [0; 2],
            read_epoch: 0,
            replay: [ReplayWindow::new(), ReplayWindow::new()],
            write_keys: None,
            read_keys: None,
            out_msg_seq: 0,
            reasm: Reassembler::new(0, max_len),
            flight: Vec::new(),
            flight_nodes: None,
            early_nodes: Vec::new(),
            retransmit_trigger: None,
            hs_auth_failures: 0,
            early_records: Vec::new(),
            own_cid: None,
            write_cid: Vec::new(),
            read_cid: Vec::new(),
            newest_read_seq: None,
            session: None,
            resumed: false,
            closed_in_handshake: false,
        }
    }

    /// What resumes this session later (RFC 5246 §7.3): set once the
    /// handshake completed under a session ID the server gave.
    pub fn resumable_session(
        &self,
    ) -> Option<&crate::v12::handshake::resumption::ResumableSession> {
        self.session.as_ref()
    }

    /// Count a server's stateless cookie round in this session's figures
    /// (one datagram each way: the first ClientHello of `hello_bytes` and
    /// the HelloVerifyRequest of `verify_request_bytes`), so a handshake
    /// reports the datagrams and bytes it took on the wire.
    pub(crate) fn count_cookie_round(&mut self, hello_bytes: usize, verify_request_bytes: usize) {
        let s = &mut self.core.stats;
        s.datagrams_received += 1;
        s.bytes_received += hello_bytes as u64;
        s.datagrams_sent += 1;
        s.bytes_sent += verify_request_bytes as u64;
    }

    /// The handshake was the abbreviated one: it resumed a session.
    pub fn resumed(&self) -> bool {
        self.resumed
    }

    /// Negotiated cipher suite.
    pub fn cipher_suite(&self) -> Option<CipherSuite> {
        self.suite
    }

    /// Install the negotiated CIDs.
    pub(crate) fn set_cids(&mut self, write: Vec<u8>, read: Vec<u8>) {
        self.write_cid = write;
        self.read_cid = read;
        self.core.cid_negotiated = true;
    }

    // ---- internals -------------------------------------------------------

    pub(crate) fn fail(&mut self, e: Error) {
        if matches!(self.core.phase, Phase::Closed | Phase::Failed) {
            return;
        }
        if let Some(d) = e.alert() {
            self.send_alert(AlertLevel::Fatal, d);
        }
        self.core.phase = Phase::Failed;
        self.core.timer.stop();
        self.drop_flight();
        self.core.events.push_back(Event::Failed(e));
    }

    /// Append one record (protected if `epoch` is 1).
    fn emit_record(
        &mut self,
        ct: ContentType,
        epoch: u16,
        plaintext: &[u8],
        out: &mut Vec<u8>,
        kind: MessageKind,
    ) -> Result<(), Error> {
        let e = usize::from(epoch.min(1));
        let seq = self.write_seq[e];
        if seq > MAX_SEQ {
            return Err(Error::Internal(InternalError::SequenceExhausted));
        }
        self.write_seq[e] += 1;
        let start = out.len();
        if epoch == 0 {
            RecordHeader {
                content_type: ct,
                version: DTLS1_2,
                epoch: 0,
                seq,
                length: plaintext.len() as u16,
            }
            .emit(out);
            out.extend_from_slice(plaintext);
        } else {
            let keys = self
                .write_keys
                .as_mut()
                .ok_or(Error::Internal(InternalError::NoWriteKeys))?;
            let h = RecordHeader {
                content_type: ct,
                version: DTLS1_2,
                epoch,
                seq,
                length: 0,
            };
            if self.write_cid.is_empty() {
                keys.seal(h, plaintext, out, &mut self.core.stats.crypto)?;
            } else {
                // RFC 9146 §4: DTLSInnerPlaintext = content || real type,
                // no padding.
                let mut inner = Vec::with_capacity(plaintext.len() + 1);
                inner.extend_from_slice(plaintext);
                inner.push(ct.to_u8());
                let outer = RecordHeader {
                    content_type: ContentType::Tls12Cid,
                    ..h
                };
                keys.seal_with_cid(
                    outer,
                    &self.write_cid,
                    &inner,
                    out,
                    &mut self.core.stats.crypto,
                )?;
            }
        }
        self.core.stats.sent.add(kind, out.len() - start);
        Ok(())
    }

    /// Queue a new flight and send it. `expect_reply` starts the timer.
    pub(crate) fn send_flight(
        &mut self,
        now: Instant,
        flight: Vec<OutMessage>,
        expect_reply: bool,
    ) {
        self.flight = flight;
        self.transmit_flight();
        self.flight_nodes = None;
        if expect_reply {
            if let Some(pool) = &self.config.netq {
                // tinyDTLS keeps for retransmission only the records it
                // got a buffer for, in the order sent
                let nodes = pool.take(u32::try_from(self.flight.len()).unwrap_or(u32::MAX));
                self.flight.truncate(nodes.nodes() as usize);
                self.flight_nodes = Some(nodes);
            }
        }
        if expect_reply && !self.flight.is_empty() {
            self.core.timer.start(now);
        } else {
            self.core.timer.stop();
        }
    }

    /// Nothing left to retransmit: the flight and its buffers go.
    pub(crate) fn clear_flight(&mut self) {
        self.flight.clear();
        self.flight_nodes = None;
    }

    /// Add a handshake message to the transcript and return it as a flight
    /// entry (with the next message_seq).
    pub(crate) fn out_handshake(&mut self, msg_type: u8, body: Vec<u8>, epoch: u16) -> OutMessage {
        let seq = self.out_msg_seq;
        self.out_msg_seq = self.out_msg_seq.wrapping_add(1);
        if let Some(hs) = self.hs.as_mut() {
            hs.transcript.update(
                &transcript_form(msg_type, seq, &body),
                &mut self.core.stats.crypto,
            );
        }
        OutMessage::Handshake {
            msg_type,
            seq,
            body,
            epoch,
        }
    }

    /// A client waiting for the ServerHello after resending its hello with
    /// a cookie as often as its policy's `stale_cookie_resends`.
    fn cookie_went_stale(&self) -> bool {
        let Some(limit) = self.config.retransmit.stale_cookie_resends() else {
            return false;
        };
        let Some(hs) = self.hs.as_ref() else {
            return false;
        };
        matches!(self.creds, Credentials::Client(_))
            && hs.step == crate::v12::handshake::Step::ServerHello
            && hs
                .client_hello
                .as_ref()
                .is_some_and(|c| !c.cookie.is_empty())
            && self.core.timer.count() >= limit
    }

    fn handle_record(
        &mut self,
        now: Instant,
        h: &RecordHeader,
        fragment: &[u8],
    ) -> Result<(), Error> {
        let mut plaintext;
        let mut header = *h;
        let cid_record = h.content_type == ContentType::Tls12Cid;
        let cid_len = if cid_record { self.read_cid.len() } else { 0 };
        match h.epoch {
            0 if cid_record => {
                self.core.stats.records_dropped += 1;
                return Ok(());
            }
            0 => {
                // Epoch 0 is unauthenticated: after the handshake only
                // handshake records (peer retransmissions) matter. The
                // replay check is optional (RFC 6347 §4.1.2.6) and a
                // handshake message's message_seq already tells a repeat
                // from a new one, so epoch-0 handshake records skip it: a
                // peer that restarts its record numbers with each answer
                // (tinyDTLS's ServerHello after a repeated ClientHello
                // reuses one) is not dropped and stalled.
                let handshake = h.content_type == ContentType::Handshake;
                if !handshake && !self.replay[0].check(h.seq) {
                    self.core.stats.records_dropped += 1;
                    return Ok(());
                }
                if self.read_epoch > 0 && !matches!(h.content_type, ContentType::Handshake) {
                    self.core.stats.records_dropped += 1;
                    return Ok(());
                }
                if h.content_type == ContentType::ApplicationData {
                    self.core.stats.records_dropped += 1;
                    return Ok(());
                }
                self.replay[0].mark(h.seq);
                plaintext = fragment.to_vec();
            }
            1 if self.read_epoch == 1 => {
                // A peer asked for a non-empty CID sends tls12_cid records
                // only, and only then (RFC 9146 §4).
                if !self.replay[1].check(h.seq) || cid_record == self.read_cid.is_empty() {
                    self.core.stats.records_dropped += 1;
                    return Ok(());
                }
                let keys = self
                    .read_keys
                    .as_ref()
                    .ok_or(Error::Internal(InternalError::NoReadKeys))?;
                match keys.open_with_cid(h, &self.read_cid, fragment, &mut self.core.stats.crypto) {
                    Some(p) => plaintext = p,
                    None => {
                        self.core.stats.records_dropped += 1;
                        if self.core.phase == Phase::Handshaking {
                            self.hs_auth_failures += 1;
                            if self.hs_auth_failures
                                >= self.config.handshake_auth_failures_before_alert
                            {
                                return Err(Error::BadRecordMac);
                            }
                        }
                        return Ok(());
                    }
                }
                self.replay[1].mark(h.seq);
                if self.newest_read_seq.is_none_or(|n| h.seq > n) {
                    self.newest_read_seq = Some(h.seq);
                    self.core.newest_authenticated = true;
                }
                if cid_record {
                    // RFC 9146 §4: the real type is the last non-zero byte.
                    let real = inner_content_type(&mut plaintext)
                        .ok_or(Error::UnexpectedMessage(Unexpected::CidRecordWithoutType))?;
                    header.content_type = real;
                }
            }
            1 if self.core.phase == Phase::Handshaking => {
                if self.config.retransmit.fatal_before_change_cipher_spec() {
                    return self.next_epoch_before_ccs_as_tinydtls();
                }
                // The next epoch before the peer's ChangeCipherSpec: keep
                // it for then (RFC 9147 §4.2.1, RFC 6347 §4.1: a receiver
                // may buffer or discard such records).
                self.buffer_early_record(h, fragment);
                return Ok(());
            }
            _ => {
                // future epoch (its keys are not installed yet) or unknown
                self.core.stats.records_dropped += 1;
                return Ok(());
            }
        }
        if plaintext.len() > 16384 {
            return Err(Error::Decode(Malformed::RecordOverflow));
        }
        let h = &header;
        let wire_len = crate::v12::record::RECORD_HEADER_LEN + cid_len + fragment.len();
        let authenticated = h.epoch > 0;
        match h.content_type {
            ContentType::Handshake => {
                // Parse every fragment header first: a record that does not
                // parse is invalid as a whole (fatal only if authenticated).
                let mut r = Reader::new(&plaintext);
                let mut fragments = Vec::new();
                while !r.is_empty() {
                    match FragmentHeader::parse(&mut r) {
                        Ok(f) => fragments.push(f),
                        Err(e) if authenticated => return Err(e),
                        Err(_) => {
                            self.core.stats.records_dropped += 1;
                            return Ok(());
                        }
                    }
                }
                // The record's header/nonce/tag bytes are charged to its
                // first message.
                let mut overhead = wire_len - plaintext.len();
                for (fh, data) in fragments {
                    self.core.stats.received.add(
                        MessageKind::Handshake(fh.msg_type),
                        overhead + HANDSHAKE_HEADER_LEN + data.len(),
                    );
                    overhead = 0;
                    self.handle_fragment(now, h, &fh, data)?;
                    if self.core.phase != Phase::Handshaking
                        && self.core.phase != Phase::Established
                    {
                        break;
                    }
                }
            }
            ContentType::ChangeCipherSpec => {
                self.peer_input_clears_flight();
                self.core
                    .stats
                    .received
                    .add(MessageKind::ChangeCipherSpec, wire_len);
                if plaintext != [1] {
                    if authenticated {
                        return Err(Error::Decode(Malformed::ChangeCipherSpec));
                    }
                    self.core.stats.records_dropped += 1;
                    return Ok(());
                }
                self.handle_ccs(now)?;
            }
            ContentType::Alert => {
                self.peer_input_clears_flight();
                self.core.stats.received.add(MessageKind::Alert, wire_len);
                let level = match (plaintext.len(), plaintext.first()) {
                    (2, Some(1)) => AlertLevel::Warning,
                    (2, Some(2)) => AlertLevel::Fatal,
                    _ if authenticated => return Err(Error::Decode(Malformed::Alert)),
                    _ => {
                        self.core.stats.records_dropped += 1;
                        return Ok(());
                    }
                };
                let description = AlertDescription::from_u8(plaintext[1]);
                self.core
                    .events
                    .push_back(Event::AlertReceived(Alert { level, description }));
                if description == AlertDescription::CloseNotify {
                    if self.core.phase == Phase::Established {
                        self.send_alert(AlertLevel::Warning, AlertDescription::CloseNotify);
                    }
                    if self.core.phase == Phase::Closed {
                        return Ok(());
                    }
                    self.closed_in_handshake = self.core.phase == Phase::Handshaking;
                    self.core.phase = Phase::Closed;
                    self.core.timer.stop();
                    self.hs = None;
                    self.clear_flight();
                    self.core.events.push_back(Event::Closed);
                } else if level == AlertLevel::Fatal {
                    if self.core.phase == Phase::Closed {
                        // after a close_notify that ended the handshake:
                        // the session failed, it was not closed
                        self.core.events.retain(|e| !matches!(e, Event::Closed));
                    }
                    self.core.phase = Phase::Failed;
                    self.core.timer.stop();
                    self.hs = None;
                    self.clear_flight();
                    self.core
                        .events
                        .push_back(Event::Failed(Error::AlertReceived(description)));
                }
            }
            ContentType::Tls12Cid => {
                // only as the outer type (removed above)
                self.core.stats.records_dropped += 1;
            }
            ContentType::ApplicationData => {
                if h.epoch == 0 || self.core.phase != Phase::Established {
                    self.core.stats.records_dropped += 1;
                    return Ok(());
                }
                self.core
                    .stats
                    .received
                    .add(MessageKind::ApplicationData, wire_len);
                if !self.flight.is_empty() {
                    // The peer has our Finished (the server's after a full
                    // handshake, the client's after an abbreviated one):
                    // nothing left to retransmit.
                    self.clear_flight();
                    self.retransmit_trigger = None;
                }
                self.core
                    .events
                    .push_back(Event::ApplicationData(plaintext));
            }
        }
        Ok(())
    }

    fn handle_fragment(
        &mut self,
        now: Instant,
        rh: &RecordHeader,
        fh: &FragmentHeader,
        data: &[u8],
    ) -> Result<(), Error> {
        if fh.message_seq < self.reasm.next_seq() {
            if self.retransmit_trigger == Some((fh.message_seq, rh.epoch))
                && fh.fragment_offset == 0
                && !self.flight.is_empty()
                && self.config.retransmit.resends_on_repeat()
                && self.core.timer.resend_on_repeat(now)
            {
                // The peer retransmitted its previous flight: ours was lost.
                self.core.stats.retransmissions += 1;
                self.transmit_flight();
            }
            return Ok(());
        }
        if self.core.phase != Phase::Handshaking {
            // No renegotiation: nothing new is buffered after the handshake.
            return Ok(());
        }
        // tinyDTLS buffers an early message only in a free netq node
        let early = fh.message_seq > self.reasm.next_seq()
            && !self
                .early_nodes
                .iter()
                .any(|(seq, _)| *seq == fh.message_seq);
        let node = match &self.config.netq {
            Some(pool) if early => {
                let node = pool.take(1);
                if node.nodes() == 0 {
                    self.core.stats.records_dropped += 1;
                    return Ok(());
                }
                Some(node)
            }
            _ => None,
        };
        match self.reasm.insert(fh, data)? {
            Insert::Old | Insert::Ignored => return Ok(()),
            Insert::Accepted => {}
        }
        if let Some(node) = node {
            self.early_nodes.push((fh.message_seq, node));
        }
        while let Some((t, seq, body)) = self.reasm.pop() {
            if let Some(i) = self.early_nodes.iter().position(|(s, _)| *s == seq) {
                // 0.8.2 processes a buffered message without freeing its node
                self.early_nodes.swap_remove(i).1.leak();
            }
            if self.core.phase != Phase::Handshaking {
                break;
            }
            self.handle_message(now, rh, t, seq, &body)?;
        }
        Ok(())
    }

    fn handle_message(
        &mut self,
        now: Instant,
        rh: &RecordHeader,
        msg_type: u8,
        seq: u16,
        body: &[u8],
    ) -> Result<(), Error> {
        self.peer_input_clears_flight();
        // Finished is the only message that must arrive protected.
        let finished = msg_type == crate::handshake_type::HandshakeType::Finished.to_u8();
        if finished != (rh.epoch == 1) {
            return Err(Error::UnexpectedMessage(Unexpected::WrongEpoch));
        }
        let step = self
            .hs
            .as_ref()
            .ok_or(Error::Internal(InternalError::NoHandshake))?
            .step;
        let ty = crate::handshake_type::HandshakeType::from_u8(msg_type)
            .ok_or(Error::UnexpectedMessage(Unexpected::UnknownHandshakeType))?;
        match self.role() {
            Role::Client => self.client_handle(now, (step, ty), seq, body),
            Role::Server => self.server_handle(now, (step, ty), seq, body),
        }
    }

    /// tinyDTLS clears its retransmission queue on the peer's in-order
    /// handshake messages, ChangeCipherSpec and alerts (see
    /// `RetransmitPolicy::peer_input_clears_flight`).
    fn peer_input_clears_flight(&mut self) {
        if self.config.retransmit.peer_input_clears_flight() {
            self.core.timer.stop();
            self.clear_flight();
        }
    }

    fn handle_ccs(&mut self, now: Instant) -> Result<(), Error> {
        let ready = self
            .hs
            .as_ref()
            .is_some_and(|h| h.pending_read_keys.is_some());
        if !ready || self.core.phase != Phase::Handshaking {
            // Early (the messages before it were lost) or duplicate: drop;
            // retransmission recovers.
            self.core.stats.records_dropped += 1;
            return Ok(());
        }
        let hs = self.hs.as_mut().expect("checked");
        self.read_keys = hs.pending_read_keys.take();
        self.read_epoch = 1;
        for (h, fragment) in std::mem::take(&mut self.early_records) {
            if matches!(self.core.phase, Phase::Closed | Phase::Failed) {
                break;
            }
            self.handle_record(now, &h, &fragment)?;
        }
        Ok(())
    }

    /// tinyDTLS 0.8.2 on a next-epoch record before the peer's
    /// ChangeCipherSpec (see `RetransmitPolicy::fatal_before_change_cipher_spec`):
    /// the server fails with decrypt_error. The client sends a fatal
    /// unexpected_message and then waits, with no timer and no event
    /// (dtls.c `handle_handshake_msg`: the Finished is the message it
    /// expects next, so `dtls_stop_retransmission` clears its queue first;
    /// the state check then fails and `dtls_handle_message` only sends the
    /// alert, leaving the peer as it was). Nothing ends that wait but the
    /// application giving up: the Cooja oracle's client loop logs it as
    /// given up after 60 s of silence, not as an alert.
    fn next_epoch_before_ccs_as_tinydtls(&mut self) -> Result<(), Error> {
        self.core.stats.records_dropped += 1;
        match self.role() {
            Role::Server => Err(Error::NoKeysForEpoch),
            Role::Client => {
                self.send_alert(AlertLevel::Fatal, AlertDescription::UnexpectedMessage);
                self.core.timer.stop();
                self.clear_flight();
                Ok(())
            }
        }
    }

    /// Keep a record of the next epoch until the peer's ChangeCipherSpec,
    /// within the bounds (further records are dropped: the peer's
    /// retransmission recovers them).
    fn buffer_early_record(&mut self, h: &RecordHeader, fragment: &[u8]) {
        let held: usize = self.early_records.iter().map(|(_, f)| f.len()).sum();
        if self.early_records.len() >= MAX_EARLY_RECORDS
            || held + fragment.len() > self.config.max_handshake_message_len
        {
            self.core.stats.records_dropped += 1;
            return;
        }
        self.early_records.push((*h, fragment.to_vec()));
    }

    /// Install keys once the master secret is known.
    pub(crate) fn derive_keys(&mut self) -> Result<(), Error> {
        let suite = self.suite.ok_or(Error::Internal(InternalError::NoSuite))?;
        let role = self.role();
        let hs = self
            .hs
            .as_mut()
            .ok_or(Error::Internal(InternalError::NoHandshake))?;
        let ms = hs
            .master_secret
            .as_ref()
            .ok_or(Error::Internal(InternalError::NoMasterSecret))?;
        let ops = &mut self.core.stats.crypto;
        let protection = suite.protection();
        let (mac_key_len, _, fixed_iv_len) = protection.key_material();
        let kb = keys::key_block(
            ms,
            &hs.client_random,
            &hs.server_random,
            mac_key_len,
            fixed_iv_len,
            ops,
        );
        let (w, r) = match protection {
            RecordProtection::Aead(aead) => {
                let client = RecordKeys::new(aead, &kb.client_key, kb.client_iv, ops);
                let server = RecordKeys::new(aead, &kb.server_key, kb.server_iv, ops);
                match role {
                    Role::Client => (client, server),
                    Role::Server => (server, client),
                }
            }
            RecordProtection::Cbc(mac) => {
                // The explicit IVs come from a generator seeded with the
                // handshake's seed, drawn from the caller's RNG when the
                // connection was created (unused otherwise by PSK suites).
                let iv_rng = hs.rng()?;
                let (wk, wm, rk, rm) = match role {
                    Role::Client => (
                        &kb.client_key,
                        &kb.client_mac_key,
                        &kb.server_key,
                        &kb.server_mac_key,
                    ),
                    Role::Server => (
                        &kb.server_key,
                        &kb.server_mac_key,
                        &kb.client_key,
                        &kb.client_mac_key,
                    ),
                };
                (
                    RecordKeys::cbc_sender(mac, wk, &wm.0, iv_rng),
                    RecordKeys::cbc_receiver(mac, rk, &rm.0),
                )
            }
        };
        self.write_keys = Some(w);
        hs.pending_read_keys = Some(r);
        Ok(())
    }

    /// verify_data for `label` over the transcript so far.
    pub(crate) fn finished_data(&mut self, label: &[u8]) -> Result<[u8; 12], Error> {
        let hs = self
            .hs
            .as_ref()
            .ok_or(Error::Internal(InternalError::NoHandshake))?;
        let h = hs.transcript.current(&mut self.core.stats.crypto);
        let ms = hs
            .master_secret
            .as_ref()
            .ok_or(Error::Internal(InternalError::NoMasterSecret))?;
        Ok(keys::verify_data(
            ms,
            label,
            &h,
            &mut self.core.stats.crypto,
        ))
    }

    /// Compute the master secret from the premaster secret (extended if
    /// negotiated: the transcript then ends with the ClientKeyExchange).
    pub(crate) fn compute_master_secret(&mut self, pms: &Secret) -> Result<(), Error> {
        let hs = self
            .hs
            .as_mut()
            .ok_or(Error::Internal(InternalError::NoHandshake))?;
        let ops = &mut self.core.stats.crypto;
        let ms = if hs.extended_master_secret {
            let session_hash = hs.transcript.current(ops);
            keys::master_secret(
                pms,
                keys::MasterSecretInput::Extended {
                    session_hash: &session_hash,
                },
                ops,
            )
        } else {
            keys::master_secret(
                pms,
                keys::MasterSecretInput::Classic {
                    client_random: &hs.client_random,
                    server_random: &hs.server_random,
                },
                ops,
            )
        };
        hs.master_secret = Some(ms);
        Ok(())
    }

    /// The handshake is complete on this side.
    pub(crate) fn complete(&mut self, now: Instant) {
        self.core.phase = Phase::Established;
        self.core.hs_completed_at = Some(now);
        self.hs = None;
        self.reasm.clear();
        self.early_records = Vec::new();
        self.core.events.push_back(Event::Connected);
    }

    /// Add a received message to the transcript.
    pub(crate) fn transcript_add(&mut self, msg_type: u8, seq: u16, body: &[u8]) {
        if let Some(hs) = self.hs.as_mut() {
            hs.transcript.update(
                &transcript_form(msg_type, seq, body),
                &mut self.core.stats.crypto,
            );
        }
    }
}

/// Bytes the session needs in a compact C implementation (tinyDTLS
/// layout), from the fields it must keep: peer address (16 B IPv6 + 2 B
/// port), role/state/suite (3 B), epochs (2 × 2 B), sequence numbers
/// (2 × 6 B), replay window (6 + 8 B), keys and IVs of both directions
/// (2 × (16 + 4) B; CBC suites: key and MAC key, 2 × (16 + 20) B with
/// SHA-1, 2 × (16 + 32) B with SHA-256, the explicit IVs coming from the
/// device's RNG). During a handshake add the randoms (64 B), a
/// SHA-256 context (108 B), the master secret (48 B), message sequence
/// numbers (4 B) and a PSK identity (up to 32 B); ECDHE suites add the
/// ephemeral private key (32 B), the peer's ephemeral and certificate
/// public keys (2 × 64 B). With RFC 9146 add both CIDs and a length
/// byte for each.
///
/// A slot of a server that may hold a handshake needs the `handshaking`
/// size; `cids`: the negotiated (ours, theirs) CID lengths, if any.
pub fn compact_session_bytes(
    suite: Option<CipherSuite>,
    cids: Option<(usize, usize)>,
    handshaking: bool,
) -> usize {
    let keys = match suite.map(CipherSuite::protection) {
        Some(RecordProtection::Cbc(mac)) => 2 * (16 + mac.mac_len()),
        _ => 2 * (16 + 4),
    };
    let cids = cids.map_or(0, |(ours, theirs)| 2 + ours + theirs);
    let established = 18 + 3 + 4 + 12 + 14 + keys + cids;
    if !handshaking {
        return established;
    }
    let ecdhe = match suite {
        Some(s) if !s.is_psk() => 32 + 128,
        _ => 0,
    };
    established + 64 + 108 + 48 + 4 + 32 + ecdhe
}

/// Records of the next epoch kept until the peer's ChangeCipherSpec.
/// estimate: the peer's Finished (one record, or a few when its fragment
/// size is small) and the application records it may send right after it;
/// Mbed TLS keeps one such record (ssl_buffer_future_record).
pub(crate) const MAX_EARLY_RECORDS: usize = 8;

/// Strip a DTLSInnerPlaintext to its content and return the real content
/// type (RFC 9146 §4: zero padding after the type; tls12_cid itself is
/// not a real type).
fn inner_content_type(inner: &mut Vec<u8>) -> Option<ContentType> {
    let end = inner.iter().rposition(|&b| b != 0)?;
    let real = ContentType::from_u8(inner[end]).filter(|t| *t != ContentType::Tls12Cid)?;
    inner.truncate(end);
    Some(real)
}

/// Length of a ClientHello body up to and including its cookie.
fn hello_prefix_len(body: &[u8]) -> usize {
    let sid = body.get(34).map_or(0, |&n| usize::from(n));
    let cookie = body.get(35 + sid).map_or(0, |&n| usize::from(n));
    (36 + sid + cookie).min(body.len())
}

impl Session for Connection {
    fn cipher_suite_name(&self) -> Option<&'static str> {
        self.suite.map(CipherSuite::name)
    }

    /// The server's Finished is the last message of a 1.2 handshake.
    fn peer_has_final_flight(&self) -> bool {
        true
    }

    /// As [`Session::handle_timeout`]'s default, except that a client
    /// whose ClientHello with a cookie went unanswered
    /// [`RetransmitPolicy::stale_cookie_resends`] times starts over with a
    /// hello without it: the server may have restarted with a new cookie
    /// secret and ignore the stale cookie (pion does); RFC 6347 §4.2.1
    /// lets a client send a ClientHello without a cookie at any time, and
    /// the server answers it with a fresh HelloVerifyRequest.
    ///
    /// [`RetransmitPolicy::stale_cookie_resends`]: crate::RetransmitPolicy::stale_cookie_resends
    fn handle_timeout(&mut self, now: Instant) {
        if !self.core.timer.expired(now) {
            return;
        }
        if self.cookie_went_stale() {
            self.core.stats.retransmissions += 1;
            if let Some(hs) = self.hs.as_mut() {
                if let Some(ch) = hs.client_hello.as_mut() {
                    ch.cookie.clear();
                }
                // in the unanswered hello's message_seq: the server's
                // HelloVerifyRequest echoes it (RFC 6347 §4.2.2), the
                // message this client waits for
                self.out_msg_seq = hs.client_hello_seq;
            }
            self.send_client_hello(now);
            return;
        }
        if self.core.timer.on_expiry(now) {
            self.core.stats.retransmissions += 1;
            self.transmit_flight();
        } else {
            self.retransmit_limit_reached();
        }
    }

    /// Feed one received datagram.
    fn handle_datagram(&mut self, now: Instant, datagram: &[u8]) {
        self.core.stats.datagrams_received += 1;
        self.core.stats.bytes_received += datagram.len() as u64;
        // after a close_notify that ended the handshake, a later datagram's
        // alert may still say why (read below, nothing else is)
        if self.core.phase == Phase::Failed
            || (self.core.phase == Phase::Closed && !self.closed_in_handshake)
        {
            return;
        }
        let (records, malformed) = split_datagram_cid(datagram, &self.read_cid);
        if malformed {
            self.core.stats.records_dropped += 1;
        }
        for (h, fragment) in records {
            let why_after_close = self.closed_in_handshake
                && self.core.phase == Phase::Closed
                && h.content_type == ContentType::Alert;
            if matches!(self.core.phase, Phase::Closed | Phase::Failed) && !why_after_close {
                return;
            }
            if let Err(e) = self.handle_record(now, &h, &fragment) {
                self.fail(e);
                return;
            }
        }
    }

    /// Send application data (one record).
    fn send(&mut self, data: &[u8]) -> Result<(), Error> {
        self.core.refuse_send(data.len(), 16384)?;
        let mut out = Vec::new();
        self.emit_record(
            ContentType::ApplicationData,
            1,
            data,
            &mut out,
            MessageKind::ApplicationData,
        )?;
        self.core.tx.push_back(out);
        Ok(())
    }

    /// Client or server.
    fn role(&self) -> Role {
        match self.creds {
            Credentials::Client(_) => Role::Client,
            Credentials::Server(_) => Role::Server,
        }
    }

    /// Where the connection stands, named for a trace: the message its
    /// handshake waits for (`WaitServerHello`, …), then `Connected`,
    /// `Closed` or `Failed`.
    fn state_name(&self) -> &'static str {
        use crate::v12::handshake::Step;
        match (self.core.phase, self.hs.as_ref().map(|h| h.step)) {
            (Phase::Established, _) => "Connected",
            (Phase::Closed, _) => "Closed",
            (Phase::Failed, _) => "Failed",
            (Phase::Handshaking, None) => "Handshaking",
            (Phase::Handshaking, Some(step)) => match step {
                Step::ServerHello => "WaitServerHello",
                Step::ServerCertificate => "WaitServerCertificate",
                Step::ServerKeyExchange => "WaitServerKeyExchange",
                Step::ServerHelloDone => "WaitServerHelloDone",
                Step::ServerFinished => "WaitServerFinished",
                Step::ClientHello => "WaitClientHello",
                Step::ClientCertificate => "WaitClientCertificate",
                Step::ClientKeyExchange => "WaitClientKeyExchange",
                Step::CertificateVerify => "WaitCertificateVerify",
                Step::ClientFinished => "WaitClientFinished",
            },
        }
    }

    /// Size in bytes of the state this connection holds now: the structure
    /// itself and every heap allocation it owns (handshake state, expanded
    /// AEAD keys, the flight kept for retransmission, reassembly buffers),
    /// less the accounting counters ([`Stats`], instrumentation for the
    /// simulator) and the I/O queues (datagrams and events not yet polled).
    /// The configuration is shared (`Arc`) and not counted.
    fn state_bytes(&self) -> usize {
        let mut n = core::mem::size_of::<Self>() - core::mem::size_of::<Stats>();
        if let Some(hs) = &self.hs {
            n += hs.heap_bytes();
        }
        n += self.write_keys.as_ref().map_or(0, RecordKeys::heap_bytes);
        n += self.read_keys.as_ref().map_or(0, RecordKeys::heap_bytes);
        n += self.flight.capacity() * core::mem::size_of::<OutMessage>();
        for m in &self.flight {
            if let OutMessage::Handshake { body, .. } = m {
                n += body.capacity();
            }
        }
        n += self.reasm.buffered_bytes();
        n += self.own_cid.as_ref().map_or(0, Vec::capacity);
        n += self.write_cid.capacity() + self.read_cid.capacity();
        n += self.early_records.capacity() * core::mem::size_of::<(RecordHeader, Vec<u8>)>();
        n += self
            .early_records
            .iter()
            .map(|(_, f)| f.capacity())
            .sum::<usize>();
        n
    }

    /// Bytes the session needs now in a compact C implementation: see
    /// [`compact_session_bytes`].
    fn compact_state_bytes(&self) -> usize {
        let cids = self
            .core
            .cid_negotiated
            .then_some((self.write_cid.len(), self.read_cid.len()));
        compact_session_bytes(self.suite, cids, self.core.phase == Phase::Handshaking)
    }
}

impl Machine for Connection {
    fn core(&self) -> &Core {
        &self.core
    }

    fn core_mut(&mut self) -> &mut Core {
        &mut self.core
    }

    /// (Re)transmit the current flight with fresh record sequence numbers.
    fn transmit_flight(&mut self) {
        let flight = std::mem::take(&mut self.flight);
        let mtu = self.config.mtu;
        let mut records: Vec<Vec<u8>> = Vec::new();
        for m in &flight {
            match m {
                OutMessage::ChangeCipherSpec => {
                    let mut r = Vec::new();
                    if self
                        .emit_record(
                            ContentType::ChangeCipherSpec,
                            0,
                            &[1],
                            &mut r,
                            MessageKind::ChangeCipherSpec,
                        )
                        .is_ok()
                    {
                        records.push(r);
                    }
                }
                OutMessage::Handshake {
                    msg_type,
                    seq,
                    body,
                    epoch,
                } => {
                    let protection = (*epoch > 0)
                        .then(|| self.suite.map(CipherSuite::protection))
                        .flatten();
                    // a tls12_cid record adds the CID and the inner type byte
                    let cid_overhead = if *epoch > 0 && !self.write_cid.is_empty() {
                        self.write_cid.len() + 1
                    } else {
                        0
                    };
                    let room = max_plaintext(protection, mtu)
                        .saturating_sub(HANDSHAKE_HEADER_LEN + cid_overhead);
                    let max = self.config.max_fragment_len.min(room).max(1);
                    // A stateless server needs the hello up to its cookie in
                    // the first fragment.
                    let first =
                        if *msg_type == crate::handshake_type::HandshakeType::ClientHello.to_u8() {
                            hello_prefix_len(body)
                        } else {
                            0
                        };
                    for (off, len) in fragment_ranges(body.len(), max, first) {
                        let mut plain = Vec::with_capacity(HANDSHAKE_HEADER_LEN + len);
                        FragmentHeader {
                            msg_type: *msg_type,
                            length: body.len() as u32,
                            message_seq: *seq,
                            fragment_offset: off as u32,
                            fragment_length: len as u32,
                        }
                        .emit(&mut plain);
                        plain.extend_from_slice(&body[off..off + len]);
                        let mut r = Vec::new();
                        if self
                            .emit_record(
                                ContentType::Handshake,
                                *epoch,
                                &plain,
                                &mut r,
                                MessageKind::Handshake(*msg_type),
                            )
                            .is_ok()
                        {
                            records.push(r);
                        }
                    }
                }
            }
        }
        self.flight = flight;
        match self.config.packing {
            RecordPacking::OneRecordPerDatagram => self.core.tx.extend(records),
            RecordPacking::PackFlight => {
                let mut cur: Vec<u8> = Vec::new();
                for r in records {
                    if !cur.is_empty() && cur.len() + r.len() > mtu {
                        self.core.tx.push_back(std::mem::take(&mut cur));
                    }
                    cur.extend_from_slice(&r);
                }
                if !cur.is_empty() {
                    self.core.tx.push_back(cur);
                }
            }
        }
    }

    fn send_alert(&mut self, level: AlertLevel, d: AlertDescription) {
        let body = [level.to_u8(), d.to_u8()];
        let mut out = Vec::new();
        let epoch = self.write_epoch;
        if self
            .emit_record(
                ContentType::Alert,
                epoch,
                &body,
                &mut out,
                MessageKind::Alert,
            )
            .is_ok()
        {
            self.core.tx.push_back(out);
        }
    }

    /// The handshake state and the flight kept for retransmission: a
    /// closed or failed connection needs neither.
    fn drop_flight(&mut self) {
        self.hs = None;
        self.clear_flight();
    }

    fn retransmit_limit_reached(&mut self) {
        self.fail(Error::Timeout);
    }
}
