//! Codecs of the DTLS 1.3 handshake message bodies the first handshakes
//! need (RFC 8446 §4 with RFC 9147 §5.3–5.4): ClientHello, ServerHello and
//! HelloRetryRequest, EncryptedExtensions, Finished; and the extensions
//! supported_versions, key_share, psk_key_exchange_modes, pre_shared_key
//! (with binders), cookie, supported_groups, signature_algorithms and
//! connection_id (RFC 9146). Bodies only: the 12-byte DTLS handshake header
//! is shared with DTLS 1.2 ([`crate::fragment`]).

use std::collections::HashSet;

use crate::codec::{finish, non_empty_vector, trunc, Reader, Writer};

use crate::error::v13::{Field, MessageError};

/// legacy_version of a DTLS 1.3 ClientHello and ServerHello: DTLS 1.2
/// (RFC 9147 §5.3, §5.4).
pub const LEGACY_VERSION: u16 = 0xFEFD;
/// DTLS 1.3 in supported_versions (RFC 9147 §5.3).
pub const DTLS1_3: u16 = 0xFEFC;
/// ServerHello.random of a HelloRetryRequest: SHA-256("HelloRetryRequest")
/// (RFC 8446 §4.1.3).
pub const HRR_RANDOM: [u8; 32] = [
    0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
    0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
];

/// Extension type values (RFC 8446 §4.2; connection_id: RFC 9146 §3).
pub mod ext {
    /// supported_groups(10)
    pub const SUPPORTED_GROUPS: u16 = 10;
    /// signature_algorithms(13)
    pub const SIGNATURE_ALGORITHMS: u16 = 13;
    /// pre_shared_key(41)
    pub const PRE_SHARED_KEY: u16 = 41;
    /// supported_versions(43)
    pub const SUPPORTED_VERSIONS: u16 = 43;
    /// cookie(44)
    pub const COOKIE: u16 = 44;
    /// psk_key_exchange_modes(45)
    pub const PSK_KEY_EXCHANGE_MODES: u16 = 45;
    /// key_share(51)
    pub const KEY_SHARE: u16 = 51;
    /// connection_id(54)
    pub const CONNECTION_ID: u16 = 54;
}

/// One key share (RFC 8446 §4.2.8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyShareEntry {
    /// NamedGroup (secp256r1 = 23, x25519 = 29).
    pub group: u16,
    /// The public value.
    pub key_exchange: Vec<u8>,
}

/// PskKeyExchangeMode (RFC 8446 §4.2.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PskMode {
    /// psk_ke(0): PSK only.
    PskKe,
    /// psk_dhe_ke(1): PSK with (EC)DHE.
    PskDheKe,
    /// A code point RFC 8446 §4.2.9 does not define: kept so that what was
    /// decoded encodes back to the same bytes; never selected.
    Unknown(u8),
}

/// One offered PSK identity (RFC 8446 §4.2.11).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PskIdentity {
    /// Identity.
    pub identity: Vec<u8>,
    /// obfuscated_ticket_age (0 for external PSKs).
    pub obfuscated_ticket_age: u32,
}

/// The client's pre_shared_key extension: identities and one binder each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OfferedPsks {
    /// Identities.
    pub identities: Vec<PskIdentity>,
    /// Binders, in the order of the identities.
    pub binders: Vec<Vec<u8>>,
}

impl OfferedPsks {
    /// Bytes of the binders list at the end of the ClientHello (its 2-byte
    /// length included): the part the binders do not cover (RFC 8446
    /// §4.2.11.2).
    pub fn binders_len(&self) -> usize {
        2 + self.binders.iter().map(|b| 1 + b.len()).sum::<usize>()
    }
}

/// The ClientHello extensions this stack reads; others are kept raw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientHelloExtensions {
    /// supported_versions.
    pub supported_versions: Option<Vec<u16>>,
    /// supported_groups.
    pub supported_groups: Option<Vec<u16>>,
    /// signature_algorithms.
    pub signature_algorithms: Option<Vec<u16>>,
    /// key_share: client_shares.
    pub key_shares: Option<Vec<KeyShareEntry>>,
    /// psk_key_exchange_modes.
    pub psk_modes: Option<Vec<PskMode>>,
    /// cookie (echoed from a HelloRetryRequest).
    pub cookie: Option<Vec<u8>>,
    /// connection_id: the CID the client wants to receive (may be empty).
    pub connection_id: Option<Vec<u8>>,
    /// Extensions not read here: (type, data), in order.
    pub unknown: Vec<(u16, Vec<u8>)>,
    /// pre_shared_key; always encoded last (RFC 8446 §4.2.11).
    pub pre_shared_key: Option<OfferedPsks>,
}

