//! TLS alerts (RFC 5246 §7.2, RFC 8446 §6), as both versions send and
//! receive them.

/// Alert level (RFC 5246 §7.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AlertLevel {
    /// warning(1)
    Warning,
    /// fatal(2)
    Fatal,
}

impl AlertLevel {
    /// Wire value.
    pub fn to_u8(self) -> u8 {
        match self {
            AlertLevel::Warning => 1,
            AlertLevel::Fatal => 2,
        }
    }
}

/// Alert descriptions used by this stack (RFC 5246 §7.2, RFC 6347).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AlertDescription {
    /// close_notify(0)
    CloseNotify,
    /// unexpected_message(10)
    UnexpectedMessage,
    /// bad_record_mac(20)
    BadRecordMac,
    /// record_overflow(22)
    RecordOverflow,
    /// handshake_failure(40)
    HandshakeFailure,
    /// bad_certificate(42)
    BadCertificate,
    /// unsupported_certificate(43)
    UnsupportedCertificate,
    /// certificate_unknown(46)
    CertificateUnknown,
    /// illegal_parameter(47)
    IllegalParameter,
    /// decode_error(50)
    DecodeError,
    /// decrypt_error(51)
    DecryptError,
    /// protocol_version(70)
    ProtocolVersion,
    /// insufficient_security(71)
    InsufficientSecurity,
    /// internal_error(80)
    InternalError,
    /// no_renegotiation(100)
    NoRenegotiation,
    /// unsupported_extension(110)
    UnsupportedExtension,
    /// unknown_psk_identity(115)
    UnknownPskIdentity,
    /// Any other value.
    Other(u8),
}

impl AlertDescription {
    /// Wire value.
    pub fn to_u8(self) -> u8 {
        match self {
            Self::CloseNotify => 0,
            Self::UnexpectedMessage => 10,
            Self::BadRecordMac => 20,
            Self::RecordOverflow => 22,
            Self::HandshakeFailure => 40,
            Self::BadCertificate => 42,
            Self::UnsupportedCertificate => 43,
            Self::CertificateUnknown => 46,
            Self::IllegalParameter => 47,
            Self::DecodeError => 50,
            Self::DecryptError => 51,
            Self::ProtocolVersion => 70,
            Self::InsufficientSecurity => 71,
            Self::InternalError => 80,
            Self::NoRenegotiation => 100,
            Self::UnsupportedExtension => 110,
            Self::UnknownPskIdentity => 115,
            Self::Other(v) => v,
        }
    }

    /// From the wire value.
    pub fn from_u8(v: u8) -> Self {
        match v {
            0 => Self::CloseNotify,
            10 => Self::UnexpectedMessage,
            20 => Self::BadRecordMac,
            22 => Self::RecordOverflow,
            40 => Self::HandshakeFailure,
            42 => Self::BadCertificate,
            43 => Self::UnsupportedCertificate,
            46 => Self::CertificateUnknown,
            47 => Self::IllegalParameter,
            50 => Self::DecodeError,
            51 => Self::DecryptError,
            70 => Self::ProtocolVersion,
            71 => Self::InsufficientSecurity,
            80 => Self::InternalError,
            100 => Self::NoRenegotiation,
            110 => Self::UnsupportedExtension,
            115 => Self::UnknownPskIdentity,
            v => Self::Other(v),
        }
    }
}

/// An alert as received or sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Alert {
    /// Level.
    pub level: AlertLevel,
    /// Description.
    pub description: AlertDescription,
}
