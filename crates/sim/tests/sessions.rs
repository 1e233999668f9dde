//! The sessions workload: with instantaneous handshakes and no eviction the
//! simulated blocking agrees with the Engset closed form (M/M/R/R/N); with
//! real DTLS handshakes the table holds, and its policies act, as they say.

mod common;

use dtls::{ClientConfig, Config, ServerConfig};
use session_table::{Limits, Policy};
use sim::mac::csma::CsmaParams;
use sim::node::cpu::CryptoCost;
use sim::row::Value;
use sim::run::run_replication;
use sim::scenario::{MacSpec, Scenario, SessionHandshake, SessionsSpec, TopologySpec, Workload};
use sim::world::Processing;

const SECOND: u64 = 1_000_000;

/// A star: the server at node 0, every other node one hop from it.
fn star(nodes: usize) -> TopologySpec {
    TopologySpec::Links {
        nodes,
        links: (1..nodes)
            .flat_map(|n| [(0, n, 1.0), (n, 0, 1.0)])
            .collect(),
    }
}

fn scenario(spec: SessionsSpec, seed: u64) -> Scenario {
    let nodes = spec.clients + spec.attackers + 1;
    Scenario {
        topology: star(nodes),
        client: 1,
        server: 0,
        mac: MacSpec::Csma(CsmaParams::default()),
        power: common::wismote_like_power(),
        crypto: CryptoCost::default(),
        processing: Processing::default(),
        workload: Workload::Sessions(Box::new(spec)),
        start_us: SECOND,
        power_on_window_us: 0,
        max_time_us: 100_000 * SECOND,
        timer_tick_us: 0,
        give_up_idle_us: None,
        close_notify: true,
        seed,
        outdated_key_nodes: Vec::new(),
        below_policy_nodes: Vec::new(),
    }
}

/// N = 5 clients of ρ = 0.5 each, holding 1/μ = `holding_s` on average.
fn engset_spec(slots: usize, handshake: SessionHandshake, holding_s: f64) -> SessionsSpec {
    let erlang = 0.5;
    SessionsSpec {
        limits: Limits::slots(slots),
        policy: Policy::Refuse,
        clients: 5,
        attackers: 0,
        idle_mean_us: holding_s / erlang * 1e6,
        holding_mean_us: holding_s * 1e6,
        handshake,
        data_interval_us: 10 * SECOND,
        data_bytes: 16,
        close_until_answered: false,
        join_after_parent: false,
        join_proxy: false,
        join_rate_bytes_per_s: None,
        same_port: false,
        server_crypto: None,
        session_cache: 0,
        attack_interval_us: SECOND,
        warmup_us: (20.0 * holding_s) as u64 * SECOND,
        duration_us: (2000.0 * holding_s) as u64 * SECOND,
        stop_at_secured_share: None,
        server_down_us: Vec::new(),
    }
}

fn value(row: &[(String, Value)], key: &str) -> f64 {
    match row.iter().find(|(k, _)| k == key).map(|(_, v)| v) {
        Some(Value::Float(x)) => *x,
        Some(Value::Int(x)) => *x as f64,
        other => panic!("{key}: {other:?}"),
    }
}

/// Mean and half-width of the 99 % confidence interval of `xs` (Student's
/// t with 19 degrees of freedom: 2.861).
fn interval(xs: &[f64]) -> (f64, f64) {
    assert_eq!(xs.len(), 20);
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, 2.861 * (var / n).sqrt())
}

#[test]
fn instantaneous_handshakes_block_as_engset_says() {
    for slots in 1..=5 {
        let s = scenario(engset_spec(slots, SessionHandshake::Instant, 1.0), 15);
        let rows: Vec<_> = (0..20)
            .map(|r| run_replication(&s, r, false, &[]).unwrap().rows.remove(0))
            .collect();
        let closed = models::engset::engset(slots as u32, 5, 0.5).unwrap();
        for (key, expected) in [
            ("time_congestion", closed.time_congestion),
            ("call_congestion", closed.call_congestion),
        ] {
            let xs: Vec<f64> = rows.iter().map(|r| value(r, key)).collect();
            let (mean, half) = interval(&xs);
            assert!(
                (mean - expected).abs() <= half,
                "R = {slots}: simulated {key} {mean:.4} ± {half:.4}, Engset {expected:.4}"
            );
            if slots == 5 {
                // five slots for five clients: nobody is ever refused
                assert_eq!(mean, 0.0, "{key}");
            } else {
                // the interval is narrow enough to tell R from R ± 1
                assert!(half < 0.1 * expected, "R = {slots}: {key} ± {half:.4}");
            }
        }
    }
}

