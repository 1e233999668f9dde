//! The CBC suites (TLS_PSK_WITH_AES_128_CBC_SHA, _SHA256) in memory:
//! handshake, exact record sizes, tampering and replay.

mod common;

use common::*;
use dtls::Session;
use dtls::{CipherSuite, Config, Event, MacAlgorithm, Phase, RecordPacking, RecordProtection};

const CBC: [CipherSuite; 2] = [
    CipherSuite::PskAes128CbcSha,
    CipherSuite::PskAes128CbcSha256,
];

fn only(s: CipherSuite) -> Config {
    Config {
        cipher_suites: vec![s],
        ..Config::default()
    }
}

fn established(suite: CipherSuite, seed: u64) -> Pair {
    let mut p = Pair::psk(only(suite), Config::default(), seed);
    p.handshake();
    assert!(p.client.is_established() && p.server_established());
    assert_eq!(p.client.cipher_suite(), Some(suite));
    assert_eq!(
        p.server.session(&client_addr()).unwrap().cipher_suite(),
        Some(suite)
    );
    p
}

/// One record client → server, returned as sent (not delivered).
fn client_record(p: &mut Pair, data: &[u8]) -> Vec<u8> {
    p.client.send(data).unwrap();
    let d = p.client.poll_transmit(p.now).unwrap();
    assert!(p.client.poll_transmit(p.now).is_none());
    d
}

/// Deliver a datagram to the server; the application data events it caused.
fn deliver(p: &mut Pair, d: &[u8]) -> Vec<Vec<u8>> {
    p.server.handle_datagram(p.now, client_addr(), d);
    let mut got = Vec::new();
    while let Some((_, e)) = p.server.poll_event() {
        match e {
            Event::ApplicationData(x) => got.push(x),
            other => panic!("unexpected event {other:?}"),
        }
    }
    got
}

fn server_dropped(p: &Pair) -> u64 {
    p.server
        .session(&client_addr())
        .unwrap()
        .stats()
        .records_dropped
}

#[test]
fn names_ids_and_protection() {
    assert_eq!(
        CipherSuite::from_name("PSK-AES128-CBC-SHA"),
        Some(CipherSuite::PskAes128CbcSha)
    );
    assert_eq!(
        CipherSuite::from_name("PSK-AES128-CBC-SHA256"),
        Some(CipherSuite::PskAes128CbcSha256)
    );
    assert_eq!(
        CipherSuite::from_id(0x008C),
        Some(CipherSuite::PskAes128CbcSha)
    );
    assert_eq!(
        CipherSuite::from_id(0x00AE),
        Some(CipherSuite::PskAes128CbcSha256)
    );
    assert_eq!(CipherSuite::PskAes128CbcSha.name(), "psk-aes128-cbc-sha");
    assert!(CBC.iter().all(|s| s.is_psk()));
    assert_eq!(
        CipherSuite::PskAes128CbcSha.protection(),
        RecordProtection::Cbc(MacAlgorithm::HmacSha1)
    );
    // CCM-8 first, CBC last in the default preference order
    let all = Config::default().cipher_suites;
    assert_eq!(all[0], CipherSuite::PskAes128Ccm8);
    assert!(all[all.len() - 2..].iter().all(|s| CBC.contains(s)));
    // overhead: 16 (IV) + 20 (MAC) + 1..=16 padding
    let p = RecordProtection::Cbc(MacAlgorithm::HmacSha1);
    assert_eq!(p.overhead(0), 16 + 20 + 12);
    assert_eq!(p.overhead(11), 16 + 20 + 1);
    assert_eq!(p.overhead(12), 16 + 20 + 16);
    assert_eq!(p.max_overhead(), 52);
}

#[test]
fn psk_cbc_handshake_and_data_both_packings() {
    for (i, suite) in CBC.into_iter().enumerate() {
        for packing in [
            RecordPacking::OneRecordPerDatagram,
            RecordPacking::PackFlight,
        ] {
            let c = Config {
                cipher_suites: vec![suite],
                packing,
                ..Config::default()
            };
            let mut p = Pair::psk(c.clone(), c, 20 + i as u64);
            p.handshake();
            assert_eq!(p.client.cipher_suite(), Some(suite));
            assert_eq!(p.client_events[0], Event::Connected);
            assert_eq!(p.server_events[0], Event::Connected);
            p.exchange(b"hello cbc");
            p.exchange(&[0xAB; 1000]);
            let st = p.client.stats().crypto;
            assert_eq!(st.ecdh_ops, 0);
            assert!(st.aes_blocks > 0 && st.sha256_compressions > 0);
            match suite {
                CipherSuite::PskAes128CbcSha => assert!(st.sha1_compressions > 0),
                _ => assert_eq!(st.sha1_compressions, 0),
            }
        }
    }
}

