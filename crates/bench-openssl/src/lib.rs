//! In-memory drivers for full PSK-AES128-CCM8 DTLS 1.2 handshakes, client
//! and server in one process: our sans-IO stack (`dtlsim-dtls`) and OpenSSL
//! (through the `openssl` crate) driven the same way. Used by
//! `benches/psk_ccm8.rs`; the unit tests below check that both complete,
//! carry application data, do the cookie exchange, and count the bytes.
//!
//! Both handshakes use the same 16-byte PSK and identity (`"id"`),
//! PSK-AES128-CCM8 only, no session tickets, and the HelloVerifyRequest
//! cookie exchange with a 16-byte cookie.
//!
//! On the wire (UDP payload, both directions, per datagram in order):
//!
//! | flight | ours (tightest) | OpenSSL 3.0.19 |
//! |---|---|---|
//! | ClientHello | 67 | 125 |
//! | HelloVerifyRequest | 44 | 44 |
//! | ClientHello + cookie | 83 | 141 |
//! | ServerHello, ServerHelloDone | 88 | 131 |
//! | ClientKeyExchange, CCS, Finished | 96 | 96 |
//! | CCS, Finished | 67 | 67 |
//! | total | 6 datagrams, 445 B | 6 datagrams, 604 B |
//!
//! The difference is all in the hellos (+58 B per ClientHello, +43 B in
//! the ServerHello): OpenSSL's client adds the renegotiation SCSV and the
//! encrypt_then_mac, extended_master_secret and signature_algorithms (42 B)
//! extensions; its server answers renegotiation_info and
//! extended_master_secret and sends a 32-byte session ID. The tightest
//! preset sends no extensions and an empty session ID. Application data:
//! 29 + n bytes per record on both. (`crates/dtls/README.md` quotes 458 B
//! for ours: that is with the 15-byte identity `Client_identity`.)

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;

use dtls::Session;
use dtls::{ClientConfig, Config, Connection, Event, Server, ServerConfig};
use openssl::error::ErrorStack;
use openssl::hash::MessageDigest;
use openssl::memcmp;
use openssl::pkey::PKey;
use openssl::sign::Signer;
use openssl::ssl::{ErrorCode, Ssl, SslContext, SslMethod, SslOptions, SslStream, SslVersion};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// The pre-shared key both stacks use.
pub const PSK: [u8; 16] = [7; 16];
/// The PSK identity both stacks use.
pub const IDENTITY: &[u8] = b"id";
/// The MTU given to OpenSSL (`SSL_set_mtu`); ours packs flights into its
/// default MTU, and no flight here comes near either.
pub const MTU: u32 = 1400;
/// Length of the cookie OpenSSL's server sends (ours: 16 B too).
pub const COOKIE_LEN: usize = 16;

/// Datagrams and UDP payload bytes seen on the wire, both directions.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Datagrams, both directions.
    pub datagrams: usize,
    /// UDP payload bytes, both directions.
    pub bytes: usize,
    /// Datagrams starting with a plaintext HelloVerifyRequest record.
    pub hello_verify_requests: usize,
}

impl Tally {
    fn record(&mut self, datagram: &[u8]) {
        self.datagrams += 1;
        self.bytes += datagram.len();
        // content type handshake, epoch 0, handshake type hello_verify_request
        if datagram.len() > 13 && datagram[0] == 22 && datagram[3..5] == [0, 0] && datagram[13] == 3
        {
            self.hello_verify_requests += 1;
        }
    }
}

// --- ours ----------------------------------------------------------------

/// Address the in-memory client appears to come from (the server's cookie
/// covers it).
pub fn ours_peer() -> SocketAddr {
    SocketAddr::from(([0xfe80, 0, 0, 0, 0, 0, 0, 1], 5684))
}

/// Client and server configurations: `Config::tightest_psk_ccm8()` (packed
/// flights, no extensions, PSK-CCM8 only), cookie exchange required.
pub fn ours_configs() -> (Arc<ClientConfig>, Arc<ServerConfig>) {
    let cfg = Config::tightest_psk_ccm8();
    let c = ClientConfig::psk(cfg.clone(), IDENTITY, &PSK);
    let s = ServerConfig::psk(cfg, IDENTITY, &PSK);
    assert!(s.require_cookie);
    (Arc::new(c), Arc::new(s))
}

