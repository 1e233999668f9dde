//! DTLS 1.3 smoke checks of the wolfSSL 5.9 build itself (its own server
//! and client, through our peers in peers/wolfssl/) so the DTLS 1.3 interop
//! tests have a peer known to work: PSK with TLS_AES_128_CCM_8_SHA256,
//! then with Connection IDs (RFC 9146 / RFC 9147 §9); and tshark decoding
//! wolfSSL's 1.3 ClientHello. (This build's 1.3 server answers every first
//! ClientHello with a HelloRetryRequest cookie, as a loopback capture
//! showed: no option is needed for the cookie path.)

mod common;

use std::net::UdpSocket;
use std::time::Duration;

use common::*;

const CCM8_13: &str = "TLS13-AES128-CCM-8-SHA256";

/// The wolfSSL client sends `ping` to the wolfSSL server, both DTLS 1.3
/// PSK-CCM8 with the extra options; returns (server, client) once the
/// client exited 0.
fn wolfssl_to_wolfssl(server_extra: &[&str], client_extra: &[&str], ping: &str) -> (Peer, Peer) {
    let mut args = vec![
        "--cipher",
        CCM8_13,
        "--psk",
        PSK_HEX,
        "--sessions",
        "1",
        "--duration",
        "10",
    ];
    args.extend_from_slice(server_extra);
    let (srv, port) = wolfssl_server("1.3", &args);
    let mut args = vec![
        "--cipher",
        CCM8_13,
        "--psk",
        PSK_HEX,
        "--send",
        ping,
        "--duration",
        "8",
    ];
    args.extend_from_slice(client_extra);
    let mut cli = wolfssl_client("1.3", addr(port), &args);
    assert_eq!(
        cli.wait_exit(Duration::from_secs(10)),
        Some(0),
        "{}",
        cli.output()
    );
    let line = "handshake version=DTLSv1.3 cipher=TLS13-AES128-CCM-8-SHA256";
    assert_wolfssl_sees(&srv, line);
    assert_wolfssl_sees(&cli, line);
    assert_wolfssl_sees(&srv, &format!("text={ping}"));
    assert_wolfssl_sees(&cli, &format!("echo bytes={} text={ping}", ping.len()));
    (srv, cli)
}

#[test]
fn wolfssl_dtls13_psk_ccm8_to_itself() {
    if have_wolfssl() {
        let (srv, _) = wolfssl_to_wolfssl(&[], &[], "ping13");
        assert_wolfssl_sees(&srv, "cid=off");
        assert_wolfssl_sees(&srv, "desc=close_notify");
    }
}

#[test]
fn wolfssl_dtls13_connection_ids_to_itself() {
    if !have_wolfssl() {
        return;
    }
    let (srv, cli) = wolfssl_to_wolfssl(&["--cid", "0a0b"], &["--cid", "01020304"], "cid ping");
    // each side receives with the CID it chose and sends with the other's
    assert_wolfssl_sees(&srv, "cid_rx=0a0b cid_tx=01020304");
    assert_wolfssl_sees(&cli, "cid_rx=01020304 cid_tx=0a0b");
}

/// The wolfSSL client's first datagram, caught by a plain UDP socket and
/// written to a pcap: tshark sees a DTLS 1.3 ClientHello (supported_versions
/// 0xfefc) offering the CCM-8 suite, a PSK and a Connection ID.
#[test]
fn tshark_decodes_wolfssl_dtls13_client_hello() {
    if !have_wolfssl() || !have_tshark() {
        return;
    }
    let sink = UdpSocket::bind("127.0.0.1:0").unwrap();
    sink.set_read_timeout(Some(OUTPUT_TIMEOUT)).unwrap();
    let args = [
        "--cipher",
        CCM8_13,
        "--psk",
        PSK_HEX,
        "--cid",
        "0102",
        "--duration",
        "2",
    ];
    let _cli = wolfssl_client("1.3", sink.local_addr().unwrap(), &args);
    let mut buf = vec![0u8; 65536];
    let n = sink
        .recv(&mut buf)
        .expect("the wolfSSL client's ClientHello");
    assert_tshark_shows(
        "wolf-ch13",
        &[buf[..n].to_vec()],
        &[
            "Handshake Type: Client Hello (1)",
            "Cipher Suite: TLS_AES_128_CCM_8_SHA256 (0x1305)",
            "(0xfefc)", // DTLS 1.3 in supported_versions (tshark 4.0 has no name for it)
            "Extension: pre_shared_key",
            "Extension: connection_id",
        ],
    );
}
