//! The DTLS 1.3 server handshake (RFC 8446 §2, RFC 9147 §5) with external
//! PSKs or with (EC)DHE and a certificate or raw public key (RFC 7250),
//! one state struct per step, each consumed by its handler:
//!
//! ```text
//! ExpectClientHello ─ClientHello without a valid cookie→ (HelloRetryRequest) ExpectClientHello
//! ExpectClientHello ─ClientHello→ (ServerHello, EncryptedExtensions,
//!     [CertificateRequest, Certificate, CertificateVerify,] Finished)
//!     [ExpectClientCertificate ─Certificate→ ExpectClientCertificateVerify
//!      ─CertificateVerify→] ExpectFinished ─Finished→ connected
//! ```
//!
//! The HelloRetryRequest is stateless: ExpectClientHello keeps nothing of
//! the first ClientHello; the cookie carries its hash, the suite and the
//! group (see [`super::cookie`]).

use std::net::SocketAddr;
use std::sync::Arc;

use super::auth;
use super::config::ServerConfig13;
use super::cookie::HrrCookie;
use super::key_exchange::{NamedGroup, PrivateShare};
use super::key_schedule::{EarlySecret, Hkdf13, MasterSecret, PskKind, Secret13};
use super::step::{epoch, msg_type, Cx, KeyChange, Message};
use super::suite::CipherSuite13;
use super::ticket::{NewSessionTicket, TicketStore13, TICKET_ID_LEN};
use super::transcript::Transcript13;
use crate::accounting::CryptoOps;
use crate::cert;
use crate::cert::CertificateType;
use crate::cert::CertificateVerifier;
use crate::crypto::CookieGenerator;
use crate::error::v13::HandshakeError13 as E;
use crate::error::Error;
use crate::v13::certificate::{CertificateRequest, Signer, ECDSA_SECP256R1_SHA256};
use crate::v13::messages::{
    decode_finished, ext, ClientHello, EncryptedExtensions, KeyShareEntry, OfferedPsks, PskMode,
    ServerHello, ServerHelloExtensions, DTLS1_3, HRR_RANDOM, LEGACY_VERSION,
};

/// Where the server handshake stands.
#[derive(Debug)]
pub(crate) enum ServerState {
    ClientHello(ExpectClientHello),
    ClientCertificate(ExpectClientCertificate),
    ClientCertificateVerify(ExpectClientCertificateVerify),
    Finished(ExpectFinished),
    /// Handshake complete.
    Done,
}

impl ServerState {
    /// Bytes the current step holds on the heap (its configuration is
    /// shared and not counted).
    pub fn heap_bytes(&self) -> usize {
        match self {
            ServerState::ClientHello(s) => s.own_cid.as_ref().map_or(0, Vec::capacity),
            ServerState::ClientCertificate(s) => match &s.verifier {
                CertificateVerifier::Pinned(der) => der.capacity(),
                CertificateVerifier::AcceptAny => 0,
            },
            ServerState::ClientCertificateVerify(s) => s.client_key.capacity(),
            ServerState::Finished(_) | ServerState::Done => 0,
        }
    }

    /// Bytes this step needs in a compact C implementation beyond the
    /// established session. Before the ClientHello: nothing (the cookie
    /// is stateless). After its flight the server waits with the running
    /// transcript hash, the client's Finished key and the client's
    /// application traffic secret (the receiving keys of epoch 3) — and a
    /// PSK identity (up to 32 B) —, plus the client's public key (64 B)
    /// until its CertificateVerify.
    pub fn compact_bytes(&self) -> usize {
        let waiting = |f: &ExpectFinished| {
            let h = f.transcript.hash();
            h.compact_context_len() + 2 * h.output_len() + 32
        };
        match self {
            ServerState::ClientHello(_) | ServerState::Done => 0,
            ServerState::ClientCertificate(s) => waiting(&s.finished),
            ServerState::ClientCertificateVerify(s) => waiting(&s.finished) + 64,
            ServerState::Finished(f) => waiting(f),
        }
    }

