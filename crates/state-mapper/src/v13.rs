//! The mapper for our DTLS 1.3 server (`dtls_udp::bind_server13`, PSK with
//! TLS_AES_128_CCM_8_SHA256, psk_ke), over real UDP on loopback, with the
//! line protocol and the probe of the 1.2 mapper: a second socket's
//! cookie-less ClientHello is answered statelessly with a
//! HelloRetryRequest (RFC 9147 §5.1), in order, so once it is in, every
//! answer to the input is too.
//!
//! The concrete records come from a shadow client (`Connection13`) that
//! reads every answer of the server. Protected records (RFC 9147 §4) cannot
//! be made again by the mapper, whose record numbers are encrypted and
//! bound into the AEAD nonce, so the mapper sends the shadow's own
//! datagrams: its ClientHello and ClientHello with the cookie (plaintext,
//! renumbered as a peer's retransmission is), its Finished (the copy the
//! shadow made, then fresh copies from its retransmission timer while it
//! has one; otherwise the same copy again, which the server's replay window
//! drops), and application data the shadow seals in epoch 3 once it holds
//! the keys (in plaintext before). Where the shadow has nothing to send,
//! the mapper sends what a peer could: a Finished of garbage in epoch 2, a
//! plaintext ACK naming no record, a plaintext fatal alert.

use std::sync::Arc;

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::messages::HRR_RANDOM;
use dtls::Session;
use dtls::{Event, RecordPacking, RetransmitPolicy};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

use crate::loopback::{output, Loopback};
use crate::{IDENTITY, PSK};

/// The abstract inputs: the client's records, and the unauthenticated
/// handshake records anyone at its address could send (a plaintext
/// ServerHello, a ClientHello fragment claiming more than the reassembly
/// bound of 8 KB, two ClientHello fragments that disagree on the
/// message's length).
pub const INPUTS: [&str; 9] = [
    "ClientHello",
    "ClientHelloCookie",
    "Finished",
    "Ack",
    "ApplicationData",
    "Alert",
    "ServerHello",
    "OversizeHelloFragment",
    "InconsistentHelloFragments",
];

/// Content types (RFC 8446 §5.1, RFC 9147 §7).
const ALERT: u8 = 21;
const HANDSHAKE: u8 = 22;
const APPLICATION_DATA: u8 = 23;
const ACK: u8 = 26;

/// Both sides: the constrained profile (CCM-8, psk_ke), one record per
/// datagram, retransmission timers far longer than a query.
fn config() -> Config13 {
    let mut c = Config13::psk_ccm8();
    c.common.packing = RecordPacking::OneRecordPerDatagram;
    c.common.retransmit = RetransmitPolicy::Fixed {
        interval_us: 600_000_000,
        max_retransmissions: 3,
    };
    c
}

/// A DTLSPlaintext record (RFC 9147 §4), epoch 0.
fn plaintext(content_type: u8, seq: u64, fragment: &[u8]) -> Vec<u8> {
    let mut out = vec![content_type, 0xfe, 0xfd, 0, 0];
    out.extend_from_slice(&seq.to_be_bytes()[2..]);
    out.extend_from_slice(&(fragment.len() as u16).to_be_bytes());
    out.extend_from_slice(fragment);
    out
}

/// A handshake fragment (RFC 9147 §5.2: type, length, message_seq,
/// fragment_offset, fragment_length, then the bytes).
fn fragment(msg_type: u8, length: u32, message_seq: u16, offset: u32, body: &[u8]) -> Vec<u8> {
    let mut f = vec![msg_type];
    f.extend_from_slice(&length.to_be_bytes()[1..]);
    f.extend_from_slice(&message_seq.to_be_bytes());
    f.extend_from_slice(&offset.to_be_bytes()[1..]);
    f.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
    f.extend_from_slice(body);
    f
}

/// A plaintext datagram of the shadow renumbered to `seq`.
fn renumbered(datagram: &[u8], seq: u64) -> Vec<u8> {
    let mut d = datagram.to_vec();
    d[5..11].copy_from_slice(&seq.to_be_bytes()[2..]);
    d
}

/// The epoch bits of a unified header (RFC 9147 §4: 001CSLEE); None for a
/// plaintext record.
fn unified_epoch(datagram: &[u8]) -> Option<u8> {
    let first = *datagram.first()?;
    (first & 0b1110_0000 == 0b0010_0000).then_some(first & 0b11)
}

#[derive(Default)]
struct Kept {
    hello: Option<Vec<u8>>,
    hello_cookie: Option<Vec<u8>>,
    finished: Option<Vec<u8>>,
}

pub struct Mapper13 {
    link: Loopback,
    shadow: Connection13,
    kept: Kept,
    /// Next epoch-0 record sequence number the mapper writes.
    seq0: u64,
    /// The kept Finished has been sent once.
    finished_sent: bool,
    now: u64,
}

impl Mapper13 {
    pub fn start() -> std::io::Result<Mapper13> {
        let link = Loopback::start(ServerConfig13::psk(config(), IDENTITY, PSK))?;
        let client = Arc::new(ClientConfig13::psk(config(), IDENTITY, PSK));
        let shadow = Connection13::client(client, &mut ChaCha20Rng::seed_from_u64(2), 0)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let mut m = Mapper13 {
            link,
            shadow,
            kept: Kept::default(),
            seq0: 0,
            finished_sent: false,
            now: 0,
        };
        m.keep_shadow_output();
        Ok(m)
    }