/// Both ends of one of our in-memory connections.
pub struct OursPair {
    /// The client.
    pub client: Connection,
    /// The server endpoint (one session, from [`ours_peer`]).
    pub server: Server<ChaCha20Rng>,
    /// What the handshake put on the wire.
    pub tally: Tally,
}

/// One full handshake with our stack, same loop as
/// `crates/dtls/benches/handshake.rs` (virtual time stays at 0).
pub fn ours_handshake(c: &Arc<ClientConfig>, s: &Arc<ServerConfig>, seed: u64) -> OursPair {
    let peer = ours_peer();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut server = Server::new(s.clone(), ChaCha20Rng::seed_from_u64(!seed), 0).unwrap();
    let mut client = Connection::client(c.clone(), &mut rng, 0).unwrap();
    let mut tally = Tally::default();
    while !client.is_established() {
        let mut progress = false;
        while let Some(d) = client.poll_transmit(0) {
            tally.record(&d);
            server.handle_datagram(0, peer, &d);
            progress = true;
        }
        while let Some(t) = server.poll_transmit(0) {
            tally.record(&t.payload);
            client.handle_datagram(0, &t.payload);
            progress = true;
        }
        assert!(progress, "our handshake stalled");
    }
    OursPair {
        client,
        server,
        tally,
    }
}

impl OursPair {
    /// Sends `data` from the client to the server and returns what the
    /// server delivered, with the datagrams that crossed.
    pub fn client_to_server(&mut self, data: &[u8]) -> (Vec<u8>, Tally) {
        let mut tally = Tally::default();
        self.client.send(data).unwrap();
        while let Some(d) = self.client.poll_transmit(0) {
            tally.record(&d);
            self.server.handle_datagram(0, ours_peer(), &d);
        }
        while let Some((_, ev)) = self.server.poll_event() {
            if let Event::ApplicationData(got) = ev {
                return (got, tally);
            }
        }
        panic!("server delivered no application data");
    }

    /// Sends `data` from the server to the client and returns what the
    /// client delivered, with the datagrams that crossed.
    pub fn server_to_client(&mut self, data: &[u8]) -> (Vec<u8>, Tally) {
        let mut tally = Tally::default();
        self.server.send(ours_peer(), data).unwrap();
        while let Some(t) = self.server.poll_transmit(0) {
            tally.record(&t.payload);
            self.client.handle_datagram(0, &t.payload);
        }
        while let Some(ev) = self.client.poll_event() {
            if let Event::ApplicationData(got) = ev {
                return (got, tally);
            }
        }
        panic!("client delivered no application data");
    }
}

// --- OpenSSL -------------------------------------------------------------

/// Datagrams in flight in one direction.
type Queue = Rc<RefCell<VecDeque<Vec<u8>>>>;

/// One end of an in-memory datagram link: each `write` is one datagram,
/// each `read` returns exactly one datagram (truncated to the buffer, as a
/// UDP socket would) or `WouldBlock` when none is waiting.
pub struct DatagramEnd {
    rx: Queue,
    tx: Queue,
    tally: Rc<RefCell<Tally>>,
}

/// Two connected [`DatagramEnd`]s sharing one [`Tally`] of what was written.
pub fn datagram_pair() -> (DatagramEnd, DatagramEnd, Rc<RefCell<Tally>>) {
    let a: Queue = Rc::default();
    let b: Queue = Rc::default();
    let tally = Rc::<RefCell<Tally>>::default();
    (
        DatagramEnd {
            rx: a.clone(),
            tx: b.clone(),
            tally: tally.clone(),
        },
        DatagramEnd {
            rx: b,
            tx: a,
            tally: tally.clone(),
        },
        tally,
    )
}

impl DatagramEnd {
    /// Datagrams waiting to be read at this end.
    pub fn pending(&self) -> usize {
        self.rx.borrow().len()
    }
}

impl Read for DatagramEnd {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.rx.borrow_mut().pop_front() {
            Some(d) => {
                let n = d.len().min(buf.len());
                buf[..n].copy_from_slice(&d[..n]);
                Ok(n)
            }
            None => Err(io::ErrorKind::WouldBlock.into()),
        }
    }
}

