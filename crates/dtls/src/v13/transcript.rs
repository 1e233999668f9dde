//! The TLS 1.3 transcript hash (RFC 8446 §4.4.1) as DTLS 1.3 computes it:
//! over the TLS-style handshake messages, without DTLS's message_seq and
//! fragment fields (RFC 9147 §5.2), and with the first ClientHello replaced
//! by a synthetic message_hash after a HelloRetryRequest.

use sha2::{Digest, Sha256, Sha384};

use super::suite::HashAlg;
use crate::accounting::CryptoOps;

/// HandshakeType message_hash (RFC 8446 §4).
const MESSAGE_HASH: u8 = 254;

#[derive(Clone)]
enum Running {
    Sha256(Sha256),
    Sha384(Sha384),
}

/// A running transcript hash.
#[derive(Clone)]
pub struct Transcript13 {
    running: Running,
    /// Bytes hashed so far (SHA-256 compressions are counted from it).
    len: u64,
}

impl core::fmt::Debug for Transcript13 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Transcript13({:?}, {} bytes)", self.hash(), self.len)
    }
}

impl Transcript13 {
    /// Empty transcript with `hash`.
    pub fn new(hash: HashAlg) -> Self {
        let running = match hash {
            HashAlg::Sha256 => Running::Sha256(Sha256::new()),
            HashAlg::Sha384 => Running::Sha384(Sha384::new()),
        };
        Transcript13 { running, len: 0 }
    }

    /// The hash function.
    pub fn hash(&self) -> HashAlg {
        match self.running {
            Running::Sha256(_) => HashAlg::Sha256,
            Running::Sha384(_) => HashAlg::Sha384,
        }
    }

    /// Add one handshake message in its TLS form: `msg_type || uint24
    /// length || body`.
    pub fn add_message(&mut self, msg_type: u8, body: &[u8], ops: &mut CryptoOps) {
        let len = (body.len() as u32).to_be_bytes();
        self.update(&[msg_type, len[1], len[2], len[3]], ops);
        self.update(body, ops);
    }

    /// Add the start of a handshake message whose body is `total_len` long:
    /// its TLS header and `prefix` of the body. The PSK binder is computed
    /// over a ClientHello truncated before the binders this way (RFC 8446
    /// §4.2.11.2).
    pub fn add_message_prefix(
        &mut self,
        msg_type: u8,
        total_len: usize,
        prefix: &[u8],
        ops: &mut CryptoOps,
    ) {
        let len = (total_len as u32).to_be_bytes();
        self.update(&[msg_type, len[1], len[2], len[3]], ops);
        self.update(prefix, ops);
    }

    fn update(&mut self, data: &[u8], ops: &mut CryptoOps) {
        // a compression runs each time a block fills
        let after = self.len + data.len() as u64;
        match self.running {
            Running::Sha256(_) => ops.sha256_compressions += after / 64 - self.len / 64,
            Running::Sha384(_) => ops.sha512_compressions += after / 128 - self.len / 128,
        }
        self.len += data.len() as u64;
        match &mut self.running {
            Running::Sha256(h) => h.update(data),
            Running::Sha384(h) => h.update(data),
        }
    }

    /// Hash of everything so far (the transcript continues).
    pub fn current(&self, ops: &mut CryptoOps) -> Vec<u8> {
        match &self.running {
            Running::Sha256(h) => {
                ops.sha256_compressions += ((self.len % 64) + 9).div_ceil(64);
                h.clone().finalize().to_vec()
            }
            Running::Sha384(h) => {
                ops.sha512_compressions += ((self.len % 128) + 17).div_ceil(128);
                h.clone().finalize().to_vec()
            }
        }
    }

    /// The transcript a stateless server rebuilds from its cookie after a
    /// HelloRetryRequest: `message_hash || 00 00 Hash.length ||
    /// Hash(ClientHello1)` (RFC 8446 §4.4.1).
    pub fn after_retry(hash: HashAlg, hash_ch1: &[u8], ops: &mut CryptoOps) -> Self {
        let mut t = Transcript13::new(hash);
        t.add_message(MESSAGE_HASH, hash_ch1, ops);
        t
    }

    /// After a HelloRetryRequest: restart the transcript as
    /// `message_hash(254) || 00 00 Hash.length || Hash(ClientHello1)`
    /// (RFC 8446 §4.4.1). Call it after adding ClientHello1 and before
    /// adding the HelloRetryRequest.
    pub fn replace_with_message_hash(&mut self, ops: &mut CryptoOps) {
        let hash_ch1 = self.current(ops);
        *self = Transcript13::new(self.hash());
        self.add_message(MESSAGE_HASH, &hash_ch1, ops);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_framing_and_hrr_restart() {
        let mut ops = CryptoOps::default();
        let mut t = Transcript13::new(HashAlg::Sha256);
        t.add_message(1, b"hello", &mut ops);
        let direct = Sha256::digest([1, 0, 0, 5, b'h', b'e', b'l', b'l', b'o']);
        assert_eq!(t.current(&mut ops), direct.to_vec());

        t.replace_with_message_hash(&mut ops);
        let mut synthetic = vec![254, 0, 0, 32];
        synthetic.extend_from_slice(&direct);
        assert_eq!(t.current(&mut ops), Sha256::digest(&synthetic).to_vec());
        assert!(ops.sha256_compressions >= 3);

        let mut t = Transcript13::new(HashAlg::Sha384);
        t.add_message(1, b"hello", &mut ops);
        t.replace_with_message_hash(&mut ops);
        let h1 = Sha384::digest([1, 0, 0, 5, b'h', b'e', b'l', b'l', b'o']);
        let mut synthetic = vec![254, 0, 0, 48];
        synthetic.extend_from_slice(&h1);
        assert_eq!(t.current(&mut ops), Sha384::digest(&synthetic).to_vec());
    }

    #[test]
    fn sha384_work_is_counted_in_128_byte_blocks() {
        let mut ops = CryptoOps::default();
        let mut t = Transcript13::new(HashAlg::Sha384);
        // 4 + 200 bytes: one block fills on the way in
        t.add_message(1, &[7; 200], &mut ops);
        assert_eq!(ops.sha512_compressions, 1);
        // 76 bytes left + 17 of padding and length fit one more block
        t.current(&mut ops);
        assert_eq!(ops.sha512_compressions, 2);
        assert_eq!(ops.sha256_compressions, 0);
        // 120 bytes left: padding spills into a second block
        let mut t = Transcript13::new(HashAlg::Sha384);
        t.add_message(1, &[7; 116], &mut ops);
        t.current(&mut ops);
        assert_eq!(ops.sha512_compressions, 4);
    }
}