const PSK: &[u8] = b"session-capacity-test-key";

fn dtls_handshake() -> SessionHandshake {
    let config = Config::tightest_psk_ccm8();
    SessionHandshake::Dtls {
        client: Box::new(ClientConfig::psk(config.clone(), b"id", PSK)),
        server: Box::new(ServerConfig::psk(config, b"id", PSK)),
    }
}

/// Five clients holding 60 s sessions on average over CSMA, with
/// `attackers` more nodes abandoning a handshake every second each.
fn dtls_spec(slots: usize, policy: Policy, attackers: usize) -> SessionsSpec {
    SessionsSpec {
        policy,
        attackers,
        warmup_us: 60 * SECOND,
        duration_us: 1800 * SECOND,
        ..engset_spec(slots, dtls_handshake(), 60.0)
    }
}

fn run(spec: SessionsSpec) -> Vec<(String, Value)> {
    run_replication(&scenario(spec, 15), 0, false, &[])
        .unwrap()
        .rows
        .remove(0)
}

#[test]
fn real_handshakes_take_slots_and_are_refused_when_none_is_free() {
    let row = run(dtls_spec(2, Policy::Refuse, 0));
    let established = value(&row, "sessions_established");
    assert!(established > 20.0, "{established} sessions in 30 min");
    assert!(value(&row, "slot_refusals") > 0.0);
    assert!(value(&row, "handshake_s") > 0.0);
    assert!(value(&row, "mean_busy_slots") <= 2.0);
    assert_eq!(value(&row, "sessions_evicted"), 0.0, "refuse never evicts");
    // a refused handshake is one that failed: the client saw the alert
    assert!(value(&row, "sessions_failed") >= value(&row, "slot_refusals"));
}

#[test]
fn eviction_tears_sessions_down_instead_of_refusing() {
    let row = run(dtls_spec(2, Policy::EvictOldest, 0));
    assert_eq!(value(&row, "slot_refusals"), 0.0);
    assert!(value(&row, "sessions_evicted") > 0.0);
}

#[test]
fn a_half_open_flood_locks_clients_out_unless_half_open_handshakes_go_first() {
    let flooded = run(dtls_spec(3, Policy::Refuse, 2));
    let defended = run(dtls_spec(3, Policy::EvictHalfOpen, 2));
    assert!(value(&flooded, "attacker_slot_decisions") > 100.0);
    let locked_out = value(&flooded, "call_congestion");
    let served = value(&defended, "call_congestion");
    assert!(
        // a half-open slot comes free only when the server's own
        // retransmissions give up on it: most handshakes still find none
        locked_out > 0.5 && served < locked_out / 4.0,
        "refuse: {locked_out:.3} of handshakes refused; evict-half-open: {served:.3}"
    );
}

#[test]
fn a_returning_client_resumes_its_session_with_fewer_bytes() {
    let row = run(SessionsSpec {
        join_after_parent: false,
        server_crypto: None,
        session_cache: 8,
        ..dtls_spec(3, Policy::Refuse, 0)
    });
    let resumed = value(&row, "sessions_resumed");
    let established = value(&row, "sessions_established");
    // every client's first session is full; its later ones resume
    assert!(resumed > established / 2.0, "{resumed} of {established}");
    let (full, short) = (
        value(&row, "handshake_bytes_full"),
        value(&row, "handshake_bytes_resumed"),
    );
    assert!(short < full, "resumed {short} B, full {full} B");
    let (full_s, short_s) = (
        value(&row, "handshake_s_full"),
        value(&row, "handshake_s_resumed"),
    );
    assert!(short_s < full_s, "resumed {short_s} s, full {full_s} s");
    // without a cache nothing resumes
    let row = run(dtls_spec(3, Policy::Refuse, 0));
    assert_eq!(value(&row, "sessions_resumed"), 0.0);
}

