//! The DTLS 1.3 server handshake with external PSKs (RFC 8446 §2.2,
//! RFC 9147 §5), one state struct per step, each consumed by its handler:
//!
//! ```text
//! ExpectClientHello ─ClientHello without a valid cookie→ (HelloRetryRequest) ExpectClientHello
//! ExpectClientHello ─ClientHello→ (ServerHello, EncryptedExtensions, Finished) ExpectFinished
//! ExpectFinished ─Finished→ connected
//! ```
//!
//! The HelloRetryRequest is stateless: ExpectClientHello keeps nothing of
//! the first ClientHello; the cookie carries its hash, the suite and the
//! group (see [`super::cookie`]).

use std::net::SocketAddr;
use std::sync::Arc;

use super::config::ServerConfig13;
use super::cookie::HrrCookie;
use super::error::HandshakeError13 as E;
use super::key_exchange::{NamedGroup, PrivateShare};
use super::key_schedule::{EarlySecret, Hkdf13, PskKind, Secret13};
use super::messages::{
    decode_finished, ext, ClientHello, EncryptedExtensions, KeyShareEntry, PskMode, ServerHello,
    ServerHelloExtensions, DTLS1_3, HRR_RANDOM, LEGACY_VERSION,
};
use super::step::{epoch, msg_type, Cx, KeyChange, Message};
use super::suite::CipherSuite13;
use super::transcript::Transcript13;
use crate::accounting::CryptoOps;
use crate::crypto::CookieGenerator;
use crate::error::Error;

/// Where the server handshake stands.
#[derive(Debug)]
pub(crate) enum ServerState {
    ClientHello(ExpectClientHello),
    Finished(ExpectFinished),
    /// Handshake complete.
    Done,
}

impl ServerState {
    pub fn handle(self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ServerState, Error> {
        match (self, m.msg_type) {
            (ServerState::ClientHello(s), msg_type::CLIENT_HELLO) => s.handle(m, cx),
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

/// The server's choice among the client's modes and shares, in the
/// server's order of preference.
fn key_exchange<'a>(config: &ServerConfig13, ch: &'a ClientHello) -> Result<KeyExchange<'a>, E> {
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
                let shares = e.key_shares.as_deref().unwrap_or(&[]);
                for g in &c.groups {
                    if let Some(k) = shares.iter().find(|k| k.group == g.id()) {
                        return Ok(KeyExchange::Dhe(*g, k));
                    }
                }
                let supported = e.supported_groups.as_deref().unwrap_or(&[]);
                if let Some(g) = c.groups.iter().find(|g| supported.contains(&g.id())) {
                    return Ok(KeyExchange::AskForGroup(*g));
                }
            }
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
    if e.pre_shared_key.is_none() {
        return Err(E::MissingExtension(ext::PRE_SHARED_KEY).into());
    }
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
        let offered = e
            .pre_shared_key
            .as_ref()
            .ok_or(E::MissingExtension(ext::PRE_SHARED_KEY))?;
        let kx = key_exchange(&self.config, &ch)?;

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

        // the first identity the store knows, its binder checked over the
        // hello truncated before the binders (RFC 8446 §4.2.11.2)
        let (index, psk) = offered
            .identities
            .iter()
            .enumerate()
            .find_map(|(i, id)| self.config.psk_store.lookup(&id.identity).map(|k| (i, k)))
            .ok_or(E::UnknownPskIdentity)?;
        let early = EarlySecret::new(hkdf, Some(&psk.0), cx.ops);
        let mut partial = transcript.clone();
        let truncated = m.body.len() - offered.binders_len();
        partial.add_message_prefix(
            msg_type::CLIENT_HELLO,
            m.body.len(),
            &m.body[..truncated],
            cx.ops,
        );
        let binder_key = early.binder_key(PskKind::External, cx.ops);
        let finished_key = hkdf.finished_key(&binder_key, cx.ops);
        if !hkdf.verify_finished(
            &finished_key,
            &partial.current(cx.ops),
            &offered.binders[index],
            cx.ops,
        ) {
            return Err(E::BinderMismatch.into());
        }
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
                selected_identity: Some(index as u16),
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
        EncryptedExtensions::default().encode(&mut ee);
        transcript.add_message(msg_type::ENCRYPTED_EXTENSIONS, &ee, cx.ops);
        cx.send
            .push((msg_type::ENCRYPTED_EXTENSIONS, epoch::HANDSHAKE, ee));

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
        cx.suite = Some(suite);
        let client_finished_key = hkdf.finished_key(&secrets.client, cx.ops);
        Ok(ServerState::Finished(ExpectFinished {
            hkdf,
            transcript,
            client_finished_key,
        }))
    }
}

/// Sent ServerHello … Finished; waiting for the client's Finished.
#[derive(Debug)]
pub(crate) struct ExpectFinished {
    hkdf: Hkdf13,
    transcript: Transcript13,
    client_finished_key: Secret13,
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
        cx.connected = true;
        Ok(ServerState::Done)
    }
}
