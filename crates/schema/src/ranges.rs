//! The allowed range of every numeric key, written once: `validate` checks
//! values against it and [`crate::schema`] writes it into the JSON Schema,
//! so the documentation cannot disagree with the rule. A key inside a list
//! of tables is written with `[]` (`topology.links[].pdr`).

use crate::problem::Low::{self, Above, AtLeast};

/// The longest beacon interval of IEEE 802.15.4-2006 7.5.1.1:
/// aBaseSuperframeDuration (960 symbols) · 2^14, at 16 µs a symbol (2.4 GHz O-QPSK).
const LONGEST_BEACON_INTERVAL_US: f64 = 960.0 * 16_384.0 * 16.0;

/// A seed goes to Parquet's signed 64-bit integers.
const LARGEST_SEED: f64 = i64::MAX as f64;

const HOUR_MS: f64 = 3_600_000.0;

/// (dotted key, low end, high end inclusive).
pub const RANGES: &[(&str, Low, f64)] = &[
    ("experiment.seed", AtLeast(0.0), LARGEST_SEED),
    ("experiment.replications", AtLeast(1.0), 10_000_000.0),
    ("experiment.quick_replications", AtLeast(1.0), 10_000_000.0),
    ("topology.hops", AtLeast(1.0), 64.0),
    // RFC 7252 section 4.8 sets 2 s, 1.5 and 4; the ranges keep the
    // timer positive and the factor at least 1 (section 4.8: "MUST NOT
    // be decreased below 1.0"); tokens are 0 to 8 bytes (section 3)
    ("edhoc.ack_timeout_ms", Above(0.0), HOUR_MS),
    ("edhoc.ack_random_factor", AtLeast(1.0), 10.0),
    ("edhoc.max_retransmit", AtLeast(0.0), 20.0),
    ("edhoc.token_bytes", AtLeast(0.0), 8.0),
    ("topology.pdr", Above(0.0), 1.0),
    ("topology.links[].a", AtLeast(0.0), 9_999.0),
    ("topology.links[].b", AtLeast(0.0), 9_999.0),
    ("topology.links[].pdr", Above(0.0), 1.0),
    ("topology.nodes", AtLeast(2.0), 10_000.0),
    ("topology.area_side_m", Above(0.0), 100_000.0),
    ("topology.range_m", Above(0.0), 100_000.0),
    ("medium.spacing_m", Above(0.0), 100_000.0),
    ("medium.tx_range_m", Above(0.0), 100_000.0),
    ("medium.interference_range_m", AtLeast(0.0), 100_000.0),
    // a transmission that never goes out would carry nothing
    ("medium.success_ratio_tx", Above(0.0), 1.0),
    ("medium.success_ratio_rx", AtLeast(0.0), 1.0),
    // IEEE 802.15.4-2006 table 86: macMinBE, macMaxBE,
    // macMaxCSMABackoffs, macMaxFrameRetries
    ("mac.csma.min_be", AtLeast(0.0), 8.0),
    ("mac.csma.max_be", AtLeast(3.0), 8.0),
    ("mac.csma.max_backoffs", AtLeast(0.0), 5.0),
    ("mac.csma.max_retries", AtLeast(0.0), 7.0),
    ("mac.beacon.min_be", AtLeast(0.0), 8.0),
    ("mac.beacon.max_be", AtLeast(3.0), 8.0),
    ("mac.beacon.max_backoffs", AtLeast(0.0), 5.0),
    ("mac.beacon.max_retries", AtLeast(0.0), 7.0),
    ("mac.beacon.beacon_order", AtLeast(0.0), 14.0),
    ("mac.beacon.superframe_order", AtLeast(0.0), 14.0),
    ("mac.beacon.guard_time_us", AtLeast(0.0), 100_000.0),
    (
        "mac.beacon.superframe_offset_us",
        AtLeast(0.0),
        LONGEST_BEACON_INTERVAL_US,
    ),
    ("mac.xmac.check_interval_ms", Above(0.0), 60_000.0),
    ("mac.xmac.on_time_ms", Above(0.0), 1000.0),
    ("mac.xmac.strobe_margin_ms", AtLeast(0.0), 60_000.0),
    ("mac.xmac.strobe_period_ms", Above(0.0), 100.0),
    ("mac.xmac.data_wait_ms", Above(0.0), 10_000.0),
    ("mac.xmac.encounter_lead_ms", AtLeast(0.0), 10_000.0),
    ("mac.xmac.max_transmissions", AtLeast(1.0), 16.0),
    // cxmac needs a buffer besides the queued packet it strobes
    ("mac.xmac.queued_packets", AtLeast(2.0), 256.0),
    ("mac.tsch.slotframe_length", AtLeast(1.0), 65_535.0),
    ("mac.tsch.cells_per_link", AtLeast(1.0), 65_535.0),
    ("mac.tsch.timeslot_ms", Above(0.0), 1000.0),
    ("mac.tsch.max_retries", AtLeast(0.0), 7.0),
    ("mac.tsch.shared_cells", AtLeast(0.0), 65_535.0),
    // their least common multiple is the slotframe the cells are laid out on
    ("mac.tsch.orchestra_unicast_period", AtLeast(1.0), 1_000.0),
    ("mac.tsch.orchestra_common_period", AtLeast(1.0), 1_000.0),
    ("mac.tsch.channel_pdr[]", AtLeast(0.0), 1.0),
    ("mac.tsch.cells[].sender", AtLeast(0.0), 9_999.0),
    ("mac.tsch.cells[].receiver", AtLeast(0.0), 9_999.0),
    ("mac.tsch.cells[].slot", AtLeast(0.0), 65_534.0),
    ("mac.tsch.cells[].channel_offset", AtLeast(0.0), 15.0),
    ("link_security.key_id_mode", AtLeast(0.0), 3.0),
    // a handshake fragment carries RFC 6347 4.2.2's 12-byte header: below
    // 16 bytes it would carry at most 3 bytes of the message
    ("dtls.max_fragment_bytes", AtLeast(16.0), 16_384.0),
    // 65 507: the largest UDP payload over IPv4 (65 535 - 20 - 8)
    ("dtls.mtu_bytes", AtLeast(64.0), 65_507.0),
    ("dtls.server_max_sessions", AtLeast(1.0), 100_000.0),
    // the DTLS 1.3 stack's longest CID (dtls::v13::config::MAX_CID_LEN)
    ("dtls.cid_bytes", AtLeast(0.0), 20.0),
    ("dtls.retransmission.initial_ms", Above(0.0), 600_000.0),
    ("dtls.retransmission.max_ms", Above(0.0), 600_000.0),
    (
        "dtls.retransmission.max_retransmissions",
        AtLeast(0.0),
        100.0,
    ),
    ("workload.handshakes", AtLeast(1.0), 1_000_000.0),
    ("workload.pause_ms", AtLeast(0.0), HOUR_MS),
    ("workload.ping_payload_bytes", AtLeast(0.0), 1200.0),
    ("workload.pings", AtLeast(1.0), 1_000_000.0),
    ("workload.ping_timeout_ms", Above(0.0), HOUR_MS),
    ("workload.report_interval_s", Above(0.0), 86_400.0),
    ("workload.report_payload_bytes", AtLeast(8.0), 1200.0),
    ("workload.duration_s", Above(0.0), 1e7),
    ("workload.frames", AtLeast(1.0), 100_000.0),
    ("workload.frame_payload_bytes", AtLeast(12.0), 1200.0),
    ("workload.frame_max_wait_ms", AtLeast(0.0), HOUR_MS),
    ("simulation.start_ms", AtLeast(0.0), HOUR_MS),
    ("simulation.max_time_s", Above(0.0), 1e7),
    ("simulation.timer_tick_ms", AtLeast(0.0), 1000.0),
    ("model.handshake_frames", AtLeast(1.0), 10_000.0),
    ("sessions.slots", AtLeast(1.0), 100_000.0),
    ("sessions.fixed_ram_bytes", AtLeast(0.0), 1e9),
    ("sessions.clients", AtLeast(1.0), 100_000.0),
    ("sessions.erlang", Above(0.0), 1e6),
    ("sessions.holding_s", Above(0.0), 1e7),
    ("sessions.data_interval_s", Above(0.0), 1e7),
    ("sessions.data_bytes", AtLeast(0.0), 1024.0),
    ("sessions.attackers", AtLeast(0.0), 10_000.0),
    ("sessions.attack_interval_s", Above(0.0), 1e7),
    ("sessions.half_open_max", AtLeast(1.0), 100_000.0),
    ("sessions.half_open_timeout_s", Above(0.0), 1e7),
    ("sessions.idle_timeout_s", Above(0.0), 1e7),
    ("sessions.session_cache", AtLeast(0.0), 100_000.0),
    ("sessions.per_host_max", AtLeast(1.0), 100_000.0),
    ("sessions.warmup_s", AtLeast(0.0), 1e8),
    ("sessions.duration_s", Above(0.0), 1e8),
    ("overhead.payload_min_bytes", AtLeast(0.0), 65_000.0),
    ("overhead.payload_max_bytes", AtLeast(0.0), 65_000.0),
    ("overhead.payload_step_bytes", AtLeast(1.0), 65_000.0),
];

