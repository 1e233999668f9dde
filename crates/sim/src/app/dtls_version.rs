//! DTLS 1.2 or DTLS 1.3: the one place that knows which stack a node runs.
//!
//! Both stacks implement [`dtls::Session`] (datagrams in, datagrams out, a
//! retransmission deadline, events, [`dtls::Stats`] with the operations to
//! charge) and their endpoints are one [`dtls::Endpoint`] over their
//! version's part, so a client drives a `Box<dyn Session>` and a server is
//! generic over the version; neither asks which one is underneath.

use dtls::error::ConfigError;
use dtls::netq::NetqPool;
use std::sync::Arc;

use dtls::v12::endpoint::Dtls12;
use dtls::v13::config::{ClientConfig13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::Dtls13;
use dtls::{ClientConfig, Connection, ServerConfig, Session};
use rand_chacha::ChaCha8Rng;

use super::dtls::{DtlsServer, ServerParams};
use super::record::Record;
use crate::node::app::App;
use crate::{NodeId, Time};

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

/// A mote's own tinyDTLS buffers (see [`dtls::netq`]) when `config` runs
/// tinyDTLS's policy: the tinyDTLS of the reference measurements (0.8.2)
/// keeps its retransmission and reorder buffers in one pool per mote,
/// `NETQ_MAXCNT` nodes (netq.h: 5 with ECC compiled in, 3 in a PSK-only
/// build), so each node gets a pool of its own.
fn own_buffers(config: &dtls::Config) -> Option<dtls::Config> {
    if !matches!(config.retransmit, dtls::RetransmitPolicy::Tinydtls { .. }) {
        return None;
    }
    let ecc = config.cipher_suites.iter().any(|s| !s.is_psk());
    let nodes = if ecc {
        NetqPool::ECC_NODES
    } else {
        NetqPool::PSK_NODES
    };
    Some(dtls::Config {
        netq: Some(NetqPool::new(nodes)),
        ..config.clone()
    })
}

impl ClientSetup {
    /// The setup for one node: with its own tinyDTLS buffers (see
    /// `own_buffers`).
    pub(super) fn for_node(&self) -> ClientSetup {
        match self {
            ClientSetup::V12(c) => match own_buffers(&c.config) {
                Some(config) => ClientSetup::V12(Arc::new(ClientConfig {
                    config,
                    ..(**c).clone()
                })),
                None => self.clone(),
            },
            ClientSetup::V13(_) => self.clone(),
        }
    }

    /// A client connection of the setup's version, its first flight queued.
    pub(super) fn connect(
        &self,
        rng: &mut ChaCha8Rng,
        now: Time,
    ) -> Result<Box<dyn Session>, dtls::Error> {
        Ok(match self {
            ClientSetup::V12(c) => Box::new(Connection::client(c.clone(), rng, now)?),
            ClientSetup::V13(c) => Box::new(Connection13::client(c.clone(), rng, now)?),
        })
    }
}

/// The DTLS server app at `node`, over the endpoint of `p.config`'s
/// version.
pub(crate) fn server_app(
    p: ServerParams,
    node: NodeId,
) -> Result<Box<dyn App<Record>>, dtls::Error> {
    Ok(match &p.config {
        ServerSetup::V12(c) => {
            let c = match own_buffers(&c.config) {
                Some(config) => Arc::new(ServerConfig {
                    config,
                    ..(**c).clone()
                }),
                None => c.clone(),
            };
            Box::new(DtlsServer::<Dtls12<ChaCha8Rng>>::new(c, p, node)?)
        }
        ServerSetup::V13(_) if p.slots.is_some() => {
            return Err(dtls::Error::Config(ConfigError::SessionTableWithDtls13))
        }
        ServerSetup::V13(c) => {
            let c = c.clone();
            Box::new(DtlsServer::<Dtls13<ChaCha8Rng>>::new(c, p, node)?)
        }
    })
}

#[cfg(test)]
mod tests {
    //! Malformed and truncated DTLS 1.3 records at a simulated node: the
    //! stack counts and drops them, never panics.

    use std::net::{IpAddr, Ipv6Addr, SocketAddr};

    use dtls::v13::config::Config13;
    use dtls::v13::endpoint::Server13;
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
        let server = Arc::new(ServerConfig13::psk(Config13::psk_ccm8(), b"c", PSK));
        let mut c = client.connect(&mut rng, 0).unwrap();
        let hello = c.poll_transmit(0).unwrap();
        let mut s = Server13::new(server, ChaCha8Rng::seed_from_u64(2), 0).unwrap();
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
