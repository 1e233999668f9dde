//! A client's report stays small whatever its server sends, as the servers'
//! reports do: received records are counted, and only the first
//! `Sample::LIMIT` kept (both versions).

mod common;
mod common13;

use common::our_server;
use common::*;
use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::{Config, ServerConfig};
use dtls_udp::{run_client, run_client13, ClientOptions, ClientOptions13, Sample};

/// More echoes than a sample keeps.
const SENT: usize = Sample::<()>::LIMIT + 36;

fn messages() -> Vec<Vec<u8>> {
    (0..SENT).map(|i| vec![i as u8; 16]).collect()
}

#[test]
fn dtls12_client_counts_every_echo_and_keeps_the_first_few() {
    let (port, server) = our_server(
        ServerConfig::psk(Config::default(), IDENTITY, PSK),
        1,
        stop_after_messages(20, SENT),
    );
    let mut opts = ClientOptions::psk(addr(port), Config::default(), IDENTITY, PSK);
    opts.messages = messages();
    opts.expect_replies = SENT;
    opts.seed = Some(2);
    let client = run_client(&opts).expect("handshake and echoes");
    server.join().unwrap();
    assert_eq!(client.received.total, SENT as u64, "every echo counted");
    assert_eq!(client.received.len(), Sample::<()>::LIMIT);
    assert_eq!(client.received[..], opts.messages[..Sample::<()>::LIMIT]);
}

#[test]
fn dtls13_client_counts_every_echo_and_keeps_the_first_few() {
    let config = Config13::default();
    let (port, server) = our_server(
        ServerConfig13::psk(config.clone(), IDENTITY, PSK),
        1,
        stop_after_messages(20, SENT),
    );
    let mut opts = ClientOptions13::new(addr(port), ClientConfig13::psk(config, IDENTITY, PSK));
    opts.messages = messages();
    opts.expect_replies = SENT;
    opts.seed = Some(2);
    let client = run_client13(&opts).expect("handshake and echoes");
    server.join().unwrap();
    assert_eq!(client.received.total, SENT as u64, "every echo counted");
    assert_eq!(client.received.len(), Sample::<()>::LIMIT);
    assert_eq!(client.received[..], opts.messages[..Sample::<()>::LIMIT]);
}
