//! The DTLS 1.3 server endpoint: many clients at once, a flood of
//! cookie-less ClientHellos allocating no session, cookie secret rotation,
//! the session limit.

use std::net::SocketAddr;
use std::sync::Arc;

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::Server13;
use dtls::Session;
use dtls::{Event, Phase};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const IDENTITY: &[u8] = b"Client_identity";
const PSK: &[u8] = &[7; 16];

fn addr(i: usize) -> SocketAddr {
    format!("[fe80::{:x}]:{}", i + 1, 5000 + i).parse().unwrap()
}

fn server(config: Config13, rotation_us: u64, max_sessions: usize) -> Server13<ChaCha20Rng> {
    let mut s = ServerConfig13::psk(config, IDENTITY, PSK);
    s.cookie_rotation_us = rotation_us;
    s.max_sessions = max_sessions;
    Server13::new(Arc::new(s), ChaCha20Rng::seed_from_u64(1), 0).unwrap()
}

fn client(config: Config13, seed: u64) -> Connection13 {
    let c = ClientConfig13::psk(config, IDENTITY, PSK);
    Connection13::client(Arc::new(c), &mut ChaCha20Rng::seed_from_u64(seed), 0).unwrap()
}

/// Clients and the endpoint exchanging datagrams without delay or loss
/// until nothing moves.
struct Net {
    now: u64,
    server: Server13<ChaCha20Rng>,
    clients: Vec<(SocketAddr, Connection13)>,
}

impl Net {
    fn step(&mut self) -> bool {
        let mut moved = false;
        for (a, c) in &mut self.clients {
            while let Some(d) = c.poll_transmit(self.now) {
                self.server.handle_datagram(self.now, *a, &d);
                moved = true;
            }
        }
        while let Some(t) = self.server.poll_transmit(self.now) {
            if let Some((_, c)) = self.clients.iter_mut().find(|(a, _)| *a == t.destination) {
                c.handle_datagram(self.now, &t.payload);
            }
            moved = true;
        }
        moved
    }

    fn run(&mut self) {
        for _ in 0..1000 {
            if !self.step() {
                let next = self
                    .clients
                    .iter()
                    .filter_map(|(_, c)| c.poll_timeout())
                    .chain(self.server.poll_timeout())
                    .min();
                match next {
                    Some(t) if t < 60_000_000 => {
                        self.now = self.now.max(t);
                        for (_, c) in &mut self.clients {
                            c.handle_timeout(self.now);
                        }
                        self.server.handle_timeout(self.now);
                    }
                    _ => return,
                }
            }
        }
    }
}

#[test]
fn many_clients_each_get_a_session_after_one_retry() {
    let n = 6;
    let mut net = Net {
        now: 0,
        server: server(Config13::psk_ccm8(), 60_000_000, 16),
        clients: (0..n)
            .map(|i| (addr(i), client(Config13::psk_ccm8(), 100 + i as u64)))
            .collect(),
    };
    net.run();
    for (a, c) in &mut net.clients {
        assert!(c.is_established(), "{a}");
        c.send(a.to_string().as_bytes()).unwrap();
    }
    net.run();
    let mut got = Vec::new();
    while let Some((peer, e)) = net.server.poll_event() {
        if let Event::ApplicationData(d) = e {
            assert_eq!(d, peer.to_string().into_bytes(), "data reaches its session");
            got.push(peer);
        }
    }
    assert_eq!(got.len(), n);
    for i in 0..n {
        let s = net.server.session(&addr(i)).unwrap();
        assert!(s.is_established());
        net.server.send(addr(i), b"pong").unwrap();
    }
    net.run();
    for (_, c) in &mut net.clients {
        let events: Vec<Event> = std::iter::from_fn(|| c.poll_event()).collect();
        assert!(events.contains(&Event::ApplicationData(b"pong".to_vec())));
    }
    let st = net.server.stats();
    assert_eq!(st.hello_retry_requests, n as u64);
    assert_eq!(st.sessions_created, n as u64);
    assert_eq!(net.server.session_count(), n);
}

