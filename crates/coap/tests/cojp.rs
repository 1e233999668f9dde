//! CoJP objects: decoding arbitrary bytes never panics, and what decodes
//! re-encodes to an object that decodes the same.

use coap::cojp::{Configuration, JoinRequest};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn cojp_decode_never_panics(
        head in prop_oneof![Just(0xa1u8), Just(0xa2), Just(0xa3), any::<u8>()],
        body in proptest::collection::vec(
            prop_oneof![0u8..9, Just(0x40), Just(0x42), Just(0x50), Just(0x81), Just(0x82), any::<u8>()],
            0..40),
    ) {
        let mut b = vec![head];
        b.extend_from_slice(&body);
        if let Ok(r) = JoinRequest::from_cbor(&b) {
            prop_assert_eq!(JoinRequest::from_cbor(&r.to_cbor()), Ok(r));
        }
        if let Ok(c) = Configuration::from_cbor(&b) {
            prop_assert_eq!(Configuration::from_cbor(&c.to_cbor()), Ok(c));
        }
    }
}
