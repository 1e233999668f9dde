//! DTLS 1.3 handshake message codecs: round trips, the rules RFC 8446 §4
//! and RFC 9147 §5.3 put on decoding, and arbitrary input.

use dtls::error::v13::{Field, MessageError};
use dtls::v13::messages::{
    decode_finished, ext, ClientHello, ClientHelloExtensions, EncryptedExtensions, KeyShareEntry,
    OfferedPsks, PskIdentity, PskMode, ServerHello, ServerHelloExtensions, DTLS1_3, HRR_RANDOM,
    LEGACY_VERSION,
};
use proptest::prelude::*;
use sha2::{Digest, Sha256};

fn full_client_hello() -> ClientHello {
    ClientHello {
        legacy_version: LEGACY_VERSION,
        random: [7; 32],
        legacy_session_id: vec![],
        cipher_suites: vec![0x1305, 0x1301],
        extensions: ClientHelloExtensions {
            supported_versions: Some(vec![DTLS1_3]),
            supported_groups: Some(vec![23, 29]),
            signature_algorithms: Some(vec![0x0403]),
            key_shares: Some(vec![KeyShareEntry {
                group: 29,
                key_exchange: vec![0x55; 32],
            }]),
            psk_modes: Some(vec![PskMode::PskDheKe, PskMode::PskKe]),
            cookie: Some(vec![1, 2, 3]),
            connection_id: Some(vec![0xAB]),
            unknown: vec![(0xFF01, vec![0])],
            pre_shared_key: Some(OfferedPsks {
                identities: vec![PskIdentity {
                    identity: b"Client_identity".to_vec(),
                    obfuscated_ticket_age: 0,
                }],
                binders: vec![vec![0xB1; 32]],
            }),
        },
    }
}

#[test]
fn client_hello_round_trip_with_binders_last() {
    let ch = full_client_hello();
    let mut body = Vec::new();
    ch.encode(&mut body);
    assert_eq!(ClientHello::decode(&body), Ok(ch.clone()));
    // the binders list is the tail of the body: 2-byte length, then one
    // 1-byte-length binder of 32 bytes (RFC 8446 §4.2.11.2 hashes the rest)
    let psk = ch.extensions.pre_shared_key.as_ref().unwrap();
    let n = psk.binders_len();
    assert_eq!(n, 2 + 1 + 32);
    let tail = &body[body.len() - n..];
    assert_eq!(&tail[..3], &[0, 33, 32]);
    assert!(tail[3..].iter().all(|&b| b == 0xB1));
    // fixed fields: legacy_version, random, empty session id, empty
    // legacy_cookie, two suites
    assert_eq!(&body[..2], &[0xFE, 0xFD]);
    assert_eq!(&body[34..42], &[0, 0, 0, 4, 0x13, 0x05, 0x13, 0x01]);
}

#[test]
fn server_hello_and_hello_retry_request_round_trip() {
    assert_eq!(Sha256::digest(b"HelloRetryRequest").as_slice(), HRR_RANDOM);
    let sh = ServerHello {
        legacy_version: LEGACY_VERSION,
        random: [9; 32],
        legacy_session_id_echo: vec![],
        cipher_suite: 0x1305,
        extensions: ServerHelloExtensions {
            selected_version: Some(DTLS1_3),
            key_share: Some(KeyShareEntry {
                group: 23,
                key_exchange: vec![4; 65],
            }),
            selected_identity: Some(0),
            ..Default::default()
        },
    };
    let mut body = Vec::new();
    sh.encode(&mut body);
    let back = ServerHello::decode(&body).unwrap();
    assert!(!back.is_hello_retry_request());
    assert_eq!(back, sh);

    let hrr = ServerHello {
        random: HRR_RANDOM,
        extensions: ServerHelloExtensions {
            selected_version: Some(DTLS1_3),
            selected_group: Some(23),
            cookie: Some(vec![0xC0; 40]),
            ..Default::default()
        },
        ..sh
    };
    let mut body = Vec::new();
    hrr.encode(&mut body);
    let back = ServerHello::decode(&body).unwrap();
    assert!(back.is_hello_retry_request());
    assert_eq!(back, hrr);
}

#[test]
fn encrypted_extensions_and_finished() {
    let ee = EncryptedExtensions {
        extensions: vec![
            (ext::SUPPORTED_GROUPS, vec![0, 2, 0, 23]),
            (ext::CONNECTION_ID, vec![0]),
        ],
    };
    let mut body = Vec::new();
    ee.encode(&mut body);
    assert_eq!(EncryptedExtensions::decode(&body), Ok(ee));
    assert_eq!(
        EncryptedExtensions::decode(&[0, 0]),
        Ok(EncryptedExtensions::default())
    );
    assert_eq!(decode_finished(&[1; 32], 32), Ok(&[1u8; 32][..]));
    assert_eq!(
        decode_finished(&[1; 31], 32),
        Err(MessageError::Truncated(Field::Finished))
    );
    assert_eq!(
        decode_finished(&[1; 49], 48),
        Err(MessageError::TrailingBytes(Field::Finished))
    );
}

