//! DTLS 1.2 interoperability with wolfSSL 5.9 over real UDP on loopback:
//! our client against the wolfSSL server and the wolfSSL client against our
//! server, with PSK-AES128-CCM8 and ECDHE-ECDSA-AES128-CCM8 (certificate),
//! and once through a lossy relay. The wolfSSL peers are our own small
//! programs over the wolfSSL API (peers/wolfssl/), built by
//! scripts/peers/wolfssl.sh.

mod common;

use std::time::Duration;

use common::*;
use dtls::{CipherSuite, ServerConfig};
use dtls_udp::{run_client, ClientOptions, ServerOptions};

/// wolfSSL's names for the two suites.
const WOLF_ECDHE_CCM8: &str = "ECDHE-ECDSA-AES128-CCM-8";

/// The wolfSSL server's options for one PSK session with the test key.
fn psk_server_args(cipher: &str) -> Vec<&str> {
    vec![
        "--cipher",
        cipher,
        "--psk",
        PSK_HEX,
        "--sessions",
        "1",
        "--duration",
        "20",
    ]
}

#[test]
fn our_psk_client_to_wolfssl_server_ccm8() {
    if !have_wolfssl() {
        return;
    }
    let (srv, port) = wolfssl_server("1.2", &psk_server_args(WOLF_PSK_CCM8));
    let mut opts = ClientOptions::psk(addr(port), only(CipherSuite::PskAes128Ccm8), IDENTITY, PSK);
    opts.messages = vec![b"hello wolfssl".to_vec()];
    opts.seed = Some(21);
    let report = run_client(&opts).expect("handshake with the wolfSSL server");
    assert_eq!(report.cipher_suite, Some(CipherSuite::PskAes128Ccm8));
    assert_eq!(report.received, vec![b"hello wolfssl".to_vec()], "the echo");
    assert_wolfssl_sees(&srv, "handshake version=DTLSv1.2 cipher=PSK-AES128-CCM-8");
    assert_wolfssl_sees(&srv, "data bytes=13 text=hello wolfssl");
    assert_wolfssl_sees(&srv, "desc=close_notify");
}

#[test]
fn wolfssl_psk_client_to_our_server_ccm8() {
    if !have_wolfssl() {
        return;
    }
    let (port, h) = our_server(
        ServerConfig::psk(only(CipherSuite::PskAes128Ccm8), IDENTITY, PSK),
        22,
        stop_after_messages(12, 2),
    );
    let (cli, report) = wolfssl_client12_to_ours(
        port,
        h,
        &[
            "--cipher",
            WOLF_PSK_CCM8,
            "--psk",
            PSK_HEX,
            "--send",
            "ping",
            "--send",
            "pong",
        ],
    );
    assert_wolfssl_sees(&cli, "handshake version=DTLSv1.2 cipher=PSK-AES128-CCM-8");
    assert_wolfssl_sees(&cli, "echo bytes=4 text=ping");
    assert_wolfssl_sees(&cli, "echo bytes=4 text=pong");
    assert_eq!(report.handshakes.len(), 1, "{report:?}");
    assert_eq!(
        report.handshakes[0].cipher_suite,
        Some(CipherSuite::PskAes128Ccm8)
    );
    // wolfSSL answered our HelloVerifyRequest
    assert_eq!(report.endpoint.hello_verify_requests, 1);
}

