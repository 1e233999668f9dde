//! The platform's price of each counted cryptographic operation: AES-256
//! blocks and SHA-512 compressions (TLS_AES_256_GCM_SHA384) at their own
//! figures, not at AES-128's and SHA-256's.

use dtls::CryptoOps;
use sim::node::cpu::{CryptoCost, Curve25519Cost};

const COST: CryptoCost = CryptoCost {
    aes_block_us: 10.0,
    aes256_block_us: 14.0,
    sha256_block_us: 100.0,
    sha512_block_us: 250.0,
    ecdh_us: 1e6,
    ecdsa_sign_us: 2e6,
    ecdsa_verify_us: 3e6,
    curve25519: Curve25519Cost {
        x25519_us: 4e6,
        ed25519_sign_us: 5e6,
        ed25519_verify_us: 6e6,
    },
};

#[test]
fn every_counter_is_charged_at_its_own_figure() {
    let one = |f: fn(&mut CryptoOps)| {
        let mut o = CryptoOps::default();
        f(&mut o);
        COST.of(&o)
    };
    assert_eq!(one(|o| o.aes_blocks = 3), 30);
    assert_eq!(one(|o| o.aes256_blocks = 3), 42);
    assert_eq!(one(|o| o.sha256_compressions = 2), 200);
    // SHA-1 is charged as SHA-256 (the platform files give SHA-256 only)
    assert_eq!(one(|o| o.sha1_compressions = 2), 200);
    assert_eq!(one(|o| o.sha512_compressions = 2), 500);
    assert_eq!(one(|o| o.ecdh_ops = 1), 1_000_000);
    assert_eq!(one(|o| o.ecdsa_signs = 1), 2_000_000);
    assert_eq!(one(|o| o.ecdsa_verifies = 1), 3_000_000);
}
