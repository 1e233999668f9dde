//! `simulate`: run replications of one scenario point in Rust, without the GIL.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt};
use schema::mac::MacKind;
use schema::workload::WorkloadKind;
use sim::capture;
use sim::columns::{to_columns, Column, Data};
use sim::row::Value;
use sim::run::{plan, run_replication, run_traced, Replication};
use sim::scenario::{MacSpec, Scenario};
use sim::trace::TraceEvent;
use unit_files::parquet_file;
use unit_files::results::{self, Outputs, PointUnits};
use unit_files::tables::{self, node_rows, result_rows, with_params, Battery, Param, RowsOf};
use wpan::pcap::PcapWriter;
use wpan::tap::TapInfo;

use crate::scenario::{message, parse, SettledPoint};

/// Column as Python sees it: (name, kind, data, validity or None); kind is
/// "f64", "i64" or "bool" with data little-endian bytes, "str" with a list,
/// or "null" with the number of rows.
type PyColumn<'py> = (
    String,
    &'static str,
    Bound<'py, PyAny>,
    Option<Bound<'py, PyBytes>>,
);

fn to_python<'py>(py: Python<'py>, c: Column) -> PyResult<PyColumn<'py>> {
    let bytes = |b: Vec<u8>| PyBytes::new(py, &b).into_any();
    let (kind, data) = match c.data {
        Data::F64(d) => (
            "f64",
            bytes(d.iter().flat_map(|x| x.to_le_bytes()).collect()),
        ),
        Data::I64(d) => (
            "i64",
            bytes(d.iter().flat_map(|x| x.to_le_bytes()).collect()),
        ),
        Data::Bool(d) => ("bool", bytes(d.iter().map(|&b| u8::from(b)).collect())),
        Data::Text(d) => ("str", d.into_pyobject(py)?.into_any()),
        Data::Null(n) => ("null", n.into_pyobject(py)?.into_any()),
    };
    let valid = (c.valid.contains(&0)).then(|| PyBytes::new(py, &c.valid));
    Ok((c.name, kind, data, valid))
}

enum Failure {
    Config(String),
    Io(String),
}

/// Whether the settled scenario point can run on the platform figures in
/// `platform_json`, found without simulating (`sim::run::plan`): None, or
/// why not in words.
#[pyfunction]
pub fn plan_point(
    point: &Bound<'_, SettledPoint>,
    platform_json: &str,
) -> PyResult<Option<String>> {
    let platform = parse("platform figures", platform_json)?;
    Ok(match schema::simulation_of(&point.get().0, &platform) {
        Err(p) => Some(message(&p)),
        Ok(scenario) => plan(&scenario).err().map(|e| e.to_string()),
    })
}

/// Run replications `first .. first + count` of the settled scenario
/// point on the platform figures in `platform_json` (see
/// `schema::PlatformCosts`): the unit's result rows and, beside them, its
/// per-node rows (`sim::node_rows`), both as a sweep keeps them
/// (`unit_files::tables`: `params` in front of every row, a node's lifetime
/// on a battery of `battery_mah`). With `files` (rows, per-node rows) the
/// core writes them there as Parquet (`unit_files::parquet_file`) and
/// returns None; else it returns them as columns (see [`PyColumn`]).
/// With `pcap`, the frames of the first of them are written there (see
/// [`write_pcap`]). `jammed` lists (node, n): the n-th emission of that
/// node is lost.
#[pyfunction]
#[pyo3(signature = (point, platform_json, first, count, battery_mah, params=Vec::new(),
    files=None, pcap=None, jammed=Vec::new(), pcap_node=None))]