impl Write for DatagramEnd {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tally.borrow_mut().record(buf);
        self.tx.borrow_mut().push_back(buf.to_vec());
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// OpenSSL client and server contexts: DTLS 1.2 only, `PSK-AES128-CCM8`
/// only, PSK callbacks, no tickets, no MTU query; the server does the
/// HelloVerifyRequest exchange (`SSL_OP_COOKIE_EXCHANGE`) with a 16-byte
/// cookie, HMAC-SHA256 under a server secret over the client's address
/// (fixed here: there is no socket), truncated — the same work as ours minus
/// the ClientHello fields, which OpenSSL's cookie callbacks do not see.
pub struct OpensslContexts {
    /// Client context.
    pub client: SslContext,
    /// Server context.
    pub server: SslContext,
}

fn cookie(key: &PKey<openssl::pkey::Private>, out: &mut [u8]) -> Result<usize, ErrorStack> {
    let mut signer = Signer::new(MessageDigest::sha256(), key)?;
    // The client's address as ours covers it (no socket in memory).
    signer.update(&[
        0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x16, 0x34,
    ])?;
    let mac = signer.sign_to_vec()?;
    out[..COOKIE_LEN].copy_from_slice(&mac[..COOKIE_LEN]);
    Ok(COOKIE_LEN)
}

/// Builds the contexts (once; the per-handshake work is in
/// [`openssl_handshake`]).
pub fn openssl_contexts() -> Result<OpensslContexts, ErrorStack> {
    let options = SslOptions::NO_TICKET | SslOptions::NO_QUERY_MTU;

    let mut c = SslContext::builder(SslMethod::dtls())?;
    c.set_min_proto_version(Some(SslVersion::DTLS1_2))?;
    c.set_max_proto_version(Some(SslVersion::DTLS1_2))?;
    c.set_cipher_list("PSK-AES128-CCM8")?;
    c.set_options(options);
    c.set_psk_client_callback(|_ssl, _hint, identity, psk| {
        // NUL-terminated identity.
        identity[..IDENTITY.len()].copy_from_slice(IDENTITY);
        identity[IDENTITY.len()] = 0;
        psk[..PSK.len()].copy_from_slice(&PSK);
        Ok(PSK.len())
    });

    let mut s = SslContext::builder(SslMethod::dtls())?;
    s.set_min_proto_version(Some(SslVersion::DTLS1_2))?;
    s.set_max_proto_version(Some(SslVersion::DTLS1_2))?;
    s.set_cipher_list("PSK-AES128-CCM8")?;
    s.set_options(options | SslOptions::COOKIE_EXCHANGE);
    s.set_psk_server_callback(|_ssl, identity, psk| {
        if identity == Some(IDENTITY) {
            psk[..PSK.len()].copy_from_slice(&PSK);
            Ok(PSK.len())
        } else {
            Ok(0) // unknown identity: handshake fails
        }
    });
    let secret = PKey::hmac(&[0x5a; 32])?;
    let k = secret.clone();
    s.set_cookie_generate_cb(move |_ssl, out| cookie(&k, out));
    s.set_cookie_verify_cb(move |_ssl, got| {
        let mut want = [0u8; COOKIE_LEN];
        cookie(&secret, &mut want).is_ok() && got.len() == COOKIE_LEN && memcmp::eq(got, &want)
    });

    Ok(OpensslContexts {
        client: c.build(),
        server: s.build(),
    })
}

/// Both ends of one OpenSSL in-memory connection.
pub struct OpensslPair {
    /// The client.
    pub client: SslStream<DatagramEnd>,
    /// The server.
    pub server: SslStream<DatagramEnd>,
    /// What the handshake put on the wire.
    pub tally: Tally,
    link: Rc<RefCell<Tally>>,
}

fn stream(
    ctx: &SslContext,
    end: DatagramEnd,
    client: bool,
) -> Result<SslStream<DatagramEnd>, ErrorStack> {
    let mut ssl = Ssl::new(ctx)?;
    ssl.set_mtu(MTU)?;
    if client {
        ssl.set_connect_state();
    } else {
        ssl.set_accept_state();
    }
    SslStream::new(ssl, end)
}

/// Steps one side's handshake; `Ok(true)` when it has finished.
fn step(s: &mut SslStream<DatagramEnd>, who: &str) -> Result<bool, String> {
    match s.do_handshake() {
        Ok(()) => Ok(true),
        Err(e) if e.code() == ErrorCode::WANT_READ => Ok(false),
        Err(e) => Err(format!("OpenSSL {who} handshake: {e}")),
    }
}

/// One full handshake with OpenSSL: client and server `SslStream`s over a
/// [`datagram_pair`], `do_handshake` on each in turn until both finish.
pub fn openssl_handshake(ctx: &OpensslContexts) -> Result<OpensslPair, String> {
    let (c_end, s_end, link) = datagram_pair();
    let mut client = stream(&ctx.client, c_end, true).map_err(|e| e.to_string())?;
    let mut server = stream(&ctx.server, s_end, false).map_err(|e| e.to_string())?;
    let (mut c_done, mut s_done) = (false, false);
    while !(c_done && s_done) {
        if !c_done {
            c_done = step(&mut client, "client")?;
        }
        if !s_done {
            s_done = step(&mut server, "server")?;
        }
        if !(c_done && s_done) && client.get_ref().pending() == 0 && server.get_ref().pending() == 0
        {
            return Err("OpenSSL handshake stalled".into());
        }
    }
    let tally = *link.borrow();
    Ok(OpensslPair {
        client,
        server,
        tally,
        link,
    })
}

impl OpensslPair {
    fn cross(
        from: &mut SslStream<DatagramEnd>,
        to: &mut SslStream<DatagramEnd>,
        link: &Rc<RefCell<Tally>>,
        data: &[u8],
    ) -> io::Result<(Vec<u8>, Tally)> {
        let before = *link.borrow();
        assert_eq!(from.ssl_write(data).map_err(io::Error::other)?, data.len());
        let mut buf = vec![0; 2048];
        let n = to.ssl_read(&mut buf).map_err(io::Error::other)?;
        buf.truncate(n);
        let after = *link.borrow();
        let tally = Tally {
            datagrams: after.datagrams - before.datagrams,
            bytes: after.bytes - before.bytes,
            hello_verify_requests: 0,
        };
        Ok((buf, tally))
    }

