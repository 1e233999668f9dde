//! The DTLS 1.3 client handshake (RFC 8446 §2, RFC 9147 §5) with an
//! external PSK or with (EC)DHE and the server's certificate or raw public
//! key (RFC 7250), one state struct per step, each consumed by its handler:
//!
//! ```text
//! start ─ClientHello→ ExpectServerHello ─HelloRetryRequest→ (ClientHello 2) ExpectServerHello
//!                     ExpectServerHello ─ServerHello→ ExpectEncryptedExtensions
//! PSK:  ─EncryptedExtensions→ ExpectFinished
//! cert: ─EncryptedExtensions→ ExpectCertificate (─CertificateRequest→ ExpectCertificate)
//!       ─Certificate→ ExpectCertificateVerify ─CertificateVerify→ ExpectFinished
//! ExpectFinished ─Finished→ ([Certificate, CertificateVerify,] Finished) connected
//! ```

use crate::error::{CertificateError, ConfigError};
use std::sync::Arc;

use super::auth;
use super::config::ClientConfig13;
use super::key_exchange::{NamedGroup, PrivateShare};
use super::key_schedule::{EarlySecret, HandshakeSecret, Hkdf13, PskKind, TrafficSecrets};
use super::step::{epoch, msg_type, AppSecrets, Cx, KeyChange, Message, PendingResumption};
use super::suite::CipherSuite13;
use super::ticket::Ticket13;
use super::transcript::Transcript13;
use crate::cert;
use crate::cert::CertificateType;
use crate::error::v13::HandshakeError13 as E;
use crate::error::Error;
use crate::v13::certificate::{CertificateRequest, Signer, ECDSA_SECP256R1_SHA256};
use crate::v13::messages::{
    decode_finished, ext, ClientHello, ClientHelloExtensions, EncryptedExtensions, KeyShareEntry,
    OfferedPsks, PskIdentity, PskMode, ServerHello, DTLS1_3, LEGACY_VERSION,
};

/// Where the client handshake stands.
#[derive(Debug)]
pub(crate) enum ClientState {
    ServerHello(ExpectServerHello),
    EncryptedExtensions(ExpectEncryptedExtensions),
    Certificate(ExpectCertificate),
    CertificateVerify(ExpectCertificateVerify),
    Finished(ExpectFinished),
    /// Handshake complete.
    Done,
}

impl ClientState {
    /// Bytes the current step holds on the heap (its configuration is
    /// shared and not counted).
    pub fn heap_bytes(&self) -> usize {
        match self {
            ClientState::ServerHello(s) => {
                s.suites.capacity() * core::mem::size_of::<CipherSuite13>()
                    + s.shares.capacity() * core::mem::size_of::<PrivateShare>()
                    + s.publics.capacity() * core::mem::size_of::<KeyShareEntry>()
                    + s.publics
                        .iter()
                        .map(|p| p.key_exchange.capacity())
                        .sum::<usize>()
                    + s.own_cid.as_ref().map_or(0, Vec::capacity)
            }
            ClientState::CertificateVerify(s) => s.server_key.capacity(),
            ClientState::EncryptedExtensions(_)
            | ClientState::Certificate(_)
            | ClientState::Finished(_)
            | ClientState::Done => 0,
        }
    }

    /// Bytes this step needs in a compact C implementation beyond the
    /// established session: the running transcript hash; before the
    /// ServerHello the early secret, the random (resent after a
    /// HelloRetryRequest), a PSK identity (up to 32 B) and one 32-byte
    /// private key per key share offered; after it the handshake secret
    /// and both handshake traffic secrets (the master secret and the
    /// Finished keys come from them), and, until CertificateVerify, the
    /// server's public key (64 B, an uncompressed P-256 point).
    pub fn compact_bytes(&self) -> usize {
        let secrets = |k: &HandshakeKeys| {
            let h = k.transcript.hash();
            h.compact_context_len() + 3 * h.output_len()
        };
        match self {
            ClientState::ServerHello(s) => {
                let h = s.transcript.hash();
                h.compact_context_len() + h.output_len() + 32 + 32 + 32 * s.shares.len()
            }
            ClientState::EncryptedExtensions(s) => secrets(&s.keys),
            ClientState::Certificate(s) => secrets(&s.keys),
            ClientState::CertificateVerify(s) => secrets(&s.keys) + 64,
            ClientState::Finished(s) => secrets(&s.keys),
            ClientState::Done => 0,
        }
    }