    pub fn handle(self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ServerState, Error> {
        match (self, m.msg_type) {
            (ServerState::ClientHello(s), msg_type::CLIENT_HELLO) => s.handle(m, cx),
            (ServerState::ClientCertificate(s), msg_type::CERTIFICATE) => s.handle(m, cx),
            (ServerState::ClientCertificateVerify(s), msg_type::CERTIFICATE_VERIFY) => {
                s.handle(m, cx)
            }
            (ServerState::Finished(s), msg_type::FINISHED) => s.handle(m, cx),
            (_, got) => Err(E::UnexpectedMessage { got }.into()),
        }
    }
}

/// How the keys will be agreed.
enum KeyExchange<'a> {
    PskOnly,
    Dhe(NamedGroup, &'a KeyShareEntry),
    /// psk_dhe_ke in a group the client supports but sent no share for.
    AskForGroup(NamedGroup),
}

/// The server's choice among the client's suites, in the server's order
/// of preference.
fn choose_suite(config: &ServerConfig13, ch: &ClientHello) -> Result<CipherSuite13, E> {
    config
        .config
        .suites
        .iter()
        .find(|s| ch.cipher_suites.contains(&s.id()))
        .copied()
        .ok_or(E::NoCommonSuite)
}

/// Is this a PSK handshake? When the client offers a PSK and the server
/// has PSKs; else (EC)DHE with the server's certificate, if it has one.
fn uses_psk(config: &ServerConfig13, ch: &ClientHello) -> Result<bool, E> {
    let offered = ch.extensions.pre_shared_key.is_some();
    match (offered && config.psk_store.is_some(), &config.certificate) {
        (true, _) => Ok(true),
        (false, Some(_)) => Ok(false),
        (false, None) => Err(E::MissingExtension(ext::PRE_SHARED_KEY)),
    }
}

/// (EC)DHE in the server's most preferred group the client sent a share
/// for, else one it supports (asked for through HelloRetryRequest).
fn dhe<'a>(config: &ServerConfig13, ch: &'a ClientHello) -> Option<KeyExchange<'a>> {
    let c = &config.config;
    let e = &ch.extensions;
    let shares = e.key_shares.as_deref().unwrap_or(&[]);
    for g in &c.groups {
        if let Some(k) = shares.iter().find(|k| k.group == g.id()) {
            return Some(KeyExchange::Dhe(*g, k));
        }
    }
    let supported = e.supported_groups.as_deref().unwrap_or(&[]);
    c.groups
        .iter()
        .find(|g| supported.contains(&g.id()))
        .map(|g| KeyExchange::AskForGroup(*g))
}

/// The server's choice among the client's modes and shares, in the
/// server's order of preference.
fn key_exchange<'a>(config: &ServerConfig13, ch: &'a ClientHello) -> Result<KeyExchange<'a>, E> {
    if !uses_psk(config, ch)? {
        return dhe(config, ch).ok_or(E::NoCommonKeyExchange);
    }
    psk_key_exchange(config, ch)
}

/// The server's choice among the client's PSK modes (RFC 8446 §4.2.9), in
/// the server's order of preference.
fn psk_key_exchange<'a>(
    config: &ServerConfig13,
    ch: &'a ClientHello,
) -> Result<KeyExchange<'a>, E> {
    let c = &config.config;
    let e = &ch.extensions;
    let modes = e
        .psk_modes
        .as_ref()
        .ok_or(E::MissingExtension(ext::PSK_KEY_EXCHANGE_MODES))?;
    for mode in &c.psk_modes {
        if !modes.contains(mode) {
            continue;
        }
        match mode {
            PskMode::PskKe => return Ok(KeyExchange::PskOnly),
            PskMode::PskDheKe => {
                if let Some(kx) = dhe(config, ch) {
                    return Ok(kx);
                }
            }
            PskMode::Unknown(_) => {}
        }
    }
    Err(E::NoCommonKeyExchange)
}

