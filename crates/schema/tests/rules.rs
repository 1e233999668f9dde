//! Every rule of a scenario point refuses a bad value once, naming the key,
//! the value and what is allowed; keys that do nothing are refused; the
//! schema shipped with the Python package is the one the types give now.

use schema::{read, Problem};
use serde_json::{json, Value};

/// A good point: the smallest file, plus `extra` merged in (tables deep).
fn point(extra: Value) -> Value {
    let mut p = json!({"experiment": {"id": "t-1", "title": "test"}});
    merge(&mut p, extra);
    p
}

fn merge(into: &mut Value, from: Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v,
    }
}

fn problems(extra: Value) -> Vec<Problem> {
    read(&point(extra)).expect_err("refused")
}

/// The one problem about `key`, checked to be alone.
fn refused(extra: Value, key: &str) -> Problem {
    let all = problems(extra);
    let mine: Vec<_> = all.iter().filter(|p| p.key == key).cloned().collect();
    assert_eq!(mine.len(), 1, "{key}: {all:?}");
    mine[0].clone()
}

#[test]
fn the_smallest_file_is_a_point_with_every_default() {
    let p = read(&point(json!({}))).unwrap();
    assert_eq!(p.platform, "wismote");
    assert_eq!(p.topology.hops, Some(1));
    assert_eq!(p.topology.nodes, None);
    assert_eq!(p.topology.audible, Some(schema::topology::Audible::Routes));
    assert!(p.mac.tsch.is_none());
    assert_eq!(p.dtls.retransmission.max_ms, Some(60_000.0));
    assert_eq!(p.workload.handshakes, Some(1));
    assert_eq!(p.workload.pings, None);
}

#[test]
fn ranges_name_key_value_and_range() {
    let p = refused(
        json!({"mac": {"kind": "tsch", "tsch": {"timeslot_ms": -5.0}}}),
        "mac.tsch.timeslot_ms",
    );
    assert_eq!(p.value, Some(json!(-5.0)));
    assert!(p.allowed.starts_with("must be > 0"), "{}", p.allowed);
    let p = refused(
        json!({"dtls": {"max_fragment_bytes": 8}}),
        "dtls.max_fragment_bytes",
    );
    assert!(p.allowed.starts_with("must be >= 16"), "{}", p.allowed);
    let p = refused(json!({"dtls": {"mtu_bytes": 70_000}}), "dtls.mtu_bytes");
    assert!(p.allowed.starts_with("must be <= 65507"), "{}", p.allowed);
    let p = refused(json!({"topology": {"pdr": 1.5}}), "topology.pdr");
    assert_eq!(p.allowed, "must be <= 1 (range (0, 1])");
}

#[test]
fn rules_across_keys() {
    let beacon =
        json!({"mac": {"kind": "beacon", "beacon": {"beacon_order": 4, "superframe_order": 5}}});
    let p = refused(beacon, "mac.beacon.superframe_order");
    assert_eq!(p.allowed, "must be <= mac.beacon.beacon_order (4)");
    let csma = json!({"mac": {"kind": "csma", "csma": {"min_be": 6, "max_be": 5}}});
    refused(csma, "mac.csma.min_be");
    let tsch =
        json!({"mac": {"kind": "tsch", "tsch": {"slotframe_length": 101, "cells_per_link": 200}}});
    assert!(refused(tsch, "mac.tsch.cells_per_link")
        .allowed
        .contains("slotframe_length (101)"));
    let short = json!({"mac": {"kind": "tsch", "tsch": {"timeslot_ms": 5.0}}});
    let p = refused(short, "mac.tsch.timeslot_ms");
    assert!(
        p.allowed.contains("IEEE default template needs 9.776 ms"),
        "{}",
        p.allowed
    );
    let retx = json!({"dtls": {"retransmission": {"initial_ms": 5000.0, "max_ms": 1000.0}}});
    refused(retx, "dtls.retransmission.initial_ms");
    let o = json!({"overhead": {"payload_min_bytes": 10, "payload_max_bytes": 5}});
    refused(o, "overhead.payload_min_bytes");
}

