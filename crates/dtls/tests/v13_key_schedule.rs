//! The TLS 1.3 / DTLS 1.3 key schedule against published and independently
//! computed values.
//!
//! - "tls13 " prefix: RFC 8448 §3 (Simple 1-RTT Handshake,
//!   TLS_AES_128_GCM_SHA256), the server's published intermediate values.
//! - "dtls13" prefix (RFC 9147 §5.9): values printed by
//!   `tests/vectors/dtls13_key_schedule.py`, which computes HKDF with
//!   Python's `hmac`/`hashlib` and lays out HkdfLabel itself, sharing no
//!   code with the crate.

use dtls::accounting::CryptoOps;
use dtls::v13::key_schedule::{EarlySecret, Hkdf13, PskKind};
use dtls::v13::suite::{CipherSuite13, HashAlg};
use sha2::{Digest, Sha256, Sha384};

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// RFC 8448 §3: early, handshake and master secrets, the handshake and
/// application traffic secrets, keys and IVs, finished keys and the
/// Finished values, exporter and resumption master secrets, the ticket PSK.
#[test]
fn rfc8448_simple_1rtt_server_schedule() {
    let mut ops = CryptoOps::default();
    let hkdf = Hkdf13::tls(HashAlg::Sha256);
    let suite = CipherSuite13::Aes128GcmSha256;
    assert_eq!(
        hkdf.empty_hash().as_bytes(),
        hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    );

    // {server} extract secret "early" (no PSK)
    let early = EarlySecret::new(hkdf, None, &mut ops);
    assert_eq!(
        early.secret().as_bytes(),
        hex("33ad0a1c607ec03b09e6cd9893680ce210adf300aa1f2660e1b22e10f170f92a")
    );
    // {server} extract secret "handshake" with the x25519 shared secret
    let ecdhe = hex("8bd4054fb55b9d63fdfbacf9f04b9f0d35e6d63f537563efd46272900f89492d");
    let hs = early.into_handshake(Some(&ecdhe), &mut ops);
    assert_eq!(
        hs.secret().as_bytes(),
        hex("1dc826e93606aa6fdc0aadc12f741b01046aa6b99f691ed221a9f0ca043fbeac")
    );
    // hash of ClientHello || ServerHello, as printed in RFC 8448 §3
    let hash_ch_sh = hex("860c06edc07858ee8e78f0e7428c58edd6b43f2ca3e6e95f02ed063cf0e1cad8");
    let hs_traffic = hs.traffic_secrets(&hash_ch_sh, &mut ops);
    assert_eq!(
        hs_traffic.client.as_bytes(),
        hex("b3eddb126e067f35a780b3abf45e2d8f3b1a950738f52e9600746a0e27a55a21")
    );
    assert_eq!(
        hs_traffic.server.as_bytes(),
        hex("b67b7d690cc16c4e75e54213cb2d37b4e9c912bcded9105d42befd59d391ad38")
    );
    // {server} derive write traffic keys for handshake data
    let keys = hkdf.traffic_keys(&hs_traffic.server, suite, &mut ops);
    assert_eq!(keys.key(), hex("3fce516009c21727d0f2e4e86ee403bc"));
    assert_eq!(keys.iv.to_vec(), hex("5d313eb2671276ee13000b30"));
    let keys = hkdf.traffic_keys(&hs_traffic.client, suite, &mut ops);
    assert_eq!(keys.key(), hex("dbfaa693d1762c5b666af5d950258d01"));
    assert_eq!(keys.iv.to_vec(), hex("5bd3c71b836e0b76bb73265f"));

    // {server} calculate finished "tls13 finished"; the transcript hash
    // through CertificateVerify is SHA-256 of RFC 8448 §3's messages (the
    // RFC prints the messages and the resulting Finished, not this hash)
    let s_finished_key = hkdf.finished_key(&hs_traffic.server, &mut ops);
    assert_eq!(
        s_finished_key.as_bytes(),
        hex("008d3b66f816ea559f96b537e885c31fc068bf492c652f01f288a1d8cdc19fc8")
    );
    let hash_ch_cv = hex("edb7725fa7a3473b031ec8ef65a2485493900138a2b91291407d7951a06110ed");
    let server_finished = hex("9b9b141d906337fbd2cbdce71df4deda4ab42c309572cb7fffee5454b78f0718");
    assert_eq!(
        hkdf.verify_data(&s_finished_key, &hash_ch_cv, &mut ops)
            .as_bytes(),
        server_finished
    );
    assert!(hkdf.verify_finished(&s_finished_key, &hash_ch_cv, &server_finished, &mut ops));
    let mut forged = server_finished.clone();
    forged[31] ^= 1;
    assert!(!hkdf.verify_finished(&s_finished_key, &hash_ch_cv, &forged, &mut ops));
    assert!(!hkdf.verify_finished(
        &s_finished_key,
        &hash_ch_cv,
        &server_finished[..31],
        &mut ops
    ));

    // {server} derive secret for master "tls13 derived", extract "master"
    let master = hs.into_master(&mut ops);
    assert_eq!(
        master.secret().as_bytes(),
        hex("18df06843d13a08bf2a449844c5f8a478001bc4d4c627984d5a41da8d0402919")
    );
    let hash_ch_sf = hex("9608102a0f1ccc6db6250b7b7e417b1a000eaada3daae4777a7686c9ff83df13");
    let ap = master.traffic_secrets(&hash_ch_sf, &mut ops);
    assert_eq!(
        ap.client.as_bytes(),
        hex("9e40646ce79a7f9dc05af8889bce6552875afa0b06df0087f792ebb7c17504a5")
    );
    assert_eq!(
        ap.server.as_bytes(),
        hex("a11af9f05531f856ad47116b45a950328204b4f44bfb6b3a4b4f1f3fcb631643")
    );
    assert_eq!(
        master
            .exporter_master_secret(&hash_ch_sf, &mut ops)
            .as_bytes(),
        hex("fe22f881176eda18eb8f44529e6792c50c9a3f89452f68d8ae311b4309d3cf50")
    );
    let keys = hkdf.traffic_keys(&ap.server, suite, &mut ops);
    assert_eq!(keys.key(), hex("9f02283b6c9c07efc26bb9f2ac92e356"));
    assert_eq!(keys.iv.to_vec(), hex("cf782b88dd83549aadf1e984"));

    // {server} calculate (client) finished
    let c_finished_key = hkdf.finished_key(&hs_traffic.client, &mut ops);
    assert_eq!(
        c_finished_key.as_bytes(),
        hex("b80ad01015fb2f0bd65ff7d4da5d6bf83f84821d1f87fdc7d3c75b5a7b42d9c4")
    );
    assert_eq!(
        hkdf.verify_data(&c_finished_key, &hash_ch_sf, &mut ops)
            .as_bytes(),
        hex("a8ec436d677634ae525ac1fcebe11a039ec17694fac6e98527b642f2edd5ce61")
    );

    // {server} derive secret "tls13 res master", generate resumption secret
    let hash_ch_cf = hex("209145a96ee8e2a122ff810047cc952684658d6049e86429426db87c54ad143d");
    let res = master.resumption_master_secret(&hash_ch_cf, &mut ops);
    assert_eq!(
        res.as_bytes(),
        hex("7df235f2031d2a051287d02b0241b0bfdaf86cc856231f2d5aba46c434ec196c")
    );
    assert_eq!(
        hkdf.resumption_psk(&res, &[0, 0], &mut ops).as_bytes(),
        hex("4ecd0eb6ec3b4d87f5d6028f922ca4c5851a277fd41311c9e62d2c9492e1c4f3")
    );
    assert!(ops.sha256_compressions > 0);
}

