//! DTLS 1.3 records end to end: unified header, DTLSInnerPlaintext, AEAD
//! nonce, record-number encryption and sequence reconstruction.
//!
//! The expected bytes of the two hand-built records come from
//! `tests/vectors/dtls13_key_schedule.py`, which seals them with Python's
//! `cryptography` (AES-CCM, AES-ECB) and lays out the header itself.

use dtls::accounting::CryptoOps;
use dtls::error::v13::RecordError;
use dtls::v13::header::{parse_record, split_datagram, ContentType13, Header13, SeqLen};
use dtls::v13::key_schedule::{EarlySecret, Hkdf13};
use dtls::v13::protection::{EpochKeys, HeaderOptions, ReceiveEpoch};
use dtls::v13::suite::CipherSuite13;
use proptest::prelude::*;
use sha2::{Digest, Sha256};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The server handshake keys of the script's SHA-256 block (dtls13 prefix,
/// psk_ke, PSK 00..0f), installed for `epoch`.
fn script_keys(epoch: u64, suite: CipherSuite13) -> EpochKeys {
    let mut ops = CryptoOps::default();
    let hkdf = Hkdf13::dtls(suite.hash());
    let psk: Vec<u8> = (0..16).collect();
    let hs = EarlySecret::new(hkdf, Some(&psk), &mut ops).into_handshake(None, &mut ops);
    let hash = match suite {
        CipherSuite13::Aes256GcmSha384 => {
            sha2::Sha384::digest(b"ClientHello...ServerHello").to_vec()
        }
        _ => Sha256::digest(b"ClientHello...ServerHello").to_vec(),
    };
    let t = hs.traffic_secrets(&hash, &mut ops);
    EpochKeys::new(
        epoch,
        suite,
        &hkdf.traffic_keys(&t.server, suite, &mut ops),
        &mut ops,
    )
}

#[test]
fn hand_built_record_16_bit_seq_with_length() {
    let keys = script_keys(2, CipherSuite13::Aes128Ccm8Sha256);
    let opts = HeaderOptions {
        cid: None,
        seq_len: SeqLen::Bits16,
        length_present: true,
    };
    let mut ops = CryptoOps::default();
    let mut out = Vec::new();
    keys.seal(
        0x105,
        ContentType13::Handshake,
        b"hello, dtls 1.3",
        0,
        &opts,
        &mut out,
        &mut ops,
    )
    .unwrap();
    let expected = hex("2e67cd0018082a061e1bce44c4f5f981a0c67047f9946ca35702043a56");
    assert_eq!(out, expected);

    let (view, used) = parse_record(&out, 0).unwrap();
    assert_eq!(used, out.len());
    let Header13::Ciphertext(h) = &view.header else {
        panic!("a unified header")
    };
    assert_eq!(h.epoch_bits, 2);
    let opened = keys
        .open(h, view.header_bytes, view.body, Some(0x100), &mut ops)
        .unwrap();
    assert_eq!(opened.seq, 0x105);
    assert_eq!(opened.content_type, ContentType13::Handshake);
    assert_eq!(opened.content, b"hello, dtls 1.3");
}

#[test]
fn hand_built_record_8_bit_seq_cid_no_length_padded_to_16() {
    let keys = script_keys(2, CipherSuite13::Aes128Ccm8Sha256);
    let opts = HeaderOptions {
        cid: Some(vec![0xC0, 0xFF, 0xEE]),
        seq_len: SeqLen::Bits8,
        length_present: false,
    };
    let mut ops = CryptoOps::default();
    let mut out = Vec::new();
    // no padding asked: "ok" + type + CCM-8 tag is 11 bytes, so the sealer
    // pads with 5 zero bytes to reach the 16 the mask needs
    keys.seal(
        7,
        ContentType13::ApplicationData,
        b"ok",
        0,
        &opts,
        &mut out,
        &mut ops,
    )
    .unwrap();
    assert_eq!(out, hex("32c0ffeeecf78c6d51837b0177c8fa1b38dff26304"));

    let (view, _) = parse_record(&out, 3).unwrap();
    let Header13::Ciphertext(h) = &view.header else {
        panic!("a unified header")
    };
    assert_eq!(h.cid.as_deref(), Some(&[0xC0, 0xFF, 0xEE][..]));
    let opened = keys
        .open(h, view.header_bytes, view.body, None, &mut ops)
        .unwrap();
    assert_eq!((opened.seq, opened.content.as_slice()), (7, &b"ok"[..]));
}