    pub fn handle(self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ClientState, Error> {
        match (self, m.msg_type) {
            (ClientState::ServerHello(s), msg_type::SERVER_HELLO) => s.handle(m, cx),
            (ClientState::EncryptedExtensions(s), msg_type::ENCRYPTED_EXTENSIONS) => {
                s.handle(m, cx)
            }
            (ClientState::Certificate(s), msg_type::CERTIFICATE_REQUEST) => s.request(m, cx),
            (ClientState::Certificate(s), msg_type::CERTIFICATE) => s.handle(m, cx),
            (ClientState::CertificateVerify(s), msg_type::CERTIFICATE_VERIFY) => s.handle(m, cx),
            (ClientState::Finished(s), msg_type::FINISHED) => s.handle(m, cx),
            (_, got) => Err(E::UnexpectedMessage { got }.into()),
        }
    }
}

/// Sent a ClientHello; waiting for ServerHello or HelloRetryRequest.
#[derive(Debug)]
pub(crate) struct ExpectServerHello {
    config: Arc<ClientConfig13>,
    suites: Vec<CipherSuite13>,
    random: [u8; 32],
    shares: Vec<PrivateShare>,
    /// The key_share entries sent (kept for a second ClientHello).
    publics: Vec<KeyShareEntry>,
    /// Through the ClientHello just sent.
    transcript: Transcript13,
    hkdf: Hkdf13,
    /// The PSKs offered, in the order of their identities: a ticket's
    /// first, then the external PSK.
    offers: Vec<Offer>,
    /// The early secret without a PSK, of a certificate-mode client (the
    /// handshake it falls back to when the server takes no ticket).
    no_psk: Option<EarlySecret>,
    retried: bool,
    /// The CID this side asks for, if it offers connection_id.
    own_cid: Option<Vec<u8>>,
}

/// One PSK the ClientHello offers.
#[derive(Debug)]
struct Offer {
    identity: Vec<u8>,
    obfuscated_ticket_age: u32,
    kind: PskKind,
    early: EarlySecret,
}

/// Send the first ClientHello, offering to resume with `resume` (a ticket
/// and its age in ms) if its suite's hash is among the configured suites'.
pub(crate) fn start(
    config: Arc<ClientConfig13>,
    resume: Option<(&Ticket13, u32)>,
    cx: &mut Cx<'_>,
) -> Result<ClientState, Error> {
    config.config.validate()?;
    if config.psk.is_none() && config.config.groups.is_empty() {
        return Err(Error::Config(ConfigError::EcdheWithoutGroup));
    }
    let resume = resume.filter(|(t, _)| {
        let h = t.suite.hash();
        config.config.suites.iter().any(|s| s.hash() == h)
    });
    // a PSK is used with one hash (RFC 8446 §4.2.11): the ticket's, else
    // the first suite's; offer only the suites that share it (so the
    // transcript hash is known from the first ClientHello on, with a PSK
    // or without)
    let hash = resume.map_or(config.config.suites[0].hash(), |(t, _)| t.suite.hash());
    let suites: Vec<CipherSuite13> = config
        .config
        .suites
        .iter()
        .copied()
        .filter(|s| s.hash() == hash)
        .collect();
    let mut random = [0u8; 32];
    rand_core::Rng::fill_bytes(cx.rng, &mut random);
    let hkdf = Hkdf13::dtls(hash);
    let mut offers = Vec::new();
    if let Some((t, age_ms)) = resume {
        offers.push(Offer {
            identity: t.identity.clone(),
            obfuscated_ticket_age: t.obfuscated_age(age_ms),
            kind: PskKind::Resumption,
            early: EarlySecret::new(hkdf, Some(&t.psk.0), cx.ops),
        });
    }
    let no_psk = match &config.psk {
        Some((identity, key)) => {
            offers.push(Offer {
                identity: identity.clone(),
                // external PSKs: 0 (RFC 8446 §4.2.11)
                obfuscated_ticket_age: 0,
                kind: PskKind::External,
                early: EarlySecret::new(hkdf, Some(&key.0), cx.ops),
            });
            None
        }
        None => Some(EarlySecret::new(hkdf, None, cx.ops)),
    };
    let shares = match offers_groups(&config) {
        true => vec![PrivateShare::generate(
            config.config.groups[0],
            cx.rng,
            cx.ops,
        )],
        false => Vec::new(),
    };
    let own_cid = config.config.cid_len.map(|n| {
        let mut cid = vec![0u8; n];
        rand_core::Rng::fill_bytes(cx.rng, &mut cid);
        cid
    });
    let mut s = ExpectServerHello {
        config,
        suites,
        random,
        shares: Vec::new(),
        publics: Vec::new(),
        transcript: Transcript13::new(hash),
        hkdf,
        offers,
        no_psk,
        retried: false,
        own_cid,
    };
    let publics: Vec<KeyShareEntry> = shares
        .iter()
        .map(|(p, public)| KeyShareEntry {
            group: p.group().id(),
            key_exchange: public.clone(),
        })
        .collect();
    s.shares = shares.into_iter().map(|(p, _)| p).collect();
    s.publics = publics.clone();
    s.transcript = s.send_client_hello(Transcript13::new(hash), publics, None, cx);
    Ok(ClientState::ServerHello(s))
}

impl ExpectServerHello {
    /// Build, bind (a binder per PSK offered, over the hello truncated
    /// before the binders, RFC 8446 §4.2.11.2) and queue a ClientHello;
    /// the transcript through it.
    fn send_client_hello(
        &self,
        mut transcript: Transcript13,
        key_shares: Vec<KeyShareEntry>,
        cookie: Option<Vec<u8>>,
        cx: &mut Cx<'_>,
    ) -> Transcript13 {
        let mut ch = match self.config.psk {
            Some(_) => self.psk_client_hello(key_shares, cookie),
            None => self.certificate_client_hello(key_shares, cookie),
        };
        let hkdf = self.hkdf;
        let hash_len = hkdf.hash.output_len();
        if !self.offers.is_empty() {
            ch.extensions.psk_modes = Some(self.config.config.psk_modes.clone());
            ch.extensions.pre_shared_key = Some(OfferedPsks {
                identities: self
                    .offers
                    .iter()
                    .map(|o| PskIdentity {
                        identity: o.identity.clone(),
                        obfuscated_ticket_age: o.obfuscated_ticket_age,
                    })
                    .collect(),
                binders: vec![vec![0; hash_len]; self.offers.len()],
            });
        }
        let mut body = Vec::new();
        ch.encode(&mut body);
        if let Some(p) = &ch.extensions.pre_shared_key {
            let binders_len = p.binders_len();
            let mut partial = transcript.clone();
            partial.add_message_prefix(
                msg_type::CLIENT_HELLO,
                body.len(),
                &body[..body.len() - binders_len],
                cx.ops,
            );
            // each binder: its length byte, then the value
            let mut at = body.len() - binders_len + 2 + 1;
            for o in &self.offers {
                let binder_key = o.early.binder_key(o.kind, cx.ops);
                let finished_key = hkdf.finished_key(&binder_key, cx.ops);
                let binder = hkdf.verify_data(&finished_key, &partial.current(cx.ops), cx.ops);
                body[at..at + hash_len].copy_from_slice(binder.as_bytes());
                at += 1 + hash_len;
            }
        }
        transcript.add_message(msg_type::CLIENT_HELLO, &body, cx.ops);
        cx.send
            .push((msg_type::CLIENT_HELLO, epoch::PLAINTEXT, body));
        transcript
    }