/// A client offering everything (the default list) and a server that only
/// accepts CBC-SHA agree on CBC-SHA; default against default stays CCM-8.
#[test]
fn negotiation_with_default_lists() {
    let mut p = Pair::psk(Config::default(), only(CipherSuite::PskAes128CbcSha), 30);
    p.handshake();
    assert_eq!(p.client.cipher_suite(), Some(CipherSuite::PskAes128CbcSha));
    p.exchange(b"x");
    let mut p = Pair::psk(Config::default(), Config::default(), 31);
    p.handshake();
    assert_eq!(p.client.cipher_suite(), Some(CipherSuite::PskAes128Ccm8));
}

/// Every plaintext length 0..=64 through the real connection: the record
/// is 13 + 16 + 20 + pad bytes with pad = 16 − (n + 20) mod 16, and it
/// arrives. The operation counts follow `accounting.rs`.
#[test]
fn cbc_sha_record_sizes_0_to_64() {
    let mut p = established(CipherSuite::PskAes128CbcSha, 40);
    for n in 0..=64usize {
        let data: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
        let before = p.client.stats().crypto;
        let d = client_record(&mut p, &data);
        let pad = 16 - (n + 20) % 16;
        assert_eq!(d.len(), 13 + 16 + n + 20 + pad, "n = {n}");
        let ops = p.client.stats().crypto.since(&before);
        assert_eq!(ops.aes_blocks, ((n + 20 + pad) / 16) as u64);
        assert_eq!(
            ops.sha1_compressions,
            1 + (13 + n as u64 + 9).div_ceil(64) + 2
        );
        assert_eq!(ops.sha256_compressions, 0);
        assert_eq!(deliver(&mut p, &d), vec![data]);
    }
    // and the other direction
    for n in [0usize, 11, 12, 27, 28, 64] {
        let data = vec![0x5A; n];
        p.server.send(client_addr(), &data).unwrap();
        let t = p.server.poll_transmit(p.now).unwrap();
        assert_eq!(t.payload.len(), 13 + 16 + n + 20 + (16 - (n + 20) % 16));
        p.client.handle_datagram(p.now, &t.payload);
        assert_eq!(p.client.poll_event(), Some(Event::ApplicationData(data)));
    }
}

#[test]
fn cbc_sha256_record_sizes() {
    let mut p = established(CipherSuite::PskAes128CbcSha256, 41);
    for n in 0..=64usize {
        let data = vec![n as u8; n];
        let d = client_record(&mut p, &data);
        assert_eq!(d.len(), 13 + 16 + n + 32 + (16 - (n + 32) % 16), "n = {n}");
        assert_eq!(deliver(&mut p, &d), vec![data]);
    }
}

/// Flipped bits in the IV, the ciphertext, the bytes that decrypt to the
/// MAC and to the padding, the header, and cut records: dropped silently,
/// no event, the session stays up and the next record gets through.
#[test]
fn cbc_tampered_records_dropped_silently() {
    for (k, suite) in CBC.into_iter().enumerate() {
        let mac = match suite.protection() {
            RecordProtection::Cbc(m) => m.mac_len(),
            _ => unreachable!(),
        };
        let mut p = established(suite, 50 + k as u64);
        let n = 40;
        let d = client_record(&mut p, &[0x33; 40]);
        let len = d.len();
        let ct = 13 + 16;
        // positions (in the datagram) and what they hit once decrypted:
        // a byte of block i of the ciphertext garbles block i and flips the
        // same bit of block i + 1.
        let mac_start = ct + n;
        let pad_start = mac_start + mac;
        let mut positions = vec![
            ("iv first byte", 13),
            ("iv last byte", 28),
            ("ciphertext first byte", ct),
            ("ciphertext middle", ct + 20),
            // flips exactly a MAC byte (garbling the block before it)
            ("mac region", mac_start + 1 - 16),
            ("mac byte itself", mac_start + 1),
            ("last mac byte", pad_start - 1),
            // flips exactly a padding byte / the padding length byte
            ("padding byte", len - 2 - 16),
            ("padding length byte", len - 1 - 16),
            ("last ciphertext byte", len - 1),
            ("header sequence number", 10),
            ("header type", 0),
        ];
        if pad_start < len - 1 {
            positions.push(("first padding byte", pad_start));
        }
        for (what, i) in positions {
            for bit in [0x01u8, 0x80] {
                let mut bad = d.clone();
                bad[i] ^= bit;
                let dropped = server_dropped(&p);
                assert_eq!(deliver(&mut p, &bad), Vec::<Vec<u8>>::new(), "{what}");
                assert!(server_dropped(&p) > dropped, "{what} not counted");
                assert_eq!(
                    p.server.session(&client_addr()).unwrap().phase(),
                    Phase::Established,
                    "{what}"
                );
            }
        }
        // cut records (whole blocks removed, partial blocks, IV only)
        for cut in [13, 13 + 16, 13 + 16 + 16, len - 16, len - 1] {
            let mut bad = d[..cut].to_vec();
            let l = (cut - 13) as u16;
            bad[11..13].copy_from_slice(&l.to_be_bytes());
            assert!(deliver(&mut p, &bad).is_empty(), "cut {cut}");
        }
        // the untouched record still gets through, then the session works
        assert_eq!(deliver(&mut p, &d), vec![vec![0x33; 40]]);
        p.exchange(b"still up");
        assert!(p.failed_client().is_none() && p.failed_server().is_none());
    }
}