#[test]
fn decoding_rules() {
    let mut body = Vec::new();
    full_client_hello().encode(&mut body);

    // legacy_cookie must be empty (RFC 9147 §5.3): illegal_parameter
    let mut with_cookie = body[..34].to_vec();
    with_cookie.extend_from_slice(&[0, 1, 0xAA]);
    with_cookie.extend_from_slice(&body[35..]);
    let e = ClientHello::decode(&with_cookie).unwrap_err();
    assert_eq!(e, MessageError::IllegalValue(Field::LegacyCookie));
    assert_eq!(e.alert(), dtls::AlertDescription::IllegalParameter);

    // pre_shared_key not last
    let mut ch = full_client_hello();
    ch.extensions.pre_shared_key = None;
    let mut b = Vec::new();
    ch.encode(&mut b);
    // append a pre_shared_key, then another extension after it
    let psk_ext = {
        let mut full = Vec::new();
        full_client_hello().encode(&mut full);
        let n = 4 + 2 + (2 + 15 + 4) + 2 + 33;
        full[full.len() - n..].to_vec()
    };
    let ext_len = u16::from_be_bytes([b[44], b[45]]) as usize;
    let mut reordered = b[..44].to_vec();
    let mut exts = b[46..].to_vec();
    exts.extend_from_slice(&psk_ext);
    exts.extend_from_slice(&[0xFF, 0x02, 0, 0]);
    reordered.extend_from_slice(&((exts.len()) as u16).to_be_bytes());
    reordered.extend_from_slice(&exts);
    assert_eq!(ext_len, b.len() - 46);
    assert_eq!(
        ClientHello::decode(&reordered),
        Err(MessageError::PreSharedKeyNotLast)
    );

    // duplicate extension
    let mut dup = b[..44].to_vec();
    let mut exts = b[46..].to_vec();
    exts.extend_from_slice(&[0xFF, 0x01, 0, 1, 0]);
    dup.extend_from_slice(&(exts.len() as u16).to_be_bytes());
    dup.extend_from_slice(&exts);
    assert_eq!(
        ClientHello::decode(&dup),
        Err(MessageError::DuplicateExtension(0xFF01))
    );

    // every truncation is refused, none panics
    for cut in 0..body.len() {
        assert!(ClientHello::decode(&body[..cut]).is_err(), "cut {cut}");
    }
}

proptest! {
    #[test]
    fn arbitrary_bodies_never_panic(data in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = ClientHello::decode(&data);
        let _ = ServerHello::decode(&data);
        let _ = EncryptedExtensions::decode(&data);
        let _ = decode_finished(&data, 32);
    }

    #[test]
    fn client_hello_round_trips(
        random in any::<[u8; 32]>(),
        suites in proptest::collection::vec(any::<u16>(), 1..8),
        share in proptest::collection::vec(any::<u8>(), 1..70),
        cookie in proptest::option::of(proptest::collection::vec(any::<u8>(), 1..60)),
        identity in proptest::collection::vec(any::<u8>(), 1..40),
        binder in proptest::collection::vec(any::<u8>(), 32..49),
    ) {
        let ch = ClientHello {
            legacy_version: LEGACY_VERSION,
            random,
            legacy_session_id: vec![],
            cipher_suites: suites,
            extensions: ClientHelloExtensions {
                supported_versions: Some(vec![DTLS1_3]),
                key_shares: Some(vec![KeyShareEntry { group: 23, key_exchange: share }]),
                psk_modes: Some(vec![PskMode::PskKe]),
                cookie,
                pre_shared_key: Some(OfferedPsks {
                    identities: vec![PskIdentity { identity, obfuscated_ticket_age: 0 }],
                    binders: vec![binder],
                }),
                ..Default::default()
            },
        };
        let mut body = Vec::new();
        ch.encode(&mut body);
        prop_assert_eq!(ClientHello::decode(&body), Ok(ch));
    }
}

/// A psk_key_exchange_modes list of only code points RFC 8446 §4.2.9 does
/// not define decodes to those code points, not to an empty list, so it
/// encodes back to the same bytes (an empty list is refused: `<1..255>`).
/// Found by the dtls13_messages fuzz target; its input is in the corpus.
#[test]
fn unknown_psk_modes_are_kept_and_round_trip() {
    let mut ch = full_client_hello();
    ch.extensions.psk_modes = Some(vec![PskMode::Unknown(7), PskMode::Unknown(0xFE)]);
    let mut body = Vec::new();
    ch.encode(&mut body);
    let back = ClientHello::decode(&body).unwrap();
    assert_eq!(back, ch);
    let mut again = Vec::new();
    back.encode(&mut again);
    assert_eq!(again, body);
}
