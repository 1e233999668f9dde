//! Client side of the DTLS 1.2 handshake.

use crate::error::{ConfigError, Disagreement, Illegal, InternalError, Malformed, Unexpected};
use std::sync::Arc;

use rand_core::CryptoRng;

use super::messages::CertificateType;
use super::messages::{
    ext, ClientHello, EcdheServerKeyExchange, Extension, HelloVerifyRequest, ServerHello,
};
use super::resumption::ResumableSession;
use super::{HandshakeState, HandshakeType as T, Step};
use crate::cert::CertifiedKey;
use crate::cert::{decode_selected_type, encode_type_list};
use crate::codec::{Reader, Writer};
use crate::crypto::cookie::ct_eq;
use crate::crypto::ecc;
use crate::crypto::suite::CipherSuite;
use crate::error::Error;
use crate::session::Phase;
use crate::v12::config::ClientConfig;
use crate::v12::connection::{Connection, Credentials, OutMessage};
use crate::v12::keys::psk_premaster;
use crate::v12::record::header::{DTLS1_0, DTLS1_2};
use crate::Instant;

impl Connection {
    /// Start a client handshake: the first ClientHello is queued at once
    /// (poll it with [`Session::poll_transmit`](crate::Session::poll_transmit)).
    pub fn client<R: CryptoRng + ?Sized>(
        config: Arc<ClientConfig>,
        rng: &mut R,
        now: Instant,
    ) -> Result<Connection, Error> {
        Self::client_offering(config, None, rng, now)
    }

    /// Start a client handshake that offers to resume `session` (RFC 5246
    /// §7.3): the abbreviated handshake if the server still holds it, else
    /// the full one.
    pub fn client_resuming<R: CryptoRng + ?Sized>(
        config: Arc<ClientConfig>,
        session: ResumableSession,
        rng: &mut R,
        now: Instant,
    ) -> Result<Connection, Error> {
        Self::client_offering(config, Some(session), rng, now)
    }

    fn client_offering<R: CryptoRng + ?Sized>(
        config: Arc<ClientConfig>,
        resume: Option<ResumableSession>,
        rng: &mut R,
        now: Instant,
    ) -> Result<Connection, Error> {
        config.config.validate()?;
        let offers_psk = config.config.cipher_suites.iter().any(|s| s.is_psk());
        if offers_psk && config.psk.is_none() {
            return Err(Error::Config(ConfigError::PskSuiteWithoutPsk));
        }
        let offers_ecdhe = config.config.cipher_suites.iter().any(|s| !s.is_psk());
        let common = Arc::new(config.config.clone());
        let mut hs = HandshakeState::new(Step::ServerHello);
        rng.fill_bytes(&mut hs.client_random);
        // ECDHE suites draw their ephemeral key, CBC suites their record IVs
        // from a generator seeded here.
        let offers_cbc = config.config.cipher_suites.iter().any(|s| {
            matches!(
                s.protection(),
                crate::crypto::suite::RecordProtection::Cbc(_)
            )
        });
        if offers_ecdhe || offers_cbc {
            let mut seed = [0u8; 32];
            rng.fill_bytes(&mut seed);
            hs.rng_seed = Some(seed);
        }
        let mut extensions = Vec::new();
        let x = common.extensions;
        if offers_ecdhe && x.ecc_extensions {
            let mut g = Vec::new();
            g.put_vec16(&ext::SECP256R1.to_be_bytes());
            extensions.push(Extension {
                typ: ext::SUPPORTED_GROUPS,
                data: g,
            });
            extensions.push(Extension {
                typ: ext::EC_POINT_FORMATS,
                data: vec![1, 0],
            });
            let mut s = Vec::new();
            s.put_vec16(&ext::ECDSA_SECP256R1_SHA256.to_be_bytes());
            extensions.push(Extension {
                typ: ext::SIGNATURE_ALGORITHMS,
                data: s,
            });
        }
        // RFC 7250 §4.1: ask for the types other than X.509 this client
        // takes and offers
        if offers_ecdhe {
            let wanted = config.server_verifier.certificate_type();
            if wanted != CertificateType::X509 {
                extensions.push(Extension {
                    typ: ext::SERVER_CERTIFICATE_TYPE,
                    data: encode_type_list(&[wanted]),
                });
            }
            let own = config.client_certificate.as_ref();
            if let Some(own) = own.map(CertifiedKey::certificate_type) {
                if own != CertificateType::X509 {
                    extensions.push(Extension {
                        typ: ext::CLIENT_CERTIFICATE_TYPE,
                        data: encode_type_list(&[own]),
                    });
                }
            }
        }
        if x.extended_master_secret {
            extensions.push(Extension {
                typ: ext::EXTENDED_MASTER_SECRET,
                data: vec![],
            });
        }
        if x.renegotiation_info {
            extensions.push(Extension {
                typ: ext::RENEGOTIATION_INFO,
                data: vec![0],
            });
        }
        // RFC 9146 §3: the CID the server is to put in its records to us.
        let own_cid = common.cid_len.map(|n| {
            let mut cid = vec![0u8; n];
            rng.fill_bytes(&mut cid);
            cid
        });
        if let Some(cid) = &own_cid {
            let mut data = Vec::new();
            data.put_vec8(cid);
            extensions.push(Extension {
                typ: ext::CONNECTION_ID,
                data,
            });
        }
        let ch = ClientHello {
            version: DTLS1_2,
            random: hs.client_random,
            session_id: resume
                .as_ref()
                .map(|s| s.session_id.clone())
                .unwrap_or_default(),
            cookie: vec![],
            // RFC 5746 §3.4: secure renegotiation is offered by the empty
            // extension or, without it, by the SCSV
            cipher_suites: common
                .cipher_suites
                .iter()
                .map(|s| s.id())
                .chain(
                    (x.renegotiation_scsv && !x.renegotiation_info)
                        .then_some(ext::EMPTY_RENEGOTIATION_INFO_SCSV),
                )
                .collect(),
            compression_methods: vec![0],
            extensions,
        };
        let mut conn = Connection::new_common(Credentials::Client(config), common, now);
        conn.own_cid = own_cid;
        hs.client_hello = Some(ch);
        hs.resuming = resume;
        conn.hs = Some(Box::new(hs));
        conn.send_client_hello(now);
        Ok(conn)
    }

