//! What OSCORE (RFC 8613) adds to a CoAP message, from the real encodings:
//! the protected message is the outer header and token, the OSCORE option
//! (section 6.1) and a payload that is the encrypted inner message (code,
//! class E options, payload; section 5.3) with the AEAD tag. The tag is
//! 8 bytes with AES-CCM-16-64-128, the AEAD of EDHOC cipher suite 2 and
//! OSCORE's default (RFC 8613 section 3.2). No bytes are encrypted here:
//! the ciphertext of a CCM mode is as long as the plaintext.

use crate::message::{option, Message, HEADER_LEN};

/// AES-CCM-16-64-128 (RFC 9053 section 4.2): a 64-bit tag.
pub const TAG_LEN: usize = 8;

/// The OSCORE option flag bits (RFC 8613 section 6.1).
const FLAG_KID: u8 = 0x08;
const PIV_LEN_MASK: u8 = 0x07;

/// What the sender puts in the OSCORE option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sender<'a> {
    /// The Partial IV (the sender sequence number, RFC 8613 section
    /// 3.1), present in requests; responses may leave it out (section 8.3).
    pub partial_iv: Option<u64>,
    /// The kid (the Sender ID), present in requests (section 6.1); with
    /// EDHOC, the peer's connection identifier (RFC 9528 appendix A.1).
    pub kid: Option<&'a [u8]>,
}

/// The Partial IV: the sequence number in the fewest bytes, at least one
/// (RFC 8613 section 6.1).
fn partial_iv(seq: u64) -> Vec<u8> {
    let bytes = seq.to_be_bytes();
    let skip = bytes.iter().take_while(|b| **b == 0).count().min(7);
    bytes[skip..].to_vec()
}

/// The OSCORE option's value (RFC 8613 section 6.1): a flag byte, the
/// Partial IV, the kid; empty when every flag is zero.
pub fn option_value(s: &Sender) -> Vec<u8> {
    let piv = s.partial_iv.map(partial_iv).unwrap_or_default();
    let mut flags = piv.len() as u8 & PIV_LEN_MASK;
    if s.kid.is_some() {
        flags |= FLAG_KID;
    }
    if flags == 0 {
        return vec![];
    }
    let mut v = vec![flags];
    v.extend_from_slice(&piv);
    v.extend_from_slice(s.kid.unwrap_or_default());
    v
}

/// The OSCORE-protected form of `m`: the outer message with the ciphertext
/// as payload (zeros of the right length). Every option of `m` is taken as
/// class E (encrypted), as Uri-Path and Content-Format are (RFC 8613
/// section 4.1).
pub fn protect(m: &Message, s: &Sender) -> Message {
    let inner = Message {
        token: vec![],
        ..m.clone()
    };
    // The plaintext: the code, then what follows the header (section 5.3).
    let plaintext_len = 1 + inner.emit().len() - HEADER_LEN;
    Message::new(m.ty, m.code, m.message_id, &m.token)
        .with_option(option::OSCORE, option_value(s))
        .with_payload(vec![0; plaintext_len + TAG_LEN])
}

/// Bytes OSCORE adds to `m`.
pub fn overhead(m: &Message, s: &Sender) -> usize {
    protect(m, s).emit().len() - m.emit().len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{code, Type};

    fn request(payload: usize) -> Message {
        Message::new(Type::Confirmable, code::POST, 1, &[0xaa])
            .with_option(option::URI_PATH, b"r".to_vec())
            .with_payload(vec![1; payload])
    }

    #[test]
    fn option_values_follow_section_6_1() {
        // RFC 8613 appendix C.4's request: Partial IV 0x14 (20), kid empty:
        // option value 09 14 (flags: kid present, one-byte Partial IV).
        let s = Sender {
            partial_iv: Some(20),
            kid: Some(&[]),
        };
        assert_eq!(option_value(&s), vec![0x09, 0x14]);
        // appendix C.7's response: no Partial IV, no kid: empty value.
        let none = Sender {
            partial_iv: None,
            kid: None,
        };
        assert!(option_value(&none).is_empty());
        // sequence number 0 still takes one byte (section 6.1)
        let zero = Sender {
            partial_iv: Some(0),
            kid: Some(&[0x27]),
        };
        assert_eq!(option_value(&zero), vec![0x09, 0x00, 0x27]);
    }

    #[test]
    fn request_with_one_byte_kid_adds_14_bytes() {
        // option header 1 + value 3 (flags, Partial IV, kid), inner code 1,
        // a second payload marker (outer and inner, section 5.3), tag 8
        let s = Sender {
            partial_iv: Some(5),
            kid: Some(&[0x27]),
        };
        assert_eq!(overhead(&request(10), &s), 14);
        // without a payload the inner marker goes, the outer one comes
        assert_eq!(overhead(&request(0), &s), 14);
        // an empty kid (RFC 8613 appendix C.4's client): 13
        let empty_kid = Sender {
            partial_iv: Some(5),
            kid: Some(&[]),
        };
        assert_eq!(overhead(&request(10), &empty_kid), 13);
    }

    #[test]
    fn response_without_partial_iv_or_kid_adds_11_bytes() {
        let s = Sender {
            partial_iv: None,
            kid: None,
        };
        let empty = Message::new(Type::Acknowledgement, code::CHANGED, 1, &[0xaa]);
        // option header 1, inner code 1, payload marker 1, tag 8
        assert_eq!(overhead(&empty, &s), 11);
        assert_eq!(overhead(&empty.with_payload(vec![1; 4]), &s), 11);
    }
}
