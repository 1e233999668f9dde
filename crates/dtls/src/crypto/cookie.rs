//! Stateless HelloVerifyRequest cookies (RFC 6347 §4.2.1): a truncated
//! HMAC-SHA256 over the client's address and the ClientHello fields that
//! must not change between the two hellos, keyed by a secret that rotates.
//! A cookie made with the previous secret stays valid for one period.

use std::net::SocketAddr;

use rand_core::CryptoRng;

use super::prf::hmac_sha256;
use crate::accounting::CryptoOps;
use crate::Instant;

/// Cookie maker/checker with a rotating secret.
pub struct CookieGenerator {
    current: [u8; 32],
    previous: [u8; 32],
    rotated_at: Instant,
    period_us: u64,
    len: usize,
}

impl Drop for CookieGenerator {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.current);
        zeroize::Zeroize::zeroize(&mut self.previous);
    }
}

impl zeroize::ZeroizeOnDrop for CookieGenerator {}

impl core::fmt::Debug for CookieGenerator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CookieGenerator")
            .field("len", &self.len)
            .field("period_us", &self.period_us)
            .finish_non_exhaustive()
    }
}

/// Encode an address for the MAC (family tag, IP bytes, port).
fn addr_bytes(a: &SocketAddr) -> Vec<u8> {
    let mut v = Vec::with_capacity(19);
    match a {
        SocketAddr::V4(a) => {
            v.push(4);
            v.extend_from_slice(&a.ip().octets());
        }
        SocketAddr::V6(a) => {
            v.push(6);
            v.extend_from_slice(&a.ip().octets());
        }
    }
    v.extend_from_slice(&a.port().to_be_bytes());
    v
}

impl CookieGenerator {
    /// New generator; `len` is clamped to 1..=32.
    pub fn new<R: CryptoRng + ?Sized>(
        rng: &mut R,
        now: Instant,
        period_us: u64,
        len: usize,
    ) -> Self {
        let mut current = [0u8; 32];
        let mut previous = [0u8; 32];
        rng.fill_bytes(&mut current);
        rng.fill_bytes(&mut previous);
        CookieGenerator {
            current,
            previous,
            rotated_at: now,
            period_us: period_us.max(1),
            len: len.clamp(1, 32),
        }
    }

    /// Rotate the secret if a period has passed.
    pub fn maybe_rotate<R: CryptoRng + ?Sized>(&mut self, rng: &mut R, now: Instant) {
        if now.saturating_sub(self.rotated_at) >= self.period_us {
            self.previous = self.current;
            rng.fill_bytes(&mut self.current);
            self.rotated_at = now;
        }
    }

    fn mac(&self, key: &[u8; 32], peer: &SocketAddr, hello: &[u8], ops: &mut CryptoOps) -> Vec<u8> {
        let a = addr_bytes(peer);
        hmac_sha256(key, &[&a, hello], ops)[..self.len].to_vec()
    }

    /// The cookie for this peer and hello binding.
    pub fn make(&self, peer: &SocketAddr, hello: &[u8], ops: &mut CryptoOps) -> Vec<u8> {
        self.mac(&self.current, peer, hello, ops)
    }

    /// Is `cookie` valid for this peer and hello binding?
    pub fn verify(
        &self,
        peer: &SocketAddr,
        hello: &[u8],
        cookie: &[u8],
        ops: &mut CryptoOps,
    ) -> bool {
        if cookie.len() != self.len {
            return false;
        }
        ct_eq(&self.mac(&self.current, peer, hello, ops), cookie)
            || ct_eq(&self.mac(&self.previous, peer, hello, ops), cookie)
    }
}

/// Constant-time equality of equal-length slices.
pub(crate) fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn cookies_bind_address_and_hello_and_rotate() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let mut ops = CryptoOps::default();
        let mut g = CookieGenerator::new(&mut rng, 0, 1_000, 16);
        let a: SocketAddr = "10.0.0.1:5684".parse().unwrap();
        let b: SocketAddr = "10.0.0.1:5685".parse().unwrap();
        let c = g.make(&a, b"hello", &mut ops);
        assert_eq!(c.len(), 16);
        assert!(g.verify(&a, b"hello", &c, &mut ops));
        assert!(!g.verify(&b, b"hello", &c, &mut ops), "other port");
        assert!(!g.verify(&a, b"hellO", &c, &mut ops), "other hello");
        assert!(!g.verify(&a, b"hello", &c[..15], &mut ops), "truncated");
        g.maybe_rotate(&mut rng, 999);
        assert!(g.verify(&a, b"hello", &c, &mut ops), "same period");
        g.maybe_rotate(&mut rng, 1_000);
        assert!(
            g.verify(&a, b"hello", &c, &mut ops),
            "previous secret still accepted"
        );
        g.maybe_rotate(&mut rng, 2_000);
        assert!(
            !g.verify(&a, b"hello", &c, &mut ops),
            "two rotations later: refused"
        );
        assert!(ops.sha256_compressions > 0);
    }
}
