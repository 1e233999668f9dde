//! DTLS 1.3 handshakes in memory, in virtual time: every mode and suite,
//! the stateless HelloRetryRequest cookie, loss of one datagram of each
//! flight (the ACK path), duplicates, and arbitrary datagrams.

use std::collections::VecDeque;
use std::sync::Arc;

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::key_exchange::NamedGroup;
use dtls::v13::messages::{PskMode, HRR_RANDOM};
use dtls::v13::suite::CipherSuite13;
use dtls::Session;
use dtls::{Config, Event, MessageKind, Phase};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const IDENTITY: &[u8] = b"Client_identity";
const PSK: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
const DELAY: u64 = 10_000;

type Drop = Box<dyn FnMut(bool, usize) -> bool>;

struct Pair {
    now: u64,
    client: Connection13,
    server: Connection13,
    /// Every datagram sent, client → server and server → client.
    c2s: Vec<Vec<u8>>,
    s2c: Vec<Vec<u8>>,
    /// (arrival, to the server?, datagram)
    wire: VecDeque<(u64, bool, Vec<u8>)>,
    drop: Drop,
    duplicate: bool,
    client_events: Vec<Event>,
    server_events: Vec<Event>,
}

impl Pair {
    fn new(client: Config13, server: Config13, require_cookie: bool, seed: u64) -> Pair {
        let c = ClientConfig13::psk(client, IDENTITY, PSK);
        let mut s = ServerConfig13::psk(server, IDENTITY, PSK);
        s.require_cookie = require_cookie;
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let peer = "[fe80::1]:5684".parse().unwrap();
        Pair {
            now: 0,
            server: Connection13::server(Arc::new(s), peer, &mut rng, 0).unwrap(),
            client: Connection13::client(Arc::new(c), &mut rng, 0).unwrap(),
            c2s: vec![],
            s2c: vec![],
            wire: VecDeque::new(),
            drop: Box::new(|_, _| false),
            duplicate: false,
            client_events: vec![],
            server_events: vec![],
        }
    }

    fn flush(&mut self) {
        while let Some(d) = self.client.poll_transmit(self.now) {
            self.c2s.push(d.clone());
            if !(self.drop)(true, self.c2s.len() - 1) {
                self.wire.push_back((self.now + DELAY, true, d));
            }
        }
        while let Some(d) = self.server.poll_transmit(self.now) {
            self.s2c.push(d.clone());
            if !(self.drop)(false, self.s2c.len() - 1) {
                self.wire.push_back((self.now + DELAY, false, d));
            }
        }
        self.client_events
            .extend(std::iter::from_fn(|| self.client.poll_event()));
        self.server_events
            .extend(std::iter::from_fn(|| self.server.poll_event()));
    }

    /// Run until nothing is in flight and no timer is due before `until`.
    fn run(&mut self, until: u64) {
        loop {
            self.flush();
            let next_arrival = self.wire.iter().map(|w| w.0).min();
            let next = [
                next_arrival,
                self.client.poll_timeout(),
                self.server.poll_timeout(),
            ]
            .into_iter()
            .flatten()
            .min();
            let Some(t) = next.filter(|t| *t <= until) else {
                break;
            };
            self.now = self.now.max(t);
            if next_arrival == Some(t) {
                let i = self.wire.iter().position(|w| w.0 == t).unwrap();
                let (_, to_server, d) = self.wire.remove(i).unwrap();
                for _ in 0..if self.duplicate { 2 } else { 1 } {
                    if to_server {
                        self.server.handle_datagram(self.now, &d);
                    } else {
                        self.client.handle_datagram(self.now, &d);
                    }
                }
            } else {
                self.client.handle_timeout(self.now);
                self.server.handle_timeout(self.now);
            }
        }
    }

    fn connected(&self) -> bool {
        self.client.phase() == Phase::Established && self.server.phase() == Phase::Established
    }

    fn exchange_data(&mut self) {
        self.client.send(b"ping from the client").unwrap();
        self.server.send(b"pong from the server").unwrap();
        self.run(self.now + 1_000_000);
        assert!(self
            .server_events
            .contains(&Event::ApplicationData(b"ping from the client".to_vec())));
        assert!(self
            .client_events
            .contains(&Event::ApplicationData(b"pong from the server".to_vec())));
    }
}

fn config(suite: CipherSuite13, mode: PskMode, group: NamedGroup) -> Config13 {
    Config13 {
        suites: vec![suite],
        psk_modes: vec![mode],
        groups: vec![group],
        ..Config13::default()
    }
}

