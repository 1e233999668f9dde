//! Interoperability with OpenSSL 3.0: TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8 on
//! P-256 with a self-signed certificate made by the openssl CLI.

mod support;

use std::time::Duration;

use dtls::{CertificateVerifier, CertifiedKey, CipherSuite, ClientConfig, Config, ServerConfig};
use dtls_udp::{
    bind_server, certificate_der, private_key, run_client, ClientOptions, ServerOptions,
    StopCondition,
};
use support::*;

fn ecdhe(suite: CipherSuite) -> Config {
    Config {
        cipher_suites: vec![suite],
        ..Config::default()
    }
}

fn client_options(port: u16, suite: CipherSuite, pinned: Vec<u8>) -> ClientOptions {
    ClientOptions {
        server: addr(port),
        bind: None,
        config: ClientConfig {
            config: ecdhe(suite),
            psk: None,
            server_verifier: CertificateVerifier::Pinned(pinned),
            client_certificate: None,
        },
        messages: vec![b"hello over ecdhe\n".to_vec()],
        expect_replies: 1,
        handshake_timeout: Duration::from_secs(10),
        reply_timeout: Duration::from_secs(5),
        close: true,
        seed: Some(11),
    }
}

fn openssl_to_our_client(suite: CipherSuite, cipher: &str) {
    openssl_to_our_client_via(suite, cipher, None)
}