#[test]
fn impossible_mac_timings_are_refused_with_their_source() {
    // a check interval shorter than a wake-up ran and printed 0.41 s
    let xmac = |x: Value| json!({"mac": {"kind": "xmac", "xmac": x}});
    let p = refused(
        xmac(json!({"check_interval_ms": 0.125})),
        "mac.xmac.check_interval_ms",
    );
    assert_eq!(p.value, Some(json!(0.125)));
    assert_eq!(
        p.allowed,
        "must be > 7.812 ms, a wake-up's listen window (mac.xmac.on_time_ms 6.226 rounded up \
         to whole clock ticks (listen_window_in_clock_ticks = true)), so that the radio sleeps \
         between wake-ups (cxmac.c cpowercycle); range (7.812, 60000]"
    );
    let p = refused(
        xmac(
            json!({"check_interval_ms": 5.0, "on_time_ms": 5.0, "listen_window_in_clock_ticks": false}),
        ),
        "mac.xmac.check_interval_ms",
    );
    assert!(p.allowed.starts_with("must be > 5 ms"), "{}", p.allowed);
    // the shortest interval that leaves an off time is accepted
    let ok = problems(xmac(json!({"check_interval_ms": 7.9})));
    assert!(
        ok.iter().all(|p| p.key != "mac.xmac.check_interval_ms"),
        "{ok:?}"
    );
    let beacon = |b: Value| json!({"mac": {"kind": "beacon", "beacon": b}});
    let p = refused(
        beacon(json!({"beacon_order": 0, "superframe_order": 0, "guard_time_us": 20_000})),
        "mac.beacon.guard_time_us",
    );
    assert!(
        p.allowed
            .starts_with("must be < 15360 (the wake-up before a beacon within one beacon interval"),
        "{}",
        p.allowed
    );
    assert!(p.allowed.contains("IEEE 802.15.4-2006 7.5.1.1"));
    let p = refused(
        beacon(json!({"beacon_order": 2, "superframe_order": 1, "superframe_offset_us": 61_440})),
        "mac.beacon.superframe_offset_us",
    );
    assert!(p.allowed.ends_with("range [0, 61439]"), "{}", p.allowed);
    let tree = json!({"mac": {"kind": "tsch", "tsch": {"schedule": "tree", "slotframe_length": 7, "shared_cells": 7}}});
    let p = refused(tree, "mac.tsch.shared_cells");
    assert!(
        p.allowed
            .starts_with("must be < mac.tsch.slotframe_length (7) with schedule = 'tree'"),
        "{}",
        p.allowed
    );
    assert!(p.allowed.ends_with("range [0, 6]"), "{}", p.allowed);
    let late = json!({"simulation": {"start_ms": 5000.0, "max_time_s": 5.0}});
    assert_eq!(
        refused(late, "simulation.start_ms").allowed,
        "must be < simulation.max_time_s (5 s = 5000 ms), when a replication ends: nothing \
         would run; range [0, 5000)"
    );
}

#[test]
fn given_cells_and_channel_factors() {
    let given = |cells: Value| json!({"mac": {"kind": "tsch", "tsch": {"cell_placement": "given", "cells": cells}}});
    let p = refused(given(json!([])), "mac.tsch.cells");
    assert!(p.allowed.starts_with("must list cells"));
    let clash =
        json!([{"sender": 0, "receiver": 1, "slot": 10}, {"sender": 1, "receiver": 2, "slot": 10}]);
    let p = refused(given(clash), "mac.tsch.cells[1]");
    assert!(p.allowed.contains("node 1 already has a cell in slot 10"));
    let far = json!([{"sender": 0, "receiver": 1, "slot": 101}]);
    assert_eq!(
        refused(given(far), "mac.tsch.cells[0]").allowed,
        "slot must be in [0, 100]"
    );
    let stray = json!({"mac": {"kind": "tsch", "tsch": {"cells": [{"sender": 0, "receiver": 1, "slot": 1}]}}});
    assert!(refused(stray, "mac.tsch.cells")
        .allowed
        .contains("only with cell_placement = 'given'"));
    let few = json!({"mac": {"kind": "tsch", "tsch": {"channel_pdr": [0.5, 1.0]}}});
    assert!(refused(few, "mac.tsch.channel_pdr")
        .allowed
        .contains("must list 16 values"));
}

#[test]
fn link_security_rules() {
    let p = refused(
        json!({"link_security": {"level": "enc-mic-256"}}),
        "link_security.level",
    );
    assert!(p.allowed.contains("'enc-mic-128'"), "{}", p.allowed);
    let csma = json!({"mac": {"kind": "csma"}, "link_security": {"level": "mic-32", "frame_counter_suppressed": true}});
    refused(csma, "link_security.frame_counter_suppressed");
    let openwsn = json!({"mac": {"kind": "csma"}, "link_security": {"implementation": "openwsn"}});
    assert!(refused(openwsn, "link_security.implementation")
        .allowed
        .contains("tsch"));
    let far = json!({"link_security": {"level": "mic-32", "outdated_key_nodes": [5]}});
    assert_eq!(
        refused(far, "link_security.outdated_key_nodes").allowed,
        "node must be in [0, 1]"
    );
    let unsecured = json!({"link_security": {"outdated_key_nodes": [1]}});
    refused(unsecured, "link_security.outdated_key_nodes");
    let weak = json!({"link_security": {"below_policy_nodes": [1]}});
    assert!(refused(weak, "link_security.below_policy_nodes")
        .allowed
        .contains("refuses none"));
    let same = json!({"link_security": {"level": "enc-mic-64", "below_policy_nodes": [1], "below_policy_level": "enc-mic-128"}});
    refused(same, "link_security.below_policy_level");
}