/// RFC 8448 §4 (Resumed 0-RTT Handshake): the Early Secret from the ticket
/// PSK above.
#[test]
fn rfc8448_resumed_early_secret() {
    let mut ops = CryptoOps::default();
    let psk = hex("4ecd0eb6ec3b4d87f5d6028f922ca4c5851a277fd41311c9e62d2c9492e1c4f3");
    let early = EarlySecret::new(Hkdf13::tls(HashAlg::Sha256), Some(&psk), &mut ops);
    assert_eq!(
        early.secret().as_bytes(),
        hex("9b2188e9b2fc6d64d71dc329900e20bb41915000f678aa839cbb797cb7d8332c")
    );
}

/// The "dtls13" prefix, SHA-256, psk_ke: values of
/// `tests/vectors/dtls13_key_schedule.py` (first block).
#[test]
fn dtls13_prefix_sha256_psk_ke() {
    let mut ops = CryptoOps::default();
    let hkdf = Hkdf13::dtls(HashAlg::Sha256);
    let psk: Vec<u8> = (0..16).collect();
    let hash_ch_sh = Sha256::digest(b"ClientHello...ServerHello");
    let early = EarlySecret::new(hkdf, Some(&psk), &mut ops);
    assert_eq!(
        early.secret().as_bytes(),
        hex("d926952ca8b7ec4a95941d1ada3a5203ceff8cceee34f574d23909eb314c40c0")
    );
    assert_eq!(
        early.binder_key(PskKind::External, &mut ops).as_bytes(),
        hex("c8cdb6ae44b4ddb1d4d5f81be6c7f66933877ddc41a43ceacb3f790a53ca8595")
    );
    let hs = early.into_handshake(None, &mut ops);
    assert_eq!(
        hs.secret().as_bytes(),
        hex("19aaf1b2aaae31beaf0888c3512eb97352adbf30e012dc0f56c82a40f1c3ca8c")
    );
    let t = hs.traffic_secrets(&hash_ch_sh, &mut ops);
    assert_eq!(
        t.client.as_bytes(),
        hex("e780b626cb90253893a3bb5f3128b2b8b768e92f6ec74ab83fced64f961927d6")
    );
    let keys = hkdf.traffic_keys(&t.server, CipherSuite13::Aes128Ccm8Sha256, &mut ops);
    assert_eq!(keys.key(), hex("6ce49c47f48d9bc23afbcf4abd5afc48"));
    assert_eq!(keys.iv.to_vec(), hex("d42cac41d58ab021ceeba72f"));
    assert_eq!(keys.sn_key(), hex("7906b718620ed372b21e940ca4443664"));
    assert_eq!(
        hkdf.finished_key(&t.client, &mut ops).as_bytes(),
        hex("48613b572bc95ed9455a627e35602cb3a2840bf4cdb5d1cfba4cce43039f9c72")
    );
    let master = hs.into_master(&mut ops);
    assert_eq!(
        master.secret().as_bytes(),
        hex("3efe480aee8a2875c08bbbd9c32f3881289e13c6ff1e04af9216fcfb8553463d")
    );
}

