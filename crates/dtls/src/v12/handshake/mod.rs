//! DTLS 1.2 handshake: message codec, session resumption, and the client
//! and server state machines (as `impl Connection` blocks).

pub mod client;
pub mod messages;
pub mod resumption;
pub mod server;

pub use crate::handshake_type::HandshakeType;

use crate::cert::leaf_public_key;
use crate::cert::CertificateVerifier;
use crate::crypto::suite::Secret;
use crate::crypto::Transcript;
use crate::error::Error;
use crate::error::{CertificateError, InternalError};
use crate::v12::record::RecordKeys;
use messages::CertificateType;

/// Which message the state machine waits for next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    // client
    ServerHello,
    ServerCertificate,
    ServerKeyExchange,
    ServerHelloDone,
    ServerFinished,
    // server
    ClientHello,
    ClientCertificate,
    ClientKeyExchange,
    CertificateVerify,
    ClientFinished,
}

/// State that exists only while a handshake runs (freed when it completes).
pub(crate) struct HandshakeState {
    pub(crate) step: Step,
    pub(crate) client_random: [u8; 32],
    pub(crate) server_random: [u8; 32],
    pub(crate) transcript: Transcript,
    pub(crate) master_secret: Option<Secret>,
    pub(crate) extended_master_secret: bool,
    pub(crate) pending_read_keys: Option<RecordKeys>,
    /// Client: the hello as last sent (resent with a cookie after a
    /// HelloVerifyRequest; hashed into the transcript when the ServerHello
    /// arrives).
    pub(crate) client_hello: Option<messages::ClientHello>,
    pub(crate) client_hello_seq: u16,
    pub(crate) hello_verify_count: u8,
    pub(crate) psk_identity_hint: Option<Vec<u8>>,
    /// Our ephemeral ECDH key (ECDHE suites).
    pub(crate) ecdhe: Option<p256::ecdh::EphemeralSecret>,
    /// Peer's ephemeral public point (client side: the server's).
    pub(crate) peer_ecdhe_public: Option<Vec<u8>>,
    /// Peer's certificate public key (SEC1 point).
    pub(crate) peer_public_key: Option<Vec<u8>>,
    /// What the server's and the client's Certificate carry (RFC 7250:
    /// X.509 unless the hellos agreed on raw public keys).
    pub(crate) server_certificate_type: CertificateType,
    pub(crate) client_certificate_type: CertificateType,
    /// Client: the server asked for a certificate. Server: we asked.
    pub(crate) certificate_requested: bool,
    /// The session this handshake tries to resume (client: the one it
    /// offered; server: the cached one the hello's ID names).
    pub(crate) resuming: Option<resumption::ResumableSession>,
    /// The abbreviated handshake is under way (the ID was accepted).
    pub(crate) abbreviated: bool,
    /// Server: the ID a full handshake gives its new session (empty: the
    /// server keeps no sessions to resume).
    pub(crate) new_session_id: Vec<u8>,
    /// Seed of the generator for this handshake's ephemeral keys or CBC
    /// record IVs (drawn from the caller's RNG when the connection was
    /// created).
    pub(crate) rng_seed: Option<[u8; 32]>,
}

impl Drop for HandshakeState {
    fn drop(&mut self) {
        if let Some(seed) = self.rng_seed.as_mut() {
            zeroize::Zeroize::zeroize(seed);
        }
    }
}

impl HandshakeState {
    pub(crate) fn new(step: Step) -> Self {
        HandshakeState {
            step,
            client_random: [0; 32],
            server_random: [0; 32],
            transcript: Transcript::new(),
            master_secret: None,
            extended_master_secret: false,
            pending_read_keys: None,
            client_hello: None,
            client_hello_seq: 0,
            hello_verify_count: 0,
            psk_identity_hint: None,
            ecdhe: None,
            peer_ecdhe_public: None,
            peer_public_key: None,
            server_certificate_type: CertificateType::X509,
            client_certificate_type: CertificateType::X509,
            certificate_requested: false,
            resuming: None,
            abbreviated: false,
            new_session_id: Vec::new(),
            rng_seed: None,
        }
    }

    /// The generator for ephemeral keys (usable once).
    pub(crate) fn rng(&mut self) -> Result<rand_chacha::ChaCha20Rng, crate::Error> {
        use rand_core::SeedableRng;
        let seed = self
            .rng_seed
            .take()
            .ok_or(crate::Error::Internal(InternalError::NoRngSeed))?;
        Ok(rand_chacha::ChaCha20Rng::from_seed(seed))
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        let mut n = core::mem::size_of::<Self>();
        if let Some(ch) = &self.client_hello {
            n += ch.session_id.capacity()
                + ch.cookie.capacity()
                + ch.cipher_suites.capacity() * 2
                + ch.compression_methods.capacity()
                + ch.extensions
                    .iter()
                    .map(|e| e.data.capacity() + core::mem::size_of::<messages::Extension>())
                    .sum::<usize>();
        }
        n += self.master_secret.as_ref().map_or(0, |s| s.0.capacity());
        n += self
            .pending_read_keys
            .as_ref()
            .map_or(0, RecordKeys::heap_bytes);
        n += self.psk_identity_hint.as_ref().map_or(0, Vec::capacity);
        n += self.peer_ecdhe_public.as_ref().map_or(0, Vec::capacity);
        n += self.peer_public_key.as_ref().map_or(0, Vec::capacity);
        n
    }
}

/// The peer's public point from its Certificate body of type `t`, the leaf
/// accepted by `verifier` (None: any).
pub(crate) fn peer_public_key(
    t: CertificateType,
    body: &[u8],
    verifier: Option<&CertificateVerifier>,
) -> Result<Vec<u8>, Error> {
    let chain = messages::parse_certificate_as(t, body)?;
    let leaf = chain
        .first()
        .ok_or(Error::BadCertificate(CertificateError::NoCertificate))?;
    if let Some(v) = verifier {
        v.accept(leaf)?;
    }
    leaf_public_key(t, leaf)
}
