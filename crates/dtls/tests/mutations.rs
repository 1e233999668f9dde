//! Property tests: random mutations of real handshake datagrams, at every
//! position of the handshake (each datagram of each direction), delivered
//! instead of or next to the original. Nothing panics, no side is left
//! stuck, the server never holds more than the one session.

mod common;

use common::*;
use dtls::crypto::ecc::self_signed_certificate;
use dtls::Session;
use dtls::{
    CertificateVerifier, CertifiedKey, CipherSuite, ClientConfig, Config, Phase, RecordPacking,
    Secret, ServerConfig,
};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Mutation {
    FlipBit(usize),
    Truncate(usize),
    SetByte(usize, u8),
    InsertByte(usize, u8),
    Random(Vec<u8>),
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    Replace,
    InjectBefore,
    InjectAfter,
}

fn apply(m: &Mutation, d: &[u8]) -> Vec<u8> {
    let mut d = d.to_vec();
    let n = d.len().max(1);
    match m {
        Mutation::FlipBit(i) => {
            let i = i % (n * 8);
            if !d.is_empty() {
                d[i / 8] ^= 1 << (i % 8);
            }
        }
        Mutation::Truncate(i) => d.truncate(i % n),
        Mutation::SetByte(i, v) => {
            if !d.is_empty() {
                d[i % n] = *v;
            }
        }
        Mutation::InsertByte(i, v) => d.insert(i % (d.len() + 1), *v),
        Mutation::Random(r) => d = r.clone(),
    }
    d
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::FlipBit),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<u8>()).prop_map(|(i, v)| Mutation::SetByte(i, v)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, v)| Mutation::InsertByte(i, v)),
        proptest::collection::vec(any::<u8>(), 0..200).prop_map(Mutation::Random),
    ]
}

fn mode() -> impl Strategy<Value = Mode> {
    prop_oneof![
        Just(Mode::Replace),
        Just(Mode::InjectBefore),
        Just(Mode::InjectAfter)
    ]
}

fn check(mut p: Pair, c2s: bool, index: usize, m: Mutation, mode: Mode) {
    p.tamper = Some(Box::new(move |dir, i, d| {
        if dir != c2s || i != index {
            return vec![d];
        }
        let bad = apply(&m, &d);
        match mode {
            Mode::Replace => vec![bad],
            Mode::InjectBefore => vec![bad, d],
            Mode::InjectAfter => vec![d, bad],
        }
    }));
    p.run_until(600_000_000, |p| {
        p.client.is_established() && p.server_established()
    });
    // Let retransmission timers run out.
    p.run_until(3_600_000_000, |_| false);
    assert!(p.server.session_count() <= 1);
    assert!(
        matches!(
            p.client.phase(),
            Phase::Established | Phase::Failed | Phase::Closed
        ),
        "client stuck in {:?}",
        p.client.phase()
    );
    if let Some(s) = p.server.session(&client_addr()) {
        assert_eq!(s.phase(), Phase::Established, "server session stuck");
    }
    if p.client.is_established() && p.server_established() {
        p.tamper = None;
        p.exchange(b"after mutation");
    }
}

/// The PSK tests' configuration: one record per datagram or packed
/// flights, a doubling retransmission timer from 1 s, at most 4 resends.
fn psk_config(one_record: bool) -> Config {
    let packing = if one_record {
        RecordPacking::OneRecordPerDatagram
    } else {
        RecordPacking::PackFlight
    };
    Config {
        packing,
        retransmit: dtls::RetransmitPolicy::Doubling {
            initial_us: 1_000_000,
            max_us: 8_000_000,
            max_retransmissions: 4,
        },
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn psk_handshake_survives_mutations(
        c2s in any::<bool>(),
        index in 0usize..8,
        m in mutation(),
        mode in mode(),
        one_record in any::<bool>(),
    ) {
        let cfg = psk_config(one_record);
        check(Pair::psk(cfg.clone(), cfg, 77), c2s, index, m, mode);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]

    #[test]
    fn ecdhe_handshake_survives_mutations(
        c2s in any::<bool>(),
        index in 0usize..6,
        m in mutation(),
        mode in mode(),
    ) {
        let suite = CipherSuite::EcdheEcdsaAes128Ccm8;
        let key = Secret(vec![3; 32]);
        let cert = self_signed_certificate(&key, "s").unwrap();
        let cfg = Config {
            cipher_suites: vec![suite],
            retransmit: dtls::RetransmitPolicy::Fixed { interval_us: 1_000_000, max_retransmissions: 3 },
            ..Config::default()
        };
        let mut s = ServerConfig::psk(cfg.clone(), IDENTITY, PSK);
        s.psk_store = None;
        s.certificate = Some(CertifiedKey { chain: vec![cert.clone()], private_key: key });
        let c = ClientConfig {
            config: cfg,
            psk: None,
            server_verifier: CertificateVerifier::Pinned(cert),
            client_certificate: None,
        };
        check(Pair::new(c, s, 78), c2s, index, m, mode);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The CBC-SHA suite: the protected Finished records (MAC-then-encrypt,
    /// padding) are mutated too.
    #[test]
    fn psk_cbc_handshake_survives_mutations(
        c2s in any::<bool>(),
        index in 0usize..8,
        m in mutation(),
        mode in mode(),
        one_record in any::<bool>(),
    ) {
        let cfg = Config {
            cipher_suites: vec![CipherSuite::PskAes128CbcSha],
            ..psk_config(one_record)
        };
        check(Pair::psk(cfg.clone(), cfg, 79), c2s, index, m, mode);
    }

    /// Mutated CBC application records after the handshake: never a panic,
    /// never data other than what was sent.
    #[test]
    fn cbc_application_records_survive_mutations(
        n in 0usize..80,
        m in mutation(),
        sha256 in any::<bool>(),
    ) {
        let suite = if sha256 { CipherSuite::PskAes128CbcSha256 } else { CipherSuite::PskAes128CbcSha };
        let cfg = Config { cipher_suites: vec![suite], ..Config::default() };
        let mut p = Pair::psk(cfg.clone(), cfg, 80);
        p.handshake();
        let data = vec![0x77u8; n];
        p.client.send(&data).unwrap();
        let d = p.client.poll_transmit(p.now).unwrap();
        let bad = apply(&m, &d);
        p.server.handle_datagram(p.now, client_addr(), &bad);
        while let Some((_, e)) = p.server.poll_event() {
            match e {
                dtls::Event::ApplicationData(x) => prop_assert_eq!(&x, &data),
                dtls::Event::Connected => {}
                other => prop_assert!(false, "unexpected {:?}", other),
            }
        }
        prop_assert!(p.server_established());
    }
}
