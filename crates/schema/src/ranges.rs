//! Every declared key of the scenario file ([`all`]), from the sections'
//! [`crate::param::params!`] declarations: `validate` checks values
//! against their ranges and [`crate::schema`] writes the ranges into the
//! JSON Schema, so the documentation cannot disagree with the rule.

use std::sync::OnceLock;

use crate::param::Param;
use crate::problem::Low::{self, Above, AtLeast};

/// Every declared key, section by section in the file's order.
pub fn all() -> &'static [Param] {
    use crate::{dtls, edhoc, link_security as ls, mac, medium, point, topology, workload};
    static ALL: OnceLock<Vec<Param>> = OnceLock::new();
    ALL.get_or_init(|| {
        [
            point::Experiment::params(),
            point::Point::params(),
            topology::Topology::params(),
            topology::Link::params(),
            topology::Position::params(),
            medium::Medium::params(),
            mac::Mac::params(),
            mac::Csma::params(),
            mac::Xmac::params(),
            mac::Contikimac::params(),
            mac::Csl::params(),
            mac::Beacon::params(),
            mac::Tsch::params(),
            mac::GivenCell::params(),
            ls::LinkSecurity::params(),
            dtls::Dtls::params(),
            dtls::Retransmission::params(),
            edhoc::Edhoc::params(),
            workload::Workload::params(),
            point::Simulation::params(),
            point::Model::params(),
            point::Sessions::params(),
            point::Overhead::params(),
        ]
        .concat()
    })
}

/// The range of `key` (list indices written `[]` or given: `cells[2].slot`,
/// `channel_pdr[3]`); None for a key without one.
pub fn of(key: &str) -> Option<(Low, f64)> {
    let mut general = String::with_capacity(key.len());
    let mut in_index = false;
    for c in key.chars() {
        match c {
            '[' => {
                in_index = true;
                general.push('[');
            }
            ']' => {
                in_index = false;
                general.push(']');
            }
            _ if in_index => {}
            _ => general.push(c),
        }
    }
    // an item of a list of numbers has the list's range
    let list = general.strip_suffix("[]").unwrap_or(&general);
    all()
        .iter()
        .find(|p| p.key == general || p.key == list)
        .and_then(|p| p.range)
}

/// Write every range into `schema` (from `schemars`), replacing the bounds
/// of the Rust types it put there.
pub fn annotate(schema: &mut serde_json::Value) {
    for param in all() {
        let Some((low, high)) = param.range else {
            continue;
        };
        let root = schema.clone();
        if let Some(node) = find(schema, &root, &param.key) {
            // a list of numbers: the range is its items'
            let node = if node.get("type").and_then(|t| t.as_str()) == Some("array") {
                match node.get_mut("items") {
                    Some(items) => items,
                    None => continue,
                }
            } else {
                node
            };
            if let Some(map) = node.as_object_mut() {
                map.remove("minimum");
                map.remove("maximum");
                match low {
                    AtLeast(l) => map.insert("minimum".into(), number(l)),
                    Above(l) => map.insert("exclusiveMinimum".into(), number(l)),
                };
                map.insert("maximum".into(), number(high));
            }
        }
    }
}

fn number(x: f64) -> serde_json::Value {
    if x.fract() == 0.0 && x.abs() < 9e15 {
        serde_json::Value::from(x as i64)
    } else {
        serde_json::Value::from(x)
    }
}

/// The schema node of `key`, following `$ref`s, optional keys' `anyOf`
/// and list items.
fn find<'a>(
    schema: &'a mut serde_json::Value,
    root: &serde_json::Value,
    key: &str,
) -> Option<&'a mut serde_json::Value> {
    // a JSON pointer to the node, built by walking `root`
    let mut pointer = String::new();
    for part in key.split('.') {
        let (name, item) = match part.strip_suffix("[]") {
            Some(n) => (n, true),
            None => (part, false),
        };
        pointer = resolve(root, &pointer)?;
        pointer = format!("{pointer}/properties/{name}");
        root.pointer(&pointer)?;
        if item {
            pointer = resolve(root, &pointer)?;
            pointer = format!("{pointer}/items");
        }
    }
    schema.pointer_mut(&pointer)
}

/// Follow `$ref` and an optional key's `anyOf` to the node with the content.
fn resolve(root: &serde_json::Value, pointer: &str) -> Option<String> {
    let node = root.pointer(pointer)?;
    if let Some(r) = node.get("$ref").and_then(|r| r.as_str()) {
        return resolve(root, r.strip_prefix('#')?);
    }
    if let Some(options) = node.get("anyOf").and_then(|o| o.as_array()) {
        for (i, o) in options.iter().enumerate() {
            if o.get("type").and_then(|t| t.as_str()) != Some("null") {
                return resolve(root, &format!("{pointer}/anyOf/{i}"));
            }
        }
    }
    Some(pointer.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_range_is_found_in_the_schema() {
        let schema = serde_json::to_value(schemars::schema_for!(crate::Point)).unwrap();
        for param in all() {
            let mut copy = schema.clone();
            assert!(
                find(&mut copy, &schema, &param.key).is_some(),
                "{}",
                param.key
            );
        }
        assert!(of("mac.tsch.channel_pdr[3]").is_some());
        assert!(of("topology.links[3].pdr").is_some());
        assert!(of("mac.tsch.unknown").is_none());
    }
}