fn hello_retry_request(
    ch: &ClientHello,
    suite: CipherSuite13,
    group: Option<NamedGroup>,
    cookie: Vec<u8>,
) -> Vec<u8> {
    let hrr = ServerHello {
        legacy_version: LEGACY_VERSION,
        random: HRR_RANDOM,
        legacy_session_id_echo: ch.legacy_session_id.clone(),
        cipher_suite: suite.id(),
        extensions: ServerHelloExtensions {
            selected_version: Some(DTLS1_3),
            selected_group: group.map(NamedGroup::id),
            cookie: Some(cookie),
            ..ServerHelloExtensions::default()
        },
    };
    let mut body = Vec::new();
    hrr.encode(&mut body);
    body
}

/// What the stateless check of a ClientHello decided.
#[derive(Debug)]
pub(crate) enum Vetted {
    /// Answer with this HelloRetryRequest body and keep nothing.
    Retry(Vec<u8>),
    /// Go on with the handshake; the retry the valid cookie carried, if
    /// any, and the length of the HelloRetryRequest that asked for it.
    Accept(Option<(HrrCookie, usize)>),
}

/// The stateless part of answering a ClientHello (RFC 9147 §5.1): a
/// HelloRetryRequest with a cookie when the hello has no valid cookie and
/// one is required (or a share is missing), else accept it. It allocates
/// no session, so a server endpoint runs it before creating one.
pub(crate) fn vet_client_hello(
    config: &ServerConfig13,
    cookies: &CookieGenerator,
    peer: &SocketAddr,
    body: &[u8],
    ops: &mut CryptoOps,
) -> Result<Vetted, Error> {
    let ch = ClientHello::decode(body)?;
    let e = &ch.extensions;
    if !e
        .supported_versions
        .as_ref()
        .is_some_and(|v| v.contains(&DTLS1_3))
    {
        return Err(E::ProtocolVersion.into());
    }
    let suite = choose_suite(config, &ch)?;
    uses_psk(config, &ch)?;
    let retry = e
        .cookie
        .as_ref()
        .and_then(|k| HrrCookie::open(cookies, peer, k, ops))
        .filter(|k| k.suite == suite);
    let ask_group = match key_exchange(config, &ch)? {
        KeyExchange::AskForGroup(g) => Some(g),
        _ => None,
    };
    if retry.is_some() && ask_group.is_some() {
        // the second hello lacks the share the retry asked for
        return Err(E::IllegalParameter.into());
    }
    if retry.is_none() && (ask_group.is_some() || config.require_cookie) {
        let mut t = Transcript13::new(suite.hash());
        t.add_message(msg_type::CLIENT_HELLO, body, ops);
        let cookie = HrrCookie {
            suite,
            group: ask_group,
            hash_ch1: t.current(ops),
        }
        .seal(cookies, peer, ops);
        return Ok(Vetted::Retry(hello_retry_request(
            &ch, suite, ask_group, cookie,
        )));
    }
    Ok(Vetted::Accept(retry.map(|k| {
        let cookie = e.cookie.clone().unwrap_or_default();
        let hrr_len = hello_retry_request(&ch, suite, k.group, cookie).len();
        (k, hrr_len)
    })))
}

/// How a session's ClientHello is checked.
pub(crate) enum CookieCheck {
    /// By the session itself (a connection on its own).
    Own(CookieGenerator),
    /// Already, by the endpoint that created the session for it.
    Vetted(Option<HrrCookie>),
}

/// Waiting for a ClientHello (first, or second after a retry).
pub(crate) struct ExpectClientHello {
    config: Arc<ServerConfig13>,
    cookie: CookieCheck,
    peer: SocketAddr,
    /// The CID this session receives with, if connection_id is negotiated.
    own_cid: Option<Vec<u8>>,
}