/// The range of `key` (list indices written `[]`); None for a key without one.
pub fn of(key: &str) -> Option<(Low, f64)> {
    let mut general = String::with_capacity(key.len());
    let mut in_index = false;
    for c in key.chars() {
        match c {
            '[' => {
                in_index = true;
                general.push('[');
            }
            ']' => {
                in_index = false;
                general.push(']');
            }
            _ if in_index => {}
            _ => general.push(c),
        }
    }
    RANGES
        .iter()
        .find(|(k, _, _)| *k == general)
        .map(|&(_, low, high)| (low, high))
}

/// Write every range into `schema` (from `schemars`), replacing the bounds
/// of the Rust types it put there.
pub fn annotate(schema: &mut serde_json::Value) {
    for &(key, low, high) in RANGES {
        let root = schema.clone();
        if let Some(node) = find(schema, &root, key) {
            if let Some(map) = node.as_object_mut() {
                map.remove("minimum");
                map.remove("maximum");
                match low {
                    AtLeast(l) => map.insert("minimum".into(), number(l)),
                    Above(l) => map.insert("exclusiveMinimum".into(), number(l)),
                };
                map.insert("maximum".into(), number(high));
            }
        }
    }
}

fn number(x: f64) -> serde_json::Value {
    if x.fract() == 0.0 && x.abs() < 9e15 {
        serde_json::Value::from(x as i64)
    } else {
        serde_json::Value::from(x)
    }
}

