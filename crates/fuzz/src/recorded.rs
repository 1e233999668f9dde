//! Real handshakes recorded in memory, deterministically (seeded RNGs, a
//! fixed virtual clock), so a target can replay the first k datagrams of
//! one side into a fresh endpoint and reach the state the handshake was in
//! after them: the fuzzer's bytes then meet every state, not only the first.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use dtls::crypto::ecc::self_signed_certificate;
use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::Server13;
use dtls::Session;
use dtls::{
    CertificateVerifier, CertifiedKey, CipherSuite, ClientConfig, Config, Connection, Secret,
    ServerConfig,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// The PSK identity and key of the PSK handshakes.
pub const IDENTITY: &[u8] = b"Client_identity";
/// The PSK of the PSK handshakes.
pub const PSK: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
/// The seed of every server endpoint's RNG (recording and replay).
pub const SERVER_SEED: u64 = 0x5e;
/// The seed of every client's RNG.
pub const CLIENT_SEED: u64 = 0xc1;
/// Virtual microseconds between two delivered datagrams.
pub const STEP_US: u64 = 1_000;
/// The application data each side sends once connected (so the recording
/// ends with records of the established state).
pub const APP_DATA: &[u8] = b"hello";

/// The client's address as the server sees it.
pub fn client_addr() -> SocketAddr {
    "[fe80::1]:5684".parse().expect("a literal address")
}

/// A seeded RNG.
pub fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// The datagrams of one handshake, each direction in order, with the
/// virtual time it was delivered at.
#[derive(Debug, Clone, Default)]
pub struct Recording {
    /// Client → server.
    pub c2s: Vec<(u64, Vec<u8>)>,
    /// Server → client.
    pub s2c: Vec<(u64, Vec<u8>)>,
    /// The largest number of bytes one delivered datagram made the server
    /// send (a whole flight, at most).
    pub max_server_answer: usize,
    /// Likewise for the client.
    pub max_client_answer: usize,
}

/// The DTLS 1.2 handshakes recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handshake12 {
    /// TLS_PSK_WITH_AES_128_CCM_8 with the cookie exchange.
    Psk,
    /// TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8 with certificates on both sides
    /// (server pinned by the client, client accepted by the server).
    EcdheMutual,
}

fn key(b: u8) -> Secret {
    Secret(vec![b; 32])
}

/// The ECDHE handshake's settings (both sides): its one suite.
fn ecdhe_config() -> Config {
    Config {
        cipher_suites: vec![CipherSuite::EcdheEcdsaAes128Ccm8],
        ..Config::default()
    }
}

/// The self-signed certificate of key `b` with subject CN=`name`, and
/// the key.
fn certified(b: u8, name: &str) -> CertifiedKey {
    CertifiedKey {
        chain: vec![self_signed_certificate(&key(b), name).expect("a P-256 key")],
        private_key: key(b),
    }
}

/// A configuration made once per handshake and process (`cells` hold one
/// per [`Handshake12`]).
fn once_per_handshake<T>(
    cells: &'static [OnceLock<Arc<T>>; 2],
    h: Handshake12,
    make: impl FnOnce() -> T,
) -> Arc<T> {
    Arc::clone(cells[h as usize].get_or_init(|| Arc::new(make())))
}

/// The server's configuration for `h` (the same for recording and replay).
pub fn server_config12(h: Handshake12) -> Arc<ServerConfig> {
    static C: [OnceLock<Arc<ServerConfig>>; 2] = [const { OnceLock::new() }; 2];
    once_per_handshake(&C, h, || match h {
        Handshake12::Psk => ServerConfig::psk(Config::default(), IDENTITY, PSK),
        Handshake12::EcdheMutual => {
            let mut s = ServerConfig::psk(ecdhe_config(), IDENTITY, PSK);
            s.psk_store = None;
            s.certificate = Some(certified(3, "server"));
            s.client_verifier = Some(CertificateVerifier::AcceptAny);
            s
        }
    })
}

/// The client's configuration for `h`.
pub fn client_config12(h: Handshake12) -> Arc<ClientConfig> {
    static C: [OnceLock<Arc<ClientConfig>>; 2] = [const { OnceLock::new() }; 2];
    once_per_handshake(&C, h, || match h {
        Handshake12::Psk => ClientConfig::psk(Config::default(), IDENTITY, PSK),
        Handshake12::EcdheMutual => ClientConfig {
            config: ecdhe_config(),
            psk: None,
            server_verifier: CertificateVerifier::Pinned(certified(3, "server").chain[0].clone()),
            client_certificate: Some(certified(5, "client")),
        },
    })
}

/// A fresh server endpoint as the recording's.
pub fn server12(h: Handshake12) -> dtls::Server<ChaCha20Rng> {
    dtls::Server::new(server_config12(h), rng(SERVER_SEED), 0).expect("a valid configuration")
}

/// A fresh client connection as the recording's (its first flight is
/// waiting in `poll_transmit`).
pub fn client12(h: Handshake12) -> Connection {
    Connection::client(client_config12(h), &mut rng(CLIENT_SEED), 0).expect("a valid configuration")
}

/// The recorded DTLS 1.2 handshake `h` (recorded once per process).
pub fn handshake12(h: Handshake12) -> &'static Recording {
    static PSK_REC: OnceLock<Recording> = OnceLock::new();
    static ECDHE_REC: OnceLock<Recording> = OnceLock::new();
    let cell = match h {
        Handshake12::Psk => &PSK_REC,
        Handshake12::EcdheMutual => &ECDHE_REC,
    };
    cell.get_or_init(|| record12(h))
}

fn record12(h: Handshake12) -> Recording {
    let mut server = server12(h);
    let mut client = client12(h);
    let rec = exchange(&mut client, &mut server);
    assert!(server
        .session(&client_addr())
        .is_some_and(Connection::is_established));
    rec
}