#[allow(clippy::too_many_arguments)]
pub fn simulate<'py>(
    py: Python<'py>,
    point: &Bound<'py, SettledPoint>,
    platform_json: &str,
    first: u64,
    count: u64,
    battery_mah: f64,
    params: Vec<(String, PyParam)>,
    files: Option<(PathBuf, PathBuf)>,
    pcap: Option<PathBuf>,
    jammed: Vec<(usize, u64)>,
    pcap_node: Option<usize>,
) -> PyResult<Option<Tables<'py>>> {
    let platform = parse("platform figures", platform_json)?;
    let settled = &point.get().0;
    let scenario = schema::simulation_of(settled, &platform)
        .map_err(|p| PyValueError::new_err(message(&p)))?;
    check_pcap_node(&scenario, pcap_node)?;
    let of = RowsOf {
        xmac: settled.mac.kind == MacKind::Xmac,
        handshakes: settled.workload.kind == WorkloadKind::Handshakes,
    };
    let battery = Battery {
        charge_mah: battery_mah,
        voltage_v: scenario.power.voltage_v,
    };
    let params: Vec<(String, Param)> = params.into_iter().map(|(k, v)| (k, v.0)).collect();
    let tables = py.detach(|| -> Result<Option<UnitTables>, Failure> {
        let mut rows = Vec::new();
        let mut nodes = Vec::new();
        for rep in first..first + count {
            let record = pcap.is_some() && rep == first;
            let r = run_replication(&scenario, rep, record, &jammed)
                .map_err(|e| Failure::Config(e.to_string()))?;
            if let Some(path) = &pcap {
                write_pcap(path, &scenario.mac, &r, pcap_node)
                    .map_err(|e| Failure::Io(format!("{}: {e}", path.display())))?;
            }
            let events = r.events as i64;
            rows.extend(r.rows.into_iter().map(|mut row| {
                row.push(("replication_events".into(), Value::Int(events)));
                row
            }));
            nodes.extend(r.nodes);
        }
        let rows = with_params(result_rows(to_columns(rows), of), &params);
        let nodes = node_rows(to_columns(nodes), battery).map_err(Failure::Config)?;
        let nodes = with_params(nodes, &params);
        let Some((rows_path, nodes_path)) = &files else {
            return Ok(Some((rows, nodes)));
        };
        // the per-node table first: a unit whose rows exist is whole
        parquet_file::write(&nodes, nodes_path).map_err(Failure::Io)?;
        parquet_file::write(&rows, rows_path).map_err(Failure::Io)?;
        Ok(None)
    });
    let python = |columns: Vec<Column>| -> PyResult<Vec<PyColumn<'py>>> {
        columns.into_iter().map(|c| to_python(py, c)).collect()
    };
    match tables {
        Ok(Some((rows, nodes))) => Ok(Some((python(rows)?, python(nodes)?))),
        Ok(None) => Ok(None),
        Err(Failure::Config(e)) => Err(PyValueError::new_err(e)),
        Err(Failure::Io(e)) => Err(PyOSError::new_err(e)),
    }
}

/// A unit's result rows and per-node rows as columns.
type Tables<'py> = (Vec<PyColumn<'py>>, Vec<PyColumn<'py>>);

/// The same in the core.
type UnitTables = (Vec<Column>, Vec<Column>);

/// A column as Python hands it back (see [`PyColumn`]).
type PyColumnIn<'py> = (String, String, Bound<'py, PyAny>, Option<Vec<u8>>);

/// A parameter as Python gives it: None, bool, int, float, or anything
/// else as its text (`str`).
pub struct PyParam(Param);

impl<'a, 'py> FromPyObject<'a, 'py> for PyParam {
    type Error = PyErr;

    fn extract(ob: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let p = if ob.is_none() {
            Param::Null
        } else if let Ok(b) = ob.cast::<PyBool>() {
            Param::Bool(b.is_true())
        } else if ob.is_instance_of::<PyInt>() {
            Param::Int(ob.extract::<i64>()?)
        } else if ob.is_instance_of::<PyFloat>() {
            Param::Float(ob.extract::<f64>()?)
        } else {
            Param::Text(ob.str()?.to_cow()?.into_owned())
        };
        Ok(PyParam(p))
    }
}

/// The columns of `params` that a table with the columns `have` lacks,
/// each `n` rows long (`unit_files::tables::param_columns`): how a sweep
/// puts the parameters in front of rows the core did not make.
#[pyfunction]
pub fn param_columns<'py>(
    py: Python<'py>,
    params: Vec<(String, PyParam)>,
    have: Vec<String>,
    n: usize,
) -> PyResult<Vec<PyColumn<'py>>> {
    let params: Vec<(String, Param)> = params.into_iter().map(|(k, v)| (k, v.0)).collect();
    let have: Vec<&str> = have.iter().map(String::as_str).collect();
    tables::param_columns(&params, &have, n)
        .into_iter()
        .map(|c| to_python(py, c))
        .collect()
}

