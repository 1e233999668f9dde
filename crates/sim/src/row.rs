//! Result rows: what a replication reports, one key and value per column,
//! and the columns every workload shares, taken from snapshots of every
//! node's energy and MAC counters.

use crate::energy::{PowerProfile, StateTimes};
use crate::engine::Sim;
use crate::mac::security::SecurityStats;
use crate::mac::{Mac, MacStats};

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
    pub times: Vec<StateTimes>,
    pub macs: Vec<MacStats>,
    pub security: Vec<Option<SecurityStats>>,
}

pub(crate) fn snapshot<R>(sim: &mut Sim<R>) -> Snapshot {
    sim.settle_energy();
    let at = sim.now();
    Snapshot {
        times: (0..sim.stacks.len())
            .map(|n| sim.world.energest(n).times(at))
            .collect(),
        macs: sim.stacks.iter().map(|s| s.mac.stats()).collect(),
        security: sim.stacks.iter().map(|s| s.mac.security_stats()).collect(),
    }
}

/// Columns describing what every node did between two snapshots.
pub(crate) fn interval_columns(
    row: &mut Row,
    from: &Snapshot,
    to: &Snapshot,
    power: &PowerProfile,
    beacon: bool,
) {
    let mut total_uj = 0.0;
    for n in 0..from.times.len() {
        let e = to.times[n].since(&from.times[n]).energy(power);
        let m = (to.macs[n], from.macs[n]);
        total_uj += e.total_uj();
        let p = format!("node{n}_");
        push(row, &format!("{p}energy_uj"), Value::Float(e.total_uj()));
        push(
            row,
            &format!("{p}cpu_active_uj"),
            Value::Float(e.cpu_active_uj),
        );
        push(row, &format!("{p}cpu_lpm_uj"), Value::Float(e.cpu_lpm_uj));
        push(row, &format!("{p}radio_tx_uj"), Value::Float(e.radio_tx_uj));
        push(row, &format!("{p}radio_rx_uj"), Value::Float(e.radio_rx_uj));
        push(
            row,
            &format!("{p}radio_off_uj"),
            Value::Float(e.radio_off_uj),
        );
        let frames = m.0.data_frames_sent - m.1.data_frames_sent;
        push(row, &format!("{p}frames_sent"), Value::Int(frames as i64));
        let bytes = m.0.data_bytes_sent - m.1.data_bytes_sent;
        push(
            row,
            &format!("{p}frame_bytes_sent"),
            Value::Int(bytes as i64),
        );
        let retx = m.0.retransmissions - m.1.retransmissions;
        push(
            row,
            &format!("{p}mac_retransmissions"),
            Value::Int(retx as i64),
        );
        let drops = m.0.drops - m.1.drops;
        push(row, &format!("{p}mac_drops"), Value::Int(drops as i64));
        let strobes = m.0.strobes_sent - m.1.strobes_sent;
        push(row, &format!("{p}strobes_sent"), Value::Int(strobes as i64));
        if beacon {
            let beacons = m.0.beacons_sent - m.1.beacons_sent;
            push(row, &format!("{p}beacons_sent"), Value::Int(beacons as i64));
            let polls = m.0.data_requests_sent - m.1.data_requests_sent;
            push(
                row,
                &format!("{p}data_requests_sent"),
                Value::Int(polls as i64),
            );
        }
        if let (Some(a), Some(b)) = (to.security[n], from.security[n]) {
            let refused = |x: u64, y: u64| Value::Int((x - y) as i64);
            push(
                row,
                &format!("{p}ll_refused_mic"),
                refused(a.refused_mic, b.refused_mic),
            );
            push(
                row,
                &format!("{p}ll_refused_replay"),
                refused(a.refused_replay, b.refused_replay),
            );
            push(
                row,
                &format!("{p}ll_refused_level"),
                refused(a.refused_level, b.refused_level),
            );
            push(
                row,
                &format!("{p}ll_refused_unknown_key"),
                refused(a.refused_unknown_key, b.refused_unknown_key),
            );
        }
    }
    push(row, "energy_total_uj", Value::Float(total_uj));
}
