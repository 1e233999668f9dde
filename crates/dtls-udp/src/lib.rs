//! Real DTLS over real UDP: a wall-clock loop around the sans-IO
//! [`dtls`] core. The same state machine runs in the simulator in virtual
//! time; here `now` is microseconds since the loop started.
//!
//! - [`run_client`]: connect, handshake, send messages, collect replies,
//!   close; returns a [`ClientReport`].
//! - [`bind_server`] / [`BoundServer::run`] (or [`run_server`]): accept
//!   sessions, echo application data (optional), stop on a
//!   [`StopCondition`]; returns a [`ServerReport`].
//! - DTLS 1.3: the same loops over the 1.3 stack ([`run_client13`],
//!   [`bind_server13`]).
//!
//! Plain structs, no serde: the Python bindings convert them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::fmt;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dtls::v12::endpoint::Dtls12;
pub use dtls::v12::handshake::resumption::ResumableSession;
use dtls::{Alert, CipherSuite, ClientConfig, Connection, ServerConfig, Stats};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

pub use dtls;

mod drive;
mod log;
mod relay;
mod v13;

pub use log::{hello_offers, NoteKind, ServerLog, ServerNote};

pub use drive::{ClientVersion, ReportOf, ServerReportOf, ServerVersion};
pub use relay::{Direction, Relay, RelayCounts, RelayOptions, WayCounts};
pub use v13::{
    bind_server13, run_client13, run_server13, BoundServer13, ClientOptions13, ClientReport13,
    HandshakeRecord13, SavedTicket, ServerOptions13, ServerReport13,
};

