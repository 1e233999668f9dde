//! Certificate authentication of DTLS 1.3 (RFC 8446 §4.4.2–4.4.3 with
//! RFC 7250 raw public keys), on the crate's P-256 ECDSA
//! ([`crate::crypto::ecc`]) and its pinning verifier, as 1.2 uses them:
//! this side's Certificate and CertificateVerify, the peer's checked.

use crate::error::CertificateError;
use sha2::{Digest, Sha256};

use super::config::Credential13;
use crate::accounting::CryptoOps;
use crate::cert::CertificateVerifier;
use crate::cert::{p256_point_of_spki, CertificateType};
use crate::crypto::ecc;
use crate::error::v13::HandshakeError13 as E;
use crate::error::Error;
use crate::v13::certificate::{
    signed_content, Certificate, CertificateVerify, Signer, ECDSA_SECP256R1_SHA256,
};

/// SHA-256 of a CertificateVerify's signed content, counted.
fn content_hash(signer: Signer, transcript_hash: &[u8], ops: &mut CryptoOps) -> [u8; 32] {
    let content = signed_content(signer, transcript_hash);
    // one compression per 64-byte block, padding and length included
    ops.sha256_compressions += (content.len() as u64 + 9).div_ceil(64);
    Sha256::digest(&content).into()
}

/// This side's Certificate body.
pub(crate) fn certificate_body(own: Option<&Credential13>) -> Vec<u8> {
    let mut body = Vec::new();
    Certificate {
        context: Vec::new(),
        entries: own.map_or_else(Vec::new, |c| c.entries.clone()),
    }
    .encode(&mut body);
    body
}

/// This side's CertificateVerify body over the transcript through its
/// Certificate.
pub(crate) fn certificate_verify_body(
    own: &Credential13,
    signer: Signer,
    transcript_hash: &[u8],
    ops: &mut CryptoOps,
) -> Result<Vec<u8>, Error> {
    let hash = content_hash(signer, transcript_hash, ops);
    let signature = ecc::sign(&own.private_key, &hash, ops)?;
    let mut body = Vec::new();
    CertificateVerify {
        scheme: ECDSA_SECP256R1_SHA256,
        signature,
    }
    .encode(&mut body);
    Ok(body)
}

/// The peer's public point from its Certificate body, the leaf accepted by
/// `verifier` (pinning compares the leaf's cert_data: the X.509 DER, or the
/// SubjectPublicKeyInfo of a raw public key). `None`: the list was empty.
pub(crate) fn peer_public_key(
    body: &[u8],
    certificate_type: CertificateType,
    verifier: &CertificateVerifier,
) -> Result<Option<Vec<u8>>, Error> {
    let cert = Certificate::decode(body)?;
    if !cert.context.is_empty() {
        return Err(E::IllegalParameter.into());
    }
    let Some(leaf) = cert.entries.first() else {
        return Ok(None);
    };
    verifier.accept(leaf)?;
    let point = match certificate_type {
        CertificateType::X509 => ecc::certificate_public_key(leaf)?,
        CertificateType::RawPublicKey => {
            if cert.entries.len() != 1 {
                // a raw public key stands alone (RFC 7250 §3)
                return Err(Error::BadCertificate(
                    CertificateError::RawPublicKeyWithChain,
                ));
            }
            p256_point_of_spki(leaf)
                .ok_or(E::UnsupportedCertificate)?
                .to_vec()
        }
    };
    Ok(Some(point))
}

/// Check the peer's CertificateVerify against its public point: the
/// scheme must be the one this side offered (illegal_parameter), the
/// signature must verify (decrypt_error, RFC 8446 §4.4.3).
pub(crate) fn verify_certificate_verify(
    public_point: &[u8],
    signer: Signer,
    transcript_hash: &[u8],
    body: &[u8],
    ops: &mut CryptoOps,
) -> Result<(), Error> {
    let cv = CertificateVerify::decode(body)?;
    if cv.scheme != ECDSA_SECP256R1_SHA256 {
        return Err(E::IllegalParameter.into());
    }
    let hash = content_hash(signer, transcript_hash, ops);
    match ecc::verify(public_point, &hash, &cv.signature, ops) {
        // a signature that is not even DER is a failed verification too
        Err(Error::Decode(_)) => Err(Error::BadSignature),
        other => other,
    }
}
