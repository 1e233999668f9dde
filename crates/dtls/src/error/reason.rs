//! Typed reasons of the crate's [`Error`](super::Error) variants that
//! both versions raise (decoding, configuration, certificates, …), grouped
//! by cause; each prints as the reason it replaces.

use core::fmt;

/// Why a peer's certificate (or raw public key) was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CertificateError {
    /// DER
    Der,
    /// SubjectPublicKeyInfo
    SubjectPublicKeyInfo,
    /// algorithm
    Algorithm,
    /// no certificate
    NoCertificate,
    /// not a P-256 key
    NotP256Key,
    /// not a P-256 public key
    NotP256PublicKey,
    /// not a SEQUENCE
    NotSequence,
    /// not the pinned certificate
    NotPinned,
    /// public key bits
    PublicKeyBits,
    /// public key
    PublicKey,
    /// raw public key with a chain
    RawPublicKeyWithChain,
    /// server sent no certificate
    ServerSentNone,
    /// tbsCertificate
    TbsCertificate,
}

impl fmt::Display for CertificateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CertificateError::Der => "DER",
            CertificateError::SubjectPublicKeyInfo => "SubjectPublicKeyInfo",
            CertificateError::Algorithm => "algorithm",
            CertificateError::NoCertificate => "no certificate",
            CertificateError::NotP256Key => "not a P-256 key",
            CertificateError::NotP256PublicKey => "not a P-256 public key",
            CertificateError::NotSequence => "not a SEQUENCE",
            CertificateError::NotPinned => "not the pinned certificate",
            CertificateError::PublicKeyBits => "public key bits",
            CertificateError::PublicKey => "public key",
            CertificateError::RawPublicKeyWithChain => "raw public key with a chain",
            CertificateError::ServerSentNone => "server sent no certificate",
            CertificateError::TbsCertificate => "tbsCertificate",
        })
    }
}

/// Why a configuration is not usable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConfigError {
    /// (EC)DHE without a group
    EcdheWithoutGroup,
    /// PSK suite offered without a PSK
    PskSuiteWithoutPsk,
    /// bad private key
    BadPrivateKey,
    /// certificate is not a P-256 X.509 certificate or raw public key
    CertificateNotP256,
    /// cid_len must be 0..=20
    CidLenOver20,
    /// cid_len must be 0..=255
    CidLenOver255,
    /// common name too long
    CommonNameTooLong,
    /// cookie_len must be 1..=32
    CookieLen,
    /// cookie_mac_len must be 1..=32
    CookieMacLen,
    /// empty certificate chain
    EmptyChain,
    /// max_fragment_len must be positive
    ZeroMaxFragmentLen,
    /// max_handshake_message_len above 2^24 - 1
    MaxHandshakeMessageLen,
    /// mtu must be 64..=65507
    Mtu,
    /// no DTLS 1.3 cipher suite
    NoSuite13,
    /// no PSK key exchange mode
    NoPskMode,
    /// no certificate type
    NoCertificateType,
    /// no cipher suite
    NoSuite,
    /// private key DER
    PrivateKeyDer,
    /// private key does not match the certificate
    KeyMismatch,
    /// psk_dhe_ke without a group
    PskDheWithoutGroup,
    /// server has neither PSK store nor certificate
    NoCredentials,
    /// the session table runs in front of a DTLS 1.2 endpoint only
    SessionTableWithDtls13,
    /// A session-table bound that could never admit anyone.
    SessionLimits(session_table::LimitError),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConfigError::EcdheWithoutGroup => "(EC)DHE without a group",
            ConfigError::PskSuiteWithoutPsk => "PSK suite offered without a PSK",
            ConfigError::BadPrivateKey => "bad private key",
            ConfigError::CertificateNotP256 => {
                "certificate is not a P-256 X.509 certificate or raw public key"
            }
            ConfigError::CidLenOver20 => "cid_len must be 0..=20",
            ConfigError::CidLenOver255 => "cid_len must be 0..=255",
            ConfigError::CommonNameTooLong => "common name too long",
            ConfigError::CookieLen => "cookie_len must be 1..=32",
            ConfigError::CookieMacLen => "cookie_mac_len must be 1..=32",
            ConfigError::EmptyChain => "empty certificate chain",
            ConfigError::ZeroMaxFragmentLen => "max_fragment_len must be positive",
            ConfigError::MaxHandshakeMessageLen => "max_handshake_message_len above 2^24 - 1",
            ConfigError::Mtu => "mtu must be 64..=65507",
            ConfigError::NoSuite13 => "no DTLS 1.3 cipher suite",
            ConfigError::NoPskMode => "no PSK key exchange mode",
            ConfigError::NoCertificateType => "no certificate type",
            ConfigError::NoSuite => "no cipher suite",
            ConfigError::PrivateKeyDer => "private key DER",
            ConfigError::KeyMismatch => "private key does not match the certificate",
            ConfigError::PskDheWithoutGroup => "psk_dhe_ke without a group",
            ConfigError::NoCredentials => "server has neither PSK store nor certificate",
            ConfigError::SessionTableWithDtls13 => {
                "the session table runs in front of a DTLS 1.2 endpoint only"
            }
            ConfigError::SessionLimits(e) => return e.fmt(f),
        })
    }
}

