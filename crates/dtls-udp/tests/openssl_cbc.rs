//! Interoperability with the OpenSSL 3.0 command line tools over UDP on
//! 127.0.0.1: TLS_PSK_WITH_AES_128_CBC_SHA (PSK-AES128-CBC-SHA) and
//! TLS_PSK_WITH_AES_128_CBC_SHA256 (PSK-AES128-CBC-SHA256) in both
//! directions, with the cookie exchange (`-listen` / our stateless server)
//! and application data both ways. MAC-then-encrypt: our client does not
//! offer encrypt_then_mac and our server does not answer it.

mod common;

use common::*;
use dtls::{CipherSuite, Config, MessageKind};

/// Size of a CBC record carrying `n` bytes with a `mac`-byte MAC and
/// minimal padding.
fn cbc_record(n: usize, mac: usize) -> u64 {
    (13 + 16 + n + mac + (16 - (n + mac) % 16)) as u64
}

/// Our client against `s_server` on `suite` (`cipher` in OpenSSL's
/// naming, `mac` bytes of MAC): data both ways, the cookie exchange, and
/// record sizes that show both sides pad minimally.
fn our_client_to_openssl_server(suite: CipherSuite, cipher: &str, mac: usize, seed: u64) {
    let from_openssl = format!("hello from openssl {cipher}\n");
    let from_us = format!("hello from dtlsim {cipher}\n");
    let (srv, report) =
        our_psk_client_to_s_server(cipher, only(suite), seed, &from_openssl, Some(&from_us));
    assert_eq!(report.cipher_suite, Some(suite));
    srv.assert_sees(from_us.trim_end());
    // -listen: the cookie exchange happened (ClientHello twice).
    assert!(report.handshake_datagrams_sent >= 3);
    // OpenSSL pads minimally too: its application data record has our size.
    assert_eq!(
        report.stats.received.bytes(MessageKind::ApplicationData),
        cbc_record(from_openssl.len(), mac),
        "{report:?}"
    );
    assert_eq!(
        report.stats.sent.bytes(MessageKind::ApplicationData),
        cbc_record(from_us.len(), mac)
    );
    eprintln!(
        "our client -> s_server {cipher}: handshake {} + {} datagrams, {} + {} B",
        report.handshake_datagrams_sent,
        report.handshake_datagrams_received,
        report.handshake_bytes_sent,
        report.handshake_bytes_received
    );
}

/// `s_client` on `suite` against our server: one session, echoed.
fn openssl_client_to_our_server(suite: CipherSuite, cipher: &str) {
    let ping = format!("ping from openssl {cipher}\n");
    let (cli, report) = s_client_psk_to_our_server(only(suite), cipher, 9, &ping);
    assert_echoed_once(&cli, &report, suite, &ping);
}

#[test]
fn our_client_to_openssl_server_psk_cbc_sha() {
    if !have_openssl() {
        return;
    }
    our_client_to_openssl_server(CipherSuite::PskAes128CbcSha, "PSK-AES128-CBC-SHA", 20, 11);
}

#[test]
fn openssl_client_to_our_server_psk_cbc_sha() {
    if !have_openssl() {
        return;
    }
    openssl_client_to_our_server(CipherSuite::PskAes128CbcSha, "PSK-AES128-CBC-SHA");
}

#[test]
fn our_client_to_openssl_server_psk_cbc_sha256() {
    if !have_openssl() {
        return;
    }
    our_client_to_openssl_server(
        CipherSuite::PskAes128CbcSha256,
        "PSK-AES128-CBC-SHA256",
        32,
        12,
    );
}

#[test]
fn openssl_client_to_our_server_psk_cbc_sha256() {
    if !have_openssl() {
        return;
    }
    openssl_client_to_our_server(CipherSuite::PskAes128CbcSha256, "PSK-AES128-CBC-SHA256");
}

/// The tightest settings (no extended master secret, no
/// renegotiation_info) with CBC-SHA: the classic master secret.
#[test]
fn tightest_cbc_sha_client_to_openssl_server() {
    if !have_openssl() {
        return;
    }
    let cfg = Config {
        cipher_suites: vec![CipherSuite::PskAes128CbcSha],
        ..Config::tightest_psk_ccm8()
    };
    let (srv, _) = our_psk_client_to_s_server("PSK-AES128-CBC-SHA", cfg, 13, "tight cbc\n", None);
    srv.assert_sees("hello from dtlsim");
}