/// Errors of the UDP driver.
#[derive(Debug)]
pub enum Error {
    /// Socket error.
    Io(std::io::Error),
    /// The DTLS connection failed (alert, timeout, …).
    Dtls(dtls::Error),
    /// The handshake did not complete within the allotted time.
    HandshakeTimeout,
    /// Bad options or key material.
    Config(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => write!(f, "I/O: {e}"),
            Error::Dtls(e) => write!(f, "DTLS: {e}"),
            Error::HandshakeTimeout => write!(f, "handshake did not complete in time"),
            Error::Config(s) => write!(f, "configuration: {s}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<dtls::Error> for Error {
    fn from(e: dtls::Error) -> Self {
        Error::Dtls(e)
    }
}

/// Options of [`run_client`] (and, with 1.3's configuration,
/// [`run_client13`]).
#[derive(Clone, Debug)]
pub struct ClientOptions<C: ClientVersion = ClientConfig> {
    /// Server address.
    pub server: SocketAddr,
    /// Local address to bind (default: unspecified address, port 0).
    pub bind: Option<SocketAddr>,
    /// DTLS configuration (knobs and credentials).
    pub config: C,
    /// Application messages to send after the handshake, one record each.
    pub messages: Vec<Vec<u8>>,
    /// Application records to wait for after sending (e.g. the echoes).
    pub expect_replies: usize,
    /// Give up the handshake after this long.
    pub handshake_timeout: Duration,
    /// Give up waiting for replies after this long.
    pub reply_timeout: Duration,
    /// Send close_notify at the end.
    pub close: bool,
    /// RNG seed (None: from the operating system).
    pub seed: Option<u64>,
    /// Move to a new socket (a new local port) once this many replies
    /// came, then send the remaining messages from there: a client whose
    /// address changes mid-session, which keeps its session only with a
    /// Connection ID (RFC 9146 §1, RFC 9147 §9).
    pub rebind_after_replies: Option<usize>,
    /// A session to offer to resume (a DTLS 1.2 session ID, RFC 5246
    /// §7.3; a DTLS 1.3 ticket, RFC 8446 §4.6.1): the abbreviated
    /// handshake if the server still holds it, else the full one.
    pub resume: Option<C::Resumable>,
    /// Wait, after the messages, for what resumes this session later (at
    /// most `reply_timeout`): 1.3's ticket comes after the handshake (RFC
    /// 8446 §4.6.1); 1.2's session ID is known when the handshake ends.
    pub keep_session: bool,
}

impl<C: ClientVersion> ClientOptions<C> {
    /// A client with `config`: one message, wait for one reply.
    pub fn new(server: SocketAddr, config: C) -> Self {
        ClientOptions {
            server,
            bind: None,
            config,
            messages: vec![b"hello from dtlsim".to_vec()],
            expect_replies: 1,
            handshake_timeout: Duration::from_secs(10),
            reply_timeout: Duration::from_secs(5),
            close: true,
            seed: None,
            rebind_after_replies: None,
            resume: None,
            keep_session: false,
        }
    }
}

impl ClientOptions {
    /// PSK client with defaults: one message, wait for one reply.
    pub fn psk(server: SocketAddr, config: dtls::Config, identity: &[u8], key: &[u8]) -> Self {
        Self::new(server, ClientConfig::psk(config, identity, key))
    }

    /// Certificate (ECDHE-ECDSA) client: `pinned_server_certificate` (PEM or
    /// DER) is the only server certificate accepted; None accepts any (for
    /// measurements only).
    pub fn certificate(
        server: SocketAddr,
        config: dtls::Config,
        pinned_server_certificate: Option<&[u8]>,
    ) -> Result<Self, Error> {
        let server_verifier = match pinned_server_certificate {
            Some(pem) => dtls::CertificateVerifier::Pinned(certificate_der(pem)?),
            None => dtls::CertificateVerifier::AcceptAny,
        };
        Ok(Self::verifying(server, config, server_verifier))
    }

    /// Raw-public-key (RFC 7250) ECDHE-ECDSA client: the server's
    /// Certificate must be `pinned_server_public_key` (PEM or DER
    /// SubjectPublicKeyInfo).
    pub fn raw_public_key(
        server: SocketAddr,
        config: dtls::Config,
        pinned_server_public_key: &[u8],
    ) -> Result<Self, Error> {
        let spki = public_key_der(pinned_server_public_key)?;
        Ok(Self::verifying(
            server,
            config,
            dtls::CertificateVerifier::Pinned(spki),
        ))
    }

    fn verifying(
        server: SocketAddr,
        config: dtls::Config,
        server_verifier: dtls::CertificateVerifier,
    ) -> Self {
        Self::new(
            server,
            ClientConfig {
                config,
                psk: None,
                server_verifier,
                client_certificate: None,
            },
        )
    }
}

/// What one client run measured, whichever the version: `S` is the
/// version's suite ([`CipherSuite`] for 1.2; 1.3's in [`ClientReport13`]).
#[derive(Clone, Debug)]
pub struct ClientReport<S = CipherSuite, R = ResumableSession> {
    /// Negotiated suite.
    pub cipher_suite: Option<S>,
    /// Connection IDs were negotiated.
    pub cid_negotiated: bool,
    /// Wall time from the first ClientHello to the server's Finished.
    pub handshake_time: Duration,
    /// Datagrams sent during the handshake.
    pub handshake_datagrams_sent: u64,
    /// Datagrams received during the handshake.
    pub handshake_datagrams_received: u64,
    /// UDP payload bytes sent during the handshake.
    pub handshake_bytes_sent: u64,
    /// UDP payload bytes received during the handshake.
    pub handshake_bytes_received: u64,
    /// Flight retransmissions during the handshake.
    pub retransmissions: u64,
    /// Application messages sent.
    pub messages_sent: usize,
    /// Application data received, record by record: all counted, the
    /// first few kept (a server cannot make the report grow).
    pub received: Sample<Vec<u8>>,
    /// The last alert the peer sent (a close_notify too).
    pub alert_received: Option<Alert>,
    /// The peer closed the connection (close_notify) before the replies
    /// waited for came (1.3; the 1.2 client fails then with
    /// [`dtls::Error::ClosedByPeer`]).
    pub closed_by_peer: bool,
    /// All counters at the end (crypto operations, bytes per message kind).
    pub stats: Stats,
    /// Session state size (bytes) once established.
    pub session_state_bytes: usize,
    /// Why the session failed after the handshake completed (a fatal
    /// alert, a decryption failure, …): the run still reports what the
    /// handshake and the data exchanged measured. A failure before the
    /// handshake completed is the run's error instead.
    pub failure: Option<dtls::Error>,
    /// The handshake resumed the session offered (1.2's abbreviated
    /// handshake).
    pub resumed: bool,
    /// What resumes this session later (1.2: when the server gave it a
    /// session ID; 1.3: the server's ticket): secret, kept out of `Debug`.
    pub resumable: Option<R>,
}

// by hand: a derived Default would ask a default suite too
impl<S, R> Default for ClientReport<S, R> {
    fn default() -> Self {
        ClientReport {
            cipher_suite: None,
            cid_negotiated: false,
            handshake_time: Duration::ZERO,
            handshake_datagrams_sent: 0,
            handshake_datagrams_received: 0,
            handshake_bytes_sent: 0,
            handshake_bytes_received: 0,
            retransmissions: 0,
            messages_sent: 0,
            received: Sample::default(),
            alert_received: None,
            closed_by_peer: false,
            stats: Stats::default(),
            session_state_bytes: 0,
            failure: None,
            resumed: false,
            resumable: None,
        }
    }
}

fn rng_from(seed: Option<u64>) -> Result<ChaCha20Rng, Error> {
    match seed {
        Some(s) => Ok(ChaCha20Rng::seed_from_u64(s)),
        None => {
            let mut k = [0u8; 32];
            getrandom::fill(&mut k).map_err(|e| Error::Config(format!("no OS randomness: {e}")))?;
            Ok(ChaCha20Rng::from_seed(k))
        }
    }
}

fn micros(start: Instant) -> u64 {
    start.elapsed().as_micros() as u64
}

/// A receive that ended without a datagram and should simply be tried again:
/// the read timeout expired, or a signal interrupted the call. Linux returns
/// EINTR from a `recv` with `SO_RCVTIMEO` even under `SA_RESTART` (signal(7)),
/// so any signal the process receives can end a wait early.
fn is_retry(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock
            | std::io::ErrorKind::TimedOut
            | std::io::ErrorKind::Interrupted
    )
}

/// Send one datagram, again if a signal interrupted the call.
fn send_retrying(send: impl Fn() -> std::io::Result<usize>) -> std::io::Result<usize> {
    loop {
        match send() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

/// Connect to a DTLS server, handshake, send `messages`, wait for
/// `expect_replies` application records, close.
pub fn run_client<C: ClientVersion>(opts: &ClientOptions<C>) -> Result<ReportOf<C>, Error> {
    drive::client_loop(opts)
}

// DTLS 1.2's client fails on the peer's close_notify while it waits for
// the handshake or for replies, and stops reading once it has them.
impl ClientVersion for ClientConfig {
    type Suite = CipherSuite;
    type Conn = Connection;
    type Resumable = ResumableSession;
    fn connect(
        config: Arc<Self>,
        resume: Option<&ResumableSession>,
        rng: &mut ChaCha20Rng,
    ) -> Result<Connection, dtls::Error> {
        match resume {
            Some(s) => Connection::client_resuming(config, s.clone(), rng, 0),
            None => Connection::client(config, rng, 0),
        }
    }
    fn resumption(conn: &Connection) -> (bool, Option<ResumableSession>) {
        (conn.resumed(), conn.resumable_session().cloned())
    }
    fn cipher_suite(conn: &Connection) -> Option<CipherSuite> {
        conn.cipher_suite()
    }
    fn closed(_: &mut ClientReport, waiting: bool) -> Result<bool, dtls::Error> {
        if waiting {
            Err(dtls::Error::ClosedByPeer)
        } else {
            Ok(false)
        }
    }
    fn unfinished(_: &ClientReport) -> dtls::Error {
        dtls::Error::NotConnected
    }
    fn closes(_: &ClientReport) -> bool {
        true
    }
    fn retransmit(&self) -> &dtls::RetransmitPolicy {
        &self.config.retransmit
    }
}

/// When [`BoundServer::run`] returns (whichever comes first).
#[derive(Clone, Debug, Default)]
pub struct StopCondition {
    /// After this long.
    pub max_duration: Option<Duration>,
    /// After this many handshakes completed. Beware: the server's last
    /// flight may be lost and is resent only when the client retransmits, so
    /// stopping right after the handshake can strand the client.
    pub after_handshakes: Option<usize>,
    /// After this many sessions ended (close_notify or failure).
    pub after_sessions_ended: Option<usize>,
    /// After this many application records were received.
    pub after_messages: Option<usize>,
    /// When this flag becomes true (checked at least every 50 ms).
    pub flag: Option<Arc<AtomicBool>>,
}

impl StopCondition {
    /// Whether a server loop that started at `start` and has seen this many
    /// handshakes, ended sessions and application records should return:
    /// the one rule of both versions' servers.
    pub(crate) fn reached(
        &self,
        start: Instant,
        handshakes: usize,
        sessions_ended: usize,
        messages: u64,
    ) -> bool {
        self.max_duration.is_some_and(|d| start.elapsed() >= d)
            || self.after_handshakes.is_some_and(|n| handshakes >= n)
            || self
                .after_sessions_ended
                .is_some_and(|n| sessions_ended >= n)
            || self.after_messages.is_some_and(|n| messages >= n as u64)
            || self
                .flag
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed))
    }
}

/// Options of the server loop, whichever the version: `C` is the version's
/// server configuration ([`ServerConfig`] for 1.2; 1.3's in
/// [`ServerOptions13`]).
#[derive(Clone, Debug)]
pub struct ServerOptions<C = ServerConfig> {
    /// Address to listen on (port 0: any free port).
    pub bind: SocketAddr,
    /// DTLS configuration.
    pub config: C,
    /// Echo application data back to its sender.
    pub echo: bool,
    /// RNG seed (None: from the operating system).
    pub seed: Option<u64>,
    /// Where the loop tells each handshake's outcome as it happens (None:
    /// nowhere; the report still has them at the end).
    pub log: Option<ServerLog>,
}

/// The session-table guards of a server facing the open network, on a
/// table of the configuration's size.
fn guard(config: &mut ServerConfig) {
    use dtls::session_table::{Limits, Policy};
    config.set_session_limits(Limits::guarded(config.max_sessions), Policy::EvictHalfOpen);
}

impl ServerOptions {
    /// PSK server with one identity, echoing, with the session-table
    /// guards of a server facing the open network
    /// ([`dtls::session_table::Limits::guarded`], evicting half-open
    /// handshakes first).
    pub fn psk(bind: SocketAddr, config: dtls::Config, identity: &[u8], key: &[u8]) -> Self {
        let mut config = ServerConfig::psk(config, identity, key);
        guard(&mut config);
        ServerOptions {
            bind,
            config,
            echo: true,
            seed: None,
            log: None,
        }
    }

