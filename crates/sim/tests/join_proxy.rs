//! CoJP joins through RFC 9031's join proxy, in whole runs: each pledge
//! talks to its parent on the link and the parent relays; the join rate
//! drops what is over it, and the pledge's CoAP retransmission gets the
//! join through.

mod common;

use common::int;
use sim::app::cojp::CojpSetup;
use sim::mac::csma::CsmaParams;
use sim::row::{Row, Value};
use sim::run::run_traced;
use sim::scenario::{MacSpec, SessionHandshake, SessionsSpec, TopologySpec, Workload};
use sim::trace::Trace;

const SECOND: u64 = 1_000_000;

/// `clients` pledges joining by CoJP over `links` (the JRC at node 0),
/// after a wait of mean 1 s from boot.
fn joins(
    links: Vec<(usize, usize)>,
    clients: usize,
    join_proxy: bool,
    rate: Option<u64>,
    after_parent: bool,
) -> (Row, Vec<Row>, Trace) {
    let cojp = SessionHandshake::Cojp(CojpSetup {
        coap: coap::reliability::Params::default(),
        token_bytes: 2,
    });
    joins_by(cojp, links, clients, join_proxy, rate, after_parent)
}

/// [`joins`] by `handshake`.
fn joins_by(
    handshake: SessionHandshake,
    links: Vec<(usize, usize)>,
    clients: usize,
    join_proxy: bool,
    rate: Option<u64>,
    after_parent: bool,
) -> (Row, Vec<Row>, Trace) {
    let spec = SessionsSpec {
        data_interval_us: 10 * SECOND,
        join_after_parent: after_parent,
        join_proxy,
        join_rate_bytes_per_s: rate,
        duration_us: 600 * SECOND,
        stop_at_secured_share: Some(1.0),
        ..common::joins(clients, handshake)
    };
    let topology = TopologySpec::Links {
        nodes: clients + 1,
        links: links
            .into_iter()
            .flat_map(|(a, b)| [(a, b, 1.0), (b, a, 1.0)])
            .collect(),
    };
    let s = common::scenario(
        topology,
        0,
        MacSpec::Csma(CsmaParams::default()),
        Workload::Sessions(Box::new(spec)),
        5,
    );
    let (mut r, trace) = run_traced(&s, 0, 1_000_000).unwrap();
    (r.rows.remove(0), r.nodes, trace)
}

fn float(row: &Row, key: &str) -> f64 {
    match common::get(row, key) {
        Value::Float(x) => x,
        Value::Int(i) => i as f64,
        other => panic!("{key}: {other:?}"),
    }
}

/// The line 0 - 1 - 2 - 3: node 1 joins next to the JRC (no relay), node
/// 2 through node 1, node 3 through node 2. Each pledge's exchange is 54
/// bytes out and 46 back (the proxy options on the request), against 36
/// and 46 routed; the relays' counts are in their node rows and summed in
/// the result row.
#[test]
fn a_line_joins_through_its_parents() {
    let line = vec![(0, 1), (1, 2), (2, 3)];
    let (row, nodes, _) = joins(line.clone(), 3, true, None, true);
    assert_eq!(float(&row, "secured_share"), 1.0);
    // one exchange each, nothing lost on perfect links
    assert_eq!(float(&row, "handshake_bytes_full"), 54.0 + 46.0);
    assert_eq!(int(&row, "jp_forwarded"), 2);
    assert_eq!(int(&row, "jp_relayed"), 2);
    assert_eq!(int(&row, "jp_forwarded_bytes"), 2 * 61);
    assert_eq!(int(&row, "jp_relayed_bytes"), 2 * 46);
    assert_eq!(int(&row, "jp_dropped_rate"), 0);
    assert_eq!(int(&row, "jp_refused"), 0);
    let per_node: Vec<i64> = nodes.iter().map(|n| int(n, "jp_forwarded")).collect();
    assert_eq!(per_node, [0, 1, 1, 0]);
    // routed, as before: no proxy columns, 36 + 46 bytes
    let (routed, nodes, _) = joins(line, 3, false, None, true);
    assert_eq!(float(&routed, "secured_share"), 1.0);
    assert_eq!(float(&routed, "handshake_bytes_full"), 36.0 + 46.0);
    assert!(routed.iter().all(|(k, _)| !k.starts_with("jp_")));
    assert!(nodes[0].iter().all(|(k, _)| !k.starts_with("jp_")));
}

/// Five pledges behind one join proxy (0 - 1, 1 - 2..6), all starting
/// within seconds, and a join rate of 61 bytes a second (one forwarded
/// Join Request a second): requests over it are dropped and counted; each
/// pledge whose request was dropped joins in its first attempt after its
/// CoAP retransmission. Without the rate nothing is dropped.
#[test]
fn the_join_rate_drops_and_the_retransmission_gets_through() {
    let star: Vec<_> = [(0, 1)].into_iter().chain((2..7).map(|n| (1, n))).collect();
    let (free, _, _) = joins(star.clone(), 6, true, None, false);
    assert_eq!(float(&free, "secured_share"), 1.0);
    assert_eq!(int(&free, "jp_dropped_rate"), 0);

    let (row, _, trace) = joins(star, 6, true, Some(61), false);
    assert_eq!(float(&row, "secured_share"), 1.0);
    let dropped = int(&row, "jp_dropped_rate");
    assert!(dropped >= 1, "nothing dropped");
    assert_eq!(int(&row, "jp_dropped_rate_bytes"), dropped * 61);
    let events = &trace.events;
    let pledges: std::collections::BTreeSet<usize> = events
        .iter()
        .filter(|e| e.kind == "join_proxy" && e.outcome == "dropped_rate")
        .filter_map(|e| e.peer)
        .collect();
    assert!(!pledges.is_empty());
    for p in pledges {
        let of = |kind: &str| -> Vec<&'static str> {
            (events.iter())
                .filter(|e| e.node == p && e.kind == kind)
                .map(|e| e.outcome)
                .collect()
        };
        assert_eq!(of("handshake_started").len(), 1, "pledge {p}");
        assert!(!of("retransmitted").is_empty(), "pledge {p}");
        assert_eq!(of("handshake_ended"), ["success"], "pledge {p}");
    }
}

/// EDHOC through the proxies: five initiators behind one join proxy and
/// one behind each of them in a line, all finishing with the one
/// responder, which finds each handshake by the C_R it gave it (they all
/// come from a proxy's address); every request and response relayed.
#[test]
fn edhoc_joins_through_the_proxies_too() {
    let links: Vec<_> = [(0, 1), (6, 7)]
        .into_iter()
        .chain((2..7).map(|n| (1, n)))
        .collect();
    let edhoc = || {
        SessionHandshake::Edhoc(sim::app::edhoc::EdhocSetup {
            edhoc: edhoc::Config::default(),
            coap: coap::reliability::Params::default(),
            token_bytes: 4,
        })
    };
    let (row, _, trace) = joins_by(edhoc(), links.clone(), 7, true, None, true);
    assert_eq!(float(&row, "secured_share"), 1.0);
    // two requests each for the six pledges behind a proxy (node 1 asks
    // the JRC on the link), all answered
    assert_eq!(int(&row, "jp_forwarded"), 12);
    assert_eq!(int(&row, "jp_relayed"), 12);
    assert!(trace
        .events
        .iter()
        .all(|e| !(e.kind == "handshake_ended" && e.outcome == "failure")));
    let (routed, _, _) = joins_by(edhoc(), links, 7, false, None, true);
    assert_eq!(float(&routed, "secured_share"), 1.0);
    assert!(routed.iter().all(|(k, _)| !k.starts_with("jp_")));
}
