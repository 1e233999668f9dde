//! One EDHOC exchange through lakers, pinned to the sizes of RFC 9529
//! section 3 (trace 2: method 3, cipher suite 2, credentials by
//! reference): message_1 39 bytes (the second message_1, SUITES_I =
//! [6, 2], sent after the responder's error refused suite 6), message_2 45
//! bytes, message_3 19 bytes. Our initiator offers suite 2 alone, so its
//! message_1 is the trace's less the two bytes of `82 06`.

use edhoc::{Config, Credentials, Error, Initiator, Method, Responder, Suite};

/// RFC 9529 section 3: sizes of the trace's messages.
const TRACE2_MESSAGE_1: usize = 39;
const TRACE2_MESSAGE_2: usize = 45;
const TRACE2_MESSAGE_3: usize = 19;
/// The trace's SUITES_I is the array [6, 2] (`82 06 02`); ours is the
/// integer 2 (`02`), RFC 9528 section 5.2.2.
const SUITES_ARRAY_EXTRA: usize = 2;

fn run(config: Config, seed: u64) -> (Vec<u8>, Vec<u8>, Vec<u8>, Initiator, Responder) {
    let mut i = Initiator::new(config, seed).unwrap();
    let mut r = Responder::new(config, seed + 1).unwrap();
    let m1 = i.message_1().unwrap();
    let m2 = r.handle_message_1(&m1).unwrap();
    let (m3, c_r) = i.handle_message_2(&m2).unwrap();
    assert_eq!(c_r.len(), 1, "lakers picks one-byte connection identifiers");
    r.handle_message_3(&m3).unwrap();
    assert!(i.is_done() && r.is_done());
    (m1, m2, m3, i, r)
}

#[test]
fn static_dh_by_reference_matches_rfc9529_trace_2() {
    let (m1, m2, m3, ..) = run(Config::default(), 7);
    assert_eq!(m1.len(), TRACE2_MESSAGE_1 - SUITES_ARRAY_EXTRA);
    assert_eq!(m2.len(), TRACE2_MESSAGE_2);
    assert_eq!(m3.len(), TRACE2_MESSAGE_3);
    // method 3 first (RFC 9528 section 5.2.1)
    assert_eq!(m1[0], 3);
}

#[test]
fn credentials_by_value_carry_the_ccs() {
    let by_value = Config {
        credentials: Credentials::ByValue,
        ..Config::default()
    };
    let (_, m2, m3, ..) = run(by_value, 7);
    let (_, r2, r3, ..) = run(Config::default(), 7);
    // ID_CRED_x by value is the map {14: CCS} (kccs, RFC 9528 section
    // 3.5.2): map header, key and the CCS (CRED_R 84 bytes, CRED_I 107)
    // where the compact kid was one byte: + CCS + 1. message_3's byte
    // string grows past 23 bytes and takes a one-byte length: + 1 more.
    const CRED_R_LEN: usize = 84;
    const CRED_I_LEN: usize = 107;
    assert_eq!(m2.len(), r2.len() + CRED_R_LEN + 1);
    assert_eq!(m3.len(), r3.len() + CRED_I_LEN + 1 + 1);
}

#[test]
fn operations_are_counted_per_party() {
    let (.., i, r) = run(Config::default(), 7);
    // method 3: each side generates an ephemeral key and computes three
    // shared secrets, G_XY, G_RX and G_IY (RFC 9528 sections 4.1.1.2-3).
    assert_eq!(i.ops().p256_ecdh, 4);
    assert_eq!(r.ops().p256_ecdh, 4);
    assert!(i.ops().sha256_compressions > 20);
    assert!(i.ops().aes_blocks > 0 && r.ops().aes_blocks > 0);
}

#[test]
fn same_seed_same_bytes() {
    let a = run(Config::default(), 11);
    let b = run(Config::default(), 11);
    assert_eq!((a.0, a.1, a.2), (b.0, b.1, b.2));
    let c = run(Config::default(), 12);
    assert_ne!(a_m1(11), c.0);
}

fn a_m1(seed: u64) -> Vec<u8> {
    Initiator::new(Config::default(), seed)
        .unwrap()
        .message_1()
        .unwrap()
}

#[test]
fn unsupported_configurations_are_refused() {
    let sig = Config {
        method: Method::Signature,
        ..Config::default()
    };
    assert!(matches!(Initiator::new(sig, 1), Err(Error::Unsupported(_))));
    let x = Config {
        suite: Suite::X25519,
        ..Config::default()
    };
    assert!(matches!(Responder::new(x, 1), Err(Error::Unsupported(_))));
}

#[test]
fn malformed_and_truncated_messages_are_refused_not_panics() {
    let mut r = Responder::new(Config::default(), 2).unwrap();
    assert!(r.handle_message_1(&[0xff, 0x00]).is_err());
    let mut i = Initiator::new(Config::default(), 1).unwrap();
    let m1 = i.message_1().unwrap();
    let mut r = Responder::new(Config::default(), 2).unwrap();
    let m2 = r.handle_message_1(&m1).unwrap();
    assert!(i.handle_message_2(&m2[..10]).is_err());
    let mut r = Responder::new(Config::default(), 2).unwrap();
    assert!(r.handle_message_1(&m1[..m1.len() - 5]).is_err());
}
