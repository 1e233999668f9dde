//! Server side of the DTLS 1.2 handshake (after the cookie exchange, which
//! the stateless [`crate::Server`] endpoint does).

use crate::error::{Disagreement, Illegal, InternalError, Malformed, Unexpected};
use std::sync::Arc;

use rand_core::CryptoRng;

use super::messages::CertificateType;
use super::messages::{ext, ClientHello, EcdheServerKeyExchange, Extension, ServerHello};
use super::{HandshakeState, HandshakeType as T, Step};
use crate::cert::decode_type_list;
use crate::cert::CertifiedKey;
use crate::codec::{Reader, Writer};
use crate::config::Config;
use crate::crypto::cookie::ct_eq;
use crate::crypto::ecc;
use crate::crypto::suite::{CipherSuite, Secret};
use crate::error::Error;
use crate::v12::config::ServerConfig;
use crate::v12::connection::{Connection, Credentials, OutMessage};
use crate::v12::keys::psk_premaster;
use crate::v12::record::header::DTLS1_2;
use crate::Instant;

/// Choose a suite: server preference among those offered and usable.
pub(crate) fn choose_suite(cfg: &ServerConfig, ch: &ClientHello) -> Option<CipherSuite> {
    let groups_ok = ch.extension(ext::SUPPORTED_GROUPS).is_none_or(|g| {
        let mut r = Reader::new(g);
        r.vec16()
            .is_ok_and(|l| l.chunks(2).any(|c| c == ext::SECP256R1.to_be_bytes()))
    });
    let sigs_ok = ch.extension(ext::SIGNATURE_ALGORITHMS).is_none_or(|g| {
        let mut r = Reader::new(g);
        r.vec16().is_ok_and(|l| {
            l.chunks(2)
                .any(|c| c == ext::ECDSA_SECP256R1_SHA256.to_be_bytes())
        })
    });
    // RFC 7250 §4.2: our certificate's type must be one the client takes
    // (X.509 when it names none)
    let type_ok = |own: &CertifiedKey| match ch.extension(ext::SERVER_CERTIFICATE_TYPE) {
        Some(list) => {
            decode_type_list(list).is_ok_and(|l| l.contains(&own.certificate_type().to_u8()))
        }
        None => own.certificate_type() == CertificateType::X509,
    };
    cfg.config.cipher_suites.iter().copied().find(|s| {
        ch.cipher_suites.contains(&s.id())
            && if s.is_psk() {
                cfg.psk_store.is_some()
            } else {
                cfg.certificate.as_ref().is_some_and(type_ok) && groups_ok && sigs_ok
            }
    })
}

/// The certificate types of an ECDHE handshake (RFC 7250 §4.2), each
/// selected in `exts` only in answer to the client's list: ours (which
/// [`choose_suite`] checked the client takes), and the client's, the one our
/// verifier takes if the client offers it (X.509 otherwise).
fn certificate_types(
    cfg: &ServerConfig,
    ch: &ClientHello,
    exts: &mut Vec<Extension>,
) -> Result<(CertificateType, CertificateType), Error> {
    let own = cfg
        .certificate
        .as_ref()
        .ok_or(Error::Internal(InternalError::NoCertificate))?
        .certificate_type();
    if ch.extension(ext::SERVER_CERTIFICATE_TYPE).is_some() {
        exts.push(Extension {
            typ: ext::SERVER_CERTIFICATE_TYPE,
            data: vec![own.to_u8()],
        });
    }
    let mut client = CertificateType::X509;
    if let (Some(list), Some(verifier)) = (
        ch.extension(ext::CLIENT_CERTIFICATE_TYPE),
        &cfg.client_verifier,
    ) {
        let list =
            decode_type_list(list).map_err(|_| Error::Decode(Malformed::ClientCertificateType))?;
        let wanted = verifier.certificate_type();
        if list.contains(&wanted.to_u8()) {
            client = wanted;
            exts.push(Extension {
                typ: ext::CLIENT_CERTIFICATE_TYPE,
                data: vec![wanted.to_u8()],
            });
        }
    }
    Ok((own, client))
}

