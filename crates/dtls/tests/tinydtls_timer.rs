//! tinyDTLS's retransmission behaviour, held to a schedule worked out by
//! hand from its source (dtls.c `dtls_send_multi`, `dtls_retransmit`,
//! `handle_handshake`; global.h `DTLS_DEFAULT_MAX_RETRANSMIT`), through the
//! sans-IO API only.

mod common;

use std::sync::Arc;

use common::*;
use dtls::netq::NetqPool;
use dtls::Session;
use dtls::{ClientConfig, Config, Connection, Error, Event, RetransmitPolicy};

const S: u64 = 1_000_000;

/// Every datagram the client sends with nobody answering, with its send
/// time, until it gives up; and the time it gave up.
fn unanswered_client(policy: RetransmitPolicy) -> (Vec<u64>, u64) {
    let cfg = Config {
        retransmit: policy,
        ..Config::tinydtls_like()
    };
    let mut c = Connection::client(
        Arc::new(ClientConfig::psk(cfg, IDENTITY, PSK)),
        &mut rng(1),
        0,
    )
    .unwrap();
    let mut now = 0;
    let mut sent = vec![];
    loop {
        while c.poll_transmit(now).is_some() {
            sent.push(now);
        }
        if let Some(Event::Failed(e)) = c.poll_event() {
            assert_eq!(e, Error::Timeout);
            return (sent, now);
        }
        now = c
            .poll_timeout()
            .expect("a timer runs until the client gives up");
        c.handle_timeout(now);
    }
}

#[test]
fn tinydtls_schedule_by_hand() {
    // The ClientHello goes at 0 with t = now + 2 s. dtls_retransmit then
    // increments retransmit_cnt and waits timeout << retransmit_cnt:
    // 2 s, then 4, 8, 16, 32, 64, 128 s after the 1st … 6th
    // retransmission, so they fall at 2, 6, 14, 30, 62, 126, 254 s. The
    // 7th leaves cnt = 7 = DTLS_DEFAULT_MAX_RETRANSMIT and t = 254 + 256 s;
    // at 510 s the record is dropped and nothing more is sent.
    let (sent, gave_up) = unanswered_client(RetransmitPolicy::TINYDTLS);
    let expected: Vec<u64> = [0, 2, 6, 14, 30, 62, 126, 254]
        .iter()
        .map(|s| s * S)
        .collect();
    assert_eq!(sent, expected);
    assert_eq!(gave_up, 510 * S);
}

#[test]
fn tinydtls_initial_timeout_and_limit_are_overridable() {
    // 3 s, limit 2: retransmissions at 3 and 3 + 6 = 9 s, give-up at 9 + 12.
    let (sent, gave_up) = unanswered_client(RetransmitPolicy::Tinydtls {
        initial_us: 3 * S,
        max_retransmissions: 2,
    });
    assert_eq!(sent, vec![0, 3 * S, 9 * S]);
    assert_eq!(gave_up, 21 * S);
}

#[test]
fn a_fixed_2s_timer_gives_up_at_16_s_tinydtls_at_510_s() {
    // A fixed 2 s timer (what an earlier model called tinyDTLS's) sends as
    // often but gives up at 16 s; tinyDTLS's doubling waits until 510 s.
    let fixed = unanswered_client(RetransmitPolicy::Fixed {
        interval_us: 2 * S,
        max_retransmissions: 7,
    });
    let tinydtls = unanswered_client(RetransmitPolicy::TINYDTLS);
    assert_eq!((fixed.0.len(), fixed.1), (8, 16 * S));
    assert_eq!((tinydtls.0.len(), tinydtls.1), (8, 510 * S));
}

/// A handshake with tinyDTLS on both sides where the server → client
/// datagrams numbered in `lost` never arrive.
fn tinydtls_pair_losing(lost: &'static [usize]) -> Pair {
    let mut p = Pair::psk(Config::tinydtls_like(), Config::tinydtls_like(), 5);
    p.tamper = Some(Box::new(move |c2s, i, d| {
        if !c2s && lost.contains(&i) {
            vec![]
        } else {
            vec![d]
        }
    }));
    p.run_until(600 * S, |p| {
        p.client.is_established() || p.failed_client().is_some()
    });
    p
}

