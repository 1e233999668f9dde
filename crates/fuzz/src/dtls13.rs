//! DTLS 1.3: the unified and plaintext record headers, ACKs and handshake
//! message codecs, and the server endpoint's first-ClientHello handling
//! and sessions, fed after k datagrams of a recorded handshake.

use dtls::v13::ack::Ack;
use dtls::v13::certificate::{self, CertificateRequest};
use dtls::v13::first_hello::PendingHellos;
use dtls::v13::header::{split_datagram, Header13};
use dtls::v13::messages::{ClientHello, EncryptedExtensions, ServerHello};
use dtls::Event;

use crate::dtls12::ALERT_SLACK;
use crate::input::datagrams;
use crate::recorded::{self, client_addr};

/// Records of a datagram (without and with a 4-byte connection ID):
/// each header re-emits to the bytes it was parsed from, and the records
/// cover a prefix of the datagram.
pub fn records(data: &[u8]) {
    for cid_len in [0, 4] {
        let (records, _) = split_datagram(data, cid_len);
        let mut rebuilt = Vec::new();
        for r in &records {
            let mut header = Vec::new();
            match &r.header {
                Header13::Plaintext(h) => h.emit(&mut header),
                Header13::Ciphertext(h) => h.emit(&mut header),
            }
            assert_eq!(header, r.header_bytes, "a header re-emits to its bytes");
            rebuilt.extend_from_slice(r.header_bytes);
            rebuilt.extend_from_slice(r.body);
        }
        assert!(
            data.starts_with(&rebuilt),
            "records cover a prefix of the datagram"
        );
    }
}

/// ACK and handshake message bodies: what decodes, encodes and decodes to
/// the same value.
pub fn messages(data: &[u8]) {
    if let Ok(ack) = Ack::decode(data) {
        let mut out = Vec::new();
        ack.encode(&mut out);
        assert_eq!(out.len(), ack.encoded_len());
        assert_eq!(Ack::decode(&out).expect("re-decodes"), ack);
    }
    macro_rules! round_trip {
        ($t:ty) => {
            if let Ok(m) = <$t>::decode(data) {
                let mut out = Vec::new();
                m.encode(&mut out);
                assert_eq!(<$t>::decode(&out).expect("re-decodes"), m);
            }
        };
    }
    round_trip!(ClientHello);
    round_trip!(ServerHello);
    round_trip!(EncryptedExtensions);
    round_trip!(CertificateRequest);
    round_trip!(certificate::Certificate);
    let _ = dtls::cert::decode_type_list(data);
    let _ = dtls::cert::decode_selected_type(data);
}

/// The DTLS 1.3 server endpoint (cookies on) after k datagrams of a recorded
/// client (first byte, modulo their number + 1; all of them: an established
/// session is the starting state), then the fuzzer's datagrams (an empty one
/// runs the clock to the next timer): nothing panics, the first-ClientHello
/// table stays within its bound, at most one session, no answer larger than
/// a flight and an alert, application data only after Connected. From an
/// established session, no datagram the fuzzer can make ends it (it holds
/// no key, and a copy of a recorded record is a replay): only a
/// ClientHello that starts a new association may replace it (RFC 9147
/// §4.5.2; RFC 6347 §4.2.8), and the fuzzer's cannot pass the cookie check
/// of another random.
pub fn server(data: &[u8]) {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let rec = recorded::handshake13();
    let k = usize::from(choice) % (rec.c2s.len() + 1);
    let mut s = recorded::server13();
    let mut connected = false;
    let mut now = 0;
    let drain = |s: &mut dtls::v13::endpoint::Server13<_>, now: u64, connected: &mut bool| {
        let bytes: usize = std::iter::from_fn(|| s.poll_transmit(now))
            .map(|t| t.payload.len())
            .sum();
        while let Some((_, e)) = s.poll_event() {
            match e {
                Event::Connected => *connected = true,
                Event::ApplicationData(_) => {
                    assert!(
                        *connected,
                        "application data before the handshake completed"
                    )
                }
                _ => {}
            }
        }
        bytes
    };
    for (t, d) in &rec.c2s[..k] {
        now = *t;
        s.handle_datagram(now, client_addr(), d);
        drain(&mut s, now, &mut connected);
    }
    let established = |s: &dtls::v13::endpoint::Server13<_>| {
        s.session(&client_addr())
            .is_some_and(dtls::Session::is_established)
    };
    let from_established = k == rec.c2s.len() && established(&s);
    for d in datagrams(rest) {
        now = recorded::feed(&mut s, now, d);
        // (an empty datagram runs the clock: a timeout may end a session)
        if from_established && !d.is_empty() {
            assert!(
                established(&s),
                "an unauthenticated datagram ended the established session"
            );
        }
        let bytes = drain(&mut s, now, &mut connected);
        assert!(
            bytes <= rec.max_server_answer + ALERT_SLACK,
            "one datagram made the server send {bytes} bytes"
        );
        assert!(s.session_count() <= 1, "one address, one session");
        assert!(s.pending_hello_bytes() <= PendingHellos::BOUND_BYTES);
    }
}