    /// The ClientHello of an external-PSK client: psk_key_exchange_modes,
    /// and supported_groups with a key share when it offers psk_dhe_ke.
    fn psk_client_hello(
        &self,
        key_shares: Vec<KeyShareEntry>,
        cookie: Option<Vec<u8>>,
    ) -> ClientHello {
        let c = &self.config.config;
        let dhe = offers_groups(&self.config);
        ClientHello {
            legacy_version: LEGACY_VERSION,
            random: self.random,
            legacy_session_id: Vec::new(),
            cipher_suites: self.suites.iter().map(|s| s.id()).collect(),
            extensions: ClientHelloExtensions {
                supported_versions: Some(vec![DTLS1_3]),
                supported_groups: dhe.then(|| c.groups.iter().map(|g| g.id()).collect()),
                key_shares: dhe.then_some(key_shares),
                psk_modes: Some(c.psk_modes.clone()),
                cookie,
                connection_id: self.own_cid.clone(),
                ..ClientHelloExtensions::default()
            },
        }
    }

    /// The ClientHello of (EC)DHE with certificates: key_share,
    /// supported_groups, signature_algorithms, the certificate types
    /// (RFC 8446 §2, §4.2.3; RFC 7250 §4.1).
    fn certificate_client_hello(
        &self,
        key_shares: Vec<KeyShareEntry>,
        cookie: Option<Vec<u8>>,
    ) -> ClientHello {
        let c = &self.config.config;
        let mut unknown = Vec::new();
        if c.certificate_types != [CertificateType::X509] {
            unknown.push((
                cert::ext::SERVER_CERTIFICATE_TYPE,
                cert::encode_type_list(&c.certificate_types),
            ));
        }
        if let Some(own) = &self.config.certificate {
            if own.certificate_type != CertificateType::X509 {
                unknown.push((
                    cert::ext::CLIENT_CERTIFICATE_TYPE,
                    cert::encode_type_list(&[own.certificate_type]),
                ));
            }
        }
        ClientHello {
            legacy_version: LEGACY_VERSION,
            random: self.random,
            legacy_session_id: Vec::new(),
            cipher_suites: self.suites.iter().map(|s| s.id()).collect(),
            extensions: ClientHelloExtensions {
                supported_versions: Some(vec![DTLS1_3]),
                supported_groups: Some(c.groups.iter().map(|g| g.id()).collect()),
                signature_algorithms: Some(vec![ECDSA_SECP256R1_SHA256]),
                key_shares: Some(key_shares),
                cookie,
                connection_id: self.own_cid.clone(),
                unknown,
                ..ClientHelloExtensions::default()
            },
        }
    }