fn is_hrr(datagram: &[u8]) -> bool {
    // plaintext record (13) + handshake header (12) + legacy_version (2)
    datagram.len() > 59 && datagram[0] == 22 && datagram[13] == 2 && datagram[27..59] == HRR_RANDOM
}

#[test]
fn every_mode_and_suite_with_data_both_ways() {
    for suite in CipherSuite13::ALL {
        for (mode, group) in [
            (PskMode::PskKe, NamedGroup::X25519),
            (PskMode::PskDheKe, NamedGroup::X25519),
            (PskMode::PskDheKe, NamedGroup::Secp256r1),
        ] {
            for cookie in [false, true] {
                let c = config(suite, mode, group);
                let mut p = Pair::new(c.clone(), c, cookie, 7);
                p.run(10_000_000);
                assert!(
                    p.connected(),
                    "{suite:?} {mode:?} {group:?} cookie {cookie}"
                );
                assert_eq!(p.client.cipher_suite(), Some(suite));
                assert_eq!(p.server.cipher_suite(), Some(suite));
                assert_eq!(is_hrr(&p.s2c[0]), cookie);
                let ecdh = p.client.stats().crypto.ecdh_ops;
                assert_eq!(ecdh, if mode == PskMode::PskDheKe { 2 } else { 0 });
                assert_eq!(p.server.stats().crypto.ecdh_ops, ecdh);
                if suite.hash() == dtls::v13::suite::HashAlg::Sha256 {
                    assert!(p.client.stats().crypto.sha256_compressions > 0);
                }
                // AES-256 blocks (TLS_AES_256_GCM_SHA384) are counted apart
                let ops = p.client.stats().crypto;
                let aes256 = suite == CipherSuite13::Aes256GcmSha384;
                assert_eq!(ops.aes_blocks > 0, !aes256, "{suite:?}");
                assert_eq!(ops.aes256_blocks > 0, aes256, "{suite:?}");
                // no retransmission, and the client's Finished was ACKed
                assert_eq!(p.client.stats().retransmissions, 0);
                assert!(p.server.stats().sent.bytes(MessageKind::Ack) > 0);
                assert_eq!(p.client.poll_timeout(), None);
                p.exchange_data();
                p.client.close();
                p.run(p.now + 1_000_000);
                assert!(p.server_events.contains(&Event::Closed));
                assert_eq!(p.server.phase(), Phase::Closed);
            }
        }
    }
}

#[test]
fn hello_retry_request_for_a_group_the_client_did_not_share() {
    let client = Config13 {
        psk_modes: vec![PskMode::PskDheKe],
        groups: vec![NamedGroup::X25519, NamedGroup::Secp256r1],
        ..Config13::default()
    };
    let server = Config13 {
        groups: vec![NamedGroup::Secp256r1],
        ..client.clone()
    };
    let mut p = Pair::new(client, server, false, 9);
    p.run(10_000_000);
    assert!(p.connected());
    assert!(is_hrr(&p.s2c[0]));
    // x25519 share, then the P-256 share and P-256 agreement
    assert_eq!(p.client.stats().crypto.ecdh_ops, 3);
}

#[test]
fn wrong_psk_fails_with_an_alert() {
    let c = ClientConfig13::psk(Config13::psk_ccm8(), IDENTITY, &[9; 16]);
    let s = ServerConfig13::psk(Config13::psk_ccm8(), IDENTITY, PSK);
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let peer = "[fe80::1]:5684".parse().unwrap();
    let mut p = Pair::new(Config13::psk_ccm8(), Config13::psk_ccm8(), true, 1);
    p.server = Connection13::server(Arc::new(s), peer, &mut rng, 0).unwrap();
    p.client = Connection13::client(Arc::new(c), &mut rng, 0).unwrap();
    p.run(10_000_000);
    assert_eq!(p.server.phase(), Phase::Failed);
    assert_eq!(p.client.phase(), Phase::Failed);
    assert!(p.client_events.iter().any(|e| matches!(
        e,
        Event::Failed(dtls::Error::AlertReceived(
            dtls::AlertDescription::DecryptError
        ))
    )));
}

/// A small MTU and small fragments spread the server's flight over
/// several datagrams.
fn small_mtu() -> Config13 {
    Config13 {
        common: Config {
            mtu: 64,
            max_fragment_len: 20,
            ..Config::default()
        },
        ..Config13::psk_ccm8()
    }
}