/// Write a unit's table, given as columns (name, kind, data, validity or
/// None; see [`PyColumn`]), to `path` as the core writes its own
/// (`unit_files::parquet_file`): for rows that came back from elsewhere (a
/// cluster) or from another runner.
#[pyfunction]
pub fn write_unit(py: Python<'_>, columns: Vec<PyColumnIn<'_>>, path: PathBuf) -> PyResult<()> {
    let columns: Vec<Column> = columns
        .into_iter()
        .map(|(name, kind, data, valid)| from_python(name, &kind, &data, valid))
        .collect::<PyResult<_>>()?;
    py.detach(|| parquet_file::write(&columns, &path))
        .map_err(PyOSError::new_err)
}

/// Write a run's result files from its unit files (`points`: each
/// point's (result rows' units, per-node rows' units), in plan order):
/// the rows, their tidy form (keeping the sweep `axes`) and the per-node
/// rows to `files` (results, tidy, nodes), one row group per point
/// (`unit_files::results`). Returns each point's (first row's `by`
/// values, number of rows, {column: values as floats, NaN where null} of
/// the `wanted` columns the rows have), for its summary.
#[pyfunction]
pub fn write_results<'py>(
    py: Python<'py>,
    points: Vec<(Vec<PathBuf>, Vec<PathBuf>)>,
    files: (PathBuf, PathBuf, PathBuf),
    axes: Vec<String>,
    by: Vec<String>,
    wanted: Vec<String>,
) -> PyResult<Vec<PointFigures<'py>>> {
    let points: Vec<PointUnits> = points
        .into_iter()
        .map(|(rows, nodes)| PointUnits { rows, nodes })
        .collect();
    let (results_path, tidy_path, nodes_path) = &files;
    let out = Outputs {
        results: results_path,
        tidy: tidy_path,
        nodes: nodes_path,
    };
    // a unit that cannot be read is a ValueError (as when Python read it),
    // a file that cannot be written an OSError
    let figures = py
        .detach(|| results::write(&points, &out, &axes, &by, &wanted))
        .map_err(|e| match e {
            results::Failure::Unit(e) => PyValueError::new_err(e),
            results::Failure::Output(e) => PyOSError::new_err(e),
        })?;
    figures
        .into_iter()
        .map(|f| {
            let by =
                f.by.into_iter()
                    .map(|p| param_to_python(py, p))
                    .collect::<PyResult<Vec<_>>>()?;
            let values = PyDict::new(py);
            for (name, v) in f.values {
                values.set_item(name, v)?;
            }
            Ok((by, f.rows, values))
        })
        .collect()
}

/// Wide result rows, given as columns (see [`PyColumn`]), in tidy form
/// (`unit_files::tidy`, keeping the sweep `axes`): its columns, `quantity`
/// as its texts, and the quantities in the order of the dictionary.
#[pyfunction]
pub fn tidy_columns<'py>(
    py: Python<'py>,
    columns: Vec<PyColumnIn<'py>>,
    axes: Vec<String>,
) -> PyResult<(Vec<PyColumn<'py>>, Vec<String>)> {
    let columns: Vec<Column> = columns
        .into_iter()
        .map(|(name, kind, data, valid)| from_python(name, &kind, &data, valid))
        .collect::<PyResult<_>>()?;
    let wide = parquet_file::record_batch(&columns).map_err(PyValueError::new_err)?;
    let schema = unit_files::tidy::schema(wide.schema_ref(), &axes);
    let long = unit_files::tidy::table(&wide, &schema).map_err(PyValueError::new_err)?;
    let quantities = long
        .column_by_name("quantity")
        .and_then(|q| {
            q.as_any()
                .downcast_ref::<arrow_array::DictionaryArray<arrow_array::types::Int32Type>>()
        })
        .map(|d| {
            let values = d
                .values()
                .as_any()
                .downcast_ref::<arrow_array::StringArray>();
            values.map_or_else(Vec::new, |v| {
                v.iter()
                    .map(|t| t.unwrap_or_default().to_string())
                    .collect()
            })
        })
        .unwrap_or_default();
    let out = long
        .schema()
        .fields()
        .iter()
        .zip(long.columns())
        .map(|(f, a)| parquet_file::column(f.name(), a.as_ref()).map_err(PyValueError::new_err))
        .collect::<PyResult<Vec<Column>>>()?;
    let out = out
        .into_iter()
        .map(|c| to_python(py, c))
        .collect::<PyResult<_>>()?;
    Ok((out, quantities))
}

