//! The DTLS 1.3 client handshake with an external PSK (RFC 8446 §2.2,
//! RFC 9147 §5), one state struct per step, each consumed by its handler:
//!
//! ```text
//! start ─ClientHello→ ExpectServerHello ─HelloRetryRequest→ (ClientHello 2) ExpectServerHello
//!                     ExpectServerHello ─ServerHello→ ExpectEncryptedExtensions
//!                     ─EncryptedExtensions→ ExpectFinished ─Finished→ (Finished) connected
//! ```

use std::sync::Arc;

use super::config::ClientConfig13;
use super::error::HandshakeError13 as E;
use super::key_exchange::{NamedGroup, PrivateShare};
use super::key_schedule::{EarlySecret, HandshakeSecret, Hkdf13, PskKind, TrafficSecrets};
use super::messages::{
    decode_finished, ClientHello, ClientHelloExtensions, EncryptedExtensions, KeyShareEntry,
    OfferedPsks, PskIdentity, PskMode, ServerHello, DTLS1_3, LEGACY_VERSION,
};
use super::step::{epoch, msg_type, Cx, KeyChange, Message};
use super::suite::CipherSuite13;
use super::transcript::Transcript13;
use crate::error::Error;

/// Where the client handshake stands.
#[derive(Debug)]
pub(crate) enum ClientState {
    ServerHello(ExpectServerHello),
    EncryptedExtensions(ExpectEncryptedExtensions),
    Finished(ExpectFinished),
    /// Handshake complete.
    Done,
}

impl ClientState {
    pub fn handle(self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ClientState, Error> {
        match (self, m.msg_type) {
            (ClientState::ServerHello(s), msg_type::SERVER_HELLO) => s.handle(m, cx),
            (ClientState::EncryptedExtensions(s), msg_type::ENCRYPTED_EXTENSIONS) => {
                s.handle(m, cx)
            }
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
    early: EarlySecret,
    retried: bool,
    /// The CID this side asks for, if it offers connection_id.
    own_cid: Option<Vec<u8>>,
}

/// Send the first ClientHello.
pub(crate) fn start(config: Arc<ClientConfig13>, cx: &mut Cx<'_>) -> Result<ClientState, Error> {
    config.config.validate()?;
    // an external PSK is used with one hash (RFC 8446 §4.2.11): the first
    // suite's; offer only the suites that share it
    let hash = config.config.suites[0].hash();
    let suites: Vec<CipherSuite13> = config
        .config
        .suites
        .iter()
        .copied()
        .filter(|s| s.hash() == hash)
        .collect();
    let mut random = [0u8; 32];
    rand_core::Rng::fill_bytes(cx.rng, &mut random);
    let early = EarlySecret::new(Hkdf13::dtls(hash), Some(&config.psk.1 .0), cx.ops);
    let shares = match config.config.psk_modes.contains(&PskMode::PskDheKe) {
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
        early,
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
    /// Build, bind (PSK binder over the truncated hello, RFC 8446
    /// §4.2.11.2) and queue a ClientHello; the transcript through it.
    fn send_client_hello(
        &self,
        mut transcript: Transcript13,
        key_shares: Vec<KeyShareEntry>,
        cookie: Option<Vec<u8>>,
        cx: &mut Cx<'_>,
    ) -> Transcript13 {
        let c = &self.config.config;
        let dhe = c.psk_modes.contains(&PskMode::PskDheKe);
        let hkdf = self.early.hkdf();
        let hash_len = hkdf.hash.output_len();
        let mut ch = ClientHello {
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
                pre_shared_key: Some(OfferedPsks {
                    identities: vec![PskIdentity {
                        identity: self.config.psk.0.clone(),
                        // external PSKs: 0 (RFC 8446 §4.2.11)
                        obfuscated_ticket_age: 0,
                    }],
                    binders: vec![vec![0; hash_len]],
                }),
                ..ClientHelloExtensions::default()
            },
        };
        let mut body = Vec::new();
        ch.encode(&mut body);
        let binders_len = 2 + 1 + hash_len;
        let mut partial = transcript.clone();
        partial.add_message_prefix(
            msg_type::CLIENT_HELLO,
            body.len(),
            &body[..body.len() - binders_len],
            cx.ops,
        );
        let binder_key = self.early.binder_key(PskKind::External, cx.ops);
        let finished_key = hkdf.finished_key(&binder_key, cx.ops);
        let binder = hkdf.verify_data(&finished_key, &partial.current(cx.ops), cx.ops);
        let at = body.len() - hash_len;
        body[at..].copy_from_slice(binder.as_bytes());
        if let Some(p) = &mut ch.extensions.pre_shared_key {
            p.binders = vec![binder.as_bytes().to_vec()];
        }
        transcript.add_message(msg_type::CLIENT_HELLO, &body, cx.ops);
        cx.send
            .push((msg_type::CLIENT_HELLO, epoch::PLAINTEXT, body));
        transcript
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
        if sh.extensions.selected_identity != Some(0) {
            return Err(E::IllegalParameter.into());
        }
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
            None if self.config.config.psk_modes.contains(&PskMode::PskKe) => None,
            None => return Err(E::MissingExtension(super::messages::ext::KEY_SHARE).into()),
        };
        self.transcript
            .add_message(msg_type::SERVER_HELLO, m.body, cx.ops);
        let hkdf = self.early.hkdf();
        let hs = self
            .early
            .into_handshake(dhe.as_ref().map(|s| s.0.as_slice()), cx.ops);
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
}

impl ExpectEncryptedExtensions {
    fn handle(mut self, m: Message<'_>, cx: &mut Cx<'_>) -> Result<ClientState, Error> {
        let ee = EncryptedExtensions::decode(m.body)?;
        if !ee.extensions.is_empty() {
            // this client offers nothing the server answers here
            return Err(Error::UnsupportedExtension);
        }
        self.keys
            .transcript
            .add_message(msg_type::ENCRYPTED_EXTENSIONS, m.body, cx.ops);
        Ok(ClientState::Finished(ExpectFinished { keys: self.keys }))
    }
}

/// Waiting for the server's Finished.
#[derive(Debug)]
pub(crate) struct ExpectFinished {
    keys: HandshakeKeys,
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
        let client_key = hkdf.finished_key(&secrets.client, cx.ops);
        let verify = hkdf.verify_data(&client_key, &hash_sf, cx.ops);
        cx.send.push((
            msg_type::FINISHED,
            epoch::HANDSHAKE,
            verify.as_bytes().to_vec(),
        ));
        let read = cx.epoch_keys(hkdf, suite, epoch::APPLICATION, &app.server);
        let write = cx.epoch_keys(hkdf, suite, epoch::APPLICATION, &app.client);
        cx.keys.push(KeyChange::Read(read));
        cx.keys.push(KeyChange::Write(write));
        cx.connected = true;
        Ok(ClientState::Done)
    }
}
