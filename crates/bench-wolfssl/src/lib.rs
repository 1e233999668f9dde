//! In-memory drivers for full ECDHE-ECDSA DTLS 1.2 and 1.3 handshakes and
//! for application records, client and server in one thread: our sans-IO
//! stack (`dtlsim-dtls`) and wolfSSL (through the `wolfssl` crate, the safe
//! wrapper of `wolfssl-sys`, which builds wolfSSL 5.9.4 from the source it
//! ships, DTLS 1.3 enabled) driven the same way. Used by
//! `benches/handshake.rs`; the tests below check that every pair completes,
//! carries application data, and count the bytes on the wire.
//!
//! Both stacks use one P-256 key and its self-signed certificate (made by
//! `dtls::crypto::ecc`), ECDHE on secp256r1 and AES-128-GCM:
//! ECDHE-ECDSA-AES128-GCM-SHA256 in 1.2, TLS_AES_128_GCM_SHA256 in 1.3.
//! The client trusts exactly that certificate (ours pins it; wolfSSL loads
//! it as its only root). Each side does its version's cookie exchange the
//! way its server does by default.
//!
//! PSK is not compared here: the `wolfssl` crate has no API for PSK
//! callbacks (and the workspace forbids the `unsafe` code that calling
//! `wolfssl-sys` directly would need); the PSK comparison runs the built
//! wolfSSL programs over real UDP (experiment 7).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;

use dtls::crypto::ecc::{public_of, self_signed_certificate};
use dtls::endpoint::Version as EndpointVersion;
use dtls::v13::config::{ClientConfig13, Config13, Credential13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::Server13;
use dtls::v13::key_exchange::NamedGroup;
use dtls::v13::messages::PskMode;
use dtls::v13::suite::CipherSuite13;
use dtls::{
    CertificateVerifier, CertifiedKey, CipherSuite, ClientConfig, Config, Connection, Endpoint,
    Event, Secret, Server, ServerConfig, Session as DtlsSession,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use wolfssl::{
    Context, ContextBuilder, CurveGroup, IOCallbackResult, IOCallbacks, Method, Poll,
    RootCertificate, Session, SessionConfig, SslVerifyMode,
};

/// DTLS version of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// DTLS 1.2 (RFC 6347).
    V12,
    /// DTLS 1.3 (RFC 9147).
    V13,
}

/// Datagrams and UDP payload bytes seen on the wire, both directions.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Datagrams, both directions.
    pub datagrams: usize,
    /// UDP payload bytes, both directions.
    pub bytes: usize,
}

impl Tally {
    fn record(&mut self, datagram: &[u8]) {
        self.datagrams += 1;
        self.bytes += datagram.len();
    }
}

/// The P-256 key and self-signed certificate both stacks use.
#[derive(Clone)]
pub struct Credentials {
    key: Secret,
    /// The certificate (DER).
    pub cert: Vec<u8>,
    /// The key as SEC 1 `ECPrivateKey` DER (RFC 5915), what wolfSSL loads.
    pub key_der: Vec<u8>,
}

impl Credentials {
    /// A fixed key (the scalar 3…3) and its certificate.
    pub fn new() -> Self {
        let key = Secret(vec![3; 32]);
        let cert = self_signed_certificate(&key, "bench").expect("certificate");
        let key_der = sec1_der(&key);
        Credentials { key, cert, key_der }
    }
}

impl Default for Credentials {
    fn default() -> Self {
        Self::new()
    }
}

/// RFC 5915 `ECPrivateKey` of a P-256 scalar: version 1, the 32-byte key,
/// the curve's OID (1.2.840.10045.3.1.7) and the uncompressed public point.
fn sec1_der(key: &Secret) -> Vec<u8> {
    let public = public_of(key).expect("public key");
    assert_eq!(public.len(), 65, "uncompressed P-256 point");
    let mut der = vec![0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20];
    der.extend_from_slice(&key.0);
    der.extend_from_slice(&[
        0xa0, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07,
    ]);
    der.extend_from_slice(&[0xa1, 0x44, 0x03, 0x42, 0x00]);
    der.extend_from_slice(&public);
    der
}

