//! Interoperability with the OpenSSL 3.0 command line tools over UDP on
//! 127.0.0.1: TLS_PSK_WITH_AES_128_CBC_SHA (PSK-AES128-CBC-SHA) and
//! TLS_PSK_WITH_AES_128_CBC_SHA256 (PSK-AES128-CBC-SHA256) in both
//! directions, with the cookie exchange (`-listen` / our stateless server)
//! and application data both ways. MAC-then-encrypt: our client does not
//! offer encrypt_then_mac and our server does not answer it.

mod support;

use std::time::Duration;

use dtls::{CipherSuite, Config, MessageKind, ServerConfig};
use dtls_udp::{bind_server, run_client, ClientOptions, ServerOptions, StopCondition};
use support::*;

fn only(suite: CipherSuite) -> Config {
    Config {
        cipher_suites: vec![suite],
        ..Config::default()
    }
}

/// Size of a CBC record carrying `n` bytes with a `mac`-byte MAC and
/// minimal padding.
fn cbc_record(n: usize, mac: usize) -> u64 {
    (13 + 16 + n + mac + (16 - (n + mac) % 16)) as u64
}

fn s_server(port: u16, cipher: &str) -> Peer {
    let accept = format!("127.0.0.1:{port}");
    let p = Peer::spawn(&[
        "s_server",
        "-dtls1_2",
        "-listen",
        "-psk",
        PSK_HEX,
        "-psk_identity",
        "Client_identity",
        "-cipher",
        cipher,
        "-nocert",
        "-no_ticket",
        "-accept",
        &accept,
    ]);
    assert!(
        p.wait_for("ACCEPT", Duration::from_secs(5)),
        "s_server did not start: {}",
        p.output()
    );
    p
}

fn our_client_to_openssl_server(suite: CipherSuite, cipher: &str, mac: usize, seed: u64) {
    let port = free_port();
    let mut srv = s_server(port, cipher);
    // s_server sends its stdin to the client once connected.
    let from_openssl = format!("hello from openssl {cipher}\n");
    srv.write(&from_openssl);
    let mut opts = ClientOptions::psk(addr(port), only(suite), IDENTITY, PSK);
    let from_us = format!("hello from dtlsim {cipher}\n");
    opts.messages = vec![from_us.clone().into_bytes()];
    opts.expect_replies = 1;
    opts.seed = Some(seed);
    let report = run_client(&opts).expect("handshake with openssl s_server");
    assert_eq!(report.cipher_suite, Some(suite));
    assert!(
        srv.wait_for(from_us.trim_end(), Duration::from_secs(5)),
        "{}",
        srv.output()
    );
    assert_eq!(report.received, vec![from_openssl.clone().into_bytes()]);
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

fn openssl_client_to_our_server(suite: CipherSuite, cipher: &str) {
    let bound = bind_server(&ServerOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        config: ServerConfig::psk(only(suite), IDENTITY, PSK),
        echo: true,
        seed: Some(9),
    })
    .unwrap();
    let port = bound.local_addr().unwrap().port();
    let h = std::thread::spawn(move || {
        bound
            .run(StopCondition {
                max_duration: Some(Duration::from_secs(12)),
                after_messages: Some(1),
                ..StopCondition::default()
            })
            .unwrap()
    });
    let connect = format!("127.0.0.1:{port}");
    let mut cli = Peer::spawn(&[
        "s_client",
        "-dtls1_2",
        "-psk",
        PSK_HEX,
        "-psk_identity",
        "Client_identity",
        "-cipher",
        cipher,
        "-connect",
        &connect,
        "-quiet",
    ]);
    let ping = format!("ping from openssl {cipher}\n");
    cli.write(&ping);
    let report = h.join().unwrap();
    assert_eq!(report.handshakes.len(), 1, "{report:?}\n{}", cli.output());
    assert_eq!(report.handshakes[0].cipher_suite, Some(suite));
    assert_eq!(report.received[0].1, ping.clone().into_bytes());
    assert_eq!(report.endpoint.hello_verify_requests, 1);
    // s_client prints what it receives: our echo.
    assert!(
        cli.wait_for(ping.trim_end(), Duration::from_secs(5)),
        "{}",
        cli.output()
    );
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
    let port = free_port();
    let mut srv = s_server(port, "PSK-AES128-CBC-SHA");
    srv.write("tight cbc\n");
    let cfg = Config {
        cipher_suites: vec![CipherSuite::PskAes128CbcSha],
        ..Config::tightest_psk_ccm8()
    };
    let mut opts = ClientOptions::psk(addr(port), cfg, IDENTITY, PSK);
    opts.seed = Some(13);
    let report = run_client(&opts).unwrap();
    assert_eq!(report.received, vec![b"tight cbc\n".to_vec()]);
    assert!(
        srv.wait_for("hello from dtlsim", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
}
