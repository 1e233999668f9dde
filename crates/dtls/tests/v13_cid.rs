//! DTLS 1.3 connection IDs (RFC 9146 §3, RFC 9147 §9): negotiation in
//! both directions (zero-length included), CIDs on the wire, a peer that
//! changes address keeping its session at the endpoint, and the byte
//! counts of a PSK-CCM8 handshake with and without CID.

mod common13;

use std::net::SocketAddr;
use std::sync::Arc;

use common13::{handshake, handshake_as, IDENTITY, PSK};
use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::Server13;
use dtls::Event;
use dtls::Session;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn with_cid(cid_len: Option<usize>) -> Config13 {
    Config13 {
        cid_len,
        ..Config13::psk_ccm8()
    }
}

const C_BIT: u8 = 0x10;

/// The first byte and length of the record carrying `data` one way.
fn data_record(from: &mut Connection13, to: &mut Connection13, data: &[u8]) -> Vec<u8> {
    from.send(data).unwrap();
    let d = from.poll_transmit(0).unwrap();
    to.handle_datagram(0, &d);
    let got: Vec<Event> = std::iter::from_fn(|| to.poll_event()).collect();
    assert!(got.contains(&Event::ApplicationData(data.to_vec())));
    d
}

#[test]
fn cids_are_negotiated_in_both_directions() {
    let (mut c, mut s, _) = handshake(with_cid(Some(4)), with_cid(Some(2)));
    assert!(c.cid_negotiated() && s.cid_negotiated());
    let to_server = data_record(&mut c, &mut s, b"ping");
    let to_client = data_record(&mut s, &mut c, b"pong");
    // the server's 2-byte CID in records to it, the client's 4 bytes in
    // records to the client
    assert_ne!(to_server[0] & C_BIT, 0);
    assert_ne!(to_client[0] & C_BIT, 0);
    let (mut c0, mut s0, _) = handshake(with_cid(None), with_cid(None));
    let base = data_record(&mut c0, &mut s0, b"ping").len();
    assert_eq!(base, data_record(&mut s0, &mut c0, b"pong").len());
    assert_eq!(to_server.len(), base + 2);
    assert_eq!(to_client.len(), base + 4);
}

#[test]
fn a_zero_length_cid_means_send_but_do_not_receive() {
    // the client wants none (it keeps its address), the server wants 3
    let (mut c, mut s, _) = handshake(with_cid(Some(0)), with_cid(Some(3)));
    assert!(c.cid_negotiated() && s.cid_negotiated());
    let to_server = data_record(&mut c, &mut s, b"ping");
    let to_client = data_record(&mut s, &mut c, b"pong");
    assert_ne!(to_server[0] & C_BIT, 0);
    assert_eq!(to_client[0] & C_BIT, 0, "no CID toward the client");
}

#[test]
fn no_cid_unless_both_offer_it() {
    for (client, server) in [(Some(4), None), (None, Some(4))] {
        let (mut c, mut s, _) = handshake(with_cid(client), with_cid(server));
        assert!(!c.cid_negotiated() && !s.cid_negotiated());
        assert_eq!(data_record(&mut c, &mut s, b"x")[0] & C_BIT, 0);
        assert_eq!(data_record(&mut s, &mut c, b"y")[0] & C_BIT, 0);
    }
}

#[test]
fn byte_counts_of_a_psk_ccm8_handshake_with_and_without_cid() {
    let mut totals = Vec::new();
    for (label, cid) in [("no CID", None), ("4-byte CIDs both ways", Some(4))] {
        let (c, s, wire) = handshake(with_cid(cid), with_cid(cid));
        println!("DTLS 1.3 PSK-CCM8 (psk_ke), no cookie, {label}:");
        for (who, stats) in [("client", c.stats()), ("server", s.stats())] {
            for (kind, bytes, records) in stats.sent.iter() {
                println!(
                    "  {who} {:<20} {bytes:>4} B in {records} record(s)",
                    kind.name()
                );
            }
        }
        let total: usize = wire.iter().map(Vec::len).sum();
        println!("  total on the wire: {total} B in {} datagrams", wire.len());
        totals.push(total);
    }
    // the ClientHello and ServerHello carry the extension (4-byte
    // extension header, 1-byte length, 4-byte CID); the three protected
    // records (the server's EncryptedExtensions and Finished, the client's
    // Finished, the ACK) a 4-byte CID
    let ext = 4 + 1 + 4;
    assert_eq!(totals[1], totals[0] + 2 * ext + 3 * 4);
}

