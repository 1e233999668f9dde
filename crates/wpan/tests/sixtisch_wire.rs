//! 6TiSCH control messages (6P, RPL): parse never panics on arbitrary
//! bytes, and what parses re-emits to the same bytes.

use proptest::prelude::*;
use std::net::Ipv6Addr;

use wpan::rpl;
use wpan::sixtop::{self, Command};

fn answering() -> impl Strategy<Value = Option<Command>> {
    prop_oneof![Just(None), (1u8..=7).prop_map(Command::from_code)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// 6P: arbitrary bytes give a message or an error; a message re-emits
    /// to the same length and reads back as the same message.
    #[test]
    fn sixp_parse_never_panics(
        head in (0u8..0x40, 0u8..12, any::<u8>(), any::<u8>()),
        body in proptest::collection::vec(any::<u8>(), 0..40),
        cmd in answering(),
    ) {
        let mut b = vec![head.0, head.1, head.2, head.3];
        b.extend_from_slice(&body);
        if let Ok(r) = sixtop::Repr::parse(&b, cmd) {
            let mut out = vec![0u8; r.buffer_len()];
            prop_assert_eq!(r.emit(&mut out), Ok(b.len()));
            // code, SFID, SeqNum and the cells come back byte for byte
            // (the reserved bits of byte 0 and of LIST are written as 0)
            prop_assert_eq!(&out[1..4], &b[1..4]);
            prop_assert_eq!(sixtop::Repr::parse(&out, cmd), Ok(r));
        }
        let _ = sixtop::Repr::parse_ietf_ie_content(&b, cmd);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// RPL: arbitrary bodies of every code give a message or an error; a
    /// message re-emits to bytes that read back as the same message, with
    /// a checksum the parser accepts.
    #[test]
    fn rpl_parse_never_panics(
        code in prop_oneof![0u8..5, Just(0x80u8), any::<u8>()],
        body in proptest::collection::vec(any::<u8>(), 0..80),
        options in proptest::collection::vec(
            (prop_oneof![0u8..10, any::<u8>()], proptest::collection::vec(any::<u8>(), 0..32)), 0..4),
    ) {
        let _ = rpl::Repr::parse_body(code, &body);
        // a base followed by well-framed options of arbitrary content
        let mut b = body;
        for (kind, data) in &options {
            b.push(*kind);
            if *kind != 0 {
                b.push(data.len() as u8);
                b.extend_from_slice(data);
            }
        }
        if let Ok(r) = rpl::Repr::parse_body(code, &b) {
            let src: Ipv6Addr = "fe80::1".parse().unwrap();
            let dst: Ipv6Addr = "ff02::1a".parse().unwrap();
            let mut out = vec![0u8; r.buffer_len()];
            if r.emit(&src, &dst, &mut out).is_ok() {
                prop_assert_eq!(rpl::Repr::parse(&out, Some((&src, &dst))), Ok(r));
            }
        }
        let _ = rpl::Repr::parse(&b, None);
    }
}
