//! A refused value: the dotted key, the value found and what is allowed. The
//! rules of every section write into one [`Problems`] list, so a file is
//! refused with all its problems at once.

use serde::Serialize;
use serde_json::Value;

/// One refused value. `value` is `None` when the key is missing, or when
/// the file's own text is the better witness (a value serde could not read:
/// the caller, who holds the file, shows it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    pub key: String,
    pub value: Option<Value>,
    pub allowed: String,
}

/// Where the rules put what they refuse.
#[derive(Debug, Default)]
pub struct Problems(pub Vec<Problem>);

/// The low end of a range: `>=` or `>`.
#[derive(Debug, Clone, Copy)]
pub enum Low {
    AtLeast(f64),
    Above(f64),
}

impl Problems {
    pub fn push(
        &mut self,
        key: impl Into<String>,
        value: impl Serialize,
        allowed: impl Into<String>,
    ) {
        self.0.push(Problem {
            key: key.into(),
            value: serde_json::to_value(value).ok(),
            allowed: allowed.into(),
        });
    }

    /// `v` within the declared range of `key` (a key inside a list,
    /// `mac.tsch.cells[2].slot`, has its list's). The message names the
    /// side that was crossed, then the whole range.
    pub fn within(&mut self, key: &str, v: impl Into<f64> + Serialize + Copy) {
        let (low, high) = crate::ranges::of(key).expect("every checked key has a declared range");
        self.outside(key, v, v.into(), low, high);
    }

    /// `shown` (whose number is `x`) within `low` and `high`.
    pub fn outside(&mut self, key: &str, shown: impl Serialize, x: f64, low: Low, high: f64) {
        let (lo_ok, lo_text) = match low {
            Low::AtLeast(l) => (x >= l, format!(">= {}", num(l))),
            Low::Above(l) => (x > l, format!("> {}", num(l))),
        };
        let range = range_text(low, high);
        // NaN fails the low side
        if !lo_ok {
            self.push(key, shown, format!("must be {lo_text} (range {range})"));
        } else if x > high {
            self.push(
                key,
                shown,
                format!("must be <= {} (range {range})", num(high)),
            );
        }
    }

    /// `v` no larger than the value of `bound_key`.
    pub fn at_most<T: PartialOrd + Serialize + Copy + std::fmt::Display>(
        &mut self,
        key: &str,
        v: T,
        bound_key: &str,
        bound: T,
    ) {
        if v > bound {
            self.push(key, v, format!("must be <= {bound_key} ({bound})"));
        }
    }