/// A point's figures as Python gets them (see [`write_results`]).
type PointFigures<'py> = (Vec<Bound<'py, PyAny>>, usize, Bound<'py, PyDict>);

fn param_to_python(py: Python<'_>, p: Param) -> PyResult<Bound<'_, PyAny>> {
    Ok(match p {
        Param::Null => py.None().into_bound(py),
        Param::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Param::Int(i) => i.into_pyobject(py)?.into_any(),
        Param::Float(f) => f.into_pyobject(py)?.into_any(),
        Param::Text(t) => t.into_pyobject(py)?.into_any(),
    })
}

/// What is wrong with the unit file at `path`, or None when it is whole
/// (`unit_files::parquet_file::damage`); a file that cannot be read is
/// named with why.
#[pyfunction]
pub fn unit_damage(py: Python<'_>, path: PathBuf) -> Option<String> {
    py.detach(|| match std::fs::read(&path) {
        Ok(bytes) => parquet_file::damage(&bytes),
        Err(e) => Some(e.to_string()),
    })
}

/// A column as Python gives it (the kinds of [`PyColumn`]) back as the
/// core's.
fn from_python(
    name: String,
    kind: &str,
    data: &Bound<'_, PyAny>,
    valid: Option<Vec<u8>>,
) -> PyResult<Column> {
    let bytes = || -> PyResult<Vec<u8>> { data.extract::<Vec<u8>>() };
    // 8-byte little-endian words: a partial last word is refused, where
    // chunks_exact alone would drop it (and a row's value) silently
    let words = |b: Vec<u8>| -> PyResult<Vec<[u8; 8]>> {
        if !b.len().is_multiple_of(8) {
            return Err(PyValueError::new_err(format!(
                "column {name:?}: kind {kind} takes 8 bytes a value; {} bytes is not a multiple of 8",
                b.len()
            )));
        }
        Ok(b.chunks_exact(8)
            .map(|c| c.try_into().expect("8 bytes"))
            .collect())
    };
    let data = match kind {
        "f64" => Data::F64(
            words(bytes()?)?
                .into_iter()
                .map(f64::from_le_bytes)
                .collect(),
        ),
        "i64" => Data::I64(
            words(bytes()?)?
                .into_iter()
                .map(i64::from_le_bytes)
                .collect(),
        ),
        "bool" => Data::Bool(bytes()?.into_iter().map(|b| b != 0).collect()),
        "str" => Data::Text(data.extract::<Vec<String>>()?),
        "null" => Data::Null(data.extract::<usize>()?),
        other => {
            return Err(PyValueError::new_err(format!(
                "column {name:?}: kind {other:?}; one of f64, i64, bool, str, null"
            )))
        }
    };
    let n = match &data {
        Data::F64(d) => d.len(),
        Data::I64(d) => d.len(),
        Data::Bool(d) => d.len(),
        Data::Text(d) => d.len(),
        Data::Null(n) => *n,
    };
    let valid = match valid {
        Some(v) if v.len() != n => {
            return Err(PyValueError::new_err(format!(
                "column {name:?}: {} validity flags for {n} rows",
                v.len()
            )))
        }
        Some(v) => v,
        None => vec![u8::from(!matches!(data, Data::Null(_))); n],
    };
    Ok(Column { name, data, valid })
}

/// Replication `replication` of the settled scenario point with its
/// per-event trace (`sim::trace`, at most `limit` rows): the trace as
/// columns (see [`PyColumn`]) and how many rows the limit left out. With
/// `pcap`, the run's frames are written there too (the trace's `tx` rows
/// are the same frames).
#[pyfunction]
#[pyo3(signature = (point, platform_json, replication, limit, pcap=None, pcap_node=None))]
pub fn trace<'py>(
    py: Python<'py>,
    point: &Bound<'py, SettledPoint>,
    platform_json: &str,
    replication: u64,
    limit: usize,
    pcap: Option<PathBuf>,
    pcap_node: Option<usize>,
) -> PyResult<(Vec<PyColumn<'py>>, u64)> {
    let platform = parse("platform figures", platform_json)?;
    let scenario = schema::simulation_of(&point.get().0, &platform)
        .map_err(|p| PyValueError::new_err(message(&p)))?;
    check_pcap_node(&scenario, pcap_node)?;
    let done = py.detach(|| -> Result<(Vec<Column>, u64), Failure> {
        let (r, trace) = run_traced(&scenario, replication, limit)
            .map_err(|e| Failure::Config(e.to_string()))?;
        if let Some(path) = &pcap {
            write_pcap(path, &scenario.mac, &r, pcap_node)
                .map_err(|e| Failure::Io(format!("{}: {e}", path.display())))?;
        }
        Ok((trace_columns(&trace.events), trace.dropped))
    });
    match done {
        Ok((columns, dropped)) => Ok((
            columns
                .into_iter()
                .map(|c| to_python(py, c))
                .collect::<PyResult<_>>()?,
            dropped,
        )),
        Err(Failure::Config(e)) => Err(PyValueError::new_err(e)),
        Err(Failure::Io(e)) => Err(PyOSError::new_err(e)),
    }
}

