//! Certificate messages of DTLS 1.3 (RFC 8446 §4.3.2, §4.4.2, §4.4.3):
//! CertificateRequest, Certificate (X.509 or an RFC 7250
//! SubjectPublicKeyInfo), CertificateVerify, and the content a
//! CertificateVerify signs. The certificate types themselves are shared
//! with DTLS 1.2 ([`crate::cert`]).

use crate::codec::{finish, trunc, Reader, Writer};
use crate::error::v13::{Field, MessageError};

/// ecdsa_secp256r1_sha256 (RFC 8446 §4.2.3): the one signature scheme
/// this stack signs and verifies with.
pub const ECDSA_SECP256R1_SHA256: u16 = 0x0403;

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
        exts.put_u16(crate::v13::messages::ext::SIGNATURE_ALGORITHMS);
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
            if typ == crate::v13::messages::ext::SIGNATURE_ALGORITHMS {
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
}
