//! Certificate messages of DTLS 1.3 (RFC 8446 §4.3.2, §4.4.2, §4.4.3) and
//! RFC 7250 raw public keys: CertificateRequest, Certificate (X.509 or a
//! SubjectPublicKeyInfo), CertificateVerify; the certificate-type
//! extensions; and the content a CertificateVerify signs.

use crate::codec::{Reader, Writer};

use super::error::{Field, MessageError};
use super::messages::{finish, non_empty_vector, trunc};

/// ecdsa_secp256r1_sha256 (RFC 8446 §4.2.3): the one signature scheme
/// this stack signs and verifies with.
pub const ECDSA_SECP256R1_SHA256: u16 = 0x0403;

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

/// CertificateRequest (RFC 8446 §4.3.2) with an empty context (it is only
/// non-empty after the handshake) and the signature_algorithms extension,
/// the one it must carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertificateRequest {
    /// signature_algorithms.
    pub signature_algorithms: Vec<u16>,
}

impl CertificateRequest {
    /// Append the body to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.put_vec8(&[]);
        let mut algs = Vec::new();
        let list: Vec<u8> = self
            .signature_algorithms
            .iter()
            .flat_map(|a| a.to_be_bytes())
            .collect();
        algs.put_vec16(&list);
        let mut exts = Vec::new();
        exts.put_u16(super::messages::ext::SIGNATURE_ALGORITHMS);
        exts.put_vec16(&algs);
        out.put_vec16(&exts);
    }

    /// Decode a body; other extensions are skipped.
    pub fn decode(body: &[u8]) -> Result<Self, MessageError> {
        let f = Field::CertificateRequest;
        let mut r = Reader::new(body);
        let context = r.vec8().map_err(trunc(f))?;
        if !context.is_empty() {
            return Err(MessageError::IllegalValue(f));
        }
        let block = r.vec16().map_err(trunc(f))?;
        finish(&r, f)?;
        let mut x = Reader::new(block);
        let mut signature_algorithms = None;
        while !x.is_empty() {
            let typ = x.u16().map_err(trunc(f))?;
            let data = x.vec16().map_err(trunc(f))?;
            if typ == super::messages::ext::SIGNATURE_ALGORITHMS {
                if signature_algorithms.is_some() {
                    return Err(MessageError::DuplicateExtension(typ));
                }
                let mut a = Reader::new(data);
                let list = a.vec16().map_err(trunc(Field::SignatureAlgorithms))?;
                finish(&a, Field::SignatureAlgorithms)?;
                if list.is_empty() || list.len() % 2 != 0 {
                    return Err(MessageError::BadLength(Field::SignatureAlgorithms));
                }
                signature_algorithms = Some(
                    list.chunks_exact(2)
                        .map(|c| u16::from_be_bytes([c[0], c[1]]))
                        .collect(),
                );
            }
        }
        Ok(CertificateRequest {
            // RFC 8446 §4.3.2: signature_algorithms MUST be specified
            signature_algorithms: signature_algorithms.ok_or(MessageError::IllegalValue(f))?,
        })
    }
}

/// Certificate (RFC 8446 §4.4.2): the chain, leaf first, each entry's
/// cert_data an X.509 certificate or (RFC 7250) a SubjectPublicKeyInfo.
/// Entry extensions are neither sent nor read. An empty list is a client
/// declining to authenticate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// certificate_request_context (empty during the handshake).
    pub context: Vec<u8>,
    /// cert_data of each CertificateEntry.
    pub entries: Vec<Vec<u8>>,
}

impl Certificate {
    /// Append the body to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.put_vec8(&self.context);
        let mut list = Vec::new();
        for e in &self.entries {
            list.put_vec24(e);
            list.put_vec16(&[]);
        }
        out.put_vec24(&list);
    }

    /// Decode a body.
    pub fn decode(body: &[u8]) -> Result<Self, MessageError> {
        let f = Field::Certificate;
        let mut r = Reader::new(body);
        let context = r.vec8().map_err(trunc(f))?.to_vec();
        let list = r.vec24().map_err(trunc(f))?;
        finish(&r, f)?;
        let mut l = Reader::new(list);
        let mut entries = Vec::new();
        while !l.is_empty() {
            let data = l.vec24().map_err(trunc(f))?;
            if data.is_empty() {
                return Err(MessageError::BadLength(f));
            }
            l.vec16().map_err(trunc(f))?;
            entries.push(data.to_vec());
        }
        Ok(Certificate { context, entries })
    }
}