/// The trace's rows as columns; an absent value is null.
fn trace_columns(events: &[TraceEvent]) -> Vec<Column> {
    let int = |name: &str, f: &dyn Fn(&TraceEvent) -> Option<u64>| Column {
        name: name.into(),
        data: Data::I64(events.iter().map(|e| f(e).unwrap_or(0) as i64).collect()),
        valid: events.iter().map(|e| u8::from(f(e).is_some())).collect(),
    };
    let text = |name: &str, f: &dyn Fn(&TraceEvent) -> &'static str| Column {
        name: name.into(),
        data: Data::Text(events.iter().map(|e| f(e).to_string()).collect()),
        valid: vec![1; events.len()],
    };
    vec![
        int("time_us", &|e| Some(e.at)),
        int("node", &|e| Some(e.node as u64)),
        text("layer", &|e| e.layer),
        text("kind", &|e| e.kind),
        int("emission", &|e| e.emission),
        int("copy", &|e| e.copy),
        int("bytes", &|e| e.bytes),
        int("peer", &|e| e.peer.map(|p| p as u64)),
        text("outcome", &|e| e.outcome),
        text("message", &|e| e.message),
        int("epoch", &|e| e.epoch),
        int("seq", &|e| e.seq),
    ]
}

/// The frames of replication `r` in time order, with virtual timestamps,
/// in the IEEE 802.15.4 TAP link type: every copy on the air (each copy of
/// a strobe train), or with `node` what that node sent and received
/// (`sim::capture`). Under TSCH each frame's TAP header names its channel
/// (page 0, IEEE channel 11 + the simulator's channel index) and the ASN of
/// its slot. The other MACs get no channel TLV: they never hop, and no
/// scenario key chooses their channel, so the simulator's one shared
/// channel has no IEEE number to report.
fn write_pcap(
    path: &PathBuf,
    mac: &MacSpec,
    r: &Replication,
    node: Option<usize>,
) -> std::io::Result<()> {
    let frames = r.frames.as_deref().unwrap_or(&[]);
    let copies = match node {
        None => capture::on_the_air(frames),
        Some(n) => capture::at_node(frames, &r.heard, n),
    };
    let mut w = PcapWriter::tap(BufWriter::new(File::create(path)?))?;
    for (at, f) in copies {
        let info = match mac {
            MacSpec::Tsch(t) => TapInfo {
                channel: Some((
                    FIRST_CHANNEL + u16::from(f.channel),
                    CHANNEL_PAGE_2450_OQPSK,
                )),
                asn: Some(t.template.asn_at(at)),
            },
            _ => TapInfo::default(),
        };
        w.write_tap_frame(at, &info, &f.frame)?;
    }
    w.into_inner()?;
    Ok(())
}

/// A capture at a node the network does not have is refused, naming the
/// option, the value and the nodes there are.
fn check_pcap_node(scenario: &Scenario, node: Option<usize>) -> PyResult<()> {
    let nodes = scenario.topology.nodes();
    match node {
        Some(n) if n >= nodes => Err(PyValueError::new_err(format!(
            "--pcap-node {n}: the network has {nodes} node(s), 0..={}",
            nodes - 1
        ))),
        _ => Ok(()),
    }
}

/// IEEE 802.15.4-2015 §10.1.3: channel page 0 numbers the 2.4 GHz O-QPSK
/// channels 11..=26; the simulator's channel index 0 is channel 11.
const CHANNEL_PAGE_2450_OQPSK: u8 = 0;
const FIRST_CHANNEL: u16 = 11;