#[test]
fn our_certificate_client_to_wolfssl_server_ecdhe_ecdsa_ccm8() {
    if !have_wolfssl() {
        return;
    }
    let (_dir, crt, key) = p256_cert_in("wolf-ecdhe-c");
    let (srv, port) = wolfssl_server(
        "1.2",
        &[
            "--cipher",
            WOLF_ECDHE_CCM8,
            "--cert",
            &crt,
            "--key",
            &key,
            "--sessions",
            "1",
            "--duration",
            "20",
        ],
    );
    let suite = CipherSuite::EcdheEcdsaAes128Ccm8;
    let mut opts =
        ClientOptions::certificate(addr(port), only(suite), Some(&std::fs::read(&crt).unwrap()))
            .unwrap();
    opts.messages = vec![b"hello over ecdhe".to_vec()];
    opts.seed = Some(23);
    let report = run_client(&opts).expect("ECDHE handshake with the wolfSSL server");
    assert_eq!(report.cipher_suite, Some(suite));
    assert_eq!(report.received, vec![b"hello over ecdhe".to_vec()]);
    // the server's ServerKeyExchange signature checked; ECDH on our side
    assert_eq!(report.stats.crypto.ecdsa_verifies, 1);
    assert_eq!(report.stats.crypto.ecdh_ops, 2);
    assert_wolfssl_sees(
        &srv,
        "handshake version=DTLSv1.2 cipher=ECDHE-ECDSA-AES128-CCM-8",
    );
    assert_wolfssl_sees(&srv, "text=hello over ecdhe");
}

#[test]
fn wolfssl_certificate_client_to_our_server_ecdhe_ecdsa_ccm8() {
    if !have_wolfssl() {
        return;
    }
    let (_dir, crt, key) = p256_cert_in("wolf-ecdhe-s");
    let suite = CipherSuite::EcdheEcdsaAes128Ccm8;
    let mut opts = ServerOptions::certificate(
        "127.0.0.1:0".parse().unwrap(),
        only(suite),
        &std::fs::read(&crt).unwrap(),
        &std::fs::read(&key).unwrap(),
    )
    .unwrap();
    opts.seed = Some(24);
    let (port, h) = spawn_server(&opts, stop_after_messages(12, 1));
    // --ca: the wolfSSL client verifies our certificate against it
    let (cli, report) = wolfssl_client12_to_ours(
        port,
        h,
        &[
            "--cipher",
            WOLF_ECDHE_CCM8,
            "--ca",
            &crt,
            "--send",
            "ping over ecdhe",
        ],
    );
    assert_wolfssl_sees(&cli, "cipher=ECDHE-ECDSA-AES128-CCM-8");
    assert_wolfssl_sees(&cli, "echo bytes=15 text=ping over ecdhe");
    assert_eq!(report.handshakes.len(), 1, "{report:?}");
    assert_eq!(report.handshakes[0].cipher_suite, Some(suite));
    let st = &report.handshakes[0].stats;
    assert_eq!(st.crypto.ecdsa_signs, 1, "our ServerKeyExchange");
    assert_eq!(st.crypto.ecdh_ops, 2);
}

/// 20 % of the datagrams each way dropped (seeded): both sides retransmit
/// until the handshake completes and records get through.
#[test]
fn our_psk_client_to_wolfssl_server_through_lossy_relay() {
    if !have_wolfssl() {
        return;
    }
    let (srv, port) = wolfssl_server("1.2", &psk_server_args(WOLF_PSK_CCM8));
    let relay = lossy_relay(addr(port), 0.2, 7);
    let mut opts = ClientOptions::psk(relay.addr, only(CipherSuite::PskAes128Ccm8), IDENTITY, PSK);
    opts.config.config.retransmit = lossy_retransmit();
    opts.handshake_timeout = Duration::from_secs(15);
    opts.messages = vec![b"hello through loss".to_vec(); 8];
    opts.expect_replies = 0;
    opts.seed = Some(25);
    let report = run_client(&opts).expect("handshake through the lossy relay");
    assert_eq!(report.cipher_suite, Some(CipherSuite::PskAes128Ccm8));
    assert_wolfssl_sees(&srv, "handshake version=DTLSv1.2 cipher=PSK-AES128-CCM-8");
    assert_wolfssl_sees(&srv, "text=hello through loss");
    let (seen, dropped) = relay.counts();
    assert!(dropped > 0, "the relay dropped nothing of {seen}");
}
