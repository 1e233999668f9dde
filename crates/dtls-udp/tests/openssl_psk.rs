//! Interoperability with the OpenSSL 3.0 command line tools over UDP on
//! 127.0.0.1: TLS_PSK_WITH_AES_128_CCM_8 in both directions.

mod support;

use std::time::Duration;

use dtls::{CipherSuite, Config, ServerConfig};
use dtls_udp::{bind_server, run_client, ClientOptions, ServerOptions, StopCondition};
use support::*;

fn psk_ccm8() -> Config {
    Config {
        cipher_suites: vec![CipherSuite::PskAes128Ccm8],
        ..Config::default()
    }
}

fn s_server_psk(port: u16, key_hex: &str) -> Peer {
    let accept = format!("127.0.0.1:{port}");
    let p = Peer::spawn(&[
        "s_server",
        "-dtls1_2",
        "-listen",
        "-psk",
        key_hex,
        "-psk_identity",
        "Client_identity",
        "-cipher",
        "PSK-AES128-CCM8",
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

#[test]
fn our_client_to_openssl_server_psk_ccm8() {
    if !have_openssl() {
        return;
    }
    let port = free_port();
    let mut srv = s_server_psk(port, PSK_HEX);
    // s_server sends its stdin to the client once connected.
    srv.write("hello from openssl\n");
    let mut opts = ClientOptions::psk(addr(port), psk_ccm8(), IDENTITY, PSK);
    opts.messages = vec![b"hello from dtlsim\n".to_vec()];
    opts.expect_replies = 1;
    opts.seed = Some(1);
    let report = run_client(&opts).expect("handshake with openssl s_server");
    assert_eq!(report.cipher_suite, Some(CipherSuite::PskAes128Ccm8));
    assert!(
        srv.wait_for("hello from dtlsim", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
    assert_eq!(report.received, vec![b"hello from openssl\n".to_vec()]);
    // -listen: the cookie exchange happened (ClientHello twice).
    assert!(report.handshake_datagrams_sent >= 3);
    eprintln!("our client -> s_server: {report:?}");
}

fn our_server(
    echo_stop: StopCondition,
    config: ServerConfig,
) -> (u16, std::thread::JoinHandle<dtls_udp::ServerReport>) {
    let bound = bind_server(&ServerOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        config,
        echo: true,
        seed: Some(7),
    })
    .unwrap();
    let port = bound.local_addr().unwrap().port();
    let h = std::thread::spawn(move || bound.run(echo_stop).unwrap());
    (port, h)
}

#[test]
fn openssl_client_to_our_server_psk_ccm8() {
    if !have_openssl() {
        return;
    }
    let (port, h) = our_server(
        StopCondition {
            max_duration: Some(Duration::from_secs(12)),
            after_messages: Some(1),
            ..StopCondition::default()
        },
        ServerConfig::psk(psk_ccm8(), IDENTITY, PSK),
    );
    let connect = format!("127.0.0.1:{port}");
    let mut cli = Peer::spawn(&[
        "s_client",
        "-dtls1_2",
        "-psk",
        PSK_HEX,
        "-psk_identity",
        "Client_identity",
        "-cipher",
        "PSK-AES128-CCM8",
        "-connect",
        &connect,
        "-quiet",
    ]);
    cli.write("ping from openssl\n");
    let report = h.join().unwrap();
    assert_eq!(report.handshakes.len(), 1, "{report:?}\n{}", cli.output());
    assert_eq!(
        report.handshakes[0].cipher_suite,
        Some(CipherSuite::PskAes128Ccm8)
    );
    assert_eq!(report.received[0].1, b"ping from openssl\n".to_vec());
    assert_eq!(report.endpoint.hello_verify_requests, 1);
    // s_client prints what it receives: our echo.
    assert!(
        cli.wait_for("ping from openssl", Duration::from_secs(5)),
        "{}",
        cli.output()
    );
}

#[test]
fn wrong_psk_our_client_vs_openssl_server() {
    if !have_openssl() {
        return;
    }
    let port = free_port();
    let srv = s_server_psk(port, "ffffffffffffffffffffffffffffffff");
    let mut cfg = psk_ccm8();
    cfg.retransmit = dtls::RetransmitPolicy::Fixed {
        interval_us: 300_000,
        max_retransmissions: 2,
    };
    let mut opts = ClientOptions::psk(addr(port), cfg, IDENTITY, PSK);
    opts.seed = Some(2);
    let err = run_client(&opts).unwrap_err();
    // OpenSSL discards DTLS records that fail authentication without an
    // alert (RFC 6347 §4.1.2.7 allows it), so our client can only learn of
    // the wrong key by its retransmission limit. (Against our own server
    // both sides see bad_record_mac: tests/handshake.rs in crates/dtls.)
    assert!(
        matches!(err, dtls_udp::Error::Dtls(dtls::Error::Timeout)),
        "{err:?}"
    );
    assert!(
        !srv.output().contains("CONNECTION ESTABLISHED"),
        "{}",
        srv.output()
    );
}

#[test]
fn wrong_psk_openssl_client_vs_our_server() {
    if !have_openssl() {
        return;
    }
    let (port, h) = our_server(
        StopCondition {
            max_duration: Some(Duration::from_secs(12)),
            after_sessions_ended: Some(1),
            ..StopCondition::default()
        },
        ServerConfig::psk(psk_ccm8(), IDENTITY, PSK),
    );
    let connect = format!("127.0.0.1:{port}");
    let cli = Peer::spawn(&[
        "s_client",
        "-dtls1_2",
        "-psk",
        "ffffffffffffffffffffffffffffffff",
        "-psk_identity",
        "Client_identity",
        "-cipher",
        "PSK-AES128-CCM8",
        "-connect",
        &connect,
    ]);
    let report = h.join().unwrap();
    assert_eq!(report.failures.len(), 1, "{report:?}");
    assert_eq!(report.failures[0].1, dtls::Error::BadRecordMac);
    assert!(
        cli.wait_for("bad record mac", Duration::from_secs(5)),
        "openssl did not report the alert: {}",
        cli.output()
    );
}

#[test]
fn our_client_to_openssl_server_through_lossy_relay() {
    if !have_openssl() {
        return;
    }
    let port = free_port();
    let mut srv = s_server_psk(port, PSK_HEX);
    srv.write("through the relay\n");
    let relay = lossy_relay(addr(port), 0.2, 42);
    let mut cfg = psk_ccm8();
    cfg.retransmit = dtls::RetransmitPolicy::Doubling {
        initial_us: 200_000,
        max_us: 1_000_000,
        max_retransmissions: 20,
    };
    let mut opts = ClientOptions::psk(relay.addr, cfg, IDENTITY, PSK);
    opts.seed = Some(3);
    opts.handshake_timeout = Duration::from_secs(12);
    // Application data is not retransmitted: repeat it so one copy arrives.
    opts.messages = vec![b"lossy hello\n".to_vec(); 8];
    opts.expect_replies = 0;
    let report = run_client(&opts).expect("handshake through a lossy relay");
    assert!(
        srv.wait_for("lossy hello", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
    let (seen, dropped) = relay.counts();
    eprintln!(
        "relay: {seen} datagrams, {dropped} dropped; retransmissions {}",
        report.retransmissions
    );
}

#[test]
fn openssl_client_to_our_server_through_lossy_relay() {
    if !have_openssl() {
        return;
    }
    let (port, h) = our_server(
        StopCondition {
            max_duration: Some(Duration::from_secs(14)),
            after_messages: Some(1),
            ..StopCondition::default()
        },
        ServerConfig::psk(psk_ccm8(), IDENTITY, PSK),
    );
    let relay = lossy_relay(addr(port), 0.2, 7);
    let connect = relay.addr.to_string();
    let mut cli = Peer::spawn(&[
        "s_client",
        "-dtls1_2",
        "-psk",
        PSK_HEX,
        "-psk_identity",
        "Client_identity",
        "-cipher",
        "PSK-AES128-CCM8",
        "-connect",
        &connect,
        "-quiet",
    ]);
    // s_client sends each line once: send a few so that one gets through.
    for i in 0..6 {
        cli.write(&format!("relayed {i}\n"));
    }
    let report = h.join().unwrap();
    assert_eq!(report.handshakes.len(), 1, "{report:?}\n{}", cli.output());
    assert!(report.received[0].1.starts_with(b"relayed "));
    let (seen, dropped) = relay.counts();
    eprintln!("relay: {seen} datagrams, {dropped} dropped");
}

#[test]
fn psk_gcm_both_directions() {
    if !have_openssl() {
        return;
    }
    let gcm = Config {
        cipher_suites: vec![CipherSuite::PskAes128GcmSha256],
        ..Config::default()
    };
    // our client -> s_server
    let port = free_port();
    let accept = format!("127.0.0.1:{port}");
    let mut srv = Peer::spawn(&[
        "s_server",
        "-dtls1_2",
        "-listen",
        "-psk",
        PSK_HEX,
        "-psk_identity",
        "Client_identity",
        "-cipher",
        "PSK-AES128-GCM-SHA256",
        "-nocert",
        "-no_ticket",
        "-accept",
        &accept,
    ]);
    assert!(
        srv.wait_for("ACCEPT", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
    srv.write("gcm from openssl\n");
    let mut opts = ClientOptions::psk(addr(port), gcm.clone(), IDENTITY, PSK);
    opts.messages = vec![b"gcm from dtlsim\n".to_vec()];
    opts.seed = Some(4);
    let report = run_client(&opts).unwrap();
    assert_eq!(report.cipher_suite, Some(CipherSuite::PskAes128GcmSha256));
    assert_eq!(report.received, vec![b"gcm from openssl\n".to_vec()]);
    assert!(
        srv.wait_for("gcm from dtlsim", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
    // s_client -> our server
    let (port, h) = our_server(
        StopCondition {
            max_duration: Some(Duration::from_secs(12)),
            after_messages: Some(1),
            ..StopCondition::default()
        },
        ServerConfig::psk(gcm, IDENTITY, PSK),
    );
    let connect = format!("127.0.0.1:{port}");
    let mut cli = Peer::spawn(&[
        "s_client",
        "-dtls1_2",
        "-psk",
        PSK_HEX,
        "-psk_identity",
        "Client_identity",
        "-cipher",
        "PSK-AES128-GCM-SHA256",
        "-connect",
        &connect,
        "-quiet",
    ]);
    cli.write("gcm ping\n");
    let report = h.join().unwrap();
    assert_eq!(
        report.handshakes[0].cipher_suite,
        Some(CipherSuite::PskAes128GcmSha256)
    );
    assert!(
        cli.wait_for("gcm ping", Duration::from_secs(5)),
        "{}",
        cli.output()
    );
}

#[test]
fn tinydtls_like_client_to_openssl_server() {
    if !have_openssl() {
        return;
    }
    let port = free_port();
    let mut srv = s_server_psk(port, PSK_HEX);
    srv.write("tiny\n");
    let mut opts = ClientOptions::psk(addr(port), Config::tinydtls_like(), IDENTITY, PSK);
    opts.seed = Some(5);
    let report = run_client(&opts).unwrap();
    assert_eq!(report.received, vec![b"tiny\n".to_vec()]);
    // one record per datagram: hello, hello+cookie, CKE, CCS, Finished
    assert_eq!(report.handshake_datagrams_sent, 5);
    assert!(
        srv.wait_for("hello from dtlsim", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
}

#[test]
fn small_fragments_to_openssl_server() {
    if !have_openssl() {
        return;
    }
    let port = free_port();
    let mut srv = s_server_psk(port, PSK_HEX);
    srv.write("frag\n");
    let cfg = Config {
        max_fragment_len: 24,
        ..psk_ccm8()
    };
    let mut opts = ClientOptions::psk(addr(port), cfg, IDENTITY, PSK);
    opts.seed = Some(6);
    let report = run_client(&opts).unwrap();
    assert_eq!(report.received, vec![b"frag\n".to_vec()]);
    // openssl reassembled our fragmented hello and key exchange
    assert!(report.stats.sent.iter().any(|(_, _, n)| n > 2));
}

/// The tightest settings (no extended master secret, no renegotiation_info,
/// one suite) still interoperate: the classic master-secret derivation.
#[test]
fn tightest_client_to_openssl_server() {
    if !have_openssl() {
        return;
    }
    let port = free_port();
    let mut srv = s_server_psk(port, PSK_HEX);
    srv.write("tight\n");
    let mut opts = ClientOptions::psk(addr(port), Config::tightest_psk_ccm8(), IDENTITY, PSK);
    opts.seed = Some(8);
    let report = run_client(&opts).unwrap();
    assert_eq!(report.received, vec![b"tight\n".to_vec()]);
    assert!(
        srv.wait_for("hello from dtlsim", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
    eprintln!(
        "tightest vs OpenSSL: {} + {} datagrams, {} + {} B",
        report.handshake_datagrams_sent,
        report.handshake_datagrams_received,
        report.handshake_bytes_sent,
        report.handshake_bytes_received
    );
}