    fn client_config(&self) -> Arc<ClientConfig> {
        match &self.creds {
            Credentials::Client(c) => c.clone(),
            Credentials::Server(_) => unreachable!("client handler on a server connection"),
        }
    }

    pub(crate) fn send_client_hello(&mut self, now: Instant) {
        let seq = self.out_msg_seq;
        self.out_msg_seq += 1;
        let Some(hs) = self.hs.as_mut() else { return };
        let Some(ch) = hs.client_hello.as_ref() else {
            return;
        };
        let mut body = Vec::new();
        ch.emit(&mut body);
        hs.client_hello_seq = seq;
        // Not hashed yet: the transcript starts with the hello that the
        // ServerHello answers.
        let m = OutMessage::Handshake {
            msg_type: T::ClientHello.to_u8(),
            seq,
            body,
            epoch: 0,
        };
        self.send_flight(now, vec![m], true);
    }

    /// Handle message `ty` arriving while the handshake is at `step`.
    pub(crate) fn client_handle(
        &mut self,
        now: Instant,
        (step, ty): (Step, T),
        seq: u16,
        body: &[u8],
    ) -> Result<(), Error> {
        match (step, ty) {
            (Step::ServerHello, T::HelloVerifyRequest) => self.on_hello_verify(now, body),
            (Step::ServerHello, T::ServerHello) => self.on_server_hello(seq, body),
            (Step::ServerCertificate, T::Certificate) => self.on_server_certificate(seq, body),
            (Step::ServerKeyExchange, T::ServerKeyExchange) => {
                self.on_server_key_exchange(seq, body)
            }
            (Step::ServerKeyExchange | Step::ServerHelloDone, T::CertificateRequest)
                if !self.suite.is_some_and(CipherSuite::is_psk) =>
            {
                super::messages::parse_certificate_request(body)?;
                self.transcript_add(ty.to_u8(), seq, body);
                let hs = self.hs.as_mut().expect("checked");
                hs.certificate_requested = true;
                hs.step = Step::ServerHelloDone;
                Ok(())
            }
            (Step::ServerKeyExchange, T::ServerHelloDone)
                if self.suite.is_some_and(CipherSuite::is_psk) =>
            {
                self.on_server_hello_done(now, seq, body)
            }
            (Step::ServerHelloDone, T::ServerHelloDone) => {
                self.on_server_hello_done(now, seq, body)
            }
            (Step::ServerFinished, T::Finished) => self.on_server_finished(now, seq, body),
            _ => Err(Error::UnexpectedMessage(Unexpected::Handshake(ty.to_u8()))),
        }
    }