#[test]
fn one_lost_datagram_of_each_flight_is_recovered_resending_only_what_was_not_acked() {
    let mut reference = Pair::new(small_mtu(), small_mtu(), true, 3);
    reference.run(10_000_000);
    assert!(reference.connected());
    let (nc, ns) = (reference.c2s.len(), reference.s2c.len());
    assert!(ns >= 4, "server flight over several datagrams: {ns}");
    for (to_server, n) in [(true, nc), (false, ns)] {
        for lost in 0..n {
            let mut p = Pair::new(small_mtu(), small_mtu(), true, 3);
            p.drop = Box::new(move |c2s, i| c2s == to_server && i == lost);
            p.run(60_000_000);
            assert!(p.connected(), "lost {lost} to_server {to_server}");
            let retx = p.client.stats().retransmissions + p.server.stats().retransmissions;
            assert!(retx >= 1, "lost {lost} to_server {to_server}");
            p.exchange_data();
        }
    }
    // a lost middle datagram of the server's flight (its first protected
    // one): the client ACKs what it got, the server resends only the rest
    let sh_flight = reference
        .s2c
        .iter()
        .position(|d| d[0] & 0xE0 == 0x20)
        .unwrap();
    assert!(sh_flight + 2 < ns, "datagrams follow the lost one");
    let mut p = Pair::new(small_mtu(), small_mtu(), true, 3);
    p.drop = Box::new(move |c2s, i| !c2s && i == sh_flight);
    p.run(60_000_000);
    assert!(p.connected());
    assert!(
        p.client.stats().sent.bytes(MessageKind::Ack) > 0,
        "client ACKed the gap"
    );
    assert_eq!(p.server.stats().retransmissions, 1);
    // the ACK of the gap made the server resend at once (RFC 9147 §7.2):
    // the handshake ends a few one-way delays later, not after the
    // retransmission timer's first interval
    let timer = small_mtu().common.retransmit.interval_us(0);
    let took = p.client.handshake_duration_us().unwrap();
    let reference_took = reference.client.handshake_duration_us().unwrap();
    assert!(
        took < reference_took + 4 * DELAY && took < timer,
        "handshake {took} µs with one loss, {reference_took} µs without; timer {timer} µs"
    );
    let first_try: usize = reference.s2c[sh_flight..].iter().map(Vec::len).sum();
    let resent =
        p.server.stats().bytes_sent as usize - reference.s2c.iter().map(Vec::len).sum::<usize>();
    assert!(
        resent < first_try,
        "resent {resent} of a {first_try}-byte flight"
    );
}

#[test]
fn lost_final_ack_makes_the_client_resend_its_finished_once() {
    let mut reference = Pair::new(Config13::psk_ccm8(), Config13::psk_ccm8(), false, 4);
    reference.run(10_000_000);
    let last = reference.s2c.len() - 1;
    let mut p = Pair::new(Config13::psk_ccm8(), Config13::psk_ccm8(), false, 4);
    p.drop = Box::new(move |c2s, i| !c2s && i == last);
    p.run(60_000_000);
    assert!(p.connected());
    assert_eq!(p.client.stats().retransmissions, 1);
    assert_eq!(p.client.poll_timeout(), None, "the second ACK arrived");
    assert!(p.server.stats().sent.bytes(MessageKind::Ack) > 0);
}

#[test]
fn duplicated_datagrams_are_harmless() {
    let mut p = Pair::new(Config13::default(), Config13::default(), true, 5);
    p.duplicate = true;
    p.run(10_000_000);
    assert!(p.connected());
    p.exchange_data();
    let pings = p
        .server_events
        .iter()
        .filter(|e| matches!(e, Event::ApplicationData(_)))
        .count();
    assert_eq!(pings, 1, "the replayed record is dropped");
    assert!(p.server.stats().records_dropped > 0);
}

#[test]
fn byte_counts_of_a_psk_ccm8_handshake() {
    let mut p = Pair::new(Config13::psk_ccm8(), Config13::psk_ccm8(), false, 6);
    p.run(10_000_000);
    assert!(p.connected());
    println!("DTLS 1.3 PSK-CCM8 (psk_ke), no cookie, no CID:");
    for (who, stats) in [("client", p.client.stats()), ("server", p.server.stats())] {
        for (kind, bytes, records) in stats.sent.iter() {
            println!(
                "  {who} {:<20} {bytes:>4} B in {records} record(s)",
                kind.name()
            );
        }
    }
    let c2s: usize = p.c2s.iter().map(Vec::len).sum();
    let s2c: usize = p.s2c.iter().map(Vec::len).sum();
    println!(
        "  total: client→server {c2s} B, server→client {s2c} B, {} B",
        c2s + s2c
    );
    // the ClientHello, server flight, client Finished, server ACK
    assert_eq!(p.c2s.len(), 2);
    assert_eq!(p.s2c.len(), 2);
}

