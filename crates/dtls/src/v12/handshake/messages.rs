//! Handshake message codec (RFC 5246 §7.4, RFC 6347 §4.2, RFC 4279, RFC
//! 4492/8422, RFC 7627).

pub use crate::cert::CertificateType;
use crate::codec::{Reader, Writer};
use crate::error::Error;
use crate::error::{Illegal, Malformed};

/// Extension numbers we know.
pub mod ext {
    /// supported_groups (elliptic_curves)
    pub const SUPPORTED_GROUPS: u16 = 0x000a;
    /// ec_point_formats
    pub const EC_POINT_FORMATS: u16 = 0x000b;
    /// signature_algorithms
    pub const SIGNATURE_ALGORITHMS: u16 = 0x000d;
    /// extended_master_secret
    pub const EXTENDED_MASTER_SECRET: u16 = 0x0017;
    pub use crate::cert::ext::{CLIENT_CERTIFICATE_TYPE, SERVER_CERTIFICATE_TYPE};
    /// connection_id (RFC 9146 §3)
    pub const CONNECTION_ID: u16 = 54;
    /// renegotiation_info
    pub const RENEGOTIATION_INFO: u16 = 0xff01;
    /// secp256r1 named group
    pub const SECP256R1: u16 = 0x0017;
    /// ecdsa_secp256r1_sha256 signature scheme
    pub const ECDSA_SECP256R1_SHA256: u16 = 0x0403;
    /// TLS_EMPTY_RENEGOTIATION_INFO_SCSV
    pub const EMPTY_RENEGOTIATION_INFO_SCSV: u16 = 0x00ff;
}

/// The body of a connection_id extension: `opaque cid<0..2^8-1>` (RFC
/// 9146 §3).
pub fn parse_connection_id(data: &[u8]) -> Result<Vec<u8>, Error> {
    let mut r = Reader::new(data);
    let cid = r.vec8()?.to_vec();
    r.finish()?;
    Ok(cid)
}

/// A hello extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extension {
    /// Type.
    pub typ: u16,
    /// Body.
    pub data: Vec<u8>,
}

fn parse_extensions(r: &mut Reader<'_>) -> Result<Vec<Extension>, Error> {
    if r.is_empty() {
        return Ok(Vec::new());
    }
    let mut er = Reader::new(r.vec16()?);
    let mut v: Vec<Extension> = Vec::new();
    while !er.is_empty() {
        let typ = er.u16()?;
        let data = er.vec16()?.to_vec();
        if v.iter().any(|e| e.typ == typ) {
            return Err(Error::Decode(Malformed::DuplicateExtension));
        }
        v.push(Extension { typ, data });
    }
    Ok(v)
}

fn emit_extensions(exts: &[Extension], out: &mut Vec<u8>) {
    if exts.is_empty() {
        return;
    }
    let mut e = Vec::new();
    for x in exts {
        e.put_u16(x.typ);
        e.put_vec16(&x.data);
    }
    out.put_vec16(&e);
}

/// version, random and session_id (at most 32 bytes): how both hellos
/// begin (RFC 5246 §7.4.1.2, §7.4.1.3).
fn hello_start(r: &mut Reader<'_>) -> Result<(u16, [u8; 32], Vec<u8>), Error> {
    let version = r.u16()?;
    let random = r.array()?;
    let session_id = r.vec8()?;
    if session_id.len() > 32 {
        return Err(Error::Decode(Malformed::SessionIdTooLong));
    }
    Ok((version, random, session_id.to_vec()))
}

/// ClientHello (DTLS: with cookie).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientHello {
    /// client_version.
    pub version: u16,
    /// Random.
    pub random: [u8; 32],
    /// session_id.
    pub session_id: Vec<u8>,
    /// cookie.
    pub cookie: Vec<u8>,
    /// Offered suites.
    pub cipher_suites: Vec<u16>,
    /// Compression methods.
    pub compression_methods: Vec<u8>,
    /// Extensions.
    pub extensions: Vec<Extension>,
}