// --- ours ----------------------------------------------------------------

fn peer() -> SocketAddr {
    SocketAddr::from(([0xfe80, 0, 0, 0, 0, 0, 0, 1], 5684))
}

/// Our configurations of one version, cookie exchange on (the default).
pub enum OursConfigs {
    /// DTLS 1.2: ECDHE-ECDSA-AES128-GCM-SHA256.
    V12(Arc<ClientConfig>, Arc<ServerConfig>),
    /// DTLS 1.3: TLS_AES_128_GCM_SHA256, secp256r1.
    V13(Arc<ClientConfig13>, Arc<ServerConfig13>),
}

/// Our client and server for `version` with `creds`.
pub fn ours_configs(version: Version, creds: &Credentials) -> OursConfigs {
    let chain = CertifiedKey {
        chain: vec![creds.cert.clone()],
        private_key: creds.key.clone(),
    };
    let verifier = CertificateVerifier::Pinned(creds.cert.clone());
    match version {
        Version::V12 => {
            let cfg = Config {
                cipher_suites: vec![CipherSuite::EcdheEcdsaAes128GcmSha256],
                ..Config::default()
            };
            let c = ClientConfig {
                config: cfg.clone(),
                psk: None,
                server_verifier: verifier,
                client_certificate: None,
            };
            let mut s = ServerConfig::psk(cfg, b"id", &[0; 16]);
            s.psk_store = None;
            s.certificate = Some(chain);
            OursConfigs::V12(Arc::new(c), Arc::new(s))
        }
        Version::V13 => {
            let cfg = Config13 {
                suites: vec![CipherSuite13::Aes128GcmSha256],
                psk_modes: vec![PskMode::PskDheKe],
                groups: vec![NamedGroup::Secp256r1],
                ..Config13::default()
            };
            let c = ClientConfig13::certificate(cfg.clone(), verifier);
            let s = ServerConfig13::certificate(cfg, Credential13::x509(chain));
            OursConfigs::V13(Arc::new(c), Arc::new(s))
        }
    }
}

/// An established pair of ours (a benchmark holds one at a time: the size
/// difference of the variants does not matter).
#[allow(clippy::large_enum_variant)]
pub enum OursPair {
    /// DTLS 1.2.
    V12(Connection, Server<ChaCha20Rng>),
    /// DTLS 1.3.
    V13(Connection13, Server13<ChaCha20Rng>),
}

/// One round of an in-memory handshake: every datagram the client has
/// for the server, then every one the server has for the client, each
/// tallied; true if any moved.
fn exchange_round<V: EndpointVersion>(
    client: &mut impl DtlsSession,
    server: &mut Endpoint<V>,
    tally: &mut Tally,
) -> bool {
    let mut progress = false;
    while let Some(d) = client.poll_transmit(0) {
        tally.record(&d);
        server.handle_datagram(0, peer(), &d);
        progress = true;
    }
    while let Some(t) = server.poll_transmit(0) {
        tally.record(&t.payload);
        client.handle_datagram(0, &t.payload);
        progress = true;
    }
    progress
}

/// The client seals `data` in one record, the server opens it: what the
/// server reports next.
fn one_record<V: EndpointVersion>(
    client: &mut impl DtlsSession,
    server: &mut Endpoint<V>,
    data: &[u8],
) -> Option<(SocketAddr, Event)> {
    client.send(data).expect("send");
    while let Some(d) = client.poll_transmit(0) {
        server.handle_datagram(0, peer(), &d);
    }
    server.poll_event()
}