#[test]
fn a_flood_of_cookieless_client_hellos_allocates_no_session() {
    let mut s = server(Config13::default(), 60_000_000, 16);
    let floods = 300;
    let mut answers = 0;
    for i in 0..floods {
        let mut c = client(Config13::default(), i as u64);
        let hello = c.poll_transmit(0).unwrap();
        s.handle_datagram(i as u64, addr(i), &hello);
        while let Some(t) = s.poll_transmit(0) {
            assert_eq!(t.destination, addr(i));
            answers += 1;
        }
    }
    let st = s.stats();
    assert_eq!(st.hello_retry_requests, floods as u64);
    assert_eq!(answers, floods);
    assert_eq!(st.sessions_created, 0);
    assert_eq!(s.session_count(), 0);
    assert_eq!(s.poll_timeout(), None, "no session, no timer");
    // garbage allocates nothing either
    s.handle_datagram(0, addr(0), &[22, 0xfe, 0xfd, 0, 0]);
    s.handle_datagram(0, addr(0), &[0x2f; 40]);
    assert_eq!(s.stats().dropped, 2);
    assert_eq!(s.session_count(), 0);
}

/// A client's second ClientHello, after the endpoint's HelloRetryRequest
/// sent at time 0.
fn second_hello(s: &mut Server13<ChaCha20Rng>, c: &mut Connection13, from: SocketAddr) -> Vec<u8> {
    let hello = c.poll_transmit(0).unwrap();
    s.handle_datagram(0, from, &hello);
    let hrr = s.poll_transmit(0).unwrap();
    c.handle_datagram(0, &hrr.payload);
    c.poll_transmit(0).unwrap()
}

#[test]
fn cookies_stay_valid_one_rotation_period_then_expire() {
    let period = 1_000_000;
    let mut s = server(Config13::psk_ccm8(), period, 16);
    let (a, b) = (addr(1), addr(2));
    let mut ca = client(Config13::psk_ccm8(), 1);
    let mut cb = client(Config13::psk_ccm8(), 2);
    let ha = second_hello(&mut s, &mut ca, a);
    let hb = second_hello(&mut s, &mut cb, b);
    assert_eq!(s.stats().hello_retry_requests, 2);

    // one rotation later the cookie was made with the previous secret
    s.handle_datagram(period + 1, a, &ha);
    assert_eq!(s.stats().sessions_created, 1);
    assert_eq!(
        s.session(&a).map(Connection13::phase),
        Some(Phase::Handshaking)
    );

    // two rotations later it is gone: another retry, no session
    s.handle_datagram(2 * period + 2, b, &hb);
    assert_eq!(s.stats().sessions_created, 1);
    assert_eq!(s.stats().hello_retry_requests, 3);
    assert!(s.session(&b).is_none());

    // a cookie is bound to the address it was sent to
    let mut cc = client(Config13::psk_ccm8(), 3);
    let hc = second_hello(&mut s, &mut cc, addr(3));
    s.handle_datagram(2 * period + 3, addr(4), &hc);
    assert!(s.session(&addr(4)).is_none());
    assert_eq!(s.stats().sessions_created, 1);
}

#[test]
fn a_full_endpoint_refuses_verified_hellos() {
    let mut net = Net {
        now: 0,
        server: server(Config13::psk_ccm8(), 60_000_000, 2),
        clients: (0..3)
            .map(|i| (addr(i), client(Config13::psk_ccm8(), 50 + i as u64)))
            .collect(),
    };
    net.run();
    let established = net.clients.iter().filter(|(_, c)| c.is_established());
    assert_eq!(established.count(), 2);
    assert_eq!(net.server.stats().refused_full, 1);
    assert_eq!(net.server.session_count(), 2);
    let (_, refused) = &net.clients[2];
    assert_eq!(refused.phase(), Phase::Failed, "refused with an alert");
}