    /// Certificate (ECDHE-ECDSA) server, echoing, guarded as
    /// [`ServerOptions::psk`]. `certificate` and
    /// `private_key` are PEM or DER (P-256; PKCS#8 or SEC1 key).
    pub fn certificate(
        bind: SocketAddr,
        config: dtls::Config,
        certificate: &[u8],
        private_key_pem: &[u8],
    ) -> Result<Self, Error> {
        let key = dtls::CertifiedKey {
            chain: vec![certificate_der(certificate)?],
            private_key: private_key(private_key_pem)?,
        };
        Ok(Self::with_key(bind, config, key))
    }

    /// Raw-public-key (RFC 7250) ECDHE-ECDSA server: its Certificate is
    /// the SubjectPublicKeyInfo of `private_key_pem` (PEM or DER, P-256).
    pub fn raw_public_key(
        bind: SocketAddr,
        config: dtls::Config,
        private_key_pem: &[u8],
    ) -> Result<Self, Error> {
        let key = dtls::CertifiedKey::raw_public_key(private_key(private_key_pem)?)?;
        Ok(Self::with_key(bind, config, key))
    }

    fn with_key(bind: SocketAddr, config: dtls::Config, key: dtls::CertifiedKey) -> Self {
        let mut config = ServerConfig::psk(config, b"", b"");
        guard(&mut config);
        config.psk_store = None;
        config.certificate = Some(key);
        ServerOptions {
            bind,
            config,
            echo: true,
            seed: None,
            log: None,
        }
    }
}

/// A fresh P-256 key (from the operating system's randomness, or `seed`)
/// and a self-signed certificate for it with subject CN=`common_name`.
pub fn self_signed(common_name: &str, seed: Option<u64>) -> Result<dtls::CertifiedKey, Error> {
    use rand_core::Rng;
    let mut rng = rng_from(seed)?;
    loop {
        let mut k = vec![0u8; 32];
        rng.fill_bytes(&mut k);
        let key = dtls::Secret(k);
        // a random 256-bit string is a valid scalar with overwhelming odds
        if let Ok(cert) = dtls::crypto::ecc::self_signed_certificate(&key, common_name) {
            return Ok(dtls::CertifiedKey {
                chain: vec![cert],
                private_key: key,
            });
        }
    }
}

/// One completed handshake, whichever the version: `S` is the version's
/// suite ([`CipherSuite`] for 1.2; 1.3's in [`HandshakeRecord13`]).
#[derive(Clone, Debug)]
pub struct HandshakeRecord<S = CipherSuite> {
    /// Client address.
    pub peer: SocketAddr,
    /// Suite.
    pub cipher_suite: Option<S>,
    /// Connection IDs were negotiated (RFC 9146 for 1.2, RFC 9147 §9 for
    /// 1.3).
    pub cid_negotiated: bool,
    /// The handshake resumed an earlier session (1.2's abbreviated
    /// handshake, RFC 5246 §7.3).
    pub resumed: bool,
    /// Time from the hello with a valid cookie to the handshake's end: our
    /// Finished in 1.2, the client's Finished in 1.3.
    pub duration: Duration,
    /// Counters of the session at completion.
    pub stats: Stats,
    /// Session state size (bytes) at completion.
    pub session_state_bytes: usize,
}

/// What a peer can make grow without end, kept bounded: how many there
/// were in all, and the first [`Sample::LIMIT`] of them. (200 000
/// attacker-triggered session failures once made a report of 20 MB.)
#[derive(Clone, Debug)]
pub struct Sample<T> {
    /// How many were seen.
    pub total: u64,
    /// The first [`Sample::LIMIT`] seen.
    pub first: Vec<T>,
}

impl<T> Sample<T> {
    /// Items kept; enough to show what happened, small at any rate of input.
    pub const LIMIT: usize = 64;

