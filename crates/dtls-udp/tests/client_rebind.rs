//! A DTLS 1.2 client whose address and port change mid-session, over real
//! UDP on 127.0.0.1: with a Connection ID (RFC 9146) the server follows the
//! new address and the session goes on; without one the server sees a
//! stranger and the session is lost.

mod common;

use std::time::Duration;

use common::*;
use dtls::{Config, ServerConfig};
use dtls_udp::{run_client, ClientOptions, StopCondition};

fn config(cid_len: Option<usize>) -> Config {
    Config {
        cid_len,
        ..Config::tightest_psk_ccm8()
    }
}

/// k echoes from one port, then the rest from a new one.
fn run(cid_len: Option<usize>) -> (dtls_udp::ClientReport, dtls_udp::ServerReport) {
    let (port, h) = our_server(
        ServerConfig::psk(config(cid_len), IDENTITY, PSK),
        1,
        StopCondition {
            max_duration: Some(Duration::from_secs(5)),
            after_messages: Some(6),
            ..StopCondition::default()
        },
    );
    let mut opts = ClientOptions::psk(addr(port), config(cid_len), IDENTITY, PSK);
    opts.messages = (0..6).map(|i| vec![i; 40]).collect();
    opts.expect_replies = 6;
    opts.rebind_after_replies = Some(3);
    opts.reply_timeout = Duration::from_secs(2);
    opts.close = false;
    opts.seed = Some(2);
    let c = run_client(&opts).unwrap();
    (c, h.join().unwrap())
}

#[test]
fn with_a_connection_id_the_session_follows_the_client() {
    let (c, s) = run(Some(4));
    assert_eq!(c.received.total, 6, "every echo came back");
    assert_eq!(s.handshakes.len(), 1, "one session");
    assert_eq!(s.echoed, 6);
    let peers: std::collections::BTreeSet<_> =
        s.received.iter().map(|(from, _)| from.port()).collect();
    assert_eq!(peers.len(), 2, "records came from two ports");
}

#[test]
fn without_a_connection_id_the_moved_client_is_a_stranger() {
    let (c, s) = run(None);
    assert_eq!(c.received.total, 3, "only the echoes before the move");
    assert_eq!(s.handshakes.len(), 1);
    assert_eq!(s.echoed, 3);
}
