//! The certificate path: X.509 DER (the leaf's P-256 key), the DTLS 1.2
//! Certificate message's chain, RFC 7250 raw public keys, DER private keys,
//! and the ECDSA verification every certificate handshake ends in.

use dtls::accounting::CryptoOps;
use dtls::cert::{p256_point_of_spki, p256_spki};
use dtls::crypto::ecc;
use dtls::v12::handshake::messages::parse_certificate;
use dtls::v13::certificate::CertificateVerify;

/// An uncompressed P-256 point: 0x04 then two 32-byte coordinates.
fn is_uncompressed_point(p: &[u8]) -> bool {
    p.len() == 65 && p[0] == 4
}

/// Arbitrary bytes as a certificate, a Certificate message, a raw public
/// key, a private key and a CertificateVerify: every key extracted is an
/// uncompressed P-256 point, a raw public key round-trips, a private key
/// is a 32-byte scalar, and verifying an arbitrary signature against an
/// extracted key never panics (the fuzzer cannot forge one for it).
pub fn parse(data: &[u8]) {
    let mut ops = CryptoOps::default();
    let mut keys = Vec::new();
    if let Ok(point) = ecc::certificate_public_key(data) {
        assert!(
            is_uncompressed_point(&point),
            "an X.509 key is a P-256 point"
        );
        keys.push(point);
    }
    if let Ok(chain) = parse_certificate(data) {
        for cert in &chain {
            if let Ok(point) = ecc::certificate_public_key(cert) {
                assert!(is_uncompressed_point(&point));
                keys.push(point);
            }
        }
    }
    if let Some(point) = p256_point_of_spki(data) {
        assert!(is_uncompressed_point(point));
        assert_eq!(p256_spki(point), data, "a raw public key round-trips");
    }
    if let Ok(secret) = ecc::private_key_from_der(data) {
        assert_eq!(
            secret.0.len(),
            32,
            "a P-256 private key is a 32-byte scalar"
        );
    }
    if let Ok(cv) = CertificateVerify::decode(data) {
        let mut out = Vec::new();
        cv.encode(&mut out);
        assert_eq!(CertificateVerify::decode(&out).expect("re-decodes"), cv);
        for key in &keys {
            let _ = ecc::verify(key, &[0; 32], &cv.signature, &mut ops);
        }
    }
}
