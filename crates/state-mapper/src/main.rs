//! The mapper between a state-machine learner (AALpy, `dtlsim.statelearn`)
//! and our DTLS 1.2 server (or, with `--dtls13`, our DTLS 1.3 server: see
//! [`v13`]), over real UDP on loopback.
//!
//! A line protocol on stdin/stdout: `reset` starts a fresh server (our
//! `dtls_udp` echo server on an ephemeral 127.0.0.1 port, on a thread) and a
//! fresh client socket, and answers `ok`; each abstract input (one of
//! [`Input::ALL`]) sends its concrete record and answers the abstract
//! output: the server's records in answer, by name, joined with `+`, or
//! `TIMEOUT` for none; `quit` ends.
//!
//! No answer is waited for by the clock: after each input a second socket
//! sends a cookie-less ClientHello, which the server answers statelessly
//! (a HelloVerifyRequest, RFC 6347 §4.2.1) and in the order received, so
//! once that answer is in, every answer to the input is too. The outputs
//! do not depend on the machine's speed.
//!
//! The concrete records come from our own client: a shadow `Connection`
//! that reads every answer of the server and whose datagrams (one record
//! each) are kept, not sent, so an input sends the client's message of that
//! kind whenever the learner asks for it, in any order. Where the client
//! has not made one yet, the mapper builds what a peer could send at that
//! point: a ClientHello with a wrong cookie, a ClientKeyExchange naming the
//! identity, a ChangeCipherSpec, a Finished of garbage, application data in
//! plaintext, or, once the server's random is known, sealed with the
//! epoch-1 keys derived from the PSK (RFC 5246 §6.3 / RFC 4279 §2;
//! extended master secret off for the learner, so the keys follow from the
//! two randoms).

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

use dtls::accounting::CryptoOps;
use dtls::codec::Reader;
use dtls::crypto::suite::AeadKind;
use dtls::fragment::{transcript_form, FragmentHeader};
use dtls::v12::handshake::messages::ClientHello;
use dtls::v12::keys::{key_block, master_secret, psk_premaster, MasterSecretInput};
use dtls::v12::record::header::{plaintext_record, split_datagram, DTLS1_2};
use dtls::v12::record::{ContentType, RecordHeader, RecordKeys};
use dtls::Session;
use dtls::{ClientConfig, Config, Connection, RecordPacking, RetransmitPolicy, ServerConfig};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

mod loopback;
mod v13;

use loopback::{output, Loopback};

const IDENTITY: &[u8] = b"Client_identity";
const PSK: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
/// The longest the mapper waits for the server's answer to its probe: a
/// server that has not answered by then is broken, not slow.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);
/// Handshake message types (RFC 5246 §7.4, RFC 6347 §4.3.2).
const CLIENT_HELLO: u8 = 1;
const CLIENT_KEY_EXCHANGE: u8 = 16;
const FINISHED: u8 = 20;

/// The abstract inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Input {
    ClientHello,
    ClientHelloCookie,
    ClientKeyExchange,
    ChangeCipherSpec,
    Finished,
    ApplicationData,
    Alert,
}

impl Input {
    const ALL: [Input; 7] = [
        Input::ClientHello,
        Input::ClientHelloCookie,
        Input::ClientKeyExchange,
        Input::ChangeCipherSpec,
        Input::Finished,
        Input::ApplicationData,
        Input::Alert,
    ];

    fn name(self) -> &'static str {
        match self {
            Input::ClientHello => "ClientHello",
            Input::ClientHelloCookie => "ClientHelloCookie",
            Input::ClientKeyExchange => "ClientKeyExchange",
            Input::ChangeCipherSpec => "ChangeCipherSpec",
            Input::Finished => "Finished",
            Input::ApplicationData => "ApplicationData",
            Input::Alert => "Alert",
        }
    }
}

/// Both sides' DTLS settings: PSK with AES-128-CCM-8, one record per
/// datagram (so each of the client's messages is a datagram of its own),
/// no extended master secret, and retransmission timers far longer than a
/// query, so no answer depends on how fast the machine is.
fn config() -> Config {
    let mut c = Config {
        packing: RecordPacking::OneRecordPerDatagram,
        retransmit: RetransmitPolicy::Fixed {
            interval_us: 600_000_000,
            max_retransmissions: 1,
        },
        ..Config::default()
    };
    c.extensions.extended_master_secret = false;
    c.extensions.require_extended_master_secret = false;
    c
}

/// The client's messages as its shadow connection made them.
#[derive(Default)]
struct Kept {
    hello: Option<Vec<u8>>,
    hello_cookie: Option<Vec<u8>>,
    key_exchange: Option<Vec<u8>>,
    /// The Finished message (opened: the mapper seals it again with its
    /// own record sequence number).
    finished: Option<Vec<u8>>,
}

struct Mapper {
    link: Loopback,
    shadow: Connection,
    kept: Kept,
    client_random: [u8; 32],
    server_random: Option<[u8; 32]>,
    /// Next record sequence numbers the mapper writes, per epoch.
    seq0: u64,
    seq1: u64,
    /// Virtual time of the shadow connection (µs; it never reads a clock).
    now: u64,
}