/// With `loss`: through a seeded lossy loopback relay.
fn openssl_to_our_client_via(suite: CipherSuite, cipher: &str, loss: Option<(f64, u64)>) {
    let dir = TempDir::new("ecdhe-c");
    let (crt, key) = make_p256_cert(&dir);
    let port = free_port();
    let accept = format!("127.0.0.1:{port}");
    let mut srv = Peer::spawn(&[
        "s_server",
        "-dtls1_2",
        "-listen",
        "-cert",
        &crt,
        "-key",
        &key,
        "-cipher",
        cipher,
        "-groups",
        "P-256",
        "-no_ticket",
        "-accept",
        &accept,
    ]);
    assert!(
        srv.wait_for("ACCEPT", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
    srv.write("hello from openssl\n");
    let der = certificate_der(&std::fs::read(&crt).unwrap()).unwrap();
    let mut opts = client_options(port, suite, der);
    let mut _relay = None;
    if let Some((p, seed)) = loss {
        let relay = lossy_relay(addr(port), p, seed);
        opts.server = relay.addr;
        _relay = Some(relay);
        opts.config.config.retransmit = dtls::RetransmitPolicy::Doubling {
            initial_us: 200_000,
            max_us: 1_000_000,
            max_retransmissions: 20,
        };
        opts.handshake_timeout = Duration::from_secs(12);
        opts.messages = vec![b"hello over ecdhe\n".to_vec(); 8];
        opts.expect_replies = 0;
    }
    let report = run_client(&opts).expect("ECDHE handshake");
    assert_eq!(report.cipher_suite, Some(suite));
    if loss.is_none() {
        assert_eq!(report.received, vec![b"hello from openssl\n".to_vec()]);
    }
    assert!(
        srv.wait_for("hello over ecdhe", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
    assert_eq!(report.stats.crypto.ecdsa_verifies, 1);
    assert_eq!(report.stats.crypto.ecdh_ops, 2);
}

#[test]
fn our_client_to_openssl_server_ecdhe_ecdsa_ccm8() {
    if have_openssl() {
        openssl_to_our_client(CipherSuite::EcdheEcdsaAes128Ccm8, "ECDHE-ECDSA-AES128-CCM8");
    }
}

#[test]
fn our_client_to_openssl_server_ecdhe_ecdsa_ccm8_through_lossy_relay() {
    if have_openssl() {
        openssl_to_our_client_via(
            CipherSuite::EcdheEcdsaAes128Ccm8,
            "ECDHE-ECDSA-AES128-CCM8",
            Some((0.2, 5)),
        );
    }
}

#[test]
fn our_client_to_openssl_server_ecdhe_ecdsa_gcm() {
    if have_openssl() {
        openssl_to_our_client(
            CipherSuite::EcdheEcdsaAes128GcmSha256,
            "ECDHE-ECDSA-AES128-GCM-SHA256",
        );
    }
}

#[test]
fn wrong_pinned_certificate_is_refused() {
    if !have_openssl() {
        return;
    }
    let dir = TempDir::new("ecdhe-pin");
    let (crt, key) = make_p256_cert(&dir);
    let dir2 = TempDir::new("ecdhe-pin2");
    let (other, _) = make_p256_cert(&dir2);
    let port = free_port();
    let accept = format!("127.0.0.1:{port}");
    let srv = Peer::spawn(&[
        "s_server",
        "-dtls1_2",
        "-listen",
        "-cert",
        &crt,
        "-key",
        &key,
        "-cipher",
        "ECDHE-ECDSA-AES128-CCM8",
        "-groups",
        "P-256",
        "-no_ticket",
        "-accept",
        &accept,
    ]);
    assert!(srv.wait_for("ACCEPT", Duration::from_secs(5)));
    let der = certificate_der(&std::fs::read(&other).unwrap()).unwrap();
    let err = run_client(&client_options(
        port,
        CipherSuite::EcdheEcdsaAes128Ccm8,
        der,
    ))
    .unwrap_err();
    assert!(
        matches!(err, dtls_udp::Error::Dtls(dtls::Error::BadCertificate(_))),
        "{err:?}"
    );
    assert!(
        srv.wait_for("bad certificate", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
}

fn openssl_client_to_our_server(suite: CipherSuite, cipher: &str) {
    let dir = TempDir::new("ecdhe-s");
    let (crt, key) = make_p256_cert(&dir);
    // PEM files as written by the openssl CLI (PKCS#8 key)
    let mut opts = ServerOptions::certificate(
        "127.0.0.1:0".parse().unwrap(),
        ecdhe(suite),
        &std::fs::read(&crt).unwrap(),
        &std::fs::read(&key).unwrap(),
    )
    .unwrap();
    opts.seed = Some(9);
    let bound = bind_server(&opts).unwrap();
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
        "-cipher",
        cipher,
        "-groups",
        "P-256",
        "-CAfile",
        &crt,
        "-verify_return_error",
        "-connect",
        &connect,
        "-quiet",
    ]);
    cli.write("ping over ecdhe\n");
    let report = h.join().unwrap();
    assert_eq!(report.handshakes.len(), 1, "{report:?}\n{}", cli.output());
    assert_eq!(report.handshakes[0].cipher_suite, Some(suite));
    assert_eq!(report.received[0].1, b"ping over ecdhe\n".to_vec());
    assert!(
        cli.wait_for("ping over ecdhe", Duration::from_secs(5)),
        "{}",
        cli.output()
    );
    let st = &report.handshakes[0].stats;
    assert_eq!(st.crypto.ecdsa_signs, 1);
    assert_eq!(st.crypto.ecdh_ops, 2);
}

#[test]
fn openssl_client_to_our_server_ecdhe_ecdsa_ccm8() {
    if have_openssl() {
        openssl_client_to_our_server(CipherSuite::EcdheEcdsaAes128Ccm8, "ECDHE-ECDSA-AES128-CCM8");
    }
}

#[test]
fn openssl_client_to_our_server_ecdhe_ecdsa_gcm() {
    if have_openssl() {
        openssl_client_to_our_server(
            CipherSuite::EcdheEcdsaAes128GcmSha256,
            "ECDHE-ECDSA-AES128-GCM-SHA256",
        );
    }
}

/// Mutual authentication: `s_server -Verify` asks for a client certificate;
/// ours (self-signed, made by the openssl CLI) is pinned on the server side
/// with `-CAfile`.
#[test]
fn client_certificate_to_openssl_server() {
    if !have_openssl() {
        return;
    }
    let dir = TempDir::new("mutual-c");
    let (crt, key) = make_p256_cert(&dir);
    let dir2 = TempDir::new("mutual-c2");
    let (ccrt, ckey) = make_p256_cert(&dir2);
    let port = free_port();
    let accept = format!("127.0.0.1:{port}");
    let mut srv = Peer::spawn(&[
        "s_server",
        "-dtls1_2",
        "-listen",
        "-cert",
        &crt,
        "-key",
        &key,
        "-cipher",
        "ECDHE-ECDSA-AES128-CCM8",
        "-groups",
        "P-256",
        "-no_ticket",
        "-Verify",
        "1",
        "-CAfile",
        &ccrt,
        "-verify_return_error",
        "-accept",
        &accept,
    ]);
    assert!(
        srv.wait_for("ACCEPT", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
    srv.write("hello from openssl\n");
    let der = certificate_der(&std::fs::read(&crt).unwrap()).unwrap();
    let mut opts = client_options(port, CipherSuite::EcdheEcdsaAes128Ccm8, der);
    opts.config.client_certificate = Some(CertifiedKey {
        chain: vec![certificate_der(&std::fs::read(&ccrt).unwrap()).unwrap()],
        private_key: private_key(&std::fs::read(&ckey).unwrap()).unwrap(),
    });
    let report = run_client(&opts).expect("mutual ECDHE handshake");
    assert_eq!(report.received, vec![b"hello from openssl\n".to_vec()]);
    assert_eq!(
        report.stats.crypto.ecdsa_signs, 1,
        "CertificateVerify signed"
    );
    assert!(
        srv.wait_for("hello over ecdhe", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
}

#[test]
fn openssl_client_certificate_to_our_server() {
    if !have_openssl() {
        return;
    }
    let dir = TempDir::new("mutual-s");
    let (crt, key) = make_p256_cert(&dir);
    let dir2 = TempDir::new("mutual-s2");
    let (ccrt, ckey) = make_p256_cert(&dir2);
    let suite = CipherSuite::EcdheEcdsaAes128Ccm8;
    let mut config = ServerConfig::psk(ecdhe(suite), b"unused", b"unused");
    config.psk_store = None;
    config.certificate = Some(CertifiedKey {
        chain: vec![certificate_der(&std::fs::read(&crt).unwrap()).unwrap()],
        private_key: private_key(&std::fs::read(&key).unwrap()).unwrap(),
    });
    config.client_verifier = Some(CertificateVerifier::Pinned(
        certificate_der(&std::fs::read(&ccrt).unwrap()).unwrap(),
    ));
    let bound = bind_server(&ServerOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        config,
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
        "-cipher",
        "ECDHE-ECDSA-AES128-CCM8",
        "-groups",
        "P-256",
        "-CAfile",
        &crt,
        "-verify_return_error",
        "-cert",
        &ccrt,
        "-key",
        &ckey,
        "-connect",
        &connect,
        "-quiet",
    ]);
    cli.write("mutual ping\n");
    let report = h.join().unwrap();
    assert_eq!(report.handshakes.len(), 1, "{report:?}\n{}", cli.output());
    assert_eq!(report.handshakes[0].stats.crypto.ecdsa_verifies, 1);
    assert!(
        cli.wait_for("mutual ping", Duration::from_secs(5)),
        "{}",
        cli.output()
    );
}

/// OpenSSL fragments its Certificate (MTU 256) and we reassemble; we
/// fragment ours (64-byte fragments) and OpenSSL reassembles.
#[test]
fn fragmented_certificate_flights_both_ways() {
    if !have_openssl() {
        return;
    }
    let dir = TempDir::new("frag");
    let (crt, key) = make_p256_cert(&dir);
    let port = free_port();
    let accept = format!("127.0.0.1:{port}");
    let mut srv = Peer::spawn(&[
        "s_server",
        "-dtls1_2",
        "-listen",
        "-cert",
        &crt,
        "-key",
        &key,
        "-cipher",
        "ECDHE-ECDSA-AES128-CCM8",
        "-groups",
        "P-256",
        "-no_ticket",
        "-mtu",
        "256",
        "-accept",
        &accept,
    ]);
    assert!(
        srv.wait_for("ACCEPT", Duration::from_secs(5)),
        "{}",
        srv.output()
    );
    srv.write("hello from openssl\n");
    let der = certificate_der(&std::fs::read(&crt).unwrap()).unwrap();
    let report = run_client(&client_options(
        port,
        CipherSuite::EcdheEcdsaAes128Ccm8,
        der,
    ))
    .expect("handshake with a fragmenting server");
    assert_eq!(report.received, vec![b"hello from openssl\n".to_vec()]);
    let cert_records = report
        .stats
        .received
        .iter()
        .find(|(k, _, _)| *k == dtls::MessageKind::Handshake(11))
        .map(|(_, _, n)| n)
        .unwrap();
    assert!(
        cert_records >= 2,
        "the certificate arrived in {cert_records} fragments"
    );

    let suite = CipherSuite::EcdheEcdsaAes128Ccm8;
    let mut cfg = ecdhe(suite);
    cfg.max_fragment_len = 64;
    let mut config = ServerConfig::psk(cfg, b"unused", b"unused");
    config.psk_store = None;
    config.certificate = Some(CertifiedKey {
        chain: vec![certificate_der(&std::fs::read(&crt).unwrap()).unwrap()],
        private_key: private_key(&std::fs::read(&key).unwrap()).unwrap(),
    });
    let bound = bind_server(&ServerOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        config,
        echo: true,
        seed: Some(10),
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
        "-cipher",
        "ECDHE-ECDSA-AES128-CCM8",
        "-groups",
        "P-256",
        "-CAfile",
        &crt,
        "-verify_return_error",
        "-connect",
        &connect,
        "-quiet",
    ]);
    cli.write("fragmented ping\n");
    let report = h.join().unwrap();
    assert_eq!(report.handshakes.len(), 1, "{report:?}\n{}", cli.output());
    let sent_cert = report.handshakes[0]
        .stats
        .sent
        .iter()
        .find(|(k, _, _)| *k == dtls::MessageKind::Handshake(11))
        .map(|(_, _, n)| n)
        .unwrap();
    assert!(sent_cert >= 5, "certificate in {sent_cert} fragments");
    assert!(
        cli.wait_for("fragmented ping", Duration::from_secs(5)),
        "{}",
        cli.output()
    );
}

/// SEC1 ("EC PRIVATE KEY", after an "EC PARAMETERS" block) and DER inputs
/// load too, and the server checks that key and certificate match.
#[test]
fn key_formats_from_openssl() {
    if !have_openssl() {
        return;
    }
    let dir = TempDir::new("keys");
    let (k, c, kd, cd) = (
        dir.path("k.pem"),
        dir.path("c.pem"),
        dir.path("k.der"),
        dir.path("c.der"),
    );
    let run = |args: &[&str]| {
        let st = std::process::Command::new("openssl")
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(st.success(), "{args:?}");
    };
    run(&["ecparam", "-name", "prime256v1", "-genkey", "-out", &k]);
    run(&[
        "req", "-x509", "-new", "-key", &k, "-out", &c, "-subj", "/CN=sec1", "-days", "1",
    ]);
    run(&["ec", "-in", &k, "-outform", "DER", "-out", &kd]);
    run(&["x509", "-in", &c, "-outform", "DER", "-out", &cd]);
    for (cert, key) in [(&c, &k), (&cd, &kd)] {
        let opts = ServerOptions::certificate(
            "127.0.0.1:0".parse().unwrap(),
            ecdhe(CipherSuite::EcdheEcdsaAes128Ccm8),
            &std::fs::read(cert).unwrap(),
            &std::fs::read(key).unwrap(),
        )
        .unwrap();
        let rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(1);
        dtls::Server::new(std::sync::Arc::new(opts.config), rng, 0).expect("key matches cert");
    }
    // a key that does not match the certificate is refused
    let (other_crt, _) = make_p256_cert(&dir);
    let opts = ServerOptions::certificate(
        "127.0.0.1:0".parse().unwrap(),
        ecdhe(CipherSuite::EcdheEcdsaAes128Ccm8),
        &std::fs::read(&other_crt).unwrap(),
        &std::fs::read(&k).unwrap(),
    )
    .unwrap();
    let rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(1);
    assert!(dtls::Server::new(std::sync::Arc::new(opts.config), rng, 0).is_err());
}
