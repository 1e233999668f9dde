//! The CoJP exchange's messages (RFC 9031 §8.1): the pledge's Join Request,
//! a Confirmable POST to the JRC's `/j` resource protected by OSCORE, and
//! the JRC's Join Response, a piggybacked 2.04 Changed carrying the
//! Configuration (its link-layer key set), also under OSCORE.
//!
//! The OSCORE security context is the one the pre-shared key derives
//! (RFC 9031 §7.1, as recalled, not re-read here): the pledge's Sender ID
//! is the empty byte string, the JRC's is "JRC" (0x4a5243), and the ID
//! Context is the pledge identifier, which the Join Request carries as the
//! OSCORE option's kid context so the JRC can find the pledge's key. The
//! payloads are CBOR with Content-Format application/cbor (60; RFC 9031
//! §8.1.1-§8.1.2 as recalled). The protection is [`oscore::seal`]: lengths
//! exact, nothing encrypted (see there).

use crate::cojp::{CojpError, Configuration, JoinRequest};
use crate::message::{code, option, uint, Message, ParseError, Type};
use crate::oscore::{self, Sender};

/// The join resource (RFC 9031 §8.1).
pub const PATH: &[u8] = b"j";
/// application/cbor (RFC 7049 §7.3).
pub const CONTENT_FORMAT_CBOR: u32 = 60;
/// The pledge's OSCORE Sender ID: empty (RFC 9031 §7.1, as recalled).
pub const PLEDGE_SENDER_ID: &[u8] = b"";

/// Why a CoJP message was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JoinError {
    /// not CoAP
    Coap(ParseError),
    /// no OSCORE option, or a protected payload too short to open
    NotProtected,
    /// a request without the pledge identifier as kid context
    NoPledgeId,
    /// not a POST to /j (request) or not 2.04 Changed (response)
    WrongMessage,
    /// the CBOR object inside
    Object(CojpError),
}

impl From<ParseError> for JoinError {
    fn from(e: ParseError) -> Self {
        JoinError::Coap(e)
    }
}

impl From<CojpError> for JoinError {
    fn from(e: CojpError) -> Self {
        JoinError::Object(e)
    }
}

/// The Join Request the pledge `pledge_id` sends with OSCORE sequence
/// number `seq`, as a Confirmable POST with `message_id` and `token`.
pub fn join_request(
    message_id: u16,
    token: &[u8],
    seq: u64,
    pledge_id: &[u8],
    request: &JoinRequest,
) -> Message {
    let plain = Message::new(Type::Confirmable, code::POST, message_id, token)
        .with_option(option::URI_PATH, PATH.to_vec())
        .with_option(option::CONTENT_FORMAT, uint(CONTENT_FORMAT_CBOR))
        .with_payload(request.to_cbor());
    let sender = Sender {
        partial_iv: Some(seq),
        kid: Some(PLEDGE_SENDER_ID),
    };
    oscore::seal(&plain, &sender, Some(pledge_id))
}

/// What the JRC reads from a Join Request: the pledge identifier (the kid
/// context) and the request object.
pub fn read_join_request(datagram: &[u8]) -> Result<(Vec<u8>, Message, JoinRequest), JoinError> {
    let outer = Message::parse(datagram)?;
    let id = outer
        .option(option::OSCORE)
        .and_then(oscore::kid_context_of)
        .ok_or(JoinError::NoPledgeId)?
        .to_vec();
    let inner = oscore::open(&outer).ok_or(JoinError::NotProtected)?;
    if outer.ty != Type::Confirmable
        || inner.code != code::POST
        || inner.option(option::URI_PATH) != Some(PATH)
    {
        return Err(JoinError::WrongMessage);
    }
    let request = JoinRequest::from_cbor(&inner.payload)?;
    Ok((id, outer, request))
}

/// The JRC's Join Response to `request` (the outer Join Request): a
/// piggybacked 2.04 Changed with the Configuration. A response carries
/// neither Partial IV nor kid (RFC 8613 §6.1, the request's are used).
pub fn join_response(request: &Message, config: &Configuration) -> Message {
    let plain = Message::piggybacked(request, code::CHANGED)
        .with_option(option::CONTENT_FORMAT, uint(CONTENT_FORMAT_CBOR))
        .with_payload(config.to_cbor());
    let sender = Sender {
        partial_iv: None,
        kid: None,
    };
    oscore::seal(&plain, &sender, None)
}

