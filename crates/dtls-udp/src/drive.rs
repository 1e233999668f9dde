//! The wall-clock UDP loops both DTLS versions share: a client
//! connection's send and wait, and the whole server loop (send, events,
//! echo, stop, wait, receive, timers), each written once over
//! [`dtls::Session`] and [`dtls::Endpoint`]. What differs between the
//! versions (the connection a configuration makes, its suite, how it takes
//! the peer's close_notify) is its [`ClientVersion`] or [`ServerVersion`],
//! implemented in `lib.rs` (1.2) and `v13.rs` (1.3).

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dtls::endpoint::Version;
use dtls::{Endpoint, Event, Phase, Session};
use rand_chacha::ChaCha20Rng;

use crate::log::{other_version, NoteKind, ServerNote};

use super::{
    is_retry, micros, rng_from, send_retrying, ClientOptions, ClientReport, Error, HandshakeRecord,
    ServerOptions, ServerReport, StopCondition,
};

/// A DTLS version's client configuration, as the UDP client loop runs it:
/// [`dtls::ClientConfig`] (1.2) or `ClientConfig13` (1.3). The loop drives
/// the connection through [`Session`]; what tells the versions apart is
/// the connection a configuration makes, its typed suite, and how each
/// takes the peer's close_notify (both record it, and the last alert, in
/// the report).
pub trait ClientVersion: Clone {
    /// The version's cipher suite.
    type Suite;
    /// The version's connection.
    type Conn: Session;
    /// What resumes a session later (1.2: its session ID and master
    /// secret; 1.3: a ticket).
    type Resumable: Clone + std::fmt::Debug;
    /// A client connection whose first flight is queued, offering to
    /// resume `resume`.
    fn connect(
        config: Arc<Self>,
        resume: Option<&Self::Resumable>,
        rng: &mut ChaCha20Rng,
    ) -> Result<Self::Conn, dtls::Error>;
    /// Whether the handshake resumed a session, and what resumes this one
    /// later.
    fn resumption(conn: &Self::Conn) -> (bool, Option<Self::Resumable>);
    /// The suite the connection negotiated.
    fn cipher_suite(conn: &Self::Conn) -> Option<Self::Suite>;
    /// The peer's close_notify came while the client was `waiting` (for
    /// the handshake, or for replies): an error, or whether to read this
    /// datagram's further events.
    fn closed(
        report: &mut ClientReport<Self::Suite, Self::Resumable>,
        waiting: bool,
    ) -> Result<bool, dtls::Error>;
    /// The error of a handshake that ended before it completed.
    fn unfinished(report: &ClientReport<Self::Suite, Self::Resumable>) -> dtls::Error;
    /// Send close_notify at the end (when asked to close).
    fn closes(report: &ClientReport<Self::Suite, Self::Resumable>) -> bool;
    /// How long the client waits for the peer before it resends.
    fn retransmit(&self) -> &dtls::RetransmitPolicy;
}

/// What a client run of version `C` reports.
pub type ReportOf<C> = ClientReport<<C as ClientVersion>::Suite, <C as ClientVersion>::Resumable>;

/// The report's figures of the handshake just completed.
fn handshake_figures<C: ClientVersion>(conn: &C::Conn) -> ReportOf<C> {
    let hs = conn.stats();
    let (resumed, resumable) = C::resumption(conn);
    ClientReport {
        resumed,
        resumable,
        cipher_suite: C::cipher_suite(conn),
        cid_negotiated: conn.cid_negotiated(),
        handshake_time: Duration::from_micros(conn.handshake_duration_us().unwrap_or(0)),
        handshake_datagrams_sent: hs.datagrams_sent,
        handshake_datagrams_received: hs.datagrams_received,
        handshake_bytes_sent: hs.bytes_sent,
        handshake_bytes_received: hs.bytes_received,
        retransmissions: hs.retransmissions,
        session_state_bytes: conn.state_bytes(),
        ..ClientReport::default()
    }
}

/// Send every datagram the connection has queued.
fn flush(sock: &UdpSocket, conn: &mut impl Session) -> Result<(), Error> {
    while let Some(d) = conn.poll_transmit(0) {
        send_retrying(|| sock.send(&d))?;
    }
    Ok(())
}