/// The one record of a datagram of the shadow client.
fn only_record(datagram: &[u8]) -> Option<(RecordHeader, Vec<u8>)> {
    let (records, _) = split_datagram(datagram);
    records.into_iter().next()
}

impl Mapper {
    fn start() -> std::io::Result<Mapper> {
        let mut server = ServerConfig::psk(config(), IDENTITY, PSK);
        server.require_cookie = true;
        let link = Loopback::start(server)?;
        let client = Arc::new(ClientConfig::psk(config(), IDENTITY, PSK));
        let shadow = Connection::client(client, &mut ChaCha20Rng::seed_from_u64(2), 0)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let mut m = Mapper {
            link,
            shadow,
            kept: Kept::default(),
            client_random: [0; 32],
            server_random: None,
            seq0: 0,
            seq1: 0,
            now: 0,
        };
        m.keep_shadow_output();
        Ok(m)
    }

    /// Keep what the shadow client would send, by message.
    fn keep_shadow_output(&mut self) {
        while let Some(d) = self.shadow.poll_transmit(self.now) {
            let Some((h, frag)) = only_record(&d) else {
                continue;
            };
            match (h.content_type, h.epoch, frag.first()) {
                (ContentType::Handshake, 0, Some(&CLIENT_HELLO)) => {
                    let hello = ClientHello::parse(&frag[12..]).ok();
                    if let Some(ch) = &hello {
                        self.client_random = ch.random;
                    }
                    if hello.is_some_and(|ch| !ch.cookie.is_empty()) {
                        self.kept.hello_cookie = Some(frag);
                    } else {
                        self.kept.hello = Some(frag);
                    }
                }
                (ContentType::Handshake, 0, Some(&CLIENT_KEY_EXCHANGE)) => {
                    self.kept.key_exchange = Some(frag)
                }
                (ContentType::Handshake, 1, _) => {
                    let mut ops = CryptoOps::default();
                    if let Some(plain) = self.keys().and_then(|k| k.open(&h, &frag, &mut ops)) {
                        self.kept.finished = Some(plain);
                    }
                }
                _ => {}
            }
        }
        while self.shadow.poll_event().is_some() {}
    }

    /// The client's epoch-1 keys, once the server's random is known: the
    /// PSK premaster secret (RFC 4279 §2), the master secret from the two
    /// randoms (RFC 5246 §8.1) and the key block (§6.3), for AES-128-CCM-8
    /// (no MAC key, 4-byte implicit nonce; RFC 6655 §3).
    fn keys(&self) -> Option<RecordKeys> {
        let server_random = self.server_random?;
        let mut ops = CryptoOps::default();
        let ms = master_secret(
            &psk_premaster(PSK),
            MasterSecretInput::Classic {
                client_random: &self.client_random,
                server_random: &server_random,
            },
            &mut ops,
        );
        let kb = key_block(&ms, &self.client_random, &server_random, 0, 4, &mut ops);
        Some(RecordKeys::new(
            AeadKind::Ccm8,
            &kb.client_key,
            kb.client_iv,
            &mut ops,
        ))
    }

    /// An epoch-1 record of `plaintext`, sealed with the client's keys and
    /// the mapper's next epoch-1 sequence number (one counter for every
    /// epoch-1 record it sends, so none is a replay of another).
    fn sealed(&mut self, content_type: ContentType, plaintext: &[u8]) -> Vec<u8> {
        let mut keys = self
            .keys()
            .expect("sealed only once the server's random is known");
        let h = RecordHeader {
            content_type,
            version: DTLS1_2,
            epoch: 1,
            seq: self.seq1,
            length: 0,
        };
        self.seq1 += 1;
        let mut out = Vec::new();
        keys.seal(h, plaintext, &mut out, &mut CryptoOps::default())
            .expect("AEAD keys seal");
        out
    }

