//! The TLS 1.3 key schedule (RFC 8446 §7.1) on HKDF (RFC 5869), with the
//! label prefix as a parameter: "tls13 " for TLS 1.3, "dtls13" for DTLS 1.3
//! (RFC 9147 §5.9). One code path serves both, so RFC 8448's TLS 1.3 traces
//! check the same code DTLS 1.3 runs.
//!
//! ```text
//!              0
//!              |
//!    PSK ->  HKDF-Extract = Early Secret ──> binder_key, c e traffic
//!              |
//!        Derive-Secret(., "derived", "")
//!              |
//! (EC)DHE -> HKDF-Extract = Handshake Secret ──> c/s hs traffic
//!              |
//!        Derive-Secret(., "derived", "")
//!              |
//!    0 ->  HKDF-Extract = Master Secret ──> c/s ap traffic, exp master,
//!                                            res master
//! ```
//!
//! Each stage is its own type, consumed by the step to the next, so a
//! handshake cannot use a secret of the wrong stage. Every secret is zeroized
//! when dropped and never printed; Finished and binder values are compared
//! in constant time.
//!
//! Operation counting: HMAC-SHA256 calls are charged to
//! [`CryptoOps::sha256_compressions`] as everywhere in the crate. SHA-384 has
//! no counter in [`CryptoOps`] yet, so the SHA-384 suite's HKDF work is not
//! charged (a later step adds the counter together with the simulator's
//! price for it).

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256, Sha384};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use super::suite::{CipherSuite13, HashAlg};
use crate::accounting::CryptoOps;

/// Longest hash output of the suites here (SHA-384).
const MAX_HASH_LEN: usize = 48;

/// The prefix of every HKDF-Expand-Label label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LabelPrefix {
    /// "tls13 " (RFC 8446 §7.1).
    Tls13,
    /// "dtls13" (RFC 9147 §5.9).
    Dtls13,
}

impl LabelPrefix {
    /// The six prefix bytes.
    pub fn bytes(self) -> &'static [u8; 6] {
        match self {
            LabelPrefix::Tls13 => b"tls13 ",
            LabelPrefix::Dtls13 => b"dtls13",
        }
    }
}

/// A secret as long as the suite's hash output. Zeroized on drop; `Debug`
/// shows only its length.
#[derive(Clone)]
pub struct Secret13 {
    bytes: [u8; MAX_HASH_LEN],
    len: usize,
}

impl Secret13 {
    fn from_slice(s: &[u8]) -> Self {
        let mut bytes = [0u8; MAX_HASH_LEN];
        bytes[..s.len()].copy_from_slice(s);
        Secret13 {
            bytes,
            len: s.len(),
        }
    }

    /// The secret's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Constant-time comparison with `other` (RFC 8446 §4.4.4: Finished
    /// and binder values must not leak through timing).
    pub fn ct_eq(&self, other: &[u8]) -> bool {
        self.as_bytes().ct_eq(other).into()
    }
}

impl Drop for Secret13 {
    fn drop(&mut self) {
        self.bytes.zeroize();
    }
}

impl core::fmt::Debug for Secret13 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Secret13([{} bytes redacted])", self.len)
    }
}

/// The key schedule's primitives for one hash and label prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hkdf13 {
    /// Hash of the suite.
    pub hash: HashAlg,
    /// Label prefix of the protocol version.
    pub prefix: LabelPrefix,
}

impl Hkdf13 {
    /// DTLS 1.3 with `hash`.
    pub fn dtls(hash: HashAlg) -> Self {
        Hkdf13 {
            hash,
            prefix: LabelPrefix::Dtls13,
        }
    }

    /// TLS 1.3 with `hash` (RFC 8448's traces check this).
    pub fn tls(hash: HashAlg) -> Self {
        Hkdf13 {
            hash,
            prefix: LabelPrefix::Tls13,
        }
    }

    /// HMAC with the suite's hash over the concatenation of `parts`.
    pub fn hmac(&self, key: &[u8], parts: &[&[u8]], ops: &mut CryptoOps) -> Secret13 {
        let n: usize = parts.iter().map(|p| p.len()).sum();
        match self.hash {
            HashAlg::Sha256 => {
                if key.len() > 64 {
                    ops.sha256(key.len());
                }
                ops.hmac_sha256(n);
                let mut m = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
                parts.iter().for_each(|p| m.update(p));
                Secret13::from_slice(&m.finalize().into_bytes())
            }
            HashAlg::Sha384 => {
                if key.len() > 128 {
                    ops.sha384(key.len());
                }
                ops.hmac_sha384(n);
                let mut m = Hmac::<Sha384>::new_from_slice(key).expect("HMAC takes any key length");
                parts.iter().for_each(|p| m.update(p));
                Secret13::from_slice(&m.finalize().into_bytes())
            }
        }
    }