#[test]
fn a_lost_server_hello_is_resent_by_the_servers_own_timer_only() {
    // s2c: 0 HelloVerifyRequest, 1 ServerHello, 2 ServerHelloDone, …
    // Losing the ServerHello: the client's repeated ClientHello (with its
    // cookie, at 2 s) is dropped by the server (message_seq below the one
    // it expects); the server's own timer resends ServerHello and
    // ServerHelloDone at 2 s, once: HelloVerifyRequest, 2 + 2 hellos,
    // ChangeCipherSpec, Finished = 7 datagrams. Answering the repeated
    // ClientHello too would have sent the hellos a third time.
    let p = tinydtls_pair_losing(&[1]);
    assert!(p.client.is_established(), "{:?}", p.client_events);
    let d = p.client.handshake_duration_us().unwrap();
    assert!((2 * S..3 * S).contains(&d), "duration {d}");
    assert_eq!(
        p.s2c.len(),
        7,
        "the server answered the repeated ClientHello"
    );
}

#[test]
fn a_lost_server_finished_leaves_the_client_waiting_with_no_timer() {
    // PSK without a hint, one record per datagram: s2c is HelloVerifyRequest,
    // ServerHello, ServerHelloDone, ChangeCipherSpec, Finished. tinyDTLS's
    // server clears its queue on completing; its client cleared its own on
    // the server's ChangeCipherSpec (dtls_handle_message calls
    // dtls_stop_retransmission before handle_ccs). Nobody resends anything:
    // the client waits with no timer running, neither connected nor failed.
    let p = tinydtls_pair_losing(&[4]);
    assert!(p.server_established());
    assert!(!p.client.is_established());
    assert_eq!(p.failed_client(), None);
    assert_eq!(p.client.poll_timeout(), None, "a timer still runs");
    assert_eq!(p.s2c.len(), 5, "the server sent nothing after its Finished");
    assert_eq!(p.c2s.len(), 5, "the client resent its flight");
    assert_eq!(p.client.stats().retransmissions, 0);
}

#[test]
fn the_servers_change_cipher_spec_clears_the_clients_queue() {
    // The Cooja oracle's case (reference/cooja, h1-r4-debug): the server's
    // ChangeCipherSpec arrives, its Finished only later than the client's
    // 2 s timer. Here the Finished (s2c 4) is held back 3 s: tinyDTLS's
    // client resends nothing meanwhile (its CCS cleared the queue) and
    // completes when it comes; 5 datagrams each way.
    let mut p = Pair::psk(Config::tinydtls_like(), Config::tinydtls_like(), 5);
    let held: std::rc::Rc<std::cell::RefCell<Option<Vec<u8>>>> = Default::default();
    let h = held.clone();
    p.tamper = Some(Box::new(move |c2s, i, d| {
        if !c2s && i == 4 {
            *h.borrow_mut() = Some(d);
            vec![]
        } else {
            vec![d]
        }
    }));
    p.run_until(3 * S, |_| false);
    assert_eq!(p.client.stats().retransmissions, 0);
    let finished = held
        .borrow_mut()
        .take()
        .expect("the server sent its Finished");
    p.client.handle_datagram(p.now, &finished);
    assert!(p.client.is_established(), "{:?}", p.client_events);
    assert_eq!(p.client.stats().retransmissions, 0);
    assert_eq!(p.c2s.len(), 5);
}

#[test]
fn rfc6347_resends_a_lost_server_finished() {
    // The same loss under RFC 6347 §4.2.4: the repeated client Finished
    // makes the server resend its last flight.
    let cfg = Config {
        retransmit: RetransmitPolicy::RFC6347,
        ..Config::tinydtls_like()
    };
    let mut p = Pair::psk(cfg.clone(), cfg, 5);
    p.tamper = Some(Box::new(
        |c2s, i, d| {
            if !c2s && i == 4 {
                vec![]
            } else {
                vec![d]
            }
        },
    ));
    p.handshake();
    assert!(p.client.is_established());
}

