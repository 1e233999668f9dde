//! The client's Finished is lost and its first application data, sent
//! right after it, reaches the server first (experiment
//! 7's relay dropping the client's third datagram). Before, the server
//! (still waiting for the Finished) discarded the epoch-3 record, and the
//! echo never came. The server now keeps a bounded number of next-epoch
//! records until the Finished is verified, as 1.2 does for its next epoch
//! (RFC 6347 §4.1), and the client's own timer resends its Finished until
//! the server acknowledges it (RFC 9147 §5.8.4, §7.1).

use std::sync::Arc;

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::{Event, Session};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const IDENTITY: &[u8] = b"Client_identity";
const PSK: &[u8] = &[7; 16];

fn pair() -> (Connection13, Connection13) {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let mut s = ServerConfig13::psk(Config13::default(), IDENTITY, PSK);
    s.require_cookie = false;
    let peer = "[fe80::1]:5684".parse().unwrap();
    let server = Connection13::server(Arc::new(s), peer, &mut rng, 0).unwrap();
    let c = ClientConfig13::psk(Config13::default(), IDENTITY, PSK);
    let client = Connection13::client(Arc::new(c), &mut rng, 0).unwrap();
    (client, server)
}

#[test]
fn data_sent_after_a_lost_finished_is_delivered_once_the_finished_arrives() {
    let (mut client, mut server) = pair();
    let hello = client.poll_transmit(0).unwrap();
    server.handle_datagram(0, &hello);
    while let Some(d) = server.poll_transmit(0) {
        client.handle_datagram(0, &d);
    }
    assert!(client.is_established());
    // the client's Finished is lost; its data right after it arrives
    let finished: Vec<_> = std::iter::from_fn(|| client.poll_transmit(0)).collect();
    assert!(!finished.is_empty());
    client.send(b"first").unwrap();
    let data = client.poll_transmit(0).unwrap();
    server.handle_datagram(10, &data);
    assert!(!server.is_established());
    // the client's own timer resends its Finished (the server's
    // retransmission of its flight is lost too)
    let at = client
        .poll_timeout()
        .expect("the client's timer runs until the ACK");
    client.handle_timeout(at);
    let resent: Vec<_> = std::iter::from_fn(|| client.poll_transmit(at)).collect();
    assert!(!resent.is_empty(), "the client resent its Finished");
    for d in &resent {
        server.handle_datagram(at, d);
    }
    assert!(server.is_established());
    let events: Vec<_> = std::iter::from_fn(|| server.poll_event()).collect();
    let got: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::ApplicationData(d) => Some(d.as_slice()),
            _ => None,
        })
        .collect();
    assert_eq!(got, [b"first".as_slice()], "{events:?}");
    // the ACK of the Finished stops the client's timer
    while let Some(d) = server.poll_transmit(at) {
        client.handle_datagram(at, &d);
    }
    assert_eq!(client.poll_timeout(), None);
}

#[test]
fn the_server_keeps_only_a_bounded_number_of_early_records() {
    let (mut client, mut server) = pair();
    let hello = client.poll_transmit(0).unwrap();
    server.handle_datagram(0, &hello);
    while let Some(d) = server.poll_transmit(0) {
        client.handle_datagram(0, &d);
    }
    let finished: Vec<_> = std::iter::from_fn(|| client.poll_transmit(0)).collect();
    for i in 0..100u8 {
        client.send(&[i; 100]).unwrap();
        let d = client.poll_transmit(0).unwrap();
        server.handle_datagram(1, &d);
    }
    for d in &finished {
        server.handle_datagram(2, d);
    }
    assert!(server.is_established());
    let delivered = std::iter::from_fn(|| server.poll_event())
        .filter(|e| matches!(e, Event::ApplicationData(_)))
        .count();
    assert_eq!(delivered, 8, "at most 8 records kept, as 1.2 keeps");
}
