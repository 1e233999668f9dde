//! P-256 ECDH and ECDSA (RustCrypto `p256`), with operation counting, and a
//! minimal DER walker that extracts the P-256 public key from an X.509
//! certificate's SubjectPublicKeyInfo and the scalar from a PKCS#8 or SEC1
//! private key.

use crate::error::{CertificateError, ConfigError, Illegal, InternalError, Malformed};
use p256::ecdh::EphemeralSecret;
use p256::ecdsa::signature::hazmat::{PrehashSigner, PrehashVerifier};
use p256::ecdsa::{DerSignature, SigningKey, VerifyingKey};
use p256::elliptic_curve::Generate;
use p256::PublicKey;
use rand_core::CryptoRng;

use crate::accounting::CryptoOps;
use crate::crypto::suite::Secret;
use crate::error::Error;

/// Fresh ephemeral key and its uncompressed public point (65 bytes).
pub fn ephemeral<R: CryptoRng + ?Sized>(
    rng: &mut R,
    ops: &mut CryptoOps,
) -> (EphemeralSecret, Vec<u8>) {
    let s = EphemeralSecret::generate_from_rng(rng);
    ops.ecdh_ops += 1;
    let p = s.public_key().to_sec1_bytes().to_vec();
    (s, p)
}

/// ECDH shared secret (x coordinate) with the peer's SEC1 point.
pub fn ecdh(secret: &EphemeralSecret, peer: &[u8], ops: &mut CryptoOps) -> Result<Secret, Error> {
    if peer.first() != Some(&4) {
        return Err(Error::IllegalParameter(Illegal::CompressedPoint));
    }
    let pk = PublicKey::from_sec1_bytes(peer)
        .map_err(|_| Error::IllegalParameter(Illegal::EcdhPoint))?;
    ops.ecdh_ops += 1;
    let shared = secret.diffie_hellman(&pk);
    Ok(Secret(shared.raw_secret_bytes().to_vec()))
}

/// ECDSA-P256 signature (DER) over a SHA-256 hash.
pub fn sign(private_key: &Secret, hash: &[u8; 32], ops: &mut CryptoOps) -> Result<Vec<u8>, Error> {
    let sk = SigningKey::from_slice(&private_key.0)
        .map_err(|_| Error::Config(ConfigError::BadPrivateKey))?;
    let sig: DerSignature = sk
        .sign_prehash(hash)
        .map_err(|_| Error::Internal(InternalError::EcdsaSigning))?;
    ops.ecdsa_signs += 1;
    Ok(sig.as_bytes().to_vec())
}

/// Verify an ECDSA-P256 DER signature over a SHA-256 hash.
pub fn verify(
    public_key: &[u8],
    hash: &[u8; 32],
    sig: &[u8],
    ops: &mut CryptoOps,
) -> Result<(), Error> {
    let vk = VerifyingKey::from_sec1_bytes(public_key)
        .map_err(|_| Error::BadCertificate(CertificateError::PublicKey))?;
    let sig = DerSignature::try_from(sig).map_err(|_| Error::Decode(Malformed::Signature))?;
    ops.ecdsa_verifies += 1;
    vk.verify_prehash(hash, &sig)
        .map_err(|_| Error::BadSignature)
}

/// The public point of a private key (for checks).
pub fn public_of(private_key: &Secret) -> Result<Vec<u8>, Error> {
    let sk = SigningKey::from_slice(&private_key.0)
        .map_err(|_| Error::Config(ConfigError::BadPrivateKey))?;
    Ok(sk.verifying_key().to_sec1_bytes().to_vec())
}

// ---- minimal DER ----------------------------------------------------------

fn tlv(buf: &[u8]) -> Result<(u8, &[u8], &[u8]), Error> {
    let err = Error::BadCertificate(CertificateError::Der);
    let tag = *buf.first().ok_or(err.clone())?;
    let l0 = *buf.get(1).ok_or(err.clone())?;
    let (len, hdr) = if l0 < 0x80 {
        (l0 as usize, 2)
    } else {
        let n = (l0 & 0x7f) as usize;
        if n == 0 || n > 3 || buf.len() < 2 + n {
            return Err(err);
        }
        let mut len = 0usize;
        for b in &buf[2..2 + n] {
            len = (len << 8) | *b as usize;
        }
        (len, 2 + n)
    };
    if buf.len() < hdr + len {
        return Err(err);
    }
    Ok((tag, &buf[hdr..hdr + len], &buf[hdr + len..]))
}

const OID_EC_PUBLIC_KEY: &[u8] = &[0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01];
const OID_PRIME256V1: &[u8] = &[0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07];

/// The P-256 public point (65 bytes, uncompressed) of an X.509 certificate.
pub fn certificate_public_key(cert_der: &[u8]) -> Result<Vec<u8>, Error> {
    let (t, cert, _) = tlv(cert_der)?;
    if t != 0x30 {
        return Err(Error::BadCertificate(CertificateError::NotSequence));
    }
    let (t, tbs, _) = tlv(cert)?;
    if t != 0x30 {
        return Err(Error::BadCertificate(CertificateError::TbsCertificate));
    }
    let mut rest = tbs;
    let (t, _, r) = tlv(rest)?;
    if t == 0xA0 {
        rest = r; // version
        rest = tlv(rest)?.2; // serial
    } else {
        rest = r; // that was the serial
    }
    for _ in 0..4 {
        // signature, issuer, validity, subject
        rest = tlv(rest)?.2;
    }
    let (t, spki, _) = tlv(rest)?;
    if t != 0x30 {
        return Err(Error::BadCertificate(
            CertificateError::SubjectPublicKeyInfo,
        ));
    }
    let (t, alg, r) = tlv(spki)?;
    if t != 0x30 {
        return Err(Error::BadCertificate(CertificateError::Algorithm));
    }
    let (t1, oid1, ar) = tlv(alg)?;
    let (t2, oid2, _) = tlv(ar)?;
    if t1 != 6 || oid1 != OID_EC_PUBLIC_KEY || t2 != 6 || oid2 != OID_PRIME256V1 {
        return Err(Error::BadCertificate(CertificateError::NotP256Key));
    }
    let (t, bits, _) = tlv(r)?;
    if t != 3 || bits.len() != 66 || bits[0] != 0 || bits[1] != 4 {
        return Err(Error::BadCertificate(CertificateError::PublicKeyBits));
    }
    Ok(bits[1..].to_vec())
}

