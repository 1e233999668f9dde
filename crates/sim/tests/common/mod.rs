//! What several simulator test binaries share.
#![allow(dead_code)]

use sim::energy::PowerProfile;
use sim::mac::tsch::Template;
use sim::run::Value;
use sim::scenario::{MacSpec, TschSchedule, TschSpec};

/// A WiSMote-like node at 2.8 V (the figures of platforms/wismote.toml,
/// rounded); tests compare runs with each other, not with the platform file.
pub fn wismote_like_power() -> PowerProfile {
    PowerProfile {
        voltage_v: 2.8,
        cpu_active_ma: 3.0,
        cpu_lpm_ma: 0.002,
        radio_tx_ma: 25.8,
        radio_rx_ma: 18.5,
        radio_off_ma: 0.001,
    }
}

/// One TSCH link per neighbour pair in an 11-slot slotframe, no link-layer
/// security: short enough that a handshake's frames find cells quickly.
pub fn small_tsch() -> MacSpec {
    MacSpec::Tsch(TschSpec {
        template: Template::default(),
        slotframe: 11,
        schedule: TschSchedule::RandomLinks { cells: 1 },
        max_retries: 3,
        frame_processing_us: 0,
        security: None,
        channel_pdr: Vec::new(),
        addressing: Default::default(),
        stack: Default::default(),
    })
}

/// Column `key` of a result row.
pub fn get(row: &[(String, Value)], key: &str) -> Value {
    row.iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("no column {key}"))
        .1
        .clone()
}

/// Integer column `key` of a result row.
pub fn int(row: &[(String, Value)], key: &str) -> i64 {
    match get(row, key) {
        Value::Int(i) => i,
        other => panic!("{key}: {other:?}"),
    }
}