impl Connection {
    /// Create a server-side connection for a peer whose cookie the
    /// endpoint verified (or when cookies are off). The caller then feeds it
    /// the datagram carrying the (first fragment of the) ClientHello.
    pub(crate) fn server_accept<R: CryptoRng + ?Sized>(
        config: Arc<ServerConfig>,
        common: Arc<Config>,
        rng: &mut R,
        now: Instant,
        record_seq: u64,
        message_seq: u16,
    ) -> Connection {
        let mut conn = Connection::new_common(Credentials::Server(config), common, now);
        // Our records continue from the hello's record number (RFC 6347
        // §4.2.1): the stateless HelloVerifyRequest already used lower ones.
        conn.write_seq[0] = record_seq;
        conn.reasm =
            crate::fragment::Reassembler::new(message_seq, conn.config.max_handshake_message_len);
        conn.out_msg_seq = message_seq;
        let mut hs = HandshakeState::new(Step::ClientHello);
        rng.fill_bytes(&mut hs.server_random);
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        hs.rng_seed = Some(seed);
        conn.hs = Some(Box::new(hs));
        conn
    }

    fn on_client_hello(&mut self, now: Instant, seq: u16, body: &[u8]) -> Result<(), Error> {
        let ch = ClientHello::parse(body)?;
        let cfg = self.server_config();
        let hs = self.hs.as_mut().expect("checked");
        hs.client_random = ch.random;
        hs.step = Step::ClientKeyExchange;
        self.transcript_add(T::ClientHello.to_u8(), seq, body);
        self.server_first_flight(now, &cfg, &ch, seq)
    }

    fn server_first_flight(
        &mut self,
        now: Instant,
        cfg: &ServerConfig,
        ch: &ClientHello,
        ch_seq: u16,
    ) -> Result<(), Error> {
        // DTLS 1.2 is 0xFEFD; a larger value is an older version (1.0).
        if ch.version > DTLS1_2 {
            return Err(Error::ProtocolVersion);
        }
        if !ch.compression_methods.contains(&0) {
            return Err(Error::IllegalParameter(Illegal::NoNullCompression));
        }
        let suite =
            choose_suite(cfg, ch).ok_or(Error::HandshakeFailure(Disagreement::NoCommonSuite))?;
        self.suite = Some(suite);
        let x = self.config.extensions;
        let mut exts = Vec::new();
        let ems = x.extended_master_secret
            && ch
                .extension(ext::EXTENDED_MASTER_SECRET)
                .is_some_and(|d| d.is_empty());
        if x.require_extended_master_secret && !ems {
            return Err(Error::HandshakeFailure(
                Disagreement::ExtendedMasterSecretRequired,
            ));
        }
        if ems {
            exts.push(Extension {
                typ: ext::EXTENDED_MASTER_SECRET,
                data: vec![],
            });
        }
        let reneg = ch.extension(ext::RENEGOTIATION_INFO);
        if let Some(r) = reneg {
            if r != [0] {
                return Err(Error::HandshakeFailure(Disagreement::RenegotiationInfo));
            }
        }
        if reneg.is_some()
            || ch
                .cipher_suites
                .contains(&ext::EMPTY_RENEGOTIATION_INFO_SCSV)
        {
            exts.push(Extension {
                typ: ext::RENEGOTIATION_INFO,
                data: vec![0],
            });
        }
        // RFC 9146 §3: answer a client's CID with ours when we use CIDs.
        if let (Some(own), Some(data)) = (&self.own_cid, ch.extension(ext::CONNECTION_ID)) {
            let theirs = super::messages::parse_connection_id(data)?;
            let mut d = Vec::new();
            d.put_vec8(own);
            exts.push(Extension {
                typ: ext::CONNECTION_ID,
                data: d,
            });
            let own = own.clone();
            self.set_cids(theirs, own);
        }
        if !suite.is_psk() {
            let (server_type, client_type) = certificate_types(cfg, ch, &mut exts)?;
            let hs = self.hs.as_mut().expect("set");
            hs.server_certificate_type = server_type;
            hs.client_certificate_type = client_type;
        }
        if !suite.is_psk() && ch.extension(ext::EC_POINT_FORMATS).is_some() {
            exts.push(Extension {
                typ: ext::EC_POINT_FORMATS,
                data: vec![1, 0],
            });
        }
        let hs = self.hs.as_mut().expect("set");
        hs.extended_master_secret = ems;
        // RFC 5246 §7.3: resume the session the hello names if we hold it
        // and the hello still fits it
        let resumed = hs
            .resuming
            .take()
            .filter(|s| s.session_id == ch.session_id && s.fits(&ch.cipher_suites, ems));
        let suite = resumed.as_ref().map_or(suite, |s| s.suite);
        self.suite = Some(suite);
        let hs = self.hs.as_mut().expect("set");
        let session_id = match &resumed {
            Some(s) => s.session_id.clone(),
            None => hs.new_session_id.clone(),
        };
        let sh = ServerHello {
            version: DTLS1_2,
            random: hs.server_random,
            session_id,
            cipher_suite: suite.id(),
            compression_method: 0,
            extensions: exts,
        };
        let mut b = Vec::new();
        sh.emit(&mut b);
        let mut flight = vec![self.out_handshake(T::ServerHello.to_u8(), b, 0)];
        if let Some(s) = resumed {
            // abbreviated: ChangeCipherSpec and Finished at once
            let hs = self.hs.as_mut().expect("set");
            hs.master_secret = Some(s.master_secret);
            hs.abbreviated = true;
            hs.step = Step::ClientFinished;
            self.derive_keys()?;
            self.write_epoch = 1;
            let vd = self.finished_data(b"server finished")?;
            flight.push(OutMessage::ChangeCipherSpec);
            flight.push(self.out_handshake(T::Finished.to_u8(), vd.to_vec(), 1));
            self.retransmit_trigger = Some((ch_seq, 0));
            self.send_flight(now, flight, true);
            return Ok(());
        }
        if suite.is_psk() {
            if let Some(hint) = &cfg.psk_identity_hint {
                let mut b = Vec::new();
                b.put_vec16(hint);
                flight.push(self.out_handshake(T::ServerKeyExchange.to_u8(), b, 0));
            }
        } else {
            let cert = cfg
                .certificate
                .as_ref()
                .ok_or(Error::Internal(InternalError::NoCertificate))?;
            let mut b = Vec::new();
            let t = self.hs.as_ref().expect("set").server_certificate_type;
            super::messages::emit_certificate_as(t, &cert.chain, &mut b);
            flight.push(self.out_handshake(T::Certificate.to_u8(), b, 0));
            let hs = self.hs.as_mut().expect("set");
            let mut rng = hs.rng()?;
            let (secret, public) = ecc::ephemeral(&mut rng, &mut self.core.stats.crypto);
            hs.ecdhe = Some(secret);
            let params = EcdheServerKeyExchange::params(ext::SECP256R1, &public);
            let h = super::client::signed_params_hash(
                &hs.client_random,
                &hs.server_random,
                &params,
                &mut self.core.stats.crypto,
            );
            let signature = ecc::sign(&cert.private_key, &h, &mut self.core.stats.crypto)?;
            let mut b = Vec::new();
            EcdheServerKeyExchange {
                group: ext::SECP256R1,
                public,
                scheme: ext::ECDSA_SECP256R1_SHA256,
                signature,
            }
            .emit(&mut b);
            flight.push(self.out_handshake(T::ServerKeyExchange.to_u8(), b, 0));
            if cfg.client_verifier.is_some() {
                let mut b = Vec::new();
                super::messages::emit_certificate_request(&mut b);
                flight.push(self.out_handshake(T::CertificateRequest.to_u8(), b, 0));
                let hs = self.hs.as_mut().expect("set");
                hs.certificate_requested = true;
                hs.step = Step::ClientCertificate;
            }
        }
        flight.push(self.out_handshake(T::ServerHelloDone.to_u8(), vec![], 0));
        self.retransmit_trigger = Some((ch_seq, 0));
        self.send_flight(now, flight, true);
        Ok(())
    }