/// The 32-byte scalar of a P-256 private key in PKCS#8 or SEC1 (RFC 5915) DER.
pub fn private_key_from_der(der: &[u8]) -> Result<Secret, Error> {
    let bad = Error::Config(ConfigError::PrivateKeyDer);
    let (t, seq, _) = tlv(der).map_err(|_| bad.clone())?;
    if t != 0x30 {
        return Err(bad);
    }
    let (t, ver, rest) = tlv(seq).map_err(|_| bad.clone())?;
    if t != 2 {
        return Err(bad);
    }
    let ec_private_key = if ver == [0] {
        // PKCS#8: AlgorithmIdentifier, then OCTET STRING { ECPrivateKey }
        let (_, _, rest) = tlv(rest).map_err(|_| bad.clone())?;
        let (t, inner, _) = tlv(rest).map_err(|_| bad.clone())?;
        if t != 4 {
            return Err(bad);
        }
        let (t, s, _) = tlv(inner).map_err(|_| bad.clone())?;
        if t != 0x30 {
            return Err(bad);
        }
        let (_, _, r) = tlv(s).map_err(|_| bad.clone())?;
        r
    } else {
        rest
    };
    let (t, key, _) = tlv(ec_private_key).map_err(|_| bad.clone())?;
    if t != 4 || key.len() != 32 {
        return Err(bad);
    }
    Ok(Secret(key.to_vec()))
}

fn der(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut v = vec![tag];
    let n = content.len();
    if n < 0x80 {
        v.push(n as u8);
    } else if n < 0x100 {
        v.extend_from_slice(&[0x81, n as u8]);
    } else {
        v.extend_from_slice(&[0x82, (n >> 8) as u8, n as u8]);
    }
    v.extend_from_slice(content);
    v
}

/// A minimal self-signed X.509 v3 certificate (DER) for a P-256 key:
/// subject = issuer = CN=`common_name`, ecdsa-with-SHA256, validity
/// 2024-01-01 to 2049-12-31. For devices that pin their peer's certificate.
pub fn self_signed_certificate(private_key: &Secret, common_name: &str) -> Result<Vec<u8>, Error> {
    use sha2::{Digest, Sha256};
    const OID_ECDSA_SHA256: &[u8] = &[0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02];
    const OID_CN: &[u8] = &[0x55, 0x04, 0x03];
    if common_name.len() > 100 {
        return Err(Error::Config(ConfigError::CommonNameTooLong));
    }
    let public = public_of(private_key)?;
    let sig_alg = der(0x30, &der(6, OID_ECDSA_SHA256));
    let name = der(
        0x30,
        &der(
            0x31,
            &der(
                0x30,
                &[der(6, OID_CN), der(0x0C, common_name.as_bytes())].concat(),
            ),
        ),
    );
    let validity = der(
        0x30,
        &[der(0x17, b"240101000000Z"), der(0x17, b"491231235959Z")].concat(),
    );
    let spki = der(
        0x30,
        &[
            der(
                0x30,
                &[der(6, OID_EC_PUBLIC_KEY), der(6, OID_PRIME256V1)].concat(),
            ),
            der(3, &[&[0u8][..], &public].concat()),
        ]
        .concat(),
    );
    let serial = der(2, &[0x01, 0x02, 0x03, 0x04]);
    let version = der(0xA0, &der(2, &[2]));
    let tbs = der(
        0x30,
        &[
            version,
            serial,
            sig_alg.clone(),
            name.clone(),
            validity,
            name,
            spki,
        ]
        .concat(),
    );
    let hash: [u8; 32] = Sha256::digest(&tbs).into();
    let sig = sign(private_key, &hash, &mut CryptoOps::default())?;
    let sig_bits = der(3, &[&[0u8][..], &sig].concat());
    Ok(der(0x30, &[tbs, sig_alg, sig_bits].concat()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_signed_roundtrip() {
        let key = Secret(vec![7u8; 32]);
        let cert = self_signed_certificate(&key, "device").unwrap();
        assert_eq!(
            certificate_public_key(&cert).unwrap(),
            public_of(&key).unwrap()
        );
        assert!(certificate_public_key(&cert[..cert.len() - 1]).is_err());
    }

    #[test]
    fn sign_verify() {
        let key = Secret(vec![9u8; 32]);
        let mut ops = CryptoOps::default();
        let h = [1u8; 32];
        let s = sign(&key, &h, &mut ops).unwrap();
        verify(&public_of(&key).unwrap(), &h, &s, &mut ops).unwrap();
        assert_eq!(
            verify(&public_of(&key).unwrap(), &[2u8; 32], &s, &mut ops),
            Err(Error::BadSignature)
        );
        assert_eq!((ops.ecdsa_signs, ops.ecdsa_verifies), (1, 2));
    }
}
