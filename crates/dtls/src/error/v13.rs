//! Why DTLS 1.3 input was refused: typed reasons for the record layer and
//! the message codecs. Both convert into the crate's [`Error`], which picks
//! the alert (RFC 8446 §6.2) when one is due.

use core::fmt;

use crate::error::{AlertDescription, Error};

/// A record that cannot be used (RFC 9147 §4.5.2: such records are dropped
/// silently; the reason is for diagnostics and tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RecordError {
    /// The datagram ends inside a record header.
    TruncatedHeader,
    /// The length field runs past the end of the datagram.
    LengthBeyondDatagram,
    /// The first byte is neither a DTLSPlaintext type of DTLS 1.3 (alert,
    /// handshake, ack) nor a unified header (`001xxxxx`) (RFC 9147 §4.1).
    UnknownFirstByte(u8),
    /// A unified header's C bit disagrees with whether a connection ID was
    /// negotiated for this direction (RFC 9147 §9).
    UnexpectedCid,
    /// Fewer than 16 bytes of ciphertext: no record-number mask can be
    /// computed (RFC 9147 §4.2.3).
    CiphertextTooShort,
    /// No keys for the record's epoch bits.
    UnknownEpoch,
    /// The record was already received, or is older than the replay window
    /// (RFC 9147 §4.5.1).
    Replay,
    /// The AEAD tag did not verify.
    Authentication,
    /// So many records failed authentication under the newest receiving
    /// keys that the AEAD's integrity limit was reached (RFC 9147 §4.5.3):
    /// the connection is closed.
    IntegrityLimit,
    /// The decrypted DTLSInnerPlaintext is all zeros: no content type
    /// (RFC 8446 §5.4).
    NoContentType,
    /// The inner content type is not one DTLS 1.3 carries encrypted.
    BadContentType(u8),
    /// More than 2^14 + 256 bytes of protected record, or more than 2^14
    /// bytes of content (RFC 8446 §5.2, §5.4).
    RecordOverflow,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::TruncatedHeader => write!(f, "datagram ends inside a record header"),
            RecordError::LengthBeyondDatagram => write!(f, "record length beyond the datagram"),
            RecordError::UnknownFirstByte(b) => write!(f, "first byte {b:#04x} starts no record"),
            RecordError::UnexpectedCid => write!(f, "connection ID presence not as negotiated"),
            RecordError::CiphertextTooShort => write!(f, "ciphertext shorter than 16 bytes"),
            RecordError::UnknownEpoch => write!(f, "no keys for the record's epoch"),
            RecordError::Replay => write!(f, "record replayed or too old"),
            RecordError::Authentication => write!(f, "record did not authenticate"),
            RecordError::IntegrityLimit => write!(
                f,
                "the AEAD's integrity limit was reached: too many records failed \
                 authentication under one key (RFC 9147 §4.5.3)"
            ),
            RecordError::NoContentType => write!(f, "inner plaintext has no content type"),
            RecordError::BadContentType(t) => write!(f, "inner content type {t} not allowed"),
            RecordError::RecordOverflow => write!(f, "record too long"),
        }
    }
}

/// Which part of a message a codec error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Field {
    /// ACK record_numbers.
    AckRecordNumbers,
    /// ClientHello or ServerHello fixed fields.
    Hello,
    /// legacy_cookie of a DTLS 1.3 ClientHello (RFC 9147 §5.3).
    LegacyCookie,
    /// cipher_suites.
    CipherSuites,
    /// legacy_compression_methods.
    CompressionMethods,
    /// The extension list.
    Extensions,
    /// supported_versions.
    SupportedVersions,
    /// key_share.
    KeyShare,
    /// psk_key_exchange_modes.
    PskKeyExchangeModes,
    /// pre_shared_key.
    PreSharedKey,
    /// cookie.
    Cookie,
    /// supported_groups.
    SupportedGroups,
    /// signature_algorithms.
    SignatureAlgorithms,
    /// connection_id (RFC 9146).
    ConnectionId,
    /// Finished.verify_data.
    Finished,
    /// server_certificate_type or client_certificate_type (RFC 7250).
    CertificateType,
    /// CertificateRequest.
    CertificateRequest,
    /// Certificate.
    Certificate,
    /// CertificateVerify.
    CertificateVerify,
    /// NewSessionTicket (RFC 8446 §4.6.1).
    NewSessionTicket,
}

/// Why a DTLS 1.3 message could not be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MessageError {
    /// The input ends inside `Field`.
    Truncated(Field),
    /// Bytes left over after `Field`'s vector or the message.
    TrailingBytes(Field),
    /// A vector's length is outside its allowed range or not a multiple of
    /// its element size.
    BadLength(Field),
    /// A value that the RFC does not allow here (decoded, but illegal).
    IllegalValue(Field),
    /// The same extension twice in one message (RFC 8446 §4.2).
    DuplicateExtension(u16),
    /// pre_shared_key is not the last extension of a ClientHello
    /// (RFC 8446 §4.2.11).
    PreSharedKeyNotLast,
}

impl MessageError {
    /// decode_error for malformed input, illegal_parameter for well-formed
    /// but forbidden values (RFC 8446 §6.2).
    pub fn alert(&self) -> AlertDescription {
        match self {
            MessageError::Truncated(_)
            | MessageError::TrailingBytes(_)
            | MessageError::BadLength(_) => AlertDescription::DecodeError,
            MessageError::IllegalValue(_)
            | MessageError::DuplicateExtension(_)
            | MessageError::PreSharedKeyNotLast => AlertDescription::IllegalParameter,
        }
    }
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageError::Truncated(x) => write!(f, "{x:?} truncated"),
            MessageError::TrailingBytes(x) => write!(f, "trailing bytes after {x:?}"),
            MessageError::BadLength(x) => write!(f, "{x:?} has a length out of range"),
            MessageError::IllegalValue(x) => write!(f, "{x:?} has an illegal value"),
            MessageError::DuplicateExtension(t) => write!(f, "extension {t} appears twice"),
            MessageError::PreSharedKeyNotLast => write!(f, "pre_shared_key is not last"),
        }
    }
}