    fn server_config(&self) -> Arc<ServerConfig> {
        match &self.creds {
            Credentials::Server(c) => c.clone(),
            Credentials::Client(_) => unreachable!("server handler on a client connection"),
        }
    }

    /// Handle message `ty` arriving while the handshake is at `step`.
    pub(crate) fn server_handle(
        &mut self,
        now: Instant,
        (step, ty): (Step, T),
        seq: u16,
        body: &[u8],
    ) -> Result<(), Error> {
        match (step, ty) {
            (Step::ClientHello, T::ClientHello) => self.on_client_hello(now, seq, body),
            (Step::ClientCertificate, T::Certificate) => self.on_client_certificate(seq, body),
            (Step::ClientKeyExchange, T::ClientKeyExchange) => {
                self.on_client_key_exchange(seq, body)
            }
            (Step::CertificateVerify, T::CertificateVerify) => {
                self.on_certificate_verify(seq, body)
            }
            (Step::ClientFinished, T::Finished) => self.on_client_finished(now, seq, body),
            (_, T::ClientHello) => Ok(()), // a late duplicate: ignore
            _ => Err(Error::UnexpectedMessage(Unexpected::Handshake(ty.to_u8()))),
        }
    }

    fn on_client_certificate(&mut self, seq: u16, body: &[u8]) -> Result<(), Error> {
        let cfg = self.server_config();
        let t = self.hs.as_ref().expect("checked").client_certificate_type;
        let pk = super::peer_public_key(t, body, cfg.client_verifier.as_ref())?;
        self.transcript_add(T::Certificate.to_u8(), seq, body);
        let hs = self.hs.as_mut().expect("checked");
        hs.peer_public_key = Some(pk);
        hs.step = Step::ClientKeyExchange;
        Ok(())
    }

