//! The wall-clock UDP loops both DTLS versions share: a client
//! connection's send and wait, and the whole server loop (send, events,
//! echo, stop, wait, receive, timers), each written once over a trait that
//! 1.2's and 1.3's sans-IO types implement alike. What differs between the
//! versions (their configurations, reports and endpoint counters) stays in
//! `lib.rs` and `v13.rs`.

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use std::sync::Arc;

use dtls::v13::config::ServerConfig13;
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::{EndpointStats13, Server13};
use dtls::{Connection, Event, Server, ServerConfig, Transmit};
use rand_core::CryptoRng;

use super::{
    is_retry, micros, rng_from, send_retrying, Error, HandshakeRecord, ServerOptions, ServerReport,
    StopCondition,
};

/// A client connection as the UDP loop drives it.
pub(crate) trait ClientConn {
    fn handle_datagram(&mut self, now: u64, datagram: &[u8]);
    fn poll_transmit(&mut self) -> Option<Vec<u8>>;
    fn poll_timeout(&self) -> Option<u64>;
    fn handle_timeout(&mut self, now: u64);
}

macro_rules! client_conn {
    ($t:ty) => {
        impl ClientConn for $t {
            fn handle_datagram(&mut self, now: u64, datagram: &[u8]) {
                <$t>::handle_datagram(self, now, datagram)
            }
            fn poll_transmit(&mut self) -> Option<Vec<u8>> {
                <$t>::poll_transmit(self, 0)
            }
            fn poll_timeout(&self) -> Option<u64> {
                <$t>::poll_timeout(self)
            }
            fn handle_timeout(&mut self, now: u64) {
                <$t>::handle_timeout(self, now)
            }
        }
    };
}
client_conn!(Connection);
client_conn!(Connection13);

/// Send every datagram the connection has queued.
pub(crate) fn flush(sock: &UdpSocket, conn: &mut impl ClientConn) -> Result<(), Error> {
    while let Some(d) = conn.poll_transmit() {
        send_retrying(|| sock.send(&d))?;
    }
    Ok(())
}