    /// Keep the shadow's handshake datagrams by message; what it sends
    /// besides (its ACKs) is not an input.
    fn keep_shadow_output(&mut self) {
        while let Some(d) = self.shadow.poll_transmit(self.now) {
            if d.first() == Some(&HANDSHAKE) {
                if self.kept.hello.is_none() {
                    self.kept.hello = Some(d);
                } else {
                    self.kept.hello_cookie = Some(d);
                }
            } else if unified_epoch(&d) == Some(2) && self.kept.finished.is_none() {
                self.kept.finished = Some(d);
            }
        }
    }

    /// The shadow's next copy of its Finished, if its retransmission timer
    /// would send one.
    fn fresh_finished(&mut self) -> Option<Vec<u8>> {
        let at = self.shadow.poll_timeout()?;
        self.now = self.now.max(at);
        self.shadow.handle_timeout(self.now);
        let mut fresh = None;
        while let Some(d) = self.shadow.poll_transmit(self.now) {
            if unified_epoch(&d) == Some(2) {
                fresh.get_or_insert(d);
            }
        }
        fresh
    }

    fn concrete(&mut self, input: &str) -> Vec<u8> {
        let hello = self.kept.hello.clone().expect("the client's first message");
        self.seq0 += 1;
        let seq = self.seq0 - 1;
        match input {
            "ClientHello" => renumbered(&hello, seq),
            // no HelloRetryRequest seen yet: the first hello again (its
            // cookie-less copy is what a client without one sends)
            "ClientHelloCookie" => {
                renumbered(self.kept.hello_cookie.as_ref().unwrap_or(&hello), seq)
            }
            "Finished" => match self.kept.finished.clone() {
                Some(first) if !self.finished_sent => {
                    self.finished_sent = true;
                    first
                }
                Some(first) => self.fresh_finished().unwrap_or(first),
                // unified header, epoch 2, 8-bit sequence, length: garbage
                None => {
                    let mut d = vec![0b0010_1110, seq as u8, 0, 24];
                    d.extend_from_slice(&[0; 24]);
                    d
                }
            },
            // an ACK naming no record (RFC 9147 §7: a 2-byte empty list)
            "Ack" => plaintext(ACK, seq, &[0, 0]),
            "ApplicationData" => {
                if self.shadow.is_established() && self.shadow.send(b"ping").is_ok() {
                    if let Some(d) = self.shadow.poll_transmit(self.now) {
                        return d;
                    }
                }
                plaintext(APPLICATION_DATA, seq, b"ping")
            }
            // fatal handshake_failure (RFC 8446 §6), in plaintext
            "Alert" => plaintext(ALERT, seq, &[2, 40]),
            // a plaintext ServerHello (type 2) in message_seq 3: the
            // message an established session (ClientHello, ClientHello
            // with the cookie, Finished: 0 to 2) would take next
            "ServerHello" => plaintext(HANDSHAKE, seq, &fragment(2, 60, 3, 0, &[0xAB; 60])),
            // the first 100 bytes of a 9000-byte ClientHello (over the
            // 8192-byte reassembly bound), message_seq 3 as above
            "OversizeHelloFragment" => {
                plaintext(HANDSHAKE, seq, &fragment(1, 9000, 3, 0, &[1; 100]))
            }
            // two fragments of one ClientHello, 300 then 400 bytes long
            "InconsistentHelloFragments" => {
                let mut d = plaintext(HANDSHAKE, seq, &fragment(1, 300, 3, 0, &[1; 100]));
                self.seq0 += 1;
                let second = fragment(1, 400, 3, 100, &[1; 100]);
                d.extend_from_slice(&plaintext(HANDSHAKE, seq + 1, &second));
                d
            }
            _ => unreachable!("checked against INPUTS"),
        }
    }

    pub fn step(&mut self, input: &str) -> std::io::Result<String> {
        let d = self.concrete(input);
        let hello = self.kept.hello.clone().expect("the client's first message");
        let mut names: Vec<String> = Vec::new();
        for datagram in self.link.exchange(&d, &renumbered(&hello, 0))? {
            self.now += 1_000;
            self.shadow.handle_datagram(self.now, &datagram);
            let mut name = name(&datagram);
            while let Some(e) = self.shadow.poll_event() {
                match e {
                    Event::ApplicationData(_) => name = "ApplicationData".into(),
                    Event::AlertReceived(a) if unified_epoch(&datagram).is_some() => {
                        name = format!("Alert(encrypted,{})", a.description.to_u8())
                    }
                    _ => {}
                }
            }
            names.push(name);
            self.keep_shadow_output();
        }
        Ok(output(names))
    }
}

/// The abstract name of a datagram of the server (one record each): a
/// plaintext record by its type, a protected one by its epoch (2: the
/// server's encrypted flight, EncryptedExtensions and Finished; 3: an ACK,
/// unless the shadow read application data or an alert from it).
fn name(d: &[u8]) -> String {
    match (unified_epoch(d), d.first()) {
        (Some(2), _) => "EncryptedFlight".into(),
        (Some(3), _) => "Epoch3".into(),
        (Some(e), _) => format!("Epoch{e}"),
        (None, Some(&HANDSHAKE)) if d.len() >= 13 + 12 + 34 => match d[13] {
            2 if d[13 + 12 + 2..13 + 12 + 34] == HRR_RANDOM => "HelloRetryRequest".into(),
            2 => "ServerHello".into(),
            t => format!("Handshake({t})"),
        },
        (None, Some(&ALERT)) if d.len() == 15 => format!(
            "Alert({},{})",
            if d[13] == 2 { "fatal" } else { "warning" },
            d[14]
        ),
        (None, Some(&ACK)) => "Ack".into(),
        _ => "Unknown".into(),
    }
}
