//! DTLS 1.2 ECDHE-ECDSA with raw public keys (RFC 7250) against wolfSSL 5.9
//! over real UDP on loopback, in both roles: each side's Certificate is its
//! SubjectPublicKeyInfo and each pins the other's. tinydtls's ECDHE-ECDSA
//! speaks only raw public keys, so this is the form constrained peers use.
//! The wolfSSL peers (peers/wolfssl/) are built with HAVE_RPK by
//! scripts/peers/wolfssl.sh.

mod common;

use common::*;
use dtls::error::CertificateError;
use dtls::{CertificateVerifier, CertifiedKey, CipherSuite, ServerConfig};
use dtls_udp::{run_client, ClientOptions};

const WOLF_ECDHE_CCM8: &str = "ECDHE-ECDSA-AES128-CCM-8";
const SUITE: CipherSuite = CipherSuite::EcdheEcdsaAes128Ccm8;
/// wolfSSL's report of a handshake where both Certificates were raw
/// public keys (WOLFSSL_CERT_TYPE_RPK = 2).
const BOTH_RPK: &str = "certificate_types=server:2,client:2";

/// A wolfSSL key pair as files: its PEM private key (openssl CLI) and the
/// DER SubjectPublicKeyInfo of its public key, with ours pinned beside it.
struct Keys {
    _dir: TempDir,
    wolf_key: String,
    wolf_spki: String,
    wolf: CertifiedKey,
    ours: CertifiedKey,
    our_spki: String,
}

fn keys(tag: &str) -> Keys {
    let (dir, _crt, wolf_key) = p256_cert_in(tag);
    let secret = dtls_udp::private_key(&std::fs::read(&wolf_key).unwrap()).unwrap();
    let wolf = CertifiedKey::raw_public_key(secret).unwrap();
    let ours = CertifiedKey::raw_public_key(dtls::Secret(vec![7; 32])).unwrap();
    let (wolf_spki, our_spki) = (dir.path("wolf.spki.der"), dir.path("ours.spki.der"));
    std::fs::write(&wolf_spki, &wolf.chain[0]).unwrap();
    std::fs::write(&our_spki, &ours.chain[0]).unwrap();
    Keys {
        _dir: dir,
        wolf_key,
        wolf_spki,
        wolf,
        ours,
        our_spki,
    }
}

fn pin(k: &CertifiedKey) -> CertificateVerifier {
    CertificateVerifier::Pinned(k.chain[0].clone())
}

/// Our client with its raw public key, pinning `server`.
fn our_client(port: u16, k: &Keys, server: CertificateVerifier) -> ClientOptions {
    let mut opts = ClientOptions::certificate(addr(port), only(SUITE), None).unwrap();
    opts.config.server_verifier = server;
    opts.config.client_certificate = Some(k.ours.clone());
    opts.messages = vec![b"hello raw keys".to_vec()];
    opts.seed = Some(41);
    opts
}

fn wolf_server(k: &Keys) -> (Peer, u16) {
    wolfssl_server(
        "1.2",
        &[
            "--cipher",
            WOLF_ECDHE_CCM8,
            "--cert",
            &k.wolf_spki,
            "--key",
            &k.wolf_key,
            "--rpk",
            &k.our_spki,
            "--sessions",
            "1",
            "--duration",
            "20",
        ],
    )
}

#[test]
fn our_rpk_client_to_wolfssl_server() {
    if !have_wolfssl() {
        return;
    }
    let k = keys("wolf-rpk-c");
    let (srv, port) = wolf_server(&k);
    let report = run_client(&our_client(port, &k, pin(&k.wolf)))
        .expect("raw-public-key handshake with the wolfSSL server");
    assert_eq!(report.cipher_suite, Some(SUITE));
    assert_eq!(
        report.received,
        vec![b"hello raw keys".to_vec()],
        "the echo"
    );
    // our CertificateVerify signed, the server's key exchange verified
    assert_eq!(report.stats.crypto.ecdsa_signs, 1);
    assert_eq!(report.stats.crypto.ecdsa_verifies, 1);
    assert_wolfssl_sees(&srv, BOTH_RPK);
    assert_wolfssl_sees(&srv, "text=hello raw keys");
}

#[test]
fn our_client_refuses_a_wolfssl_server_key_it_did_not_pin() {
    if !have_wolfssl() {
        return;
    }
    let k = keys("wolf-rpk-wrong");
    let (srv, port) = wolf_server(&k);
    let other = CertifiedKey::raw_public_key(dtls::Secret(vec![9; 32])).unwrap();
    let err = run_client(&our_client(port, &k, pin(&other))).unwrap_err();
    assert!(
        matches!(
            err,
            dtls_udp::Error::Dtls(dtls::Error::BadCertificate(CertificateError::NotPinned))
        ),
        "{err}"
    );
    // the alert RFC 5246 §7.2.2 names, as wolfSSL received it
    assert_wolfssl_sees(&srv, "alert received level=2 code=42 desc=bad_certificate");
}

#[test]
fn wolfssl_rpk_client_to_our_server() {
    if !have_wolfssl() {
        return;
    }
    let k = keys("wolf-rpk-s");
    let mut config = ServerConfig::psk(only(SUITE), IDENTITY, PSK);
    config.psk_store = None;
    config.certificate = Some(k.ours.clone());
    config.client_verifier = Some(pin(&k.wolf));
    let (port, h) = our_server(config, 42, stop_after_messages(12, 1));
    let (cli, report) = wolfssl_client12_to_ours(
        port,
        h,
        &[
            "--cipher",
            WOLF_ECDHE_CCM8,
            "--cert",
            &k.wolf_spki,
            "--key",
            &k.wolf_key,
            "--rpk",
            &k.our_spki,
            "--send",
            "ping over raw keys",
        ],
    );
    assert_wolfssl_sees(&cli, BOTH_RPK);
    assert_wolfssl_sees(&cli, "echo bytes=18 text=ping over raw keys");
    assert_eq!(report.handshakes.len(), 1, "{report:?}");
    let st = &report.handshakes[0].stats;
    // our ServerKeyExchange signed, the client's CertificateVerify verified
    assert_eq!((st.crypto.ecdsa_signs, st.crypto.ecdsa_verifies), (1, 1));
}