impl From<RecordError> for Error {
    fn from(e: RecordError) -> Self {
        Error::Record13(e)
    }
}

impl From<MessageError> for Error {
    fn from(e: MessageError) -> Self {
        Error::Message13(e)
    }
}

/// Why a DTLS 1.3 handshake was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HandshakeError13 {
    /// A handshake message that the current step does not expect, or in an
    /// epoch it may not travel in.
    UnexpectedMessage {
        /// The message type received.
        got: u8,
    },
    /// A second HelloRetryRequest (RFC 8446 §4.1.4).
    SecondHelloRetryRequest,
    /// The peer does not offer or select DTLS 1.3 (supported_versions).
    ProtocolVersion,
    /// A required extension is absent (RFC 8446 §9.2).
    MissingExtension(u16),
    /// No cipher suite in common, or the server picked one not offered.
    NoCommonSuite,
    /// No key exchange mode or group in common.
    NoCommonKeyExchange,
    /// The PSK identity is not known.
    UnknownPskIdentity,
    /// The PSK binder did not verify (RFC 8446 §4.2.11).
    BinderMismatch,
    /// The peer's Finished did not verify.
    FinishedMismatch,
    /// A key share is malformed, of a group not offered, or gives an
    /// all-zero secret.
    BadKeyShare,
    /// A value the peer may not choose (e.g. an unoffered PSK identity or
    /// HelloRetryRequest group, a non-empty session ID echo mismatch).
    IllegalParameter,
    /// No certificate type in common (RFC 7250 §4.2), or a certificate of
    /// a key type or signature scheme this stack does not handle.
    UnsupportedCertificate,
    /// The server asked for a client certificate and got none (RFC 8446
    /// §4.4.2.4).
    CertificateRequired,
    /// A KeyUpdate asked for while this side's previous one is not yet
    /// acknowledged (RFC 9147 §8: one at a time).
    KeyUpdatePending,
    /// No epoch left to update to: the epoch may not wrap (RFC 9147 §6.1);
    /// a new association is needed.
    EpochsExhausted,
}

impl HandshakeError13 {
    /// The alert that reports it (RFC 8446 §6.2).
    pub fn alert(&self) -> AlertDescription {
        match self {
            HandshakeError13::UnexpectedMessage { .. } => AlertDescription::UnexpectedMessage,
            HandshakeError13::ProtocolVersion => AlertDescription::ProtocolVersion,
            // missing_extension(109)
            HandshakeError13::MissingExtension(_) => AlertDescription::Other(109),
            HandshakeError13::NoCommonSuite | HandshakeError13::NoCommonKeyExchange => {
                AlertDescription::HandshakeFailure
            }
            HandshakeError13::UnknownPskIdentity => AlertDescription::UnknownPskIdentity,
            HandshakeError13::BinderMismatch | HandshakeError13::FinishedMismatch => {
                AlertDescription::DecryptError
            }
            HandshakeError13::BadKeyShare
            | HandshakeError13::SecondHelloRetryRequest
            | HandshakeError13::IllegalParameter => AlertDescription::IllegalParameter,
            HandshakeError13::UnsupportedCertificate => AlertDescription::UnsupportedCertificate,
            // certificate_required(116)
            HandshakeError13::CertificateRequired => AlertDescription::Other(116),
            HandshakeError13::KeyUpdatePending | HandshakeError13::EpochsExhausted => {
                AlertDescription::InternalError
            }
        }
    }
}

impl fmt::Display for HandshakeError13 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandshakeError13::UnexpectedMessage { got } => {
                write!(f, "handshake message type {got} not expected now")
            }
            HandshakeError13::SecondHelloRetryRequest => write!(f, "second HelloRetryRequest"),
            HandshakeError13::ProtocolVersion => write!(f, "peer does not speak DTLS 1.3"),
            HandshakeError13::MissingExtension(t) => write!(f, "extension {t} missing"),
            HandshakeError13::NoCommonSuite => write!(f, "no cipher suite in common"),
            HandshakeError13::NoCommonKeyExchange => {
                write!(f, "no key exchange mode or group in common")
            }
            HandshakeError13::UnknownPskIdentity => write!(f, "unknown PSK identity"),
            HandshakeError13::BinderMismatch => write!(f, "PSK binder did not verify"),
            HandshakeError13::FinishedMismatch => write!(f, "peer Finished did not verify"),
            HandshakeError13::BadKeyShare => write!(f, "bad key share"),
            HandshakeError13::IllegalParameter => write!(f, "illegal parameter"),
            HandshakeError13::UnsupportedCertificate => {
                write!(f, "no certificate type or key type in common")
            }
            HandshakeError13::CertificateRequired => write!(f, "client sent no certificate"),
            HandshakeError13::KeyUpdatePending => {
                write!(f, "a KeyUpdate of this side is not yet acknowledged")
            }
            HandshakeError13::EpochsExhausted => write!(f, "no epoch left to update to"),
        }
    }
}

impl From<HandshakeError13> for Error {
    fn from(e: HandshakeError13) -> Self {
        Error::Handshake13(e)
    }
}
