//! (EC)DHE key shares of the psk_dhe_ke mode (RFC 8446 §4.2.8): x25519
//! (RFC 7748, RustCrypto-adjacent `x25519-dalek`) and secp256r1 (the crate's
//! P-256 ECDH). One private share per offered group, used once.

use rand_core::CryptoRng;
use x25519_dalek::{PublicKey as XPublic, StaticSecret};

use crate::accounting::CryptoOps;
use crate::crypto::ecc;
use crate::crypto::suite::Secret;
use crate::error::v13::HandshakeError13;

/// A named group (RFC 8446 §4.2.7) this stack can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NamedGroup {
    /// x25519 (0x001D): 32-byte shares (RFC 8446 §4.2.8.2).
    X25519,
    /// secp256r1 (0x0017): 65-byte uncompressed points (RFC 8446 §4.2.8.2).
    Secp256r1,
}

impl NamedGroup {
    /// IANA value.
    pub fn id(self) -> u16 {
        match self {
            NamedGroup::X25519 => 0x001D,
            NamedGroup::Secp256r1 => 0x0017,
        }
    }

    /// From the IANA value; `None` for groups not implemented here.
    pub fn from_id(id: u16) -> Option<Self> {
        [NamedGroup::X25519, NamedGroup::Secp256r1]
            .into_iter()
            .find(|g| g.id() == id)
    }
}

/// The private half of one key share.
pub(crate) enum PrivateShare {
    X25519(StaticSecret),
    Secp256r1(p256::ecdh::EphemeralSecret),
}

impl core::fmt::Debug for PrivateShare {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PrivateShare({:?}, [redacted])", self.group())
    }
}

impl PrivateShare {
    /// A fresh share and its public `key_exchange` bytes. Each costs one
    /// scalar multiplication (counted as one ECDH operation, as the P-256
    /// key generation of DTLS 1.2 is).
    pub(crate) fn generate<R: CryptoRng + ?Sized>(
        group: NamedGroup,
        rng: &mut R,
        ops: &mut CryptoOps,
    ) -> (Self, Vec<u8>) {
        match group {
            NamedGroup::X25519 => {
                let mut scalar = [0u8; 32];
                rng.fill_bytes(&mut scalar);
                let secret = StaticSecret::from(scalar);
                zeroize::Zeroize::zeroize(&mut scalar);
                ops.ecdh_ops += 1;
                let public = XPublic::from(&secret).as_bytes().to_vec();
                (PrivateShare::X25519(secret), public)
            }
            NamedGroup::Secp256r1 => {
                let (secret, public) = ecc::ephemeral(rng, ops);
                (PrivateShare::Secp256r1(secret), public)
            }
        }
    }

    pub(crate) fn group(&self) -> NamedGroup {
        match self {
            PrivateShare::X25519(_) => NamedGroup::X25519,
            PrivateShare::Secp256r1(_) => NamedGroup::Secp256r1,
        }
    }

    /// The shared secret with the peer's `key_exchange`; a malformed share
    /// or an all-zero x25519 result is refused (RFC 8446 §4.2.8.2, §7.4.2).
    pub(crate) fn agree(
        &self,
        peer: &[u8],
        ops: &mut CryptoOps,
    ) -> Result<Secret, HandshakeError13> {
        match self {
            PrivateShare::X25519(secret) => {
                let peer: [u8; 32] = peer.try_into().map_err(|_| HandshakeError13::BadKeyShare)?;
                ops.ecdh_ops += 1;
                let shared = secret.diffie_hellman(&XPublic::from(peer));
                if !shared.was_contributory() {
                    return Err(HandshakeError13::BadKeyShare);
                }
                Ok(Secret(shared.as_bytes().to_vec()))
            }
            PrivateShare::Secp256r1(secret) => {
                if peer.len() != 65 {
                    return Err(HandshakeError13::BadKeyShare);
                }
                ecc::ecdh(secret, peer, ops).map_err(|_| HandshakeError13::BadKeyShare)
            }
        }
    }
}