/// A DTLS 1.3 ClientHello body (RFC 9147 §5.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientHello {
    /// legacy_version as sent ({254, 253}).
    pub legacy_version: u16,
    /// random.
    pub random: [u8; 32],
    /// legacy_session_id (empty unless resuming a pre-1.3 session).
    pub legacy_session_id: Vec<u8>,
    /// cipher_suites.
    pub cipher_suites: Vec<u16>,
    /// Extensions.
    pub extensions: ClientHelloExtensions,
}

/// The extensions of a ServerHello or HelloRetryRequest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerHelloExtensions {
    /// supported_versions: selected_version.
    pub selected_version: Option<u16>,
    /// key_share: server_share (ServerHello).
    pub key_share: Option<KeyShareEntry>,
    /// key_share: selected_group (HelloRetryRequest).
    pub selected_group: Option<u16>,
    /// cookie (HelloRetryRequest).
    pub cookie: Option<Vec<u8>>,
    /// pre_shared_key: selected_identity (ServerHello).
    pub selected_identity: Option<u16>,
    /// connection_id (ServerHello): the CID the server wants to receive
    /// (may be empty).
    pub connection_id: Option<Vec<u8>>,
    /// Extensions not read here.
    pub unknown: Vec<(u16, Vec<u8>)>,
}

/// A DTLS 1.3 ServerHello or HelloRetryRequest body (RFC 9147 §5.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerHello {
    /// legacy_version as sent ({254, 253}).
    pub legacy_version: u16,
    /// random; [`HRR_RANDOM`] makes it a HelloRetryRequest.
    pub random: [u8; 32],
    /// legacy_session_id_echo: empty in DTLS 1.3 (RFC 9147 §5).
    pub legacy_session_id_echo: Vec<u8>,
    /// cipher_suite.
    pub cipher_suite: u16,
    /// Extensions.
    pub extensions: ServerHelloExtensions,
}

/// EncryptedExtensions (RFC 8446 §4.3.1): the extensions, raw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EncryptedExtensions {
    /// (type, data), in order.
    pub extensions: Vec<(u16, Vec<u8>)>,
}

fn u16_list(data: &[u8], f: Field, len_bytes: usize) -> Result<Vec<u16>, MessageError> {
    let mut r = Reader::new(data);
    let list = match len_bytes {
        1 => r.vec8(),
        _ => r.vec16(),
    }
    .map_err(trunc(f))?;
    finish(&r, f)?;
    if list.is_empty() || list.len() % 2 != 0 {
        return Err(MessageError::BadLength(f));
    }
    Ok(list
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect())
}

fn put_u16_list(out: &mut Vec<u8>, list: &[u16], len_bytes: usize) {
    let bytes: Vec<u8> = list.iter().flat_map(|v| v.to_be_bytes()).collect();
    match len_bytes {
        1 => out.put_vec8(&bytes),
        _ => out.put_vec16(&bytes),
    }
}

fn key_share_entry(r: &mut Reader<'_>) -> Result<KeyShareEntry, MessageError> {
    let group = r.u16().map_err(trunc(Field::KeyShare))?;
    let key_exchange = r.vec16().map_err(trunc(Field::KeyShare))?;
    if key_exchange.is_empty() {
        return Err(MessageError::BadLength(Field::KeyShare));
    }
    Ok(KeyShareEntry {
        group,
        key_exchange: key_exchange.to_vec(),
    })
}

fn put_key_share_entry(out: &mut Vec<u8>, e: &KeyShareEntry) {
    out.put_u16(e.group);
    out.put_vec16(&e.key_exchange);
}

/// Split an extension block into (type, data), refusing duplicates.
fn split_extensions(r: &mut Reader<'_>) -> Result<Vec<(u16, Vec<u8>)>, MessageError> {
    let block = r.vec16().map_err(trunc(Field::Extensions))?;
    let mut r = Reader::new(block);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    while !r.is_empty() {
        let typ = r.u16().map_err(trunc(Field::Extensions))?;
        let data = r.vec16().map_err(trunc(Field::Extensions))?;
        if !seen.insert(typ) {
            return Err(MessageError::DuplicateExtension(typ));
        }
        out.push((typ, data.to_vec()));
    }
    Ok(out)
}

fn put_extension(out: &mut Vec<u8>, typ: u16, data: &[u8]) {
    out.put_u16(typ);
    out.put_vec16(data);
}