/// The "dtls13" prefix, SHA-384, psk_dhe_ke, 32-byte keys: second block of
/// `tests/vectors/dtls13_key_schedule.py`.
#[test]
fn dtls13_prefix_sha384_psk_dhe_ke() {
    let mut ops = CryptoOps::default();
    let hkdf = Hkdf13::dtls(HashAlg::Sha384);
    let psk: Vec<u8> = (0..16).collect();
    let hash = Sha384::digest(b"ClientHello...ServerHello");
    let early = EarlySecret::new(hkdf, Some(&psk), &mut ops);
    assert_eq!(
        early.binder_key(PskKind::External, &mut ops).as_bytes(),
        hex(
            "dbe763affb12817334fe0205536a4746762af6aa1f7cd542abf1f47de1dac5a6\
             be23d40053f427999bb7c6422113439b"
        )
    );
    let hs = early.into_handshake(Some(&[0x42; 32]), &mut ops);
    assert_eq!(
        hs.secret().as_bytes(),
        hex(
            "d9e056ec6ad3a512b4a1a3125cd31978a6e9169c51c748b5e482bead4145104f\
             4c4d182021752a5668cdd1d60c80ccd2"
        )
    );
    let t = hs.traffic_secrets(&hash, &mut ops);
    let keys = hkdf.traffic_keys(&t.server, CipherSuite13::Aes256GcmSha384, &mut ops);
    assert_eq!(
        keys.key(),
        hex("2cf7d90bece17664e1d7b73b9e069a4ed0148a459558e07b0197cc8fbf6fdfe5")
    );
    assert_eq!(keys.iv.to_vec(), hex("f5f25dfc86ebfbae432bc1c6"));
    assert_eq!(
        keys.sn_key(),
        hex("2c96fae5d7a0ea57363b2137a0d28e5f44a64f8f25410231bd81465405c06a55")
    );
    assert_eq!(
        hkdf.finished_key(&t.client, &mut ops).as_bytes(),
        hex(
            "21df86b4fd04ee4b2a63bdfd388c9e455e8178c39cf28b1d2475dcf6e43c475f\
             130b52638f35bf00063da592beed76a7"
        )
    );
    assert_eq!(
        hs.into_master(&mut ops).secret().as_bytes(),
        hex(
            "389d99edea3eaf4352741a742e46170f4fb8ed67c445db83a97a9b1829b5f73e\
             d2f8ebc5a5d6099ae0662fd8f35fb84a"
        )
    );
}

/// The two prefixes give different keys from the same inputs, and secrets
/// never reach `Debug` output.
#[test]
fn prefixes_differ_and_secrets_stay_hidden() {
    let mut ops = CryptoOps::default();
    let t = EarlySecret::new(Hkdf13::tls(HashAlg::Sha256), Some(&[7; 16]), &mut ops);
    let d = EarlySecret::new(Hkdf13::dtls(HashAlg::Sha256), Some(&[7; 16]), &mut ops);
    // Early Secret has no label, the binder key has one
    assert_eq!(t.secret().as_bytes(), d.secret().as_bytes());
    assert_ne!(
        t.binder_key(PskKind::External, &mut ops).as_bytes(),
        d.binder_key(PskKind::External, &mut ops).as_bytes()
    );
    assert_ne!(
        d.binder_key(PskKind::External, &mut ops).as_bytes(),
        d.binder_key(PskKind::Resumption, &mut ops).as_bytes()
    );
    let shown = format!("{d:?}");
    assert!(shown.contains("redacted"), "{shown}");
    let hexed: String = d.secret().as_bytes()[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert!(!shown.contains(&hexed));
    let keys = d
        .hkdf()
        .traffic_keys(d.secret(), CipherSuite13::Aes128Ccm8Sha256, &mut ops);
    assert!(format!("{keys:?}").contains("redacted"));
}