/// A handshake with tinyDTLS on both sides where the client → server
/// datagrams numbered in `lost` never arrive.
fn tinydtls_pair_losing_c2s(lost: &'static [usize]) -> Pair {
    let mut p = Pair::psk(Config::tinydtls_like(), Config::tinydtls_like(), 5);
    p.tamper = Some(Box::new(move |c2s, i, d| {
        if c2s && lost.contains(&i) {
            vec![]
        } else {
            vec![d]
        }
    }));
    p.run_until(600 * S, |p| {
        p.client.is_established() || p.failed_client().is_some()
    });
    p
}

/// The content type of a datagram that holds one record.
fn content_type(datagram: &[u8]) -> u8 {
    datagram[0]
}

#[test]
fn a_client_finished_without_its_change_cipher_spec_ends_the_handshake_with_decrypt_error() {
    // c2s: 0 ClientHello, 1 ClientHello with cookie, 2 ClientKeyExchange,
    // 3 ChangeCipherSpec, 4 Finished. With the CCS lost, tinyDTLS 0.8.2's
    // server has no keys for epoch 1 (it derives them in handle_ccs), so
    // decrypt_verify fails on the Finished and dtls_handle_message sends a
    // fatal decrypt_error (21 = alert) and destroys the peer: the client
    // fails on the alert, without a retransmission.
    let p = tinydtls_pair_losing_c2s(&[3]);
    assert_eq!(p.failed_server(), Some(&Error::NoKeysForEpoch));
    assert_eq!(
        p.failed_client(),
        Some(&Error::AlertReceived(dtls::AlertDescription::DecryptError))
    );
    let last = p.s2c.last().expect("the server answered");
    assert_eq!(content_type(last), 21);
    assert_eq!(p.client.stats().retransmissions, 0);
    // 4 datagrams: HelloVerifyRequest, ServerHello, ServerHelloDone, the alert
    assert_eq!(p.s2c.len(), 4);
}

#[test]
fn a_server_finished_without_its_change_cipher_spec_draws_unexpected_message() {
    // s2c: 0 HelloVerifyRequest, 1 ServerHello, 2 ServerHelloDone, 3
    // ChangeCipherSpec, 4 Finished. With the CCS lost, tinyDTLS's client
    // decrypts the Finished (its keys date from its ClientKeyExchange), which
    // clears its retransmission queue, and handle_handshake_msg refuses a
    // Finished outside WAIT_FINISHED: a fatal unexpected_message (21 =
    // alert) follows the client's Finished, nothing is resent, and the
    // server fails on the alert. The client itself neither fails nor
    // connects: dtls_handle_message only sends the alert, so it waits with
    // no timer until its application gives up.
    let mut p = tinydtls_pair_losing(&[3]);
    p.run_until(p.now + S, |p| p.failed_server().is_some());
    assert_eq!(
        p.failed_server(),
        Some(&Error::AlertReceived(
            dtls::AlertDescription::UnexpectedMessage
        ))
    );
    assert_eq!(p.c2s.len(), 6, "5 datagrams and the alert");
    assert_eq!(content_type(&p.c2s[5]), 21);
    assert_eq!(p.failed_client(), None, "the client does not fail");
    assert!(!p.client.is_established());
    assert_eq!(p.client.poll_timeout(), None, "a timer still runs");
    // nothing more, however long it waits
    p.run_until(p.now + 600 * S, |_| false);
    assert_eq!(p.c2s.len(), 6, "the client sent something more");
    assert_eq!(p.failed_client(), None);
    assert_eq!(p.client.stats().retransmissions, 0);
}

#[test]
fn rfc6347_keeps_a_finished_that_overtakes_its_change_cipher_spec() {
    // The same losses under RFC 6347: the early Finished is kept until the
    // retransmitted ChangeCipherSpec arrives, and the handshake completes.
    for lost_c2s in [true, false] {
        let cfg = Config {
            retransmit: RetransmitPolicy::RFC6347,
            ..Config::tinydtls_like()
        };
        let mut p = Pair::psk(cfg.clone(), cfg, 5);
        p.tamper = Some(Box::new(move |c2s, i, d| {
            if c2s == lost_c2s && i == 3 {
                vec![]
            } else {
                vec![d]
            }
        }));
        p.handshake();
        assert!(p.client.is_established(), "lost c2s {lost_c2s}");
    }
}

