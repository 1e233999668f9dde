//! The CoAP message (RFC 7252 section 3): a 4-byte header (version, type,
//! token length, code, message ID), the token, options in delta encoding,
//! and the payload after a 0xFF marker.

/// Version 1 (RFC 7252 section 3).
const VERSION: u8 = 1;
/// The fixed header.
pub const HEADER_LEN: usize = 4;
/// Before a non-empty payload (RFC 7252 section 3).
pub const PAYLOAD_MARKER: u8 = 0xff;
/// Tokens are 0 to 8 bytes in RFC 7252 (section 3); RFC 8974 (section
/// 2.1) extends them: TKL 13 adds one byte (length - 13), 14 two bytes
/// (length - 269), 15 stays reserved.
pub const MAX_TOKEN_LEN: usize = 8;
/// The longest extended token (RFC 8974 section 2.1: 65804 bytes).
pub const MAX_EXTENDED_TOKEN_LEN: usize = 65535 + 269;

/// Option numbers (RFC 7252 section 12.2; OSCORE: RFC 8613 section 2).
pub mod option {
    pub const URI_HOST: u16 = 3;
    pub const OSCORE: u16 = 9;
    pub const URI_PATH: u16 = 11;
    pub const CONTENT_FORMAT: u16 = 12;
    pub const PROXY_SCHEME: u16 = 39;
}

/// Content-Format numbers (RFC 9528 section 10.9).
pub mod content_format {
    /// application/edhoc+cbor-seq
    pub const EDHOC_CBOR_SEQ: u16 = 64;
    /// application/cid-edhoc+cbor-seq: an EDHOC message after a connection
    /// identifier (or CBOR true)
    pub const CID_EDHOC_CBOR_SEQ: u16 = 65;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Confirmable = 0,
    NonConfirmable = 1,
    Acknowledgement = 2,
    Reset = 3,
}

/// Codes as class.detail (RFC 7252 section 12.1).
pub mod code {
    pub const EMPTY: u8 = 0x00;
    pub const POST: u8 = 0x02;
    /// 2.04 Changed
    pub const CHANGED: u8 = 0x44;
    /// 4.00 Bad Request
    pub const BAD_REQUEST: u8 = 0x80;
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub ty: Type,
    pub code: u8,
    pub message_id: u16,
    pub token: Vec<u8>,
    /// (number, value), in any order; emitted sorted by number.
    pub options: Vec<(u16, Vec<u8>)>,
    pub payload: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseError {
    Truncated,
    BadVersion,
    BadTokenLength,
    /// The reserved nibble 15 in an option header (RFC 7252 section 3.1).
    BadOption,
    /// A payload marker followed by nothing (RFC 7252 section 3).
    EmptyPayload,
}

/// An unsigned option value in the fewest bytes (RFC 7252 section 3.2).
pub fn uint(v: u32) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let skip = bytes.iter().take_while(|b| **b == 0).count();
    bytes[skip..].to_vec()
}

/// The 4-bit field and the extended bytes of an option delta or length
/// (RFC 7252 section 3.1: 13 adds one byte minus 13, 14 two bytes minus 269).
fn nibble(v: u16) -> (u8, Vec<u8>) {
    match v {
        0..=12 => (v as u8, vec![]),
        13..=268 => (13, vec![(v - 13) as u8]),
        _ => (14, (v - 269).to_be_bytes().to_vec()),
    }
}

/// The TKL nibble and the extended bytes of a token of `len` bytes (RFC
/// 8974 section 2.1; tokens of 0 to 8 bytes are RFC 7252's as before).
fn token_length(len: usize) -> (u8, Vec<u8>) {
    match len {
        0..=12 => (len as u8, vec![]),
        13..=268 => (13, vec![(len - 13) as u8]),
        _ => (14, ((len - 269) as u16).to_be_bytes().to_vec()),
    }
}

impl Message {
    pub fn new(ty: Type, code: u8, message_id: u16, token: &[u8]) -> Self {
        Message {
            ty,
            code,
            message_id,
            token: token.to_vec(),
            options: Vec::new(),
            payload: Vec::new(),
        }
    }

