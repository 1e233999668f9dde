//! DTLS 1.2 or DTLS 1.3: the one place that knows which stack a node runs.
//!
//! Both stacks share the sans-IO surface (datagrams in, datagrams out, a
//! retransmission deadline, events, [`Stats`] with the operations to
//! charge), so the applications drive a [`Conn`] or an [`Endpoint`] and
//! never ask which version is underneath.

use std::net::SocketAddr;
use std::sync::Arc;

use dtls::v13::config::{ClientConfig13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::Server13;
use dtls::{ClientConfig, Connection, CryptoOps, Event, Server, ServerConfig, Stats, Transmit};
use rand_chacha::ChaCha8Rng;

use crate::Time;

/// A client's configuration, in the version it speaks.
#[derive(Debug, Clone)]
pub enum ClientSetup {
    V12(Arc<ClientConfig>),
    V13(Arc<ClientConfig13>),
}

/// A server's configuration, in the version it speaks.
#[derive(Debug, Clone)]
pub enum ServerSetup {
    V12(Arc<ServerConfig>),
    V13(Arc<ServerConfig13>),
}

impl From<ClientConfig> for ClientSetup {
    fn from(c: ClientConfig) -> Self {
        ClientSetup::V12(Arc::new(c))
    }
}

impl From<ClientConfig13> for ClientSetup {
    fn from(c: ClientConfig13) -> Self {
        ClientSetup::V13(Arc::new(c))
    }
}

impl From<ServerConfig> for ServerSetup {
    fn from(c: ServerConfig) -> Self {
        ServerSetup::V12(Arc::new(c))
    }
}

impl From<ServerConfig13> for ServerSetup {
    fn from(c: ServerConfig13) -> Self {
        ServerSetup::V13(Arc::new(c))
    }
}

/// A client connection of either version.
pub(super) enum Conn {
    V12(Box<Connection>),
    V13(Box<Connection13>),
}

/// `$body` with `$c` bound to the connection, whichever version it is.
macro_rules! either {
    ($self:expr, $c:ident => $body:expr) => {
        match $self {
            Conn::V12($c) => $body,
            Conn::V13($c) => $body,
        }
    };
}

impl Conn {
    /// A client whose first flight is queued.
    pub(super) fn client(
        setup: &ClientSetup,
        rng: &mut ChaCha8Rng,
        now: Time,
    ) -> Result<Self, dtls::Error> {
        Ok(match setup {
            ClientSetup::V12(c) => Conn::V12(Box::new(Connection::client(c.clone(), rng, now)?)),
            ClientSetup::V13(c) => Conn::V13(Box::new(Connection13::client(c.clone(), rng, now)?)),
        })
    }

    /// Whether the handshake is over for both sides as far as this client
    /// can know. DTLS 1.2: once connected (the server's Finished is the
    /// last message). DTLS 1.3: the client connects on sending its
    /// Finished, which it resends until the server's ACK (RFC 9147 section
    /// 5.8.3) — over only when no retransmission is pending.
    pub(super) fn peer_has_final_flight(&self) -> bool {
        match self {
            Conn::V12(_) => true,
            Conn::V13(c) => c.poll_timeout().is_none(),
        }
    }

    pub(super) fn stats(&self) -> &Stats {
        either!(self, c => c.stats())
    }

    /// The state for a trace (`WaitServerHello`, …, `Connected`).
    pub(super) fn state_name(&self) -> &'static str {
        either!(self, c => c.state_name())
    }

    pub(super) fn handle_datagram(&mut self, now: Time, datagram: &[u8]) {
        either!(self, c => c.handle_datagram(now, datagram))
    }

    pub(super) fn poll_transmit(&mut self, now: Time) -> Option<Vec<u8>> {
        either!(self, c => c.poll_transmit(now))
    }

    pub(super) fn poll_timeout(&self) -> Option<Time> {
        either!(self, c => c.poll_timeout())
    }

    pub(super) fn handle_timeout(&mut self, now: Time) {
        either!(self, c => c.handle_timeout(now))
    }

    pub(super) fn poll_event(&mut self) -> Option<Event> {
        either!(self, c => c.poll_event())
    }

    pub(super) fn send(&mut self, data: &[u8]) -> Result<(), dtls::Error> {
        either!(self, c => c.send(data))
    }

    pub(super) fn close(&mut self) {
        either!(self, c => c.close())
    }
}

/// A server endpoint (many peers) of either version.
pub(super) enum Endpoint {
    V12(Box<Server<ChaCha8Rng>>),
    V13(Box<Server13<ChaCha8Rng>>),
}

macro_rules! either_endpoint {
    ($self:expr, $s:ident => $body:expr) => {
        match $self {
            Endpoint::V12($s) => $body,
            Endpoint::V13($s) => $body,
        }
    };
}