/// legacy_version, random and legacy_session_id(_echo): how both hellos
/// begin (RFC 8446 §4.1.2, §4.1.3).
fn hello_start(r: &mut Reader<'_>) -> Result<(u16, [u8; 32], Vec<u8>), MessageError> {
    let hello = Field::Hello;
    let legacy_version = r.u16().map_err(trunc(hello))?;
    let random = r.array::<32>().map_err(trunc(hello))?;
    let session_id = r.vec8().map_err(trunc(hello))?.to_vec();
    Ok((legacy_version, random, session_id))
}

/// The cookie extension: `opaque cookie<1..2^16-1>` (RFC 8446 §4.2.2).
fn put_cookie(out: &mut Vec<u8>, c: &[u8]) {
    let mut d = Vec::new();
    d.put_vec16(c);
    put_extension(out, ext::COOKIE, &d);
}

fn cookie(data: &[u8]) -> Result<Vec<u8>, MessageError> {
    non_empty_vector(data, Field::Cookie, Reader::vec16)
}

/// The connection_id extension (`opaque cid<0..2^8-1>`, RFC 9146 §3) if
/// any, then the extensions this code does not know, as received.
fn put_connection_id_and_unknown(
    out: &mut Vec<u8>,
    cid: Option<&[u8]>,
    unknown: &[(u16, Vec<u8>)],
) {
    if let Some(c) = cid {
        let mut d = Vec::new();
        d.put_vec8(c);
        put_extension(out, ext::CONNECTION_ID, &d);
    }
    for (t, d) in unknown {
        put_extension(out, *t, d);
    }
}

fn connection_id(data: &[u8]) -> Result<Vec<u8>, MessageError> {
    let mut r = Reader::new(data);
    let c = r.vec8().map_err(trunc(Field::ConnectionId))?;
    finish(&r, Field::ConnectionId)?;
    Ok(c.to_vec())
}