#[test]
fn cbc_replay_dropped() {
    let mut p = established(CipherSuite::PskAes128CbcSha, 60);
    let d1 = client_record(&mut p, b"one");
    let d2 = client_record(&mut p, b"two");
    assert_eq!(deliver(&mut p, &d2), vec![b"two".to_vec()]);
    assert_eq!(deliver(&mut p, &d1), vec![b"one".to_vec()]); // reordered: fine
    let dropped = server_dropped(&p);
    assert!(deliver(&mut p, &d1).is_empty());
    assert!(deliver(&mut p, &d2).is_empty());
    assert_eq!(server_dropped(&p), dropped + 2);
    // the same datagram twice in one delivery
    let d3 = client_record(&mut p, b"three");
    let mut twice = d3.clone();
    twice.extend_from_slice(&d3);
    assert_eq!(deliver(&mut p, &twice), vec![b"three".to_vec()]);
}

/// Seeded end to end: the same seeds give the same bytes (IVs included);
/// two records with the same content differ (fresh IVs).
#[test]
fn cbc_is_deterministic_under_seeds_and_ivs_are_fresh() {
    let run = |seed| {
        let mut p = established(CipherSuite::PskAes128CbcSha, seed);
        let a = client_record(&mut p, b"same");
        let b = client_record(&mut p, b"same");
        (p.c2s.clone(), p.s2c.clone(), a, b)
    };
    let (c1, s1, a1, b1) = run(70);
    let (c2, s2, a2, b2) = run(70);
    assert_eq!((c1, s1, &a1, &b1), (c2, s2, &a2, &b2));
    assert_ne!(a1[13..29], b1[13..29]);
    assert_ne!(a1[29..], b1[29..]);
    let (_, _, a3, _) = run(71);
    assert_ne!(a1, a3);
}

/// A small MTU and fragment size: the protected Finished is split into
/// fragments and every datagram fits.
#[test]
fn cbc_small_fragments_fit_the_mtu() {
    let c = Config {
        cipher_suites: vec![CipherSuite::PskAes128CbcSha],
        packing: RecordPacking::OneRecordPerDatagram,
        mtu: 128,
        max_fragment_len: 8,
        ..Config::tightest_psk_ccm8()
    };
    let mut p = Pair::psk(c.clone(), c, 80);
    p.handshake();
    assert!(p.client.is_established() && p.server_established());
    for d in p.c2s.iter().chain(&p.s2c) {
        assert!(d.len() <= 128, "{} B", d.len());
    }
    p.exchange(b"small");
}

/// Handshake bytes and session state of the tightest CBC-SHA handshake
/// (printed with --nocapture).
#[test]
fn cbc_sha_handshake_bytes_and_state() {
    let c = Config {
        cipher_suites: vec![CipherSuite::PskAes128CbcSha],
        ..Config::tightest_psk_ccm8()
    };
    let mut p = Pair::psk(c.clone(), c, 90);
    p.handshake();
    let (datagrams, bytes) = p.handshake_bytes();
    let mut q = Pair::psk(Config::tightest_psk_ccm8(), Config::tightest_psk_ccm8(), 90);
    q.handshake();
    let (_, ccm_bytes) = q.handshake_bytes();
    eprintln!(
        "PSK-CBC-SHA tightest: {datagrams} datagrams, {bytes} B (PSK-CCM8: {ccm_bytes} B); \
         established state client {} B / server {} B (PSK-CCM8 {} B / {} B), compact {} B",
        p.client.state_bytes(),
        p.server.session(&client_addr()).unwrap().state_bytes(),
        q.client.state_bytes(),
        q.server.session(&client_addr()).unwrap().state_bytes(),
        p.client.compact_state_bytes()
    );
    assert_eq!(datagrams, 6);
    // Two Finished records: CCM-8 24 + 16 overhead = 40 B of fragment each;
    // CBC-SHA 16 + 24 + 20 + 4 = 64 B each.
    assert_eq!(bytes, ccm_bytes + 2 * (64 - 40));
    assert_eq!(p.client.compact_state_bytes(), 18 + 3 + 4 + 12 + 14 + 72);
}