    /// Hash of the empty string (the context of "derived" and the binder
    /// keys).
    pub fn empty_hash(&self) -> Secret13 {
        match self.hash {
            HashAlg::Sha256 => Secret13::from_slice(&Sha256::digest([])),
            HashAlg::Sha384 => Secret13::from_slice(&Sha384::digest([])),
        }
    }

    /// HKDF-Extract(salt, IKM) (RFC 5869 §2.2); an empty `salt` or `ikm`
    /// stands for Hash.length zero bytes, as RFC 8446 §7.1 writes "0".
    pub fn extract(&self, salt: &[u8], ikm: &[u8], ops: &mut CryptoOps) -> Secret13 {
        let zeros = [0u8; MAX_HASH_LEN];
        let zeros = &zeros[..self.hash.output_len()];
        let salt = if salt.is_empty() { zeros } else { salt };
        let ikm = if ikm.is_empty() { zeros } else { ikm };
        // HKDF-Extract is HMAC(salt, IKM) (RFC 5869 §2.2)
        self.hmac(salt, &[ikm], ops)
    }

    /// HKDF-Expand-Label(Secret, Label, Context, out.len()) (RFC 8446 §7.1)
    /// with this schedule's label prefix: HKDF-Expand over the HkdfLabel
    /// `uint16 length || opaque label<7..255> || opaque context<0..255>`.
    pub fn expand_label(
        &self,
        secret: &[u8],
        label: &[u8],
        context: &[u8],
        out: &mut [u8],
        ops: &mut CryptoOps,
    ) {
        let prefix = self.prefix.bytes();
        debug_assert!(prefix.len() + label.len() <= 255 && context.len() <= 255);
        let mut info = Vec::with_capacity(4 + prefix.len() + label.len() + context.len());
        info.extend_from_slice(&(out.len() as u16).to_be_bytes());
        info.push((prefix.len() + label.len()) as u8);
        info.extend_from_slice(prefix);
        info.extend_from_slice(label);
        info.push(context.len() as u8);
        info.extend_from_slice(context);
        self.expand(secret, &info, out, ops);
    }

    /// HKDF-Expand (RFC 5869 §2.3): T(i) = HMAC(PRK, T(i-1) || info || i).
    fn expand(&self, prk: &[u8], info: &[u8], out: &mut [u8], ops: &mut CryptoOps) {
        let hash_len = self.hash.output_len();
        debug_assert!(out.len() <= 255 * hash_len && prk.len() >= hash_len);
        match self.hash {
            HashAlg::Sha256 => {
                for i in 0..out.len().div_ceil(hash_len) {
                    let previous = if i == 0 { 0 } else { hash_len };
                    ops.hmac_sha256(previous + info.len() + 1);
                }
                hkdf::Hkdf::<Sha256>::from_prk(prk)
                    .expect("PRK is Hash.length long")
                    .expand(info, out)
                    .expect("labels ask for at most 255 blocks");
            }
            HashAlg::Sha384 => {
                for i in 0..out.len().div_ceil(hash_len) {
                    let previous = if i == 0 { 0 } else { hash_len };
                    ops.hmac_sha384(previous + info.len() + 1);
                }
                hkdf::Hkdf::<Sha384>::from_prk(prk)
                    .expect("PRK is Hash.length long")
                    .expand(info, out)
                    .expect("labels ask for at most 255 blocks")
            }
        }
    }

    /// HKDF-Expand-Label to Hash.length bytes.
    fn expand_label_secret(
        &self,
        secret: &Secret13,
        label: &[u8],
        context: &[u8],
        ops: &mut CryptoOps,
    ) -> Secret13 {
        let mut s = Secret13::from_slice(&[0u8; MAX_HASH_LEN][..self.hash.output_len()]);
        let len = s.len;
        self.expand_label(secret.as_bytes(), label, context, &mut s.bytes[..len], ops);
        s
    }

    /// Derive-Secret(Secret, Label, Messages) given the transcript hash of
    /// Messages (RFC 8446 §7.1).
    pub fn derive_secret(
        &self,
        secret: &Secret13,
        label: &[u8],
        transcript_hash: &[u8],
        ops: &mut CryptoOps,
    ) -> Secret13 {
        self.expand_label_secret(secret, label, transcript_hash, ops)
    }

    /// The record keys of one direction and epoch (RFC 8446 §7.3, RFC 9147
    /// §4.2.3): write key, write IV and the record-number key `sn_key`.
    pub fn traffic_keys(
        &self,
        traffic_secret: &Secret13,
        suite: CipherSuite13,
        ops: &mut CryptoOps,
    ) -> TrafficKeys {
        let mut k = TrafficKeys {
            key: [0; 32],
            sn_key: [0; 32],
            key_len: suite.key_len(),
            iv: [0; 12],
        };
        let s = traffic_secret.as_bytes();
        self.expand_label(s, b"key", &[], &mut k.key[..k.key_len], ops);
        self.expand_label(s, b"iv", &[], &mut k.iv, ops);
        self.expand_label(s, b"sn", &[], &mut k.sn_key[..k.key_len], ops);
        k
    }