impl ClientHello {
    /// Append the body to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.put_u16(self.legacy_version);
        out.extend_from_slice(&self.random);
        out.put_vec8(&self.legacy_session_id);
        out.put_vec8(&[]); // legacy_cookie: empty in DTLS 1.3
        put_u16_list(out, &self.cipher_suites, 2);
        out.put_vec8(&[0]); // legacy_compression_methods: null only
        let e = &self.extensions;
        let mut x = Vec::new();
        if let Some(v) = &e.supported_versions {
            let mut d = Vec::new();
            put_u16_list(&mut d, v, 1);
            put_extension(&mut x, ext::SUPPORTED_VERSIONS, &d);
        }
        if let Some(v) = &e.supported_groups {
            let mut d = Vec::new();
            put_u16_list(&mut d, v, 2);
            put_extension(&mut x, ext::SUPPORTED_GROUPS, &d);
        }
        if let Some(v) = &e.signature_algorithms {
            let mut d = Vec::new();
            put_u16_list(&mut d, v, 2);
            put_extension(&mut x, ext::SIGNATURE_ALGORITHMS, &d);
        }
        if let Some(shares) = &e.key_shares {
            let mut list = Vec::new();
            shares
                .iter()
                .for_each(|s| put_key_share_entry(&mut list, s));
            let mut d = Vec::new();
            d.put_vec16(&list);
            put_extension(&mut x, ext::KEY_SHARE, &d);
        }
        if let Some(modes) = &e.psk_modes {
            let m: Vec<u8> = modes
                .iter()
                .map(|m| match m {
                    PskMode::PskKe => 0,
                    PskMode::PskDheKe => 1,
                    PskMode::Unknown(m) => *m,
                })
                .collect();
            let mut d = Vec::new();
            d.put_vec8(&m);
            put_extension(&mut x, ext::PSK_KEY_EXCHANGE_MODES, &d);
        }
        if let Some(c) = &e.cookie {
            put_cookie(&mut x, c);
        }
        put_connection_id_and_unknown(&mut x, e.connection_id.as_deref(), &e.unknown);
        if let Some(p) = &e.pre_shared_key {
            let mut ids = Vec::new();
            for i in &p.identities {
                ids.put_vec16(&i.identity);
                ids.extend_from_slice(&i.obfuscated_ticket_age.to_be_bytes());
            }
            let mut binders = Vec::new();
            p.binders.iter().for_each(|b| binders.put_vec8(b));
            let mut d = Vec::new();
            d.put_vec16(&ids);
            d.put_vec16(&binders);
            put_extension(&mut x, ext::PRE_SHARED_KEY, &d);
        }
        out.put_vec16(&x);
    }

    /// Decode a body. Refuses a non-empty legacy_cookie and compression
    /// other than null (illegal_parameter, RFC 9147 §5.3, RFC 8446 §4.1.2).
    pub fn decode(body: &[u8]) -> Result<Self, MessageError> {
        let mut r = Reader::new(body);
        let hello = Field::Hello;
        let (legacy_version, random, legacy_session_id) = hello_start(&mut r)?;
        if legacy_session_id.len() > 32 {
            return Err(MessageError::BadLength(hello));
        }
        let legacy_cookie = r.vec8().map_err(trunc(Field::LegacyCookie))?;
        if !legacy_cookie.is_empty() {
            return Err(MessageError::IllegalValue(Field::LegacyCookie));
        }
        let suites = r.vec16().map_err(trunc(Field::CipherSuites))?;
        if suites.is_empty() || suites.len() % 2 != 0 {
            return Err(MessageError::BadLength(Field::CipherSuites));
        }
        let cipher_suites = suites
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        let compression = r.vec8().map_err(trunc(Field::CompressionMethods))?;
        if compression != [0] {
            return Err(MessageError::IllegalValue(Field::CompressionMethods));
        }
        let raw = split_extensions(&mut r)?;
        finish(&r, hello)?;
        let mut e = ClientHelloExtensions::default();
        let last = raw.len().saturating_sub(1);
        for (i, (typ, data)) in raw.into_iter().enumerate() {
            match typ {
                ext::SUPPORTED_VERSIONS => {
                    e.supported_versions = Some(u16_list(&data, Field::SupportedVersions, 1)?)
                }
                ext::SUPPORTED_GROUPS => {
                    e.supported_groups = Some(u16_list(&data, Field::SupportedGroups, 2)?)
                }
                ext::SIGNATURE_ALGORITHMS => {
                    e.signature_algorithms = Some(u16_list(&data, Field::SignatureAlgorithms, 2)?)
                }
                ext::KEY_SHARE => {
                    let mut r = Reader::new(&data);
                    let list = r.vec16().map_err(trunc(Field::KeyShare))?;
                    finish(&r, Field::KeyShare)?;
                    let mut lr = Reader::new(list);
                    let mut shares = Vec::new();
                    while !lr.is_empty() {
                        shares.push(key_share_entry(&mut lr)?);
                    }
                    e.key_shares = Some(shares);
                }
                ext::PSK_KEY_EXCHANGE_MODES => {
                    let f = Field::PskKeyExchangeModes;
                    let mut r = Reader::new(&data);
                    let modes = r.vec8().map_err(trunc(f))?;
                    finish(&r, f)?;
                    if modes.is_empty() {
                        return Err(MessageError::BadLength(f));
                    }
                    // unknown modes are kept but never selected (RFC 8446
                    // §4.2.9 lists only these two; later ones would be new
                    // code points)
                    e.psk_modes = Some(
                        modes
                            .iter()
                            .map(|&m| match m {
                                0 => PskMode::PskKe,
                                1 => PskMode::PskDheKe,
                                other => PskMode::Unknown(other),
                            })
                            .collect(),
                    );
                }
                ext::COOKIE => e.cookie = Some(cookie(&data)?),
                ext::CONNECTION_ID => e.connection_id = Some(connection_id(&data)?),
                ext::PRE_SHARED_KEY => {
                    if i != last {
                        return Err(MessageError::PreSharedKeyNotLast);
                    }
                    e.pre_shared_key = Some(decode_offered_psks(&data)?);
                }
                _ => e.unknown.push((typ, data)),
            }
        }
        Ok(ClientHello {
            legacy_version,
            random,
            legacy_session_id,
            cipher_suites,
            extensions: e,
        })
    }
}

fn decode_offered_psks(data: &[u8]) -> Result<OfferedPsks, MessageError> {
    let f = Field::PreSharedKey;
    let mut r = Reader::new(data);
    let ids = r.vec16().map_err(trunc(f))?;
    let binders = r.vec16().map_err(trunc(f))?;
    finish(&r, f)?;
    let mut ir = Reader::new(ids);
    let mut identities = Vec::new();
    while !ir.is_empty() {
        let identity = ir.vec16().map_err(trunc(f))?;
        let age = ir.array::<4>().map_err(trunc(f))?;
        if identity.is_empty() {
            return Err(MessageError::BadLength(f));
        }
        identities.push(PskIdentity {
            identity: identity.to_vec(),
            obfuscated_ticket_age: u32::from_be_bytes(age),
        });
    }
    let mut br = Reader::new(binders);
    let mut list = Vec::new();
    while !br.is_empty() {
        let b = br.vec8().map_err(trunc(f))?;
        // PskBinderEntry<32..255> (RFC 8446 §4.2.11)
        if b.len() < 32 {
            return Err(MessageError::BadLength(f));
        }
        list.push(b.to_vec());
    }
    if identities.is_empty() || identities.len() != list.len() {
        return Err(MessageError::BadLength(f));
    }
    Ok(OfferedPsks {
        identities,
        binders: list,
    })
}