#[test]
fn a_fragmented_hrr_and_server_hello_number_their_records_apart() {
    // a small fragment size fragments the server's HelloRetryRequest; the
    // session's ServerHello must not reuse its record numbers (or the
    // client's replay window drops it)
    let mut config = Config13::psk_ccm8();
    config.common.max_fragment_len = 40;
    let mut net = Net {
        now: 0,
        server: server(config, 60_000_000, 4),
        clients: vec![(addr(0), client(Config13::psk_ccm8(), 9))],
    };
    net.run();
    let (_, c) = &net.clients[0];
    assert!(c.is_established());
    assert_eq!(c.stats().retransmissions, 0, "nothing dropped as a replay");
}

fn server_with_cookie(config: Config13, require_cookie: bool) -> Server13<ChaCha20Rng> {
    let mut s = ServerConfig13::psk(config, IDENTITY, PSK);
    s.require_cookie = require_cookie;
    Server13::new(Arc::new(s), ChaCha20Rng::seed_from_u64(1), 0).unwrap()
}

fn small_fragments() -> Config13 {
    // a constrained MTU: no ClientHello fits one record
    let mut config = Config13::psk_ccm8();
    config.common.max_fragment_len = 64;
    // one fragment per datagram, as over an 802.15.4 frame
    config.common.mtu = 100;
    config
}

#[test]
fn a_client_hello_in_64_byte_fragments_is_reassembled_with_and_without_cookie() {
    for require_cookie in [true, false] {
        let mut net = Net {
            now: 0,
            server: server_with_cookie(small_fragments(), require_cookie),
            clients: vec![(addr(0), client(small_fragments(), 3))],
        };
        net.run();
        let (a, c) = &mut net.clients[0];
        assert!(c.is_established(), "cookie {require_cookie}");
        c.send(b"ping").unwrap();
        let a = *a;
        net.run();
        let got: Vec<Event> = std::iter::from_fn(|| net.server.poll_event())
            .map(|(_, e)| e)
            .collect();
        assert!(got.contains(&Event::ApplicationData(b"ping".to_vec())));
        assert!(net.server.session(&a).unwrap().is_established());
        let st = net.server.stats();
        // each hello (one, or two around the retry) came in fragments
        let hellos = if require_cookie { 2 } else { 1 };
        assert_eq!(st.hellos_reassembled, hellos, "cookie {require_cookie}");
        assert!(st.hello_fragments_kept > hellos);
        assert_eq!(st.hello_retry_requests, u64::from(require_cookie));
        assert_eq!(st.sessions_created, 1);
        assert_eq!(net.server.pending_hello_bytes(), 0, "the slot is freed");
    }
}

#[test]
fn a_flood_of_hello_fragments_from_many_addresses_stays_bounded() {
    use dtls::v13::first_hello::{PendingHellos, HELLO_SLOTS};
    let mut s = server_with_cookie(small_fragments(), true);
    let floods = 300;
    for i in 0..floods {
        // the first fragment of a genuine hello, never followed by the rest
        let mut c = client(small_fragments(), 1000 + i as u64);
        let datagram = c.poll_transmit(0).unwrap();
        // its first record only (DTLSPlaintext: 13-byte header, length in
        // the last two, RFC 9147 §4)
        let first = 13 + usize::from(u16::from_be_bytes([datagram[11], datagram[12]]));
        s.handle_datagram(i as u64, addr(i + 10), &datagram[..first]);
        assert!(s.pending_hello_bytes() <= PendingHellos::BOUND_BYTES);
    }
    let st = s.stats().clone();
    assert_eq!(st.hello_fragments_kept, floods as u64);
    assert_eq!(st.partial_hellos_evicted, (floods - HELLO_SLOTS) as u64);
    assert_eq!(st.hellos_reassembled, 0);
    assert_eq!(st.hello_retry_requests, 0, "no work before a whole hello");
    assert_eq!(st.crypto, Default::default(), "no crypto either");
    assert_eq!(s.session_count(), 0);
    assert!(s.pending_hello_bytes() > 0);
    // once the flood stops a genuine client still gets through
    let mut net = Net {
        now: floods as u64,
        server: s,
        clients: vec![(addr(0), client(small_fragments(), 4))],
    };
    net.run();
    assert!(net.clients[0].1.is_established());
}