fn server_for_fuzzing() -> Connection13 {
    let s = ServerConfig13::psk(Config13::default(), IDENTITY, PSK);
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    Connection13::server(Arc::new(s), "[fe80::1]:5684".parse().unwrap(), &mut rng, 0).unwrap()
}

proptest! {
    #[test]
    fn a_server_fed_arbitrary_datagrams_never_panics(
        datagrams in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..300), 1..6)
    ) {
        let mut s = server_for_fuzzing();
        for (i, d) in datagrams.iter().enumerate() {
            s.handle_datagram(i as u64, d);
            while s.poll_transmit(i as u64).is_some() {}
            s.handle_timeout(i as u64 + 5_000_000);
        }
    }

    #[test]
    fn a_server_fed_mutated_client_hellos_never_panics(
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
        cut in any::<usize>(),
    ) {
        let c = ClientConfig13::psk(Config13::default(), IDENTITY, PSK);
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        let mut client = Connection13::client(Arc::new(c), &mut rng, 0).unwrap();
        let mut hello = client.poll_transmit(0).unwrap();
        for (at, x) in flips {
            let n = hello.len();
            hello[at % n] ^= x;
        }
        hello.truncate(cut % (hello.len() + 1));
        let mut s = server_for_fuzzing();
        s.handle_datagram(0, &hello);
        while let Some(answer) = s.poll_transmit(0) {
            client.handle_datagram(1, &answer);
        }
    }
}

#[test]
fn session_state_is_counted_as_for_dtls_1_2() {
    let mut p = Pair::new(Config13::psk_ccm8(), Config13::psk_ccm8(), false, 7);
    // the ClientHello is kept whole for retransmission until answered
    let hello_len = p.client.stats().sent.bytes(MessageKind::Handshake(1)) as usize;
    let waiting = p.client.state_bytes();
    assert!(
        waiting > hello_len,
        "{waiting} B with a {hello_len} B hello"
    );
    let waiting_compact = p.client.compact_state_bytes();
    p.run(10_000_000);
    assert!(p.connected());
    let (client, server) = (p.client.state_bytes(), p.server.state_bytes());
    println!("DTLS 1.3 PSK-CCM8 session: client {client} B, server {server} B in memory");
    // established, each side holds the expanded keys of epochs 2 (its last
    // flight may still need resending) and 3, both directions: more than
    // the hello it kept while waiting
    assert!(
        client > waiting,
        "{client} B established, {waiting} B waiting"
    );
    assert!(
        server > waiting,
        "{server} B established, {waiting} B waiting"
    );
    // compact layout: 51 B of peer, epochs, sequence numbers and replay
    // window, and per direction key 16 + record-number key 16 + IV 12 +
    // traffic secret 32
    let established = 18 + 3 + 4 + 12 + 14 + 2 * (16 + 16 + 12 + 32);
    assert_eq!(p.client.compact_state_bytes(), established);
    assert_eq!(p.server.compact_state_bytes(), established);
    // waiting for the ServerHello: sequence numbers, a SHA-256 context,
    // the early secret, the random and a PSK identity (psk_ke: no share)
    assert_eq!(waiting_compact, established + 4 + 108 + 32 + 32 + 32);

    let suite = CipherSuite13::Aes256GcmSha384;
    let mut p = Pair::new(
        config(suite, PskMode::PskDheKe, NamedGroup::X25519),
        config(suite, PskMode::PskDheKe, NamedGroup::X25519),
        false,
        8,
    );
    let waiting_compact = p.client.compact_state_bytes();
    p.run(10_000_000);
    assert!(p.connected());
    // before the ServerHello the suite is unknown: the default's keys, a
    // SHA-384 transcript (the client offers that suite first), and one
    // X25519 private key
    assert_eq!(
        waiting_compact,
        18 + 3 + 4 + 12 + 14 + 2 * (16 + 16 + 12 + 32) + 4 + 208 + 48 + 32 + 32 + 32
    );
    assert_eq!(
        p.client.compact_state_bytes(),
        18 + 3 + 4 + 12 + 14 + 2 * (32 + 32 + 12 + 48)
    );
}

