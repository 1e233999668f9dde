//! One unauthenticated datagram from the client's address must not end an
//! established DTLS 1.3 session. After the handshake
//! only protected records count: a plaintext ClientHello or ServerHello,
//! a ClientHello fragment longer than the reassembly bound, or fragments
//! that disagree with each other are invalid records, discarded (RFC 9147
//! §4.5.2), not a reason to alert and drop the session.

use std::net::SocketAddr;
use std::sync::Arc;

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::Server13;
use dtls::{Event, Session};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const IDENTITY: &[u8] = b"Client_identity";
const PSK: &[u8] = &[7; 16];

fn peer() -> SocketAddr {
    "[fe80::1]:5684".parse().unwrap()
}

/// A client established with a cookie-checking `Server13`.
fn established() -> (Connection13, Server13<ChaCha20Rng>) {
    let s = ServerConfig13::psk(Config13::default(), IDENTITY, PSK);
    let mut server = Server13::new(Arc::new(s), ChaCha20Rng::seed_from_u64(1), 0).unwrap();
    let c = ClientConfig13::psk(Config13::default(), IDENTITY, PSK);
    let mut client =
        Connection13::client(Arc::new(c), &mut ChaCha20Rng::seed_from_u64(2), 0).unwrap();
    for _ in 0..10 {
        while let Some(d) = client.poll_transmit(0) {
            server.handle_datagram(0, peer(), &d);
        }
        while let Some(t) = server.poll_transmit(0) {
            client.handle_datagram(0, &t.payload);
        }
    }
    assert!(client.is_established());
    assert!(server.session(&peer()).is_some_and(|s| s.is_established()));
    while client.poll_event().is_some() {}
    while server.poll_event().is_some() {}
    (client, server)
}

/// A DTLSPlaintext handshake record (RFC 9147 §4): type 22, legacy version
/// {254, 253}, epoch 0, sequence number `seq`, holding one fragment.
fn plaintext_fragment(
    seq: u8,
    msg_type: u8,
    length: u32,
    message_seq: u16,
    offset: u32,
    body: &[u8],
) -> Vec<u8> {
    let mut fragment = vec![msg_type];
    fragment.extend_from_slice(&length.to_be_bytes()[1..]);
    fragment.extend_from_slice(&message_seq.to_be_bytes());
    fragment.extend_from_slice(&offset.to_be_bytes()[1..]);
    fragment.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
    fragment.extend_from_slice(body);
    let mut r = vec![22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, seq];
    r.extend_from_slice(&(fragment.len() as u16).to_be_bytes());
    r.extend_from_slice(&fragment);
    r
}

/// The unauthenticated datagrams a spoofer at the client's address tried
/// (message_seq 0 to 5 covers whatever the session expects next).
fn forged() -> Vec<(&'static str, Vec<Vec<u8>>)> {
    let hello_like = vec![0xAB; 60];
    let mut cases = Vec::new();
    for message_seq in 0..6u16 {
        cases.push((
            "plaintext ServerHello",
            vec![plaintext_fragment(20, 2, 60, message_seq, 0, &hello_like)],
        ));
        cases.push((
            "plaintext ClientHello",
            vec![plaintext_fragment(21, 1, 60, message_seq, 0, &hello_like)],
        ));
        cases.push((
            "ClientHello fragment over 8 KB",
            vec![plaintext_fragment(22, 1, 9000, message_seq, 0, &[1; 100])],
        ));
        cases.push((
            "inconsistent fragments",
            vec![
                plaintext_fragment(23, 1, 300, message_seq, 0, &[1; 100]),
                plaintext_fragment(24, 1, 400, message_seq, 100, &[1; 100]),
            ],
        ));
    }
    cases
}

#[test]
fn no_plaintext_datagram_ends_an_established_session_at_the_server() {
    for (what, datagrams) in forged() {
        let (mut client, mut server) = established();
        for d in &datagrams {
            server.handle_datagram(1, peer(), d);
        }
        let sent: Vec<_> = std::iter::from_fn(|| server.poll_transmit(1)).collect();
        let events: Vec<_> = std::iter::from_fn(|| server.poll_event()).collect();
        assert!(
            server.session(&peer()).is_some_and(|s| s.is_established()),
            "{what}: session gone ({events:?}, {} datagram(s) sent)",
            sent.len()
        );
        assert!(
            !events.iter().any(|(_, e)| matches!(e, Event::Failed(_))),
            "{what}: {events:?}"
        );
        // still carries data
        client.send(b"still here").unwrap();
        while let Some(d) = client.poll_transmit(2) {
            server.handle_datagram(2, peer(), &d);
        }
        assert!(
            std::iter::from_fn(|| server.poll_event())
                .any(|(_, e)| matches!(e, Event::ApplicationData(ref d) if d == b"still here")),
            "{what}: no data after it"
        );
    }
}

#[test]
fn no_plaintext_datagram_ends_an_established_session_at_the_client() {
    for (what, datagrams) in forged() {
        let (mut client, _server) = established();
        for d in &datagrams {
            client.handle_datagram(1, d);
        }
        let events: Vec<_> = std::iter::from_fn(|| client.poll_event()).collect();
        assert!(client.is_established(), "{what}: {events:?}");
        assert!(
            !events.iter().any(|e| matches!(e, Event::Failed(_))),
            "{what}: {events:?}"
        );
    }
}

#[test]
fn a_forged_plaintext_message_does_not_poison_the_handshake_under_way() {
    // server without cookie: ClientHello is message 0, the client's
    // Finished message 1
    let mut s = ServerConfig13::psk(Config13::default(), IDENTITY, PSK);
    s.require_cookie = false;
    let mut server = Server13::new(Arc::new(s), ChaCha20Rng::seed_from_u64(1), 0).unwrap();
    let c = ClientConfig13::psk(Config13::default(), IDENTITY, PSK);
    let mut client =
        Connection13::client(Arc::new(c), &mut ChaCha20Rng::seed_from_u64(2), 0).unwrap();
    let hello = client.poll_transmit(0).unwrap();
    server.handle_datagram(0, peer(), &hello);
    while let Some(t) = server.poll_transmit(0) {
        client.handle_datagram(0, &t.payload);
    }
    assert!(client.is_established());
    // a spoofer gets in first with message 1 in plaintext, of each kind
    for forged in [
        plaintext_fragment(30, 2, 60, 1, 0, &[0xAB; 60]),
        plaintext_fragment(31, 1, 300, 1, 0, &[1; 100]),
    ] {
        server.handle_datagram(1, peer(), &forged);
    }
    while let Some(d) = client.poll_transmit(1) {
        server.handle_datagram(1, peer(), &d);
    }
    let events: Vec<_> = std::iter::from_fn(|| server.poll_event()).collect();
    assert!(
        server.session(&peer()).is_some_and(|s| s.is_established()),
        "{events:?}"
    );
}