#[test]
fn replays_tampering_and_short_records_are_refused() {
    let keys = script_keys(3, CipherSuite13::Aes128GcmSha256);
    let opts = HeaderOptions {
        cid: None,
        seq_len: SeqLen::Bits16,
        length_present: true,
    };
    let mut ops = CryptoOps::default();
    let mut rec = Vec::new();
    keys.seal(
        41,
        ContentType13::ApplicationData,
        b"data",
        0,
        &opts,
        &mut rec,
        &mut ops,
    )
    .unwrap();
    let mut rx = ReceiveEpoch::new(script_keys(3, CipherSuite13::Aes128GcmSha256));
    let open = |rx: &mut ReceiveEpoch, bytes: &[u8], ops: &mut CryptoOps| {
        let (view, _) = parse_record(bytes, 0)?;
        let Header13::Ciphertext(h) = &view.header else {
            panic!("a unified header")
        };
        rx.open(h, view.header_bytes, view.body, ops)
    };
    assert_eq!(open(&mut rx, &rec, &mut ops).unwrap().seq, 41);
    assert_eq!(open(&mut rx, &rec, &mut ops), Err(RecordError::Replay));
    // every single-bit change is caught (header bits are AAD or select the
    // epoch/length; the sequence number feeds the nonce)
    for i in 0..rec.len() {
        let mut bad = rec.clone();
        bad[i] ^= 0x01;
        let mut fresh = ReceiveEpoch::new(script_keys(3, CipherSuite13::Aes128GcmSha256));
        assert!(open(&mut fresh, &bad, &mut ops).is_err(), "byte {i}");
    }
    // under 16 bytes of ciphertext: no mask
    let short = [0x2C, 0, 0, 0, 15];
    let mut d = short.to_vec();
    d.extend_from_slice(&[0; 15]);
    assert_eq!(
        open(&mut rx, &d, &mut ops),
        Err(RecordError::CiphertextTooShort)
    );
}

#[test]
fn padding_is_stripped_back_to_the_content_type() {
    // an empty alert with 30 bytes of padding: the opener finds the type as
    // the last nonzero byte (RFC 8446 §5.4) and returns empty content
    let keys = script_keys(2, CipherSuite13::Aes128Ccm8Sha256);
    let opts = HeaderOptions {
        cid: None,
        seq_len: SeqLen::Bits8,
        length_present: true,
    };
    let mut ops = CryptoOps::default();
    let mut rec = Vec::new();
    keys.seal(1, ContentType13::Alert, &[], 30, &opts, &mut rec, &mut ops)
        .unwrap();
    let (view, _) = parse_record(&rec, 0).unwrap();
    let Header13::Ciphertext(h) = &view.header else {
        panic!("a unified header")
    };
    let opened = keys
        .open(h, view.header_bytes, view.body, None, &mut ops)
        .unwrap();
    assert_eq!(opened.content_type, ContentType13::Alert);
    assert!(opened.content.is_empty());
    assert_eq!(view.body.len(), 1 + 30 + 8);
}

fn suite_strategy() -> impl Strategy<Value = CipherSuite13> {
    prop_oneof![
        Just(CipherSuite13::Aes128Ccm8Sha256),
        Just(CipherSuite13::Aes128GcmSha256),
        Just(CipherSuite13::Aes256GcmSha384),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Seal, parse and open give back the content, type and full sequence
    /// number, for every suite and header shape.
    #[test]
    fn seal_open_round_trip(
        suite in suite_strategy(),
        epoch in 2u64..6,
        seq in 0u64..(1 << 48),
        wide: bool,
        length_present: bool,
        cid in proptest::option::of(proptest::collection::vec(any::<u8>(), 1..6)),
        content in proptest::collection::vec(any::<u8>(), 0..300),
        padding in 0usize..40,
    ) {
        let keys = script_keys(epoch, suite);
        let opts = HeaderOptions {
            cid: cid.clone(),
            seq_len: if wide { SeqLen::Bits16 } else { SeqLen::Bits8 },
            length_present,
        };
        let mut ops = CryptoOps::default();
        let mut out = Vec::new();
        keys.seal(seq, ContentType13::ApplicationData, &content, padding, &opts, &mut out, &mut ops).unwrap();
        let cid_len = cid.as_ref().map_or(0, Vec::len);
        let (records, err) = split_datagram(&out, cid_len);
        prop_assert_eq!(err, None);
        prop_assert_eq!(records.len(), 1);
        let Header13::Ciphertext(h) = &records[0].header else {
            panic!("a unified header")
        };
        prop_assert_eq!(u64::from(h.epoch_bits), epoch & 3);
        let highest = seq.checked_sub(1);
        let opened = keys.open(h, records[0].header_bytes, records[0].body, highest, &mut ops).unwrap();
        prop_assert_eq!(opened.seq, seq);
        prop_assert_eq!(opened.content, content);
    }

    /// Arbitrary bytes as a datagram: parsing and opening never panic.
    #[test]
    fn arbitrary_datagrams_never_panic(
        data in proptest::collection::vec(any::<u8>(), 0..120),
        cid_len in 0usize..5,
    ) {
        let keys = script_keys(2, CipherSuite13::Aes128Ccm8Sha256);
        let mut rx = ReceiveEpoch::new(script_keys(2, CipherSuite13::Aes128Ccm8Sha256));
        let mut ops = CryptoOps::default();
        let (records, _) = split_datagram(&data, cid_len);
        for r in records {
            if let Header13::Ciphertext(h) = &r.header {
                let _ = keys.open(h, r.header_bytes, r.body, Some(1000), &mut ops);
                prop_assert!(rx.open(h, r.header_bytes, r.body, &mut ops).is_err());
            }
        }
    }
}
