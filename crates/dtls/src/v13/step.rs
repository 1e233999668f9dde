//! What a handshake step reads and writes: the message it is handed and
//! the context it works in (operation counters, randomness) and fills
//! (messages of this side's next flight, keys to install, completion). The
//! connection applies the result; the steps never touch records or timers.

use rand_chacha::ChaCha20Rng;

use super::key_schedule::{Hkdf13, MasterSecret, Secret13};
use super::protection::EpochKeys;
use super::suite::CipherSuite13;
use super::transcript::Transcript13;
use crate::accounting::CryptoOps;

/// HandshakeType values of DTLS 1.3 (RFC 8446 §4).
pub(crate) mod msg_type {
    pub const CLIENT_HELLO: u8 = 1;
    pub const SERVER_HELLO: u8 = 2;
    pub const ENCRYPTED_EXTENSIONS: u8 = 8;
    pub const CERTIFICATE: u8 = 11;
    pub const CERTIFICATE_REQUEST: u8 = 13;
    pub const CERTIFICATE_VERIFY: u8 = 15;
    pub const FINISHED: u8 = 20;
    /// RFC 8446 §4.6.3, RFC 9147 §8.
    pub const KEY_UPDATE: u8 = 24;
    /// RFC 8446 §4.6.1.
    pub const NEW_SESSION_TICKET: u8 = 4;
}

/// Epochs (RFC 9147 §6.1).
pub(crate) mod epoch {
    pub const PLAINTEXT: u64 = 0;
    pub const HANDSHAKE: u64 = 2;
    pub const APPLICATION: u64 = 3;
}

/// May a handshake message of `msg_type` travel in `epoch`? ClientHello
/// and ServerHello (HelloRetryRequest included) in plaintext epoch 0 only,
/// every other message protected (RFC 9147 §6.1). Refusing the rest stops
/// an off-path sender from injecting plaintext pieces of protected
/// messages.
pub(crate) fn allowed_in_epoch(msg_type: u8, epoch: u64) -> bool {
    let hello = matches!(msg_type, msg_type::CLIENT_HELLO | msg_type::SERVER_HELLO);
    hello == (epoch == epoch::PLAINTEXT)
}

/// A complete handshake message as reassembled.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Message<'a> {
    pub msg_type: u8,
    pub seq: u16,
    pub body: &'a [u8],
}

/// Keys a step hands to the record layer.
#[derive(Debug)]
pub(crate) enum KeyChange {
    Read(EpochKeys),
    Write(EpochKeys),
}

/// The application traffic secrets of both directions (RFC 8446 §7.1),
/// from which KeyUpdate derives the next epochs' keys (§7.2).
pub(crate) struct AppSecrets {
    pub hkdf: Hkdf13,
    pub suite: CipherSuite13,
    /// This side's sending secret.
    pub write: Secret13,
    /// The peer's.
    pub read: Secret13,
}

impl core::fmt::Debug for AppSecrets {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AppSecrets").finish_non_exhaustive()
    }
}

/// What a client keeps to turn a NewSessionTicket into a PSK: the master
/// secret and the transcript before its Finished (RFC 8446 §7.1:
/// resumption_master_secret covers ClientHello...client Finished), derived
/// only when a ticket comes, so a client that gets none does no more work.
pub(crate) struct PendingResumption {
    pub suite: CipherSuite13,
    pub master: MasterSecret,
    pub transcript: Transcript13,
    pub client_finished: Vec<u8>,
}

impl PendingResumption {
    /// The schedule's primitives.
    pub fn master_hkdf(&self) -> Hkdf13 {
        self.master.hkdf()
    }

    /// resumption_master_secret (RFC 8446 §7.1).
    pub fn resumption_master_secret(&self, ops: &mut CryptoOps) -> Secret13 {
        let mut t = self.transcript.clone();
        t.add_message(msg_type::FINISHED, &self.client_finished, ops);
        self.master.resumption_master_secret(&t.current(ops), ops)
    }
}

impl core::fmt::Debug for PendingResumption {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PendingResumption").finish_non_exhaustive()
    }
}

/// The context of one step.
pub(crate) struct Cx<'a> {
    pub ops: &'a mut CryptoOps,
    pub rng: &'a mut ChaCha20Rng,
    /// The connection's time (a ticket's issue and expiry).
    pub now: crate::Instant,
    /// Messages of this side's next flight: (type, epoch, body).
    pub send: Vec<(u8, u64, Vec<u8>)>,
    pub keys: Vec<KeyChange>,
    /// The next message_seq to send (a stateless server answers with the
    /// ClientHello's message_seq, RFC 9147 §5.2).
    pub next_message_seq: Option<u16>,
    /// The suite, once chosen.
    pub suite: Option<CipherSuite13>,
    /// The connection IDs just negotiated: (the peer's, to send; ours, to
    /// receive); an empty one is not sent.
    pub cids: Option<(Vec<u8>, Vec<u8>)>,
    /// The handshake completed.
    pub connected: bool,
    /// The application traffic secrets, once derived.
    pub app_secrets: Option<AppSecrets>,
    /// A server's NewSessionTicket body, sent once the handshake completed.
    pub ticket: Option<Vec<u8>>,
    /// A client's means to take a ticket, once its Finished is sent.
    pub resumption: Option<PendingResumption>,
    /// The handshake resumed a session (a ticket's PSK was selected).
    pub resumed: bool,
}

impl<'a> Cx<'a> {
    pub fn new(ops: &'a mut CryptoOps, rng: &'a mut ChaCha20Rng) -> Self {
        Cx {
            ops,
            rng,
            now: 0,
            send: Vec::new(),
            keys: Vec::new(),
            next_message_seq: None,
            suite: None,
            cids: None,
            connected: false,
            app_secrets: None,
            ticket: None,
            resumption: None,
            resumed: false,
        }
    }

    /// Record keys of `epoch` from a traffic secret (RFC 8446 §7.3).
    pub fn epoch_keys(
        &mut self,
        hkdf: Hkdf13,
        suite: CipherSuite13,
        epoch: u64,
        secret: &Secret13,
    ) -> EpochKeys {
        let tk = hkdf.traffic_keys(secret, suite, self.ops);
        EpochKeys::new(epoch, suite, &tk, self.ops)
    }
}
