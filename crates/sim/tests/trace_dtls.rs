//! The trace names what happened in DTLS: each message a client sent and
//! accepted, in order, and the states its connection went through.

mod common;

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls::{ClientConfig, Config, ServerConfig};
use sim::mac::csma::CsmaParams;
use sim::node::cpu::CryptoCost;
use sim::row::Value;
use sim::run::run_traced;
use sim::scenario::{MacSpec, Scenario, TopologySpec, Workload};
use sim::trace::Trace;
use sim::world::Processing;

const PSK: &[u8] = b"0123456789abcdef";

fn scenario(workload: Workload) -> Scenario {
    Scenario {
        topology: TopologySpec::line(2, 1.0),
        client: 0,
        server: 1,
        mac: MacSpec::Csma(CsmaParams::default()),
        power: common::wismote_like_power(),
        crypto: CryptoCost {
            aes_block_us: 10.0,
            sha256_block_us: 50.0,
            ..CryptoCost::default()
        },
        processing: Processing::default(),
        workload,
        start_us: 1_000_000,
        power_on_window_us: 0,
        max_time_us: 600_000_000,
        timer_tick_us: 0,
        give_up_idle_us: None,
        close_notify: true,
        seed: 1,
        outdated_key_nodes: Vec::new(),
        below_policy_nodes: Vec::new(),
    }
}

/// One DTLS 1.2 PSK handshake with the server's cookie exchange.
fn handshakes12() -> Workload {
    Workload::Handshakes {
        client: ClientConfig::psk(Config::default(), b"id", PSK),
        server: ServerConfig::psk(Config::default(), b"id", PSK),
        count: 1,
        pause_us: 0,
        pause_jitter_us: 0,
    }
}

/// The client's DTLS rows as "tx Name", "rx Name" and "state Name".
fn client_dtls(trace: &Trace) -> Vec<String> {
    trace
        .events
        .iter()
        .filter(|e| e.node == 0 && e.layer == "dtls")
        .map(|e| format!("{} {}", e.kind, e.message))
        .collect()
}

#[test]
fn a_dtls12_psk_handshake_is_the_rfc6347_exchange_with_its_states_between() {
    let (_, trace) = run_traced(&scenario(handshakes12()), 0, 100_000).unwrap();
    let rows = client_dtls(&trace);
    // RFC 6347 section 4.2.1 (cookie exchange) and RFC 4279 section 2 (PSK):
    // no Certificate, no ServerKeyExchange without an identity hint. The
    // state is read after each datagram: ServerHello and ServerHelloDone
    // share one, so WaitServerHelloDone falls between two rows of it.
    let expected = [
        "state WaitServerHello",
        "tx ClientHello",
        "rx HelloVerifyRequest",
        "tx ClientHello",
        "rx ServerHello",
        "rx ServerHelloDone",
        "state WaitServerFinished",
        "tx ClientKeyExchange",
        "tx ChangeCipherSpec",
        "tx Finished",
        "rx ChangeCipherSpec",
        "rx Finished",
        "state Connected",
    ];
    assert_eq!(&rows[..expected.len()], expected, "all rows: {rows:#?}");
    // then the close_notify (it leaves once its record is sealed), and
    // nothing else of DTLS
    assert_eq!(&rows[expected.len()..], ["state Closed", "tx Alert"]);
    // each message carries the bytes the stack charged it: the handshake's
    // rows add up to the client's UDP payload bytes each way
    let (r, _) = run_traced(&scenario(handshakes12()), 0, 100_000).unwrap();
    let sum = |kind: &str| -> i64 {
        trace
            .events
            .iter()
            .filter(|e| e.node == 0 && e.layer == "dtls" && e.kind == kind)
            .filter(|e| e.message != "Alert")
            .filter_map(|e| e.bytes)
            .sum::<u64>() as i64
    };
    let col = |key: &str| match r.rows[0].iter().find(|(k, _)| k == key).map(|c| &c.1) {
        Some(Value::Int(i)) => *i,
        other => panic!("{key}: {other:?}"),
    };
    assert_eq!(sum("tx"), col("client_bytes_sent"));
    assert_eq!(sum("rx"), col("client_bytes_received"));
}

#[test]
fn a_dtls13_handshake_ends_with_the_servers_ack_of_the_clients_finished() {
    let trace = one_dtls13_psk_handshake();
    let rows = client_dtls(&trace);
    let finished = rows.iter().position(|r| r == "tx Finished").expect("sent");
    let ack = rows
        .iter()
        .position(|r| r == "rx Ack")
        .expect("the server's ACK");
    assert!(finished < ack, "{rows:#?}");
    assert_eq!(rows[0], "state WaitServerHello");
    assert!(
        rows.contains(&"rx EncryptedExtensions".to_string()),
        "{rows:#?}"
    );
    assert!(rows.contains(&"state Connected".to_string()), "{rows:#?}");
}

#[test]
fn without_a_trace_the_run_is_the_same() {
    let workload = Workload::Handshakes {
        client: ClientConfig::psk(Config::default(), b"id", PSK),
        server: ServerConfig::psk(Config::default(), b"id", PSK),
        count: 2,
        pause_us: 0,
        pause_jitter_us: 0,
    };
    let s = scenario(workload);
    let plain = sim::run::run_replication(&s, 0, false, &[]).unwrap();
    let (traced, _) = run_traced(&s, 0, 100_000).unwrap();
    assert_eq!(plain.rows, traced.rows);
    assert_eq!(plain.events, traced.events);
}