    fn handle(mut self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ClientState, Error> {
        let sh = ServerHello::decode(m.body)?;
        if sh.extensions.selected_version != Some(DTLS1_3) {
            return Err(E::ProtocolVersion.into());
        }
        let suite = CipherSuite13::from_id(sh.cipher_suite)
            .filter(|s| self.suites.contains(s))
            .ok_or(E::NoCommonSuite)?;
        if !sh.legacy_session_id_echo.is_empty() {
            return Err(E::IllegalParameter.into());
        }
        if sh.is_hello_retry_request() {
            return self.retry(sh, m.body, suite, cx);
        }
        // one of the PSKs offered (an external-PSK client must have one),
        // or none: a certificate handshake
        let (early, psk) = match sh.extensions.selected_identity {
            Some(i) if usize::from(i) < self.offers.len() => {
                let o = self.offers.swap_remove(usize::from(i));
                (o.early, Some(o.kind))
            }
            None if self.config.psk.is_none() => {
                let hkdf = self.hkdf;
                let early = self.no_psk.take();
                (
                    early.unwrap_or_else(|| EarlySecret::new(hkdf, None, cx.ops)),
                    None,
                )
            }
            _ => return Err(E::IllegalParameter.into()),
        };
        // connection_id only in answer to ours (RFC 8446 §4.2)
        match (&self.own_cid, &sh.extensions.connection_id) {
            (Some(own), Some(theirs)) => cx.cids = Some((theirs.clone(), own.clone())),
            (None, Some(_)) => return Err(E::IllegalParameter.into()),
            _ => {}
        }
        let dhe = match &sh.extensions.key_share {
            Some(share) => {
                let mine = self
                    .shares
                    .iter()
                    .find(|p| p.group().id() == share.group)
                    .ok_or(E::BadKeyShare)?;
                Some(mine.agree(&share.key_exchange, cx.ops)?)
            }
            None if psk.is_some() && self.config.config.psk_modes.contains(&PskMode::PskKe) => None,
            None => return Err(E::MissingExtension(crate::v13::messages::ext::KEY_SHARE).into()),
        };
        self.transcript
            .add_message(msg_type::SERVER_HELLO, m.body, cx.ops);
        let hkdf = self.hkdf;
        cx.resumed = psk == Some(PskKind::Resumption);
        let hs = early.into_handshake(dhe.as_ref().map(|s| s.0.as_slice()), cx.ops);
        let secrets = hs.traffic_secrets(&self.transcript.current(cx.ops), cx.ops);
        let read = cx.epoch_keys(hkdf, suite, epoch::HANDSHAKE, &secrets.server);
        let write = cx.epoch_keys(hkdf, suite, epoch::HANDSHAKE, &secrets.client);
        cx.keys.push(KeyChange::Read(read));
        cx.keys.push(KeyChange::Write(write));
        cx.suite = Some(suite);
        Ok(ClientState::EncryptedExtensions(
            ExpectEncryptedExtensions {
                keys: HandshakeKeys {
                    suite,
                    hkdf,
                    transcript: self.transcript,
                    hs,
                    secrets,
                },
                config: self.config,
                psk: psk.is_some(),
            },
        ))
    }

    /// HelloRetryRequest: restart the transcript with message_hash, answer
    /// with the cookie and a share of the asked group (RFC 8446 §4.1.4).
    fn retry(
        mut self,
        hrr: ServerHello,
        body: &[u8],
        suite: CipherSuite13,
        cx: &mut Cx<'_>,
    ) -> Result<ClientState, Error> {
        if self.retried {
            return Err(E::SecondHelloRetryRequest.into());
        }
        if hrr.extensions.cookie.is_none() && hrr.extensions.selected_group.is_none() {
            // a retry that would change nothing (RFC 8446 §4.1.4)
            return Err(E::IllegalParameter.into());
        }
        if let Some(id) = hrr.extensions.selected_group {
            let group = NamedGroup::from_id(id)
                .filter(|g| self.config.config.groups.contains(g))
                .filter(|g| self.shares.iter().all(|p| p.group() != *g))
                .ok_or(E::IllegalParameter)?;
            let (p, public) = PrivateShare::generate(group, cx.rng, cx.ops);
            self.shares = vec![p];
            self.publics = vec![KeyShareEntry {
                group: id,
                key_exchange: public,
            }];
        }
        // the suite is now fixed: offer only it
        self.suites = vec![suite];
        let mut transcript = self.transcript.clone();
        transcript.replace_with_message_hash(cx.ops);
        transcript.add_message(msg_type::SERVER_HELLO, body, cx.ops);
        self.retried = true;
        let publics = self.publics.clone();
        self.transcript = self.send_client_hello(transcript, publics, hrr.extensions.cookie, cx);
        Ok(ClientState::ServerHello(self))
    }
}

/// Does this client's hello carry supported_groups and a key share? With
/// (EC)DHE: certificate mode, or a PSK with psk_dhe_ke offered.
fn offers_groups(config: &ClientConfig13) -> bool {
    config.psk.is_none() || config.config.psk_modes.contains(&PskMode::PskDheKe)
}

/// The keys and transcript of the protected part of the handshake.
#[derive(Debug)]
pub(crate) struct HandshakeKeys {
    suite: CipherSuite13,
    hkdf: Hkdf13,
    transcript: Transcript13,
    hs: HandshakeSecret,
    secrets: TrafficSecrets,
}

/// Epoch 2 keys in place; waiting for EncryptedExtensions.
#[derive(Debug)]
pub(crate) struct ExpectEncryptedExtensions {
    keys: HandshakeKeys,
    config: Arc<ClientConfig13>,
    /// A PSK was selected: no certificates follow.
    psk: bool,
}

impl ExpectEncryptedExtensions {
    fn handle(mut self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ClientState, Error> {
        let mut ee = EncryptedExtensions::decode(m.body)?;
        self.keys
            .transcript
            .add_message(msg_type::ENCRYPTED_EXTENSIONS, m.body, cx.ops);
        // A server may list its groups here in answer to ours (RFC 8446
        // §4.2.7; wolfSSL does); the client must not act on them during
        // the handshake, so they are read past.
        if offers_groups(&self.config) {
            ee.extensions.retain(|(t, _)| *t != ext::SUPPORTED_GROUPS);
        }
        if self.psk {
            if !ee.extensions.is_empty() {
                // this client offers nothing the server answers here
                return Err(Error::UnsupportedExtension);
            }
            return Ok(ClientState::Finished(ExpectFinished {
                keys: self.keys,
                client_auth: None,
            }));
        }
        let c = &self.config.config;
        let own_type = self.config.certificate.as_ref().map(|o| o.certificate_type);
        // each type as the server selected it, only in answer to ours
        // (RFC 7250 §4.2); X.509 when neither was sent
        let mut server_type = CertificateType::X509;
        let mut client_type = CertificateType::X509;
        for (t, data) in &ee.extensions {
            match *t {
                cert::ext::SERVER_CERTIFICATE_TYPE
                    if c.certificate_types != [CertificateType::X509] =>
                {
                    server_type = cert::decode_selected_type(data)?;
                    if !c.certificate_types.contains(&server_type) {
                        return Err(E::IllegalParameter.into());
                    }
                }
                cert::ext::CLIENT_CERTIFICATE_TYPE
                    if own_type.is_some_and(|o| o != CertificateType::X509) =>
                {
                    client_type = cert::decode_selected_type(data)?;
                    if Some(client_type) != own_type {
                        return Err(E::IllegalParameter.into());
                    }
                }
                _ => return Err(Error::UnsupportedExtension),
            }
        }
        if !c.certificate_types.contains(&server_type) {
            return Err(E::UnsupportedCertificate.into());
        }
        Ok(ClientState::Certificate(ExpectCertificate {
            keys: self.keys,
            config: self.config,
            server_type,
            client_type,
            requested: false,
        }))
    }
}

/// Certificate mode: waiting for the server's Certificate, or a
/// CertificateRequest before it.
#[derive(Debug)]
pub(crate) struct ExpectCertificate {
    keys: HandshakeKeys,
    config: Arc<ClientConfig13>,
    server_type: CertificateType,
    client_type: CertificateType,
    requested: bool,
}

impl ExpectCertificate {
    fn request(mut self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ClientState, Error> {
        if self.requested {
            return Err(E::UnexpectedMessage {
                got: msg_type::CERTIFICATE_REQUEST,
            }
            .into());
        }
        CertificateRequest::decode(m.body)?;
        self.keys
            .transcript
            .add_message(msg_type::CERTIFICATE_REQUEST, m.body, cx.ops);
        self.requested = true;
        Ok(ClientState::Certificate(self))
    }

    fn handle(mut self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ClientState, Error> {
        let point = auth::peer_public_key(m.body, self.server_type, &self.config.server_verifier)?
            .ok_or(Error::BadCertificate(CertificateError::ServerSentNone))?;
        self.keys
            .transcript
            .add_message(msg_type::CERTIFICATE, m.body, cx.ops);
        Ok(ClientState::CertificateVerify(ExpectCertificateVerify {
            keys: self.keys,
            server_key: point,
            client_auth: self.requested.then_some(ClientAuth {
                config: self.config,
                certificate_type: self.client_type,
            }),
        }))
    }
}

/// What the client sends when the server asked for its certificate.
#[derive(Debug)]
pub(crate) struct ClientAuth {
    config: Arc<ClientConfig13>,
    /// The type the server selected (it must be the credential's).
    certificate_type: CertificateType,
}

/// Waiting for the server's CertificateVerify.
#[derive(Debug)]
pub(crate) struct ExpectCertificateVerify {
    keys: HandshakeKeys,
    server_key: Vec<u8>,
    client_auth: Option<ClientAuth>,
}

impl ExpectCertificateVerify {
    fn handle(mut self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ClientState, Error> {
        let hash = self.keys.transcript.current(cx.ops);
        auth::verify_certificate_verify(&self.server_key, Signer::Server, &hash, m.body, cx.ops)?;
        self.keys
            .transcript
            .add_message(msg_type::CERTIFICATE_VERIFY, m.body, cx.ops);
        Ok(ClientState::Finished(ExpectFinished {
            keys: self.keys,
            client_auth: self.client_auth,
        }))
    }
}

/// Waiting for the server's Finished.
#[derive(Debug)]
pub(crate) struct ExpectFinished {
    keys: HandshakeKeys,
    client_auth: Option<ClientAuth>,
}

impl ExpectFinished {
    fn handle(self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ClientState, Error> {
        let HandshakeKeys {
            suite,
            hkdf,
            mut transcript,
            hs,
            secrets,
        } = self.keys;
        let received = decode_finished(m.body, hkdf.hash.output_len())?;
        let server_key = hkdf.finished_key(&secrets.server, cx.ops);
        if !hkdf.verify_finished(&server_key, &transcript.current(cx.ops), received, cx.ops) {
            return Err(E::FinishedMismatch.into());
        }
        transcript.add_message(msg_type::FINISHED, m.body, cx.ops);
        let hash_sf = transcript.current(cx.ops);
        let master = hs.into_master(cx.ops);
        let app = master.traffic_secrets(&hash_sf, cx.ops);
        if let Some(a) = &self.client_auth {
            // the credential, if it is of the selected type; else an empty
            // Certificate (RFC 8446 §4.4.2)
            let own = a
                .config
                .certificate
                .as_ref()
                .filter(|o| o.certificate_type == a.certificate_type);
            let body = auth::certificate_body(own);
            transcript.add_message(msg_type::CERTIFICATE, &body, cx.ops);
            cx.send
                .push((msg_type::CERTIFICATE, epoch::HANDSHAKE, body));
            if let Some(own) = own {
                let hash = transcript.current(cx.ops);
                let body = auth::certificate_verify_body(own, Signer::Client, &hash, cx.ops)?;
                transcript.add_message(msg_type::CERTIFICATE_VERIFY, &body, cx.ops);
                cx.send
                    .push((msg_type::CERTIFICATE_VERIFY, epoch::HANDSHAKE, body));
            }
        }
        let client_key = hkdf.finished_key(&secrets.client, cx.ops);
        let verify = hkdf.verify_data(&client_key, &transcript.current(cx.ops), cx.ops);
        cx.send.push((
            msg_type::FINISHED,
            epoch::HANDSHAKE,
            verify.as_bytes().to_vec(),
        ));
        cx.resumption = Some(PendingResumption {
            suite,
            master,
            transcript,
            client_finished: verify.as_bytes().to_vec(),
        });
        let read = cx.epoch_keys(hkdf, suite, epoch::APPLICATION, &app.server);
        let write = cx.epoch_keys(hkdf, suite, epoch::APPLICATION, &app.client);
        cx.keys.push(KeyChange::Read(read));
        cx.keys.push(KeyChange::Write(write));
        cx.app_secrets = Some(AppSecrets {
            hkdf,
            suite,
            write: app.client.clone(),
            read: app.server.clone(),
        });
        cx.connected = true;
        Ok(ClientState::Done)
    }
}