/// Wait for one datagram or the connection's next timer, whichever first.
fn recv_once(
    sock: &UdpSocket,
    conn: &mut impl Session,
    start: Instant,
    deadline: Instant,
    buf: &mut [u8],
) -> Result<(), Error> {
    let now_us = micros(start);
    let mut wait = deadline.saturating_duration_since(Instant::now());
    if let Some(t) = conn.poll_timeout() {
        wait = wait.min(Duration::from_micros(t.saturating_sub(now_us)));
    }
    sock.set_read_timeout(Some(wait.max(Duration::from_millis(1))))?;
    match sock.recv(buf) {
        Ok(n) => conn.handle_datagram(micros(start), &buf[..n]),
        Err(e) if is_retry(&e) => {}
        // ICMP port unreachable on a connected socket: keep retrying.
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {}
        Err(e) => return Err(e.into()),
    }
    conn.handle_timeout(micros(start));
    Ok(())
}

/// Why a handshake the peer's close_notify ended failed: a fatal alert the
/// peer sends after it (in the same datagram, or in one that comes by
/// `until`, the time the client would have waited before resending: a
/// peer aborting with close_notify then handshake_failure), else the
/// close itself ([`dtls::Error::ClosedByPeer`]).
fn why_closed(
    sock: &UdpSocket,
    conn: &mut impl Session,
    start: Instant,
    until: Instant,
    buf: &mut [u8],
) -> Result<dtls::Error, Error> {
    loop {
        while let Some(ev) = conn.poll_event() {
            if let Event::Failed(e) = ev {
                return Ok(e);
            }
        }
        if Instant::now() >= until {
            return Ok(dtls::Error::ClosedByPeer);
        }
        recv_once(sock, conn, start, until, buf)?;
    }
}

/// A DTLS version's server configuration, as the UDP server loop runs it:
/// [`dtls::ServerConfig`] (1.2) or `ServerConfig13` (1.3), each the
/// configuration of its version's part of a [`dtls::Endpoint`].
pub trait ServerVersion: Clone {
    /// The version's cipher suite.
    type Suite;
    /// The endpoint's counters.
    type EndpointStats: Default + Clone;
    /// The version's part of the endpoint.
    type Endpoint: Version<Config = Self, Rng = ChaCha20Rng, Stats = Self::EndpointStats>;
    /// The version's number, "1.2" or "1.3".
    const VERSION: &'static str;
    /// The suite a session negotiated.
    fn cipher_suite(conn: &<Self::Endpoint as Version>::Session) -> Option<Self::Suite>;
    /// A suite's name.
    fn suite_name(suite: &Self::Suite) -> &'static str;
    /// The session's handshake resumed an earlier session.
    fn resumed(_conn: &<Self::Endpoint as Version>::Session) -> bool {
        false
    }
    /// Stateless answers (HelloRetryRequests) the endpoint sent so far
    /// that no session counts: 1.3's, whose cookie cannot rebuild the
    /// first ClientHello's size (a key-share retry changes the shares);
    /// 1.2's session counts its cookie round itself (the first hello is
    /// the second without its cookie, RFC 6347 §4.2.1), so 0.
    fn uncounted_retries(_stats: &Self::EndpointStats) -> u64 {
        0
    }
}

/// Most peers whose stateless retry rounds the server loop keeps figures
/// for at once: a bound on what a flood of first ClientHellos makes it
/// hold (each entry is a few dozen bytes; rounds past it go uncounted).
const MAX_RETRY_ROUNDS: usize = 4096;

/// The datagrams of stateless retry rounds (a first ClientHello and the
/// HelloRetryRequest that answered it), per peer, until its session's
/// handshake completes and they join its figures: the endpoint keeps no
/// state for them, so the loop that saw them on the wire counts them.
#[derive(Default)]
struct RetryRounds {
    rounds: std::collections::HashMap<SocketAddr, dtls::Stats>,
    /// Peers whose hello the endpoint just answered statelessly: the
    /// datagrams sent to them next are that answer.
    answering: Vec<SocketAddr>,
}