#[test]
fn psk_ccm8_flights_are_the_ietf_comparison_counts() {
    // draft-ietf-iotops-security-protocol-comparison-09, "DTLS 1.3 - PSK"
    // (psk_ke, TLS_AES_128_CCM_8_SHA256, a 1-byte PSK identity, 8-bit
    // sequence numbers, no length in a datagram's last record, no cookie):
    // flights #1, #2, #3 of 136, 153 and 56 bytes with 1-byte connection
    // IDs, 130, 146 and 55 without. The draft counts no ACK.
    for (cid, expected) in [(None, [130, 146, 55]), (Some(1), [136, 153, 56])] {
        let (_, _, wire) = handshake_as(with_cid(cid), with_cid(cid), b"I");
        let lens: Vec<usize> = wire.iter().map(Vec::len).collect();
        // ClientHello, server flight, client Finished, the server's ACK
        assert_eq!(lens.len(), 4, "{lens:?}");
        assert_eq!(lens[..3], expected, "CID {cid:?}");
        assert_eq!(lens[3], 2 + usize::from(cid.is_some()) + 2 + 16 + 1 + 8);
    }
}

fn addr(s: &str) -> SocketAddr {
    s.parse().unwrap()
}

/// A client connected through the endpoint, with `cid_len` on both sides.
fn connected(cid_len: Option<usize>) -> (Server13<ChaCha20Rng>, Connection13, SocketAddr) {
    let mut s = ServerConfig13::psk(with_cid(cid_len), IDENTITY, PSK);
    s.max_sessions = 4;
    let mut server = Server13::new(Arc::new(s), ChaCha20Rng::seed_from_u64(2), 0).unwrap();
    let c = ClientConfig13::psk(with_cid(cid_len), IDENTITY, PSK);
    let mut client =
        Connection13::client(Arc::new(c), &mut ChaCha20Rng::seed_from_u64(3), 0).unwrap();
    let home = addr("10.0.0.1:40000");
    for _ in 0..10 {
        while let Some(d) = client.poll_transmit(0) {
            server.handle_datagram(0, home, &d);
        }
        while let Some(t) = server.poll_transmit(0) {
            client.handle_datagram(0, &t.payload);
        }
    }
    assert!(client.is_established());
    while server.poll_event().is_some() {}
    (server, client, home)
}

#[test]
fn a_client_whose_address_changes_keeps_its_session_under_its_cid() {
    let (mut server, mut client, home) = connected(Some(2));
    let nat = addr("192.0.2.7:61000");
    client.send(b"after rebinding").unwrap();
    let d = client.poll_transmit(0).unwrap();
    server.handle_datagram(1, nat, &d);
    assert_eq!(
        server.poll_event(),
        Some((nat, Event::ApplicationData(b"after rebinding".to_vec())))
    );
    assert_eq!(server.stats().address_changes, 1);
    assert_eq!(server.session_count(), 1);
    assert!(server.session(&home).is_none());
    // answers go to the new address
    server.send(nat, b"welcome back").unwrap();
    let t = server.poll_transmit(0).unwrap();
    assert_eq!(t.destination, nat);
    client.handle_datagram(1, &t.payload);
    assert!(std::iter::from_fn(|| client.poll_event())
        .any(|e| e == Event::ApplicationData(b"welcome back".to_vec())));

    // a copy of that record replayed from a third address moves nothing
    let attacker = addr("198.51.100.1:9");
    server.handle_datagram(2, attacker, &d);
    assert!(server.session(&nat).is_some());
    assert_eq!(server.stats().address_changes, 1);
    // nor does garbage under the right CID
    let mut forged = d.clone();
    let last = forged.len() - 1;
    forged[last] ^= 1;
    server.handle_datagram(2, attacker, &forged);
    assert!(server.session(&nat).is_some());
    assert_eq!(server.stats().address_changes, 1);
}

#[test]
fn without_a_cid_a_moved_client_is_a_stranger() {
    let (mut server, mut client, home) = connected(None);
    client.send(b"hello?").unwrap();
    let d = client.poll_transmit(0).unwrap();
    server.handle_datagram(1, addr("192.0.2.7:61000"), &d);
    assert_eq!(server.poll_event(), None);
    assert_eq!(server.stats().dropped, 1);
    assert!(server.session(&home).is_some());
}