    /// finished_key = HKDF-Expand-Label(BaseKey, "finished", "", Hash.length)
    /// (RFC 8446 §4.4.4); the binder key gives the binder's key the same way
    /// (§4.2.11.2).
    pub fn finished_key(&self, base_key: &Secret13, ops: &mut CryptoOps) -> Secret13 {
        self.expand_label_secret(base_key, b"finished", &[], ops)
    }

    /// verify_data = HMAC(finished_key, Transcript-Hash) (RFC 8446 §4.4.4;
    /// also the PSK binder, §4.2.11.2).
    pub fn verify_data(
        &self,
        finished_key: &Secret13,
        transcript_hash: &[u8],
        ops: &mut CryptoOps,
    ) -> Secret13 {
        self.hmac(finished_key.as_bytes(), &[transcript_hash], ops)
    }

    /// Does the peer's `received` Finished (or binder) match, compared in
    /// constant time?
    pub fn verify_finished(
        &self,
        finished_key: &Secret13,
        transcript_hash: &[u8],
        received: &[u8],
        ops: &mut CryptoOps,
    ) -> bool {
        self.verify_data(finished_key, transcript_hash, ops)
            .ct_eq(received)
    }

    /// application_traffic_secret_N+1 = HKDF-Expand-Label(secret_N,
    /// "traffic upd", "", Hash.length) (RFC 8446 §7.2; DTLS 1.3 KeyUpdate,
    /// RFC 9147 §8).
    pub fn next_traffic_secret(&self, secret: &Secret13, ops: &mut CryptoOps) -> Secret13 {
        self.expand_label_secret(secret, b"traffic upd", &[], ops)
    }

    /// The PSK of a ticket: HKDF-Expand-Label(resumption_master_secret,
    /// "resumption", ticket_nonce, Hash.length) (RFC 8446 §4.6.1).
    pub fn resumption_psk(
        &self,
        resumption_master_secret: &Secret13,
        ticket_nonce: &[u8],
        ops: &mut CryptoOps,
    ) -> Secret13 {
        self.expand_label_secret(resumption_master_secret, b"resumption", ticket_nonce, ops)
    }
}

/// Record keys of one direction and epoch. Zeroized on drop.
pub struct TrafficKeys {
    key: [u8; 32],
    sn_key: [u8; 32],
    key_len: usize,
    /// write IV (`iv_length` = 12 bytes), XORed with the record sequence
    /// number to form the nonce (RFC 8446 §5.3); not secret on its own.
    pub iv: [u8; 12],
}

impl TrafficKeys {
    /// AEAD write key (16 or 32 bytes).
    pub fn key(&self) -> &[u8] {
        &self.key[..self.key_len]
    }
    /// Record-number encryption key (RFC 9147 §4.2.3), as long as the key.
    pub fn sn_key(&self) -> &[u8] {
        &self.sn_key[..self.key_len]
    }
}

impl Drop for TrafficKeys {
    fn drop(&mut self) {
        self.key.zeroize();
        self.sn_key.zeroize();
        self.iv.zeroize();
    }
}

impl core::fmt::Debug for TrafficKeys {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "TrafficKeys({}-byte key, [redacted])", self.key_len)
    }
}

/// Which PSK a binder is computed for (RFC 8446 §7.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PskKind {
    /// An external PSK: "ext binder".
    External,
    /// A resumption PSK from a ticket: "res binder".
    Resumption,
}

/// The client and server traffic secrets of one stage.
#[derive(Debug)]
pub struct TrafficSecrets {
    /// client_*_traffic_secret
    pub client: Secret13,
    /// server_*_traffic_secret
    pub server: Secret13,
}

/// First stage: HKDF-Extract(0, PSK or 0).
#[derive(Debug)]
pub struct EarlySecret {
    hkdf: Hkdf13,
    secret: Secret13,
}

impl EarlySecret {
    /// From the PSK, or zeros when the handshake uses none.
    pub fn new(hkdf: Hkdf13, psk: Option<&[u8]>, ops: &mut CryptoOps) -> Self {
        let secret = hkdf.extract(&[], psk.unwrap_or(&[]), ops);
        EarlySecret { hkdf, secret }
    }

    /// The schedule's primitives.
    pub fn hkdf(&self) -> Hkdf13 {
        self.hkdf
    }

    /// The Early Secret itself.
    pub fn secret(&self) -> &Secret13 {
        &self.secret
    }

