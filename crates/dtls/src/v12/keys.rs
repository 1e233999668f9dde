//! The TLS 1.2 key schedule for the AES-128 AEAD and CBC suites (RFC 5246 §6.3,
//! §7.4.9, §8.1; RFC 7627 §4; RFC 4279 §2).

use crate::accounting::CryptoOps;
use crate::crypto::prf::prf_sha256;
use crate::crypto::suite::Secret;
use zeroize::Zeroize;

/// The PSK premaster secret: uint16 N, N zero bytes, uint16 N, the PSK.
pub fn psk_premaster(psk: &[u8]) -> Secret {
    let n = (psk.len() as u16).to_be_bytes();
    let mut v = Vec::with_capacity(4 + 2 * psk.len());
    v.extend_from_slice(&n);
    v.resize(2 + psk.len(), 0);
    v.extend_from_slice(&n);
    v.extend_from_slice(psk);
    Secret(v)
}

/// How the master secret is bound to the handshake.
#[derive(Clone, Copy, Debug)]
pub enum MasterSecretInput<'a> {
    /// RFC 7627: the hash of the transcript through ClientKeyExchange.
    Extended {
        /// session_hash
        session_hash: &'a [u8; 32],
    },
    /// RFC 5246: the two randoms.
    Classic {
        /// ClientHello.random
        client_random: &'a [u8; 32],
        /// ServerHello.random
        server_random: &'a [u8; 32],
    },
}

/// The 48-byte master secret.
pub fn master_secret(pms: &Secret, input: MasterSecretInput<'_>, ops: &mut CryptoOps) -> Secret {
    let mut ms = vec![0u8; 48];
    match input {
        MasterSecretInput::Extended { session_hash } => prf_sha256(
            &pms.0,
            b"extended master secret",
            &[session_hash],
            &mut ms,
            ops,
        ),
        MasterSecretInput::Classic {
            client_random,
            server_random,
        } => prf_sha256(
            &pms.0,
            b"master secret",
            &[client_random, server_random],
            &mut ms,
            ops,
        ),
    }
    Secret(ms)
}

/// MAC keys, write keys and implicit IVs (salts) of both directions.
pub struct KeyBlock {
    /// client_write_MAC_key (empty for AEAD suites)
    pub client_mac_key: Secret,
    /// server_write_MAC_key (empty for AEAD suites)
    pub server_mac_key: Secret,
    /// client_write_key
    pub client_key: [u8; 16],
    /// server_write_key
    pub server_key: [u8; 16],
    /// client_write_IV (AEAD salt; zero for CBC suites, whose IVs are
    /// explicit per record)
    pub client_iv: [u8; 4],
    /// server_write_IV (AEAD salt; zero for CBC suites)
    pub server_iv: [u8; 4],
}

impl Drop for KeyBlock {
    fn drop(&mut self) {
        self.client_key.zeroize();
        self.server_key.zeroize();
        self.client_iv.zeroize();
        self.server_iv.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for KeyBlock {}

impl core::fmt::Debug for KeyBlock {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "KeyBlock([redacted])")
    }
}

/// key_block = PRF(master_secret, "key expansion", server_random ||
/// client_random), split as client_write_MAC_key, server_write_MAC_key,
/// client_write_key, server_write_key, client_write_IV, server_write_IV
/// (RFC 5246 §6.3) with `mac_key_len` (0 for AEAD suites) and
/// `fixed_iv_len` (4 for AEAD suites, 0 for CBC, at most 4) bytes; the
/// encryption keys are 16 bytes.
pub fn key_block(
    ms: &Secret,
    client_random: &[u8; 32],
    server_random: &[u8; 32],
    mac_key_len: usize,
    fixed_iv_len: usize,
    ops: &mut CryptoOps,
) -> KeyBlock {
    let fixed_iv_len = fixed_iv_len.min(4);
    let mut kb = vec![0u8; 2 * (mac_key_len + 16 + fixed_iv_len)];
    prf_sha256(
        &ms.0,
        b"key expansion",
        &[server_random, client_random],
        &mut kb,
        ops,
    );
    let mut k = KeyBlock {
        client_mac_key: Secret(kb[..mac_key_len].to_vec()),
        server_mac_key: Secret(kb[mac_key_len..2 * mac_key_len].to_vec()),
        client_key: [0; 16],
        server_key: [0; 16],
        client_iv: [0; 4],
        server_iv: [0; 4],
    };
    let o = 2 * mac_key_len;
    k.client_key.copy_from_slice(&kb[o..o + 16]);
    k.server_key.copy_from_slice(&kb[o + 16..o + 32]);
    let o = o + 32;
    k.client_iv[..fixed_iv_len].copy_from_slice(&kb[o..o + fixed_iv_len]);
    k.server_iv[..fixed_iv_len].copy_from_slice(&kb[o + fixed_iv_len..o + 2 * fixed_iv_len]);
    kb.zeroize();
    k
}

/// Finished.verify_data = PRF(master_secret, label, Hash(handshake))[0..12].
pub fn verify_data(
    ms: &Secret,
    label: &[u8],
    transcript_hash: &[u8; 32],
    ops: &mut CryptoOps,
) -> [u8; 12] {
    let mut v = [0u8; 12];
    prf_sha256(&ms.0, label, &[transcript_hash], &mut v, ops);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psk_premaster_layout() {
        let p = psk_premaster(&[0xAA; 3]);
        assert_eq!(p.0, vec![0, 3, 0, 0, 0, 0, 3, 0xAA, 0xAA, 0xAA]);
    }

    #[test]
    fn extended_and_classic_differ() {
        let mut ops = CryptoOps::default();
        let pms = psk_premaster(&[1; 16]);
        let a = master_secret(
            &pms,
            MasterSecretInput::Extended {
                session_hash: &[2; 32],
            },
            &mut ops,
        );
        let b = master_secret(
            &pms,
            MasterSecretInput::Classic {
                client_random: &[2; 32],
                server_random: &[3; 32],
            },
            &mut ops,
        );
        assert_eq!(a.0.len(), 48);
        assert_ne!(a, b);
        let kb = key_block(&a, &[1; 32], &[2; 32], 0, 4, &mut ops);
        assert_ne!(kb.client_key, kb.server_key);
        assert!(kb.client_mac_key.0.is_empty());
        assert!(!format!("{kb:?}").contains('1'));
        // CBC-SHA: 20 + 20 + 16 + 16 bytes, no fixed IV; the AEAD block's
        // first 32 bytes are the CBC block's MAC keys and so on (one PRF
        // stream).
        let cbc = key_block(&a, &[1; 32], &[2; 32], 20, 0, &mut ops);
        assert_eq!(cbc.client_mac_key.0.len(), 20);
        assert_eq!(cbc.client_mac_key.0[..16], kb.client_key);
        assert_eq!(cbc.server_mac_key.0.len(), 20);
        assert_eq!(cbc.client_iv, [0; 4]);
        assert_ne!(cbc.client_key, cbc.server_key);
    }
}
