//! IEEE 802.15.4 frames, 6LoWPAN (IPHC and fragment reassembly) and CCM*.

use wpan::ccm_star::{secure_frame, unsecure_frame, Key, NonceSource};
use wpan::fragment::{Reassembled, Reassembler};
use wpan::frame::{Address, Repr};
use wpan::ipv6::Ipv6Header;
use wpan::sixlowpan::{decompress, Contexts};

use crate::input::datagrams;

/// The CCM* key of IEEE 802.15.4-2015 Annex C (C0 … CF), so the committed
/// seeds include the standard's secured frames.
pub const ANNEX_C_KEY: [u8; 16] = [
    0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF,
];

/// Datagrams a reassembler holds at once in the 6LoWPAN target.
const REASSEMBLY_BUFFERS: usize = 4;
/// IPv6 header length.
const IPV6_HEADER_LEN: usize = 40;

/// A plaintext MPDU, and the same bytes with an FCS: what parses emits to
/// bytes that parse to the same frame, of the length the frame says.
pub fn frame(data: &[u8]) {
    for repr in [Repr::parse(data), Repr::parse_with_fcs(data)]
        .into_iter()
        .flatten()
    {
        let mut out = vec![0; repr.buffer_len()];
        let n = repr.emit(&mut out).expect("a parsed frame emits");
        assert_eq!(n, out.len(), "emit writes buffer_len bytes");
        assert_eq!(Repr::parse(&out).expect("re-parses"), repr);
    }
}

/// Link-layer addresses of the 6LoWPAN target, chosen by the first byte
/// (IPHC elides what they imply, so every mode is reached).
fn addresses(choice: u8) -> (Address, Address) {
    let pick = |c: u8| match c & 3 {
        0 => Address::Short(0x0001),
        1 => Address::Short(0xffff),
        _ => Address::Extended(0xacde_4800_0000_0001 + u64::from(c)),
    };
    (pick(choice), pick(choice >> 2))
}

/// What a decompressed datagram must be: an IPv6 header whose payload
/// length is the rest of the datagram.
fn assert_datagram(v: &[u8]) {
    let ip = Ipv6Header::parse(v).expect("a decompressed datagram has an IPv6 header");
    assert_eq!(usize::from(ip.payload_len) + IPV6_HEADER_LEN, v.len());
}

/// 6LoWPAN payloads (first byte: the link-layer addresses; then datagrams,
/// each one frame payload, an empty one advancing the clock past the
/// reassembly timeout): a decompressed or reassembled datagram is a whole
/// IPv6 datagram, and the reassembler holds at most its buffers.
pub fn sixlowpan(data: &[u8]) {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let (src, dst) = addresses(choice);
    let ctx = Contexts::default();
    let mut r = Reassembler::new(60_000_000, REASSEMBLY_BUFFERS);
    let mut now = 0;
    for payload in datagrams(rest) {
        if payload.is_empty() {
            now += 61_000_000;
            r.expire(now);
            continue;
        }
        if let Ok(v) = decompress(payload, &src, &dst, &ctx) {
            assert_datagram(&v);
        }
        now += 1_000;
        if let Ok(Reassembled::Complete(v)) = r.accept(now, &src, &dst, &ctx, payload) {
            assert_datagram(&v);
        }
        assert!(r.pending() <= REASSEMBLY_BUFFERS, "reassembly is bounded");
    }
}

/// A secured MPDU (first byte: 0 takes the nonce from the frame, else
/// from a TSCH ASN and a fixed originator): what unsecures secures back to
/// the same bytes with the same key and nonce.
pub fn ccm_star(data: &[u8]) {
    let Some((&choice, mpdu)) = data.split_first() else {
        return;
    };
    let ns = if choice == 0 {
        NonceSource::FROM_FRAME
    } else {
        NonceSource {
            src_ext: Some(0xacde_4800_0000_0001),
            asn: Some(u64::from(choice)),
        }
    };
    let key = Key::new(&ANNEX_C_KEY);
    let mut m = mpdu.to_vec();
    if let Ok(opened) = unsecure_frame(&mut m, &key, ns) {
        let mut again = m.clone();
        let sealed = secure_frame(&mut again, &key, ns).expect("an opened frame secures");
        assert_eq!(again, mpdu, "unsecure then secure gives the frame back");
        assert_eq!(sealed.aes_blocks, opened.aes_blocks);
    }
}
