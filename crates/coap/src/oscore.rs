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
const FLAG_KID_CONTEXT: u8 = 0x10;

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
    option_value_in(s, None)
}

/// The OSCORE option's value with a kid context (RFC 8613 section 6.1:
/// flag h, then after the Partial IV one length byte s and the kid context
/// itself, then the kid), as a request carries the ID Context the receiver
/// needs to find the security context (CoJP's Join Request, RFC 9031 §8.1).
pub fn option_value_in(s: &Sender, kid_context: Option<&[u8]>) -> Vec<u8> {
    let piv = s.partial_iv.map(partial_iv).unwrap_or_default();
    let mut flags = piv.len() as u8 & PIV_LEN_MASK;
    if s.kid.is_some() {
        flags |= FLAG_KID;
    }
    if kid_context.is_some() {
        flags |= FLAG_KID_CONTEXT;
    }
    if flags == 0 {
        return vec![];
    }
    let mut v = vec![flags];
    v.extend_from_slice(&piv);
    if let Some(c) = kid_context {
        v.push(c.len() as u8);
        v.extend_from_slice(c);
    }
    v.extend_from_slice(s.kid.unwrap_or_default());
    v
}

/// The kid context of an OSCORE option's value (RFC 8613 section 6.1), if
/// the value is well formed and carries one.
pub fn kid_context_of(value: &[u8]) -> Option<&[u8]> {
    let (&flags, rest) = value.split_first()?;
    if flags & FLAG_KID_CONTEXT == 0 {
        return None;
    }
    let rest = rest.get(usize::from(flags & PIV_LEN_MASK)..)?;
    let (&len, rest) = rest.split_first()?;
    rest.get(..usize::from(len))
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

/// The OSCORE-protected form of `m` as [`protect`] makes it, but with the
/// plaintext itself in place of the ciphertext and a zero tag: the lengths
/// of RFC 8613 section 5.3 exactly, and a payload the receiver can read
/// back with [`open`]. Nothing is encrypted or authenticated (the AEAD's
/// cost is charged by the caller); what travels is what OSCORE would send,
/// byte for byte in length.
pub fn seal(m: &Message, s: &Sender, kid_context: Option<&[u8]>) -> Message {
    let inner = Message {
        token: vec![],
        ..m.clone()
    };
    let mut payload = vec![m.code];
    payload.extend_from_slice(&inner.emit()[HEADER_LEN..]);
    payload.extend_from_slice(&[0; TAG_LEN]);
    Message::new(m.ty, m.code, m.message_id, &m.token)
        .with_option(option::OSCORE, option_value_in(s, kid_context))
        .with_payload(payload)
}

/// The inner message of a message [`seal`]ed (its code, options and
/// payload, under the outer header and token); None when there is no
/// OSCORE option or the payload is too short to hold a code and a tag.
pub fn open(m: &Message) -> Option<Message> {
    m.option(option::OSCORE)?;
    let body = m.payload.get(..m.payload.len().checked_sub(TAG_LEN)?)?;
    let (&code, rest) = body.split_first()?;
    // the inner options and payload, parsed after a token-less header
    let mut bytes = Message::new(m.ty, code, m.message_id, &[]).emit();
    bytes.extend_from_slice(rest);
    let inner = Message::parse(&bytes).ok()?;
    Some(Message {
        token: m.token.clone(),
        ..inner
    })
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
    fn a_kid_context_follows_the_partial_iv_with_its_length() {
        // flags 0x19 (h, k, one-byte Partial IV), PIV 05, s = 2, context, kid
        let s = Sender {
            partial_iv: Some(5),
            kid: Some(&[0x27]),
        };
        let v = option_value_in(&s, Some(&[0xaa, 0xbb]));
        assert_eq!(v, vec![0x19, 0x05, 0x02, 0xaa, 0xbb, 0x27]);
        assert_eq!(kid_context_of(&v), Some(&[0xaa, 0xbb][..]));
        assert_eq!(kid_context_of(&option_value(&s)), None);
        // cut short: no context read past the end
        assert_eq!(kid_context_of(&v[..4]), None);
    }

    #[test]
    fn sealed_messages_open_to_what_was_sealed_and_are_as_long_as_protected() {
        let s = Sender {
            partial_iv: Some(5),
            kid: Some(&[0x27]),
        };
        let m = request(10);
        let sealed = seal(&m, &s, None);
        assert_eq!(sealed.emit().len(), protect(&m, &s).emit().len());
        let opened = open(&sealed).expect("opens");
        assert_eq!(opened.code, m.code);
        assert_eq!(opened.options, m.options);
        assert_eq!(opened.payload, m.payload);
        // no OSCORE option, or a payload shorter than a tag: nothing to open
        assert_eq!(open(&m), None);
        let short = Message {
            payload: vec![1; TAG_LEN],
            ..sealed
        };
        assert_eq!(open(&short), None);
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
