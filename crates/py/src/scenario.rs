//! A scenario point and the problems found in it, between Python and
//! `crates/schema`, which holds every rule: this module moves JSON across.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
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

/// Read one point of a scenario (JSON): the point settled (defaults of the
/// chosen setups filled in) as JSON, or every problem found.
#[pyfunction]
pub fn scenario_point(point_json: &str) -> PyResult<(Option<String>, Vec<PyProblem>)> {
    match schema::read(&parse("scenario point", point_json)?) {
        Ok(point) => Ok((
            Some(serde_json::to_string(&point).map_err(|e| PyValueError::new_err(e.to_string()))?),
            Vec::new(),
        )),
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