    fn on_hello_verify(&mut self, now: Instant, body: &[u8]) -> Result<(), Error> {
        let hvr = HelloVerifyRequest::parse(body)?;
        if hvr.version != DTLS1_0 && hvr.version != DTLS1_2 {
            return Err(Error::ProtocolVersion);
        }
        let hs = self.hs.as_mut().expect("checked");
        hs.hello_verify_count += 1;
        if hs.hello_verify_count > 4 {
            return Err(Error::UnexpectedMessage(
                Unexpected::TooManyHelloVerifyRequests,
            ));
        }
        if let Some(ch) = hs.client_hello.as_mut() {
            ch.cookie = hvr.cookie;
        }
        self.send_client_hello(now);
        Ok(())
    }

    fn on_server_hello(&mut self, seq: u16, body: &[u8]) -> Result<(), Error> {
        let sh = ServerHello::parse(body)?;
        let cfg = self.client_config();
        if sh.version != DTLS1_2 {
            return Err(Error::ProtocolVersion);
        }
        let suite = CipherSuite::from_id(sh.cipher_suite)
            .filter(|s| self.config.cipher_suites.contains(s))
            .ok_or(Error::IllegalParameter(Illegal::SuiteNotOffered))?;
        if sh.compression_method != 0 {
            return Err(Error::IllegalParameter(Illegal::Compression));
        }
        let x = self.config.extensions;
        for e in &sh.extensions {
            let offered = match e.typ {
                ext::EXTENDED_MASTER_SECRET => x.extended_master_secret && e.data.is_empty(),
                // RFC 5746 §3.4: the answer to the extension or the SCSV
                ext::RENEGOTIATION_INFO => {
                    (x.renegotiation_info || x.renegotiation_scsv) && e.data == [0]
                }
                ext::EC_POINT_FORMATS => !suite.is_psk() && x.ecc_extensions,
                ext::CONNECTION_ID => self.own_cid.is_some(),
                ext::SERVER_CERTIFICATE_TYPE => {
                    cfg.server_verifier.certificate_type() != CertificateType::X509
                }
                ext::CLIENT_CERTIFICATE_TYPE => cfg
                    .client_certificate
                    .as_ref()
                    .is_some_and(|c| c.certificate_type() != CertificateType::X509),
                _ => false,
            };
            if !offered {
                return Err(Error::UnsupportedExtension);
            }
        }
        if let (Some(own), Some(data)) = (&self.own_cid, sh.extension(ext::CONNECTION_ID)) {
            let theirs = super::messages::parse_connection_id(data)?;
            let own = own.clone();
            self.set_cids(theirs, own);
        }
        let ems = sh.extension(ext::EXTENDED_MASTER_SECRET).is_some();
        if x.require_extended_master_secret && !ems {
            return Err(Error::HandshakeFailure(
                Disagreement::ExtendedMasterSecretRequired,
            ));
        }
        if suite.is_psk() && cfg.psk.is_none() {
            return Err(Error::HandshakeFailure(Disagreement::NoPsk));
        }
        // each selected type must be the one this client offered; X.509
        // when the server answers with none (RFC 7250 §4.2)
        let selected = |typ: u16, offered: CertificateType| match sh.extension(typ) {
            Some(data) => match decode_selected_type(data)? {
                t if t == offered => Ok(t),
                _ => Err(Error::IllegalParameter(Illegal::CertificateTypeNotOffered)),
            },
            None => Ok(CertificateType::X509),
        };
        let server_type = selected(
            ext::SERVER_CERTIFICATE_TYPE,
            cfg.server_verifier.certificate_type(),
        )?;
        let client_type = selected(
            ext::CLIENT_CERTIFICATE_TYPE,
            cfg.client_certificate
                .as_ref()
                .map_or(CertificateType::X509, CertifiedKey::certificate_type),
        )?;
        self.suite = Some(suite);
        let hs = self.hs.as_mut().expect("checked");
        hs.server_certificate_type = server_type;
        hs.client_certificate_type = client_type;
        hs.server_random = sh.random;
        hs.extended_master_secret = ems;
        hs.step = if suite.is_psk() {
            Step::ServerKeyExchange
        } else {
            Step::ServerCertificate
        };
        // The server resumes the session we offered by echoing its ID
        // (RFC 5246 §7.4.1.3); any other ID is a new session.
        let resumed = hs
            .resuming
            .take()
            .filter(|s| !sh.session_id.is_empty() && s.session_id == sh.session_id);
        if let Some(s) = &resumed {
            if s.suite != suite || s.extended_master_secret != ems {
                return Err(Error::IllegalParameter(Illegal::ResumedParametersChanged));
            }
        }
        hs.new_session_id = sh.session_id.clone();
        // The transcript starts with the hello this ServerHello answers.
        let ch = hs
            .client_hello
            .take()
            .ok_or(Error::Internal(InternalError::NoHello))?;
        let mut chb = Vec::new();
        ch.emit(&mut chb);
        let chseq = hs.client_hello_seq;
        self.transcript_add(T::ClientHello.to_u8(), chseq, &chb);
        self.transcript_add(T::ServerHello.to_u8(), seq, body);
        if let Some(s) = resumed {
            // abbreviated: the server's ChangeCipherSpec and Finished come next
            let hs = self.hs.as_mut().expect("checked");
            hs.master_secret = Some(s.master_secret.clone());
            hs.abbreviated = true;
            hs.step = Step::ServerFinished;
            self.derive_keys()?;
            // our hello is answered: stop resending it
            self.core.timer.stop();
            self.clear_flight();
        }
        Ok(())
    }

