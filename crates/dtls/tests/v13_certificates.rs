//! DTLS 1.3 (EC)DHE handshakes authenticated by X.509 certificates and
//! RFC 7250 raw public keys with ecdsa_secp256r1_sha256: server-only and
//! mutual, the alerts for a bad signature, an unpinned certificate and a
//! missing client certificate, and the public-key operations each side
//! performs.

use std::sync::Arc;

use dtls::accounting::CryptoOps;
use dtls::cert::CertificateType;
use dtls::crypto::ecc;
use dtls::v13::config::{ClientConfig13, Config13, Credential13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::key_exchange::NamedGroup;
use dtls::v13::suite::CipherSuite13;
use dtls::Session;
use dtls::{AlertDescription, CertificateVerifier, CertifiedKey, Error, Event, Secret};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn config(types: &[CertificateType]) -> Config13 {
    Config13 {
        suites: vec![CipherSuite13::Aes128GcmSha256],
        groups: vec![NamedGroup::Secp256r1],
        certificate_types: types.to_vec(),
        ..Config13::default()
    }
}

fn key(b: u8) -> Secret {
    Secret(vec![b; 32])
}

fn x509(b: u8, name: &str) -> Credential13 {
    let k = key(b);
    let cert = ecc::self_signed_certificate(&k, name).unwrap();
    Credential13::x509(CertifiedKey {
        chain: vec![cert],
        private_key: k,
    })
}

fn rpk(b: u8) -> Credential13 {
    Credential13::raw_public_key(key(b)).unwrap()
}

struct Run {
    client: Connection13,
    server: Connection13,
    client_events: Vec<Event>,
    server_events: Vec<Event>,
}

fn run(client: ClientConfig13, server: ServerConfig13) -> Run {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let peer = "[fe80::1]:5684".parse().unwrap();
    let mut srv = Connection13::server(Arc::new(server), peer, &mut rng, 0).unwrap();
    let mut cli = Connection13::client(Arc::new(client), &mut rng, 0).unwrap();
    let (mut ce, mut se) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        while let Some(d) = cli.poll_transmit(0) {
            srv.handle_datagram(0, &d);
        }
        while let Some(d) = srv.poll_transmit(0) {
            cli.handle_datagram(0, &d);
        }
        ce.extend(std::iter::from_fn(|| cli.poll_event()));
        se.extend(std::iter::from_fn(|| srv.poll_event()));
    }
    Run {
        client: cli,
        server: srv,
        client_events: ce,
        server_events: se,
    }
}

fn public_key_ops(o: &CryptoOps) -> (u64, u64, u64) {
    (o.ecdsa_signs, o.ecdsa_verifies, o.ecdh_ops)
}

fn connected(r: &mut Run) {
    assert!(r.client.is_established(), "{:?}", r.client_events);
    assert!(r.server.is_established(), "{:?}", r.server_events);
    r.client.send(b"ping").unwrap();
    let d = r.client.poll_transmit(0).unwrap();
    r.server.handle_datagram(0, &d);
    assert_eq!(
        r.server.poll_event(),
        Some(Event::ApplicationData(b"ping".to_vec()))
    );
}

/// Server-only authentication, X.509 and raw public key: the server signs
/// once, the client verifies once; each side makes one key pair and one
/// shared secret.
#[test]
fn server_authenticated_by_certificate_or_raw_public_key() {
    for (own, accept) in [
        (x509(0x11, "server"), CertificateType::X509),
        (rpk(0x11), CertificateType::RawPublicKey),
    ] {
        let pin = CertificateVerifier::Pinned(own.leaf().to_vec());
        let c = ClientConfig13::certificate(config(&[accept]), pin);
        let s = ServerConfig13::certificate(config(&[CertificateType::X509]), own);
        let mut r = run(c, s);
        connected(&mut r);
        assert_eq!(public_key_ops(&r.client.stats().crypto), (0, 1, 2));
        assert_eq!(public_key_ops(&r.server.stats().crypto), (1, 0, 2));
    }
}

