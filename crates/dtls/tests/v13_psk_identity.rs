//! A DTLS 1.3 server does not tell which PSK identities exist: an unknown
//! identity is answered as a known one with a wrong key
//! (decrypt_error, the binder does not verify), as the 1.2 server answers
//! both with bad_record_mac by default; `reveal_unknown_psk_identity`
//! gives the unknown_psk_identity alert instead (RFC 4279 §2 allows both;
//! RFC 8446 §4.2.11 leaves the choice to the server).

use std::sync::Arc;

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::{AlertDescription, Event, Session};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// The alert the client receives when it offers `identity` with `key` to a
/// server knowing identity "device" with key [7; 16].
fn answer(identity: &[u8], key: &[u8], reveal: bool) -> Vec<AlertDescription> {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let mut s = ServerConfig13::psk(Config13::default(), b"device", &[7; 16]);
    s.require_cookie = false;
    s.reveal_unknown_psk_identity = reveal;
    let peer = "[fe80::1]:5684".parse().unwrap();
    let mut server = Connection13::server(Arc::new(s), peer, &mut rng, 0).unwrap();
    let c = ClientConfig13::psk(Config13::default(), identity, key);
    let mut client = Connection13::client(Arc::new(c), &mut rng, 0).unwrap();
    for _ in 0..5 {
        while let Some(d) = client.poll_transmit(0) {
            server.handle_datagram(0, &d);
        }
        while let Some(d) = server.poll_transmit(0) {
            client.handle_datagram(0, &d);
        }
    }
    std::iter::from_fn(|| client.poll_event())
        .filter_map(|e| match e {
            Event::AlertReceived(a) => Some(a.description),
            _ => None,
        })
        .collect()
}

#[test]
fn an_unknown_identity_is_answered_as_a_wrong_key() {
    let wrong_key = answer(b"device", &[8; 16], false);
    assert_eq!(wrong_key, [AlertDescription::DecryptError]);
    assert_eq!(answer(b"nobody", &[7; 16], false), wrong_key);
}

#[test]
fn revealing_unknown_identities_is_a_choice() {
    assert_eq!(
        answer(b"nobody", &[7; 16], true),
        [AlertDescription::UnknownPskIdentity]
    );
}
