//! Handshake message parsing and reassembly.
#![no_main]

use dtls::codec::Reader;
use dtls::handshake::fragment::Reassembler;
use dtls::handshake::messages::{
    parse_certificate, parse_certificate_request, ClientHello, EcdheServerKeyExchange,
    FragmentHeader, HelloVerifyRequest, ServerHello,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(ch) = ClientHello::parse(data) {
        let mut out = Vec::new();
        ch.emit(&mut out);
        assert_eq!(ClientHello::parse(&out).unwrap(), ch);
    }
    let _ = ServerHello::parse(data);
    let _ = HelloVerifyRequest::parse(data);
    let _ = parse_certificate(data);
    let _ = parse_certificate_request(data);
    let _ = EcdheServerKeyExchange::parse(data);
    let _ = dtls::crypto::ecc::certificate_public_key(data);
    let _ = dtls::crypto::ecc::private_key_from_der(data);
    // a stream of fragments into one reassembler
    let mut r = Reader::new(data);
    let mut re = Reassembler::new(0, 4096);
    while let Ok((h, body)) = FragmentHeader::parse(&mut r) {
        if re.insert(&h, body).is_err() {
            break;
        }
        while re.pop().is_some() {}
    }
});