impl ServerHello {
    /// Is this a HelloRetryRequest?
    pub fn is_hello_retry_request(&self) -> bool {
        self.random == HRR_RANDOM
    }

    /// Append the body to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.put_u16(self.legacy_version);
        out.extend_from_slice(&self.random);
        out.put_vec8(&self.legacy_session_id_echo);
        out.put_u16(self.cipher_suite);
        out.push(0); // legacy_compression_method
        let e = &self.extensions;
        let mut x = Vec::new();
        if let Some(v) = e.selected_version {
            put_extension(&mut x, ext::SUPPORTED_VERSIONS, &v.to_be_bytes());
        }
        if let Some(s) = &e.key_share {
            let mut d = Vec::new();
            put_key_share_entry(&mut d, s);
            put_extension(&mut x, ext::KEY_SHARE, &d);
        }
        if let Some(g) = e.selected_group {
            put_extension(&mut x, ext::KEY_SHARE, &g.to_be_bytes());
        }
        if let Some(c) = &e.cookie {
            put_cookie(&mut x, c);
        }
        if let Some(i) = e.selected_identity {
            put_extension(&mut x, ext::PRE_SHARED_KEY, &i.to_be_bytes());
        }
        put_connection_id_and_unknown(&mut x, e.connection_id.as_deref(), &e.unknown);
        out.put_vec16(&x);
    }

    /// Decode a body; key_share is read as selected_group in a
    /// HelloRetryRequest and as server_share otherwise.
    pub fn decode(body: &[u8]) -> Result<Self, MessageError> {
        let mut r = Reader::new(body);
        let hello = Field::Hello;
        let (legacy_version, random, legacy_session_id_echo) = hello_start(&mut r)?;
        let cipher_suite = r.u16().map_err(trunc(hello))?;
        if r.u8().map_err(trunc(hello))? != 0 {
            return Err(MessageError::IllegalValue(Field::CompressionMethods));
        }
        let raw = split_extensions(&mut r)?;
        finish(&r, hello)?;
        let hrr = random == HRR_RANDOM;
        let mut e = ServerHelloExtensions::default();
        for (typ, data) in raw {
            let two = |f: Field| -> Result<u16, MessageError> {
                let mut r = Reader::new(&data);
                let v = r.u16().map_err(trunc(f))?;
                finish(&r, f)?;
                Ok(v)
            };
            match typ {
                ext::SUPPORTED_VERSIONS => {
                    e.selected_version = Some(two(Field::SupportedVersions)?)
                }
                ext::KEY_SHARE if hrr => e.selected_group = Some(two(Field::KeyShare)?),
                ext::KEY_SHARE => {
                    let mut r = Reader::new(&data);
                    e.key_share = Some(key_share_entry(&mut r)?);
                    finish(&r, Field::KeyShare)?;
                }
                ext::COOKIE => e.cookie = Some(cookie(&data)?),
                ext::PRE_SHARED_KEY => e.selected_identity = Some(two(Field::PreSharedKey)?),
                ext::CONNECTION_ID if !hrr => e.connection_id = Some(connection_id(&data)?),
                _ => e.unknown.push((typ, data)),
            }
        }
        Ok(ServerHello {
            legacy_version,
            random,
            legacy_session_id_echo,
            cipher_suite,
            extensions: e,
        })
    }
}

impl EncryptedExtensions {
    /// Append the body to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let mut x = Vec::new();
        for (t, d) in &self.extensions {
            put_extension(&mut x, *t, d);
        }
        out.put_vec16(&x);
    }

    /// Decode a body.
    pub fn decode(body: &[u8]) -> Result<Self, MessageError> {
        let mut r = Reader::new(body);
        let extensions = split_extensions(&mut r)?;
        finish(&r, Field::Extensions)?;
        Ok(EncryptedExtensions { extensions })
    }
}

/// Finished.verify_data: exactly Hash.length bytes (RFC 8446 §4.4.4).
pub fn decode_finished(body: &[u8], hash_len: usize) -> Result<&[u8], MessageError> {
    if body.len() == hash_len {
        Ok(body)
    } else if body.len() < hash_len {
        Err(MessageError::Truncated(Field::Finished))
    } else {
        Err(MessageError::TrailingBytes(Field::Finished))
    }
}
