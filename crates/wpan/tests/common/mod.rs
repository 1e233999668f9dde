//! Frames shared by the integration tests.
#![allow(dead_code)]

use std::net::Ipv6Addr;

use wpan::frame::Address;
use wpan::{sixlowpan, udp};

pub const PAN: u16 = 0xabcd;
pub const NODE_A: u64 = 0x0012_4b00_0000_0001;
pub const NODE_B: u64 = 0x0012_4b00_0000_0002;
pub const COAP_DTLS_PORT: u16 = 5684;
pub const KEY: [u8; 16] = [
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
];

/// A DTLS 1.2 record carrying a ClientHello for TLS_PSK_WITH_AES_128_CCM_8
/// (content type 22, version fe fd, epoch 0, sequence number `seq`), padded
/// with a dummy extension to make the record `extra` bytes longer.
pub fn dtls_client_hello(seq: u64, extra: usize) -> Vec<u8> {
    let mut body = vec![0xfe, 0xfd];
    body.extend((0..32u8).map(|i| i.wrapping_mul(7)));
    body.push(0); // session id
    body.push(0); // cookie
    body.extend_from_slice(&[0x00, 0x02, 0xc0, 0xa8]); // cipher suites
    body.extend_from_slice(&[0x01, 0x00]); // compression methods
    if extra > 0 {
        let ext_len = extra.max(4) - 4;
        let total = 4 + ext_len;
        body.extend_from_slice(&(total as u16).to_be_bytes());
        body.extend_from_slice(&[0xff, 0xfe]); // private-use extension type
        body.extend_from_slice(&(ext_len as u16).to_be_bytes());
        body.resize(body.len() + ext_len, 0x5a);
    }
    let mut hs = vec![0x01];
    let bl = (body.len() as u32).to_be_bytes();
    hs.extend_from_slice(&bl[1..]); // length
    hs.extend_from_slice(&[0, 0]); // message_seq
    hs.extend_from_slice(&[0, 0, 0]); // fragment_offset
    hs.extend_from_slice(&bl[1..]); // fragment_length
    hs.extend_from_slice(&body);
    let mut rec = vec![22, 0xfe, 0xfd, 0, 0];
    rec.extend_from_slice(&seq.to_be_bytes()[2..]);
    rec.extend_from_slice(&(hs.len() as u16).to_be_bytes());
    rec.extend_from_slice(&hs);
    rec
}

/// An IPv6/UDP datagram from A's to B's link-local address, client port
/// 49152 to 5684, carrying `payload`.
pub fn udp_datagram(src: &Address, dst: &Address, payload: &[u8]) -> Vec<u8> {
    let s: Ipv6Addr = sixlowpan::link_local(src).unwrap();
    let d: Ipv6Addr = sixlowpan::link_local(dst).unwrap();
    udp::build_udp_datagram(s, d, 64, 49152, COAP_DTLS_PORT, payload).unwrap()
}