    /// Sends `data` from the client to the server and returns what the
    /// server read, with the datagrams that crossed.
    pub fn client_to_server(&mut self, data: &[u8]) -> io::Result<(Vec<u8>, Tally)> {
        Self::cross(&mut self.client, &mut self.server, &self.link, data)
    }

    /// Sends `data` from the server to the client and returns what the
    /// client read, with the datagrams that crossed.
    pub fn server_to_client(&mut self, data: &[u8]) -> io::Result<(Vec<u8>, Tally)> {
        Self::cross(&mut self.server, &mut self.client, &self.link, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_full_handshake_and_data() {
        let (c, s) = ours_configs();
        let mut p = ours_handshake(&c, &s, 1);
        assert!(p.server.session(&ours_peer()).unwrap().is_established());
        assert_eq!(p.tally.hello_verify_requests, 1, "cookie exchange");
        // README: tightest, 16 B cookie: 6 datagrams, 458 B with the
        // 15-byte identity "Client_identity"; 13 B less with "id".
        assert_eq!((p.tally.datagrams, p.tally.bytes), (6, 445));
        let (got, t) = p.client_to_server(b"ping");
        assert_eq!(got, b"ping");
        assert_eq!((t.datagrams, t.bytes), (1, 29 + 4));
        let (got, t) = p.server_to_client(b"pong");
        assert_eq!(got, b"pong");
        assert_eq!((t.datagrams, t.bytes), (1, 29 + 4));
    }

    #[test]
    fn openssl_full_handshake_and_data() {
        let ctx = openssl_contexts().unwrap();
        let mut p = openssl_handshake(&ctx).unwrap();
        assert_eq!(p.tally.hello_verify_requests, 1, "cookie exchange");
        let cs = p.client.ssl().current_cipher().unwrap().name();
        assert_eq!(cs, "PSK-AES128-CCM8");
        assert_eq!(p.client.ssl().version_str(), "DTLSv1.2");
        eprintln!("OpenSSL handshake: {:?}", p.tally);
        let (got, t) = p.client_to_server(b"ping").unwrap();
        assert_eq!(got, b"ping");
        assert_eq!((t.datagrams, t.bytes), (1, 29 + 4));
        let (got, t) = p.server_to_client(b"pong").unwrap();
        assert_eq!(got, b"pong");
        assert_eq!((t.datagrams, t.bytes), (1, 29 + 4));
    }

    #[test]
    fn ours_sends_fewer_bytes_than_openssl() {
        let (c, s) = ours_configs();
        let ours = ours_handshake(&c, &s, 2).tally;
        let theirs = openssl_handshake(&openssl_contexts().unwrap())
            .unwrap()
            .tally;
        eprintln!("ours {ours:?}, OpenSSL {theirs:?}");
        assert!(
            ours.bytes < theirs.bytes,
            "ours {ours:?}, OpenSSL {theirs:?}"
        );
        assert!(ours.datagrams <= theirs.datagrams);
    }
}