impl ClientHello {
    /// Parse a body.
    pub fn parse(body: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(body);
        let (version, random, session_id) = hello_start(&mut r)?;
        let cookie = r.vec8()?.to_vec();
        let cs = r.vec16()?;
        if cs.is_empty() || cs.len() % 2 != 0 {
            return Err(Error::Decode(Malformed::CipherSuites));
        }
        let cipher_suites = cs
            .chunks(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        let compression_methods = r.vec8()?.to_vec();
        if compression_methods.is_empty() {
            return Err(Error::Decode(Malformed::CompressionMethods));
        }
        let extensions = parse_extensions(&mut r)?;
        r.finish()?;
        Ok(ClientHello {
            version,
            random,
            session_id,
            cookie,
            cipher_suites,
            compression_methods,
            extensions,
        })
    }
    /// Encode the body.
    pub fn emit(&self, out: &mut Vec<u8>) {
        out.put_u16(self.version);
        out.extend_from_slice(&self.random);
        out.put_vec8(&self.session_id);
        out.put_vec8(&self.cookie);
        out.put_u16((self.cipher_suites.len() * 2) as u16);
        for s in &self.cipher_suites {
            out.put_u16(*s);
        }
        out.put_vec8(&self.compression_methods);
        emit_extensions(&self.extensions, out);
    }
    /// The bytes a cookie binds: everything but the cookie itself.
    pub fn cookie_binding(&self) -> Vec<u8> {
        let mut c = self.clone();
        c.cookie.clear();
        let mut out = Vec::new();
        c.emit(&mut out);
        out
    }
    /// Find an extension.
    pub fn extension(&self, typ: u16) -> Option<&[u8]> {
        self.extensions
            .iter()
            .find(|e| e.typ == typ)
            .map(|e| e.data.as_slice())
    }
}

/// HelloVerifyRequest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelloVerifyRequest {
    /// server_version (RFC 6347: DTLS 1.0 in HelloVerifyRequest).
    pub version: u16,
    /// Cookie.
    pub cookie: Vec<u8>,
}

impl HelloVerifyRequest {
    /// Parse a body.
    pub fn parse(body: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(body);
        let version = r.u16()?;
        let cookie = r.vec8()?.to_vec();
        r.finish()?;
        Ok(HelloVerifyRequest { version, cookie })
    }
    /// Encode the body.
    pub fn emit(&self, out: &mut Vec<u8>) {
        out.put_u16(self.version);
        out.put_vec8(&self.cookie);
    }
}

/// ServerHello.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerHello {
    /// server_version.
    pub version: u16,
    /// Random.
    pub random: [u8; 32],
    /// session_id.
    pub session_id: Vec<u8>,
    /// Chosen suite.
    pub cipher_suite: u16,
    /// Chosen compression.
    pub compression_method: u8,
    /// Extensions.
    pub extensions: Vec<Extension>,
}

impl ServerHello {
    /// Parse a body.
    pub fn parse(body: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(body);
        let (version, random, session_id) = hello_start(&mut r)?;
        let cipher_suite = r.u16()?;
        let compression_method = r.u8()?;
        let extensions = parse_extensions(&mut r)?;
        r.finish()?;
        Ok(ServerHello {
            version,
            random,
            session_id,
            cipher_suite,
            compression_method,
            extensions,
        })
    }
    /// Encode the body.
    pub fn emit(&self, out: &mut Vec<u8>) {
        out.put_u16(self.version);
        out.extend_from_slice(&self.random);
        out.put_vec8(&self.session_id);
        out.put_u16(self.cipher_suite);
        out.push(self.compression_method);
        emit_extensions(&self.extensions, out);
    }
    /// Find an extension.
    pub fn extension(&self, typ: u16) -> Option<&[u8]> {
        self.extensions
            .iter()
            .find(|e| e.typ == typ)
            .map(|e| e.data.as_slice())
    }
}

/// Certificate: a list of DER certificates.
pub fn parse_certificate(body: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
    let mut r = Reader::new(body);
    let mut lr = Reader::new(r.vec24()?);
    r.finish()?;
    let mut v = Vec::new();
    while !lr.is_empty() {
        let c = lr.vec24()?;
        if c.is_empty() {
            return Err(Error::Decode(Malformed::EmptyCertificate));
        }
        v.push(c.to_vec());
    }
    Ok(v)
}

