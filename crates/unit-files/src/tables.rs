//! The rules that make the simulator's columns a unit's tables: every row
//! carries the parameters of its point, the result rows keep only the
//! running MAC's per-node counts and every handshake column, and the
//! per-node rows say how long each node's battery lasts.

use sim::columns::{Column, Data};

/// One parameter of a point, the same for every row of the unit.
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

/// `value` as a column of `n` rows (a None parameter: Arrow's null type).
pub fn constant(name: &str, value: &Param, n: usize) -> Column {
    let data = match value {
        Param::Null => Data::Null(n),
        Param::Bool(b) => Data::Bool(vec![*b; n]),
        Param::Int(i) => Data::I64(vec![*i; n]),
        Param::Float(f) => Data::F64(vec![*f; n]),
        Param::Text(t) => Data::Text(vec![t.clone(); n]),
    };
    let valid = u8::from(*value != Param::Null);
    Column {
        name: name.into(),
        data,
        valid: vec![valid; n],
    }
}

/// The columns of `params` that `have` lacks, in the order of `params`,
/// each `n` rows long.
pub fn param_columns(params: &[(String, Param)], have: &[&str], n: usize) -> Vec<Column> {
    params
        .iter()
        .filter(|(k, _)| !have.contains(&k.as_str()))
        .map(|(k, v)| constant(k, v, n))
        .collect()
}

/// `columns` with the parameters they lack in front: every row carries
/// every parameter that produced it.
pub fn with_params(columns: Vec<Column>, params: &[(String, Param)]) -> Vec<Column> {
    let n = columns.first().map_or(0, Column::len);
    let have: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    let mut out = param_columns(params, &have, n);
    out.extend(columns);
    out
}

/// What decides a unit's result columns besides the simulator's rows.
#[derive(Clone, Copy, Debug)]
pub struct RowsOf {
    /// `mac.kind` is xmac.
    pub xmac: bool,
    /// `workload.kind` is handshakes.
    pub handshakes: bool,
}

/// Per-node counts that only one MAC keeps: the core writes them (as 0)
/// for every MAC, the rows of another MAC leave them out.
const XMAC_ONLY_COUNTS: [&str; 1] = ["strobes_sent"];

/// A success has `duration_s`, a failure `give_up_s`, a client that got
/// its keys `keys_s`: every handshake unit has these columns, even a block
/// whose handshakes all went one way.
const HANDSHAKE_COLUMNS: [&str; 3] = ["duration_s", "give_up_s", "keys_s"];

/// The simulator's result rows as a unit keeps them.
pub fn result_rows(columns: Vec<Column>, of: RowsOf) -> Vec<Column> {
    let mut out: Vec<Column> = columns
        .into_iter()
        .filter(|c| of.xmac || !is_node_count(&c.name, &XMAC_ONLY_COUNTS))
        .collect();
    if of.handshakes {
        for name in HANDSHAKE_COLUMNS {
            with_column(&mut out, name);
        }
    }
    out
}

/// `nodeN_quantity` where quantity is one of `counts`.
fn is_node_count(name: &str, counts: &[&str]) -> bool {
    let quantity = name.split_once('_').map_or(name, |(_, rest)| rest);
    name.starts_with("node") && counts.contains(&quantity)
}

/// Append an all-null float column `name` unless `columns` has it.
fn with_column(columns: &mut Vec<Column>, name: &str) {
    if columns.iter().any(|c| c.name == name) {
        return;
    }
    let n = columns.first().map_or(0, Column::len);
    columns.push(Column {
        name: name.into(),
        data: Data::F64(vec![0.0; n]),
        valid: vec![0; n],
    });
}

/// The battery a node's lifetime is figured on.
#[derive(Clone, Copy, Debug)]
pub struct Battery {
    /// Its charge (the platform file's battery the scenario chose).
    pub charge_mah: f64,
    /// The supply voltage the model's energy was figured at.
    pub voltage_v: f64,
}

/// The simulator's per-node rows as a unit keeps them: `delivery_ratio`
/// always (null when no node started a packet), and each node's mean power
/// (`mean_power_mw`), the charge it drew (`charge_drawn_mah`) and its
/// lifetime on `battery` (`lifetime_days`, the charge in `battery_mah`): the
/// charge over the node's mean current, the current
/// being its energy over the interval at the supply voltage (energy =
/// current x voltage x time, so this is the current the model drew). A
/// node that keeps spending as it did in the interval empties the battery
/// after charge / current hours. Regulator losses, self-discharge and the
/// cell's voltage falling with charge are not modelled. An interval of no
/// time, or a node that spent nothing, has no figure (null).
pub fn node_rows(columns: Vec<Column>, battery: Battery) -> Result<Vec<Column>, String> {
    let mut out = columns;
    with_column(&mut out, "delivery_ratio");
    let energy_uj = floats(&out, "energy_uj")?;
    let interval_s = floats(&out, "interval_s")?;
    let power_mw: Vec<f64> = energy_uj
        .iter()
        .zip(&interval_s)
        .map(|(e, t)| e / t / 1e3) // µJ/s = µW
        .collect();
    let days: Vec<f64> = power_mw
        .iter()
        .map(|p| battery.charge_mah / (p / battery.voltage_v) / 24.0)
        .collect();
    let n = power_mw.len();
    out.push(finite("mean_power_mw", power_mw));
    out.push(Column {
        name: "battery_mah".into(),
        data: Data::F64(vec![battery.charge_mah; n]),
        valid: vec![1; n],
    });
    out.push(finite("lifetime_days", days));
    // the charge the node drew from its battery over the interval: its
    // energy at the supply voltage (J / V = C; 3.6 C = 1 mAh)
    let drawn: Vec<f64> = energy_uj
        .iter()
        .map(|e| e / 1e6 / battery.voltage_v / 3.6)
        .collect();
    out.push(finite("charge_drawn_mah", drawn));
    Ok(out)
}

