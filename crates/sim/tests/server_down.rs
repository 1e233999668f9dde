//! A join server that is down for a while (`SessionsSpec::server_down_us`):
//! no join that starts while it is down completes before it is back, what
//! reaches it is dropped and counted, the clients' own timers and retries
//! carry them through, and a run without an outage is the run it was.

mod common;

use dtls::{ClientConfig, Config, ServerConfig};
use sim::mac::csma::CsmaParams;
use sim::node::cpu::CryptoCost;
use sim::row::Row;
use sim::run::{run_replication, run_traced};
use sim::scenario::{MacSpec, Scenario, SessionHandshake, SessionsSpec, TopologySpec, Workload};
use sim::trace::TraceEvent;
use sim::world::Processing;

const SECOND: u64 = 1_000_000;

/// A line 0 - 1 - 2 - 3 - 4, the server at node 0, CSMA, each client
/// joining once (holding for ever) after a wait of mean 5 s, retrying after
/// a failed join after another; 900 s from power-on.
fn line(handshake: SessionHandshake, down: &[(u64, u64)]) -> Scenario {
    let spec = SessionsSpec {
        idle_mean_us: 5e6,
        same_port: true,
        server_down_us: down
            .iter()
            .map(|&(a, b)| (a * SECOND, b * SECOND))
            .collect(),
        ..common::joins(4, handshake)
    };
    Scenario {
        topology: TopologySpec::Links {
            nodes: 5,
            links: (0..4)
                .flat_map(|n| [(n, n + 1, 1.0), (n + 1, n, 1.0)])
                .collect(),
        },
        client: 1,
        server: 0,
        mac: MacSpec::Csma(CsmaParams::default()),
        power: common::wismote_like_power(),
        crypto: CryptoCost::default(),
        processing: Processing::default(),
        workload: Workload::Sessions(Box::new(spec)),
        start_us: 0,
        power_on_window_us: 0,
        max_time_us: 100_000 * SECOND,
        timer_tick_us: 0,
        give_up_idle_us: None,
        close_notify: true,
        seed: 29,
        outdated_key_nodes: Vec::new(),
        below_policy_nodes: Vec::new(),
    }
}

fn dtls12() -> SessionHandshake {
    let config = Config::tightest_psk_ccm8();
    SessionHandshake::Dtls {
        client: Box::new(ClientConfig::psk(config.clone(), b"id", b"server-down-psk")),
        server: Box::new(ServerConfig::psk(config, b"id", b"server-down-psk")),
    }
}

fn cojp() -> SessionHandshake {
    SessionHandshake::Cojp(sim::app::cojp::CojpSetup {
        coap: coap::reliability::Params::default(),
        token_bytes: 2,
    })
}

fn edhoc() -> SessionHandshake {
    SessionHandshake::Edhoc(sim::app::edhoc::EdhocSetup {
        edhoc: edhoc::Config::default(),
        coap: coap::reliability::Params::default(),
        token_bytes: 2,
    })
}

/// Every completed join: (client, started, completed), from the trace.
fn joins(events: &[TraceEvent], handshake: &SessionHandshake) -> Vec<(usize, u64, u64)> {
    let dtls12 = matches!(handshake, SessionHandshake::Dtls { .. });
    let (start, done) = if dtls12 {
        (
            ("session_requested", ""),
            ("session_established", "success"),
        )
    } else {
        (("handshake_started", ""), ("handshake_ended", "success"))
    };
    let client = |e: &TraceEvent| if dtls12 { e.peer } else { Some(e.node) };
    let mut started = std::collections::BTreeMap::new();
    let mut out = Vec::new();
    for e in events.iter().filter(|e| e.layer == "app") {
        let Some(c) = client(e) else { continue };
        if (e.kind, e.outcome) == start {
            started.insert(c, e.at);
        } else if (e.kind, e.outcome) == done {
            out.push((c, started[&c], e.at));
        }
    }
    out
}