impl RetryRounds {
    /// `peer`'s datagram of `bytes` was answered statelessly.
    fn hello(&mut self, peer: SocketAddr, bytes: usize) {
        if self.rounds.len() >= MAX_RETRY_ROUNDS && !self.rounds.contains_key(&peer) {
            return;
        }
        let s = self.rounds.entry(peer).or_default();
        s.datagrams_received += 1;
        s.bytes_received += bytes as u64;
        self.answering.push(peer);
    }

    /// A datagram of `bytes` was sent to `peer`.
    fn sent(&mut self, peer: SocketAddr, bytes: usize) {
        if self.answering.contains(&peer) {
            if let Some(s) = self.rounds.get_mut(&peer) {
                s.datagrams_sent += 1;
                s.bytes_sent += bytes as u64;
            }
        }
    }

    /// `peer`'s rounds, added to its completed handshake's figures.
    fn settle(&mut self, peer: SocketAddr, stats: &mut dtls::Stats) {
        if let Some(r) = self.rounds.remove(&peer) {
            stats.datagrams_received += r.datagrams_received;
            stats.bytes_received += r.bytes_received;
            stats.datagrams_sent += r.datagrams_sent;
            stats.bytes_sent += r.bytes_sent;
        }
    }
}

/// What a server run of version `C` reports.
pub type ServerReportOf<C> =
    ServerReport<HandshakeRecord<<C as ServerVersion>::Suite>, <C as ServerVersion>::EndpointStats>;

/// Serve on `sock` with `opts` until `stop`: the one server loop, over the
/// endpoint of `C`'s version.
pub(crate) fn run_server<C: ServerVersion>(
    sock: &UdpSocket,
    opts: &ServerOptions<C>,
    stop: &StopCondition,
) -> Result<ServerReportOf<C>, Error> {
    let start = Instant::now();
    let rng = rng_from(opts.seed)?;
    let mut server = Endpoint::<C::Endpoint>::new(Arc::new(opts.config.clone()), rng, 0)?;
    serve::<C>(sock, &mut server, opts, stop, start)
}

/// The record of the session with `peer`, just connected.
fn handshake<C: ServerVersion>(
    server: &Endpoint<C::Endpoint>,
    peer: SocketAddr,
) -> Option<HandshakeRecord<C::Suite>> {
    server.session(&peer).map(|c| HandshakeRecord {
        peer,
        cipher_suite: C::cipher_suite(c),
        cid_negotiated: c.cid_negotiated(),
        resumed: C::resumed(c),
        duration: Duration::from_micros(c.handshake_duration_us().unwrap_or(0)),
        stats: c.stats().clone(),
        session_state_bytes: c.state_bytes(),
    })
}