    fn on_server_certificate(&mut self, seq: u16, body: &[u8]) -> Result<(), Error> {
        let cfg = self.client_config();
        let t = self.hs.as_ref().expect("checked").server_certificate_type;
        let pk = super::peer_public_key(t, body, Some(&cfg.server_verifier))?;
        self.transcript_add(T::Certificate.to_u8(), seq, body);
        let hs = self.hs.as_mut().expect("checked");
        hs.peer_public_key = Some(pk);
        hs.step = Step::ServerKeyExchange;
        Ok(())
    }

    fn on_server_key_exchange(&mut self, seq: u16, body: &[u8]) -> Result<(), Error> {
        let suite = self.suite.ok_or(Error::Internal(InternalError::NoSuite))?;
        if suite.is_psk() {
            let mut r = Reader::new(body);
            let hint = r.vec16()?.to_vec();
            r.finish()?;
            self.transcript_add(T::ServerKeyExchange.to_u8(), seq, body);
            let hs = self.hs.as_mut().expect("checked");
            hs.psk_identity_hint = Some(hint);
            hs.step = Step::ServerHelloDone;
            return Ok(());
        }
        let ske = EcdheServerKeyExchange::parse(body)?;
        if ske.group != ext::SECP256R1 {
            return Err(Error::IllegalParameter(Illegal::Group));
        }
        if ske.scheme != ext::ECDSA_SECP256R1_SHA256 {
            return Err(Error::IllegalParameter(Illegal::SignatureScheme));
        }
        let hs = self.hs.as_mut().expect("checked");
        let params = EcdheServerKeyExchange::params(ske.group, &ske.public);
        let hash = signed_params_hash(
            &hs.client_random,
            &hs.server_random,
            &params,
            &mut self.core.stats.crypto,
        );
        let pk = hs
            .peer_public_key
            .as_ref()
            .ok_or(Error::Internal(InternalError::NoServerKey))?;
        ecc::verify(pk, &hash, &ske.signature, &mut self.core.stats.crypto)?;
        hs.peer_ecdhe_public = Some(ske.public);
        hs.step = Step::ServerHelloDone;
        self.transcript_add(T::ServerKeyExchange.to_u8(), seq, body);
        Ok(())
    }

