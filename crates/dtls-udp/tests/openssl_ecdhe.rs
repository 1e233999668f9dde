//! Interoperability with OpenSSL 3.0: TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8 on
//! P-256 with a self-signed certificate made by the openssl CLI.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use dtls::{ByteCounts, CertificateVerifier, CipherSuite, ClientConfig, MessageKind};
use dtls_udp::{run_client, ClientOptions, ServerOptions, ServerReport};

const CCM8: &str = "ECDHE-ECDSA-AES128-CCM8";

fn client_options(port: u16, suite: CipherSuite, pinned: Vec<u8>) -> ClientOptions {
    ClientOptions {
        server: addr(port),
        bind: None,
        config: ClientConfig {
            config: only(suite),
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
        rebind_after_replies: None,
        resume: None,
        keep_session: false,
    }
}

/// Certificate `s_server` on P-256 with `crt`/`key`, offering only
/// `cipher`, plus `extra` options, and its port.
fn s_server_cert(crt: &str, key: &str, cipher: &str, extra: &[&str]) -> (Peer, u16) {
    let mut args = vec![
        "-cert", crt, "-key", key, "-cipher", cipher, "-groups", "P-256",
    ];
    args.extend_from_slice(extra);
    s_server(&args)
}

/// Certificate `s_client` on P-256 offering only `cipher` that accepts only
/// a server certificate signed by (here: equal to) `ca`, plus `extra`
/// options; `-quiet` leaves only the echo in its output.
fn s_client_cert(connect: SocketAddr, ca: &str, cipher: &str, extra: &[&str]) -> Peer {
    let mut args = vec![
        "-cipher",
        cipher,
        "-groups",
        "P-256",
        "-CAfile",
        ca,
        "-verify_return_error",
    ];
    args.extend_from_slice(extra);
    args.push("-quiet");
    s_client(connect, &args)
}

/// Our certificate server on `cfg` with the PEM files the openssl CLI
/// wrote (PKCS#8 key), seeded.
fn cert_server(cfg: dtls::Config, crt: &str, key: &str, seed: u64) -> ServerOptions {
    let mut opts = ServerOptions::certificate(
        "127.0.0.1:0".parse().unwrap(),
        cfg,
        &std::fs::read(crt).unwrap(),
        &std::fs::read(key).unwrap(),
    )
    .unwrap();
    opts.seed = Some(seed);
    opts
}

/// `s_client` (trusting `ca`, with `extra` options) sends `ping` to our
/// server `opts`, which stops after one message; checks that one handshake
/// completed and the echo came back, and returns the server's report.
fn s_client_to_our_server(
    opts: &ServerOptions,
    ca: &str,
    cipher: &str,
    extra: &[&str],
    ping: &str,
) -> ServerReport {
    let (port, h) = spawn_server(opts, stop_after_messages(12, 1));
    let mut cli = s_client_cert(addr(port), ca, cipher, extra);
    cli.write(ping);
    let report = h.join().unwrap();
    assert_eq!(report.handshakes.len(), 1, "{report:?}\n{}", cli.output());
    cli.assert_sees(ping.trim_end());
    report
}

/// In how many records handshake message `msg_type` went (sent or
/// received, per `counts`): more than one when it was fragmented.
fn records(counts: &ByteCounts, msg_type: u8) -> u64 {
    counts
        .iter()
        .find(|(k, _, _)| *k == MessageKind::Handshake(msg_type))
        .map(|(_, _, n)| n)
        .unwrap()
}

fn openssl_to_our_client(suite: CipherSuite, cipher: &str) {
    openssl_to_our_client_via(suite, cipher, None)
}

/// With `loss`: through a seeded lossy loopback relay.
fn openssl_to_our_client_via(suite: CipherSuite, cipher: &str, loss: Option<(f64, u64)>) {
    let (_dir, crt, key) = p256_cert_in("ecdhe-c");
    let (mut srv, port) = s_server_cert(&crt, &key, cipher, &[]);
    srv.write("hello from openssl\n");
    let mut opts = client_options(port, suite, cert_der(&crt));
    let mut _relay = None;
    if let Some((p, seed)) = loss {
        let relay = lossy_relay(addr(port), p, seed);
        opts.server = relay.addr;
        _relay = Some(relay);
        opts.config.config.retransmit = lossy_retransmit();
        opts.handshake_timeout = Duration::from_secs(12);
        opts.messages = vec![b"hello over ecdhe\n".to_vec(); 8];
        opts.expect_replies = 0;
    }
    let report = run_client(&opts).expect("ECDHE handshake");
    assert_eq!(report.cipher_suite, Some(suite));
    if loss.is_none() {
        assert_eq!(report.received, vec![b"hello from openssl\n".to_vec()]);
    }
    srv.assert_sees("hello over ecdhe");
    assert_eq!(report.stats.crypto.ecdsa_verifies, 1);
    assert_eq!(report.stats.crypto.ecdh_ops, 2);
}

#[test]
fn our_client_to_openssl_server_ecdhe_ecdsa_ccm8() {
    if have_openssl() {
        openssl_to_our_client(CipherSuite::EcdheEcdsaAes128Ccm8, CCM8);
    }
}

#[test]
fn our_client_to_openssl_server_ecdhe_ecdsa_ccm8_through_lossy_relay() {
    if have_openssl() {
        openssl_to_our_client_via(CipherSuite::EcdheEcdsaAes128Ccm8, CCM8, Some((0.2, 5)));
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
    let (_dir, crt, key) = p256_cert_in("ecdhe-pin");
    let (_dir2, other, _) = p256_cert_in("ecdhe-pin2");
    let (srv, port) = s_server_cert(&crt, &key, CCM8, &[]);
    let err = run_client(&client_options(
        port,
        CipherSuite::EcdheEcdsaAes128Ccm8,
        cert_der(&other),
    ))
    .unwrap_err();
    assert!(
        matches!(err, dtls_udp::Error::Dtls(dtls::Error::BadCertificate(_))),
        "{err:?}"
    );
    srv.assert_sees("bad certificate");
}

/// `s_client` against our certificate server on `suite`: one signature
/// (ServerKeyExchange) and one ECDH on each side.
fn openssl_client_to_our_server(suite: CipherSuite, cipher: &str) {
    let (_dir, crt, key) = p256_cert_in("ecdhe-s");
    let ping = "ping over ecdhe\n";
    let report = s_client_to_our_server(
        &cert_server(only(suite), &crt, &key, 9),
        &crt,
        cipher,
        &[],
        ping,
    );
    assert_eq!(report.handshakes[0].cipher_suite, Some(suite));
    assert_eq!(report.received[0].1, ping.as_bytes().to_vec());
    let st = &report.handshakes[0].stats;
    assert_eq!(st.crypto.ecdsa_signs, 1);
    assert_eq!(st.crypto.ecdh_ops, 2);
}

#[test]
fn openssl_client_to_our_server_ecdhe_ecdsa_ccm8() {
    if have_openssl() {
        openssl_client_to_our_server(CipherSuite::EcdheEcdsaAes128Ccm8, CCM8);
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
    let (_dir, crt, key) = p256_cert_in("mutual-c");
    let (_dir2, ccrt, ckey) = p256_cert_in("mutual-c2");
    let verify_client = ["-Verify", "1", "-CAfile", &ccrt, "-verify_return_error"];
    let (mut srv, port) = s_server_cert(&crt, &key, CCM8, &verify_client);
    srv.write("hello from openssl\n");
    let mut opts = client_options(port, CipherSuite::EcdheEcdsaAes128Ccm8, cert_der(&crt));
    opts.config.client_certificate = Some(certified_key(&ccrt, &ckey));
    let report = run_client(&opts).expect("mutual ECDHE handshake");
    assert_eq!(report.received, vec![b"hello from openssl\n".to_vec()]);
    assert_eq!(
        report.stats.crypto.ecdsa_signs, 1,
        "CertificateVerify signed"
    );
    srv.assert_sees("hello over ecdhe");
}

#[test]
fn openssl_client_certificate_to_our_server() {
    if !have_openssl() {
        return;
    }
    let (_dir, crt, key) = p256_cert_in("mutual-s");
    let (_dir2, ccrt, ckey) = p256_cert_in("mutual-s2");
    let mut opts = cert_server(only(CipherSuite::EcdheEcdsaAes128Ccm8), &crt, &key, 9);
    opts.config.client_verifier = Some(CertificateVerifier::Pinned(cert_der(&ccrt)));
    let own_cert = ["-cert", &ccrt, "-key", &ckey];
    let report = s_client_to_our_server(&opts, &crt, CCM8, &own_cert, "mutual ping\n");
    assert_eq!(report.handshakes[0].stats.crypto.ecdsa_verifies, 1);
}

/// OpenSSL fragments its Certificate (MTU 256) and we reassemble; we
/// fragment ours (64-byte fragments) and OpenSSL reassembles.
#[test]
fn fragmented_certificate_flights_both_ways() {
    if !have_openssl() {
        return;
    }
    let (_dir, crt, key) = p256_cert_in("frag");
    let (mut srv, port) = s_server_cert(&crt, &key, CCM8, &["-mtu", "256"]);
    srv.write("hello from openssl\n");
    let report = run_client(&client_options(
        port,
        CipherSuite::EcdheEcdsaAes128Ccm8,
        cert_der(&crt),
    ))
    .expect("handshake with a fragmenting server");
    assert_eq!(report.received, vec![b"hello from openssl\n".to_vec()]);
    let cert_records = records(&report.stats.received, 11);
    assert!(
        cert_records >= 2,
        "the certificate arrived in {cert_records} fragments"
    );

    let mut cfg = only(CipherSuite::EcdheEcdsaAes128Ccm8);
    cfg.max_fragment_len = 64;
    let opts = cert_server(cfg, &crt, &key, 10);
    let report = s_client_to_our_server(&opts, &crt, CCM8, &[], "fragmented ping\n");
    let sent_cert = records(&report.handshakes[0].stats.sent, 11);
    assert!(sent_cert >= 5, "certificate in {sent_cert} fragments");
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
    openssl(&["ecparam", "-name", "prime256v1", "-genkey", "-out", &k]);
    openssl(&[
        "req", "-x509", "-new", "-key", &k, "-out", &c, "-subj", "/CN=sec1", "-days", "1",
    ]);
    openssl(&["ec", "-in", &k, "-outform", "DER", "-out", &kd]);
    openssl(&["x509", "-in", &c, "-outform", "DER", "-out", &cd]);
    // Loads `cert` and `key` (any format) and builds a server from them,
    // which fails if they do not belong together.
    let server = |cert: &str, key: &str| {
        let opts = ServerOptions::certificate(
            "127.0.0.1:0".parse().unwrap(),
            only(CipherSuite::EcdheEcdsaAes128Ccm8),
            &std::fs::read(cert).unwrap(),
            &std::fs::read(key).unwrap(),
        )
        .unwrap();
        let rng = <rand_chacha::ChaCha20Rng as rand_core::SeedableRng>::seed_from_u64(1);
        dtls::Server::new(std::sync::Arc::new(opts.config), rng, 0)
    };
    for (cert, key) in [(&c, &k), (&cd, &kd)] {
        server(cert, key).expect("key matches cert");
    }
    // a key that does not match the certificate is refused
    let (other_crt, _) = make_p256_cert(&dir);
    assert!(server(&other_crt, &k).is_err());
}