/// The schema node of `key`, following `$ref`s, optional keys' `anyOf`
/// and list items.
fn find<'a>(
    schema: &'a mut serde_json::Value,
    root: &serde_json::Value,
    key: &str,
) -> Option<&'a mut serde_json::Value> {
    // a JSON pointer to the node, built by walking `root`
    let mut pointer = String::new();
    for part in key.split('.') {
        let (name, item) = match part.strip_suffix("[]") {
            Some(n) => (n, true),
            None => (part, false),
        };
        pointer = resolve(root, &pointer)?;
        pointer = format!("{pointer}/properties/{name}");
        root.pointer(&pointer)?;
        if item {
            pointer = resolve(root, &pointer)?;
            pointer = format!("{pointer}/items");
        }
    }
    schema.pointer_mut(&pointer)
}

/// Follow `$ref` and an optional key's `anyOf` to the node with the content.
fn resolve(root: &serde_json::Value, pointer: &str) -> Option<String> {
    let node = root.pointer(pointer)?;
    if let Some(r) = node.get("$ref").and_then(|r| r.as_str()) {
        return resolve(root, r.strip_prefix('#')?);
    }
    if let Some(options) = node.get("anyOf").and_then(|o| o.as_array()) {
        for (i, o) in options.iter().enumerate() {
            if o.get("type").and_then(|t| t.as_str()) != Some("null") {
                return resolve(root, &format!("{pointer}/anyOf/{i}"));
            }
        }
    }
    Some(pointer.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_range_is_found_in_the_schema() {
        let schema = serde_json::to_value(schemars::schema_for!(crate::Point)).unwrap();
        for &(key, _, _) in RANGES {
            let mut copy = schema.clone();
            assert!(find(&mut copy, &schema, key).is_some(), "{key}");
        }
        assert!(of("topology.links[3].pdr").is_some());
        assert!(of("mac.tsch.unknown").is_none());
    }
}