impl core::fmt::Debug for ExpectClientHello {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ExpectClientHello")
            .field("peer", &self.peer)
            .finish_non_exhaustive()
    }
}

impl ExpectClientHello {
    pub fn new(
        config: Arc<ServerConfig13>,
        cookie: CookieCheck,
        peer: SocketAddr,
        own_cid: Option<Vec<u8>>,
    ) -> Self {
        ExpectClientHello {
            config,
            cookie,
            peer,
            own_cid,
        }
    }

    fn handle(self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ServerState, Error> {
        // answer in the ClientHello's message_seq (RFC 9147 §5.2)
        cx.next_message_seq = Some(m.seq);
        let retry = match &self.cookie {
            CookieCheck::Own(cookies) => {
                match vet_client_hello(&self.config, cookies, &self.peer, m.body, cx.ops)? {
                    Vetted::Retry(hrr) => {
                        cx.send
                            .push((msg_type::SERVER_HELLO, epoch::PLAINTEXT, hrr));
                        return Ok(ServerState::ClientHello(self));
                    }
                    Vetted::Accept(retry) => retry.map(|(k, _)| k),
                }
            }
            CookieCheck::Vetted(retry) => retry.clone(),
        };
        let ch = ClientHello::decode(m.body)?;
        let e = &ch.extensions;
        let suite = choose_suite(&self.config, &ch)?;

        let hkdf = Hkdf13::dtls(suite.hash());
        let mut transcript = match &retry {
            Some(k) => {
                let mut t = Transcript13::after_retry(suite.hash(), &k.hash_ch1, cx.ops);
                let cookie = e.cookie.clone().unwrap_or_default();
                let hrr = hello_retry_request(&ch, suite, k.group, cookie);
                t.add_message(msg_type::SERVER_HELLO, &hrr, cx.ops);
                t
            }
            None => Transcript13::new(suite.hash()),
        };
        let resumed = self.resume(&ch, m.body, hkdf, &transcript, cx)?;
        cx.resumed = resumed.is_some();
        let kx = match resumed {
            Some(_) => psk_key_exchange(&self.config, &ch)?,
            None => key_exchange(&self.config, &ch)?,
        };
        let (early, selected_identity, auth) = if let Some((index, early)) = resumed {
            (early, Some(index as u16), None)
        } else if uses_psk(&self.config, &ch)? {
            let (index, early) = self.check_psk(&ch, m.body, hkdf, &transcript, cx.ops)?;
            (early, Some(index as u16), None)
        } else {
            let auth = CertificateAuth::choose(&self.config, &ch)?;
            (EarlySecret::new(hkdf, None, cx.ops), None, Some(auth))
        };
        transcript.add_message(msg_type::CLIENT_HELLO, m.body, cx.ops);

        let (dhe, key_share) = match kx {
            KeyExchange::Dhe(g, theirs) => {
                let (mine, public) = PrivateShare::generate(g, cx.rng, cx.ops);
                let shared = mine.agree(&theirs.key_exchange, cx.ops)?;
                let entry = KeyShareEntry {
                    group: g.id(),
                    key_exchange: public,
                };
                (Some(shared), Some(entry))
            }
            _ => (None, None),
        };
        // the CIDs, when both sides offer connection_id (RFC 9146 §3)
        let cids = match (&e.connection_id, &self.own_cid) {
            (Some(theirs), Some(own)) => Some((theirs.clone(), own.clone())),
            _ => None,
        };
        cx.cids = cids.clone();
        let mut random = [0u8; 32];
        rand_core::Rng::fill_bytes(cx.rng, &mut random);
        let sh = ServerHello {
            legacy_version: LEGACY_VERSION,
            random,
            legacy_session_id_echo: ch.legacy_session_id.clone(),
            cipher_suite: suite.id(),
            extensions: ServerHelloExtensions {
                selected_version: Some(DTLS1_3),
                key_share,
                selected_identity,
                connection_id: cids.as_ref().map(|(_, own)| own.clone()),
                ..ServerHelloExtensions::default()
            },
        };
        let mut body = Vec::new();
        sh.encode(&mut body);
        transcript.add_message(msg_type::SERVER_HELLO, &body, cx.ops);
        cx.send
            .push((msg_type::SERVER_HELLO, epoch::PLAINTEXT, body));

        let hs = early.into_handshake(dhe.as_ref().map(|s| s.0.as_slice()), cx.ops);
        let secrets = hs.traffic_secrets(&transcript.current(cx.ops), cx.ops);
        let write = cx.epoch_keys(hkdf, suite, epoch::HANDSHAKE, &secrets.server);
        let read = cx.epoch_keys(hkdf, suite, epoch::HANDSHAKE, &secrets.client);
        cx.keys.push(KeyChange::Write(write));
        cx.keys.push(KeyChange::Read(read));

        let mut ee = Vec::new();
        EncryptedExtensions {
            extensions: auth
                .as_ref()
                .map_or_else(Vec::new, CertificateAuth::extensions),
        }
        .encode(&mut ee);
        transcript.add_message(msg_type::ENCRYPTED_EXTENSIONS, &ee, cx.ops);
        cx.send
            .push((msg_type::ENCRYPTED_EXTENSIONS, epoch::HANDSHAKE, ee));
        if let Some(a) = &auth {
            a.send_certificate(&self.config, &mut transcript, cx)?;
        }

        let server_key = hkdf.finished_key(&secrets.server, cx.ops);
        let verify = hkdf.verify_data(&server_key, &transcript.current(cx.ops), cx.ops);
        let fin = verify.as_bytes().to_vec();
        transcript.add_message(msg_type::FINISHED, &fin, cx.ops);
        cx.send.push((msg_type::FINISHED, epoch::HANDSHAKE, fin));

        let master = hs.into_master(cx.ops);
        let app = master.traffic_secrets(&transcript.current(cx.ops), cx.ops);
        let write = cx.epoch_keys(hkdf, suite, epoch::APPLICATION, &app.server);
        let read = cx.epoch_keys(hkdf, suite, epoch::APPLICATION, &app.client);
        cx.keys.push(KeyChange::Write(write));
        cx.keys.push(KeyChange::Read(read));
        cx.app_secrets = Some(super::step::AppSecrets {
            hkdf,
            suite,
            write: app.server.clone(),
            read: app.client.clone(),
        });
        cx.suite = Some(suite);
        let client_finished_key = hkdf.finished_key(&secrets.client, cx.ops);
        let finished = ExpectFinished {
            hkdf,
            transcript,
            client_finished_key,
            tickets: self.config.tickets.clone().map(|t| (t, master)),
        };
        let client_auth = auth.and_then(|a| {
            let verifier = self.config.client_verifier.clone()?;
            Some((verifier, a.client_type))
        });
        Ok(match client_auth {
            Some((verifier, certificate_type)) => {
                ServerState::ClientCertificate(ExpectClientCertificate {
                    verifier,
                    certificate_type,
                    finished,
                })
            }
            None => ServerState::Finished(finished),
        })
    }

    /// The first identity the store knows, its binder checked over the
    /// hello truncated before the binders (RFC 8446 §4.2.11.2); its index
    /// and early secret.
    fn check_psk(
        &self,
        ch: &ClientHello,
        body: &[u8],
        hkdf: Hkdf13,
        transcript: &Transcript13,
        ops: &mut CryptoOps,
    ) -> Result<(usize, EarlySecret), Error> {
        let offered = ch
            .extensions
            .pre_shared_key
            .as_ref()
            .ok_or(E::MissingExtension(ext::PRE_SHARED_KEY))?;
        let store = self
            .config
            .psk_store
            .as_ref()
            .ok_or(E::UnknownPskIdentity)?;
        let known = offered
            .identities
            .iter()
            .enumerate()
            .find_map(|(i, id)| store.lookup(&id.identity).map(|k| (i, k)));
        let (index, key) = match known {
            Some((i, k)) => (i, k),
            None if self.config.reveal_unknown_psk_identity => {
                return Err(E::UnknownPskIdentity.into())
            }
            // RFC 8446 §4.2.11 leaves the answer to an unknown identity to
            // the server: the first binder is checked against a stand-in
            // key (the same work as for a known identity) and fails as a
            // wrong key does (decrypt_error), so the answer does not tell
            // which identities exist (as 1.2's default, RFC 4279 §2)
            None if !offered.binders.is_empty() => {
                (0, crate::Secret(vec![0; hkdf.hash.output_len()]))
            }
            None => return Err(E::BinderMismatch.into()),
        };
        let early = EarlySecret::new(hkdf, Some(&key.0), ops);
        if !binder_verifies(
            &early,
            PskKind::External,
            offered,
            index,
            body,
            transcript,
            ops,
        ) {
            return Err(E::BinderMismatch.into());
        }
        Ok((index, early))
    }

    /// The first offered ticket the store holds, valid, of this hash, whose
    /// PSK modes the server shares: selected, its binder must verify (RFC
    /// 8446 §4.2.11: otherwise the server MUST abort, with decrypt_error);
    /// then its index and early secret, the ticket used up. No ticket to
    /// select (no store, an unknown, forgotten or expired ticket) is not an
    /// error: the handshake goes on without one, as a full one (§4.2.11: the
    /// server selects a PSK or none; an honest client whose ticket the
    /// server no longer holds still connects).
    fn resume(
        &self,
        ch: &ClientHello,
        body: &[u8],
        hkdf: Hkdf13,
        transcript: &Transcript13,
        cx: &mut Cx<'_>,
    ) -> Result<Option<(usize, EarlySecret)>, Error> {
        let (Some(store), Some(offered)) = (
            self.config.tickets.as_ref(),
            ch.extensions.pre_shared_key.as_ref(),
        ) else {
            return Ok(None);
        };
        if psk_key_exchange(&self.config, ch).is_err() {
            return Ok(None);
        }
        let Some((index, psk)) = offered
            .identities
            .iter()
            .enumerate()
            .find_map(|(i, id)| Some((i, store.psk(&id.identity, hkdf.hash, cx.now).ok()?)))
        else {
            return Ok(None);
        };
        let early = EarlySecret::new(hkdf, Some(&psk.0), cx.ops);
        if !binder_verifies(
            &early,
            PskKind::Resumption,
            offered,
            index,
            body,
            transcript,
            cx.ops,
        ) {
            return Err(E::BinderMismatch.into());
        }
        store.take(&offered.identities[index].identity);
        Ok(Some((index, early)))
    }
}

/// Does the binder of PSK `index` verify over the ClientHello `body`
/// truncated before the binders, after `transcript` (RFC 8446 §4.2.11.2)?
fn binder_verifies(
    early: &EarlySecret,
    kind: PskKind,
    offered: &OfferedPsks,
    index: usize,
    body: &[u8],
    transcript: &Transcript13,
    ops: &mut CryptoOps,
) -> bool {
    let Some(binder) = offered.binders.get(index) else {
        return false;
    };
    let hkdf = early.hkdf();
    let mut partial = transcript.clone();
    let truncated = body.len() - offered.binders_len();
    partial.add_message_prefix(msg_type::CLIENT_HELLO, body.len(), &body[..truncated], ops);
    let binder_key = early.binder_key(kind, ops);
    let finished_key = hkdf.finished_key(&binder_key, ops);
    hkdf.verify_finished(&finished_key, &partial.current(ops), binder, ops)
}

impl ExpectClientHello {}

/// The certificate types of a certificate handshake (RFC 7250 §4.2), and
/// whether the client's lists were sent (then EncryptedExtensions answers
/// each).
#[derive(Debug)]
struct CertificateAuth {
    server_type: CertificateType,
    server_type_asked: bool,
    client_type: CertificateType,
    client_type_asked: bool,
}

impl CertificateAuth {
    fn choose(config: &ServerConfig13, ch: &ClientHello) -> Result<Self, Error> {
        let own = config
            .certificate
            .as_ref()
            .ok_or(E::MissingExtension(ext::PRE_SHARED_KEY))?;
        let list = |t: u16| -> Result<Option<Vec<u8>>, Error> {
            match ch.extensions.unknown.iter().find(|(x, _)| *x == t) {
                Some((_, data)) => Ok(Some(cert::decode_type_list(data)?)),
                None => Ok(None),
            }
        };
        // ours must be among the types the client takes (X.509 if it
        // sent no list)
        let server_list = list(cert::ext::SERVER_CERTIFICATE_TYPE)?;
        let server_ok = match &server_list {
            Some(l) => l.contains(&own.certificate_type.to_u8()),
            None => own.certificate_type == CertificateType::X509,
        };
        if !server_ok {
            return Err(E::UnsupportedCertificate.into());
        }
        // the client's: the first of ours it offers, asked for only if we
        // send a CertificateRequest
        let client_list = list(cert::ext::CLIENT_CERTIFICATE_TYPE)?;
        let accepted = &config.config.certificate_types;
        let client_type = match &client_list {
            Some(l) => accepted.iter().copied().find(|t| l.contains(&t.to_u8())),
            None => accepted
                .contains(&CertificateType::X509)
                .then_some(CertificateType::X509),
        };
        let client_type = match (client_type, &config.client_verifier) {
            (Some(t), _) => t,
            (None, None) => CertificateType::X509,
            (None, Some(_)) => return Err(E::UnsupportedCertificate.into()),
        };
        Ok(CertificateAuth {
            server_type: own.certificate_type,
            server_type_asked: server_list.is_some(),
            client_type,
            client_type_asked: client_list.is_some() && config.client_verifier.is_some(),
        })
    }

