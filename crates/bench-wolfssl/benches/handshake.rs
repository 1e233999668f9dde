//! Full ECDHE-ECDSA (P-256, AES-128-GCM) handshakes per second and
//! 500-byte application records sealed by the client and opened by the
//! server, DTLS 1.2 and 1.3, our stack beside wolfSSL, client and server in
//! one thread over memory (see `src/lib.rs`). Each handshake creates both
//! ends, runs to completion (cookie exchange included) and drops them.
//!
//! Measured: see the crate's README.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dtlsim_bench_wolfssl::{
    ours_configs, ours_handshake, wolfssl_contexts, wolfssl_handshake, Credentials, Version,
};

/// Application record size of the reference's bulk transfer (wolfSSL's
/// "DTLS 1.3 Benchmarks" post: 15 MB in 500-byte records).
const RECORD: usize = 500;

fn name(v: Version) -> &'static str {
    match v {
        Version::V12 => "v12",
        Version::V13 => "v13",
    }
}

fn handshakes(cr: &mut Criterion) {
    let creds = Credentials::new();
    let mut g = cr.benchmark_group("handshake");
    g.throughput(Throughput::Elements(1));
    g.sample_size(20);
    let mut seed = 0u64;
    for v in [Version::V12, Version::V13] {
        let ours = ours_configs(v, &creds);
        g.bench_function(format!("ours_{}_ecdhe_ecdsa_gcm", name(v)), |b| {
            b.iter(|| {
                seed += 1;
                black_box(ours_handshake(&ours, seed).1)
            })
        });
        let wolf = wolfssl_contexts(v, &creds).expect("wolfSSL contexts");
        g.bench_function(format!("wolfssl_{}_ecdhe_ecdsa_gcm", name(v)), |b| {
            b.iter(|| black_box(wolfssl_handshake(&wolf).expect("wolfSSL handshake").1))
        });
    }
    g.finish();
}

fn records(cr: &mut Criterion) {
    let creds = Credentials::new();
    let data = [0x5a; RECORD];
    let mut g = cr.benchmark_group("record");
    g.throughput(Throughput::Bytes(RECORD as u64));
    for v in [Version::V12, Version::V13] {
        let (mut ours, _) = ours_handshake(&ours_configs(v, &creds), 1);
        g.bench_function(format!("ours_{}_gcm_500B_seal_open", name(v)), |b| {
            b.iter(|| ours.client_to_server(&data))
        });
        let ctx = wolfssl_contexts(v, &creds).expect("wolfSSL contexts");
        let (mut wolf, _) = wolfssl_handshake(&ctx).expect("wolfSSL handshake");
        g.bench_function(format!("wolfssl_{}_gcm_500B_seal_open", name(v)), |b| {
            b.iter(|| wolf.client_to_server(&data).expect("wolfSSL record"))
        });
    }
    g.finish();
}

criterion_group!(benches, handshakes, records);
criterion_main!(benches);