/// What of a message or record could not be parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Malformed {
    /// ChangeCipherSpec
    ChangeCipherSpec,
    /// ServerHelloDone
    ServerHelloDone,
    /// alert
    Alert,
    /// cipher_suites
    CipherSuites,
    /// client_certificate_type
    ClientCertificateType,
    /// compression_methods
    CompressionMethods,
    /// connection ID
    ConnectionId,
    /// content type
    ContentType,
    /// duplicate extension
    DuplicateExtension,
    /// empty certificate
    EmptyCertificate,
    /// empty raw public key
    EmptyRawPublicKey,
    /// fragment beyond message
    FragmentBeyondMessage,
    /// record overflow
    RecordOverflow,
    /// record version
    RecordVersion,
    /// session_id too long
    SessionIdTooLong,
    /// signature
    Signature,
    /// signature_algorithms
    SignatureAlgorithms,
    /// trailing bytes
    TrailingBytes,
    /// truncated
    Truncated,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Malformed::ChangeCipherSpec => "ChangeCipherSpec",
            Malformed::ServerHelloDone => "ServerHelloDone",
            Malformed::Alert => "alert",
            Malformed::CipherSuites => "cipher_suites",
            Malformed::ClientCertificateType => "client_certificate_type",
            Malformed::CompressionMethods => "compression_methods",
            Malformed::ConnectionId => "connection ID",
            Malformed::ContentType => "content type",
            Malformed::DuplicateExtension => "duplicate extension",
            Malformed::EmptyCertificate => "empty certificate",
            Malformed::EmptyRawPublicKey => "empty raw public key",
            Malformed::FragmentBeyondMessage => "fragment beyond message",
            Malformed::RecordOverflow => "record overflow",
            Malformed::RecordVersion => "record version",
            Malformed::SessionIdTooLong => "session_id too long",
            Malformed::Signature => "signature",
            Malformed::SignatureAlgorithms => "signature_algorithms",
            Malformed::TrailingBytes => "trailing bytes",
            Malformed::Truncated => "truncated",
        })
    }
}

/// What the two sides could not agree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Disagreement {
    /// extended master secret required
    ExtendedMasterSecretRequired,
    /// handshake message too long
    MessageTooLong,
    /// no PSK
    NoPsk,
    /// no common cipher suite
    NoCommonSuite,
    /// renegotiation_info
    RenegotiationInfo,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Disagreement::ExtendedMasterSecretRequired => "extended master secret required",
            Disagreement::MessageTooLong => "handshake message too long",
            Disagreement::NoPsk => "no PSK",
            Disagreement::NoCommonSuite => "no common cipher suite",
            Disagreement::RenegotiationInfo => "renegotiation_info",
        })
    }
}