#[test]
fn sha384_work_of_the_aes_256_suite_is_counted() {
    let mut counts = vec![];
    for suite in [
        CipherSuite13::Aes128GcmSha256,
        CipherSuite13::Aes256GcmSha384,
    ] {
        let c = config(suite, PskMode::PskKe, NamedGroup::X25519);
        let mut p = Pair::new(c.clone(), c, false, 9);
        p.run(10_000_000);
        assert!(p.connected());
        counts.push(p.client.stats().crypto);
    }
    let (sha256, sha384) = (counts[0], counts[1]);
    // the SHA-256 suite hashes in 64-byte blocks only
    assert_eq!(sha256.sha512_compressions, 0);
    assert!(sha256.sha256_compressions > 0);
    // the same handshake on SHA-384: transcript, HKDF and HMACs in
    // 128-byte blocks (one HMAC-SHA384 of a short input is 4 of them)
    assert_eq!(sha384.sha256_compressions, 0);
    assert!(
        sha384.sha512_compressions >= sha256.sha256_compressions / 2,
        "{sha384:?} against {sha256:?}"
    );
    // its AES work is AES-256 (14 rounds, FIPS 197 §5), counted apart: the
    // same records, but both Finished messages carry 48 bytes, not 32 (one
    // more counter block for the client's own and one for the server's)
    assert_eq!(sha256.aes256_blocks, 0);
    assert_eq!(sha384.aes_blocks, 0);
    assert_eq!(sha384.aes256_blocks, sha256.aes_blocks + 2);
}

#[test]
fn a_psk_ke_client_hello_carries_only_what_rfc_8446_requires() {
    use dtls::v13::messages::ClientHello;
    let mut p = Pair::new(Config13::psk_ccm8(), Config13::psk_ccm8(), true, 10);
    p.run(10_000_000);
    assert!(p.connected());
    // plaintext record header 13 B, handshake header 12 B
    let hello = |d: &[u8]| ClientHello::decode(&d[13 + 12..]).unwrap();
    let (first, second) = (hello(&p.c2s[0]), hello(&p.c2s[1]));
    for ch in [&first, &second] {
        let x = &ch.extensions;
        // supported_versions (§4.2.1), psk_key_exchange_modes (§4.2.9) and
        // pre_shared_key (§4.2.11) are what a PSK hello must have; psk_ke
        // needs no groups, shares or signature algorithms
        assert_eq!(x.supported_versions, Some(vec![0xfefc]));
        assert_eq!(x.psk_modes, Some(vec![PskMode::PskKe]));
        assert!(x.pre_shared_key.is_some());
        assert_eq!(x.supported_groups, None);
        assert!(x.key_shares.is_none());
        assert_eq!(x.signature_algorithms, None);
        assert_eq!(x.connection_id, None);
        assert!(x.unknown.is_empty());
        assert_eq!(ch.cipher_suites, vec![0x1305]);
        assert!(ch.legacy_session_id.is_empty());
    }
    assert_eq!(first.extensions.cookie, None);
    // the second hello echoes the cookie (§4.2.2): suite and group (4 B),
    // Hash(ClientHello1) (32 B) so a stateless server can rebuild the
    // transcript (§4.4.1), a 16-byte MAC
    let cookie = second.extensions.cookie.as_ref().unwrap();
    assert_eq!(cookie.len(), 4 + 32 + 16);
    // version 2, random 32, session id 1, legacy cookie 1, suites 2 + 2,
    // compression 2, extensions length 2; supported_versions 4 + 3,
    // psk_key_exchange_modes 4 + 2, pre_shared_key 4 + 2 + (2 + 15 + 4)
    // + 2 + (1 + 32)
    let body = 2 + 32 + 1 + 1 + 4 + 2 + 2 + 7 + 6 + (4 + 2 + 21 + 2 + 33);
    assert_eq!(p.c2s[0].len(), 13 + 12 + body);
    assert_eq!(p.c2s[1].len(), 13 + 12 + body + 4 + 2 + cookie.len());
}

#[test]
fn a_lost_server_flight_is_resent_once_when_both_timers_fire_together() {
    // the whole server flight in one datagram; both sides' timers start
    // one one-way delay apart, so the client's repeated ClientHello reaches
    // the server the moment its own timer fires: answering both would send
    // the flight twice (RFC 9147 §5.8: at most one resend per interval)
    let mut reference = Pair::new(Config13::psk_ccm8(), Config13::psk_ccm8(), false, 5);
    reference.run(10_000_000);
    assert_eq!(reference.s2c.len(), 2, "flight and final ACK");
    let flight = reference.s2c[0].len() as u64;
    let mut p = Pair::new(Config13::psk_ccm8(), Config13::psk_ccm8(), false, 5);
    p.drop = Box::new(|c2s, i| !c2s && i == 0);
    p.run(60_000_000);
    assert!(p.connected());
    assert_eq!(p.server.stats().retransmissions, 1);
    assert_eq!(
        p.server.stats().bytes_sent,
        reference.server.stats().bytes_sent + flight,
        "one extra copy of the {flight}-byte flight"
    );
    p.exchange_data();
}
