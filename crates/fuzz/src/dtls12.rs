//! DTLS 1.2: records, handshake messages, and the server endpoint and the
//! client fed arbitrary datagrams in every state of a recorded handshake.

use dtls::accounting::CryptoOps;
use dtls::codec::Reader;
use dtls::crypto::suite::{AeadKind, MacAlgorithm};
use dtls::fragment::FragmentHeader;
use dtls::fragment::{Reassembler, REASSEMBLY_WINDOW};
use dtls::replay::ReplayWindow;
use dtls::v12::handshake::messages::{
    parse_certificate, parse_certificate_request, ClientHello, EcdheServerKeyExchange,
    HelloVerifyRequest, ServerHello,
};
use dtls::v12::record::header::split_datagram;
use dtls::v12::record::RecordKeys;
use dtls::Event;
use dtls::Session;

use crate::input::datagrams;
use crate::recorded::{self, client_addr, Handshake12};

/// What one datagram may make an endpoint send beyond the largest answer of
/// the recorded handshake: one fatal alert record (13-byte header, 2-byte
/// alert, at most 16 bytes of explicit nonce and tag) rounded up.
pub const ALERT_SLACK: usize = 64;

/// Longest handshake message the handshake-message target reassembles.
const REASSEMBLY_LIMIT: usize = 4096;

/// The most a reassembler may hold: a message of at most `max_len` bytes
/// (and its received ranges, at most one per two bytes, 8 bytes each, plus
/// one) for each message_seq of its window.
fn reassembly_bound(max_len: usize) -> usize {
    usize::from(REASSEMBLY_WINDOW) * (max_len + 8 * (max_len / 2 + 2) + 8)
}

/// Splitting a datagram into records and opening them with fixed AEAD and
/// CBC keys: never a panic, and the records re-emit to the bytes they were
/// parsed from.
pub fn record(data: &[u8]) {
    let (records, _) = split_datagram(data);
    let mut ops = CryptoOps::default();
    let ccm = RecordKeys::new(AeadKind::Ccm8, &[1; 16], [2; 4], &mut ops);
    let gcm = RecordKeys::new(AeadKind::Gcm, &[1; 16], [2; 4], &mut ops);
    let cbc_sha = RecordKeys::cbc_receiver(MacAlgorithm::HmacSha1, &[1; 16], &[3; 20]);
    let cbc_sha256 = RecordKeys::cbc_receiver(MacAlgorithm::HmacSha256, &[1; 16], &[3; 32]);
    let mut w = ReplayWindow::new();
    let mut rebuilt = Vec::new();
    for (h, frag) in &records {
        for keys in [&ccm, &gcm, &cbc_sha, &cbc_sha256] {
            if let Some(plain) = keys.open(h, frag, &mut ops) {
                assert!(plain.len() <= frag.len(), "opening never grows a record");
            }
        }
        if w.check(h.seq) {
            w.mark(h.seq);
            assert!(!w.check(h.seq), "a marked sequence number is a replay");
        }
        h.emit(&mut rebuilt);
        rebuilt.extend_from_slice(frag);
    }
    assert!(data.starts_with(&rebuilt), "records re-emit to their bytes");
}

/// Handshake message bodies and fragment reassembly: hellos round-trip,
/// the other parsers never panic, reassembly stays within its limit.
pub fn handshake_messages(data: &[u8]) {
    if let Ok(ch) = ClientHello::parse(data) {
        let mut out = Vec::new();
        ch.emit(&mut out);
        assert_eq!(ClientHello::parse(&out).expect("re-parses"), ch);
    }
    if let Ok(sh) = ServerHello::parse(data) {
        let mut out = Vec::new();
        sh.emit(&mut out);
        assert_eq!(ServerHello::parse(&out).expect("re-parses"), sh);
    }
    if let Ok(hvr) = HelloVerifyRequest::parse(data) {
        let mut out = Vec::new();
        hvr.emit(&mut out);
        assert_eq!(HelloVerifyRequest::parse(&out).expect("re-parses"), hvr);
    }
    let _ = parse_certificate(data);
    let _ = parse_certificate_request(data);
    let _ = EcdheServerKeyExchange::parse(data);
    let mut r = Reader::new(data);
    let mut re = Reassembler::new(0, REASSEMBLY_LIMIT);
    while let Ok((h, body)) = FragmentHeader::parse(&mut r) {
        if re.insert(&h, body).is_err() {
            break;
        }
        let (held, bound) = (re.buffered_bytes(), reassembly_bound(REASSEMBLY_LIMIT));
        assert!(
            held <= bound,
            "reassembly holds {held} bytes, more than {bound}"
        );
        while let Some((_, _, msg)) = re.pop() {
            assert!(msg.len() <= REASSEMBLY_LIMIT, "a message is bounded");
        }
    }
}

