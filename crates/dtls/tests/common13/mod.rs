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

/// Hand every datagram `from` has for now to `to`; how many.
pub fn deliver(from: &mut Connection13, to: &mut Connection13, now: u64) -> usize {
    let mut n = 0;
    while let Some(d) = from.poll_transmit(now) {
        to.handle_datagram(now, &d);
        n += 1;
    }
    n
}

/// Exchange datagrams both ways until neither side has any (at most 10 rounds).
pub fn settle(a: &mut Connection13, b: &mut Connection13, now: u64) {
    for _ in 0..10 {
        if deliver(a, b, now) + deliver(b, a, now) == 0 {
            return;
        }
    }
}