#[test]
fn unknown_keys_name_what_is_allowed() {
    let p = refused(
        json!({"mac": {"kind": "tsch", "tsch": {"slot_frame": 3}}}),
        "mac.tsch.slot_frame",
    );
    assert!(p.allowed.contains("unknown key") && p.allowed.contains("'slotframe_length'"));
    let p = refused(json!({"mac": {"kind": "aloha"}}), "mac.kind");
    assert!(p.allowed.contains("'tsch'"));
    let p = refused(
        json!({"mac": {"kind": "tsch", "tsch": {"cells_per_link": "three"}}}),
        "mac.tsch.cells_per_link",
    );
    assert!(p.allowed.contains("integer"));
    let p = refused(json!({"topology": {"audible": "some"}}), "topology.audible");
    assert!(
        p.allowed.contains("'routes'") && p.allowed.contains("'all'"),
        "{}",
        p.allowed
    );
    let p = refused(json!({"experiment": {"title": null}}), "experiment.title");
    assert!(p.allowed.contains("string"), "{}", p.allowed);
}

#[test]
fn several_read_problems_come_together() {
    let all = problems(
        json!({"mac": {"kind": "tsch", "tsch": {"slot_frame": 3, "timeslot_ms": "x"}}, "dtls": {"mtu": 1}}),
    );
    let keys: Vec<_> = all.iter().map(|p| p.key.as_str()).collect();
    for k in ["mac.tsch.slot_frame", "mac.tsch.timeslot_ms", "dtls.mtu"] {
        assert!(keys.contains(&k), "{k}: {keys:?}");
    }
}

#[test]
fn keys_without_effect_are_refused() {
    let p = refused(json!({"mac": {"kind": "beacon", "tsch": {}}}), "mac.tsch");
    assert!(
        p.allowed.contains("only with mac.kind = 'tsch'"),
        "{}",
        p.allowed
    );
    let p = refused(
        json!({"topology": {"kind": "line", "nodes": 5}}),
        "topology.nodes",
    );
    assert!(
        p.allowed.contains("topology.kind = 'random'"),
        "{}",
        p.allowed
    );
    refused(
        json!({"topology": {"kind": "random", "hops": 2}}),
        "topology.hops",
    );
    let p = refused(
        json!({"topology": {"kind": "links", "links": [{"a": 0, "b": 1, "pdr": 1.0}], "audible": "all"}}),
        "topology.audible",
    );
    assert!(
        p.allowed.contains("topology.kind = 'line'"),
        "{}",
        p.allowed
    );
    let tiny = json!({"dtls": {"retransmission": {"policy": "tinydtls", "max_ms": 1000.0}}});
    refused(tiny, "dtls.retransmission.max_ms");
    let p = refused(
        json!({"workload": {"kind": "handshakes", "pings": 3}}),
        "workload.pings",
    );
    assert!(p.allowed.contains("'ping'"), "{}", p.allowed);
}

#[test]
fn policy_defaults_follow_the_policy() {
    let p = read(&point(
        json!({"dtls": {"retransmission": {"policy": "tinydtls"}}}),
    ))
    .unwrap();
    let r = p.dtls.retransmission;
    assert_eq!(
        (r.initial_ms, r.max_ms, r.max_retransmissions),
        (Some(2000.0), None, Some(7))
    );
    // RFC 6347's timing for the other two; the count is the dtls crate's
    let r = read(&point(
        json!({"dtls": {"retransmission": {"policy": "doubling"}}}),
    ))
    .unwrap()
    .dtls
    .retransmission;
    assert_eq!(
        (r.initial_ms, r.max_ms, r.max_retransmissions),
        (Some(1000.0), Some(60_000.0), Some(6))
    );
    let r = read(&point(
        json!({"dtls": {"retransmission": {"policy": "fixed"}}}),
    ))
    .unwrap()
    .dtls
    .retransmission;
    assert_eq!(
        (r.initial_ms, r.max_ms, r.max_retransmissions),
        (Some(1000.0), None, Some(6))
    );
}

/// A platform profile with round figures (1 µs per crypto block, 20 mA
/// radio), `frame_processing_us` per frame.
fn test_platform(frame_processing_us: f64) -> Value {
    json!({
        "power": {"voltage_v": 3.0, "cpu_active_ma": 1.0, "cpu_lpm_ma": 0.1,
                  "radio_tx_ma": 20.0, "radio_rx_ma": 20.0, "radio_off_ma": 0.0},
        "crypto": {"aes_block_us": 1.0, "aes256_block_us": 1.4, "sha256_block_us": 1.0,
                   "sha512_block_us": 2.5, "ecdh_us": 1.0,
                   "ecdsa_sign_us": 1.0, "ecdsa_verify_us": 1.0},
        "frame_processing_us": frame_processing_us,
        "bus_us_per_byte": 1.0,
    })
}