    /// The piggybacked response to Confirmable `request` (RFC 7252
    /// §5.2.1): an Acknowledgement with its Message ID and token.
    pub fn piggybacked(request: &Message, code: u8) -> Self {
        Message::new(
            Type::Acknowledgement,
            code,
            request.message_id,
            &request.token,
        )
    }

    pub fn with_option(mut self, number: u16, value: Vec<u8>) -> Self {
        self.options.push((number, value));
        self
    }

    pub fn with_payload(mut self, payload: Vec<u8>) -> Self {
        self.payload = payload;
        self
    }

    /// The first value of option `number`.
    pub fn option(&self, number: u16) -> Option<&[u8]> {
        self.options
            .iter()
            .find(|(n, _)| *n == number)
            .map(|(_, v)| v.as_slice())
    }

    pub fn emit(&self) -> Vec<u8> {
        assert!(
            self.token.len() <= MAX_EXTENDED_TOKEN_LEN,
            "token of 0 to 65804 bytes"
        );
        let mut out = Vec::with_capacity(HEADER_LEN + self.token.len() + self.payload.len() + 32);
        let (tkl, tkl_ext) = token_length(self.token.len());
        out.push(VERSION << 6 | (self.ty as u8) << 4 | tkl);
        out.push(self.code);
        out.extend_from_slice(&self.message_id.to_be_bytes());
        out.extend_from_slice(&tkl_ext);
        out.extend_from_slice(&self.token);
        let mut options: Vec<_> = self.options.iter().collect();
        options.sort_by_key(|(n, _)| *n);
        let mut last = 0;
        for (number, value) in options {
            let (d, dx) = nibble(number - last);
            let (l, lx) = nibble(value.len() as u16);
            out.push(d << 4 | l);
            out.extend_from_slice(&dx);
            out.extend_from_slice(&lx);
            out.extend_from_slice(value);
            last = *number;
        }
        if !self.payload.is_empty() {
            out.push(PAYLOAD_MARKER);
            out.extend_from_slice(&self.payload);
        }
        out
    }