/// The Configuration a Join Response delivers.
pub fn read_join_response(m: &Message) -> Result<Configuration, JoinError> {
    let inner = oscore::open(m).ok_or(JoinError::NotProtected)?;
    if inner.code != code::CHANGED {
        return Err(JoinError::WrongMessage);
    }
    Ok(Configuration::from_cbor(&inner.payload)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cojp::{role, LinkLayerKey, ShortIdentifier};

    const PLEDGE: [u8; 8] = [0x02, 0, 0, 0, 0, 0, 0, 0x2a];

    fn config() -> Configuration {
        Configuration {
            keys: Some(vec![LinkLayerKey {
                key_id: 1,
                key_usage: None,
                key_value: vec![0x11; 16],
            }]),
            short_id: Some(ShortIdentifier {
                identifier: vec![0x00, 0x2a],
                lease_time: None,
            }),
            ..Configuration::default()
        }
    }

    #[test]
    fn one_exchange_byte_counts_by_hand() {
        let req = JoinRequest {
            role: Some(role::NODE),
            network_id: None,
        };
        let r = join_request(7, &[0xa5, 0x5a], 0, &PLEDGE, &req);
        let bytes = r.emit();
        // header 4, token 2; OSCORE option: 1 header byte + flags, PIV 00,
        // s = 8, 8-byte pledge id, empty kid = 12; marker 1; ciphertext:
        // code 1, Uri-Path "j" 2, Content-Format 60 2, marker 1, a1 01 00
        // 3, tag 8 = 17; 4 + 2 + 12 + 1 + 17 = 36
        assert_eq!(bytes.len(), 36);
        assert_eq!(&bytes[6..9], &[0x9b, 0x19, 0x00]);
        let (id, outer, got) = read_join_request(&bytes).unwrap();
        assert_eq!((id.as_slice(), got), (&PLEDGE[..], req));
        let resp = join_response(&outer, &config()).emit();
        // header 4, token 2, empty OSCORE option 1, marker 1; ciphertext:
        // code 1, Content-Format 2, marker 1, Configuration 26 (see cojp),
        // tag 8 = 38; 46 in all
        assert_eq!(resp.len(), 46);
        let m = Message::parse(&resp).unwrap();
        assert_eq!(
            (m.ty, m.code, m.message_id),
            (Type::Acknowledgement, code::CHANGED, 7)
        );
        assert_eq!(read_join_response(&m), Ok(config()));
    }

    #[test]
    fn what_is_not_a_join_message_is_an_error() {
        let req = JoinRequest::default();
        let good = join_request(1, &[], 3, &PLEDGE, &req).emit();
        for cut in [0, 3, good.len() / 2, good.len() - 9] {
            assert!(read_join_request(&good[..cut]).is_err(), "cut at {cut}");
        }
        // a request without the pledge id
        let plain = Message::new(Type::Confirmable, code::POST, 1, &[])
            .with_option(option::URI_PATH, PATH.to_vec())
            .with_payload(vec![0xa0]);
        let no_id = oscore::seal(
            &plain,
            &Sender {
                partial_iv: Some(1),
                kid: Some(b""),
            },
            None,
        );
        assert_eq!(read_join_request(&no_id.emit()), Err(JoinError::NoPledgeId));
        // another resource
        let other = Message::new(Type::Confirmable, code::POST, 1, &[])
            .with_option(option::URI_PATH, b"x".to_vec())
            .with_payload(vec![0xa0]);
        let other = oscore::seal(
            &other,
            &Sender {
                partial_iv: Some(1),
                kid: Some(b""),
            },
            Some(&PLEDGE),
        );
        assert_eq!(
            read_join_request(&other.emit()),
            Err(JoinError::WrongMessage)
        );
        // a response whose Configuration is not CBOR
        let outer = Message::parse(&good).unwrap();
        let mut resp = join_response(&outer, &config());
        resp.payload[4] = 0xff;
        assert!(matches!(
            read_join_response(&resp),
            Err(JoinError::Object(_))
        ));
    }
}