fn int(row: &Row, key: &str) -> i64 {
    common::int(row, key)
}

fn float(row: &Row, key: &str) -> f64 {
    match common::get(row, key) {
        sim::row::Value::Float(x) => x,
        other => panic!("{key}: {other:?}"),
    }
}

const DOWN: [(u64, u64); 2] = [(0, 120), (300, 420)];

#[test]
fn a_server_that_is_down_completes_no_join_started_then_and_joins_resume_after() {
    for handshake in [cojp(), dtls12(), edhoc()] {
        let s = line(handshake.clone(), &DOWN);
        let (r, trace) = run_traced(&s, 0, 2_000_000).unwrap();
        let row = &r.rows[0];
        let joins = joins(&trace.events, &handshake);
        let name = format!("{:?}", std::mem::discriminant(&handshake));
        // everyone joined, each once (the first window ends at 120 s)
        let mut who: Vec<usize> = joins.iter().map(|j| j.0).collect();
        who.dedup();
        assert_eq!(who.len(), 4, "{name}: {joins:?}");
        assert!(
            joins.iter().all(|&(_, _, done)| done >= 120 * SECOND),
            "{name}: a join completed while the server was down from power-on: {joins:?}"
        );
        // none started inside a window completed inside it
        for &(from, to) in &DOWN {
            let (from, to) = (from * SECOND, to * SECOND);
            assert!(
                !joins.iter().any(|&(_, a, b)| from <= a && b < to),
                "{name}: {joins:?}"
            );
        }
        assert_eq!(int(row, "sessions_started_while_down"), 0, "{name}");
        // what reached it while down was dropped, counted, and it came back twice
        let dropped = (trace.events.iter())
            .filter(|e| e.kind == "server_down_drop")
            .count();
        assert!(dropped > 0, "{name}");
        assert_eq!(int(row, "server_down_drops"), dropped as i64, "{name}");
        assert_eq!(int(row, "server_restarts"), 2, "{name}");
        assert_eq!(int(row, "sessions_established"), 4, "{name}");
    }
}

#[test]
fn the_server_goes_down_and_comes_back_when_its_window_says() {
    let s = line(dtls12(), &[(200, 260)]);
    let (r, trace) = run_traced(&s, 0, 2_000_000).unwrap();
    let taken: Vec<(u64, &str)> = (trace.events.iter())
        .filter(|e| e.kind == "server_down" || e.kind == "server_up")
        .map(|e| (e.at, e.kind))
        .collect();
    assert_eq!(
        taken,
        [(200 * SECOND, "server_down"), (260 * SECOND, "server_up")]
    );
    let row = &r.rows[0];
    assert_eq!(int(row, "server_restarts"), 1);
    // every client joined before the crash (waits of mean 5 s)
    assert_eq!(int(row, "sessions_while_down"), 0);
    assert_eq!(int(row, "sessions_established"), 4);
    // the slot table went down with the server: four slots held until
    // 200 s at most, none after (the clients hold their sessions and do
    // not ask again), none orphaned
    let busy = float(row, "mean_busy_slots");
    assert!(busy > 0.0 && busy <= 4.0 * 200.0 / 900.0, "{busy}");
    assert_eq!(float(row, "mean_orphaned_slots"), 0.0);
}

#[test]
fn an_empty_outage_list_is_the_run_without_one_and_a_rerun_is_the_same() {
    for handshake in [cojp(), dtls12()] {
        let none = run_replication(&line(handshake.clone(), &[]), 0, false, &[]).unwrap();
        assert!(none.rows[0].iter().all(|(k, _)| !k.starts_with("server_")));
        let a = run_replication(&line(handshake.clone(), &DOWN), 0, false, &[]).unwrap();
        let b = run_replication(&line(handshake, &DOWN), 0, false, &[]).unwrap();
        assert_eq!(format!("{:?}", a.rows), format!("{:?}", b.rows));
        assert_ne!(format!("{:?}", a.rows), format!("{:?}", none.rows));
    }
}