/// A column of `values`, null where one is not finite.
fn finite(name: &str, values: Vec<f64>) -> Column {
    let valid = values.iter().map(|v| u8::from(v.is_finite())).collect();
    Column {
        name: name.into(),
        data: Data::F64(values),
        valid,
    }
}

/// A numeric column's values as floats, NaN where null.
fn floats(columns: &[Column], name: &str) -> Result<Vec<f64>, String> {
    let c = columns
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| format!("the per-node rows have no column {name:?}"))?;
    let values: Vec<f64> = match &c.data {
        Data::F64(d) => d.clone(),
        Data::I64(d) => d.iter().map(|&i| i as f64).collect(),
        Data::Bool(d) => d.iter().map(|&b| f64::from(u8::from(b))).collect(),
        Data::Null(n) => vec![f64::NAN; *n],
        Data::Text(_) => return Err(format!("per-node column {name:?} is text, not a number")),
    };
    Ok(values
        .into_iter()
        .zip(&c.valid)
        .map(|(v, &ok)| if ok == 1 { v } else { f64::NAN })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64s(name: &str, values: &[f64]) -> Column {
        Column {
            name: name.into(),
            data: Data::F64(values.to_vec()),
            valid: vec![1; values.len()],
        }
    }

    fn names(columns: &[Column]) -> Vec<&str> {
        columns.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn parameters_the_rows_lack_go_in_front_in_their_order() {
        let params = [
            ("point_key".to_string(), Param::Text("k".into())),
            ("x".to_string(), Param::Int(3)),
            ("gone".to_string(), Param::Null),
        ];
        let out = with_params(vec![f64s("x", &[1.0, 2.0])], &params);
        assert_eq!(names(&out), ["point_key", "gone", "x"]);
        assert!(matches!(&out[0].data, Data::Text(t) if t == &["k", "k"]));
        assert!(matches!(out[1].data, Data::Null(2)));
        assert_eq!(out[1].valid, [0, 0]);
        assert!(matches!(&out[2].data, Data::F64(d) if d == &[1.0, 2.0]));
    }

    #[test]
    fn another_macs_counts_are_dropped_and_handshake_columns_added() {
        let rows = vec![
            f64s("node0_strobes_sent", &[0.0]),
            f64s("node0_frames_sent", &[1.0]),
            f64s("duration_s", &[0.5]),
        ];
        let csma = RowsOf {
            xmac: false,
            handshakes: true,
        };
        let out = result_rows(rows, csma);
        assert_eq!(
            names(&out),
            ["node0_frames_sent", "duration_s", "give_up_s", "keys_s"]
        );
        assert_eq!(out[2].valid, [0]);
        let xmac = RowsOf {
            xmac: true,
            handshakes: false,
        };
        let kept = result_rows(vec![f64s("node0_strobes_sent", &[2.0])], xmac);
        assert_eq!(names(&kept), ["node0_strobes_sent"]);
    }

    #[test]
    fn lifetime_is_charge_over_mean_current_and_null_without_a_figure() {
        let nodes = vec![
            f64s("energy_uj", &[3.6e6, 0.0, 0.0]),
            f64s("interval_s", &[3600.0, 10.0, 0.0]),
        ];
        let battery = Battery {
            charge_mah: 2400.0,
            voltage_v: 3.0,
        };
        let out = node_rows(nodes, battery).unwrap();
        assert_eq!(
            names(&out),
            [
                "energy_uj",
                "interval_s",
                "delivery_ratio",
                "mean_power_mw",
                "battery_mah",
                "lifetime_days",
                "charge_drawn_mah"
            ]
        );
        // 3.6 J at 3 V: 1.2 C, a third of a mAh
        let Data::F64(drawn) = &out[6].data else {
            panic!("charge_drawn_mah is not float")
        };
        assert!((drawn[0] - 1.0 / 3.0).abs() < 1e-12, "{}", drawn[0]);
        assert_eq!(out[6].valid, [1, 1, 1]);
        // 3.6 J in an hour: 1 mW, 1/3 mA at 3 V; 2400 mAh last 7200 h = 300 days
        let Data::F64(days) = &out[5].data else {
            panic!("lifetime_days is not float")
        };
        assert!((days[0] - 300.0).abs() < 1e-9, "{}", days[0]);
        assert_eq!(out[5].valid, [1, 0, 0]);
        // spent nothing: no power is a figure, no lifetime; no time: neither
        assert_eq!(out[3].valid, [1, 1, 0]);
        assert!(node_rows(vec![], battery).is_err());
    }

    #[test]
    fn a_node_spending_10_8_joules_an_hour_empties_a_cr2032_in_9_375_days() {
        // 3 mW at the nRF52840's 3.0 V: 1 mA; 225 mAh last 225 h
        let nodes = vec![f64s("energy_uj", &[10.8e6]), f64s("interval_s", &[3600.0])];
        let coin = Battery {
            charge_mah: 225.0,
            voltage_v: 3.0,
        };
        let out = node_rows(nodes, coin).unwrap();
        let value = |i: usize| match &out[i].data {
            Data::F64(d) => d[0],
            _ => f64::NAN,
        };
        assert!((value(3) - 3.0).abs() < 1e-12, "{}", value(3));
        assert!((value(5) - 9.375).abs() < 1e-12, "{}", value(5));
        assert_eq!(value(4), 225.0);
    }
}