/// Serve on `sock` until `stop`: send what the endpoint queued, record its
/// events (echoing application data when `echo`), then wait for a datagram
/// or the next timer, at most 50 ms so the stop flag is seen.
fn serve<C: ServerVersion>(
    sock: &UdpSocket,
    server: &mut Endpoint<C::Endpoint>,
    opts: &ServerOptions<C>,
    stop: &StopCondition,
    start: Instant,
) -> Result<ServerReportOf<C>, Error> {
    let (echo, log) = (opts.echo, opts.log.as_ref());
    let note = |peer: SocketAddr, kind: NoteKind| {
        if let Some(log) = log {
            log.push(ServerNote {
                peer,
                version: C::VERSION,
                kind,
            });
        }
    };
    let mut out = ServerReport {
        local_addr: Some(sock.local_addr()?),
        ..ServerReport::default()
    };
    let mut ended = 0usize;
    let mut retries = RetryRounds::default();
    let mut buf = vec![0u8; 65536];
    loop {
        while let Some(t) = server.poll_transmit(micros(start)) {
            out.datagrams_sent += 1;
            out.bytes_sent += t.payload.len() as u64;
            retries.sent(t.destination, t.payload.len());
            match send_retrying(|| sock.send_to(&t.payload, t.destination)) {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {}
                Err(e) => return Err(e.into()),
            }
        }
        retries.answering.clear();
        let mut echoes = Vec::new();
        while let Some((peer, ev)) = server.poll_event() {
            match ev {
                Event::Connected => {
                    if let Some(mut h) = handshake::<C>(server, peer) {
                        retries.settle(peer, &mut h.stats);
                        note(
                            peer,
                            NoteKind::Established {
                                suite: h
                                    .cipher_suite
                                    .as_ref()
                                    .map_or("?", C::suite_name)
                                    .to_string(),
                                duration: h.duration,
                                resumed: h.resumed,
                                cid: h.cid_negotiated,
                            },
                        );
                        out.handshakes.push(h);
                    }
                }
                Event::ApplicationData(d) => {
                    let at = start.elapsed();
                    out.data_span = Some(out.data_span.map_or((at, at), |(first, _)| (first, at)));
                    if echo {
                        echoes.push((peer, d.clone()));
                    }
                    out.received.push((peer, d));
                }
                Event::Failed(e) => {
                    retries.rounds.remove(&peer);
                    note(peer, NoteKind::Failed(e.to_string()));
                    out.failures.push((peer, e));
                    ended += 1;
                }
                Event::Closed => {
                    retries.rounds.remove(&peer);
                    note(peer, NoteKind::Closed);
                    ended += 1;
                }
                Event::AlertReceived(_) => {}
            }
        }
        if !echoes.is_empty() {
            for (peer, d) in echoes {
                if server.send(peer, &d).is_ok() {
                    out.echoed += 1;
                }
            }
            continue;
        }
        if stop.reached(start, out.handshakes.len(), ended, out.received.total) {
            out.endpoint = server.stats().clone();
            return Ok(out);
        }
        let now_us = micros(start);
        let mut wait = Duration::from_millis(50);
        if let Some(t) = server.poll_timeout() {
            wait = wait.min(Duration::from_micros(t.saturating_sub(now_us)));
        }
        if let Some(d) = stop.max_duration {
            wait = wait.min(d.saturating_sub(start.elapsed()));
        }
        sock.set_read_timeout(Some(wait.max(Duration::from_millis(1))))?;
        match sock.recv_from(&mut buf) {
            Ok((n, from)) => {
                out.datagrams_received += 1;
                out.bytes_received += n as u64;
                if log.is_some() && server.session(&from).is_none() {
                    if let Some(offered) = other_version(C::VERSION, &buf[..n]) {
                        note(from, NoteKind::OtherVersion { offered });
                    }
                }
                let answered = C::uncounted_retries(server.stats());
                server.handle_datagram(micros(start), from, &buf[..n]);
                if C::uncounted_retries(server.stats()) > answered {
                    retries.hello(from, n);
                }
            }
            Err(e) if is_retry(&e) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {}
            Err(e) => return Err(e.into()),
        }
        server.handle_timeout(micros(start));
    }
}

/// The application part of a client run as phases, each the messages sent
/// from one socket and the replies (counted from the start) awaited there:
/// one phase, or two when the client moves to a new socket once
/// `rebind_after_replies` replies came.
fn message_phases(
    messages: &[Vec<u8>],
    expect_replies: usize,
    rebind_after_replies: Option<usize>,
) -> Vec<(&[Vec<u8>], u64)> {
    match rebind_after_replies {
        None => vec![(messages, expect_replies as u64)],
        Some(k) => {
            let (before, after) = messages.split_at(k.min(messages.len()));
            vec![
                (before, k.min(expect_replies) as u64),
                (after, expect_replies as u64),
            ]
        }
    }
}

/// A new socket like `bind`'s (a new ephemeral port), connected to `server`.
fn rebind(bind: SocketAddr, server: SocketAddr) -> Result<UdpSocket, Error> {
    let sock = UdpSocket::bind(bind)?;
    sock.connect(server)?;
    Ok(sock)
}