#[test]
fn the_servers_queue_is_cleared_by_the_client_key_exchange_alone() {
    // c2s: 0 ClientHello, 1 ClientHello with cookie, 2 ClientKeyExchange,
    // 3 ChangeCipherSpec, 4 Finished, then the client's flight again at 2 s.
    // With 3 and 4 lost, tinyDTLS's server stopped retransmitting on the
    // ClientKeyExchange (dtls_stop_retransmission at the top of
    // handle_handshake_msg), so it sends nothing until the client's own
    // timer resends the flight at 2 s: HelloVerifyRequest, ServerHello,
    // ServerHelloDone, then ChangeCipherSpec and Finished = 5 datagrams.
    // Resending ServerHello and ServerHelloDone at its own 2 s would make 7.
    let p = tinydtls_pair_losing_c2s(&[3, 4]);
    assert!(p.client.is_established(), "{:?}", p.client_events);
    assert_eq!(p.s2c.len(), 5, "the server resent its hellos");
    assert_eq!(p.client.stats().retransmissions, 1);
    let d = p.client.handshake_duration_us().unwrap();
    assert!((2 * S..3 * S).contains(&d), "duration {d}");
}

#[test]
fn the_clients_queue_is_cleared_by_the_server_hello_alone() {
    // s2c: 0 HelloVerifyRequest, 1 ServerHello, 2 ServerHelloDone. With the
    // ServerHelloDone lost, the client stopped retransmitting on the
    // ServerHello; the server's timer resends both hellos at 2 s and the
    // client, dropping the repeated ServerHello (message_seq below the one
    // it expects), goes on with the ServerHelloDone. The client never
    // repeats its ClientHello: ClientHello, ClientHello with cookie,
    // ClientKeyExchange, ChangeCipherSpec, Finished = 5 datagrams.
    let p = tinydtls_pair_losing(&[2]);
    assert!(p.client.is_established(), "{:?}", p.client_events);
    assert_eq!(p.c2s.len(), 5, "the client repeated its ClientHello");
    assert_eq!(p.client.stats().retransmissions, 0);
}

/// A tinyDTLS handshake where the ServerHello (s2c 1) arrives after the
/// ServerHelloDone (s2c 2) and the server's ChangeCipherSpec and Finished
/// (s2c 3, 4) are lost, run to 3 s: the client's datagrams, and its
/// connection (the pool stays with the caller).
fn reordered_hellos(netq: Option<NetqPool>) -> Pair {
    let client = Config {
        netq,
        ..Config::tinydtls_like()
    };
    let mut p = Pair::psk(client, Config::tinydtls_like(), 5);
    let mut held = None;
    p.tamper = Some(Box::new(move |c2s, i, d| match (c2s, i) {
        (false, 1) => {
            held = Some(d);
            vec![]
        }
        (false, 2) => vec![d, held.take().expect("the ServerHello came first")],
        (false, 3 | 4) => vec![],
        _ => vec![d],
    }));
    p.run_until(3 * S, |_| false);
    p
}

#[test]
fn tinydtls_leaks_the_buffer_of_an_early_handshake_message() {
    // Without tinyDTLS's buffers the client resends its whole last flight
    // at 2 s: ClientHello, ClientHello with cookie, ClientKeyExchange,
    // ChangeCipherSpec, Finished, then those three again = 8 datagrams.
    assert_eq!(reordered_hellos(None).c2s.len(), 8);
    // With them (netq.h: 3 nodes in a PSK build) the early ServerHelloDone
    // takes a node, is processed after the ServerHello and its node is
    // never freed (0.8.2's handle_handshake): 2 nodes are left for the
    // three records of the last flight, so the Finished is sent but not
    // kept, and only ClientKeyExchange and ChangeCipherSpec are resent.
    let pool = NetqPool::new(NetqPool::PSK_NODES);
    let p = reordered_hellos(Some(pool.clone()));
    assert_eq!(p.c2s.len(), 7);
    assert_eq!(pool.free(), 0, "two nodes hold the flight, one leaked");
    drop(p);
    assert_eq!(pool.free(), 2, "the leaked node never comes back");
}