/// Which field had a value that is not allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Illegal {
    /// ECDH point must be uncompressed
    CompressedPoint,
    /// ECDH point
    EcdhPoint,
    /// certificate type not offered
    CertificateTypeNotOffered,
    /// cipher suite not offered
    SuiteNotOffered,
    /// compression
    Compression,
    /// curve type
    CurveType,
    /// group
    Group,
    /// inconsistent fragments
    InconsistentFragments,
    /// no null compression
    NoNullCompression,
    /// resumed session's parameters changed
    ResumedParametersChanged,
    /// signature scheme
    SignatureScheme,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Illegal::CompressedPoint => "ECDH point must be uncompressed",
            Illegal::EcdhPoint => "ECDH point",
            Illegal::CertificateTypeNotOffered => "certificate type not offered",
            Illegal::SuiteNotOffered => "cipher suite not offered",
            Illegal::Compression => "compression",
            Illegal::CurveType => "curve type",
            Illegal::Group => "group",
            Illegal::InconsistentFragments => "inconsistent fragments",
            Illegal::NoNullCompression => "no null compression",
            Illegal::ResumedParametersChanged => "resumed session's parameters changed",
            Illegal::SignatureScheme => "signature scheme",
        })
    }
}

/// What was missing inside (a local failure that should not happen).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InternalError {
    /// CBC encryption
    CbcEncryption,
    /// CBC keys installed for receiving
    CbcKeysForReceiving,
    /// ECDSA signing failed
    EcdsaSigning,
    /// no ECDHE key
    NoEcdheKey,
    /// no PSK store
    NoPskStore,
    /// no RNG seed
    NoRngSeed,
    /// no certificate
    NoCertificate,
    /// no client key
    NoClientKey,
    /// no handshake
    NoHandshake,
    /// no hello
    NoHello,
    /// no master secret
    NoMasterSecret,
    /// no read keys
    NoReadKeys,
    /// no server ECDHE key
    NoServerEcdheKey,
    /// no server key
    NoServerKey,
    /// no suite
    NoSuite,
    /// no write keys
    NoWriteKeys,
    /// sequence number space exhausted
    SequenceExhausted,
}

impl fmt::Display for InternalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InternalError::CbcEncryption => "CBC encryption",
            InternalError::CbcKeysForReceiving => "CBC keys installed for receiving",
            InternalError::EcdsaSigning => "ECDSA signing failed",
            InternalError::NoEcdheKey => "no ECDHE key",
            InternalError::NoPskStore => "no PSK store",
            InternalError::NoRngSeed => "no RNG seed",
            InternalError::NoCertificate => "no certificate",
            InternalError::NoClientKey => "no client key",
            InternalError::NoHandshake => "no handshake",
            InternalError::NoHello => "no hello",
            InternalError::NoMasterSecret => "no master secret",
            InternalError::NoReadKeys => "no read keys",
            InternalError::NoServerEcdheKey => "no server ECDHE key",
            InternalError::NoServerKey => "no server key",
            InternalError::NoSuite => "no suite",
            InternalError::NoWriteKeys => "no write keys",
            InternalError::SequenceExhausted => "sequence number space exhausted",
        })
    }
}

/// What arrived that the state machine did not expect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Unexpected {
    /// after the handshake
    AfterHandshake,
    /// handshake message in wrong epoch
    WrongEpoch,
    /// tls12_cid record without inner type
    CidRecordWithoutType,
    /// too many HelloVerifyRequests
    TooManyHelloVerifyRequests,
    /// unknown handshake type
    UnknownHandshakeType,
    /// A handshake message of this type (raw) where another was due.
    Handshake(u8),
}

impl fmt::Display for Unexpected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unexpected::AfterHandshake => "after the handshake",
            Unexpected::WrongEpoch => "handshake message in wrong epoch",
            Unexpected::CidRecordWithoutType => "tls12_cid record without inner type",
            Unexpected::TooManyHelloVerifyRequests => "too many HelloVerifyRequests",
            Unexpected::UnknownHandshakeType => "unknown handshake type",
            Unexpected::Handshake(t) => crate::handshake_type::HandshakeType::name_of(*t),
        })
    }
}
