//! A scenario point and the problems found in it, between Python and
//! `crates/schema`, which holds every rule: a point comes in once, as the
//! file's JSON, and stays in the core settled ([`SettledPoint`]); Python
//! holds it and hands it back to be run, and reads a copy of its values.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyType};
use serde_json::Value;

/// A problem as Python takes it: (dotted key, value as JSON or None, allowed).
pub type PyProblem = (String, Option<String>, String);

pub fn to_python(problems: Vec<schema::Problem>) -> Vec<PyProblem> {
    problems
        .into_iter()
        .map(|p| (p.key, p.value.map(|v| v.to_string()), p.allowed))
        .collect()
}

pub fn parse(what: &str, json: &str) -> PyResult<Value> {
    serde_json::from_str(json).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

/// One point of a scenario as `crates/schema` read it: settled (the
/// chosen setups' defaults filled in) and checked. `simulate`, `trace`
/// and `plan_point` take it as it is: a point is read once.
#[pyclass(frozen, module = "dtlsim._core")]
pub struct SettledPoint(pub schema::Point);

#[pymethods]
impl SettledPoint {
    /// The settled point as JSON, with the file's names and units, its
    /// tables in the order the schema declares them: Python's copy of the
    /// values (result rows, keys, experiments).
    fn json(&self) -> PyResult<String> {
        serde_json::to_string(&self.0).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Of the keys set for this run (`--set`, a sweep axis: dotted key and
    /// value as JSON), those that do nothing in this point's setup, as
    /// problems (the rule is the core's `Point::inert`).
    fn unused(&self, given: Vec<(String, String)>) -> PyResult<Vec<PyProblem>> {
        let given = given
            .into_iter()
            .map(|(k, v)| Ok((k, parse("override", &v)?)))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(to_python(self.0.unused_given(&given)))
    }

    fn __eq__(&self, other: &Self) -> bool {
        self.0 == other.0
    }

    fn __repr__(&self) -> String {
        format!("<SettledPoint of {}>", self.0.experiment.id)
    }

    /// Pickled (for a Dask worker) as its settled values in CBOR, every
    /// number to the bit, and unpickled without being read again.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let mut bytes = Vec::new();
        ciborium::into_writer(&slf.get().0, &mut bytes)
            .map_err(|e| PyValueError::new_err(format!("settled point: {e}")))?;
        let from = slf.get_type().getattr("_from_cbor")?;
        Ok((from, (PyBytes::new(slf.py(), &bytes),)))
    }

    /// The point `__reduce__` pickled.
    #[classmethod]
    fn _from_cbor(_cls: &Bound<'_, PyType>, bytes: &[u8]) -> PyResult<Self> {
        ciborium::from_reader(bytes)
            .map(SettledPoint)
            .map_err(|e| PyValueError::new_err(format!("settled point: {e}")))
    }
}

/// Read one point of a scenario (the file's JSON, sweep axes expanded):
/// the point settled and checked, or every problem found.
#[pyfunction]
pub fn scenario_point(point_json: &str) -> PyResult<(Option<SettledPoint>, Vec<PyProblem>)> {
    match schema::read(&parse("scenario point", point_json)?) {
        Ok(point) => Ok((Some(SettledPoint(point)), Vec::new())),
        Err(problems) => Ok((None, to_python(problems))),
    }
}

/// The JSON Schema of a scenario point, as the core generates it.
#[pyfunction]
pub fn scenario_schema() -> String {
    schema::schema_text()
}

/// Problems as one message (for errors raised where no file is at hand).
pub fn message(problems: &[schema::Problem]) -> String {
    problems
        .iter()
        .map(|p| {
            let value = match &p.value {
                None => "(missing)".into(),
                // as Python shows a string
                Some(Value::String(s)) => format!("'{s}'"),
                Some(v) => v.to_string(),
            };
            format!("{} = {value}: {}", p.key, p.allowed)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Read a platform or host file (`kind`: "platform", "host"; the file's
/// parsed TOML as JSON) against `crates/schema`'s declarations: its values
/// normalised, each table tagged with its class, as JSON; or every problem
/// (dotted key, value as JSON or None when missing, allowed).
#[pyfunction]
pub fn platform_file(kind: &str, data_json: &str) -> PyResult<(Option<String>, Vec<PyProblem>)> {
    let table = schema::platform_file::table(kind)
        .ok_or_else(|| PyValueError::new_err(format!("unknown file kind {kind:?}")))?;
    match schema::platform_file::check(table, &parse(kind, data_json)?) {
        Ok(values) => Ok((Some(values.to_string()), Vec::new())),
        Err(problems) => Ok((
            None,
            problems
                .into_iter()
                .map(|p| (p.key, p.value, p.allowed))
                .collect(),
        )),
    }
}

/// The declarations of a platform or host file (`kind`), as JSON: what the
/// template of a new board's file and the list of required keys are
/// written from, and, under `classes`, every class a table is tagged with
/// and its fields.
#[pyfunction]
pub fn platform_file_schema(kind: &str) -> PyResult<String> {
    let table = schema::platform_file::table(kind)
        .ok_or_else(|| PyValueError::new_err(format!("unknown file kind {kind:?}")))?;
    let mut classes = Vec::new();
    schema::platform_file::classes(table, &mut classes);
    let classes: serde_json::Map<String, Value> = classes
        .into_iter()
        .map(|(c, fields)| (c.to_string(), serde_json::json!(fields)))
        .collect();
    let mut out = schema::platform_file::describe(table);
    out["classes"] = Value::Object(classes);
    Ok(out.to_string())
}
