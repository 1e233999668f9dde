//! Result rows: what a replication reports, one key and value per column,
//! and the columns every workload shares, taken from snapshots of every
//! node's energy and MAC counters.

use crate::energy::{Energy, PowerProfile, StateTimes};
use crate::engine::Sim;
use crate::mac::security::SecurityStats;
use crate::mac::tsch::formation::FormationStats;
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
    /// Each node's network formation, when the MAC forms the network.
    pub formation: Vec<Option<FormationStats>>,
    /// Each node's 6P and MSF counts, when the MAC runs MSF.
    pub msf: Vec<Option<crate::mac::tsch::msf_node::MsfStats>>,
    /// Each node's RPL counts, when RPL routes (`mac.tsch.routing = "rpl"`).
    pub rpl: Vec<Option<crate::rpl::node::RplStats>>,
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
        formation: sim.stacks.iter().map(|s| s.mac.formation()).collect(),
        msf: sim.stacks.iter().map(|s| s.mac.msf()).collect(),
        rpl: (0..sim.stacks.len())
            .map(|n| sim.router.as_ref().map(|r| r.nodes[n].stats()))
            .collect(),
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
    formation_columns(row, from, to);
}

/// Seconds from power-on to synchronised, for a node that synchronised by
/// `at` (None for the root, and for a node still scanning).
pub(crate) fn time_to_synchronised_s(f: &FormationStats, at: Time) -> Option<f64> {
    let synced = f.synchronised_at.filter(|&t| t <= at)?;
    Some((synced - f.powered_on_at) as f64 / 1e6)
}

/// With network formation: how many nodes (the root aside) synchronised
/// by the row's end and how many did not, the 50th, 90th and 99th
/// percentiles of their time to synchronised (nearest rank over every
/// non-root node, one still scanning counted as never: null when the rank
/// falls on one), and the malformed EBs dropped in the interval.
pub(crate) fn formation_columns(row: &mut Row, from: &Snapshot, to: &Snapshot) {
    let nodes: Vec<&FormationStats> = to.formation.iter().flatten().filter(|f| !f.root).collect();
    if to.formation.iter().all(Option::is_none) {
        return;
    }
    let mut times: Vec<f64> = (nodes.iter())
        .filter_map(|f| time_to_synchronised_s(f, to.at))
        .collect();
    times.sort_by(f64::total_cmp);
    let n = nodes.len();
    push(row, "nodes_synchronised", Value::Int(times.len() as i64));
    push(
        row,
        "nodes_never_synchronised",
        Value::Int((n - times.len()) as i64),
    );
    for (name, q) in [
        ("time_to_synchronised_p50_s", 0.50),
        ("time_to_synchronised_p90_s", 0.90),
        ("time_to_synchronised_p99_s", 0.99),
    ] {
        if let Some(v) = nearest_rank(&times, n, q) {
            push(row, name, Value::Float(v));
        }
    }
    let malformed =
        |s: &Snapshot| -> u64 { s.formation.iter().flatten().map(|f| f.ebs_malformed).sum() };
    let malformed = malformed(to) - malformed(from);
    push(row, "ebs_malformed", Value::Int(malformed as i64));
}

/// The `q` quantile by nearest rank (the ⌈q·n⌉-th smallest) of `n` values
/// of which `sorted` are the finite ones, the rest infinite: None when the
/// rank falls beyond them (or n = 0).
fn nearest_rank(sorted: &[f64], n: usize, q: f64) -> Option<f64> {
    let rank = ((q * n as f64).ceil() as usize).max(1);
    sorted.get(rank.checked_sub(1)?).copied().filter(|_| n > 0)
}

#[cfg(test)]
mod tests {
    use super::nearest_rank;

    #[test]
    fn nearest_rank_counts_the_unsynchronised_as_never() {
        let t = [1.0, 2.0, 3.0, 4.0];
        // 4 of 4: p50 the 2nd, p90 and p99 the 4th
        assert_eq!(nearest_rank(&t, 4, 0.5), Some(2.0));
        assert_eq!(nearest_rank(&t, 4, 0.99), Some(4.0));
        // 4 of 5 synchronised: p90 is rank ⌈4.5⌉ = 5, a node that never did
        assert_eq!(nearest_rank(&t, 5, 0.5), Some(3.0));
        assert_eq!(nearest_rank(&t, 5, 0.9), None);
        assert_eq!(nearest_rank(&[], 0, 0.5), None);
    }
}