/// One full handshake of ours; what crossed the wire.
pub fn ours_handshake(configs: &OursConfigs, seed: u64) -> (OursPair, Tally) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let server_rng = ChaCha20Rng::seed_from_u64(!seed);
    let mut tally = Tally::default();
    match configs {
        OursConfigs::V12(c, s) => {
            let mut server = Server::new(s.clone(), server_rng, 0).expect("server");
            let mut client = Connection::client(c.clone(), &mut rng, 0).expect("client");
            while !(client.is_established() && server.session_count() == 1) {
                let progress = exchange_round(&mut client, &mut server, &mut tally);
                assert!(progress, "our 1.2 handshake stalled");
            }
            while server.poll_event().is_some() {}
            (OursPair::V12(client, server), tally)
        }
        OursConfigs::V13(c, s) => {
            let mut server = Server13::new(s.clone(), server_rng, 0).expect("server");
            let mut client = Connection13::client(c.clone(), &mut rng, 0).expect("client");
            // until the server has the client's Finished and its ACK is back
            loop {
                let progress = exchange_round(&mut client, &mut server, &mut tally);
                if !progress {
                    break;
                }
            }
            assert!(client.is_established(), "our 1.3 handshake stalled");
            while server.poll_event().is_some() {}
            (OursPair::V13(client, server), tally)
        }
    }
}

impl OursPair {
    /// The client seals `data` in one record, the server opens it; returns
    /// the bytes the server delivered.
    pub fn client_to_server(&mut self, data: &[u8]) -> usize {
        let delivered = match self {
            OursPair::V12(client, server) => one_record(client, server, data),
            OursPair::V13(client, server) => one_record(client, server, data),
        };
        match delivered {
            Some((_, Event::ApplicationData(got))) => got.len(),
            other => panic!("server delivered {other:?}"),
        }
    }
}

// --- wolfSSL -------------------------------------------------------------

/// Datagrams in flight in one direction.
type Queue = Rc<RefCell<VecDeque<Vec<u8>>>>;

/// One end of an in-memory datagram link for wolfSSL's I/O callbacks: each
/// `send` is one datagram, each `recv` returns exactly one (truncated to
/// the buffer, as a UDP socket would) or would block.
pub struct DatagramEnd {
    rx: Queue,
    tx: Queue,
    tally: Rc<RefCell<Tally>>,
}

impl IOCallbacks for DatagramEnd {
    fn recv(&mut self, buf: &mut [u8]) -> IOCallbackResult<usize> {
        match self.rx.borrow_mut().pop_front() {
            Some(d) => {
                let n = d.len().min(buf.len());
                buf[..n].copy_from_slice(&d[..n]);
                IOCallbackResult::Ok(n)
            }
            None => IOCallbackResult::WouldBlock,
        }
    }

    fn send(&mut self, buf: &[u8]) -> IOCallbackResult<usize> {
        self.tally.borrow_mut().record(buf);
        self.tx.borrow_mut().push_back(buf.to_vec());
        IOCallbackResult::Ok(buf.len())
    }
}

/// wolfSSL's client and server contexts of one version.
pub struct WolfContexts {
    client: Context,
    server: Context,
}

/// wolfSSL's contexts for `version` with `creds`: the suite and group
/// above, the certificate as the client's only root, verified.
pub fn wolfssl_contexts(
    version: Version,
    creds: &Credentials,
) -> Result<WolfContexts, wolfssl::Error> {
    let (client_method, server_method, suite) = match version {
        Version::V12 => (
            Method::DtlsClientV1_2,
            Method::DtlsServerV1_2,
            "ECDHE-ECDSA-AES128-GCM-SHA256",
        ),
        Version::V13 => (
            Method::DtlsClientV1_3,
            Method::DtlsServerV1_3,
            "TLS13-AES128-GCM-SHA256",
        ),
    };
    let builder = |m| ContextBuilder::new(m).expect("wolfSSL context");
    let client = builder(client_method)
        .with_cipher_list(suite)?
        .with_groups(&[CurveGroup::EccSecp256R1])?
        .with_root_certificate(RootCertificate::Asn1Buffer(&creds.cert))?
        .with_verify_method(SslVerifyMode::SslVerifyPeer)
        .build();
    let server = builder(server_method)
        .with_cipher_list(suite)?
        .with_groups(&[CurveGroup::EccSecp256R1])?
        .with_certificate(wolfssl::Secret::Asn1Buffer(&creds.cert))?
        .with_private_key(wolfssl::Secret::Asn1Buffer(&creds.key_der))?
        .with_verify_method(SslVerifyMode::SslVerifyNone)
        .build();
    Ok(WolfContexts { client, server })
}

