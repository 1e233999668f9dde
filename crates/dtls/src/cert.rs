//! Certificates and RFC 7250 raw public keys, as both versions use them:
//! the certificate types and their extensions, the P-256
//! SubjectPublicKeyInfo a raw public key is, a side's own certified key
//! and how it accepts its peer's.

use crate::error::CertificateError;
use core::fmt;

use crate::codec::{non_empty_vector, Reader, Writer};
use crate::crypto::ecc;
use crate::crypto::suite::Secret;
use crate::error::v13::{Field, MessageError};
use crate::error::Error;

/// Extension types of RFC 7250 §3 (allowed in ClientHello and
/// EncryptedExtensions by RFC 8446 §4.2).
pub mod ext {
    /// client_certificate_type(19)
    pub const CLIENT_CERTIFICATE_TYPE: u16 = 19;
    /// server_certificate_type(20)
    pub const SERVER_CERTIFICATE_TYPE: u16 = 20;
}

/// CertificateType (RFC 7250 §3; IANA TLS Certificate Types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CertificateType {
    /// X509(0): the default when no certificate-type extension is sent.
    X509,
    /// RawPublicKey(2): the certificate is a DER SubjectPublicKeyInfo.
    RawPublicKey,
}

impl CertificateType {
    /// Wire value.
    pub fn to_u8(self) -> u8 {
        match self {
            CertificateType::X509 => 0,
            CertificateType::RawPublicKey => 2,
        }
    }

    /// From the wire value.
    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(CertificateType::X509),
            2 => Some(CertificateType::RawPublicKey),
            _ => None,
        }
    }
}

/// The client's list of certificate types (ClientHello, RFC 7250 §3):
/// raw values, unknown ones kept so the server can skip them.
pub fn encode_type_list(types: &[CertificateType]) -> Vec<u8> {
    let mut out = Vec::new();
    out.put_vec8(&types.iter().map(|t| t.to_u8()).collect::<Vec<_>>());
    out
}

/// Decode a ClientHello certificate-type list (1..2^8-1 bytes).
pub fn decode_type_list(data: &[u8]) -> Result<Vec<u8>, MessageError> {
    non_empty_vector(data, Field::CertificateType, Reader::vec8)
}

/// Decode the server's one selected type (EncryptedExtensions).
pub fn decode_selected_type(data: &[u8]) -> Result<CertificateType, MessageError> {
    match data {
        [v] => {
            CertificateType::from_u8(*v).ok_or(MessageError::IllegalValue(Field::CertificateType))
        }
        [] => Err(MessageError::Truncated(Field::CertificateType)),
        _ => Err(MessageError::TrailingBytes(Field::CertificateType)),
    }
}

/// DER prefix of a P-256 SubjectPublicKeyInfo with an uncompressed point
/// (RFC 5480 §2): SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 },
/// BIT STRING (0 unused bits) }. Fixed for this key type: 26 bytes, then
/// the 65-byte point.
const P256_SPKI_PREFIX: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A,
    0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

/// The SubjectPublicKeyInfo of a P-256 public point: the raw public key
/// of RFC 7250 §3 (91 bytes).
pub fn p256_spki(point: &[u8]) -> Vec<u8> {
    let mut out = P256_SPKI_PREFIX.to_vec();
    out.extend_from_slice(point);
    out
}

/// The uncompressed P-256 point of a SubjectPublicKeyInfo, if it is one.
pub fn p256_point_of_spki(spki: &[u8]) -> Option<&[u8]> {
    let point = spki.strip_prefix(&P256_SPKI_PREFIX[..])?;
    (point.len() == 65 && point[0] == 4).then_some(point)
}

/// A certificate chain (DER, leaf first) and the P-256 private key of the
/// leaf.
#[derive(Clone)]
pub struct CertifiedKey {
    /// DER certificates, leaf first.
    pub chain: Vec<Vec<u8>>,
    /// The leaf's private key (32-byte P-256 scalar).
    pub private_key: Secret,
}

impl fmt::Debug for CertifiedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CertifiedKey")
            .field("chain_len", &self.chain.len())
            .field("private_key", &self.private_key)
            .finish()
    }
}

/// How a peer's certificate is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CertificateVerifier {
    /// Accept exactly this certificate (DER) as the peer's leaf (pinning; the
    /// right model for a self-signed device certificate).
    Pinned(Vec<u8>),
    /// Accept any certificate (tests and measurements only).
    AcceptAny,
}

impl CertificateVerifier {
    /// The pinning rule, for DTLS 1.2 and 1.3 alike: the peer's leaf (X.509
    /// DER, or a raw public key's SubjectPublicKeyInfo) must be the pinned
    /// bytes.
    pub(crate) fn accept(&self, leaf: &[u8]) -> Result<(), Error> {
        match self {
            CertificateVerifier::Pinned(pinned) if !crate::crypto::cookie::ct_eq(pinned, leaf) => {
                Err(Error::BadCertificate(CertificateError::NotPinned))
            }
            _ => Ok(()),
        }
    }

    /// The certificate type this verifier takes (RFC 7250): a pinned
    /// SubjectPublicKeyInfo is a raw public key, anything else X.509.
    pub fn certificate_type(&self) -> CertificateType {
        match self {
            CertificateVerifier::Pinned(p) if p256_point_of_spki(p).is_some() => {
                CertificateType::RawPublicKey
            }
            _ => CertificateType::X509,
        }
    }
}

impl CertifiedKey {
    /// A raw public key (RFC 7250) for DTLS 1.2: the "chain" is the one
    /// SubjectPublicKeyInfo of the private key's public point.
    pub fn raw_public_key(private_key: Secret) -> Result<Self, Error> {
        let point = crate::crypto::ecc::public_of(&private_key)?;
        Ok(CertifiedKey {
            chain: vec![p256_spki(&point)],
            private_key,
        })
    }

    /// What `chain` holds. A P-256 SubjectPublicKeyInfo alone is a raw
    /// public key: it is 91 bytes, and no X.509 certificate is that short
    /// (its tbsCertificate carries a SubjectPublicKeyInfo besides issuer,
    /// validity and subject).
    pub fn certificate_type(&self) -> CertificateType {
        match self.chain.as_slice() {
            [one] if p256_point_of_spki(one).is_some() => CertificateType::RawPublicKey,
            _ => CertificateType::X509,
        }
    }
}

/// The P-256 public point a leaf of type `t` carries.
pub(crate) fn leaf_public_key(t: CertificateType, leaf: &[u8]) -> Result<Vec<u8>, Error> {
    match t {
        CertificateType::X509 => ecc::certificate_public_key(leaf),
        CertificateType::RawPublicKey => p256_point_of_spki(leaf)
            .map(<[u8]>::to_vec)
            .ok_or(Error::BadCertificate(CertificateError::NotP256PublicKey)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spki_round_trip() {
        let mut point = vec![4u8];
        point.extend_from_slice(&[7; 64]);
        let spki = p256_spki(&point);
        assert_eq!(spki.len(), 91);
        assert_eq!(p256_point_of_spki(&spki), Some(&point[..]));
        assert_eq!(p256_point_of_spki(&spki[1..]), None);
    }
}