    /// Count `item`, and keep it while fewer than [`Sample::LIMIT`] are kept.
    pub fn push(&mut self, item: T) {
        self.total += 1;
        if self.first.len() < Self::LIMIT {
            self.first.push(item);
        }
    }
}

// reads as the slice of what was kept (`len`, indexing, iteration)
impl<T> std::ops::Deref for Sample<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.first
    }
}

// equal to a list when it saw exactly that list: everything was kept
impl<T: PartialEq> PartialEq<Vec<T>> for Sample<T> {
    fn eq(&self, all: &Vec<T>) -> bool {
        self.total == all.len() as u64 && self.first == *all
    }
}

impl<T> Default for Sample<T> {
    fn default() -> Self {
        Sample {
            total: 0,
            first: Vec::new(),
        }
    }
}

/// What one server run measured, whichever the version: `H` is what is
/// kept of a completed handshake, `S` the endpoint's counters.
#[derive(Clone, Debug)]
pub struct ServerReport<H = HandshakeRecord, S = dtls::EndpointStats> {
    /// Address the server listened on.
    pub local_addr: Option<SocketAddr>,
    /// Completed handshakes.
    pub handshakes: Vec<H>,
    /// Sessions that failed, with the reason.
    pub failures: Sample<(SocketAddr, dtls::Error)>,
    /// Application data records received (peer, bytes).
    pub received: Sample<(SocketAddr, Vec<u8>)>,
    /// Records echoed.
    pub echoed: usize,
    /// Datagrams received.
    pub datagrams_received: u64,
    /// Datagrams sent.
    pub datagrams_sent: u64,
    /// UDP payload bytes received.
    pub bytes_received: u64,
    /// UDP payload bytes sent.
    pub bytes_sent: u64,
    /// Endpoint counters (1.2: HelloVerifyRequests, 1.3:
    /// HelloRetryRequests; refusals, drops).
    pub endpoint: S,
    /// When the first and the last application record arrived, from the
    /// loop's start: what a bulk transfer's delivered rate is measured over.
    pub data_span: Option<(Duration, Duration)>,
}

