//! Full PSK-AES128-CCM8 DTLS 1.2 handshakes per second, client and server in
//! one process over memory, cookie exchange included: our stack
//! (`Config::tightest_psk_ccm8()`, the loop of `crates/dtls/benches/handshake.rs`)
//! against OpenSSL driven the same way (see `src/lib.rs`). Each iteration
//! creates both ends, runs the handshake to completion and drops them.
//!
//! Measured (2-core machine under load from other builds, release,
//! `--measurement-time 5`): ours about 65 000 handshakes/s (15.4 µs),
//! OpenSSL 3.0.19 about 15 700/s (63.6 µs).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dtlsim_bench_openssl::{openssl_contexts, openssl_handshake, ours_configs, ours_handshake};

fn benches(cr: &mut Criterion) {
    let (c, s) = ours_configs();
    let ctx = openssl_contexts().expect("OpenSSL contexts");

    let mut g = cr.benchmark_group("handshake");
    g.throughput(Throughput::Elements(1));
    let mut seed = 0u64;
    g.bench_function("ours_psk_ccm8_full", |b| {
        b.iter(|| {
            seed += 1;
            black_box(ours_handshake(&c, &s, seed).tally)
        })
    });
    g.bench_function("openssl_psk_ccm8_full", |b| {
        b.iter(|| black_box(openssl_handshake(&ctx).expect("OpenSSL handshake").tally))
    });
    g.finish();
}

criterion_group!(handshakes, benches);
criterion_main!(handshakes);