    /// The selected types, each in answer to the client's list.
    fn extensions(&self) -> Vec<(u16, Vec<u8>)> {
        let mut out = Vec::new();
        if self.server_type_asked {
            out.push((
                cert::ext::SERVER_CERTIFICATE_TYPE,
                vec![self.server_type.to_u8()],
            ));
        }
        if self.client_type_asked {
            out.push((
                cert::ext::CLIENT_CERTIFICATE_TYPE,
                vec![self.client_type.to_u8()],
            ));
        }
        out
    }

    /// [CertificateRequest,] Certificate, CertificateVerify.
    fn send_certificate(
        &self,
        config: &ServerConfig13,
        transcript: &mut Transcript13,
        cx: &mut Cx<'_>,
    ) -> Result<(), Error> {
        let own = config
            .certificate
            .as_ref()
            .ok_or(E::MissingExtension(ext::PRE_SHARED_KEY))?;
        if config.client_verifier.is_some() {
            let mut body = Vec::new();
            CertificateRequest {
                signature_algorithms: vec![ECDSA_SECP256R1_SHA256],
            }
            .encode(&mut body);
            transcript.add_message(msg_type::CERTIFICATE_REQUEST, &body, cx.ops);
            cx.send
                .push((msg_type::CERTIFICATE_REQUEST, epoch::HANDSHAKE, body));
        }
        let body = auth::certificate_body(Some(own));
        transcript.add_message(msg_type::CERTIFICATE, &body, cx.ops);
        cx.send
            .push((msg_type::CERTIFICATE, epoch::HANDSHAKE, body));
        let hash = transcript.current(cx.ops);
        let body = auth::certificate_verify_body(own, Signer::Server, &hash, cx.ops)?;
        transcript.add_message(msg_type::CERTIFICATE_VERIFY, &body, cx.ops);
        cx.send
            .push((msg_type::CERTIFICATE_VERIFY, epoch::HANDSHAKE, body));
        Ok(())
    }
}

/// Sent a CertificateRequest; waiting for the client's Certificate.
#[derive(Debug)]
pub(crate) struct ExpectClientCertificate {
    verifier: CertificateVerifier,
    certificate_type: CertificateType,
    finished: ExpectFinished,
}

impl ExpectClientCertificate {
    fn handle(mut self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ServerState, Error> {
        let point = auth::peer_public_key(m.body, self.certificate_type, &self.verifier)?
            .ok_or(E::CertificateRequired)?;
        self.finished
            .transcript
            .add_message(msg_type::CERTIFICATE, m.body, cx.ops);
        Ok(ServerState::ClientCertificateVerify(
            ExpectClientCertificateVerify {
                client_key: point,
                finished: self.finished,
            },
        ))
    }
}

/// Waiting for the client's CertificateVerify.
#[derive(Debug)]
pub(crate) struct ExpectClientCertificateVerify {
    client_key: Vec<u8>,
    finished: ExpectFinished,
}

impl ExpectClientCertificateVerify {
    fn handle(mut self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ServerState, Error> {
        let hash = self.finished.transcript.current(cx.ops);
        auth::verify_certificate_verify(&self.client_key, Signer::Client, &hash, m.body, cx.ops)?;
        self.finished
            .transcript
            .add_message(msg_type::CERTIFICATE_VERIFY, m.body, cx.ops);
        Ok(ServerState::Finished(self.finished))
    }
}

/// Sent ServerHello … Finished; waiting for the client's Finished.
#[derive(Debug)]
pub(crate) struct ExpectFinished {
    hkdf: Hkdf13,
    transcript: Transcript13,
    client_finished_key: Secret13,
    /// Where the ticket issued after the handshake goes, and the master
    /// secret its PSK comes from (servers with tickets).
    tickets: Option<(Arc<TicketStore13>, MasterSecret)>,
}

impl ExpectFinished {
    fn handle(self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ServerState, Error> {
        let received = decode_finished(m.body, self.hkdf.hash.output_len())?;
        let hash = self.transcript.current(cx.ops);
        if !self
            .hkdf
            .verify_finished(&self.client_finished_key, &hash, received, cx.ops)
        {
            return Err(E::FinishedMismatch.into());
        }
        if let Some((store, master)) = self.tickets {
            let mut t = self.transcript;
            t.add_message(msg_type::FINISHED, m.body, cx.ops);
            cx.ticket = Some(issue_ticket(&store, &master, &t, cx));
        }
        cx.connected = true;
        Ok(ServerState::Done)
    }
}

/// A NewSessionTicket body for the connection whose transcript through the
/// client's Finished is `t`; its PSK (RFC 8446 §4.6.1, one ticket per
/// connection: nonce 0) kept in `store` under a random identity.
fn issue_ticket(
    store: &TicketStore13,
    master: &MasterSecret,
    t: &Transcript13,
    cx: &mut Cx<'_>,
) -> Vec<u8> {
    let hkdf = master.hkdf();
    let res = master.resumption_master_secret(&t.current(cx.ops), cx.ops);
    let nonce = vec![0u8];
    let psk = hkdf.resumption_psk(&res, &nonce, cx.ops);
    let mut id = vec![0u8; TICKET_ID_LEN];
    rand_core::Rng::fill_bytes(cx.rng, &mut id);
    let mut age_add = [0u8; 4];
    rand_core::Rng::fill_bytes(cx.rng, &mut age_add);
    store.issue(
        id.clone(),
        crate::Secret(psk.as_bytes().to_vec()),
        hkdf.hash,
        cx.now,
    );
    let mut body = Vec::new();
    NewSessionTicket {
        ticket_lifetime: store.lifetime_s(),
        ticket_age_add: u32::from_be_bytes(age_add),
        ticket_nonce: nonce,
        ticket: id,
        extensions: Vec::new(),
    }
    .encode(&mut body);
    body
}