/// Which recorded handshake and how much of it: the first byte's high bit
/// chooses PSK or ECDHE-ECDSA, its low seven bits how many datagrams of the
/// recording are replayed (modulo their number + 1).
fn choose(data: &[u8]) -> Option<(Handshake12, usize, &[u8])> {
    let (&choice, rest) = data.split_first()?;
    let h = if choice & 0x80 == 0 {
        Handshake12::Psk
    } else {
        Handshake12::EcdheMutual
    };
    Some((h, usize::from(choice & 0x7f), rest))
}

/// Application data is delivered only after the handshake connected.
#[derive(Default)]
struct EventOrder {
    connected: bool,
}

impl EventOrder {
    fn see(&mut self, e: &Event) {
        match e {
            Event::Connected => self.connected = true,
            Event::ApplicationData(_) => {
                assert!(
                    self.connected,
                    "application data before the handshake completed"
                )
            }
            _ => {}
        }
    }
}

/// A server endpoint (cookies on) after k datagrams of a recorded client,
/// then the fuzzer's datagrams from the same address; an empty datagram
/// lets the clock run to the next timer instead. Nothing may panic; at most
/// one session; no answer larger than a flight and an alert; no answer but
/// one HelloVerifyRequest while no session exists (no amplification before
/// the cookie); application data only after Connected.
pub fn server(data: &[u8]) {
    let Some((h, k, rest)) = choose(data) else {
        return;
    };
    let rec = recorded::handshake12(h);
    let k = k % (rec.c2s.len() + 1);
    let hello_verify_len = rec.s2c[0].1.len();
    let mut s = recorded::server12(h);
    let mut order = EventOrder::default();
    let mut now = 0;
    let drain = |s: &mut dtls::Server<_>, now: u64, order: &mut EventOrder| {
        let answer: Vec<Vec<u8>> = std::iter::from_fn(|| s.poll_transmit(now))
            .map(|t| {
                assert_eq!(t.destination, client_addr());
                t.payload
            })
            .collect();
        while let Some((_, e)) = s.poll_event() {
            order.see(&e);
        }
        answer
    };
    for (t, d) in &rec.c2s[..k] {
        now = *t;
        s.handle_datagram(now, client_addr(), d);
        drain(&mut s, now, &mut order);
    }
    for d in datagrams(rest) {
        let before = s.session_count();
        now = recorded::feed(&mut s, now, d);
        let answer = drain(&mut s, now, &mut order);
        let bytes: usize = answer.iter().map(Vec::len).sum();
        assert!(
            bytes <= rec.max_server_answer + ALERT_SLACK,
            "one datagram made the server send {bytes} bytes"
        );
        assert!(s.session_count() <= 1, "one address, one session");
        if before == 0 && s.session_count() == 0 && !d.is_empty() {
            assert!(
                answer.len() <= 1 && bytes <= hello_verify_len,
                "before a cookie the server answers at most a HelloVerifyRequest"
            );
        }
    }
}

/// A client after k datagrams of a recorded server, then the fuzzer's
/// datagrams (an empty one runs the clock to the next timer). Nothing may
/// panic; no answer larger than a flight and an alert; application data only
/// after Connected; a connected client runs the suite it offered.
pub fn client(data: &[u8]) {
    let Some((h, k, rest)) = choose(data) else {
        return;
    };
    let rec = recorded::handshake12(h);
    let k = k % (rec.s2c.len() + 1);
    let offered = recorded::client_config12(h).config.cipher_suites.clone();
    let mut c = recorded::client12(h);
    let mut order = EventOrder::default();
    let mut now = 0;
    let drain = |c: &mut dtls::Connection, now: u64, order: &mut EventOrder| {
        let answer: usize = std::iter::from_fn(|| c.poll_transmit(now))
            .map(|d| d.len())
            .sum();
        while let Some(e) = c.poll_event() {
            order.see(&e);
        }
        answer
    };
    drain(&mut c, now, &mut order);
    for (t, d) in &rec.s2c[..k] {
        now = *t;
        c.handle_datagram(now, d);
        drain(&mut c, now, &mut order);
    }
    for d in datagrams(rest) {
        now = recorded::feed(&mut c, now, d);
        let bytes = drain(&mut c, now, &mut order);
        assert!(
            bytes <= rec.max_client_answer + ALERT_SLACK,
            "one datagram made the client send {bytes} bytes"
        );
        if c.is_established() {
            let suite = c.cipher_suite().expect("a connected client has a suite");
            assert!(offered.contains(&suite), "the suite was offered");
        }
    }
}