    fn on_client_key_exchange(&mut self, seq: u16, body: &[u8]) -> Result<(), Error> {
        let suite = self.suite.ok_or(Error::Internal(InternalError::NoSuite))?;
        let cfg = self.server_config();
        let mut r = Reader::new(body);
        let pms = if suite.is_psk() {
            let identity = r.vec16()?;
            r.finish()?;
            let store = cfg
                .psk_store
                .as_ref()
                .ok_or(Error::Internal(InternalError::NoPskStore))?;
            let key = match store.lookup(identity) {
                Some(key) => key,
                None if cfg.reveal_unknown_psk_identity => return Err(Error::UnknownPskIdentity),
                None => self.stand_in_psk()?,
            };
            psk_premaster(&key.0)
        } else {
            let point = r.vec8()?;
            r.finish()?;
            let hs = self.hs.as_mut().expect("checked");
            let secret = hs
                .ecdhe
                .take()
                .ok_or(Error::Internal(InternalError::NoEcdheKey))?;
            ecc::ecdh(&secret, point, &mut self.core.stats.crypto)?
        };
        self.transcript_add(T::ClientKeyExchange.to_u8(), seq, body);
        self.compute_master_secret(&pms)?;
        self.derive_keys()?;
        let hs = self.hs.as_mut().expect("checked");
        hs.step = if hs.peer_public_key.is_some() {
            Step::CertificateVerify
        } else {
            Step::ClientFinished
        };
        Ok(())
    }

    /// A random key for an unknown identity: the handshake goes on as if
    /// the identity existed and the client's key were wrong, so the client's
    /// Finished fails as with a wrong key (RFC 4279 §2 lets a server hide
    /// which identities exist this way). Drawn from the handshake's
    /// generator, which is reseeded from the same draw for its later use.
    fn stand_in_psk(&mut self) -> Result<Secret, Error> {
        use rand_core::Rng;
        let hs = self
            .hs
            .as_mut()
            .ok_or(Error::Internal(InternalError::NoHandshake))?;
        let mut rng = hs.rng()?;
        let mut key = Secret(vec![0; 16]);
        rng.fill_bytes(&mut key.0);
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        hs.rng_seed = Some(seed);
        Ok(key)
    }

    fn on_certificate_verify(&mut self, seq: u16, body: &[u8]) -> Result<(), Error> {
        let mut r = Reader::new(body);
        let scheme = r.u16()?;
        let sig = r.vec16()?;
        r.finish()?;
        if scheme != ext::ECDSA_SECP256R1_SHA256 {
            return Err(Error::IllegalParameter(Illegal::SignatureScheme));
        }
        let hs = self.hs.as_mut().expect("checked");
        let h = hs.transcript.current(&mut self.core.stats.crypto);
        let pk = hs
            .peer_public_key
            .as_ref()
            .ok_or(Error::Internal(InternalError::NoClientKey))?;
        ecc::verify(pk, &h, sig, &mut self.core.stats.crypto)?;
        hs.step = Step::ClientFinished;
        self.transcript_add(T::CertificateVerify.to_u8(), seq, body);
        Ok(())
    }

    fn on_client_finished(&mut self, now: Instant, seq: u16, body: &[u8]) -> Result<(), Error> {
        let expected = self.finished_data(b"client finished")?;
        if !ct_eq(&expected, body) {
            return Err(Error::FinishedMismatch);
        }
        self.keep_session();
        if self.hs.as_ref().is_some_and(|h| h.abbreviated) {
            // the client's Finished ends an abbreviated handshake: nothing
            // of ours is left to send or resend
            self.core.timer.stop();
            self.clear_flight();
            self.retransmit_trigger = None;
            self.resumed = true;
            self.complete(now);
            return Ok(());
        }
        self.transcript_add(T::Finished.to_u8(), seq, body);
        let vd = self.finished_data(b"server finished")?;
        self.write_epoch = 1;
        let fin = self.out_handshake(T::Finished.to_u8(), vd.to_vec(), 1);
        self.retransmit_trigger = Some((seq, 1));
        self.send_flight(now, vec![OutMessage::ChangeCipherSpec, fin], false);
        self.complete(now);
        Ok(())
    }
}