/// Wait for one datagram or the connection's next timer, whichever first.
pub(crate) fn recv_once(
    sock: &UdpSocket,
    conn: &mut impl ClientConn,
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

/// A server endpoint as the UDP loop drives it. `Handshake` is what the
/// report keeps of a session whose handshake completed, `Stats` the
/// endpoint's counters.
pub(crate) trait ServerEndpoint {
    type Handshake;
    type Stats: Default;
    fn handle_datagram(&mut self, now: u64, from: SocketAddr, datagram: &[u8]);
    fn poll_transmit(&mut self, now: u64) -> Option<Transmit>;
    fn poll_event(&mut self) -> Option<(SocketAddr, Event)>;
    fn poll_timeout(&self) -> Option<u64>;
    fn handle_timeout(&mut self, now: u64);
    fn send(&mut self, to: SocketAddr, data: &[u8]) -> Result<(), dtls::Error>;
    /// The record of the session with `peer`, just connected.
    fn handshake(&self, peer: SocketAddr) -> Option<Self::Handshake>;
    fn stats(&self) -> Self::Stats;
}

/// A DTLS version's server configuration, as the UDP server loop runs it:
/// [`dtls::ServerConfig`] (1.2) or `ServerConfig13` (1.3).
pub trait ServerVersion: Clone {
    /// What the report keeps of a completed handshake.
    type Handshake;
    /// The endpoint's counters.
    type EndpointStats: Default;
    /// Serve on `sock` with `opts` until `stop`: the one server loop, over
    /// this version's endpoint.
    fn serve(
        sock: &UdpSocket,
        opts: &ServerOptions<Self>,
        stop: &StopCondition,
    ) -> Result<ServerReport<Self::Handshake, Self::EndpointStats>, Error>;
}

macro_rules! server_endpoint {
    ($t:ident, $config:ty, $record:ty, $stats:ty) => {
        impl<R: CryptoRng> ServerEndpoint for $t<R> {
            type Handshake = $record;
            type Stats = $stats;
            fn handle_datagram(&mut self, now: u64, from: SocketAddr, datagram: &[u8]) {
                $t::handle_datagram(self, now, from, datagram)
            }
            fn poll_transmit(&mut self, now: u64) -> Option<Transmit> {
                $t::poll_transmit(self, now)
            }
            fn poll_event(&mut self) -> Option<(SocketAddr, Event)> {
                $t::poll_event(self)
            }
            fn poll_timeout(&self) -> Option<u64> {
                $t::poll_timeout(self)
            }
            fn handle_timeout(&mut self, now: u64) {
                $t::handle_timeout(self, now)
            }
            fn send(&mut self, to: SocketAddr, data: &[u8]) -> Result<(), dtls::Error> {
                $t::send(self, to, data)
            }
            fn handshake(&self, peer: SocketAddr) -> Option<$record> {
                self.session(&peer).map(|c| HandshakeRecord {
                    peer,
                    cipher_suite: c.cipher_suite(),
                    cid_negotiated: c.cid_negotiated(),
                    duration: Duration::from_micros(c.handshake_duration_us().unwrap_or(0)),
                    stats: c.stats().clone(),
                    session_state_bytes: c.state_bytes(),
                })
            }
            fn stats(&self) -> $stats {
                $t::stats(self).clone()
            }
        }

        impl ServerVersion for $config {
            type Handshake = $record;
            type EndpointStats = $stats;
            fn serve(
                sock: &UdpSocket,
                opts: &ServerOptions<Self>,
                stop: &StopCondition,
            ) -> Result<ServerReport<$record, $stats>, Error> {
                let start = Instant::now();
                let rng = rng_from(opts.seed)?;
                let mut server = $t::new(Arc::new(opts.config.clone()), rng, 0)?;
                serve(sock, &mut server, opts.echo, stop, start)
            }
        }
    };
}
server_endpoint!(
    Server,
    ServerConfig,
    super::HandshakeRecord,
    dtls::EndpointStats
);
server_endpoint!(
    Server13,
    ServerConfig13,
    super::HandshakeRecord13,
    EndpointStats13
);

/// Serve on `sock` until `stop`: send what the endpoint queued, record its
/// events (echoing application data when `echo`), then wait for a datagram
/// or the next timer, at most 50 ms so the stop flag is seen.
pub(crate) fn serve<E: ServerEndpoint>(
    sock: &UdpSocket,
    server: &mut E,
    echo: bool,
    stop: &StopCondition,
    start: Instant,
) -> Result<ServerReport<E::Handshake, E::Stats>, Error> {
    let mut out = ServerReport {
        local_addr: Some(sock.local_addr()?),
        ..ServerReport::default()
    };
    let mut ended = 0usize;
    let mut buf = vec![0u8; 65536];
    loop {
        while let Some(t) = server.poll_transmit(micros(start)) {
            out.datagrams_sent += 1;
            out.bytes_sent += t.payload.len() as u64;
            match send_retrying(|| sock.send_to(&t.payload, t.destination)) {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {}
                Err(e) => return Err(e.into()),
            }
        }
        let mut echoes = Vec::new();
        while let Some((peer, ev)) = server.poll_event() {
            match ev {
                Event::Connected => out.handshakes.extend(server.handshake(peer)),
                Event::ApplicationData(d) => {
                    if echo {
                        echoes.push((peer, d.clone()));
                    }
                    out.received.push((peer, d));
                }
                Event::Failed(e) => {
                    out.failures.push((peer, e));
                    ended += 1;
                }
                Event::Closed => ended += 1,
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
            out.endpoint = server.stats();
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
                server.handle_datagram(micros(start), from, &buf[..n]);
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
pub(crate) fn message_phases(
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
pub(crate) fn rebind(bind: SocketAddr, server: SocketAddr) -> Result<UdpSocket, Error> {
    let sock = UdpSocket::bind(bind)?;
    sock.connect(server)?;
    Ok(sock)
}
