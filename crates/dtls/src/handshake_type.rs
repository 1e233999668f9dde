//! Handshake message types (RFC 5246 §7.4, RFC 6347 §4.2) and their
//! names, for the accounting and the errors of both versions.

/// Handshake message types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum HandshakeType {
    ClientHello,
    ServerHello,
    HelloVerifyRequest,
    Certificate,
    ServerKeyExchange,
    CertificateRequest,
    ServerHelloDone,
    CertificateVerify,
    ClientKeyExchange,
    Finished,
}

impl HandshakeType {
    /// Wire value.
    pub fn to_u8(self) -> u8 {
        match self {
            Self::ClientHello => 1,
            Self::ServerHello => 2,
            Self::HelloVerifyRequest => 3,
            Self::Certificate => 11,
            Self::ServerKeyExchange => 12,
            Self::CertificateRequest => 13,
            Self::ServerHelloDone => 14,
            Self::CertificateVerify => 15,
            Self::ClientKeyExchange => 16,
            Self::Finished => 20,
        }
    }
    /// From the wire value.
    pub fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            1 => Self::ClientHello,
            2 => Self::ServerHello,
            3 => Self::HelloVerifyRequest,
            11 => Self::Certificate,
            12 => Self::ServerKeyExchange,
            13 => Self::CertificateRequest,
            14 => Self::ServerHelloDone,
            15 => Self::CertificateVerify,
            16 => Self::ClientKeyExchange,
            20 => Self::Finished,
            _ => return None,
        })
    }
    /// Name of a wire value.
    pub fn name_of(v: u8) -> &'static str {
        match Self::from_u8(v) {
            Some(Self::ClientHello) => "ClientHello",
            Some(Self::ServerHello) => "ServerHello",
            Some(Self::HelloVerifyRequest) => "HelloVerifyRequest",
            Some(Self::Certificate) => "Certificate",
            Some(Self::ServerKeyExchange) => "ServerKeyExchange",
            Some(Self::CertificateRequest) => "CertificateRequest",
            Some(Self::ServerHelloDone) => "ServerHelloDone",
            Some(Self::CertificateVerify) => "CertificateVerify",
            Some(Self::ClientKeyExchange) => "ClientKeyExchange",
            Some(Self::Finished) => "Finished",
            None => "Unknown",
        }
    }
}
