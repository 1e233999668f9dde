//! Our client against our server over real UDP on 127.0.0.1, directly and
//! through a lossy relay: the wall-clock driver and its reports.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use dtls::{Config, ServerConfig};
use dtls_udp::{run_client, ClientOptions, ServerOptions, StopCondition};

/// Our echoing server with `config` (seed 1) until `stop`.
fn serve(
    config: ServerConfig,
    stop: StopCondition,
) -> (u16, std::thread::JoinHandle<dtls_udp::ServerReport>) {
    our_server(config, 1, stop)
}

#[test]
fn echo_and_reports() {
    let (port, h) = serve(
        ServerConfig::psk(Config::tightest_psk_ccm8(), IDENTITY, PSK),
        stop_after_sessions_ended(10, 1),
    );
    let mut opts = ClientOptions::psk(addr(port), Config::tightest_psk_ccm8(), IDENTITY, PSK);
    opts.messages = (0..5).map(|i| vec![i; 100]).collect();
    opts.expect_replies = 5;
    opts.seed = Some(2);
    let c = run_client(&opts).unwrap();
    let s = h.join().unwrap();
    assert_eq!(c.received, opts.messages, "echoes in order");
    assert_eq!(
        c.handshake_datagrams_sent + c.handshake_datagrams_received,
        6
    );
    assert_eq!(c.handshake_bytes_sent + c.handshake_bytes_received, 458);
    assert_eq!(s.handshakes.len(), 1);
    assert_eq!(s.echoed, 5);
    assert!(s.failures.is_empty());
    // every datagram the client sent reached the server, and vice versa
    assert_eq!(s.datagrams_received, c.stats.datagrams_sent);
    assert_eq!(s.bytes_received, c.stats.bytes_sent);
    assert!(c.session_state_bytes > 0 && s.handshakes[0].session_state_bytes > 0);
}

#[test]
fn through_lossy_relay_both_ours() {
    for seed in 0..3 {
        // The server must outlive the client: its last flight may be lost
        // and is resent only when the client's retransmission arrives
        // (RFC 6347 §4.2.4; tinyDTLS's own policy never resends it).
        let done = Arc::new(AtomicBool::new(false));
        let mut server_cfg = Config::tinydtls_like();
        server_cfg.retransmit = dtls::RetransmitPolicy::Fixed {
            interval_us: 100_000,
            max_retransmissions: 40,
        };
        let (port, h) = serve(
            ServerConfig::psk(server_cfg, IDENTITY, PSK),
            StopCondition {
                max_duration: Some(Duration::from_secs(12)),
                flag: Some(done.clone()),
                ..StopCondition::default()
            },
        );
        let relay = lossy_relay(addr(port), 0.3, seed);
        let mut cfg = Config::tinydtls_like();
        cfg.retransmit = dtls::RetransmitPolicy::Fixed {
            interval_us: 100_000,
            max_retransmissions: 40,
        };
        let mut opts = ClientOptions::psk(relay.addr, cfg, IDENTITY, PSK);
        opts.expect_replies = 0;
        opts.seed = Some(seed);
        let c = run_client(&opts).expect("handshake through a 30 % lossy relay");
        done.store(true, Ordering::Relaxed);
        let s = h.join().unwrap();
        assert_eq!(s.handshakes.len(), 1);
        let (seen, dropped) = relay.counts();
        assert!(dropped > 0, "seed {seed}: nothing dropped ({seen} seen)");
        eprintln!(
            "seed {seed}: {seen} datagrams, {dropped} dropped, {} retransmissions",
            c.retransmissions
        );
    }
}

#[test]
fn wrong_psk_both_ours_over_udp() {
    let (port, h) = serve(
        ServerConfig::psk(Config::default(), IDENTITY, PSK),
        stop_after_sessions_ended(10, 1),
    );
    let cfg = Config {
        retransmit: dtls::RetransmitPolicy::Fixed {
            interval_us: 200_000,
            max_retransmissions: 5,
        },
        ..Config::default()
    };
    let mut opts = ClientOptions::psk(addr(port), cfg, IDENTITY, &[9; 16]);
    opts.seed = Some(3);
    let err = run_client(&opts).unwrap_err();
    assert!(
        matches!(
            err,
            dtls_udp::Error::Dtls(dtls::Error::AlertReceived(
                dtls::AlertDescription::BadRecordMac
            ))
        ),
        "{err:?}"
    );
    let s = h.join().unwrap();
    assert_eq!(s.failures.len(), 1);
    assert_eq!(s.failures[0].1, dtls::Error::BadRecordMac);
}

#[test]
fn self_signed_certificate_server_and_pinning_client() {
    let ck = dtls_udp::self_signed("dtlsim-server", Some(5)).unwrap();
    let pinned = ck.chain[0].clone();
    let cfg = Config {
        cipher_suites: vec![dtls::CipherSuite::EcdheEcdsaAes128Ccm8],
        ..Config::default()
    };
    let mut so = ServerOptions::psk("127.0.0.1:0".parse().unwrap(), cfg.clone(), b"", b"");
    so.config.psk_store = None;
    so.config.certificate = Some(ck);
    let (port, h) = spawn_server(&so, stop_after_sessions_ended(10, 1));
    let mut opts = ClientOptions::certificate(addr(port), cfg, Some(&pinned)).unwrap();
    opts.seed = Some(6);
    let c = run_client(&opts).unwrap();
    assert_eq!(c.received, opts.messages);
    assert_eq!(c.stats.crypto.ecdsa_verifies, 1);
    let s = h.join().unwrap();
    assert_eq!(s.handshakes.len(), 1);
}