#[test]
fn a_point_becomes_the_simulator_s_spec_in_microseconds() {
    use sim::scenario::{MacSpec, Workload};
    let platform = test_platform(400.4);
    let tsch = point(json!({
        "topology": {"hops": 3},
        "mac": {"kind": "tsch", "tsch": {"slotframe_length": 7, "timeslot_ms": 15.0}},
        "workload": {"kind": "frames"},
        "simulation": {"start_ms": 2.5},
    }));
    let s = schema::simulation(&tsch, &platform).unwrap();
    assert_eq!((s.client, s.server, s.start_us), (0, 3, 2500));
    let MacSpec::Tsch(t) = &s.mac else {
        panic!("{:?}", s.mac)
    };
    assert_eq!(
        (t.template.slot_us, t.slotframe, t.frame_processing_us),
        (15_000, 7, 400)
    );
    // with TSCH a frame waits up to one slotframe by default
    let Workload::Frames { max_wait_us, .. } = s.workload else {
        panic!()
    };
    assert_eq!(max_wait_us, 7 * 15_000);
    // link security without the platform's CCM* costs is refused, naming the key
    let secured = point(json!({
        "link_security": {"level": "mic-32"},
        "mac": {"kind": "csma"},
        "topology": {},
        "workload": {},
    }));
    let p = schema::simulation(&secured, &platform).unwrap_err();
    assert_eq!(p[0].key, "link_security.level");
    let none = schema::simulation(&point(json!({})), &platform).unwrap_err();
    assert_eq!(none[0].key, "mac.kind");
}

/// Contiki 3.0's one-datagram reassembly is a property of the firmware's
/// 6LoWPAN layer, not of its RDC: either MAC's key turns on the one rule.
#[test]
fn contiki_reassembly_reaches_the_run_under_either_mac() {
    let platform = test_platform(400.0);
    for kind in ["xmac", "contikimac"] {
        for on in [false, true] {
            let p = point(json!({
                "topology": {"hops": 2},
                "mac": {"kind": kind, kind: {"contiki_reassembly": on}},
                "workload": {"kind": "frames"},
            }));
            let s = schema::simulation(&p, &platform).unwrap();
            assert_eq!(s.mac.contiki_reassembly(), on, "{kind}");
        }
    }
}

#[test]
fn a_simulated_scenario_must_say_its_network_and_workload() {
    // left out, each is named with what it must say; with mac.kind = "none"
    // (or no [mac]) neither is needed
    let p = schema::read(&point(json!({"mac": {"kind": "xmac"}}))).unwrap_err();
    let keys: Vec<&str> = p.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["topology", "workload"]);
    assert!(
        p[0].allowed
            .contains("required section when mac.kind = \"xmac\""),
        "{}",
        p[0].allowed
    );
    assert!(p[1].allowed.contains("[workload] with"), "{}", p[1].allowed);
    assert!(schema::read(&point(json!({}))).is_ok());
    assert!(schema::read(&point(
        json!({"mac": {"kind": "xmac"}, "topology": {}, "workload": {}})
    ))
    .is_ok());
    let no_experiment = schema::read(&json!({})).unwrap_err();
    assert_eq!(no_experiment[0].key, "experiment");
    assert!(no_experiment[0]
        .allowed
        .starts_with("required section: [experiment]"));
}

#[test]
fn a_listed_link_carries_both_directions_and_is_listed_once() {
    let links = json!({"kind": "links", "links": [
        {"a": 0, "b": 1, "pdr": 0.9},
        {"a": 2, "b": 1, "pdr": 0.5},
    ]});
    let p = read(&point(json!({ "topology": links }))).unwrap();
    let mut got = p.topology.directed_links();
    got.sort_by(|x, y| x.partial_cmp(y).unwrap());
    assert_eq!(
        got,
        vec![(0, 1, 0.9), (1, 0, 0.9), (1, 2, 0.5), (2, 1, 0.5)]
    );
    let twice = json!({"kind": "links", "links": [
        {"a": 0, "b": 1, "pdr": 0.9},
        {"a": 1, "b": 0, "pdr": 0.8},
    ]});
    let p = refused(json!({ "topology": twice }), "topology.links[1]");
    assert!(p.allowed.contains("topology.links[0]"), "{}", p.allowed);
    let looped = json!({"kind": "links", "links": [{"a": 1, "b": 1, "pdr": 1.0}]});
    refused(json!({ "topology": looped }), "topology.links[0].b");
}