/// Mutual authentication: each side signs once and verifies once.
#[test]
fn mutual_authentication_with_certificates_and_raw_public_keys() {
    for (server_own, client_own, t) in [
        (
            x509(0x11, "server"),
            x509(0x22, "client"),
            CertificateType::X509,
        ),
        (rpk(0x11), rpk(0x22), CertificateType::RawPublicKey),
    ] {
        let mut c = ClientConfig13::certificate(
            config(&[t]),
            CertificateVerifier::Pinned(server_own.leaf().to_vec()),
        );
        let client_leaf = client_own.leaf().to_vec();
        c.certificate = Some(client_own);
        let mut s = ServerConfig13::certificate(config(&[t]), server_own);
        s.client_verifier = Some(CertificateVerifier::Pinned(client_leaf));
        let mut r = run(c, s);
        connected(&mut r);
        assert_eq!(public_key_ops(&r.client.stats().crypto), (1, 1, 2));
        assert_eq!(public_key_ops(&r.server.stats().crypto), (1, 1, 2));
    }
}

/// With a HelloRetryRequest cookie the certificate handshake still
/// completes (the second ClientHello repeats the certificate extensions).
#[test]
fn certificate_handshake_through_a_cookie_exchange() {
    let own = rpk(0x11);
    let pin = CertificateVerifier::Pinned(own.leaf().to_vec());
    let c = ClientConfig13::certificate(config(&[CertificateType::RawPublicKey]), pin);
    let s = ServerConfig13::certificate(config(&[CertificateType::X509]), own);
    assert!(s.require_cookie);
    let mut r = run(c, s);
    connected(&mut r);
}

fn failed_with(events: &[Event]) -> Option<&Error> {
    events.iter().find_map(|e| match e {
        Event::Failed(e) => Some(e),
        _ => None,
    })
}

fn alert_received(events: &[Event]) -> Option<AlertDescription> {
    events.iter().find_map(|e| match e {
        Event::AlertReceived(a) => Some(a.description),
        _ => None,
    })
}

/// A server whose certificate is not the one its key signs with: the
/// client refuses its CertificateVerify with decrypt_error (RFC 8446
/// §4.4.3).
#[test]
fn a_wrong_signature_is_refused_with_decrypt_error() {
    let mut own = x509(0x11, "server");
    own.private_key = key(0x33);
    let pin = CertificateVerifier::Pinned(own.leaf().to_vec());
    let c = ClientConfig13::certificate(config(&[CertificateType::X509]), pin);
    let s = ServerConfig13::certificate(config(&[CertificateType::X509]), own);
    let r = run(c, s);
    assert!(!r.client.is_established() && !r.server.is_established());
    assert_eq!(failed_with(&r.client_events), Some(&Error::BadSignature));
    assert_eq!(
        alert_received(&r.server_events),
        Some(AlertDescription::DecryptError)
    );
}

#[test]
fn an_unpinned_certificate_is_refused_with_bad_certificate() {
    let other = x509(0x44, "someone else");
    let pin = CertificateVerifier::Pinned(other.leaf().to_vec());
    let c = ClientConfig13::certificate(config(&[CertificateType::X509]), pin);
    let s = ServerConfig13::certificate(config(&[CertificateType::X509]), x509(0x11, "server"));
    let r = run(c, s);
    assert!(matches!(
        failed_with(&r.client_events),
        Some(Error::BadCertificate(_))
    ));
    assert_eq!(
        alert_received(&r.server_events),
        Some(AlertDescription::BadCertificate)
    );
}

/// The server asks for a certificate the client does not have:
/// certificate_required (116, RFC 8446 §4.4.2.4).
#[test]
fn a_missing_client_certificate_is_refused_with_certificate_required() {
    let own = x509(0x11, "server");
    let pin = CertificateVerifier::Pinned(own.leaf().to_vec());
    let c = ClientConfig13::certificate(config(&[CertificateType::X509]), pin);
    let mut s = ServerConfig13::certificate(config(&[CertificateType::X509]), own);
    s.client_verifier = Some(CertificateVerifier::AcceptAny);
    let r = run(c, s);
    assert!(!r.server.is_established());
    assert_eq!(
        alert_received(&r.client_events),
        Some(AlertDescription::Other(116))
    );
}

/// A raw public key the client does not accept (it asked for X.509 only):
/// unsupported_certificate (RFC 7250 §4.2).
#[test]
fn no_certificate_type_in_common_is_refused() {
    let own = rpk(0x11);
    let c = ClientConfig13::certificate(
        config(&[CertificateType::X509]),
        CertificateVerifier::AcceptAny,
    );
    let s = ServerConfig13::certificate(config(&[CertificateType::X509]), own);
    let r = run(c, s);
    assert!(!r.client.is_established());
    assert_eq!(
        alert_received(&r.client_events),
        Some(AlertDescription::UnsupportedCertificate)
    );
}
