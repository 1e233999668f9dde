//! In-memory handshakes in virtual time.

mod common;

use common::*;
use dtls::Session;
use dtls::{
    AlertDescription, CipherSuite, ClientConfig, Config, Error, Event, Phase, RecordPacking,
    RetransmitPolicy, ServerConfig,
};

fn only(s: CipherSuite) -> Config {
    Config {
        cipher_suites: vec![s],
        ..Config::default()
    }
}

#[test]
fn psk_ccm8_handshake_and_data() {
    let mut p = Pair::psk(only(CipherSuite::PskAes128Ccm8), Config::default(), 1);
    p.handshake();
    assert!(p.client.is_established());
    assert!(p.server_established());
    assert_eq!(p.client.cipher_suite(), Some(CipherSuite::PskAes128Ccm8));
    assert_eq!(p.client_events[0], Event::Connected);
    assert_eq!(p.server_events[0], Event::Connected);
    p.exchange(b"hello dtls");
    p.exchange(&[0xAB; 1000]);
    let st = p.client.stats();
    assert!(st.crypto.aes_blocks > 0 && st.crypto.sha256_compressions > 0);
    assert_eq!(st.crypto.ecdh_ops, 0);
}

#[test]
fn psk_gcm_handshake_and_data() {
    let mut p = Pair::psk(only(CipherSuite::PskAes128GcmSha256), Config::default(), 2);
    p.handshake();
    assert_eq!(
        p.client.cipher_suite(),
        Some(CipherSuite::PskAes128GcmSha256)
    );
    p.exchange(b"gcm");
}

#[test]
fn psk_hint_and_no_ems() {
    let mut c = Config::tightest_psk_ccm8();
    c.extensions.extended_master_secret = false;
    let mut s = ServerConfig::psk(Config::default(), IDENTITY, PSK);
    s.psk_identity_hint = Some(b"hint".to_vec());
    let mut p = Pair::new(ClientConfig::psk(c, IDENTITY, PSK), s, 3);
    p.handshake();
    p.exchange(b"x");
}

#[test]
fn ems_required_but_not_offered_fails() {
    let mut c = Config::tightest_psk_ccm8();
    c.extensions.extended_master_secret = false;
    let mut s = Config::default();
    s.extensions.require_extended_master_secret = true;
    let mut p = Pair::psk(c, s, 4);
    p.run_until(10_000_000, |p| p.failed_client().is_some());
    assert_eq!(
        p.failed_client(),
        Some(&Error::AlertReceived(AlertDescription::HandshakeFailure))
    );
}

#[test]
fn wrong_psk_fails_with_bad_record_mac_on_both_sides() {
    let mut p = dtls_pair_wrong_key();
    p.run_until(120_000_000, |p| {
        p.failed_client().is_some() && p.failed_server().is_some()
    });
    assert_eq!(p.failed_server(), Some(&Error::BadRecordMac));
    assert_eq!(
        p.failed_client(),
        Some(&Error::AlertReceived(AlertDescription::BadRecordMac))
    );
    assert_eq!(p.server.session_count(), 0, "failed session removed");
}

fn dtls_pair_wrong_key() -> Pair {
    Pair::new(
        ClientConfig::psk(Config::default(), IDENTITY, b"not the right key"),
        ServerConfig::psk(Config::default(), IDENTITY, PSK),
        5,
    )
}

#[test]
fn unknown_identity_gets_unknown_psk_identity_alert_when_revealed() {
    let mut server = ServerConfig::psk(Config::default(), IDENTITY, PSK);
    server.reveal_unknown_psk_identity = true;
    let mut p = Pair::new(
        ClientConfig::psk(Config::default(), b"someone else", PSK),
        server,
        6,
    );
    p.run_until(10_000_000, |p| p.failed_client().is_some());
    assert_eq!(p.failed_server(), Some(&Error::UnknownPskIdentity));
    assert_eq!(
        p.failed_client(),
        Some(&Error::AlertReceived(AlertDescription::UnknownPskIdentity))
    );
}

#[test]
fn no_common_suite() {
    let s = Config {
        cipher_suites: vec![CipherSuite::PskAes128GcmSha256],
        ..Config::default()
    };
    let mut p = Pair::psk(Config::tightest_psk_ccm8(), s, 7);
    p.run_until(10_000_000, |p| p.failed_client().is_some());
    assert_eq!(
        p.failed_client(),
        Some(&Error::AlertReceived(AlertDescription::HandshakeFailure))
    );
}

#[test]
fn handshake_survives_loss_by_retransmission() {
    // One record per datagram with a timer that answers repeated flights
    // (tinyDTLS's own policy never resends the server's last flight: see
    // tests/tinydtls_timer.rs).
    let cfg = Config {
        retransmit: RetransmitPolicy::Fixed {
            interval_us: 2_000_000,
            max_retransmissions: 7,
        },
        ..Config::tinydtls_like()
    };
    for seed in 0..40 {
        let mut p = Pair::psk(cfg.clone(), cfg.clone(), seed).with_loss(seed + 1000, 0.2);
        p.handshake();
        assert!(
            p.client.is_established() && p.server_established(),
            "seed {seed}: {:?} {:?}",
            p.client_events,
            p.server_events
        );
        p.loss = None;
        p.exchange(b"after loss");
    }
}

#[test]
fn handshake_survives_loss_doubling_timer_packed() {
    let mut retrans = 0;
    for seed in 0..40 {
        let mut p = Pair::psk(Config::default(), Config::default(), seed).with_loss(seed + 7, 0.3);
        p.handshake();
        assert!(
            p.client.is_established() && p.server_established(),
            "seed {seed}"
        );
        retrans += p.client.stats().retransmissions;
    }
    assert!(retrans > 0, "loss must have caused retransmissions");
}

