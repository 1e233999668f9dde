//! The stateless HelloRetryRequest cookie (RFC 9147 §5.1, RFC 8446
//! §4.2.2): everything the server needs to rebuild the transcript after the
//! first ClientHello travels in the cookie, under a MAC bound to the peer's
//! address, so the server keeps nothing between the HelloRetryRequest and
//! the second ClientHello.
//!
//! Layout: `suite (2) || group (2; 0: none) || Hash(ClientHello1) || MAC`,
//! the MAC (HMAC-SHA256 with a rotating secret, [`CookieGenerator`])
//! covering the address and everything before it.

use std::net::SocketAddr;

use super::key_exchange::NamedGroup;
use super::suite::CipherSuite13;
use crate::accounting::CryptoOps;
use crate::crypto::CookieGenerator;

/// What a HelloRetryRequest decided, carried in its cookie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HrrCookie {
    pub suite: CipherSuite13,
    pub group: Option<NamedGroup>,
    pub hash_ch1: Vec<u8>,
}

impl HrrCookie {
    fn payload(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(4 + self.hash_ch1.len());
        p.extend_from_slice(&self.suite.id().to_be_bytes());
        p.extend_from_slice(&self.group.map_or(0, NamedGroup::id).to_be_bytes());
        p.extend_from_slice(&self.hash_ch1);
        p
    }

    /// The cookie bytes.
    pub fn seal(&self, gen: &CookieGenerator, peer: &SocketAddr, ops: &mut CryptoOps) -> Vec<u8> {
        let mut c = self.payload();
        let mac = gen.make(peer, &c, ops);
        c.extend_from_slice(&mac);
        c
    }

    /// The decision in `cookie`, if its MAC verifies for `peer`.
    pub fn open(
        gen: &CookieGenerator,
        peer: &SocketAddr,
        cookie: &[u8],
        ops: &mut CryptoOps,
    ) -> Option<Self> {
        let suite =
            CipherSuite13::from_id(u16::from_be_bytes([*cookie.first()?, *cookie.get(1)?]))?;
        let payload_len = 4 + suite.hash().output_len();
        let (payload, mac) = (cookie.get(..payload_len)?, cookie.get(payload_len..)?);
        if !gen.verify(peer, payload, mac, ops) {
            return None;
        }
        let group = match u16::from_be_bytes([payload[2], payload[3]]) {
            0 => None,
            id => Some(NamedGroup::from_id(id)?),
        };
        Some(HrrCookie {
            suite,
            group,
            hash_ch1: payload[4..].to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn round_trip_bound_to_address() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let mut ops = CryptoOps::default();
        let gen = CookieGenerator::new(&mut rng, 0, 1_000_000, 16);
        let a: SocketAddr = "[fe80::1]:5684".parse().unwrap();
        let b: SocketAddr = "[fe80::2]:5684".parse().unwrap();
        let c = HrrCookie {
            suite: CipherSuite13::Aes256GcmSha384,
            group: Some(NamedGroup::Secp256r1),
            hash_ch1: vec![7; 48],
        };
        let bytes = c.seal(&gen, &a, &mut ops);
        assert_eq!(bytes.len(), 4 + 48 + 16);
        assert_eq!(HrrCookie::open(&gen, &a, &bytes, &mut ops), Some(c));
        assert_eq!(HrrCookie::open(&gen, &b, &bytes, &mut ops), None);
        let mut bad = bytes.clone();
        bad[10] ^= 1;
        assert_eq!(HrrCookie::open(&gen, &a, &bad, &mut ops), None);
        assert_eq!(HrrCookie::open(&gen, &a, &bytes[..3], &mut ops), None);
    }
}