/// CertificateVerify (RFC 8446 §4.4.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertificateVerify {
    /// SignatureScheme.
    pub scheme: u16,
    /// The signature (DER ECDSA-Sig-Value for ECDSA).
    pub signature: Vec<u8>,
}

impl CertificateVerify {
    /// Append the body to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.put_u16(self.scheme);
        out.put_vec16(&self.signature);
    }

    /// Decode a body.
    pub fn decode(body: &[u8]) -> Result<Self, MessageError> {
        let f = Field::CertificateVerify;
        let mut r = Reader::new(body);
        let scheme = r.u16().map_err(trunc(f))?;
        let signature = r.vec16().map_err(trunc(f))?.to_vec();
        finish(&r, f)?;
        if signature.is_empty() {
            return Err(MessageError::BadLength(f));
        }
        Ok(CertificateVerify { scheme, signature })
    }
}

/// Which side signs: the context string of RFC 8446 §4.4.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signer {
    /// "TLS 1.3, server CertificateVerify"
    Server,
    /// "TLS 1.3, client CertificateVerify"
    Client,
}

/// The content a CertificateVerify signs (RFC 8446 §4.4.3): 64 spaces,
/// the context string, a zero byte, then the transcript hash through the
/// Certificate. DTLS 1.3 keeps the TLS 1.3 strings (RFC 9147 §5 changes
/// only the HKDF label prefix).
pub fn signed_content(signer: Signer, transcript_hash: &[u8]) -> Vec<u8> {
    let context: &[u8] = match signer {
        Signer::Server => b"TLS 1.3, server CertificateVerify",
        Signer::Client => b"TLS 1.3, client CertificateVerify",
    };
    let mut out = vec![0x20; 64];
    out.extend_from_slice(context);
    out.push(0);
    out.extend_from_slice(transcript_hash);
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_content_layout() {
        let c = signed_content(Signer::Server, &[0xAB; 32]);
        assert_eq!(c.len(), 64 + 33 + 1 + 32);
        assert!(c[..64].iter().all(|&b| b == 0x20));
        assert_eq!(&c[64..97], b"TLS 1.3, server CertificateVerify");
        assert_eq!(c[97], 0);
        assert_ne!(signed_content(Signer::Client, &[0xAB; 32]), c);
    }

    #[test]
    fn round_trips() {
        let cert = Certificate {
            context: vec![],
            entries: vec![vec![1, 2, 3], vec![4]],
        };
        let mut b = Vec::new();
        cert.encode(&mut b);
        // context 1 + list length 3 + (3 + 3 + 2) + (3 + 1 + 2)
        assert_eq!(b.len(), 1 + 3 + 8 + 6);
        assert_eq!(Certificate::decode(&b).unwrap(), cert);
        let cr = CertificateRequest {
            signature_algorithms: vec![ECDSA_SECP256R1_SHA256],
        };
        let mut b = Vec::new();
        cr.encode(&mut b);
        assert_eq!(b, [0, 0, 8, 0, 13, 0, 4, 0, 2, 4, 3]);
        assert_eq!(CertificateRequest::decode(&b).unwrap(), cr);
        let cv = CertificateVerify {
            scheme: ECDSA_SECP256R1_SHA256,
            signature: vec![0x30, 1, 2],
        };
        let mut b = Vec::new();
        cv.encode(&mut b);
        assert_eq!(CertificateVerify::decode(&b).unwrap(), cv);
        assert_eq!(
            CertificateVerify::decode(&b[..b.len() - 1]).unwrap_err(),
            MessageError::Truncated(Field::CertificateVerify)
        );
    }

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