    /// binder_key = Derive-Secret(Early Secret, "ext binder" | "res binder", "").
    pub fn binder_key(&self, kind: PskKind, ops: &mut CryptoOps) -> Secret13 {
        let label: &[u8] = match kind {
            PskKind::External => b"ext binder",
            PskKind::Resumption => b"res binder",
        };
        let empty = self.hkdf.empty_hash();
        self.hkdf
            .derive_secret(&self.secret, label, empty.as_bytes(), ops)
    }

    /// client_early_traffic_secret = Derive-Secret(., "c e traffic",
    /// ClientHello): epoch 1 keys of 0-RTT data (RFC 9147 §6.1).
    pub fn client_early_traffic_secret(&self, hash_ch: &[u8], ops: &mut CryptoOps) -> Secret13 {
        self.hkdf
            .derive_secret(&self.secret, b"c e traffic", hash_ch, ops)
    }

    /// Handshake Secret = HKDF-Extract(Derive-Secret(., "derived", ""),
    /// (EC)DHE shared secret or 0 in psk_ke mode).
    pub fn into_handshake(self, dhe: Option<&[u8]>, ops: &mut CryptoOps) -> HandshakeSecret {
        let salt = derived(&self.hkdf, &self.secret, ops);
        let secret = self.hkdf.extract(salt.as_bytes(), dhe.unwrap_or(&[]), ops);
        HandshakeSecret {
            hkdf: self.hkdf,
            secret,
        }
    }
}

/// Second stage: keys of the handshake (epoch 2).
#[derive(Debug)]
pub struct HandshakeSecret {
    hkdf: Hkdf13,
    secret: Secret13,
}

impl HandshakeSecret {
    /// The Handshake Secret itself.
    pub fn secret(&self) -> &Secret13 {
        &self.secret
    }

    /// c/s hs traffic = Derive-Secret(., "c hs traffic" | "s hs traffic",
    /// ClientHello...ServerHello).
    pub fn traffic_secrets(&self, hash_ch_sh: &[u8], ops: &mut CryptoOps) -> TrafficSecrets {
        TrafficSecrets {
            client: self
                .hkdf
                .derive_secret(&self.secret, b"c hs traffic", hash_ch_sh, ops),
            server: self
                .hkdf
                .derive_secret(&self.secret, b"s hs traffic", hash_ch_sh, ops),
        }
    }

    /// Master Secret = HKDF-Extract(Derive-Secret(., "derived", ""), 0).
    pub fn into_master(self, ops: &mut CryptoOps) -> MasterSecret {
        let salt = derived(&self.hkdf, &self.secret, ops);
        let secret = self.hkdf.extract(salt.as_bytes(), &[], ops);
        MasterSecret {
            hkdf: self.hkdf,
            secret,
        }
    }
}

/// Third stage: application keys (epoch 3), exporter and resumption.
#[derive(Debug)]
pub struct MasterSecret {
    hkdf: Hkdf13,
    secret: Secret13,
}

impl MasterSecret {
    /// The schedule's primitives.
    pub fn hkdf(&self) -> Hkdf13 {
        self.hkdf
    }

    /// The Master Secret itself.
    pub fn secret(&self) -> &Secret13 {
        &self.secret
    }

    /// c/s ap traffic = Derive-Secret(., "c ap traffic" | "s ap traffic",
    /// ClientHello...server Finished).
    pub fn traffic_secrets(&self, hash_ch_sf: &[u8], ops: &mut CryptoOps) -> TrafficSecrets {
        TrafficSecrets {
            client: self
                .hkdf
                .derive_secret(&self.secret, b"c ap traffic", hash_ch_sf, ops),
            server: self
                .hkdf
                .derive_secret(&self.secret, b"s ap traffic", hash_ch_sf, ops),
        }
    }

    /// exporter_master_secret = Derive-Secret(., "exp master",
    /// ClientHello...server Finished).
    pub fn exporter_master_secret(&self, hash_ch_sf: &[u8], ops: &mut CryptoOps) -> Secret13 {
        self.hkdf
            .derive_secret(&self.secret, b"exp master", hash_ch_sf, ops)
    }

    /// resumption_master_secret = Derive-Secret(., "res master",
    /// ClientHello...client Finished).
    pub fn resumption_master_secret(&self, hash_ch_cf: &[u8], ops: &mut CryptoOps) -> Secret13 {
        self.hkdf
            .derive_secret(&self.secret, b"res master", hash_ch_cf, ops)
    }
}

/// Derive-Secret(secret, "derived", ""): the salt of the next extraction.
fn derived(hkdf: &Hkdf13, secret: &Secret13, ops: &mut CryptoOps) -> Secret13 {
    let empty = hkdf.empty_hash();
    hkdf.derive_secret(secret, b"derived", empty.as_bytes(), ops)
}