/// The shortest TSCH timeslot found by simulating one secured exchange
/// (`level` 0..=7; key-id mode 3 with the frame counter: the 14-byte
/// header), with the energy
/// of sender and receiver per slot at that template and at the IEEE 10 ms one.
/// `extended_addresses`: both frames name both ends by extended address
/// (the timeslot closed form's layout); else short ones.
#[pyfunction]
#[pyo3(signature = (level, frame_bytes, cost, power, extended_addresses=true, key_id_mode=3,
    frame_counter_suppressed=false, stack=None))]
#[allow(clippy::too_many_arguments)]
pub fn tsch_minimal_timeslot<'py>(
    py: Python<'py>,
    level: u8,
    frame_bytes: usize,
    cost: &str,
    power: &str,
    extended_addresses: bool,
    key_id_mode: u8,
    frame_counter_suppressed: bool,
    stack: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    use sim::mac::security::LinkSecurity;
    let stack: models::timeslot::StackCost = match stack {
        Some(s) => {
            serde_json::from_str(s).map_err(|e| PyValueError::new_err(format!("stack: {e}")))?
        }
        None => Default::default(),
    };
    let cost: models::timeslot::CcmCost =
        serde_json::from_str(cost).map_err(|e| PyValueError::new_err(format!("cost: {e}")))?;
    let power: sim::energy::PowerProfile =
        serde_json::from_str(power).map_err(|e| PyValueError::new_err(format!("power: {e}")))?;
    let level = wpan::security::SecurityLevel::from_value(level)
        .ok_or_else(|| PyValueError::new_err(format!("level {level}: must be in [0, 7]")))?;
    // the closed forms' rule on key identifier modes
    models::security::AuxHeader::new(key_id_mode, frame_counter_suppressed)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let per_block_us = cost.per_block_us();
    let security = level.is_secured().then_some(LinkSecurity {
        level,
        key_id_mode,
        key: [0x5a; 16],
        key_index: 1,
        frame_counter_suppressed,
        after_join: false,
        setup_us: cost.setup_us,
        per_block_us,
    });
    let p = power;
    let frames = sim::slot_probe::ProbeFrames {
        frame_bytes,
        addressing: sim::mac::address::LinkAddressing::from_extended(extended_addresses),
    };
    let stack = sim::mac::tsch::SlotStack {
        cost: stack,
        bus_us_per_byte: cost.bus_us_per_byte,
    };
    let m = py.detach(|| sim::slot_probe::minimal_slot_with(security, stack, p, frames));
    let d = PyDict::new(py);
    d.set_item("tx_offset_us", m.tx_offset_us)?;
    d.set_item("tx_ack_delay_us", m.tx_ack_delay_us)?;
    d.set_item("slot_duration_us", m.slot_us)?;
    d.set_item("frame_bytes", m.at_minimum.frame_bytes)?;
    d.set_item("ack_bytes", m.at_minimum.ack_bytes)?;
    d.set_item(
        "ack_airtime_us",
        sim::channel::airtime_us(m.at_minimum.ack_bytes),
    )?;
    let s = m.at_minimum.sender;
    let r = m.at_minimum.receiver;
    d.set_item("sec1_us", s.sec1_us)?;
    d.set_item("sec2_us", r.sec2_us)?;
    d.set_item("sec3_us", r.sec3_us)?;
    d.set_item("sec4_us", s.sec4_us)?;
    // the stack's lookup and bus part of each (the rest is CCM*)
    d.set_item("sec1_stack_us", s.stack_part_us[0])?;
    d.set_item("sec2_stack_us", r.stack_part_us[1])?;
    d.set_item("sec3_stack_us", r.stack_part_us[2])?;
    d.set_item("sec4_stack_us", s.stack_part_us[3])?;
    d.set_item("sender_uj_min_slot", m.at_minimum.sender_energy.total_uj())?;
    d.set_item(
        "receiver_uj_min_slot",
        m.at_minimum.receiver_energy.total_uj(),
    )?;
    d.set_item("fits_default_template", m.default_slot.success)?;
    d.set_item(
        "sender_uj_default_slot",
        m.default_slot.sender_energy.total_uj(),
    )?;
    d.set_item(
        "receiver_uj_default_slot",
        m.default_slot.receiver_energy.total_uj(),
    )?;
    Ok(d)
}
