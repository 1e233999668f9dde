//! Which sections a scenario file must write out, because no default can
//! stand in for them; the others may be left out (their defaults are used,
//! and the reader says so).
//!
//! - `[experiment]`, always: its `id` names the results and its `title`
//!   says what they are; neither has a default.
//! - `[topology]` and `[workload]`, when `[mac]` chooses a simulated MAC:
//!   the network simulated and what runs on it are the study itself. Their
//!   defaults (one hop, one handshake) are values to start from, and left
//!   to stand in silently they turn a multi-hop study into a single link.
//!
//! Everything else has a default that is a setting, not a study: `[mac]`
//! absent is `kind = "none"` (the closed forms only), `[dtls]`,
//! `[link_security]`, `[simulation]`, `[model]`, `[sessions]`,
//! `[overhead]` are knobs with documented defaults.

use serde_json::Value;

use crate::problem::Problem;

/// The MAC kind that simulates nothing (closed forms only).
const NO_MAC: &str = "none";

/// A problem for every required section `point` leaves out, each naming
/// the section and what it must say.
pub fn missing(point: &Value) -> Vec<Problem> {
    let has = |section: &str| point.get(section).is_some();
    let mut out = Vec::new();
    if !has("experiment") {
        out.push(Problem {
            key: "experiment".into(),
            value: None,
            allowed: "required section: [experiment] with id (names the results) and title".into(),
        });
    }
    let mac = point
        .get("mac")
        .and_then(|m| m.get("kind"))
        .and_then(Value::as_str);
    if let Some(kind) = mac.filter(|k| *k != NO_MAC) {
        for (section, says) in [
            (
                "topology",
                "the network simulated: kind and its size (hops or nodes)",
            ),
            (
                "workload",
                "what runs on the network: kind (handshakes, ping, frames, periodic, sessions)",
            ),
        ] {
            if !has(section) {
                out.push(Problem {
                    key: section.into(),
                    value: None,
                    allowed: format!(
                        "required section when mac.kind = \"{kind}\" (a simulated scenario): \
                         [{section}] with {says}"
                    ),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(v: Value) -> Vec<String> {
        missing(&v).into_iter().map(|p| p.key).collect()
    }

    #[test]
    fn experiment_always_topology_and_workload_when_simulated() {
        assert_eq!(keys(json!({})), ["experiment"]);
        assert!(keys(json!({"experiment": {}})).is_empty());
        assert!(keys(json!({"experiment": {}, "mac": {"kind": "none"}})).is_empty());
        assert_eq!(
            keys(json!({"experiment": {}, "mac": {"kind": "tsch"}})),
            ["topology", "workload"]
        );
        assert!(keys(
            json!({"experiment": {}, "mac": {"kind": "xmac"}, "topology": {}, "workload": {}})
        )
        .is_empty());
    }
}