    /// The concrete datagram of an abstract input.
    fn concrete(&mut self, input: Input) -> Vec<u8> {
        let hello = self.kept.hello.clone().expect("the client's first message");
        let plain = |m: &mut Mapper, ct: ContentType, frag: &[u8]| {
            m.seq0 += 1;
            plaintext_record(ct, 0, m.seq0 - 1, frag)
        };
        match input {
            Input::ClientHello => plain(self, ContentType::Handshake, &hello),
            Input::ClientHelloCookie => {
                let frag = self.kept.hello_cookie.clone().unwrap_or_else(|| {
                    // no HelloVerifyRequest seen: a cookie the server never made
                    let mut ch = ClientHello::parse(&hello[12..]).expect("our ClientHello");
                    ch.cookie = vec![0; 32];
                    let mut body = Vec::new();
                    ch.emit(&mut body);
                    transcript_form(CLIENT_HELLO, 1, &body)
                });
                plain(self, ContentType::Handshake, &frag)
            }
            Input::ClientKeyExchange => {
                let frag = self.kept.key_exchange.clone().unwrap_or_else(|| {
                    // psk_identity (RFC 4279 §2), what the client will send
                    let mut body = (IDENTITY.len() as u16).to_be_bytes().to_vec();
                    body.extend_from_slice(IDENTITY);
                    transcript_form(CLIENT_KEY_EXCHANGE, 2, &body)
                });
                plain(self, ContentType::Handshake, &frag)
            }
            Input::ChangeCipherSpec => plain(self, ContentType::ChangeCipherSpec, &[1]),
            Input::Finished => match self.kept.finished.clone() {
                Some(finished) => self.sealed(ContentType::Handshake, &finished),
                // no Finished yet: an epoch-1 record no key opens
                None => {
                    self.seq1 += 1;
                    plaintext_record(ContentType::Handshake, 1, self.seq1 - 1, &[0; 40])
                }
            },
            Input::ApplicationData => {
                if self.server_random.is_some() {
                    self.sealed(ContentType::ApplicationData, b"ping")
                } else {
                    plain(self, ContentType::ApplicationData, b"ping")
                }
            }
            // fatal handshake_failure (RFC 5246 §7.2), in plaintext
            Input::Alert => plain(self, ContentType::Alert, &[2, 40]),
        }
    }

    /// Send `input`, then the probe; once the probe is answered, read the
    /// server's answers to the input.
    fn step(&mut self, input: Input) -> std::io::Result<String> {
        let d = self.concrete(input);
        let hello = self.kept.hello.clone().expect("the client's first message");
        let probe = plaintext_record(ContentType::Handshake, 0, 0, &hello);
        let mut names: Vec<String> = Vec::new();
        for datagram in self.link.exchange(&d, &probe)? {
            for (h, frag) in split_datagram(&datagram).0 {
                names.push(self.name(&h, &frag));
            }
            self.now += 1_000;
            self.shadow.handle_datagram(self.now, &datagram);
            self.keep_shadow_output();
        }
        Ok(output(names))
    }

    /// The abstract name of one of the server's records (learning its
    /// random on the way).
    fn name(&mut self, h: &RecordHeader, frag: &[u8]) -> String {
        match (h.content_type, h.epoch) {
            (ContentType::Handshake, 0) => {
                let mut r = Reader::new(frag);
                match FragmentHeader::parse(&mut r) {
                    Ok((fh, body)) => {
                        if fh.msg_type == 2 && body.len() >= 34 {
                            let mut random = [0; 32];
                            random.copy_from_slice(&body[2..34]);
                            self.server_random = Some(random);
                        }
                        handshake_name(fh.msg_type).into()
                    }
                    Err(_) => "Handshake(undecodable)".into(),
                }
            }
            (ContentType::Handshake, _) => handshake_name(FINISHED).into(),
            (ContentType::ChangeCipherSpec, _) => "ChangeCipherSpec".into(),
            (ContentType::Alert, 0) if frag.len() == 2 => {
                format!(
                    "Alert({},{})",
                    if frag[0] == 2 { "fatal" } else { "warning" },
                    frag[1]
                )
            }
            (ContentType::Alert, _) => "Alert(encrypted)".into(),
            (ContentType::ApplicationData, _) => "ApplicationData".into(),
            _ => "Unknown".into(),
        }
    }
}

fn handshake_name(t: u8) -> &'static str {
    match t {
        0 => "HelloRequest",
        2 => "ServerHello",
        3 => "HelloVerifyRequest",
        11 => "Certificate",
        12 => "ServerKeyExchange",
        13 => "CertificateRequest",
        14 => "ServerHelloDone",
        FINISHED => "Finished",
        _ => "Handshake(other)",
    }
}

/// The server under learning.
enum Sul {
    V12(Box<Mapper>),
    V13(Box<v13::Mapper13>),
}

fn main() -> std::io::Result<()> {
    let dtls13 = std::env::args().any(|a| a == "--dtls13");
    let inputs: Vec<&str> = if dtls13 {
        v13::INPUTS.to_vec()
    } else {
        Input::ALL.map(Input::name).to_vec()
    };
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut sul: Option<Sul> = None;
    for line in stdin.lock().lines() {
        let line = line?;
        let word = line.trim();
        let answer = match word {
            "reset" => {
                drop(sul.take()); // stops the old server
                sul = Some(if dtls13 {
                    Sul::V13(Box::new(v13::Mapper13::start()?))
                } else {
                    Sul::V12(Box::new(Mapper::start()?))
                });
                "ok".to_string()
            }
            "quit" => break,
            "inputs" => inputs.join(" "),
            _ if !inputs.contains(&word) => format!("error: unknown input {word:?}"),
            _ => match sul.as_mut() {
                None => "error: reset first".into(),
                Some(Sul::V13(m)) => m.step(word)?,
                Some(Sul::V12(m)) => {
                    let i = Input::ALL.into_iter().find(|i| i.name() == word);
                    m.step(i.expect("one of the inputs"))?
                }
            },
        };
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}
