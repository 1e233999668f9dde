//! A client whose address and port change mid-session, over real UDP on
//! 127.0.0.1, DTLS 1.2 and 1.3: with a Connection ID (RFC 9146, RFC 9147
//! §9) the server follows the new address once an authenticated record
//! arrives from it and the session goes on; without one the server sees a
//! stranger and the session is lost.

mod common;

use std::time::Duration;

use common::*;
use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::{ClientConfig, Config, ServerConfig};
use dtls_udp::{run_client, run_client13, ClientOptions, ServerVersion, StopCondition};

/// Six 40-byte messages, three echoed from the first port, three from the
/// second.
const MESSAGES: u8 = 6;
const MOVE_AFTER: usize = 3;

fn stop() -> StopCondition {
    StopCondition {
        max_duration: Some(Duration::from_secs(5)),
        after_messages: Some(MESSAGES as usize),
        ..StopCondition::default()
    }
}

fn ports(received: &[(std::net::SocketAddr, Vec<u8>)]) -> usize {
    let ports: std::collections::BTreeSet<_> =
        received.iter().map(|(from, _)| from.port()).collect();
    ports.len()
}

fn config(cid_len: Option<usize>) -> Config {
    Config {
        cid_len,
        ..Config::tightest_psk_ccm8()
    }
}

/// The client's options: six messages, three echoes awaited from the
/// first port, the rest from a new one.
fn moving<C: dtls_udp::ClientVersion>(port: u16, config: C) -> ClientOptions<C> {
    let mut opts = ClientOptions::new(addr(port), config);
    opts.messages = (0..MESSAGES).map(|i| vec![i; 40]).collect();
    opts.expect_replies = MESSAGES as usize;
    opts.rebind_after_replies = Some(MOVE_AFTER);
    opts.reply_timeout = Duration::from_secs(2);
    opts.close = false;
    opts.seed = Some(2);
    opts
}

/// The session went on from the new port: every echo came back.
fn assert_followed<C: ServerVersion>(client_received: u64, s: &Report<C>) {
    assert_eq!(client_received, 6, "every echo came back");
    assert_eq!(s.handshakes.len(), 1, "one session");
    assert_eq!(s.echoed, 6);
    assert_eq!(ports(&s.received), 2, "records came from two ports");
}

/// The session was lost at the move: only the echoes before it came.
fn assert_stranger<C: ServerVersion>(client_received: u64, s: &Report<C>) {
    assert_eq!(client_received, 3, "only the echoes before the move");
    assert_eq!(s.handshakes.len(), 1);
    assert_eq!(s.echoed, 3);
}

fn run(cid_len: Option<usize>) -> (dtls_udp::ClientReport, Report<ServerConfig>) {
    let (port, h) = our_server(ServerConfig::psk(config(cid_len), IDENTITY, PSK), 1, stop());
    let config = ClientConfig::psk(config(cid_len), IDENTITY, PSK);
    let c = run_client(&moving(port, config)).unwrap();
    (c, h.join().unwrap())
}

#[test]
fn with_a_connection_id_the_session_follows_the_client() {
    let (c, s) = run(Some(4));
    assert_followed::<ServerConfig>(c.received.total, &s);
}

#[test]
fn without_a_connection_id_the_moved_client_is_a_stranger() {
    let (c, s) = run(None);
    assert_stranger::<ServerConfig>(c.received.total, &s);
}

fn run13(cid_len: Option<usize>) -> (dtls_udp::ClientReport13, Report<ServerConfig13>) {
    let config = Config13 {
        cid_len,
        ..Config13::psk_ccm8()
    };
    let (port, h) = our_server(
        ServerConfig13::psk(config.clone(), IDENTITY, PSK),
        1,
        stop(),
    );
    let c = run_client13(&moving(port, ClientConfig13::psk(config, IDENTITY, PSK))).unwrap();
    (c, h.join().unwrap())
}

#[test]
fn dtls13_with_a_connection_id_the_session_follows_the_client() {
    let (c, s) = run13(Some(4));
    assert!(c.cid_negotiated);
    assert_followed::<ServerConfig13>(c.received.total, &s);
}

#[test]
fn dtls13_without_a_connection_id_the_moved_client_is_a_stranger() {
    let (c, s) = run13(None);
    assert_stranger::<ServerConfig13>(c.received.total, &s);
}