#[test]
fn the_session_table_is_sized_from_the_ram_budget() {
    use sim::scenario::Workload;
    let mut platform = test_platform(400.0);
    platform["ram_bytes"] = json!(16384);
    let sessions = |fixed: u32| {
        point(json!({
            "mac": {"kind": "csma"},
            "workload": {"kind": "sessions"},
            "topology": {"hops": 5},
            "sessions": {"fixed_ram_bytes": fixed, "slots": 1},
        }))
    };
    let s = schema::simulation(&sessions(10_240), &platform).unwrap();
    let Workload::Sessions(w) = s.workload else {
        panic!()
    };
    // a slot holds a PSK-CCM8 handshake in the compact layout
    let slot = dtls::compact_session_bytes(Some(dtls::CipherSuite::PskAes128Ccm8), None, true);
    assert_eq!(w.limits.slots, (16_384 - 10_240) / slot);
    assert!(w.limits.slots > 1, "sessions.slots is not used");
    let p = schema::simulation(&sessions(16_300), &platform).unwrap_err();
    assert_eq!(p[0].key, "sessions.fixed_ram_bytes");
    assert!(p[0].allowed.contains("no room"), "{}", p[0].allowed);
}

#[test]
fn udgm_fills_cooja_defaults_and_clears_the_line_pdr() {
    let p = read(&point(json!({"medium": {"kind": "udgm"}}))).unwrap();
    let u = p.medium.udgm().expect("udgm");
    // Cooja 3.0 UDGM.java defaults; the oracle's 40 m spacing
    assert_eq!(
        (u.spacing_m, u.tx_range_m, u.interference_range_m),
        (40.0, 50.0, 100.0)
    );
    assert_eq!((u.success_ratio_tx, u.success_ratio_rx), (1.0, 1.0));
    assert_eq!((p.topology.pdr, p.topology.audible), (None, None));
    // the default medium keeps the line's PDR
    let p = read(&point(json!({}))).unwrap();
    assert!(p.medium.udgm().is_none());
    assert_eq!(p.topology.pdr, Some(1.0));
}

#[test]
fn udgm_refuses_what_it_does_not_use_and_what_cannot_work() {
    let p = refused(json!({"medium": {"spacing_m": 10.0}}), "medium.spacing_m");
    assert!(p.allowed.contains("medium.kind = 'udgm'"), "{}", p.allowed);
    let p = refused(
        json!({"medium": {"kind": "udgm"}, "topology": {"pdr": 0.9}}),
        "topology.pdr",
    );
    assert_eq!(p.value, Some(json!(0.9)));
    let p = refused(
        json!({"medium": {"kind": "udgm"}, "topology": {"kind": "links", "links": [{"a": 0, "b": 1, "pdr": 1.0}]}}),
        "medium.kind",
    );
    assert!(p.allowed.contains("'line' or 'random'"), "{}", p.allowed);
    let p = refused(
        json!({"medium": {"kind": "udgm", "spacing_m": 60.0}}),
        "medium.spacing_m",
    );
    assert!(p.allowed.contains("<= medium.tx_range_m"), "{}", p.allowed);
    let p = refused(
        json!({"medium": {"kind": "udgm", "success_ratio_tx": 0.0}}),
        "medium.success_ratio_tx",
    );
    assert!(p.allowed.starts_with("must be > 0"), "{}", p.allowed);
    let p = refused(
        json!({"medium": {"kind": "udgm", "spacing_m": 50.0, "success_ratio_rx": 0.0}}),
        "medium.success_ratio_rx",
    );
    assert!(p.allowed.contains("never hear"), "{}", p.allowed);
}

#[test]
fn positions_outside_the_area_are_refused_naming_key_value_and_range() {
    let area = |positions: Value| {
        json!({"medium": {"kind": "log-distance"},
               "topology": {"kind": "random", "area_side_m": 100.0, "positions": positions}})
    };
    let p = refused(
        area(json!([{"x_m": 50.0, "y_m": 50.0}, {"x_m": 120.5, "y_m": 10.0}])),
        "topology.positions[1].x_m",
    );
    assert_eq!(p.value, Some(json!(120.5)));
    assert!(p.allowed.contains("in [0, 100] m"), "{}", p.allowed);
    assert!(p.allowed.contains("topology.area_side_m"), "{}", p.allowed);
    let p = refused(
        area(json!([{"x_m": 50.0, "y_m": 50.0}, {"x_m": 10.0, "y_m": -3.0}])),
        "topology.positions[1].y_m",
    );
    assert_eq!(p.value, Some(json!(-3.0)));
    // the node count follows the positions; a different one is refused
    let ok = read(&point(area(
        json!([{"x_m": 50.0, "y_m": 50.0}, {"x_m": 60.0, "y_m": 50.0}]),
    )))
    .unwrap();
    assert_eq!(ok.topology.nodes, Some(2));
    assert_eq!(ok.topology.range_m, None, "the medium makes the links");
    let mut three = area(json!([{"x_m": 50.0, "y_m": 50.0}, {"x_m": 60.0, "y_m": 50.0}]));
    three["topology"]["nodes"] = json!(3);
    refused(three, "topology.positions");
    // in an area the line's spacing and the disk's range do nothing
    let mut spaced = area(json!([{"x_m": 50.0, "y_m": 50.0}, {"x_m": 60.0, "y_m": 50.0}]));
    spaced["medium"]["spacing_m"] = json!(10.0);
    refused(spaced, "medium.spacing_m");
    let p = refused(
        json!({"medium": {"kind": "pister-hack"}, "topology": {"kind": "random", "range_m": 30.0}}),
        "topology.range_m",
    );
    assert!(p.allowed.contains("medium.kind = 'pdr'"), "{}", p.allowed);
    // positions belong to the random kind
    let p = refused(
        json!({"topology": {"kind": "line", "positions": [{"x_m": 0.0, "y_m": 0.0}]}}),
        "topology.positions",
    );
    assert!(
        p.allowed.contains("topology.kind = 'random'"),
        "{}",
        p.allowed
    );
}