/// One node's DTLS message rows as "kind Name epoch", state rows as
/// "state Name".
fn rows_with_epochs(trace: &Trace, node: usize) -> Vec<String> {
    trace
        .events
        .iter()
        .filter(|e| e.node == node && e.layer == "dtls")
        .map(|e| match e.epoch {
            Some(epoch) => format!("{} {} {epoch}", e.kind, e.message),
            None => format!("{} {}", e.kind, e.message),
        })
        .collect()
}

#[test]
fn the_dtls12_server_answers_with_its_flights_in_order_and_in_their_epochs() {
    let (_, trace) = run_traced(&scenario(handshakes12()), 0, 100_000).unwrap();
    // RFC 6347 section 4.2.1: the first ClientHello is answered without
    // state; the session exists from the second, and the server's
    // ChangeCipherSpec is the last record of epoch 0, its Finished the
    // first of epoch 1 (section 4.1)
    let expected = [
        "rx ClientHello 0",
        "tx HelloVerifyRequest 0",
        "rx ClientHello 0",
        "state WaitClientKeyExchange",
        "tx ServerHello 0",
        "tx ServerHelloDone 0",
        "rx ClientKeyExchange 0",
        "rx ChangeCipherSpec 0",
        "rx Finished 1",
        "state Connected",
        "tx ChangeCipherSpec 0",
        "tx Finished 1",
    ];
    let rows = rows_with_epochs(&trace, 1);
    assert_eq!(&rows[..expected.len()], expected, "all rows: {rows:#?}");
    let server: Vec<_> = trace
        .events
        .iter()
        .filter(|e| e.node == 1 && e.layer == "dtls" && e.kind != "state")
        .collect();
    // the stateless ClientHello has no session to count it
    assert_eq!(server[0].outcome, "stateless");
    assert!(server[2..].iter().all(|e| e.outcome != "stateless"));
    // each side's records carry consecutive sequence numbers per epoch,
    // and what one side sent the other received with the same numbers
    let numbers = |node: usize, kind: &str| -> Vec<(u64, u64)> {
        trace
            .events
            .iter()
            .filter(|e| e.node == node && e.layer == "dtls" && e.kind == kind)
            .filter(|e| e.message != "Alert")
            .map(|e| (e.epoch.unwrap(), e.seq.unwrap()))
            .collect()
    };
    let server_sent = numbers(1, "tx");
    assert_eq!(server_sent, [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)]);
    assert_eq!(numbers(0, "rx"), server_sent);
    assert_eq!(numbers(1, "rx"), numbers(0, "tx"));
}

#[test]
fn a_dtls13_server_shows_its_retry_request_states_and_epochs() {
    let trace = one_dtls13_psk_handshake();
    // RFC 9147 section 5.1: the cookie rides a HelloRetryRequest sent
    // without state; the server's flight is ServerHello in epoch 0, then
    // protected records of epoch 2 (handshake keys); its ACK of the
    // client's Finished is in epoch 3 (application keys, section 6.1)
    let expected = [
        "rx ClientHello 0",
        "tx HelloRetryRequest 0",
        "rx ClientHello 0",
        "state WaitClientFinished",
        "tx ServerHello 0",
        "tx EncryptedExtensions 2",
        "tx Finished 2",
        "rx Finished 2",
        "state Connected",
        "tx Ack 3",
    ];
    let rows = rows_with_epochs(&trace, 1);
    assert_eq!(&rows[..expected.len()], expected, "all rows: {rows:#?}");
    // the unified header encrypts the sequence number (section 4.2.3)
    let protected = trace
        .events
        .iter()
        .filter(|e| e.layer == "dtls" && e.epoch.is_some_and(|x| x > 0));
    assert!(protected.clone().count() > 0);
    assert!(protected.clone().all(|e| e.seq.is_none()));
}

#[test]
fn the_servers_resent_flight_is_traced() {
    // a link that loses frames: some flight of the server's goes again
    let mut resent = 0;
    for seed in 0..10 {
        let mut s = scenario(handshakes12());
        s.topology = TopologySpec::line(2, 0.6);
        s.seed = seed;
        let (r, trace) = run_traced(&s, 0, 100_000).unwrap();
        let rows = |node: usize| {
            trace
                .events
                .iter()
                .filter(|e| e.node == node && e.layer == "dtls" && e.kind == "retransmit")
                .count() as i64
        };
        // the client's rows agree with the retransmissions it counted
        assert_eq!(rows(0), common::int(&r.rows[0], "dtls_retransmissions"));
        resent += rows(1);
    }
    assert!(resent > 0, "no server retransmission in 10 lossy runs");
}

/// The trace of one DTLS 1.3 PSK handshake (CCM-8) over the two-node link.
fn one_dtls13_psk_handshake() -> Trace {
    let config = Config13::psk_ccm8();
    let workload = Workload::Handshakes13 {
        client: ClientConfig13::psk(config.clone(), b"id", PSK),
        server: Box::new(ServerConfig13::psk(config, b"id", PSK)),
        count: 1,
        pause_us: 0,
        pause_jitter_us: 0,
    };
    run_traced(&scenario(workload), 0, 100_000).unwrap().1
}
