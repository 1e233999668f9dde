//! What is written out from the parameters' declarations ([`crate::ranges::all`])
//! for the readers outside Rust: the documentation's table of every scenario
//! key (`docs/scenario-keys.md`) and the Python module with one constant per
//! dotted key (`python/dtlsim/keys.py`). The JSON Schema is [`crate::schema_text`].
//! `tests/generated.rs` fails when a shipped copy is stale and, with
//! `DTLSIM_REGENERATE=1`, writes them.

use crate::param::Param;
use crate::problem::{num, range_text};
use crate::ranges::all;

/// The files generated here, by path from the workspace root, with their text.
pub fn files() -> Vec<(&'static str, String)> {
    vec![
        ("python/dtlsim/scenario.schema.json", crate::schema_text()),
        ("python/dtlsim/keys.py", python_keys()),
        ("docs/scenario-keys.md", keys_page()),
    ]
}

/// The keys a file writes one value at (a list of tables' items are inside
/// their list's value).
fn flat_keys() -> impl Iterator<Item = &'static Param> {
    all().iter().filter(|p| !p.key.contains("[]"))
}

/// `mac.xmac.check_interval_ms` → `MAC_XMAC_CHECK_INTERVAL_MS`.
pub fn constant_name(key: &str) -> String {
    key.replace('.', "_").to_uppercase()
}

/// `python/dtlsim/keys.py`.
pub fn python_keys() -> String {
    let mut out = String::from(
        "\"\"\"Every scenario key's dotted name, one constant per key.\n\n\
         Generated from the core's declarations (crates/schema, `params!`): do not\n\
         edit. `DTLSIM_REGENERATE=1 cargo test -p dtlsim-schema --test generated`\n\
         writes it again; the test fails while it is stale.\n\"\"\"\n\n",
    );
    for p in flat_keys() {
        out += &format!("{} = \"{}\"\n", constant_name(&p.key), p.key);
    }
    out
}

/// A default as the documentation shows it.
fn shown(p: &Param) -> String {
    match &p.default {
        None => "required".into(),
        Some(serde_json::Value::Null) => "absent".into(),
        Some(serde_json::Value::Number(n)) => num(n.as_f64().unwrap_or_default()),
        Some(serde_json::Value::Array(a)) if a.is_empty() => "[]".into(),
        Some(v) => format!("`{v}`"),
    }
}

/// `docs/scenario-keys.md`: one table per section.
pub fn keys_page() -> String {
    let mut out = String::from(
        "# Scenario keys\n\n\
         <!-- Generated from crates/schema (`params!`): do not edit. \
         `DTLSIM_REGENERATE=1 cargo test -p dtlsim-schema --test generated` \
         writes it again. -->\n\n\
         Every key of a scenario file, as the core declares it: its default, \
         the range of a number (`[a, b]` includes both ends, `(a, b]` not a) \
         and what it means. A key's unit is the end of its name (`_ms`, `_s`, \
         `_us`, `_m`, `_bytes`). The keys of a setup not chosen (a `[mac.tsch]` \
         table with `mac.kind = \"csma\"`) are refused; a default of a key \
         that belongs to one `kind` is filled in when that kind is chosen. \
         [Scenarios](scenarios.md) says how a file is read and swept.\n",
    );
    let mut section = String::new();
    for p in all() {
        let (table, name) = p.key.rsplit_once('.').unwrap_or(("", &p.key));
        if table != section {
            section = table.to_string();
            let title = if section.is_empty() {
                "Top level".to_string()
            } else if let Some(list) = section.strip_suffix("[]") {
                format!("`[[{list}]]`")
            } else {
                format!("`[{section}]`")
            };
            out += &format!(
                "\n## {title}\n\n| key | default | range | meaning |\n|---|---|---|---|\n"
            );
        }
        let range = p.range.map(|(l, h)| range_text(l, h)).unwrap_or_default();
        let doc = p.doc.replace('|', "\\|");
        out += &format!("| `{name}` | {} | {range} | {doc} |\n", shown(p));
    }
    out
}