impl Endpoint {
    pub(super) fn new(setup: &ServerSetup, rng: ChaCha8Rng) -> Result<Self, dtls::Error> {
        Ok(match setup {
            ServerSetup::V12(c) => Endpoint::V12(Box::new(Server::new(c.clone(), rng, 0)?)),
            ServerSetup::V13(c) => Endpoint::V13(Box::new(Server13::new(c.clone(), rng, 0)?)),
        })
    }

    /// The 1.2 endpoint, for what only 1.2 has (the sessions workload's
    /// slot table reads its sessions' phases).
    pub(super) fn v12(&self) -> Option<&Server<ChaCha8Rng>> {
        match self {
            Endpoint::V12(s) => Some(s),
            Endpoint::V13(_) => None,
        }
    }

    /// Operations of the endpoint and every session so far.
    pub(super) fn crypto_total(&self) -> CryptoOps {
        either_endpoint!(self, s => s.crypto_total())
    }

    /// The session with `peer`, as a trace sees it: what it counted and
    /// the state it is in (None: the endpoint holds no session there).
    pub(super) fn session_view(&self, peer: &SocketAddr) -> Option<(&Stats, &'static str)> {
        match self {
            Endpoint::V12(s) => s.session(peer).map(|c| (c.stats(), c.state_name())),
            Endpoint::V13(s) => s.session(peer).map(|c| (c.stats(), c.state_name())),
        }
    }

    /// The peers the endpoint holds a session with.
    pub(super) fn peers(&self) -> Vec<SocketAddr> {
        either_endpoint!(self, s => s.peers().copied().collect())
    }

    pub(super) fn handle_datagram(&mut self, now: Time, from: SocketAddr, datagram: &[u8]) {
        either_endpoint!(self, s => s.handle_datagram(now, from, datagram))
    }

    pub(super) fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        either_endpoint!(self, s => s.poll_transmit(now))
    }

    pub(super) fn poll_timeout(&self) -> Option<Time> {
        either_endpoint!(self, s => s.poll_timeout())
    }

    pub(super) fn handle_timeout(&mut self, now: Time) {
        either_endpoint!(self, s => s.handle_timeout(now))
    }

    pub(super) fn poll_event(&mut self) -> Option<(SocketAddr, Event)> {
        either_endpoint!(self, s => s.poll_event())
    }

    pub(super) fn send(&mut self, to: SocketAddr, data: &[u8]) -> Result<(), dtls::Error> {
        either_endpoint!(self, s => s.send(to, data))
    }

    pub(super) fn close(&mut self, peer: SocketAddr) {
        either_endpoint!(self, s => s.close(peer))
    }
}

#[cfg(test)]
mod tests {
    //! Malformed and truncated DTLS 1.3 records at a simulated node: the
    //! stack counts and drops them, never panics.

    use std::net::{IpAddr, Ipv6Addr};

    use dtls::v13::config::Config13;
    use rand::SeedableRng;

    use super::*;

    const PSK: &[u8] = &[7; 16];

    /// Not DTLS, cut to its first byte, cut in half, 300 bytes of 0xff.
    fn cut(good: &[u8]) -> Vec<Vec<u8>> {
        vec![
            vec![0x2f; 5],
            good[..1].to_vec(),
            good[..good.len() / 2].to_vec(),
            vec![0xff; 300],
        ]
    }

    #[test]
    fn malformed_records_are_counted_and_dropped() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let client = ClientSetup::from(ClientConfig13::psk(Config13::psk_ccm8(), b"c", PSK));
        let server = ServerSetup::from(ServerConfig13::psk(Config13::psk_ccm8(), b"c", PSK));
        let mut c = Conn::client(&client, &mut rng, 0).unwrap();
        let hello = c.poll_transmit(0).unwrap();
        let mut s = Endpoint::new(&server, ChaCha8Rng::seed_from_u64(2)).unwrap();
        let peer = SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), 5684);
        // (a ClientHello has no integrity check: a flipped bit in it may
        // make another well-formed hello, so it is cut here)
        for bad in cut(&hello) {
            s.handle_datagram(1, peer, &bad);
        }
        // nothing answers a record that does not parse
        assert!(s.poll_transmit(1).is_none());
        // the server's first flight to the real ClientHello, then the
        // client's share of garbage
        s.handle_datagram(2, peer, &hello);
        let flight = s.poll_transmit(2).expect("the server answers").payload;
        let before = c.stats().records_dropped;
        // the flight's encrypted records fail authentication when flipped
        let mut flipped = flight.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 0x5a;
        for bad in cut(&flight).into_iter().chain([flipped]) {
            c.handle_datagram(3, &bad);
        }
        assert!(c.stats().records_dropped > before);
        assert!(c.poll_event().is_none(), "no handshake event from garbage");
    }
}
