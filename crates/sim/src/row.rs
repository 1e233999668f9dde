//! Result rows: what a replication reports, one key and value per column,
//! and the columns every workload shares, taken from snapshots of every
//! node's energy and MAC counters.

use crate::energy::{Energy, PowerProfile, StateTimes};
use crate::engine::Sim;
use crate::mac::security::SecurityStats;
use crate::mac::{Mac, MacStats};
use crate::net::NetStats;
use crate::Time;

/// A value in a result row.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

pub type Row = Vec<(String, Value)>;

/// Add column `k` to `row`.
pub(crate) fn push(row: &mut Row, k: &str, v: Value) {
    row.push((k.to_string(), v));
}

/// Snapshot of every node at one instant: time per state, MAC counters.
pub(crate) struct Snapshot {
    pub at: Time,
    pub times: Vec<StateTimes>,
    pub macs: Vec<MacStats>,
    pub security: Vec<Option<SecurityStats>>,
    pub nets: Vec<NetStats>,
}

pub(crate) fn snapshot<R>(sim: &mut Sim<R>) -> Snapshot {
    sim.settle_energy();
    let at = sim.now();
    Snapshot {
        at,
        times: (0..sim.stacks.len())
            .map(|n| sim.world.energest(n).times(at))
            .collect(),
        macs: sim.stacks.iter().map(|s| s.mac.stats()).collect(),
        security: sim.stacks.iter().map(|s| s.mac.security_stats()).collect(),
        nets: sim.stacks.iter().map(|s| s.net.stats).collect(),
    }
}

/// A MAC counter's column (after `node{n}_`) and where to read it.
type Counter<S> = (&'static str, fn(&S) -> u64);

/// The MAC counters every row has, in column order.
const MAC_COUNTERS: [Counter<MacStats>; 5] = [
    ("frames_sent", |m| m.data_frames_sent),
    ("frame_bytes_sent", |m| m.data_bytes_sent),
    ("mac_retransmissions", |m| m.retransmissions),
    ("mac_drops", |m| m.drops),
    ("strobes_sent", |m| m.strobes_sent),
];

/// The counters of a beacon-enabled MAC, after [`MAC_COUNTERS`].
const BEACON_COUNTERS: [Counter<MacStats>; 2] = [
    ("beacons_sent", |m| m.beacons_sent),
    ("data_requests_sent", |m| m.data_requests_sent),
];

/// The frames link-layer security refused, when the network is secured.
const SECURITY_COUNTERS: [Counter<SecurityStats>; 4] = [
    ("ll_refused_mic", |s| s.refused_mic),
    ("ll_refused_replay", |s| s.refused_replay),
    ("ll_refused_level", |s| s.refused_level),
    ("ll_refused_unknown_key", |s| s.refused_unknown_key),
];

/// A node's energy as columns: the total, then per component and state (µJ).
pub(crate) fn energy_columns(e: &Energy) -> [(&'static str, f64); 6] {
    [
        ("energy_uj", e.total_uj()),
        ("cpu_active_uj", e.cpu_active_uj),
        ("cpu_lpm_uj", e.cpu_lpm_uj),
        ("radio_tx_uj", e.radio_tx_uj),
        ("radio_rx_uj", e.radio_rx_uj),
        ("radio_off_uj", e.radio_off_uj),
    ]
}

/// Columns describing what every node did between two snapshots.
pub(crate) fn interval_columns(
    row: &mut Row,
    from: &Snapshot,
    to: &Snapshot,
    power: &PowerProfile,
    beacon: bool,
) {
    /// Each counter's growth from `b` to `a`, as column `{p}{name}`.
    fn growth<S>(row: &mut Row, p: &str, counters: &[Counter<S>], a: &S, b: &S) {
        for (name, read) in counters {
            push(
                row,
                &format!("{p}{name}"),
                Value::Int((read(a) - read(b)) as i64),
            );
        }
    }
    let mut total_uj = 0.0;
    for n in 0..from.times.len() {
        let e = to.times[n].since(&from.times[n]).energy(power);
        total_uj += e.total_uj();
        let p = format!("node{n}_");
        for (name, uj) in energy_columns(&e) {
            push(row, &format!("{p}{name}"), Value::Float(uj));
        }
        let (a, b) = (&to.macs[n], &from.macs[n]);
        growth(row, &p, &MAC_COUNTERS, a, b);
        if beacon {
            growth(row, &p, &BEACON_COUNTERS, a, b);
        }
        if let (Some(a), Some(b)) = (&to.security[n], &from.security[n]) {
            growth(row, &p, &SECURITY_COUNTERS, a, b);
        }
    }
    push(row, "energy_total_uj", Value::Float(total_uj));
}
