//! Why a connection failed or a call was refused: [`Error`], and the
//! typed reasons it carries, grouped by cause: those both versions raise
//! ([`Malformed`], [`Unexpected`], [`Disagreement`], [`Illegal`],
//! [`CertificateError`], [`ConfigError`], [`InternalError`]) and DTLS
//! 1.3's record, message and handshake refusals ([`v13`]).

use core::fmt;

pub use crate::alert::{Alert, AlertDescription, AlertLevel};
pub use reason::{
    CertificateError, ConfigError, Disagreement, Illegal, InternalError, Malformed, Unexpected,
};

mod reason;
pub mod v13;

/// Why a connection failed, or why an API call was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The peer sent a fatal alert.
    AlertReceived(AlertDescription),
    /// The retransmission limit was reached without an answer.
    Timeout,
    /// A message could not be parsed.
    Decode(Malformed),
    /// A message arrived that the state machine did not expect.
    UnexpectedMessage(Unexpected),
    /// No cipher suite (or other parameter) in common with the peer.
    HandshakeFailure(Disagreement),
    /// A field had a value that is not allowed.
    IllegalParameter(Illegal),
    /// The peer answered with an extension we did not offer.
    UnsupportedExtension,
    /// The peer's Finished did not verify.
    FinishedMismatch,
    /// A record of an epoch this side holds no keys for (tinyDTLS 0.8.2's
    /// server answers its peer's Finished before the ChangeCipherSpec so:
    /// see `RetransmitPolicy::fatal_before_change_cipher_spec`).
    NoKeysForEpoch,
    /// Records of the new epoch repeatedly failed authentication during the
    /// handshake (typically: the two sides hold different PSKs).
    BadRecordMac,
    /// The PSK identity is not known to the server.
    UnknownPskIdentity,
    /// Certificate missing, malformed or not acceptable.
    BadCertificate(CertificateError),
    /// A signature (ServerKeyExchange, CertificateVerify) did not verify.
    BadSignature,
    /// The peer does not speak DTLS 1.2.
    ProtocolVersion,
    /// The server has no free session slot.
    TooManySessions,
    /// API misuse: e.g. `send` before the handshake completed.
    NotConnected,
    /// The peer closed the connection with close_notify.
    ClosedByPeer,
    /// Data larger than one record can carry.
    MessageTooLong,
    /// The configuration is not usable.
    Config(ConfigError),
    /// Local failure (should not happen).
    Internal(InternalError),
    /// A DTLS 1.3 record could not be used.
    Record13(v13::RecordError),
    /// A DTLS 1.3 message could not be decoded.
    Message13(v13::MessageError),
    /// A DTLS 1.3 handshake was refused.
    Handshake13(v13::HandshakeError13),
}

impl Error {
    /// The alert that reports this error to the peer, if any.
    pub fn alert(&self) -> Option<AlertDescription> {
        Some(match self {
            Error::AlertReceived(_) | Error::Timeout | Error::NotConnected => return None,
            Error::ClosedByPeer => return None,
            Error::MessageTooLong | Error::Config(_) => return None,
            Error::Decode(_) => AlertDescription::DecodeError,
            Error::UnexpectedMessage(_) => AlertDescription::UnexpectedMessage,
            Error::HandshakeFailure(_) | Error::TooManySessions => {
                AlertDescription::HandshakeFailure
            }
            Error::IllegalParameter(_) => AlertDescription::IllegalParameter,
            Error::UnsupportedExtension => AlertDescription::UnsupportedExtension,
            Error::FinishedMismatch | Error::BadSignature | Error::NoKeysForEpoch => {
                AlertDescription::DecryptError
            }
            Error::BadRecordMac => AlertDescription::BadRecordMac,
            Error::UnknownPskIdentity => AlertDescription::UnknownPskIdentity,
            Error::BadCertificate(_) => AlertDescription::BadCertificate,
            Error::ProtocolVersion => AlertDescription::ProtocolVersion,
            Error::Internal(_) => AlertDescription::InternalError,
            // invalid records are dropped, not answered (RFC 9147 §4.5.2)
            Error::Record13(_) => return None,
            Error::Message13(e) => e.alert(),
            Error::Handshake13(e) => e.alert(),
        })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::AlertReceived(d) => write!(f, "peer sent fatal alert {d:?}"),
            Error::Timeout => write!(f, "retransmission limit reached"),
            Error::Decode(s) => write!(f, "decode error: {s}"),
            Error::UnexpectedMessage(s) => write!(f, "unexpected message: {s}"),
            Error::HandshakeFailure(s) => write!(f, "handshake failure: {s}"),
            Error::IllegalParameter(s) => write!(f, "illegal parameter: {s}"),
            Error::UnsupportedExtension => write!(f, "unsolicited extension"),
            Error::FinishedMismatch => write!(f, "peer Finished did not verify"),
            Error::BadRecordMac => write!(f, "records of the new epoch failed authentication"),
            Error::NoKeysForEpoch => write!(f, "a record of an epoch without keys"),
            Error::UnknownPskIdentity => write!(f, "unknown PSK identity"),
            Error::BadCertificate(s) => write!(f, "bad certificate: {s}"),
            Error::BadSignature => write!(f, "signature did not verify"),
            Error::ProtocolVersion => write!(f, "peer does not support DTLS 1.2"),
            Error::TooManySessions => write!(f, "no free session slot"),
            Error::NotConnected => write!(f, "not connected"),
            Error::ClosedByPeer => write!(f, "peer closed the connection (close_notify)"),
            Error::MessageTooLong => write!(f, "message too long for one record"),
            Error::Config(s) => write!(f, "configuration: {s}"),
            Error::Internal(s) => write!(f, "internal error: {s}"),
            Error::Record13(e) => write!(f, "record: {e}"),
            Error::Message13(e) => write!(f, "message: {e}"),
            Error::Handshake13(e) => write!(f, "handshake: {e}"),
        }
    }
}

impl std::error::Error for Error {}
