//! ECDHE-ECDSA handshakes in memory, with and without a client certificate.

mod common;

use common::*;
use dtls::crypto::ecc::self_signed_certificate;
use dtls::Session;
use dtls::{
    AlertDescription, CertificateVerifier, CertifiedKey, CipherSuite, ClientConfig, Config, Error,
    Secret, ServerConfig,
};

fn key(b: u8) -> Secret {
    Secret(vec![b; 32])
}

fn server_cfg(
    suite: CipherSuite,
    client_verifier: Option<CertificateVerifier>,
) -> (ServerConfig, Vec<u8>) {
    let cert = self_signed_certificate(&key(3), "server").unwrap();
    let mut s = ServerConfig::psk(
        Config {
            cipher_suites: vec![suite],
            ..Config::default()
        },
        IDENTITY,
        PSK,
    );
    s.psk_store = None;
    s.certificate = Some(CertifiedKey {
        chain: vec![cert.clone()],
        private_key: key(3),
    });
    s.client_verifier = client_verifier;
    (s, cert)
}

fn client_cfg(suite: CipherSuite, pinned: Vec<u8>, cert: Option<CertifiedKey>) -> ClientConfig {
    ClientConfig {
        config: Config {
            cipher_suites: vec![suite],
            ..Config::default()
        },
        psk: None,
        server_verifier: CertificateVerifier::Pinned(pinned),
        client_certificate: cert,
    }
}

#[test]
fn ecdhe_ecdsa_both_suites() {
    for suite in [
        CipherSuite::EcdheEcdsaAes128Ccm8,
        CipherSuite::EcdheEcdsaAes128GcmSha256,
    ] {
        let (s, cert) = server_cfg(suite, None);
        let mut p = Pair::new(client_cfg(suite, cert, None), s, 20);
        p.handshake();
        assert_eq!(p.client.cipher_suite(), Some(suite));
        p.exchange(b"ecdhe");
        let c = p.client.stats().crypto;
        assert_eq!((c.ecdh_ops, c.ecdsa_verifies, c.ecdsa_signs), (2, 1, 0));
    }
}

#[test]
fn ecdhe_with_client_certificate() {
    let suite = CipherSuite::EcdheEcdsaAes128Ccm8;
    let client_cert = self_signed_certificate(&key(5), "client").unwrap();
    let (s, cert) = server_cfg(
        suite,
        Some(CertificateVerifier::Pinned(client_cert.clone())),
    );
    let ck = CertifiedKey {
        chain: vec![client_cert],
        private_key: key(5),
    };
    let mut p = Pair::new(client_cfg(suite, cert, Some(ck)), s, 21);
    p.handshake();
    p.exchange(b"mutual");
    assert_eq!(p.client.stats().crypto.ecdsa_signs, 1);
}

#[test]
fn missing_client_certificate_is_refused() {
    let suite = CipherSuite::EcdheEcdsaAes128Ccm8;
    let (s, cert) = server_cfg(suite, Some(CertificateVerifier::AcceptAny));
    let mut p = Pair::new(client_cfg(suite, cert, None), s, 22);
    p.run_until(20_000_000, |p| p.failed_client().is_some());
    assert!(matches!(p.failed_server(), Some(Error::BadCertificate(_))));
    assert_eq!(
        p.failed_client(),
        Some(&Error::AlertReceived(AlertDescription::BadCertificate))
    );
}

#[test]
fn wrong_pinned_server_certificate() {
    let suite = CipherSuite::EcdheEcdsaAes128Ccm8;
    let (s, _) = server_cfg(suite, None);
    let other = self_signed_certificate(&key(4), "other").unwrap();
    let mut p = Pair::new(client_cfg(suite, other, None), s, 23);
    p.run_until(20_000_000, |p| {
        p.failed_client().is_some() && p.failed_server().is_some()
    });
    assert!(matches!(p.failed_client(), Some(Error::BadCertificate(_))));
    assert_eq!(
        p.failed_server(),
        Some(&Error::AlertReceived(AlertDescription::BadCertificate))
    );
}

#[test]
fn ecdhe_with_small_fragments_and_loss() {
    let suite = CipherSuite::EcdheEcdsaAes128Ccm8;
    for seed in 0..5 {
        let (mut s, cert) = server_cfg(suite, None);
        s.config.max_fragment_len = 48;
        let mut c = client_cfg(suite, cert, None);
        c.config.max_fragment_len = 48;
        let mut p = Pair::new(c, s, seed).with_loss(seed, 0.15);
        p.handshake();
        assert!(
            p.client.is_established() && p.server_established(),
            "seed {seed}"
        );
    }
}

/// Every handshake datagram fits the MTU (e.g. one 802.15.4 frame's worth
/// of UDP payload), for both packings and both key exchanges. The one floor:
/// the first fragment of a ClientHello carries everything up to the cookie
/// (61 B + cookie), which a stateless server needs in one piece.
#[test]
fn every_datagram_fits_a_small_mtu() {
    for mtu in [72usize, 100, 127] {
        for packing in [
            dtls::RecordPacking::PackFlight,
            dtls::RecordPacking::OneRecordPerDatagram,
        ] {
            let suite = CipherSuite::EcdheEcdsaAes128Ccm8;
            let (mut s, cert) = server_cfg(suite, None);
            s.cookie_len = 8;
            s.config.mtu = mtu;
            s.config.packing = packing;
            let mut c = client_cfg(suite, cert, None);
            c.config.mtu = mtu;
            c.config.packing = packing;
            let mut p = Pair::new(c, s, 24);
            p.handshake();
            assert!(p.client.is_established(), "mtu {mtu}");
            p.exchange(b"small");
            let biggest = p.c2s.iter().chain(&p.s2c).map(Vec::len).max().unwrap();
            assert!(
                biggest <= mtu,
                "mtu {mtu} {packing:?}: datagram of {biggest} B"
            );

            let cfg = Config {
                mtu,
                packing,
                ..Config::default()
            };
            let mut sc = ServerConfig::psk(cfg.clone(), IDENTITY, PSK);
            sc.cookie_len = 8;
            let mut p = Pair::new(ClientConfig::psk(cfg, IDENTITY, PSK), sc, 25);
            p.handshake();
            let biggest = p.c2s.iter().chain(&p.s2c).map(Vec::len).max().unwrap();
            assert!(
                biggest <= mtu,
                "PSK mtu {mtu} {packing:?}: datagram of {biggest} B"
            );
        }
    }
}