// by hand: a derived Default would ask a default handshake record too
impl<H, S: Default> Default for ServerReport<H, S> {
    fn default() -> Self {
        ServerReport {
            local_addr: None,
            handshakes: Vec::new(),
            failures: Sample::default(),
            received: Sample::default(),
            echoed: 0,
            datagrams_received: 0,
            datagrams_sent: 0,
            bytes_received: 0,
            bytes_sent: 0,
            endpoint: S::default(),
            data_span: None,
        }
    }
}

/// A bound server socket, ready to [`BoundServer::run`].
#[derive(Debug)]
pub struct BoundServer<C = ServerConfig> {
    sock: UdpSocket,
    opts: ServerOptions<C>,
}

impl ServerVersion for ServerConfig {
    type Suite = CipherSuite;
    type EndpointStats = dtls::EndpointStats;
    type Endpoint = Dtls12<ChaCha20Rng>;
    const VERSION: &'static str = "1.2";
    fn cipher_suite(conn: &Connection) -> Option<CipherSuite> {
        conn.cipher_suite()
    }
    fn suite_name(suite: &CipherSuite) -> &'static str {
        suite.name()
    }
    fn resumed(conn: &Connection) -> bool {
        conn.resumed()
    }
}

/// Bind the server socket (learn the port with [`BoundServer::local_addr`]).
pub fn bind_server<C: ServerVersion>(opts: &ServerOptions<C>) -> Result<BoundServer<C>, Error> {
    let sock = UdpSocket::bind(opts.bind)?;
    Ok(BoundServer {
        sock,
        opts: opts.clone(),
    })
}