#[test]
fn keys_set_for_a_run_that_do_nothing_are_named() {
    let edhoc = read(&point(json!({
        "topology": {"kind": "line", "hops": 1},
        "mac": {"kind": "csma"},
        "workload": {"kind": "handshakes", "handshake": "edhoc"},
    })))
    .unwrap();
    let given = |k: &str, v: Value| vec![(k.to_string(), v)];
    let p = edhoc.unused_given(&given("dtls.version", json!(["1.2", "1.3"])));
    assert_eq!(p.len(), 1);
    assert_eq!(
        p[0].allowed,
        "has no effect here: only with workload.handshake = 'dtls', not 'edhoc'"
    );
    // EDHOC's cryptography is charged at its own strategy's costs, not DTLS's
    assert_eq!(
        edhoc
            .unused_given(&given("dtls.crypto_strategy", json!("hardware")))
            .len(),
        1
    );
    assert!(edhoc
        .unused_given(&given("edhoc.crypto_strategy", json!("hardware")))
        .is_empty());
    assert!(edhoc
        .unused_given(&given("edhoc.credentials", json!("ccs")))
        .is_empty());
    let dtls = read(&point(json!({
        "topology": {"kind": "line", "hops": 1},
        "mac": {"kind": "csma"},
        "workload": {"kind": "handshakes"},
    })))
    .unwrap();
    assert!(dtls
        .unused_given(&given("dtls.version", json!("1.3")))
        .is_empty());
    let p = dtls.unused_given(&given("edhoc", json!({"credentials": "ccs"})));
    assert_eq!(
        p[0].allowed,
        "has no effect here: only with workload.handshake = 'edhoc', not 'dtls'"
    );
}

#[test]
fn formation_needs_a_shared_cell_and_a_positive_eb_period() {
    let tsch = |t: Value| json!({"mac": {"kind": "tsch", "tsch": t}});
    // the default schedule ("links") has no shared cell for the EBs
    let p = refused(tsch(json!({"formation": "scan"})), "mac.tsch.formation");
    assert_eq!(p.value, Some(json!("scan")));
    assert!(
        p.allowed.starts_with("must be 'synchronised' unless"),
        "{}",
        p.allowed
    );
    let p = refused(
        tsch(json!({"formation": "scan", "schedule": "tree", "shared_cells": 0})),
        "mac.tsch.formation",
    );
    assert!(p.allowed.contains("shared_cells >= 1"), "{}", p.allowed);
    for schedule in ["minimal", "tree", "tree-both", "orchestra", "msf"] {
        let all = problems(tsch(json!({"formation": "scan", "schedule": schedule})));
        assert!(all.iter().all(|p| p.key != "mac.tsch.formation"), "{all:?}");
    }
    let p = refused(
        tsch(json!({"formation": "scan", "schedule": "minimal", "eb_period_s": 0.0})),
        "mac.tsch.eb_period_s",
    );
    assert!(p.allowed.contains("[0.01, 3600]"), "{}", p.allowed);
    let p = refused(tsch(json!({"formation": "beacons"})), "mac.tsch.formation");
    assert!(p.allowed.contains("synchronised"), "{}", p.allowed);
}

