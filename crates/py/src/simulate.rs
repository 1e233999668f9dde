//! `simulate`: run replications of one scenario point in Rust, without the GIL.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sim::run::{run_replication, Row, Value};

use crate::spec::ScenarioJson;

fn to_dict<'py>(py: Python<'py>, row: Row) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in row {
        match v {
            Value::Bool(b) => d.set_item(k, b)?,
            Value::Int(i) => d.set_item(k, i)?,
            Value::Float(f) => d.set_item(k, f)?,
            Value::Text(s) => d.set_item(k, s)?,
        }
    }
    Ok(d)
}

enum Failure {
    Config(String),
    Io(String),
}

/// Run replications `first .. first + count` of the scenario in `config_json`
/// and return one dict per result row. With `pcap`, the frames of the first
/// of them are written there (linktype 195, virtual timestamps).
/// `jammed` lists (node, n): the n-th emission of that node is lost.
#[pyfunction]
#[pyo3(signature = (config_json, first, count, pcap=None, jammed=Vec::new()))]
pub fn simulate<'py>(
    py: Python<'py>,
    config_json: &str,
    first: u64,
    count: u64,
    pcap: Option<PathBuf>,
    jammed: Vec<(usize, u64)>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let spec: ScenarioJson = serde_json::from_str(config_json)
        .map_err(|e| PyValueError::new_err(format!("simulation settings: {e}")))?;
    let scenario = spec.into_scenario().map_err(PyValueError::new_err)?;
    let rows = py.detach(|| -> Result<Vec<Row>, Failure> {
        let mut rows = Vec::new();
        for rep in first..first + count {
            let record = pcap.is_some() && rep == first;
            let r = run_replication(&scenario, rep, record, &jammed)
                .map_err(|e| Failure::Config(e.to_string()))?;
            if let (Some(path), Some(frames)) = (&pcap, &r.frames) {
                write_pcap(path, frames)
                    .map_err(|e| Failure::Io(format!("{}: {e}", path.display())))?;
            }
            let events = r.events as i64;
            rows.extend(r.rows.into_iter().map(|mut row| {
                row.push(("replication_events".into(), Value::Int(events)));
                row
            }));
        }
        Ok(rows)
    });
    match rows {
        Ok(rows) => rows.into_iter().map(|r| to_dict(py, r)).collect(),
        Err(Failure::Config(e)) => Err(PyValueError::new_err(e)),
        Err(Failure::Io(e)) => Err(PyOSError::new_err(e)),
    }
}

fn write_pcap(path: &PathBuf, frames: &[sim::world::Sent]) -> std::io::Result<()> {
    let mut w = wpan::pcap::PcapWriter::new(BufWriter::new(File::create(path)?))?;
    // every copy of a strobe train, in time order
    let mut copies: Vec<(u64, &[u8])> = frames
        .iter()
        .flat_map(|f| (0..f.copies).map(move |i| (f.at + i * f.period, &f.frame[..])))
        .collect();
    copies.sort_by_key(|c| c.0);
    for (at, frame) in copies {
        w.write_frame(at, frame)?;
    }
    w.into_inner()?;
    Ok(())
}