/// Bind and run until `stop`.
pub fn run_server<C: ServerVersion>(
    opts: &ServerOptions<C>,
    stop: StopCondition,
) -> Result<ServerReportOf<C>, Error> {
    bind_server(opts)?.run(stop)
}

impl<C: ServerVersion> BoundServer<C> {
    /// The address the socket is bound to.
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(self.sock.local_addr()?)
    }

    /// Ask for a receive buffer of `bytes` (SO_RCVBUF, socket(7)); the
    /// size the kernel granted, which Linux doubles for its bookkeeping
    /// and caps at net.core.rmem_max. A bulk receiver slower than its
    /// sender loses what does not fit: UDP has no flow control.
    pub fn set_receive_buffer(&self, bytes: usize) -> Result<usize, Error> {
        use nix::sys::socket::{getsockopt, setsockopt, sockopt::RcvBuf};
        setsockopt(&self.sock, RcvBuf, &bytes).map_err(std::io::Error::from)?;
        Ok(getsockopt(&self.sock, RcvBuf).map_err(std::io::Error::from)?)
    }

    /// Serve until `stop`.
    pub fn run(self, stop: StopCondition) -> Result<ServerReportOf<C>, Error> {
        drive::run_server(&self.sock, &self.opts, &stop)
    }
}

/// Load a PEM (or DER) certificate file's bytes as DER.
pub fn certificate_der(bytes: &[u8]) -> Result<Vec<u8>, Error> {
    pem_or_der(bytes, &["CERTIFICATE"])
}

/// Load a P-256 private key (PKCS#8 "PRIVATE KEY" or SEC1 "EC PRIVATE KEY",
/// PEM or DER) as the 32-byte scalar.
pub fn private_key(bytes: &[u8]) -> Result<dtls::Secret, Error> {
    let der = pem_or_der(bytes, &["PRIVATE KEY", "EC PRIVATE KEY"])?;
    dtls::crypto::ecc::private_key_from_der(&der).map_err(|e| Error::Config(e.to_string()))
}

/// Load a public key (PEM "PUBLIC KEY" or DER) as its SubjectPublicKeyInfo
/// DER: what a raw-public-key peer (RFC 7250 §3) is pinned to.
pub fn public_key_der(bytes: &[u8]) -> Result<Vec<u8>, Error> {
    pem_or_der(bytes, &["PUBLIC KEY"])
}

fn pem_or_der(bytes: &[u8], labels: &[&str]) -> Result<Vec<u8>, Error> {
    let text = String::from_utf8_lossy(bytes);
    let Some(begin) = text.find("-----BEGIN ") else {
        return Ok(bytes.to_vec());
    };
    // Skip e.g. "EC PARAMETERS" blocks: find the first block with a wanted label.
    let mut rest = &text[begin..];
    loop {
        let label_end = rest[11..]
            .find("-----")
            .ok_or_else(|| Error::Config("bad PEM".into()))?
            + 11;
        let label = &rest[11..label_end];
        let end_marker = format!("-----END {label}-----");
        let end = rest
            .find(&end_marker)
            .ok_or_else(|| Error::Config("bad PEM".into()))?
            + end_marker.len();
        if labels.contains(&label) {
            let (_, der) = pem_rfc7468::decode_vec(&rest.as_bytes()[..end])
                .map_err(|e| Error::Config(format!("PEM: {e}")))?;
            return Ok(der);
        }
        rest = &rest[end..];
        match rest.find("-----BEGIN ") {
            Some(i) => rest = &rest[i..],
            None => return Err(Error::Config(format!("no {labels:?} block in PEM"))),
        }
    }
}

#[cfg(test)]
mod sample_tests {
    use super::Sample;

    #[test]
    fn a_sample_counts_everything_and_keeps_the_first() {
        let mut s = Sample::default();
        for i in 0..10_000u32 {
            s.push(i);
        }
        assert_eq!(s.total, 10_000);
        assert_eq!(s.len(), Sample::<u32>::LIMIT);
        assert_eq!(s[0], 0);
        assert_eq!(s[Sample::<u32>::LIMIT - 1], Sample::<u32>::LIMIT as u32 - 1);
    }
}
