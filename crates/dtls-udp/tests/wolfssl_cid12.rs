//! DTLS 1.2 Connection IDs (RFC 9146) against wolfSSL 5.9 over real UDP on
//! loopback, both roles, PSK-AES128-CCM8: each side asks for its own CID,
//! and the data after the handshake travels in tls12_cid records (wolfSSL
//! refuses ordinary records once a CID is in use, so the echo proves the
//! record format and its additional data).

mod common;

use common::*;
use dtls::{CipherSuite, Config, ServerConfig};
use dtls_udp::{run_client, ClientOptions};

fn with_cid(n: usize) -> Config {
    Config {
        cid_len: Some(n),
        ..only(CipherSuite::PskAes128Ccm8)
    }
}

#[test]
fn our_client_with_connection_ids_to_wolfssl_server() {
    if !have_wolfssl() {
        return;
    }
    let (srv, port) = wolfssl_server(
        "1.2",
        &[
            "--cipher",
            WOLF_PSK_CCM8,
            "--psk",
            PSK_HEX,
            "--cid",
            "0a0b",
            "--sessions",
            "1",
            "--duration",
            "20",
        ],
    );
    let mut opts = ClientOptions::psk(addr(port), with_cid(3), IDENTITY, PSK);
    opts.messages = vec![b"cid ping".to_vec()];
    opts.seed = Some(1231);
    let report = run_client(&opts).expect("handshake with the wolfSSL server");
    assert_eq!(report.received, vec![b"cid ping".to_vec()], "the echo");
    assert_wolfssl_sees(&srv, "handshake version=DTLSv1.2 cipher=PSK-AES128-CCM-8");
    // wolfSSL receives with its CID and sends with the 3 bytes we chose
    assert_wolfssl_sees(&srv, "cid_rx=0a0b cid_tx=");
    assert_eq!(wolf_cid(&srv, "cid_tx").len(), 6, "{}", srv.output());
    assert_wolfssl_sees(&srv, "data bytes=8 text=cid ping");
}

#[test]
fn wolfssl_client_with_connection_ids_to_our_server() {
    if !have_wolfssl() {
        return;
    }
    let (port, h) = our_server(
        ServerConfig::psk(with_cid(2), IDENTITY, PSK),
        1232,
        stop_after_messages(12, 1),
    );
    let (cli, report) = wolfssl_client12_to_ours(
        port,
        h,
        &[
            "--cipher",
            WOLF_PSK_CCM8,
            "--psk",
            PSK_HEX,
            "--cid",
            "01020304",
            "--send",
            "cid ping",
        ],
    );
    assert_wolfssl_sees(&cli, "handshake version=DTLSv1.2 cipher=PSK-AES128-CCM-8");
    assert_wolfssl_sees(&cli, "cid_rx=01020304 cid_tx=");
    assert_eq!(wolf_cid(&cli, "cid_tx").len(), 4, "{}", cli.output());
    assert_wolfssl_sees(&cli, "echo bytes=8 text=cid ping");
    assert_eq!(report.handshakes.len(), 1, "{report:?}");
}