#[test]
fn client_gives_up_after_max_retransmissions() {
    let cfg = Config {
        retransmit: RetransmitPolicy::Doubling {
            initial_us: 1_000_000,
            max_us: 4_000_000,
            max_retransmissions: 3,
        },
        ..Config::default()
    };
    let mut p = Pair::psk(cfg, Config::default(), 8).with_loss(1, 1.0);
    p.run_until(600_000_000, |p| p.failed_client().is_some());
    assert_eq!(p.failed_client(), Some(&Error::Timeout));
    // 1 + 3 retransmissions, at 1, 2, 4, 4 s
    assert_eq!(p.c2s.len(), 4);
    assert!(p.now >= 11_000_000);
}

#[test]
fn tiny_fragments_reassemble() {
    let cfg = Config {
        max_fragment_len: 7,
        packing: RecordPacking::OneRecordPerDatagram,
        ..Config::default()
    };
    let mut p = Pair::psk(cfg.clone(), cfg, 9);
    p.handshake();
    assert!(p.client.is_established());
    // the ClientHello alone needs several records
    assert!(p.c2s.len() > 10);
    p.exchange(b"fragmented");
}

#[test]
fn fragments_with_loss() {
    for seed in 0..10 {
        let cfg = Config {
            max_fragment_len: 20,
            ..Config::default()
        };
        let mut p = Pair::psk(cfg.clone(), cfg, seed).with_loss(seed, 0.15);
        p.handshake();
        assert!(
            p.client.is_established() && p.server_established(),
            "seed {seed}"
        );
    }
}

#[test]
fn close_notify_both_sides() {
    let mut p = Pair::psk(Config::default(), Config::default(), 10);
    p.handshake();
    p.client.close();
    p.run_until(p.now + 1_000_000, |p| {
        p.server_events.contains(&Event::Closed)
    });
    assert!(p.server_events.contains(&Event::Closed));
    assert!(p.client_events.contains(&Event::Closed));
    assert_eq!(p.client.phase(), Phase::Closed);
    assert_eq!(p.server.session_count(), 0);
    assert_eq!(p.client.send(b"x"), Err(Error::NotConnected));
}

#[test]
fn max_sessions_refuses_new_clients() {
    use std::sync::Arc;
    let mut scfg = ServerConfig::psk(Config::default(), IDENTITY, PSK);
    scfg.max_sessions = 2;
    let mut server = dtls::Server::new(Arc::new(scfg), rng(1), 0).unwrap();
    let ccfg = Arc::new(ClientConfig::psk(Config::default(), IDENTITY, PSK));
    let mut r = rng(2);
    let mut clients: Vec<_> = (0..3)
        .map(|_| dtls::Connection::client(ccfg.clone(), &mut r, 0).unwrap())
        .collect();
    let addr =
        |i: usize| -> std::net::SocketAddr { format!("10.0.0.{}:1000", i + 1).parse().unwrap() };
    for _round in 0..10 {
        for (i, c) in clients.iter_mut().enumerate() {
            while let Some(d) = c.poll_transmit(0) {
                server.handle_datagram(0, addr(i), &d);
            }
        }
        while let Some(t) = server.poll_transmit(0) {
            let i = clients
                .iter()
                .enumerate()
                .position(|(i, _)| addr(i) == t.destination)
                .unwrap();
            clients[i].handle_datagram(0, &t.payload);
        }
    }
    assert!(clients[0].is_established());
    assert!(clients[1].is_established());
    assert_eq!(clients[2].phase(), Phase::Failed);
    assert_eq!(server.stats().refused_full, 1);
    assert_eq!(server.session_count(), 2);
}

#[test]
fn all_psk_suites_under_both_packings() {
    for suite in [CipherSuite::PskAes128Ccm8, CipherSuite::PskAes128GcmSha256] {
        for packing in [
            RecordPacking::OneRecordPerDatagram,
            RecordPacking::PackFlight,
        ] {
            let c = Config {
                cipher_suites: vec![suite],
                packing,
                ..Config::default()
            };
            let mut p = Pair::psk(c.clone(), c, 11);
            p.handshake();
            assert_eq!(p.client.cipher_suite(), Some(suite));
            p.exchange(b"both");
        }
    }
}

#[test]
fn crypto_operation_counts_psk_ccm8() {
    let mut p = Pair::psk(Config::tightest_psk_ccm8(), Config::tightest_psk_ccm8(), 13);
    p.handshake();
    let c = p.client.stats().crypto;
    // Finished sealed (24 B plaintext: 2 + 1 + 2·2 = 7 blocks) and the
    // server's Finished opened (7 blocks).
    assert_eq!(c.aes_blocks, 14);
    assert_eq!((c.ecdh_ops, c.ecdsa_signs, c.ecdsa_verifies), (0, 0, 0));
    let before = c.aes_blocks;
    p.client.send(&[0; 100]).unwrap();
    // 100 B: 2 + 1 + 2·7 = 17 blocks
    assert_eq!(p.client.stats().crypto.aes_blocks, before + 17);
    // master secret (PRF to 48 B: 2 HMAC blocks + 1 A(i) + A(1)), key block
    // (40 B), two Finished PRFs and the transcript hashes: every HMAC costs
    // at least 4 compressions, so well above 40 in total.
    assert!(c.sha256_compressions > 40, "{c:?}");
    let s = p.server.session(&client_addr()).unwrap().stats().crypto;
    assert_eq!(s.aes_blocks, 14);
    // the server's cookie MACs are charged to the endpoint
    assert!(p.server.stats().crypto.sha256_compressions > 0);
}