#[test]
fn rpl_routing_needs_formation() {
    let tsch = |t: Value| json!({"mac": {"kind": "tsch", "tsch": t}});
    // the default and "tree" are accepted
    for t in [json!({"schedule": "minimal"}), json!({"routing": "tree"})] {
        let all = problems(tsch(t));
        assert!(all.iter().all(|p| p.key != "mac.tsch.routing"), "{all:?}");
    }
    let p = refused(
        tsch(json!({"schedule": "minimal", "routing": "rpl"})),
        "mac.tsch.routing",
    );
    assert_eq!(p.value, Some(json!("rpl")));
    assert!(p.allowed.contains("formation = 'scan'"), "{}", p.allowed);
    let all = problems(tsch(
        json!({"schedule": "minimal", "formation": "scan", "routing": "rpl"}),
    ));
    assert!(all.iter().all(|p| p.key != "mac.tsch.routing"), "{all:?}");
    // MSF follows RPL's parent (docs/rpl.md)
    let all = problems(tsch(
        json!({"schedule": "msf", "formation": "scan", "routing": "rpl"}),
    ));
    assert!(all.iter().all(|p| p.key != "mac.tsch.routing"), "{all:?}");
    let p = refused(tsch(json!({"routing": "ospf"})), "mac.tsch.routing");
    assert!(p.allowed.contains("tree"), "{}", p.allowed);
    // a fixed neighbour table's Orchestra cells would not follow RPL
    let p = refused(
        tsch(
            json!({"schedule": "orchestra", "formation": "scan", "routing": "rpl",
                    "orchestra_line_neighbours_up_to": 8}),
        ),
        "mac.tsch.routing",
    );
    assert!(
        p.allowed.contains("orchestra_line_neighbours_up_to"),
        "{}",
        p.allowed
    );
}

#[test]
fn the_eb_slotframe_needs_nodes_synchronised_from_power_on() {
    let tsch = |t: Value| json!({"mac": {"kind": "tsch", "tsch": t}});
    let all = problems(tsch(
        json!({"schedule": "orchestra", "orchestra_eb_period": 397}),
    ));
    assert!(
        all.iter().all(|p| p.key != "mac.tsch.orchestra_eb_period"),
        "{all:?}"
    );
    let p = refused(
        tsch(json!({"schedule": "orchestra", "formation": "scan", "orchestra_eb_period": 397})),
        "mac.tsch.orchestra_eb_period",
    );
    assert_eq!(p.value, Some(json!(397)));
    assert!(
        p.allowed.contains("formation = 'synchronised'"),
        "{}",
        p.allowed
    );
}

#[test]
fn clock_drift_needs_formation_and_its_keys_their_ranges() {
    let tsch = |t: Value| json!({"mac": {"kind": "tsch", "tsch": t}});
    // a node that loses synchronisation scans again: only with formation
    let p = refused(
        tsch(json!({"schedule": "minimal", "drift_ppm": 20.0})),
        "mac.tsch.drift_ppm",
    );
    assert_eq!(p.value, Some(json!(20.0)));
    assert!(p.allowed.contains("formation = 'scan'"), "{}", p.allowed);
    let scan = |extra: Value| {
        let mut t = json!({"formation": "scan", "schedule": "minimal", "drift_ppm": 20.0});
        for (k, v) in extra.as_object().unwrap() {
            t[k] = v.clone();
        }
        tsch(t)
    };
    // accepted with formation (the other problems are the missing sections)
    let all = problems(scan(json!({})));
    assert!(all.iter().all(|p| !p.key.starts_with("mac.")), "{all:?}");
    for (key, bad, range) in [
        ("drift_ppm", json!(-1.0), "[0, 1000]"),
        ("keepalive_timeout_s", json!(-0.5), "[0, 3600]"),
        ("desync_threshold_s", json!(0.0), "[0.01, 36000]"),
        ("guard_us", json!(2_000.0), "[1, 1100]"),
    ] {
        let p = refused(
            scan(json!({ key: bad.clone() })),
            &format!("mac.tsch.{key}"),
        );
        assert_eq!(p.value, Some(bad), "{key}");
        assert!(p.allowed.contains(range), "{key}: {}", p.allowed);
    }
}

#[test]
fn a_power_in_mw_where_the_medium_takes_dbm_is_refused_naming_the_dbm_key() {
    let p = refused(
        json!({"medium": {"kind": "log-distance", "tx_power_mw": 1.0}}),
        "medium.tx_power_mw",
    );
    assert!(
        p.allowed
            .contains("powers here are in dBm, not mW: write 'tx_power_dbm'"),
        "{}",
        p.allowed
    );
    // the dBm key's declared range, from the one declaration
    assert!(p.allowed.contains("range [-40, 30] dBm"), "{}", p.allowed);
    // a misspelling that is not a unit slip keeps the usual answer
    let p = refused(
        json!({"medium": {"kind": "log-distance", "tx_powr_dbm": 0.0}}),
        "medium.tx_powr_dbm",
    );
    assert!(
        p.allowed.contains("did you mean 'tx_power_dbm'"),
        "{}",
        p.allowed
    );
}

