//! DTLS 1.3 (RFC 9147) with an external PSK against wolfSSL 5.9 over real
//! UDP on loopback, both roles: psk_ke with TLS_AES_128_CCM_8_SHA256 (the
//! constrained profile) and psk_dhe_ke over secp256r1 and x25519. Every
//! handshake goes through the stateless HelloRetryRequest cookie
//! (RFC 9147 §5.1): wolfSSL's server always sends one in this build, and
//! ours does with `require_cookie`.

mod common;
mod common13;

use common::*;
use common13::*;

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::v13::key_exchange::NamedGroup;
use dtls::v13::messages::PskMode;
use dtls::v13::suite::CipherSuite13;
use dtls::CryptoOps;
use dtls_udp::{ClientReport13, ServerReport13};

fn psk_dhe(group: NamedGroup) -> Config13 {
    Config13 {
        suites: vec![CipherSuite13::Aes128Ccm8Sha256],
        psk_modes: vec![PskMode::PskDheKe],
        groups: vec![group],
        ..Config13::default()
    }
}

/// Our client to the wolfSSL server with `config`; returns the report.
fn our_client_to_wolfssl(config: Config13, seed: u64, ping: &str) -> Option<ClientReport13> {
    if !have_wolfssl() {
        return None;
    }
    let (srv, port) = wolfssl_server13(&wolf_psk(WOLF_CCM8));
    let report = our_client13(
        addr(port),
        ClientConfig13::psk(config, IDENTITY, PSK),
        seed,
        ping,
    );
    assert_wolfssl_server_served(&srv, WOLF_CCM8, ping);
    assert_wolfssl_sees(&srv, "desc=close_notify");
    assert_eq!(report.cipher_suite, Some(CipherSuite13::Aes128Ccm8Sha256));
    // the wolfSSL server's HelloRetryRequest made us send a second hello
    assert_eq!(client_hellos_sent(&report.stats), 2, "{report:?}");
    Some(report)
}

/// The wolfSSL client to our server with `config`; returns our server's
/// report.
fn wolfssl_client_to_us(config: Config13, seed: u64, ping: &str) -> Option<ServerReport13> {
    if !have_wolfssl() {
        return None;
    }
    let (port, h) = our_server(
        ServerConfig13::psk(config, IDENTITY, PSK),
        seed,
        stop_after_one_session(12),
    );
    let mut cli = wolfssl_client13(addr(port), ping, &wolf_psk(WOLF_CCM8));
    assert_wolfssl_client_done(&mut cli, WOLF_CCM8, ping);
    let report = h.join().unwrap();
    assert_eq!(report.handshakes.len(), 1, "{report:?}\n{}", cli.output());
    assert!(report.failures.is_empty(), "{report:?}");
    assert_eq!(
        report.handshakes[0].cipher_suite,
        Some(CipherSuite13::Aes128Ccm8Sha256)
    );
    assert_eq!(report.received[0].1, ping.as_bytes());
    // our stateless cookie exchange, once
    assert_eq!(report.endpoint.hello_retry_requests, 1, "{report:?}");
    Some(report)
}

fn ecdh_ops(ops: &CryptoOps) -> u64 {
    ops.ecdh_ops
}

#[test]
fn our_psk_ke_client_to_wolfssl_server() {
    if let Some(r) = our_client_to_wolfssl(Config13::psk_ccm8(), 1301, "psk_ke ping") {
        // psk_ke: no public-key operation at all
        assert_eq!(ecdh_ops(&r.stats.crypto), 0, "{:?}", r.stats.crypto);
    }
}

#[test]
fn our_psk_dhe_secp256r1_client_to_wolfssl_server() {
    if let Some(r) = our_client_to_wolfssl(psk_dhe(NamedGroup::Secp256r1), 1302, "p256 ping") {
        assert!(ecdh_ops(&r.stats.crypto) > 0, "{:?}", r.stats.crypto);
    }
}

#[test]
fn our_psk_dhe_x25519_client_to_wolfssl_server() {
    if let Some(r) = our_client_to_wolfssl(psk_dhe(NamedGroup::X25519), 1303, "x25519 ping") {
        assert!(ecdh_ops(&r.stats.crypto) > 0, "{:?}", r.stats.crypto);
    }
}

#[test]
fn wolfssl_client_to_our_psk_ke_server() {
    if let Some(r) = wolfssl_client_to_us(Config13::psk_ccm8(), 1311, "psk_ke ping") {
        let ops = &r.handshakes[0].stats.crypto;
        assert_eq!(ecdh_ops(ops), 0, "{ops:?}");
    }
}

#[test]
fn wolfssl_client_to_our_psk_dhe_secp256r1_server() {
    if let Some(r) = wolfssl_client_to_us(psk_dhe(NamedGroup::Secp256r1), 1312, "p256 ping") {
        let ops = &r.handshakes[0].stats.crypto;
        assert!(ecdh_ops(ops) > 0, "{ops:?}");
    }
}

#[test]
fn wolfssl_client_to_our_psk_dhe_x25519_server() {
    if let Some(r) = wolfssl_client_to_us(psk_dhe(NamedGroup::X25519), 1313, "x25519 ping") {
        let ops = &r.handshakes[0].stats.crypto;
        assert!(ecdh_ops(ops) > 0, "{ops:?}");
    }
}