/// Encode a Certificate body.
pub fn emit_certificate(chain: &[Vec<u8>], out: &mut Vec<u8>) {
    let mut l = Vec::new();
    for c in chain {
        l.put_vec24(c);
    }
    out.put_vec24(&l);
}

/// Encode a Certificate body of the negotiated type (RFC 7250 §3): a raw
/// public key is the one SubjectPublicKeyInfo itself, not a list.
pub fn emit_certificate_as(t: CertificateType, chain: &[Vec<u8>], out: &mut Vec<u8>) {
    match (t, chain) {
        (CertificateType::RawPublicKey, [spki]) => out.put_vec24(spki),
        _ => emit_certificate(chain, out),
    }
}

/// Parse a Certificate body of the negotiated type (RFC 7250 §3) into its
/// entries, leaf first.
pub fn parse_certificate_as(t: CertificateType, body: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
    match t {
        CertificateType::X509 => parse_certificate(body),
        CertificateType::RawPublicKey => {
            let mut r = Reader::new(body);
            let spki = r.vec24()?;
            r.finish()?;
            if spki.is_empty() {
                return Err(Error::Decode(Malformed::EmptyRawPublicKey));
            }
            Ok(vec![spki.to_vec()])
        }
    }
}

/// ECDHE ServerKeyExchange (named curve, signed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EcdheServerKeyExchange {
    /// Named group.
    pub group: u16,
    /// Uncompressed public point.
    pub public: Vec<u8>,
    /// Signature scheme.
    pub scheme: u16,
    /// DER signature.
    pub signature: Vec<u8>,
}

impl EcdheServerKeyExchange {
    /// Parse a body.
    pub fn parse(body: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(body);
        if r.u8()? != 3 {
            return Err(Error::IllegalParameter(Illegal::CurveType));
        }
        let group = r.u16()?;
        let public = r.vec8()?.to_vec();
        let scheme = r.u16()?;
        let signature = r.vec16()?.to_vec();
        r.finish()?;
        Ok(EcdheServerKeyExchange {
            group,
            public,
            scheme,
            signature,
        })
    }
    /// The ServerECDHParams bytes (what is signed after the randoms).
    pub fn params(group: u16, public: &[u8]) -> Vec<u8> {
        let mut p = vec![3];
        p.put_u16(group);
        p.put_vec8(public);
        p
    }
    /// Encode the body.
    pub fn emit(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&Self::params(self.group, &self.public));
        out.put_u16(self.scheme);
        out.put_vec16(&self.signature);
    }
}

/// CertificateRequest (we always ask for ecdsa_sign with
/// ecdsa_secp256r1_sha256, no CA list).
pub fn emit_certificate_request(out: &mut Vec<u8>) {
    out.put_vec8(&[64]); // ecdsa_sign
    out.put_vec16(&ext::ECDSA_SECP256R1_SHA256.to_be_bytes());
    out.put_u16(0);
}

/// Parse a CertificateRequest: (certificate types, signature schemes).
pub fn parse_certificate_request(body: &[u8]) -> Result<(Vec<u8>, Vec<u16>), Error> {
    let mut r = Reader::new(body);
    let types = r.vec8()?.to_vec();
    let s = r.vec16()?;
    if s.len() % 2 != 0 {
        return Err(Error::Decode(Malformed::SignatureAlgorithms));
    }
    let schemes = s
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    let _cas = r.vec16()?;
    r.finish()?;
    Ok((types, schemes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_hello_roundtrip() {
        let ch = ClientHello {
            version: 0xfefd,
            random: [9; 32],
            session_id: vec![],
            cookie: vec![1, 2, 3],
            cipher_suites: vec![0xc0a8],
            compression_methods: vec![0],
            extensions: vec![Extension {
                typ: ext::EXTENDED_MASTER_SECRET,
                data: vec![],
            }],
        };
        let mut b = Vec::new();
        ch.emit(&mut b);
        assert_eq!(ClientHello::parse(&b).unwrap(), ch);
        assert!(ClientHello::parse(&b[..b.len() - 1]).is_err());
    }
}