#[test]
fn an_idle_timeout_spares_live_sessions() {
    // over CSMA every close_notify arrives (acknowledged frames): no slot
    // is orphaned, and a live session (a record every 10 s) never idles
    // out; the timeout's own rule is tested in crates/session-table
    let row = run(SessionsSpec {
        limits: Limits {
            idle_timeout_us: Some(60 * SECOND),
            ..Limits::slots(3)
        },
        ..dtls_spec(3, Policy::Refuse, 0)
    });
    assert_eq!(value(&row, "slots_freed_idle_timeout"), 0.0);
    assert!(value(&row, "slots_freed_closed") > 10.0);
    assert!(value(&row, "mean_orphaned_slots") < 0.05);
}

/// A line 0 - 1 - 2 - 3 (server at node 0) whose three clients join by
/// CoJP after a wait of mean 1 s from boot: returns, per client, when its
/// first join started and when it first succeeded.
fn line_of_joins(join_after_parent: bool) -> Vec<(u64, u64)> {
    line_of_joins_row(join_after_parent, None).1
}

/// The line of joins' row and, per client, when its first join started and
/// first succeeded; ended once `stop` of the clients have joined, if given.
fn line_of_joins_row(
    join_after_parent: bool,
    stop: Option<f64>,
) -> (sim::row::Row, Vec<(u64, u64)>) {
    line_of_joins_row_after(join_after_parent, stop, 0)
}

/// The line of joins measured after a warm-up of `warmup_us`.
fn line_of_joins_row_after(
    join_after_parent: bool,
    stop: Option<f64>,
    warmup_us: u64,
) -> (sim::row::Row, Vec<(u64, u64)>) {
    let spec = SessionsSpec {
        clients: 3,
        join_after_parent,
        stop_at_secured_share: stop,
        server_down_us: Vec::new(),
        idle_mean_us: SECOND as f64,
        warmup_us,
        duration_us: 600 * SECOND,
        ..engset_spec(
            4,
            SessionHandshake::Cojp(sim::app::cojp::CojpSetup {
                coap: coap::reliability::Params::default(),
                token_bytes: 2,
            }),
            1e7,
        )
    };
    let mut s = scenario(spec, 3);
    s.topology = TopologySpec::Links {
        nodes: 4,
        links: (0..3)
            .flat_map(|n| [(n, n + 1, 1.0), (n + 1, n, 1.0)])
            .collect(),
    };
    let (mut r, trace) = sim::run::run_traced(&s, 0, 1_000_000).unwrap();
    let joins = (1..4)
        .filter_map(|node| {
            let first = |kind: &str, outcome: &str| {
                (trace.events.iter())
                    .find(|e| e.node == node && e.kind == kind && e.outcome == outcome)
                    .map(|e| e.at)
            };
            Some((
                first("handshake_started", "")?,
                first("handshake_ended", "success")?,
            ))
        })
        .collect();
    (r.rows.remove(0), joins)
}