#[test]
fn the_handshakes_ends_are_nodes_of_the_network_and_differ() {
    let p = read(&point(json!({"workload": {"kind": "handshakes"}}))).unwrap();
    let mut probs = schema::problem::Problems::default();
    assert_eq!(p.workload.ends(50, &mut probs), (0, 49), "a line's ends");
    let p = read(&point(
        json!({"workload": {"client_node": 17, "server_node": 0}}),
    ))
    .unwrap();
    assert_eq!(p.workload.ends(50, &mut probs), (17, 0));
    assert!(probs.is_empty());
    p.workload.ends(10, &mut probs);
    assert_eq!(probs.0.len(), 1);
    assert_eq!(probs.0[0].key, "workload.client_node");
    assert_eq!(probs.0[0].allowed, "a node of the network, 0..=9");
    let p = read(&point(
        json!({"workload": {"client_node": 3, "server_node": 3}}),
    ))
    .unwrap();
    let mut probs = schema::problem::Problems::default();
    p.workload.ends(10, &mut probs);
    assert_eq!(probs.0[0].key, "workload.server_node");
    // only the handshakes read them
    refused(
        json!({"workload": {"kind": "ping", "client_node": 2}}),
        "workload.client_node",
    );
}

#[test]
fn the_sessions_server_may_be_the_border_router_and_is_a_node_of_the_network() {
    // the storm's server is node 0, the TSCH and RPL root; the client key
    // does not apply (every other node is a client), so no clash with its
    // default 0
    let p = read(&point(
        json!({"workload": {"kind": "sessions", "server_node": 0}, "topology": {"hops": 49}}),
    ))
    .unwrap();
    let mut probs = schema::problem::Problems::default();
    assert_eq!(p.workload.ends(50, &mut probs).1, 0);
    assert!(probs.is_empty(), "{probs:?}");
    // without it, the last node, as before
    let p = read(&point(
        json!({"workload": {"kind": "sessions"}, "topology": {"hops": 49}}),
    ))
    .unwrap();
    assert_eq!(p.workload.ends(50, &mut probs).1, 49);
    // beyond the network: refused, naming the key and the range
    let p = read(&point(
        json!({"workload": {"kind": "sessions", "server_node": 60}, "topology": {"hops": 49}}),
    ))
    .unwrap();
    p.workload.ends(50, &mut probs);
    assert_eq!(probs.0.len(), 1);
    assert_eq!(probs.0[0].key, "workload.server_node");
    assert_eq!(probs.0[0].allowed, "a node of the network, 0..=49");
    // the ping workload still does not read it
    refused(
        json!({"workload": {"kind": "ping", "server_node": 2}}),
        "workload.server_node",
    );
}

#[test]
fn border_routers_are_refused_where_nothing_carries_them() {
    let platform = test_platform(400.4);
    let random = |extra: Value| {
        let mut p = json!({"topology": {"kind": "random", "nodes": 100, "border_routers": 4},
                           "mac": {"kind": "tsch"}, "workload": {"kind": "periodic"}});
        merge(&mut p, extra);
        point(p)
    };
    let key = "topology.border_routers";
    let only = |p: Vec<Problem>| {
        let mine: Vec<_> = p.iter().filter(|p| p.key == key).cloned().collect();
        assert_eq!(mine.len(), 1, "{p:?}");
        mine[0].clone()
    };
    // accepted on the disk model under TSCH's computed forest
    let s = schema::simulation(&random(json!({})), &platform).unwrap();
    assert!(matches!(
        s.topology,
        sim::scenario::TopologySpec::Random {
            border_routers: 4,
            ..
        }
    ));
    // as many as the nodes (or more): some node must not be one
    let p = refused(random(json!({"topology": {"border_routers": 100}})), key);
    assert_eq!(p.value, Some(json!(100)));
    assert!(p.allowed.contains("in [1, 99]"), "{}", p.allowed);
    assert!(
        refused(random(json!({"topology": {"border_routers": 0}})), key)
            .allowed
            .contains(">= 1")
    );
    // a line has no border routers to add
    let p = refused(json!({"topology": {"border_routers": 2}}), key);
    assert!(p.allowed.contains("kind = 'random'"), "{}", p.allowed);
    // RPL's one DODAG, beacon's one PAN coordinator, a medium's placement
    let rpl = random(
        json!({"mac": {"tsch": {"routing": "rpl", "formation": "scan", "schedule": "minimal"}}}),
    );
    let p = only(schema::simulation(&rpl, &platform).unwrap_err());
    assert_eq!(p.value, Some(json!(4)));
    assert!(
        p.allowed.contains("mac.tsch.routing = 'rpl'"),
        "{}",
        p.allowed
    );
    let beacon = random(json!({"mac": {"kind": "beacon"}}));
    let p = only(schema::simulation(&beacon, &platform).unwrap_err());
    assert!(p.allowed.contains("mac.kind = 'beacon'"), "{}", p.allowed);
    let udgm = random(json!({"medium": {"kind": "udgm"}}));
    let p = only(schema::simulation(&udgm, &platform).unwrap_err());
    assert!(p.allowed.contains("[medium]"), "{}", p.allowed);
}
