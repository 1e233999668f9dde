//! Malformed message_3 at the responder: lakers 0.8
//! panics on two of them (a message_3 shorter than its 8-byte tag
//! overflows a subtraction in `aes_ccm_decrypt_tag_8`; a CBOR length of
//! 251 makes `r_parse_message_3` slice out of range), and both reached the
//! simulator's responder. Each is now refused as a decode error at this
//! crate's boundary; the responder never panics.

use edhoc::{Config, Error, Initiator, Responder};

/// A responder waiting for message_3 (message_1 from a real initiator).
fn waiting() -> Responder {
    let mut i = Initiator::new(Config::default(), 1).unwrap();
    let mut r = Responder::new(Config::default(), 2).unwrap();
    let m1 = i.message_1().unwrap();
    r.handle_message_1(&m1).unwrap();
    r
}

/// The inputs that panicked inside lakers, and their neighbours.
pub fn malformed() -> Vec<(&'static str, Vec<u8>)> {
    let mut long = vec![0x58, 251];
    long.extend_from_slice(&[0xAA; 40]);
    vec![
        ("empty", vec![]),
        (
            "a bstr of 5 bytes (shorter than the tag)",
            vec![0x45, 1, 2, 3, 4, 5],
        ),
        ("a bstr of 7 bytes", vec![0x47, 1, 2, 3, 4, 5, 6, 7]),
        ("a bstr of 0 bytes", vec![0x40]),
        ("CBOR length 251, 40 bytes there", long),
        ("CBOR length 251 alone", vec![0x58, 251]),
        ("a 1-byte length cut off", vec![0x58]),
        ("not a bstr", vec![0x01, 0x02, 0x03]),
    ]
}

#[test]
fn malformed_message_3_is_refused_without_a_panic() {
    for (what, m3) in malformed() {
        let mut r = waiting();
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| r.handle_message_3(&m3)));
        let Ok(answer) = outcome else {
            panic!("{what}: the responder panicked");
        };
        assert!(
            matches!(answer, Err(Error::Refused(_) | Error::Malformed(_))),
            "{what}: {answer:?}"
        );
        assert!(!r.is_done());
    }
}
