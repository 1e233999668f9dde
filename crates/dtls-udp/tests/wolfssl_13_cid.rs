//! DTLS 1.3 Connection IDs (RFC 9146 §3, RFC 9147 §9) against wolfSSL 5.9
//! over real UDP on loopback, both roles, PSK with CCM-8: each side asks
//! for its own CID and the records after the ServerHello carry the peer's.

mod common;
mod common13;

use common::*;
use common13::*;

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};

#[test]
fn our_client_with_connection_ids_to_wolfssl_server() {
    if !have_wolfssl() {
        return;
    }
    let mut args = wolf_psk(WOLF_CCM8);
    args.extend(["--cid", "0a0b"]);
    let (srv, port) = wolfssl_server13(&args);
    let config = Config13 {
        cid_len: Some(3),
        ..Config13::psk_ccm8()
    };
    let report = our_client13(
        addr(port),
        ClientConfig13::psk(config, IDENTITY, PSK),
        1331,
        "cid ping",
    );
    assert!(report.cid_negotiated, "{report:?}");
    assert_wolfssl_server_served(&srv, WOLF_CCM8, "cid ping");
    // wolfSSL receives with its CID and sends with the 3 bytes we chose
    assert_wolfssl_sees(&srv, "cid_rx=0a0b cid_tx=");
    assert_eq!(wolf_cid(&srv, "cid_tx").len(), 6, "{}", srv.output());
}

#[test]
fn wolfssl_client_with_connection_ids_to_our_server() {
    if !have_wolfssl() {
        return;
    }
    let config = Config13 {
        cid_len: Some(2),
        ..Config13::psk_ccm8()
    };
    let (port, h) = our_server(
        ServerConfig13::psk(config, IDENTITY, PSK),
        1332,
        stop_after_one_session(12),
    );
    let mut args = wolf_psk(WOLF_CCM8);
    args.extend(["--cid", "01020304"]);
    let mut cli = wolfssl_client13(addr(port), "cid ping", &args);
    assert_wolfssl_client_done(&mut cli, WOLF_CCM8, "cid ping");
    assert_wolfssl_sees(&cli, "cid_rx=01020304 cid_tx=");
    assert_eq!(wolf_cid(&cli, "cid_tx").len(), 4, "{}", cli.output());
    let report = h.join().unwrap();
    assert_eq!(report.handshakes.len(), 1, "{report:?}");
    assert!(report.handshakes[0].cid_negotiated);
    assert_eq!(report.received[0].1, b"cid ping");
}