    fn on_server_hello_done(&mut self, now: Instant, seq: u16, body: &[u8]) -> Result<(), Error> {
        if !body.is_empty() {
            return Err(Error::Decode(Malformed::ServerHelloDone));
        }
        self.transcript_add(T::ServerHelloDone.to_u8(), seq, body);
        let suite = self.suite.ok_or(Error::Internal(InternalError::NoSuite))?;
        let cfg = self.client_config();
        let mut flight = Vec::new();
        let pms;
        let mut sign_cv = false;
        if suite.is_psk() {
            let (identity, key) = cfg
                .psk
                .as_ref()
                .ok_or(Error::HandshakeFailure(Disagreement::NoPsk))?;
            let mut cke = Vec::new();
            cke.put_vec16(identity);
            flight.push(self.out_handshake(T::ClientKeyExchange.to_u8(), cke, 0));
            pms = psk_premaster(&key.0);
        } else {
            let hs = self.hs.as_mut().expect("checked");
            if hs.certificate_requested {
                let chain = cfg
                    .client_certificate
                    .as_ref()
                    .map(|c| c.chain.clone())
                    .unwrap_or_default();
                sign_cv = !chain.is_empty();
                let mut b = Vec::new();
                super::messages::emit_certificate_as(hs.client_certificate_type, &chain, &mut b);
                flight.push(self.out_handshake(T::Certificate.to_u8(), b, 0));
            }
            let hs = self.hs.as_mut().expect("checked");
            let mut rng = hs.rng()?;
            let (secret, public) = ecc::ephemeral(&mut rng, &mut self.core.stats.crypto);
            let peer = hs
                .peer_ecdhe_public
                .take()
                .ok_or(Error::Internal(InternalError::NoServerEcdheKey))?;
            pms = ecc::ecdh(&secret, &peer, &mut self.core.stats.crypto)?;
            let mut cke = Vec::new();
            cke.put_vec8(&public);
            flight.push(self.out_handshake(T::ClientKeyExchange.to_u8(), cke, 0));
        }
        self.compute_master_secret(&pms)?;
        if sign_cv {
            let key = cfg
                .client_certificate
                .as_ref()
                .map(|c| c.private_key.clone())
                .ok_or(Error::Internal(InternalError::NoClientKey))?;
            let hs = self.hs.as_ref().expect("checked");
            let h = hs.transcript.current(&mut self.core.stats.crypto);
            let sig = ecc::sign(&key, &h, &mut self.core.stats.crypto)?;
            let mut b = Vec::new();
            b.put_u16(ext::ECDSA_SECP256R1_SHA256);
            b.put_vec16(&sig);
            flight.push(self.out_handshake(T::CertificateVerify.to_u8(), b, 0));
        }
        self.derive_keys()?;
        flight.push(OutMessage::ChangeCipherSpec);
        self.write_epoch = 1;
        let vd = self.finished_data(b"client finished")?;
        flight.push(self.out_handshake(T::Finished.to_u8(), vd.to_vec(), 1));
        self.hs.as_mut().expect("checked").step = Step::ServerFinished;
        self.retransmit_trigger = Some((seq, 0));
        self.send_flight(now, flight, true);
        Ok(())
    }

    fn on_server_finished(&mut self, now: Instant, seq: u16, body: &[u8]) -> Result<(), Error> {
        let expected = self.finished_data(b"server finished")?;
        if !ct_eq(&expected, body) {
            return Err(Error::FinishedMismatch);
        }
        debug_assert_eq!(self.core.phase, Phase::Handshaking);
        self.keep_session();
        if self.hs.as_ref().is_some_and(|h| h.abbreviated) {
            // RFC 5246 §7.3: the client's Finished closes an abbreviated
            // handshake; it covers the server's Finished too, and is
            // resent only when the server repeats its flight.
            self.transcript_add(T::Finished.to_u8(), seq, body);
            self.write_epoch = 1;
            let vd = self.finished_data(b"client finished")?;
            let fin = self.out_handshake(T::Finished.to_u8(), vd.to_vec(), 1);
            self.retransmit_trigger = Some((seq, 1));
            self.send_flight(now, vec![OutMessage::ChangeCipherSpec, fin], false);
            self.resumed = true;
        } else {
            self.core.timer.stop();
            self.clear_flight();
            self.retransmit_trigger = None;
        }
        self.complete(now);
        Ok(())
    }
}

/// SHA-256 over client_random || server_random || params (the input of the
/// ServerKeyExchange signature).
pub(crate) fn signed_params_hash(
    cr: &[u8; 32],
    sr: &[u8; 32],
    params: &[u8],
    ops: &mut crate::accounting::CryptoOps,
) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(cr);
    h.update(sr);
    h.update(params);
    ops.sha256(64 + params.len());
    h.finalize().into()
}
