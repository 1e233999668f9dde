//! A DTLS 1.3 client and server connection joined directly, for tests that
//! look at what goes on the wire.
#![allow(dead_code)]

use std::sync::Arc;

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::Session;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

pub const IDENTITY: &[u8] = b"Client_identity";
pub const PSK: &[u8] = &[9; 16];

/// A PSK handshake without cookie, every datagram delivered at once; both
/// connections and the datagrams on the wire in order.
pub fn handshake(client: Config13, server: Config13) -> (Connection13, Connection13, Vec<Vec<u8>>) {
    handshake_as(client, server, IDENTITY)
}

/// [`handshake`] with the PSK identity `identity`.
pub fn handshake_as(
    client: Config13,
    server: Config13,
    identity: &[u8],
) -> (Connection13, Connection13, Vec<Vec<u8>>) {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let mut s = ServerConfig13::psk(server, identity, PSK);
    s.require_cookie = false;
    let peer = "[fe80::1]:5684".parse().unwrap();
    let mut srv = Connection13::server(Arc::new(s), peer, &mut rng, 0).unwrap();
    let c = ClientConfig13::psk(client, identity, PSK);
    let mut cli = Connection13::client(Arc::new(c), &mut rng, 0).unwrap();
    let mut wire = Vec::new();
    for _ in 0..10 {
        while let Some(d) = cli.poll_transmit(0) {
            srv.handle_datagram(0, &d);
            wire.push(d);
        }
        while let Some(d) = srv.poll_transmit(0) {
            cli.handle_datagram(0, &d);
            wire.push(d);
        }
    }
    assert!(cli.is_established() && srv.is_established());
    (cli, srv, wire)
}
