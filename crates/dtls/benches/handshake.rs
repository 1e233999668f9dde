//! Full in-memory handshakes per second (PSK-CCM8 with and without the
//! cookie exchange; ECDHE-ECDSA-CCM8 for comparison) and sealed records.

use std::net::SocketAddr;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dtls::crypto::ecc::self_signed_certificate;
use dtls::{
    CertificateVerifier, CertifiedKey, CipherSuite, ClientConfig, Config, Connection, Secret,
    Server, ServerConfig,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const PSK: &[u8] = &[7; 16];

fn handshake(c: &Arc<ClientConfig>, s: &Arc<ServerConfig>, seed: u64) -> usize {
    let peer: SocketAddr = "[fe80::1]:5684".parse().unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut server = Server::new(s.clone(), ChaCha20Rng::seed_from_u64(!seed), 0).unwrap();
    let mut client = Connection::client(c.clone(), &mut rng, 0).unwrap();
    let mut bytes = 0;
    while !client.is_established() {
        while let Some(d) = client.poll_transmit(0) {
            bytes += d.len();
            server.handle_datagram(0, peer, &d);
        }
        while let Some(t) = server.poll_transmit(0) {
            bytes += t.payload.len();
            client.handle_datagram(0, &t.payload);
        }
    }
    bytes
}

fn benches(cr: &mut Criterion) {
    let psk = Config::tightest_psk_ccm8();
    let c = Arc::new(ClientConfig::psk(psk.clone(), b"id", PSK));
    let s = Arc::new(ServerConfig::psk(psk.clone(), b"id", PSK));
    let mut no_cookie = ServerConfig::psk(psk, b"id", PSK);
    no_cookie.require_cookie = false;
    let no_cookie = Arc::new(no_cookie);

    let mut g = cr.benchmark_group("handshake");
    g.throughput(Throughput::Elements(1));
    let mut seed = 0u64;
    g.bench_function("psk_ccm8_full", |b| {
        b.iter(|| {
            seed += 1;
            handshake(&c, &s, seed)
        })
    });
    g.bench_function("psk_ccm8_no_cookie", |b| {
        b.iter(|| {
            seed += 1;
            handshake(&c, &no_cookie, seed)
        })
    });
    let key = Secret(vec![3; 32]);
    let cert = self_signed_certificate(&key, "bench").unwrap();
    let ecfg = Config {
        cipher_suites: vec![CipherSuite::EcdheEcdsaAes128Ccm8],
        ..Config::default()
    };
    let ec = Arc::new(ClientConfig {
        config: ecfg.clone(),
        psk: None,
        server_verifier: CertificateVerifier::Pinned(cert.clone()),
        client_certificate: None,
    });
    let mut es = ServerConfig::psk(ecfg, b"id", PSK);
    es.psk_store = None;
    es.certificate = Some(CertifiedKey {
        chain: vec![cert],
        private_key: key,
    });
    let es = Arc::new(es);
    g.sample_size(20);
    g.bench_function("ecdhe_ecdsa_ccm8_full", |b| {
        b.iter(|| {
            seed += 1;
            handshake(&ec, &es, seed)
        })
    });
    g.finish();
}

criterion_group!(handshakes, benches);
criterion_main!(handshakes);
