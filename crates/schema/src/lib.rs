//! The scenario file, owned by the core: its types, its rules, its schema
//! and its conversion into the simulator's spec.
//!
//! The shape, and why:
//!
//! - One point of a scenario ([`Point`]) is a set of serde types with the
//!   file's own names and units (`timeslot_ms`, `mtu_bytes`), every table
//!   `deny_unknown_fields`. Each key is declared once, in its section's
//!   [`param::params!`] list: type, default, range and doc comment (the
//!   unit is the end of its name). The struct, its `Default` (or, for keys
//!   that belong to one `kind`, the defaults `settle` fills in), its range
//!   checks and the rows of [`ranges::all`] come from that list. Sweep axes
//!   are the reader's business: the reader (Python) expands every list at
//!   a key that takes one value and hands each point here.
//! - A choice between setups is a `kind` key beside the setups' keys, as the
//!   file writes it (`[mac] kind = "tsch"` with a `[mac.tsch]` table;
//!   `[topology] kind = "line"` with `hops`). Keys of a setup not chosen do
//!   nothing, so [`Point::settle`] refuses them and fills the chosen one's
//!   defaults. (Serde's internally tagged enums would say the same, but
//!   they buffer their content and lose the path of a bad value inside.)
//! - Every rule is in one `validate` per section, returning every problem
//!   as a [`Problem`] {dotted key, value, allowed}; rules that read other
//!   sections (SO ≤ BO, nodes within the topology, TSCH given cells) sit
//!   with the key they refuse.
//! - [`schema`] is the JSON Schema of [`Point`] by `schemars`, from the
//!   same types, with every declared range ([`ranges`]): shipped with the Python
//!   package, where it tells which keys are sweep axes (any key that takes
//!   one value, unless marked `"x-sweep": false`: the choices of a setup,
//!   `kind` and `policy`, and `[experiment]`) and gives editors completion.
//! - [`generated`] writes the declarations out for the readers outside
//!   Rust: the schema file, `docs/scenario-keys.md` and the Python module
//!   of key names (`python/dtlsim/keys.py`); `tests/generated.rs` checks
//!   the shipped copies.
//! - [`runtime::to_scenario`] turns a checked point and its platform's
//!   figures ([`PlatformCosts`]) into `sim::scenario::Scenario`: units
//!   become microseconds in one place ([`units`]).
//!
//! The binding (`crates/py`) moves a point in as JSON once, keeps the
//! settled [`Point`] for Python to hand back to [`simulation_of`] (never
//! read again), and gives Python a copy of it to read; Python reads files,
//! expands sweeps and words the problems with the file's name.

mod names;
mod required;

pub mod dtls;
pub mod edhoc;
pub mod generated;
pub mod link_security;
pub mod mac;
pub mod medium;
pub mod param;
pub mod platform;
pub mod platform_file;
pub mod point;
pub mod problem;
pub mod ranges;
pub mod runtime;
pub mod topology;
pub mod units;
pub mod workload;

pub use platform::PlatformCosts;
pub use point::Point;
pub use problem::Problem;

use problem::Problems;
use serde_json::Value;

/// Serde problems found before giving up on one file: each is taken out
/// and the rest read again, so a file's problems come together.
const MAX_READ_PROBLEMS: usize = 64;

/// Read one point: every key known and of its type, no key without effect,
/// every rule kept. The point comes back settled (the chosen setups'
/// defaults filled in).
pub fn read(json: &Value) -> Result<Point, Vec<Problem>> {
    let mut value = json.clone();
    // a required section left out is said once, as such (not as serde's missing key)
    let mut found = required::missing(json);
    let point = loop {
        match serde_path_to_error::deserialize::<_, Point>(&value) {
            Ok(point) => break Some(point),
            Err(e) => {
                let path = e.path().clone();
                let problem = problem::from_serde(&path.to_string(), &e.inner().to_string());
                // a required key taken out for its type is missing now: said already
                if found.iter().any(|f: &Problem| f.key == problem.key) {
                    break None;
                }
                found.push(problem);
                let removed = remove(&mut value, &path, &found[found.len() - 1].key);
                if !removed || found.len() >= MAX_READ_PROBLEMS {
                    break None;
                }
            }
        }
    };
    let Some(mut point) = point else {
        return Err(found);
    };
    let mut p = Problems(found);
    point.settle(&mut p);
    point.validate(&mut p);
    if p.is_empty() {
        Ok(point)
    } else {
        Err(p.0)
    }
}