/// An established wolfSSL pair.
pub struct WolfPair {
    client: Session<DatagramEnd>,
    server: Session<DatagramEnd>,
    buf: Vec<u8>,
}

fn session(ctx: &Context, io: DatagramEnd) -> Session<DatagramEnd> {
    ctx.new_session(SessionConfig::new(io).with_dtls_nonblocking(true))
        .expect("wolfSSL session")
}

fn pending<T>(p: Poll<T>) -> bool {
    !matches!(p, Poll::Ready(_))
}

/// One full wolfSSL handshake; what crossed the wire.
pub fn wolfssl_handshake(ctx: &WolfContexts) -> Result<(WolfPair, Tally), wolfssl::Error> {
    let a: Queue = Rc::default();
    let b: Queue = Rc::default();
    let tally = Rc::<RefCell<Tally>>::default();
    let end = |rx: &Queue, tx: &Queue| DatagramEnd {
        rx: rx.clone(),
        tx: tx.clone(),
        tally: tally.clone(),
    };
    let mut client = session(&ctx.client, end(&a, &b));
    let mut server = session(&ctx.server, end(&b, &a));
    let (mut client_pending, mut server_pending) = (true, true);
    for _ in 0..64 {
        if client_pending {
            client_pending = pending(client.try_negotiate()?);
        }
        if server_pending {
            server_pending = pending(server.try_negotiate()?);
        }
        if !client_pending && !server_pending && a.borrow().is_empty() && b.borrow().is_empty() {
            let tally = *tally.borrow();
            let buf = vec![0; 2048];
            return Ok((
                WolfPair {
                    client,
                    server,
                    buf,
                },
                tally,
            ));
        }
        // a finished side still reads what is in flight (the peer's ACK)
        if !client_pending && !b.borrow().is_empty() {
            let _ = client.try_read_slice(&mut [0; 64])?;
        }
        if !server_pending && !a.borrow().is_empty() {
            let _ = server.try_read_slice(&mut [0; 64])?;
        }
    }
    panic!("wolfSSL handshake stalled");
}

impl WolfPair {
    /// The client seals `data` in one record, the server opens it; returns
    /// the bytes the server delivered.
    pub fn client_to_server(&mut self, data: &[u8]) -> Result<usize, wolfssl::Error> {
        match self.client.try_write_slice(data)? {
            Poll::Ready(n) if n == data.len() => {}
            other => panic!("wolfSSL write: {other:?}"),
        }
        match self.server.try_read_slice(&mut self.buf)? {
            Poll::Ready(n) => Ok(n),
            other => panic!("wolfSSL read: {other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_completes_and_carries_a_record() {
        let creds = Credentials::new();
        for version in [Version::V12, Version::V13] {
            let configs = ours_configs(version, &creds);
            let (mut ours, ours_tally) = ours_handshake(&configs, 1);
            assert_eq!(ours.client_to_server(&[5; 500]), 500);
            let ctx = wolfssl_contexts(version, &creds).unwrap();
            let (mut wolf, wolf_tally) = wolfssl_handshake(&ctx).unwrap();
            assert_eq!(wolf.client_to_server(&[5; 500]).unwrap(), 500);
            // the certificate alone is over 300 bytes; each side sent it once
            for t in [ours_tally, wolf_tally] {
                assert!(t.bytes > 300 && t.datagrams >= 4, "{version:?}: {t:?}");
            }
            eprintln!("{version:?}: ours {ours_tally:?}, wolfSSL {wolf_tally:?}");
        }
    }
}