    pub fn parse(b: &[u8]) -> Result<Message, ParseError> {
        if b.len() < HEADER_LEN {
            return Err(ParseError::Truncated);
        }
        if b[0] >> 6 != VERSION {
            return Err(ParseError::BadVersion);
        }
        let ty = match (b[0] >> 4) & 3 {
            0 => Type::Confirmable,
            1 => Type::NonConfirmable,
            2 => Type::Acknowledgement,
            _ => Type::Reset,
        };
        let (tkl, start) = match b[0] & 0x0f {
            n @ 0..=12 => (usize::from(n), HEADER_LEN),
            13 => {
                let x = *b.get(HEADER_LEN).ok_or(ParseError::Truncated)?;
                (usize::from(x) + 13, HEADER_LEN + 1)
            }
            14 => {
                let x = b
                    .get(HEADER_LEN..HEADER_LEN + 2)
                    .ok_or(ParseError::Truncated)?;
                (
                    usize::from(u16::from_be_bytes([x[0], x[1]])) + 269,
                    HEADER_LEN + 2,
                )
            }
            _ => return Err(ParseError::BadTokenLength),
        };
        let token = b.get(start..start + tkl).ok_or(ParseError::Truncated)?;
        let mut m = Message::new(ty, b[1], u16::from_be_bytes([b[2], b[3]]), token);
        let mut at = start + tkl;
        let mut number: u16 = 0;
        let ext = |at: &mut usize, n: u8| -> Result<u16, ParseError> {
            let v = match n {
                0..=12 => u16::from(n),
                13 => {
                    let x = *b.get(*at).ok_or(ParseError::Truncated)?;
                    *at += 1;
                    u16::from(x) + 13
                }
                14 => {
                    let x = b.get(*at..*at + 2).ok_or(ParseError::Truncated)?;
                    *at += 2;
                    u16::from_be_bytes([x[0], x[1]]).saturating_add(269)
                }
                _ => return Err(ParseError::BadOption),
            };
            Ok(v)
        };
        while at < b.len() {
            if b[at] == PAYLOAD_MARKER {
                if at + 1 == b.len() {
                    return Err(ParseError::EmptyPayload);
                }
                m.payload = b[at + 1..].to_vec();
                return Ok(m);
            }
            let head = b[at];
            at += 1;
            let delta = ext(&mut at, head >> 4)?;
            let len = usize::from(ext(&mut at, head & 0x0f)?);
            let value = b.get(at..at + len).ok_or(ParseError::Truncated)?;
            at += len;
            number = number.checked_add(delta).ok_or(ParseError::BadOption)?;
            m.options.push((number, value.to_vec()));
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_get_with_uri_path_and_payload_is_byte_exact() {
        // RFC 7252 appendix A, figure 16's request with a Uri-Path
        // "temperature" (option 11, 11 bytes: header 0xBB).
        let m = Message::new(Type::Confirmable, 0x01, 0x7d34, &[])
            .with_option(option::URI_PATH, b"temperature".to_vec());
        let b = m.emit();
        assert_eq!(&b[..5], &[0x40, 0x01, 0x7d, 0x34, 0xbb]);
        assert_eq!(b.len(), 4 + 1 + 11);
        assert_eq!(Message::parse(&b).unwrap(), m);
    }

    #[test]
    fn long_deltas_and_lengths_use_the_extended_bytes() {
        let m = Message::new(Type::NonConfirmable, code::POST, 1, &[1, 2])
            .with_option(option::URI_PATH, vec![b'a'; 20])
            .with_option(300, vec![7; 300])
            .with_payload(vec![9; 5]);
        let b = m.emit();
        let back = Message::parse(&b).unwrap();
        assert_eq!(back.options[1].0, 300);
        assert_eq!(back.options[1].1.len(), 300);
        assert_eq!(back.payload, vec![9; 5]);
    }

    #[test]
    fn bad_input_is_refused() {
        assert_eq!(Message::parse(&[0x40, 1]), Err(ParseError::Truncated));
        assert_eq!(
            Message::parse(&[0x80, 1, 0, 0]),
            Err(ParseError::BadVersion)
        );
        assert_eq!(
            Message::parse(&[0x4f, 1, 0, 0]),
            Err(ParseError::BadTokenLength)
        );
        // RFC 8974's lengths: 9 bytes announced, none there
        assert_eq!(Message::parse(&[0x49, 1, 0, 0]), Err(ParseError::Truncated));
        assert_eq!(Message::parse(&[0x4d, 1, 0, 0]), Err(ParseError::Truncated));
        assert_eq!(
            Message::parse(&[0x40, 1, 0, 0, 0xff]),
            Err(ParseError::EmptyPayload)
        );
        assert_eq!(
            Message::parse(&[0x40, 1, 0, 0, 0xf1, 0]),
            Err(ParseError::BadOption)
        );
        assert_eq!(
            Message::parse(&[0x40, 1, 0, 0, 0xb5, b'a']),
            Err(ParseError::Truncated)
        );
    }

    /// RFC 8974 section 2.1: a 13-byte token is TKL 13 and one byte 0, a
    /// 24-byte one TKL 13 and 11, a 269-byte one TKL 14 and two bytes 0.
    #[test]
    fn extended_tokens_carry_their_length_in_extra_bytes() {
        for (len, head, ext) in [
            (8usize, 8u8, vec![]),
            (12, 12, vec![]),
            (13, 13, vec![0u8]),
            (24, 13, vec![11]),
            (268, 13, vec![255]),
            (269, 14, vec![0, 0]),
        ] {
            let m = Message::new(Type::Confirmable, code::POST, 7, &vec![0xab; len])
                .with_payload(vec![1]);
            let b = m.emit();
            assert_eq!(b[0] & 0x0f, head, "{len}");
            assert_eq!(&b[4..4 + ext.len()], &ext[..], "{len}");
            assert_eq!(b.len(), 4 + ext.len() + len + 2, "{len}");
            assert_eq!(Message::parse(&b).unwrap(), m, "{len}");
        }
    }

    #[test]
    fn uint_options_are_minimal() {
        assert_eq!(uint(0), Vec::<u8>::new());
        assert_eq!(uint(65), vec![65]);
        assert_eq!(uint(300), vec![1, 44]);
    }
}
