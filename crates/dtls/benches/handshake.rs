//! Full in-memory handshakes per second, DTLS 1.2 beside DTLS 1.3: PSK-CCM8
//! with and without the cookie exchange (1.3: psk_ke, the
//! HelloRetryRequest cookie), ECDHE-ECDSA certificates (1.2:
//! ECDHE-ECDSA-CCM8; 1.3: secp256r1 with TLS_AES_128_CCM_8_SHA256); and
//! application records (500 bytes, sealed by the client and opened by the
//! server) on an established PSK-CCM8 session of each version. Client and
//! server run in one thread over memory; each handshake creates both ends
//! and drops them.
//!
//! Measured (2-core machine shared with other builds, release,
//! `-- --measurement-time 3`; medians): PSK-CCM8 with cookie 1.2 43.8 µs
//! (22 800/s), 1.3 83.4 µs (12 000/s); without cookie 1.2 40.6 µs, 1.3
//! 65.7 µs; ECDHE-ECDSA 1.2 2.43 ms, 1.3 2.33 ms; a 500-byte record sealed
//! and opened 1.2 9.0 µs (53 MiB/s), 1.3 6.4 µs (75 MiB/s).

use std::net::SocketAddr;
use std::sync::Arc;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use dtls::crypto::ecc::self_signed_certificate;
use dtls::v13::config::{ClientConfig13, Config13, Credential13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::Server13;
use dtls::v13::key_exchange::NamedGroup;
use dtls::v13::messages::PskMode;
use dtls::v13::suite::CipherSuite13;
use dtls::Session;
use dtls::{
    CertificateVerifier, CertifiedKey, CipherSuite, ClientConfig, Config, Connection, Event,
    Secret, Server, ServerConfig,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const PSK: &[u8] = &[7; 16];
/// Application record size of the reference's bulk transfer (wolfSSL's
/// "DTLS 1.3 Benchmarks" post: 15 MB in 500-byte records).
const RECORD: usize = 500;

/// Benchmark `name`: one handshake per iteration, each with the next
/// seed of the run's one counter.
fn bench_handshakes<T>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    seed: &mut u64,
    mut handshake: impl FnMut(u64) -> T,
) {
    g.bench_function(name, |b| {
        b.iter(|| {
            *seed += 1;
            handshake(*seed)
        })
    });
}

fn peer() -> SocketAddr {
    "[fe80::1]:5684".parse().unwrap()
}

fn handshake(c: &Arc<ClientConfig>, s: &Arc<ServerConfig>, seed: u64) -> usize {
    let peer = peer();
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

fn handshake13(c: &Arc<ClientConfig13>, s: &Arc<ServerConfig13>, seed: u64) -> usize {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut server = Server13::new(s.clone(), ChaCha20Rng::seed_from_u64(!seed), 0).unwrap();
    let mut client = Connection13::client(c.clone(), &mut rng, 0).unwrap();
    let mut bytes = 0;
    while !client.is_established() {
        while let Some(d) = client.poll_transmit(0) {
            bytes += d.len();
            server.handle_datagram(0, peer(), &d);
        }
        while let Some(t) = server.poll_transmit(0) {
            bytes += t.payload.len();
            client.handle_datagram(0, &t.payload);
        }
    }
    bytes
}

fn psk13(require_cookie: bool) -> (Arc<ClientConfig13>, Arc<ServerConfig13>) {
    let config = Config13::psk_ccm8();
    let mut s = ServerConfig13::psk(config.clone(), b"id", PSK);
    s.require_cookie = require_cookie;
    (
        Arc::new(ClientConfig13::psk(config, b"id", PSK)),
        Arc::new(s),
    )
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
    bench_handshakes(&mut g, "psk_ccm8_full", &mut seed, |seed| {
        handshake(&c, &s, seed)
    });
    bench_handshakes(&mut g, "psk_ccm8_no_cookie", &mut seed, |seed| {
        handshake(&c, &no_cookie, seed)
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
    bench_handshakes(&mut g, "ecdhe_ecdsa_ccm8_full", &mut seed, |seed| {
        handshake(&ec, &es, seed)
    });
    g.sample_size(100);
    for (name, cookie) in [
        ("v13_psk_ccm8_full", true),
        ("v13_psk_ccm8_no_cookie", false),
    ] {
        let (c, s) = psk13(cookie);
        bench_handshakes(&mut g, name, &mut seed, |seed| handshake13(&c, &s, seed));
    }
    let key = Secret(vec![3; 32]);
    let cert = self_signed_certificate(&key, "bench").unwrap();
    let ecfg = Config13 {
        suites: vec![CipherSuite13::Aes128Ccm8Sha256],
        psk_modes: vec![PskMode::PskDheKe],
        groups: vec![NamedGroup::Secp256r1],
        ..Config13::default()
    };
    let ec = Arc::new(ClientConfig13::certificate(
        ecfg.clone(),
        CertificateVerifier::Pinned(cert.clone()),
    ));
    let es = Arc::new(ServerConfig13::certificate(
        ecfg,
        Credential13::x509(CertifiedKey {
            chain: vec![cert],
            private_key: key,
        }),
    ));
    g.sample_size(20);
    bench_handshakes(&mut g, "v13_ecdhe_ecdsa_ccm8_full", &mut seed, |seed| {
        handshake13(&ec, &es, seed)
    });
    g.finish();
}

/// An established PSK-CCM8 DTLS 1.2 pair (no cookie).
fn session12() -> (Connection, Server<ChaCha20Rng>) {
    let psk = Config::tightest_psk_ccm8();
    let c = Arc::new(ClientConfig::psk(psk.clone(), b"id", PSK));
    let mut s = ServerConfig::psk(psk, b"id", PSK);
    s.require_cookie = false;
    let mut server = Server::new(Arc::new(s), ChaCha20Rng::seed_from_u64(1), 0).unwrap();
    let mut client = Connection::client(c, &mut ChaCha20Rng::seed_from_u64(2), 0).unwrap();
    while !client.is_established() {
        while let Some(d) = client.poll_transmit(0) {
            server.handle_datagram(0, peer(), &d);
        }
        while let Some(t) = server.poll_transmit(0) {
            client.handle_datagram(0, &t.payload);
        }
    }
    while server.poll_event().is_some() {}
    (client, server)
}

/// An established PSK-CCM8 DTLS 1.3 pair (psk_ke, no cookie).
fn session13() -> (Connection13, Server13<ChaCha20Rng>) {
    let (c, s) = psk13(false);
    let mut server = Server13::new(s, ChaCha20Rng::seed_from_u64(1), 0).unwrap();
    let mut client = Connection13::client(c, &mut ChaCha20Rng::seed_from_u64(2), 0).unwrap();
    // until the server has the client's Finished (and its ACK is back)
    for _ in 0..4 {
        while let Some(d) = client.poll_transmit(0) {
            server.handle_datagram(0, peer(), &d);
        }
        while let Some(t) = server.poll_transmit(0) {
            client.handle_datagram(0, &t.payload);
        }
    }
    assert!(client.is_established());
    while server.poll_event().is_some() {}
    (client, server)
}

fn records(cr: &mut Criterion) {
    let data = [0x5a; RECORD];
    let mut g = cr.benchmark_group("record");
    g.throughput(Throughput::Bytes(RECORD as u64));
    let (mut client, mut server) = session12();
    g.bench_function("psk_ccm8_500B_seal_open", |b| {
        b.iter(|| {
            client.send(&data).unwrap();
            let d = client.poll_transmit(0).unwrap();
            server.handle_datagram(0, peer(), &d);
            match server.poll_event() {
                Some((_, Event::ApplicationData(got))) => got.len(),
                other => panic!("{other:?}"),
            }
        })
    });
    let (mut client, mut server) = session13();
    g.bench_function("v13_psk_ccm8_500B_seal_open", |b| {
        b.iter(|| {
            client.send(&data).unwrap();
            let d = client.poll_transmit(0).unwrap();
            server.handle_datagram(0, peer(), &d);
            match server.poll_event() {
                Some((_, Event::ApplicationData(got))) => got.len(),
                other => panic!("{other:?}"),
            }
        })
    });
    g.finish();
}

criterion_group!(handshakes, benches, records);
criterion_main!(handshakes);
