//! Interoperability with the OpenSSL 3.0 command line tools over UDP on
//! 127.0.0.1: TLS_PSK_WITH_AES_128_CCM_8 in both directions.

mod common;

use common::*;
use dtls::{CipherSuite, Config, ServerConfig};
use dtls_udp::{run_client, ClientOptions};

const CCM8: &str = "PSK-AES128-CCM8";

fn psk_ccm8() -> Config {
    only(CipherSuite::PskAes128Ccm8)
}

#[test]
fn our_client_to_openssl_server_psk_ccm8() {
    if !have_openssl() {
        return;
    }
    let (srv, report) = our_psk_client_to_s_server(
        CCM8,
        psk_ccm8(),
        1,
        "hello from openssl\n",
        Some("hello from dtlsim\n"),
    );
    assert_eq!(report.cipher_suite, Some(CipherSuite::PskAes128Ccm8));
    srv.assert_sees("hello from dtlsim");
    // -listen: the cookie exchange happened (ClientHello twice).
    assert!(report.handshake_datagrams_sent >= 3);
    eprintln!("our client -> s_server: {report:?}");
}

#[test]
fn openssl_client_to_our_server_psk_ccm8() {
    if !have_openssl() {
        return;
    }
    let ping = "ping from openssl\n";
    let (cli, report) = s_client_psk_to_our_server(psk_ccm8(), CCM8, 7, ping);
    assert_echoed_once(&cli, &report, CipherSuite::PskAes128Ccm8, ping);
}

#[test]
fn wrong_psk_our_client_vs_openssl_server() {
    if !have_openssl() {
        return;
    }
    let (srv, port) = s_server_psk(WRONG_PSK_HEX, CCM8);
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
        ServerConfig::psk(psk_ccm8(), IDENTITY, PSK),
        7,
        stop_after_sessions_ended(12, 1),
    );
    // Not -quiet: we look for openssl's report of our alert.
    let cli = s_client_psk(addr(port), WRONG_PSK_HEX, CCM8, false);
    let report = h.join().unwrap();
    assert_eq!(report.failures.len(), 1, "{report:?}");
    assert_eq!(report.failures[0].1, dtls::Error::BadRecordMac);
    cli.assert_sees("bad record mac");
}

#[test]
fn our_client_to_openssl_server_through_lossy_relay() {
    if !have_openssl() {
        return;
    }
    let (mut srv, port) = s_server_psk(PSK_HEX, CCM8);
    srv.write("through the relay\n");
    let relay = lossy_relay(addr(port), 0.2, 42);
    let mut cfg = psk_ccm8();
    cfg.retransmit = lossy_retransmit();
    let mut opts = ClientOptions::psk(relay.addr, cfg, IDENTITY, PSK);
    opts.seed = Some(3);
    opts.handshake_timeout = std::time::Duration::from_secs(12);
    // Application data is not retransmitted: repeat it so one copy arrives.
    opts.messages = vec![b"lossy hello\n".to_vec(); 8];
    opts.expect_replies = 0;
    let report = run_client(&opts).expect("handshake through a lossy relay");
    srv.assert_sees("lossy hello");
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
        ServerConfig::psk(psk_ccm8(), IDENTITY, PSK),
        7,
        stop_after_messages(14, 1),
    );
    let relay = lossy_relay(addr(port), 0.2, 7);
    let mut cli = s_client_psk(relay.addr, PSK_HEX, CCM8, true);
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
    let suite = CipherSuite::PskAes128GcmSha256;
    let cipher = "PSK-AES128-GCM-SHA256";
    // our client -> s_server
    let (srv, report) = our_psk_client_to_s_server(
        cipher,
        only(suite),
        4,
        "gcm from openssl\n",
        Some("gcm from dtlsim\n"),
    );
    assert_eq!(report.cipher_suite, Some(suite));
    srv.assert_sees("gcm from dtlsim");
    // s_client -> our server
    let (cli, report) = s_client_psk_to_our_server(only(suite), cipher, 7, "gcm ping\n");
    assert_eq!(report.handshakes[0].cipher_suite, Some(suite));
    cli.assert_sees("gcm ping");
}

#[test]
fn tinydtls_like_client_to_openssl_server() {
    if !have_openssl() {
        return;
    }
    let (srv, report) =
        our_psk_client_to_s_server(CCM8, Config::tinydtls_like(), 5, "tiny\n", None);
    // one record per datagram: hello, hello+cookie, CKE, CCS, Finished
    assert_eq!(report.handshake_datagrams_sent, 5);
    srv.assert_sees("hello from dtlsim");
}

#[test]
fn small_fragments_to_openssl_server() {
    if !have_openssl() {
        return;
    }
    let cfg = Config {
        max_fragment_len: 24,
        ..psk_ccm8()
    };
    let (_srv, report) = our_psk_client_to_s_server(CCM8, cfg, 6, "frag\n", None);
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
    let (srv, report) =
        our_psk_client_to_s_server(CCM8, Config::tightest_psk_ccm8(), 8, "tight\n", None);
    srv.assert_sees("hello from dtlsim");
    eprintln!(
        "tightest vs OpenSSL: {} + {} datagrams, {} + {} B",
        report.handshake_datagrams_sent,
        report.handshake_datagrams_received,
        report.handshake_bytes_sent,
        report.handshake_bytes_received
    );
}
