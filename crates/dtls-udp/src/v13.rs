//! DTLS 1.3 (RFC 9147) over real UDP: the same wall-clock loops as the 1.2
//! driver, around [`Connection13`] and [`Server13`].
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

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dtls::v13::config::{ClientConfig13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::{EndpointStats13, Server13};
use dtls::v13::suite::CipherSuite13;
use dtls::{Alert, Event, Phase, Stats};

use super::{is_retry, micros, rng_from, send_retrying, Error, Sample, StopCondition};

/// Options of [`run_client13`].
#[derive(Clone, Debug)]
pub struct ClientOptions13 {
    /// Server address.
    pub server: SocketAddr,
    /// Local address to bind (default: unspecified address, port 0).
    pub bind: Option<SocketAddr>,
    /// DTLS 1.3 configuration (knobs and credentials).
    pub config: ClientConfig13,
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
}

impl ClientOptions13 {
    /// A client with `config`: one message, wait for one reply.
    pub fn new(server: SocketAddr, config: ClientConfig13) -> Self {
        ClientOptions13 {
            server,
            bind: None,
            config,
            messages: vec![b"hello from dtlsim".to_vec()],
            expect_replies: 1,
            handshake_timeout: Duration::from_secs(10),
            reply_timeout: Duration::from_secs(5),
            close: true,
            seed: None,
        }
    }
}

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
    let sock = UdpSocket::bind(bind)?;
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

    for m in &opts.messages {
        conn.send(m)?;
        report.messages_sent += 1;
    }
    flush(&sock, &mut conn)?;
    let reply_deadline = Instant::now() + opts.reply_timeout;
    while report.received.total < opts.expect_replies as u64 && Instant::now() < reply_deadline {
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
    if opts.close && !report.closed_by_peer {
        conn.close();
        flush(&sock, &mut conn)?;
    }
    report.stats = conn.stats().clone();
    Ok(report)
}

fn flush(sock: &UdpSocket, conn: &mut Connection13) -> Result<(), Error> {
    while let Some(d) = conn.poll_transmit(0) {
        send_retrying(|| sock.send(&d))?;
    }
    Ok(())
}

/// Wait for one datagram or the connection's next timer, whichever first.
fn recv_once(
    sock: &UdpSocket,
    conn: &mut Connection13,
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

/// Options of the DTLS 1.3 server loop.
#[derive(Clone, Debug)]
pub struct ServerOptions13 {
    /// Address to listen on (port 0: any free port).
    pub bind: SocketAddr,
    /// DTLS 1.3 configuration.
    pub config: ServerConfig13,
    /// Echo application data back to its sender.
    pub echo: bool,
    /// RNG seed (None: from the operating system).
    pub seed: Option<u64>,
}

/// One completed DTLS 1.3 handshake.
#[derive(Clone, Debug)]
pub struct HandshakeRecord13 {
    /// Client address.
    pub peer: SocketAddr,
    /// Suite.
    pub cipher_suite: Option<CipherSuite13>,
    /// Connection IDs were negotiated.
    pub cid_negotiated: bool,
    /// Time from the ClientHello with a valid cookie to the client's
    /// Finished.
    pub duration: Duration,
    /// Counters of the session at completion.
    pub stats: Stats,
    /// Session state size (bytes) at completion.
    pub session_state_bytes: usize,
}

/// What one DTLS 1.3 server run measured.
#[derive(Clone, Debug, Default)]
pub struct ServerReport13 {
    /// Address the server listened on.
    pub local_addr: Option<SocketAddr>,
    /// Completed handshakes.
    pub handshakes: Vec<HandshakeRecord13>,
    /// Sessions that failed, with the reason (counted, the first few kept:
    /// a peer cannot make the report grow, as with 1.2's).
    pub failures: Sample<(SocketAddr, dtls::Error)>,
    /// Application data received (peer, bytes): counted, the first few kept.
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
    /// Endpoint counters (HelloRetryRequests, refusals, drops).
    pub endpoint: EndpointStats13,
}

/// A bound DTLS 1.3 server socket, ready to [`BoundServer13::run`].
#[derive(Debug)]
pub struct BoundServer13 {
    sock: UdpSocket,
    opts: ServerOptions13,
}

/// Bind the server socket (learn the port with [`BoundServer13::local_addr`]).
pub fn bind_server13(opts: &ServerOptions13) -> Result<BoundServer13, Error> {
    let sock = UdpSocket::bind(opts.bind)?;
    Ok(BoundServer13 {
        sock,
        opts: opts.clone(),
    })
}

/// Bind and run until `stop`.
pub fn run_server13(opts: &ServerOptions13, stop: StopCondition) -> Result<ServerReport13, Error> {
    bind_server13(opts)?.run(stop)
}

impl BoundServer13 {
    /// The address the socket is bound to.
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        Ok(self.sock.local_addr()?)
    }

    /// Serve until `stop`.
    pub fn run(self, stop: StopCondition) -> Result<ServerReport13, Error> {
        let start = Instant::now();
        let rng = rng_from(self.opts.seed)?;
        let mut server = Server13::new(Arc::new(self.opts.config.clone()), rng, 0)?;
        let mut report = ServerReport13 {
            local_addr: Some(self.sock.local_addr()?),
            ..ServerReport13::default()
        };
        let mut ended = 0usize;
        let mut buf = vec![0u8; 65536];
        loop {
            while let Some(t) = server.poll_transmit(micros(start)) {
                report.datagrams_sent += 1;
                report.bytes_sent += t.payload.len() as u64;
                match send_retrying(|| self.sock.send_to(&t.payload, t.destination)) {
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {}
                    Err(e) => return Err(e.into()),
                }
            }
            let mut echo = Vec::new();
            while let Some((peer, ev)) = server.poll_event() {
                match ev {
                    Event::Connected => {
                        if let Some(c) = server.session(&peer) {
                            report.handshakes.push(HandshakeRecord13 {
                                peer,
                                cipher_suite: c.cipher_suite(),
                                cid_negotiated: c.cid_negotiated(),
                                duration: Duration::from_micros(
                                    c.handshake_duration_us().unwrap_or(0),
                                ),
                                stats: c.stats().clone(),
                                session_state_bytes: c.state_bytes(),
                            });
                        }
                    }
                    Event::ApplicationData(d) => {
                        if self.opts.echo {
                            echo.push((peer, d.clone()));
                        }
                        report.received.push((peer, d));
                    }
                    Event::Failed(e) => {
                        report.failures.push((peer, e));
                        ended += 1;
                    }
                    Event::Closed => ended += 1,
                    Event::AlertReceived(_) => {}
                }
            }
            let echoing = !echo.is_empty();
            for (peer, d) in echo {
                if server.send(peer, &d).is_ok() {
                    report.echoed += 1;
                }
            }
            if echoing {
                continue;
            }
            let done = stop.reached(start, report.handshakes.len(), ended, report.received.total);
            if done {
                break;
            }
            let now_us = micros(start);
            let mut wait = Duration::from_millis(50);
            if let Some(t) = server.poll_timeout() {
                wait = wait.min(Duration::from_micros(t.saturating_sub(now_us)));
            }
            if let Some(d) = stop.max_duration {
                wait = wait.min(d.saturating_sub(start.elapsed()));
            }
            self.sock
                .set_read_timeout(Some(wait.max(Duration::from_millis(1))))?;
            match self.sock.recv_from(&mut buf) {
                Ok((n, from)) => {
                    report.datagrams_received += 1;
                    report.bytes_received += n as u64;
                    server.handle_datagram(micros(start), from, &buf[..n]);
                }
                Err(e) if is_retry(&e) => {}
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {}
                Err(e) => return Err(e.into()),
            }
            server.handle_timeout(micros(start));
        }
        report.endpoint = server.stats().clone();
        Ok(report)
    }
}