/// One side of a recorded handshake (and of a target's replay).
pub(crate) trait Side {
    fn deliver(&mut self, now: u64, datagram: &[u8]);
    fn next_timeout(&self) -> Option<u64>;
    fn fire_timeout(&mut self, now: u64);
    fn drain(&mut self, now: u64) -> Vec<Vec<u8>>;
    fn established(&self) -> bool;
    fn send_app_data(&mut self);
}

/// A datagram a side queued: a client's bytes, or a server's
/// [`dtls::Transmit`] (to [`client_addr`]).
trait Queued {
    fn into_payload(self) -> Vec<u8>;
}

impl Queued for Vec<u8> {
    fn into_payload(self) -> Vec<u8> {
        self
    }
}

impl Queued for dtls::Transmit {
    fn into_payload(self) -> Vec<u8> {
        self.payload
    }
}

/// [`Side`] for `$t`: a client connection (no address), or a server
/// endpoint that takes and sends datagrams of the client at `$peer`;
/// `$established` says whether its session is.
macro_rules! side {
    ($t:ty, ($($peer:expr)?), $established:expr) => {
        impl Side for $t {
            fn deliver(&mut self, now: u64, datagram: &[u8]) {
                self.handle_datagram(now, $($peer,)? datagram);
            }
            fn next_timeout(&self) -> Option<u64> {
                self.poll_timeout()
            }
            fn fire_timeout(&mut self, now: u64) {
                self.handle_timeout(now);
            }
            fn drain(&mut self, now: u64) -> Vec<Vec<u8>> {
                while self.poll_event().is_some() {}
                std::iter::from_fn(|| self.poll_transmit(now).map(Queued::into_payload)).collect()
            }
            fn established(&self) -> bool {
                $established(self)
            }
            fn send_app_data(&mut self) {
                self.send($($peer,)? APP_DATA).expect("connected");
            }
        }
    };
}
side!(Connection, (), Connection::is_established);
side!(Connection13, (), Connection13::is_established);
side!(
    dtls::Server<ChaCha20Rng>,
    (client_addr()),
    |s: &dtls::Server<ChaCha20Rng>| s
        .session(&client_addr())
        .is_some_and(Connection::is_established)
);
side!(Server13<ChaCha20Rng>, (client_addr()), |s: &Server13<
    ChaCha20Rng,
>| s
    .session(&client_addr())
    .is_some_and(Connection13::is_established));

/// Hand one of the fuzzer's datagrams to `side` after virtual time `now`
/// and return the new time: an empty one stands for the side's next timer
/// firing, any other arrives [`STEP_US`] later.
pub(crate) fn feed(side: &mut impl Side, now: u64, datagram: &[u8]) -> u64 {
    if datagram.is_empty() {
        let now = side.next_timeout().unwrap_or(now).max(now);
        side.fire_timeout(now);
        now
    } else {
        let now = now.saturating_add(STEP_US);
        side.deliver(now, datagram);
        now
    }
}

/// Deliver datagrams one at a time (client's first, in order), each at its
/// own virtual time, until both sides are quiet; then each side sends
/// [`APP_DATA`] once and those are delivered too.
fn exchange(client: &mut impl Side, server: &mut impl Side) -> Recording {
    use std::collections::VecDeque;
    let mut rec = Recording::default();
    let mut now = 0;
    let mut to_server: VecDeque<Vec<u8>> = client.drain(now).into();
    let mut to_client: VecDeque<Vec<u8>> = VecDeque::new();
    let mut sent_data = false;
    loop {
        if let Some(d) = to_server.pop_front() {
            now += STEP_US;
            server.deliver(now, &d);
            rec.c2s.push((now, d));
            let answer = server.drain(now);
            rec.max_server_answer = rec.max_server_answer.max(answer.iter().map(Vec::len).sum());
            to_client.extend(answer);
        } else if let Some(d) = to_client.pop_front() {
            now += STEP_US;
            client.deliver(now, &d);
            rec.s2c.push((now, d));
            let answer = client.drain(now);
            rec.max_client_answer = rec.max_client_answer.max(answer.iter().map(Vec::len).sum());
            to_server.extend(answer);
        } else if client.established() && server.established() && !sent_data {
            sent_data = true;
            client.send_app_data();
            server.send_app_data();
            to_server.extend(client.drain(now));
            to_client.extend(server.drain(now));
        } else {
            break;
        }
    }
    assert!(
        client.established() && server.established(),
        "the recorded handshake completes"
    );
    rec
}

/// The DTLS 1.3 server's configuration: PSK, cookie (HelloRetryRequest) on.
pub fn server_config13() -> Arc<ServerConfig13> {
    static C: OnceLock<Arc<ServerConfig13>> = OnceLock::new();
    Arc::clone(C.get_or_init(|| Arc::new(ServerConfig13::psk(Config13::default(), IDENTITY, PSK))))
}

/// A fresh DTLS 1.3 server endpoint as the recording's.
pub fn server13() -> Server13<ChaCha20Rng> {
    Server13::new(server_config13(), rng(SERVER_SEED), 0).expect("a valid configuration")
}

/// The recorded DTLS 1.3 PSK handshake through [`Server13`] (cookie
/// exchange included).
pub fn handshake13() -> &'static Recording {
    static REC: OnceLock<Recording> = OnceLock::new();
    REC.get_or_init(record13)
}

fn record13() -> Recording {
    let mut server = server13();
    let cfg = Arc::new(ClientConfig13::psk(Config13::default(), IDENTITY, PSK));
    let mut client =
        Connection13::client(cfg, &mut rng(CLIENT_SEED), 0).expect("a valid configuration");
    exchange(&mut client, &mut server)
}