/// Take the value at `key` (the problem's dotted key, under `path`) out of
/// `root`, so the reader can go on; false if there is nothing to take.
fn remove(root: &mut Value, path: &serde_path_to_error::Path, key: &str) -> bool {
    use serde_path_to_error::Segment;
    let mut segments: Vec<String> = path
        .iter()
        .filter_map(|s| match s {
            Segment::Map { key } => Some(key.clone()),
            Segment::Seq { index } => Some(format!("[{index}]")),
            _ => None,
        })
        .collect();
    // an unknown key is named by the problem, not by serde's path
    let joined = path.to_string();
    if let Some(extra) = key.strip_prefix(&format!("{joined}.")) {
        segments.push(extra.to_string());
    } else if joined == "." || joined.is_empty() {
        segments = vec![key.to_string()];
    }
    let Some((last, parents)) = segments.split_last() else {
        return false;
    };
    let mut node = root;
    for s in parents {
        node = match s.strip_prefix('[').and_then(|i| i.strip_suffix(']')) {
            Some(i) => match node.get_mut(i.parse::<usize>().unwrap_or(usize::MAX)) {
                Some(n) => n,
                None => return false,
            },
            None => match node.get_mut(s) {
                Some(n) => n,
                None => return false,
            },
        };
    }
    match (node, last.strip_prefix('[')) {
        (Value::Object(map), None) => map.remove(last).is_some(),
        _ => false,
    }
}

/// The simulator's spec for a point (as [`read`] takes it) and its
/// platform's figures: [`read`], then [`simulation_of`].
pub fn simulation(
    point: &Value,
    platform: &Value,
) -> Result<sim::scenario::Scenario, Vec<Problem>> {
    simulation_of(&read(point)?, platform)
}

/// The simulator's spec for a point [`read`] already settled and checked,
/// and its platform's figures: the point is not read again.
pub fn simulation_of(
    point: &Point,
    platform: &Value,
) -> Result<sim::scenario::Scenario, Vec<Problem>> {
    let platform: PlatformCosts = serde_json::from_value(platform.clone()).map_err(|e| {
        vec![Problem {
            key: "(platform figures)".into(),
            value: None,
            allowed: e.to_string(),
        }]
    })?;
    runtime::to_scenario(point, &platform).map_err(|p| p.0)
}

/// The JSON Schema of a scenario file's point.
pub fn schema() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(Point)).unwrap_or_default();
    ranges::annotate(&mut schema);
    if let Value::Object(map) = &mut schema {
        map.insert(
            "description".into(),
            "One point of a dtlsim scenario file. In the file, a list at any key that takes \
             one value is a sweep axis: the experiment runs once per value, and several lists \
             make the cartesian product."
                .into(),
        );
    }
    schema
}

/// [`schema`] as the file shipped with the Python package holds it.
pub fn schema_text() -> String {
    serde_json::to_string_pretty(&schema()).unwrap_or_default() + "\n"
}

/// Read a `[dtls]` table alone (the DTLS command line's settings), with
/// the same rules as in a scenario.
pub fn read_dtls(json: &Value) -> Result<dtls::Dtls, Vec<Problem>> {
    let mut d: dtls::Dtls = serde_path_to_error::deserialize(json).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." {
            "dtls".to_string()
        } else {
            format!("dtls.{path}")
        };
        vec![problem::from_serde(&path, &e.inner().to_string())]
    })?;
    let mut p = Problems::default();
    d.settle(&mut p);
    d.validate(&mut p);
    if p.is_empty() {
        Ok(d)
    } else {
        Err(p.0)
    }
}