#[test]
fn a_storm_stopped_at_a_secured_share_ends_with_the_join_that_made_it() {
    // the whole run (600 s): all three clients join, in line order
    let (whole, all) = line_of_joins_row(true, None);
    assert_eq!(all.len(), 3, "{all:?}");
    assert_eq!(value(&whole, "secured_share"), 1.0);
    assert_eq!(value(&whole, "virtual_time_s"), 600.0);
    let since_start = |t: u64| (t - SECOND) as f64 / 1e6; // start_us is 1 s
                                                          // stopped at half of them: ⌈0.5 · 3⌉ = 2 joins, the run ends 1 µs after
                                                          // the second (the same joins: nothing differs before the stop)
    let (half, two) = line_of_joins_row(true, Some(0.5));
    assert_eq!(two, all[..2].to_vec(), "{two:?} {all:?}");
    assert_eq!(value(&half, "secured_share"), 2.0 / 3.0);
    assert_eq!(value(&half, "sessions_established"), 2.0);
    assert_eq!(value(&half, "secured_50_s"), since_start(all[1].1));
    assert!(value(&half, "secured_90_s").is_nan());
    let ended = value(&half, "virtual_time_s");
    assert!(
        (ended - (since_start(all[1].1) + 1e-6)).abs() < 1e-9,
        "{ended}"
    );
    // the share at the hour is the share at the end when the run is shorter
    assert_eq!(value(&half, "secured_share_1h"), 2.0 / 3.0);
    // stopped at all of them: ends after the third, its t99 the third's time
    let (full, _) = line_of_joins_row(true, Some(1.0));
    assert_eq!(value(&full, "secured_99_s"), since_start(all[2].1));
    let ended = value(&full, "virtual_time_s");
    assert!(
        (ended - (since_start(all[2].1) + 1e-6)).abs() < 1e-9,
        "{ended}"
    );
    // without the parent rule the stop counts the same way
    let (free, _) = line_of_joins_row(false, Some(1.0));
    assert_eq!(value(&free, "secured_share"), 1.0);
    assert!(value(&free, "virtual_time_s") < 600.0);
}

#[test]
fn a_share_secured_within_the_warm_up_ends_the_run_as_the_window_opens() {
    // every client joins within seconds: with a 300 s warm-up the share is
    // made before the measured window opens, and the run ends as it opens
    let (row, joins) = line_of_joins_row_after(true, Some(1.0), 300 * SECOND);
    assert_eq!(joins.len(), 3, "{joins:?}");
    assert!(joins.iter().all(|&(_, ok)| ok < 300 * SECOND), "{joins:?}");
    assert_eq!(value(&row, "secured_share"), 1.0);
    let window = value(&row, "virtual_time_s");
    assert!((0.0..=1e-6).contains(&window), "{window}");
}

#[test]
fn with_join_after_parent_no_node_starts_its_join_before_its_parent_has_joined() {
    // the three boot waits are drawn from the same streams either way; held
    // back, node 2 starts no earlier than node 1 succeeds and node 3 no
    // earlier than node 2 (node 1, one hop from the server, starts after
    // its own wait as before)
    let free = line_of_joins(false);
    let held = line_of_joins(true);
    assert_eq!(held[0].0, free[0].0, "{held:?} {free:?}");
    for k in 1..3 {
        assert!(held[k].0 >= held[k - 1].1, "{held:?}");
        assert!(held[k].1 > held[k - 1].1, "{held:?}");
    }
    // without it the waits alone decide: a mean of 1 s from boot against
    // joins of several hops, some node starts before its parent has joined
    assert!(
        (1..3).any(|k| free[k].0 < free[k - 1].1),
        "{free:?} (the test would not tell the rule from no rule)"
    );
}

#[test]
fn a_client_starting_anew_from_the_same_port_takes_over_its_own_slot() {
    // one attacker abandoning a handshake every second after its cookie
    // exchange, against 4 slots: from a fresh port each time every
    // abandoned handshake keeps a half-open slot until the server's
    // retransmissions give up on it, so the attacker fills the table and
    // the five clients are refused; from one port its handshakes are one
    // association (RFC 6347 §4.2.8), holding one slot at most, and the
    // clients share the other three
    let fresh = run(dtls_spec(4, Policy::Refuse, 1));
    let same = run(SessionsSpec {
        same_port: true,
        ..dtls_spec(4, Policy::Refuse, 1)
    });
    let (fresh_c, same_c) = (
        value(&fresh, "call_congestion"),
        value(&same, "call_congestion"),
    );
    assert!(
        fresh_c > 0.5,
        "fresh ports: {fresh_c:.3} of handshakes refused"
    );
    assert!(
        same_c < fresh_c / 2.0,
        "one port: {same_c:.3}, fresh ports: {fresh_c:.3}"
    );
    let (fresh_n, same_n) = (
        value(&fresh, "sessions_established"),
        value(&same, "sessions_established"),
    );
    assert!(
        same_n > 10.0 * fresh_n.max(1.0),
        "{same_n} against {fresh_n}"
    );
    // the attacker's one slot and the clients' three at most
    assert!(value(&same, "mean_busy_slots") <= 4.0);
}