/// Connect to `opts.server`, handshake, send the messages (moving to a new
/// socket midway when asked), wait for the replies, close: the client loop
/// of both versions, `C` taking the peer's close_notify as its version does.
pub(crate) fn client_loop<C: ClientVersion>(opts: &ClientOptions<C>) -> Result<ReportOf<C>, Error> {
    let bind = opts.bind.unwrap_or(if opts.server.is_ipv4() {
        "0.0.0.0:0".parse().expect("literal")
    } else {
        "[::]:0".parse().expect("literal")
    });
    let mut sock = UdpSocket::bind(bind)?;
    sock.connect(opts.server)?;
    let start = Instant::now();
    let mut rng = rng_from(opts.seed)?;
    let mut conn = C::connect(
        Arc::new(opts.config.clone()),
        opts.resume.as_ref(),
        &mut rng,
    )?;
    // events before the handshake completes, kept to go into the report
    let mut early = ReportOf::<C>::default();
    let mut buf = vec![0u8; 65536];

    let hs_deadline = start + opts.handshake_timeout;
    loop {
        flush(&sock, &mut conn)?;
        while let Some(ev) = conn.poll_event() {
            match ev {
                Event::Failed(e) => {
                    flush(&sock, &mut conn)?;
                    return Err(Error::Dtls(e));
                }
                Event::ApplicationData(d) => early.received.push(d),
                Event::AlertReceived(a) => early.alert_received = Some(a),
                // a close_notify before the handshake completed fails it
                Event::Closed => early.closed_by_peer = true,
                Event::Connected => {}
            }
        }
        if conn.is_established() {
            break;
        }
        if early.closed_by_peer {
            let linger = Duration::from_micros(opts.config.retransmit().interval_us(0));
            let until = hs_deadline.min(Instant::now() + linger);
            return Err(Error::Dtls(why_closed(
                &sock, &mut conn, start, until, &mut buf,
            )?));
        }
        if conn.phase() != Phase::Handshaking {
            return Err(Error::Dtls(C::unfinished(&early)));
        }
        if Instant::now() >= hs_deadline {
            return Err(Error::HandshakeTimeout);
        }
        recv_once(&sock, &mut conn, start, hs_deadline, &mut buf)?;
    }
    let mut report = ClientReport {
        received: early.received,
        alert_received: early.alert_received,
        closed_by_peer: early.closed_by_peer,
        ..handshake_figures::<C>(&conn)
    };

    // Application data: all of it from one socket, or the first messages
    // from this one and the rest from a new one.
    let reply_deadline = Instant::now() + opts.reply_timeout;
    let phases = message_phases(
        &opts.messages,
        opts.expect_replies,
        opts.rebind_after_replies,
    );
    'phases: for (i, (messages, wanted)) in phases.into_iter().enumerate() {
        if i > 0 {
            sock = rebind(bind, opts.server)?;
        }
        for m in messages {
            if let Err(e) = conn.send(m) {
                report.failure = Some(e);
                break 'phases;
            }
            report.messages_sent += 1;
        }
        flush(&sock, &mut conn)?;
        while report.received.total < wanted && Instant::now() < reply_deadline {
            recv_once(&sock, &mut conn, start, reply_deadline, &mut buf)?;
            // ACKs of the server's late records and any resent final flight
            flush(&sock, &mut conn)?;
            while let Some(ev) = conn.poll_event() {
                match ev {
                    Event::ApplicationData(d) => report.received.push(d),
                    Event::Failed(e) => {
                        // reported with the figures measured so far
                        flush(&sock, &mut conn)?;
                        report.failure = Some(e);
                        report.stats = conn.stats().clone();
                        return Ok(report);
                    }
                    Event::AlertReceived(a) => report.alert_received = Some(a),
                    Event::Closed => {
                        let waiting = report.received.total < wanted;
                        match C::closed(&mut report, waiting) {
                            Ok(true) => {}
                            Ok(false) => break,
                            Err(e) => {
                                report.failure = Some(e);
                                report.stats = conn.stats().clone();
                                return Ok(report);
                            }
                        }
                    }
                    Event::Connected => {}
                }
            }
            if !conn.is_established() {
                break;
            }
        }
    }
    // what resumes this session later: 1.3's ticket comes after the
    // handshake, so a client that keeps it waits for it (bounded)
    while opts.keep_session
        && conn.is_established()
        && C::resumption(&conn).1.is_none()
        && Instant::now() < reply_deadline
    {
        recv_once(&sock, &mut conn, start, reply_deadline, &mut buf)?;
        flush(&sock, &mut conn)?;
    }
    report.resumable = C::resumption(&conn).1;
    if opts.close && C::closes(&report) {
        conn.close();
        flush(&sock, &mut conn)?;
    }
    report.stats = conn.stats().clone();
    Ok(report)
}
