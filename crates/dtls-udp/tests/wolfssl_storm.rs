//! The retransmission storm between our DTLS 1.2 client with a wrong PSK
//! and a real wolfSSL 5.9 server, over UDP on loopback.
//!
//! The server cannot decrypt our Finished, so it never answers with its
//! own; it resends its last flight (ServerHello … ServerHelloDone) every
//! time it sees our final flight again. RFC 6347 §4.2.4 lets an
//! implementation resend its flight when it receives the peer's
//! retransmission, but a client that does so on every repeat, without a
//! limit, ping-pongs with such a server as fast as loopback carries
//! datagrams. RFC 9147 §5.8 states the fix: resend on a peer's
//! retransmission at most once per timer interval.

mod common;

use std::time::Duration;

use common::*;
use dtls::{CipherSuite, RetransmitPolicy};
use dtls_udp::{run_client, ClientOptions};

/// How long our client tries.
const WINDOW: Duration = Duration::from_secs(3);

/// Datagrams in each of our client's flights: ClientHello; ClientHello
/// with the cookie; ClientKeyExchange + ChangeCipherSpec + Finished (at
/// most one datagram each).
const FIRST_FLIGHTS: u64 = 2;
const FINAL_FLIGHT: u64 = 3;

/// The most datagrams RFC 6347 §4.2.4 (with RFC 9147 §5.8's once-per-
/// interval rule) allows in `window`: the two first flights once, then the
/// final flight once, plus once per timer interval (at most window /
/// initial interval + 1 of them, since the interval only grows), plus one
/// final flight of slack for a timer expiry and a repeat landing together.
fn allowed(window: Duration, policy: RetransmitPolicy) -> u64 {
    let RetransmitPolicy::Doubling { initial_us, .. } = policy else {
        unreachable!("the test uses RFC 6347's doubling timer")
    };
    let intervals = window.as_micros() as u64 / initial_us + 1;
    FIRST_FLIGHTS + FINAL_FLIGHT * (1 + intervals + 1)
}

// Measured before the once-per-interval rule (debug build, 3 s through the
// counting relay): our client sent 14 535 and 16 232 datagrams in two runs,
// the wolfSSL server about twice that; the bound is 20.
#[test]
fn wrong_psk_against_wolfssl_resends_at_most_once_per_interval() {
    if !have_wolfssl() {
        return;
    }
    let (srv, port) = wolfssl_server(
        "1.2",
        &[
            "--cipher",
            "PSK-AES128-CCM-8",
            "--psk",
            PSK_HEX,
            "--sessions",
            "1",
            "--duration",
            "5",
        ],
    );
    let relay = counting_relay(addr(port));
    let wrong_key = [0xffu8; 16];
    let mut opts = ClientOptions::psk(
        relay.addr,
        only(CipherSuite::PskAes128Ccm8),
        IDENTITY,
        &wrong_key,
    );
    let policy = RetransmitPolicy::RFC6347;
    opts.config.config.retransmit = policy;
    opts.handshake_timeout = WINDOW;
    opts.seed = Some(31);
    let result = run_client(&opts);
    let (ours, theirs) = (relay.sent_by_client(), relay.sent_by_server());
    assert!(result.is_err(), "a wrong key connected: {result:?}");
    // the server did see our handshake (the datagrams were real)
    assert!(theirs >= 1, "wolfSSL never answered: {}", srv.output());
    let bound = allowed(WINDOW, policy);
    assert!(
        ours <= bound,
        "our client sent {ours} datagrams in {WINDOW:?} (the wolfSSL server {theirs}); \
         RFC 6347 §4.2.4 / RFC 9147 §5.8 allow at most {bound}"
    );
}
