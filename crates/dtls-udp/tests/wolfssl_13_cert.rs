//! DTLS 1.3 (RFC 9147) with ECDHE and an ECDSA P-256 certificate
//! (ecdsa_secp256r1_sha256, RFC 8446 §4.4.3) against wolfSSL 5.9 over real
//! UDP on loopback, both roles; the certificate is a self-signed one made by
//! the openssl CLI, pinned by our client and trusted by wolfSSL's.

mod common;
mod common13;

use common::*;
use common13::*;

use dtls::v13::config::{ClientConfig13, Config13, Credential13, ServerConfig13};
use dtls::v13::suite::CipherSuite13;
use dtls::CertificateVerifier;

fn ccm8_ecdhe() -> Config13 {
    Config13 {
        suites: vec![CipherSuite13::Aes128Ccm8Sha256],
        ..Config13::default()
    }
}

#[test]
fn our_certificate_client_to_wolfssl_server() {
    if !have_wolfssl() || !have_openssl() {
        return;
    }
    let (_dir, crt, key) = p256_cert_in("wolf13-cert-srv");
    let (srv, port) = wolfssl_server13(&["--cipher", WOLF_CCM8, "--cert", &crt, "--key", &key]);
    let config =
        ClientConfig13::certificate(ccm8_ecdhe(), CertificateVerifier::Pinned(cert_der(&crt)));
    let report = our_client13(addr(port), config, 1321, "cert ping");
    assert_wolfssl_server_served(&srv, WOLF_CCM8, "cert ping");
    assert_eq!(report.cipher_suite, Some(CipherSuite13::Aes128Ccm8Sha256));
    // the server's CertificateVerify checked, one ECDHE
    assert_eq!(
        report.stats.crypto.ecdsa_verifies, 1,
        "{:?}",
        report.stats.crypto
    );
    assert!(report.stats.crypto.ecdh_ops > 0);
    assert_eq!(client_hellos_sent(&report.stats), 2, "{report:?}");
}

/// A certificate the client did not pin fails the handshake: the pin is
/// really checked against what wolfSSL sent.
#[test]
fn our_certificate_client_refuses_an_unpinned_wolfssl_certificate() {
    if !have_wolfssl() || !have_openssl() {
        return;
    }
    let (_dir, crt, key) = p256_cert_in("wolf13-cert-srv");
    let (_other, other_crt, _) = p256_cert_in("wolf13-cert-other");
    let (_srv, port) = wolfssl_server13(&["--cipher", WOLF_CCM8, "--cert", &crt, "--key", &key]);
    let mut opts = dtls_udp::ClientOptions13::new(
        addr(port),
        ClientConfig13::certificate(
            ccm8_ecdhe(),
            CertificateVerifier::Pinned(cert_der(&other_crt)),
        ),
    );
    opts.seed = Some(1322);
    let err = dtls_udp::run_client13(&opts).expect_err("an unpinned certificate");
    assert!(
        matches!(err, dtls_udp::Error::Dtls(dtls::Error::BadCertificate(_))),
        "{err:?}"
    );
}

#[test]
fn wolfssl_client_to_our_certificate_server() {
    if !have_wolfssl() || !have_openssl() {
        return;
    }
    let (_dir, crt, key) = p256_cert_in("wolf13-cert-ours");
    let config =
        ServerConfig13::certificate(ccm8_ecdhe(), Credential13::x509(certified_key(&crt, &key)));
    let (port, h) = our_server(config, 1323, stop_after_one_session(12));
    // --ca: wolfSSL verifies our certificate against it
    let mut cli = wolfssl_client13(
        addr(port),
        "cert ping",
        &["--cipher", WOLF_CCM8, "--ca", &crt],
    );
    assert_wolfssl_client_done(&mut cli, WOLF_CCM8, "cert ping");
    let report = h.join().unwrap();
    assert_eq!(report.handshakes.len(), 1, "{report:?}\n{}", cli.output());
    let ops = &report.handshakes[0].stats.crypto;
    assert_eq!(ops.ecdsa_signs, 1, "{ops:?}");
    assert_eq!(report.endpoint.hello_retry_requests, 1);
}
