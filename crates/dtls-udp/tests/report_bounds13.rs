//! The 1.3 server's report stays small whatever its peers send, as the 1.2
//! server's does: received records are counted, and only the first
//! `Sample::LIMIT` kept.

mod common;
mod common13;

use common::our_server;
use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls_udp::{run_client13, ClientOptions13, Sample, StopCondition};
use std::time::Duration;

const KEY: &[u8] = b"0123456789abcdef";

#[test]
fn received_records_are_counted_and_the_first_few_kept() {
    let sent = Sample::<()>::LIMIT + 36;
    let config = Config13::default();
    let (port, server) = our_server(
        ServerConfig13::psk(config.clone(), b"id", KEY),
        1,
        StopCondition {
            max_duration: Some(Duration::from_secs(20)),
            after_messages: Some(sent),
            ..StopCondition::default()
        },
    );
    let mut opts = ClientOptions13::new(
        format!("127.0.0.1:{port}").parse().unwrap(),
        ClientConfig13::psk(config, b"id", KEY),
    );
    opts.messages = (0..sent).map(|i| vec![i as u8; 16]).collect();
    opts.expect_replies = sent;
    opts.seed = Some(2);
    let client = run_client13(&opts).expect("handshake and echoes");
    let report = server.join().unwrap();
    assert_eq!(client.received.total, sent as u64, "every echo came back");
    assert_eq!(report.received.total, sent as u64);
    assert_eq!(report.received.len(), Sample::<()>::LIMIT);
    assert_eq!(
        report.received[0].1,
        vec![0u8; 16],
        "the first ones are kept"
    );
    // both ends report their session's size once established: at least
    // the expanded AEAD keys of two epochs in each direction (AES-128:
    // 11 round keys of 16 B, FIPS 197 §5.2)
    assert!(client.session_state_bytes > 4 * 176, "{client:?}");
    assert!(report.handshakes[0].session_state_bytes > 4 * 176);
}
