//! DTLS 1.2 ECDHE-ECDSA with raw public keys (RFC 7250) in memory: the
//! certificate-type extensions, a Certificate carrying one
//! SubjectPublicKeyInfo, and the peer's key checked against a pinned one
//! in both roles.

mod common;

use common::*;
use dtls::cert::CertificateType;
use dtls::error::CertificateError;
use dtls::v12::handshake::messages::{emit_certificate_as, parse_certificate_as};
use dtls::Session;
use dtls::{
    AlertDescription, CertificateVerifier, CertifiedKey, CipherSuite, ClientConfig, Config, Error,
    Secret, ServerConfig,
};

const SUITE: CipherSuite = CipherSuite::EcdheEcdsaAes128Ccm8;

fn rpk(b: u8) -> CertifiedKey {
    CertifiedKey::raw_public_key(Secret(vec![b; 32])).unwrap()
}

fn pin(k: &CertifiedKey) -> CertificateVerifier {
    CertificateVerifier::Pinned(k.chain[0].clone())
}

fn config() -> Config {
    Config {
        cipher_suites: vec![SUITE],
        ..Config::default()
    }
}

fn server(own: CertifiedKey, client_verifier: Option<CertificateVerifier>) -> ServerConfig {
    let mut s = ServerConfig::psk(config(), IDENTITY, PSK);
    s.psk_store = None;
    s.certificate = Some(own);
    s.client_verifier = client_verifier;
    s
}

fn client(server_verifier: CertificateVerifier, own: Option<CertifiedKey>) -> ClientConfig {
    ClientConfig {
        config: config(),
        psk: None,
        server_verifier,
        client_certificate: own,
    }
}

#[test]
fn a_raw_public_key_is_what_it_holds() {
    let k = rpk(3);
    assert_eq!(k.certificate_type(), CertificateType::RawPublicKey);
    assert_eq!(k.chain[0].len(), 91);
    assert_eq!(pin(&k).certificate_type(), CertificateType::RawPublicKey);
    assert_eq!(
        CertificateVerifier::AcceptAny.certificate_type(),
        CertificateType::X509
    );
    let cert = dtls::crypto::ecc::self_signed_certificate(&Secret(vec![3; 32]), "s").unwrap();
    let x509 = CertifiedKey {
        chain: vec![cert],
        private_key: Secret(vec![3; 32]),
    };
    assert_eq!(x509.certificate_type(), CertificateType::X509);
}

#[test]
fn certificate_body_is_the_bare_key() {
    // RFC 7250 §3: opaque ASN.1_subjectPublicKeyInfo<1..2^24-1>, no list
    let k = rpk(3);
    let mut b = Vec::new();
    emit_certificate_as(CertificateType::RawPublicKey, &k.chain, &mut b);
    assert_eq!(b.len(), 3 + 91);
    assert_eq!(&b[..3], &[0, 0, 91]);
    assert_eq!(
        parse_certificate_as(CertificateType::RawPublicKey, &b).unwrap(),
        k.chain
    );
    let mut x = Vec::new();
    emit_certificate_as(CertificateType::X509, &k.chain, &mut x);
    assert_eq!(x.len(), 3 + 3 + 91);
    assert!(parse_certificate_as(CertificateType::RawPublicKey, &b[..50]).is_err());
}

#[test]
fn server_raw_public_key() {
    let s = rpk(3);
    let mut p = Pair::new(client(pin(&s), None), server(s, None), 30);
    p.handshake();
    p.exchange(b"rpk");
    let c = p.client.stats().crypto;
    assert_eq!((c.ecdh_ops, c.ecdsa_verifies, c.ecdsa_signs), (2, 1, 0));
}

#[test]
fn mutual_raw_public_keys() {
    let (s, c) = (rpk(3), rpk(5));
    let mut p = Pair::new(
        client(pin(&s), Some(c.clone())),
        server(s, Some(pin(&c))),
        31,
    );
    p.handshake();
    p.exchange(b"mutual rpk");
    let cc = p.client.stats().crypto;
    assert_eq!((cc.ecdsa_verifies, cc.ecdsa_signs), (1, 1));
}

#[test]
fn raw_public_keys_are_smaller_than_certificates() {
    let s = rpk(3);
    let mut p = Pair::new(client(pin(&s), None), server(s, None), 32);
    p.handshake();
    let (_, rpk_server_bytes) = p.handshake_bytes();
    let cert = dtls::crypto::ecc::self_signed_certificate(&Secret(vec![3; 32]), "server").unwrap();
    let x509 = CertifiedKey {
        chain: vec![cert.clone()],
        private_key: Secret(vec![3; 32]),
    };
    let mut p = Pair::new(
        client(CertificateVerifier::Pinned(cert.clone()), None),
        server(x509, None),
        32,
    );
    p.handshake();
    let (_, x509_server_bytes) = p.handshake_bytes();
    // the certificate's DER less the SubjectPublicKeyInfo and list
    // framing, less the server_certificate_type answer (5 bytes)
    assert!(
        x509_server_bytes > rpk_server_bytes + cert.len() - 91 - 3 - 5 - 8,
        "{x509_server_bytes} vs {rpk_server_bytes}"
    );
}

#[test]
fn wrong_server_key_is_refused_with_bad_certificate() {
    let other = rpk(4);
    let mut p = Pair::new(client(pin(&other), None), server(rpk(3), None), 33);
    p.run_until(20_000_000, |p| {
        p.failed_client().is_some() && p.failed_server().is_some()
    });
    assert_eq!(
        p.failed_client(),
        Some(&Error::BadCertificate(CertificateError::NotPinned))
    );
    assert_eq!(
        p.failed_server(),
        Some(&Error::AlertReceived(AlertDescription::BadCertificate))
    );
}

#[test]
fn wrong_client_key_is_refused_with_bad_certificate() {
    let s = rpk(3);
    let mut p = Pair::new(
        client(pin(&s), Some(rpk(5))),
        server(s, Some(pin(&rpk(6)))),
        34,
    );
    p.run_until(20_000_000, |p| p.failed_client().is_some());
    assert_eq!(
        p.failed_server(),
        Some(&Error::BadCertificate(CertificateError::NotPinned))
    );
    assert_eq!(
        p.failed_client(),
        Some(&Error::AlertReceived(AlertDescription::BadCertificate))
    );
}

#[test]
fn a_client_that_takes_only_raw_keys_gets_no_x509_server() {
    let cert = dtls::crypto::ecc::self_signed_certificate(&Secret(vec![3; 32]), "server").unwrap();
    let x509 = CertifiedKey {
        chain: vec![cert],
        private_key: Secret(vec![3; 32]),
    };
    let mut p = Pair::new(client(pin(&rpk(3)), None), server(x509, None), 35);
    p.run_until(20_000_000, |p| p.failed_client().is_some());
    assert!(matches!(
        p.failed_server(),
        Some(Error::HandshakeFailure(_))
    ));
    assert_eq!(
        p.failed_client(),
        Some(&Error::AlertReceived(AlertDescription::HandshakeFailure))
    );
}
