//! DTLS 1.3 (RFC 9147) over real UDP: the same wall-clock loops as the 1.2
//! driver, around [`Connection13`] and [`Server13`](dtls::v13::endpoint::Server13).
//!
//! - [`run_client13`]: connect, handshake, send messages, collect replies,
//!   close; returns a [`ClientReport13`].
//! - [`bind_server13`] / [`BoundServer13::run`] (or [`run_server13`]):
//!   accept sessions, echo application data (optional), stop on a
//!   [`StopCondition`]; returns a [`ServerReport13`].
//!
//! The reports have the 1.2 reports' fields where 1.3 has the same thing;
//! the suite is a 1.3 suite and the endpoint counters are 1.3's
//! (HelloRetryRequests instead of HelloVerifyRequests).

use std::net::UdpSocket;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dtls::v13::config::{ClientConfig13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::EndpointStats13;
use dtls::v13::suite::CipherSuite13;
use dtls::{Alert, Event, Phase, Stats};

use super::drive::{flush, message_phases, rebind, recv_once};
use super::{
    bind_server, rng_from, run_server, BoundServer, ClientOptions, Error, HandshakeRecord, Sample,
    ServerOptions, ServerReport, StopCondition,
};

/// Options of [`run_client13`].
pub type ClientOptions13 = ClientOptions<ClientConfig13>;

/// What one DTLS 1.3 client run measured.
#[derive(Clone, Debug, Default)]
pub struct ClientReport13 {
    /// Negotiated suite.
    pub cipher_suite: Option<CipherSuite13>,
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
    /// waited for came.
    pub closed_by_peer: bool,
    /// All counters at the end (crypto operations, bytes per message kind).
    pub stats: Stats,
    /// Session state size (bytes) once established.
    pub session_state_bytes: usize,
}

/// Connect to a DTLS 1.3 server, handshake, send `messages`, wait for
/// `expect_replies` application records, close.
pub fn run_client13(opts: &ClientOptions13) -> Result<ClientReport13, Error> {
    let bind = opts.bind.unwrap_or(if opts.server.is_ipv4() {
        "0.0.0.0:0".parse().expect("literal")
    } else {
        "[::]:0".parse().expect("literal")
    });
    let mut sock = UdpSocket::bind(bind)?;
    sock.connect(opts.server)?;
    let start = Instant::now();
    let mut rng = rng_from(opts.seed)?;
    let mut conn = Connection13::client(Arc::new(opts.config.clone()), &mut rng, 0)?;
    let mut report = ClientReport13::default();
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
                Event::ApplicationData(d) => report.received.push(d),
                Event::AlertReceived(a) => report.alert_received = Some(a),
                Event::Closed => report.closed_by_peer = true,
                Event::Connected => {}
            }
        }
        if conn.is_established() {
            break;
        }
        if conn.phase() != Phase::Handshaking {
            // said as what it was: the peer's close_notify or alert
            return Err(Error::Dtls(match report.alert_received {
                _ if report.closed_by_peer => dtls::Error::ClosedByPeer,
                Some(a) => dtls::Error::AlertReceived(a.description),
                None => dtls::Error::NotConnected,
            }));
        }
        if Instant::now() >= hs_deadline {
            return Err(Error::HandshakeTimeout);
        }
        recv_once(&sock, &mut conn, start, hs_deadline, &mut buf)?;
    }
    let hs = conn.stats().clone();
    report.cipher_suite = conn.cipher_suite();
    report.cid_negotiated = conn.cid_negotiated();
    report.handshake_time = Duration::from_micros(conn.handshake_duration_us().unwrap_or(0));
    report.handshake_datagrams_sent = hs.datagrams_sent;
    report.handshake_datagrams_received = hs.datagrams_received;
    report.handshake_bytes_sent = hs.bytes_sent;
    report.handshake_bytes_received = hs.bytes_received;
    report.retransmissions = hs.retransmissions;
    report.session_state_bytes = conn.state_bytes();

    // Application data: all of it from one socket, or the first messages
    // from this one and the rest from a new one.
    let reply_deadline = Instant::now() + opts.reply_timeout;
    let phases = message_phases(
        &opts.messages,
        opts.expect_replies,
        opts.rebind_after_replies,
    );
    for (i, (messages, wanted)) in phases.into_iter().enumerate() {
        if i > 0 {
            sock = rebind(bind, opts.server)?;
        }
        for m in messages {
            conn.send(m)?;
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
                    Event::Failed(e) => return Err(Error::Dtls(e)),
                    Event::AlertReceived(a) => report.alert_received = Some(a),
                    Event::Closed => report.closed_by_peer = true,
                    Event::Connected => {}
                }
            }
            if !conn.is_established() {
                break;
            }
        }
    }
    if opts.close && !report.closed_by_peer {
        conn.close();
        flush(&sock, &mut conn)?;
    }
    report.stats = conn.stats().clone();
    Ok(report)
}

/// Options of the DTLS 1.3 server loop.
pub type ServerOptions13 = ServerOptions<ServerConfig13>;

/// One completed DTLS 1.3 handshake.
pub type HandshakeRecord13 = HandshakeRecord<CipherSuite13>;

/// What one DTLS 1.3 server run measured: the 1.2 report's fields, with
/// 1.3's handshake records and endpoint counters (HelloRetryRequests
/// instead of HelloVerifyRequests).
pub type ServerReport13 = ServerReport<HandshakeRecord13, EndpointStats13>;

/// A bound DTLS 1.3 server socket, ready to [`BoundServer::run`].
pub type BoundServer13 = BoundServer<ServerConfig13>;

/// Bind the DTLS 1.3 server socket: [`bind_server`] for 1.3.
pub fn bind_server13(opts: &ServerOptions13) -> Result<BoundServer13, Error> {
    bind_server(opts)
}

/// Bind and run a DTLS 1.3 server until `stop`: [`run_server`] for 1.3.
pub fn run_server13(opts: &ServerOptions13, stop: StopCondition) -> Result<ServerReport13, Error> {
    run_server(opts, stop)
}