    /// A key that has no effect in the chosen setup.
    pub fn unused(&mut self, key: &str, value: impl Serialize, only_with: &str) {
        self.push(
            key,
            value,
            format!("has no effect here: only with {only_with}"),
        );
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The whole range in interval notation: "[1, 64]", "(0, 1]".
pub fn range_text(low: Low, high: f64) -> String {
    match low {
        Low::AtLeast(l) => format!("[{}, {}]", num(l), num(high)),
        Low::Above(l) => format!("({}, {}]", num(l), num(high)),
    }
}

/// 1.0 → "1", 0.5 → "0.5", 1e7 → "10000000".
pub fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// A value serde refused, in the words of the file: `path` dotted as the
/// file writes it, the message without Rust's type names.
pub fn from_serde(path: &str, message: &str) -> Problem {
    let quoted = message.replace('`', "'");
    // serde's path ends at the unknown key itself, or at its table
    let join = |field: &str| {
        if path.is_empty() || path == "." {
            field.to_string()
        } else if path == field || path.ends_with(&format!(".{field}")) {
            path.to_string()
        } else {
            format!("{path}.{field}")
        }
    };
    let between = |s: &str| s.split('\'').nth(1).unwrap_or("").to_string();
    if let Some(rest) = quoted.strip_prefix("unknown field ") {
        let field = between(rest);
        let expected = rest.split_once(", expected ").map_or("", |(_, e)| e);
        let allowed = match (in_dbm(&field, expected), did_you_mean(&field, expected)) {
            (Some(dbm), _) => {
                let key = join(&field);
                let table = key.strip_suffix(field.as_str()).unwrap_or("");
                let range = crate::ranges::of(&format!("{table}{dbm}"))
                    .map(|(low, high)| format!(", range {} dBm", range_text(low, high)))
                    .unwrap_or_default();
                format!(
                    "unknown key: powers here are in dBm, not mW: write '{dbm}' = 10 log10(mW) \
                     (1 mW = 0 dBm{range})"
                )
            }
            (None, Some(near)) => {
                format!("unknown key: did you mean '{near}'? (allowed here: {expected})")
            }
            (None, None) => format!("unknown key (check the spelling; allowed here: {expected})"),
        };
        return Problem {
            key: join(&field),
            value: None,
            allowed,
        };
    }
    if let Some(rest) = quoted.strip_prefix("missing field ") {
        return Problem {
            key: join(&between(rest)),
            value: None,
            allowed: "required key is missing".into(),
        };
    }
    let key = if path.is_empty() || path == "." {
        "(top level)".to_string()
    } else {
        path.to_string()
    };
    if let Some(rest) = quoted.strip_prefix("unknown variant ") {
        let expected = rest.split_once(", expected ").map_or("", |(_, e)| e);
        let expected = expected.strip_prefix("one of ").unwrap_or(expected);
        return Problem {
            key,
            value: None,
            allowed: format!("must be one of {expected}"),
        };
    }
    if let Some((_, expected)) = quoted.rsplit_once(", expected ") {
        // a wrong type under a ranged key: say the whole range too
        let range = crate::ranges::of(&key)
            .map(|(low, high)| format!(" in the range {}", range_text(low, high)))
            .unwrap_or_default();
        return Problem {
            key,
            value: None,
            allowed: format!("must be {}{range}", plain_type(expected)),
        };
    }
    Problem {
        key,
        value: None,
        allowed: quoted,
    }
}

/// A power written in mW (`tx_power_mw`) where the table takes it in dBm:
/// the dBm key in serde's `expected` list.
fn in_dbm(word: &str, expected: &str) -> Option<String> {
    let dbm = format!("{}_dbm", word.strip_suffix("_mw")?);
    expected.contains(&format!("'{dbm}'")).then_some(dbm)
}

/// The name in serde's `expected` list ('a', 'b' or one of 'a', 'b') closest
/// to a misspelt `word`, if one is close: at most a third of its letters
/// (at least one) changed, inserted, deleted or swapped.
fn did_you_mean(word: &str, expected: &str) -> Option<String> {
    let expected = expected.strip_prefix("one of ").unwrap_or(expected);
    let names = expected
        .split(", ")
        .flat_map(|n| n.split(" or "))
        .map(|n| n.trim_matches('\''));
    let limit = (word.chars().count() / 3).max(1);
    names
        .filter(|n| !n.is_empty())
        .map(|n| (edit_distance(word, n), n))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| n.to_string())
}

/// Optimal string alignment distance: Levenshtein's edits plus the swap of
/// two neighbouring letters (the commonest typing slip).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// serde's names for the types it expected, as a user reads them.
fn plain_type(expected: &str) -> String {
    match expected {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a non-negative integer".into(),
        "i8" | "i16" | "i32" | "i64" | "isize" => "an integer".into(),
        "f32" | "f64" => "a number".into(),
        "a boolean" | "a string" | "a sequence" | "a map" => expected.into(),
        other if other.starts_with("struct ") => "a table".into(),
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_messages_become_keys_and_ranges() {
        let p = from_serde(
            "mac.tsch",
            "unknown field `slot_frame`, expected one of `a`, `b`",
        );
        assert_eq!(p.key, "mac.tsch.slot_frame");
        assert!(p.allowed.contains("unknown key") && p.allowed.contains("'a', 'b'"));
        assert!(!p.allowed.contains("did you mean"));
        let p = from_serde(
            "topology",
            "unknown field `hopz`, expected one of `kind`, `hops`, `pdr`",
        );
        assert!(p.allowed.starts_with("unknown key: did you mean 'hops'?"));
        let p = from_serde(
            "mac.tsch",
            "unknown field `slotframe_lenght`, expected `slotframe_length` or `timeslot_ms`",
        );
        assert!(p.allowed.contains("did you mean 'slotframe_length'?"));
        let p = from_serde("experiment", "missing field `title`");
        assert_eq!(p.key, "experiment.title");
        let p = from_serde(
            "mac.kind",
            "unknown variant `aloha`, expected one of `csma`, `tsch`",
        );
        assert_eq!(p.allowed, "must be one of 'csma', 'tsch'");
        let p = from_serde(
            "mac.tsch.cells_per_link",
            "invalid type: string \"x\", expected u32",
        );
        assert_eq!(
            p.allowed,
            "must be a non-negative integer in the range [1, 65535]"
        );
        let p = from_serde("topology.pdr", "invalid type: boolean `true`, expected f64");
        assert_eq!(p.allowed, "must be a number in the range (0, 1]");
    }

    #[test]
    fn ranges_name_the_side_crossed() {
        let mut p = Problems::default();
        p.outside("a", 0.0, 0.0, Low::Above(0.0), 10.0);
        p.outside("b", 0u32, 0.0, Low::AtLeast(1.0), 65_535.0);
        p.outside("c", 1.5, 1.5, Low::Above(0.0), 1.0);
        p.outside("d", f64::NAN, f64::NAN, Low::AtLeast(0.0), 1.0);
        p.outside("e", 5u32, 5.0, Low::AtLeast(1.0), 7.0);
        let allowed: Vec<_> = p.0.iter().map(|p| p.allowed.as_str()).collect();
        assert_eq!(
            allowed,
            [
                "must be > 0 (range (0, 10])",
                "must be >= 1 (range [1, 65535])",
                "must be <= 1 (range (0, 1])",
                "must be >= 0 (range [0, 1])",
            ]
        );
    }
}
