//! The platform files (`platforms/<id>.toml`) and backend host files
//! (`platforms/hosts/<id>.toml`): their shape and every rule on their values,
//! declared once as tables of fields ([`PLATFORM`], [`HOST`]).
//!
//! [`check`] reads a file's parsed TOML (as JSON) against one of them and
//! gives back either the file's values, normalised (text stripped, a
//! figure's number as the type it declares, an optional key left out as
//! `null`, `available` filled in), each table tagged with the name of the
//! class Python builds for it (`$class`), or every problem found, each
//! naming the dotted key, the value and what is allowed. [`describe`] gives
//! the same declarations to the reader, for the template of a new board's
//! file and the list of keys it must hold.

use crate::problem::num;
use serde_json::{json, Map, Value};

/// Sources and reasons: where a figure comes from, in at least this many
/// characters (a datasheet and table, a derivation, or `estimate:` and why).
pub const SOURCE_MIN_CHARS: usize = 10;

/// The key that tags a table of [`check`]'s output with its class.
pub const CLASS: &str = "$class";

/// What a figure's `value` may be: its low bound (`>` or `>=`), its high
/// bound (`<=`), and whether it is a whole number.
#[derive(Debug)]
pub struct Figure {
    pub class: &'static str,
    pub above: Option<f64>,
    pub at_least: Option<f64>,
    pub at_most: Option<f64>,
    pub whole: bool,
}

#[derive(Debug)]
pub enum Kind {
    /// `{ value = ..., source = "..." }` within the figure's range.
    Figure(&'static Figure),
    /// Text, stripped, not empty.
    Text,
    /// Any text, as written (a host's id).
    AnyText,
    /// A board's id: the file's name.
    Id,
    Bool,
    /// The file format: 1.
    Version,
    /// `available`: must be this when given; filled in when left out.
    Available(bool),
    /// Why a strategy or stack is not available: a source's length.
    Reason,
    Table(&'static Table),
    /// A table in its available form, or `available = false` with a reason.
    Choice {
        available: &'static Table,
        unavailable: &'static Table,
    },
}

#[derive(Debug)]
pub struct Field {
    pub name: &'static str,
    pub kind: Kind,
    /// May be left out (read as `null`).
    pub optional: bool,
}

#[derive(Debug)]
pub struct Table {
    pub class: &'static str,
    pub fields: &'static [Field],
}

const fn req(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        optional: false,
    }
}

const fn opt(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        optional: true,
    }
}

const fn figure(
    class: &'static str,
    above: Option<f64>,
    at_least: Option<f64>,
    at_most: Option<f64>,
) -> Figure {
    Figure {
        class,
        above,
        at_least,
        at_most,
        whole: false,
    }
}

/// A physical quantity that must be strictly positive (currents, charges).
pub const POSITIVE: Figure = figure("Positive", Some(0.0), None, None);
/// A duration, count or current that may be zero.
pub const NON_NEGATIVE: Figure = figure("NonNegative", None, Some(0.0), None);
pub const VOLTAGE: Figure = figure("Voltage", Some(0.0), None, Some(12.0));
pub const CLOCK_MHZ: Figure = figure("ClockMHz", Some(0.0), None, Some(1000.0));
/// A power in dBm: a radio's output or what its receiver needs (a figure in
/// mW would be positive and large: refused).
pub const POWER_DBM: Figure = figure("PowerDbm", None, Some(-130.0), Some(30.0));
pub const DECIBELS: Figure = figure("Decibels", None, Some(0.0), Some(60.0));
/// A memory size in bytes.
pub const BYTE_COUNT: Figure = Figure {
    class: "ByteCount",
    above: Some(0.0),
    at_least: None,
    at_most: None,
    whole: true,
};

use Kind::{Available, Bool, Choice, Id, Reason, Text, Version};

const fn f(x: &'static Figure) -> Kind {
    Kind::Figure(x)
}

const fn t(x: &'static Table) -> Kind {
    Kind::Table(x)
}

/// The batteries a board is commonly run from: one CR2032 coin cell, two
/// AA alkaline cells in series.
pub const BATTERIES: Table = Table {
    class: "Batteries",
    fields: &[
        req("cr2032_mah", f(&POSITIVE)),
        req("aa2_mah", f(&POSITIVE)),
    ],
};

pub const SUPPLY: Table = Table {
    class: "Supply",
    fields: &[
        req("voltage_v", f(&VOLTAGE)),
        // the charge of the battery the supply runs from: a node's lifetime
        req("battery_mah", f(&POSITIVE)),
        opt("batteries", t(&BATTERIES)),
    ],
};

pub const MCU: Table = Table {
    class: "Mcu",
    fields: &[
        req("part", Text),
        req("clock_mhz", f(&CLOCK_MHZ)),
        req("ram_bytes", f(&BYTE_COUNT)),
        req("flash_bytes", f(&BYTE_COUNT)),
        req("active_current_ma", f(&POSITIVE)),
        req("lpm_current_ma", f(&POSITIVE)),
        req("frame_processing_us", f(&NON_NEGATIVE)),
        // the 32 kHz crystal's frequency tolerance; absent: perfect clocks
        opt("crystal_tolerance_ppm", f(&NON_NEGATIVE)),
    ],
};

pub const RADIO: Table = Table {
    class: "Radio",
    fields: &[
        req("part", Text),
        req("on_chip", Bool),
        req("tx_current_ma", f(&POSITIVE)),
        req("rx_current_ma", f(&POSITIVE)),
        req("idle_current_ma", f(&POSITIVE)),
        req("off_current_ma", f(&NON_NEGATIVE)),
        req("bus_us_per_byte", f(&NON_NEGATIVE)),
        // the signal media's figures (medium.kind = "log-distance"); absent:
        // that medium is refused on this platform
        opt("tx_power_min_dbm", f(&POWER_DBM)),
        opt("tx_power_max_dbm", f(&POWER_DBM)),
        opt("sensitivity_dbm", f(&POWER_DBM)),
        opt("cca_threshold_dbm", f(&POWER_DBM)),
        opt("cca_hysteresis_db", f(&DECIBELS)),
    ],
};

/// X25519 (RFC 7748) and Ed25519 (RFC 8032) in one strategy.
pub const CURVE25519: Table = Table {
    class: "Curve25519",
    fields: &[
        req("x25519_us", f(&NON_NEGATIVE)),
        req("ed25519_sign_us", f(&NON_NEGATIVE)),
        req("ed25519_verify_us", f(&NON_NEGATIVE)),
    ],
};

/// Costs of one implementation strategy; every number is required.
pub const CRYPTO_STRATEGY: Table = Table {
    class: "CryptoStrategy",
    fields: &[
        opt("available", Available(true)),
        req("aes_block_us", f(&NON_NEGATIVE)),
        req("ccm_setup_us", f(&NON_NEGATIVE)),
        req("ccm_per_block_overhead_us", f(&NON_NEGATIVE)),
        req("bus_bytes_per_block", f(&NON_NEGATIVE)),
        req("sha256_block_us", f(&NON_NEGATIVE)),
        req("aes256_block_us", f(&NON_NEGATIVE)),
        req("sha512_block_us", f(&NON_NEGATIVE)),
        req("p256_ecdh_us", f(&NON_NEGATIVE)),
        req("p256_ecdsa_sign_us", f(&NON_NEGATIVE)),
        req("p256_ecdsa_verify_us", f(&NON_NEGATIVE)),
        req("curve25519", t(&CURVE25519)),
    ],
};

/// A strategy this hardware cannot do, and why.
pub const UNAVAILABLE_STRATEGY: Table = Table {
    class: "UnavailableStrategy",
    fields: &[req("available", Available(false)), req("reason", Reason)],
};

const fn strategy(name: &'static str, available: &'static Table) -> Field {
    req(
        name,
        Choice {
            available,
            unavailable: &UNAVAILABLE_STRATEGY,
        },
    )
}

pub const CRYPTO: Table = Table {
    class: "Crypto",
    fields: &[
        strategy("software", &CRYPTO_STRATEGY),
        strategy("hybrid", &CRYPTO_STRATEGY),
        strategy("hardware", &CRYPTO_STRATEGY),
    ],
};

/// What a stack changes in one strategy: the `crypto.<strategy>` figures it
/// names replace the datasheet ones; the bus bytes are its own.
pub const STRATEGY_PROFILE: Table = Table {
    class: "StrategyProfile",
    fields: &[
        opt("available", Available(true)),
        opt("aes_block_us", f(&NON_NEGATIVE)),
        opt("ccm_setup_us", f(&NON_NEGATIVE)),
        opt("ccm_per_block_overhead_us", f(&NON_NEGATIVE)),
        opt("bus_bytes_per_block", f(&NON_NEGATIVE)),
        req("bus_bytes_per_op", f(&NON_NEGATIVE)),
        req("frame_over_bus", Bool),
    ],
};

/// A real stack on this platform: its per-slot processing (measured, no
/// security), its policy/key lookup per secured operation, and per strategy
/// what it changes.
pub const IMPLEMENTATION_PROFILE: Table = Table {
    class: "ImplementationProfile",
    fields: &[
        opt("available", Available(true)),
        req("stack", Text),
        req("tx_data_prepare_us", f(&NON_NEGATIVE)),
        req("radio_tx_delay_us", f(&NON_NEGATIVE)),
        req("tx_ack_prepare_us", f(&NON_NEGATIVE)),
        req("key_lookup_us", f(&NON_NEGATIVE)),
        strategy("software", &STRATEGY_PROFILE),
        strategy("hybrid", &STRATEGY_PROFILE),
        strategy("hardware", &STRATEGY_PROFILE),
    ],
};

/// A stack that does not run on this platform, and why.
pub const UNAVAILABLE_PROFILE: Table = Table {
    class: "UnavailableProfile",
    fields: &[req("available", Available(false)), req("reason", Reason)],
};

pub const IMPLEMENTATIONS: Table = Table {
    class: "Implementations",
    fields: &[req(
        "openwsn",
        Choice {
            available: &IMPLEMENTATION_PROFILE,
            unavailable: &UNAVAILABLE_PROFILE,
        },
    )],
};

/// One device profile, as read from `platforms/<id>.toml`.
pub const PLATFORM: Table = Table {
    class: "Platform",
    fields: &[
        req("schema_version", Version),
        req("name", Text),
        req("id", Id),
        req("summary", Text),
        req("supply", t(&SUPPLY)),
        req("mcu", t(&MCU)),
        req("radio", t(&RADIO)),
        req("crypto", t(&CRYPTO)),
        req("implementation", t(&IMPLEMENTATIONS)),
    ],
};

/// What the server's handshakes pay on a backend host (µs).
pub const HOST_CRYPTO: Table = Table {
    class: "HostCrypto",
    fields: &[
        req("aes_block_us", f(&NON_NEGATIVE)),
        req("aes256_block_us", f(&NON_NEGATIVE)),
        req("sha256_block_us", f(&NON_NEGATIVE)),
        req("sha512_block_us", f(&NON_NEGATIVE)),
        req("p256_ecdh_us", f(&NON_NEGATIVE)),
        req("p256_ecdsa_sign_us", f(&NON_NEGATIVE)),
        req("p256_ecdsa_verify_us", f(&NON_NEGATIVE)),
        req("curve25519", t(&CURVE25519)),
    ],
};

/// One backend host, as read from `platforms/hosts/<id>.toml`.
pub const HOST: Table = Table {
    class: "Host",
    fields: &[
        req("schema_version", Version),
        req("name", Text),
        req("id", Kind::AnyText),
        req("summary", Text),
        req("crypto", t(&HOST_CRYPTO)),
    ],
};

/// The file kinds by the name the reader gives them.
pub fn table(kind: &str) -> Option<&'static Table> {
    match kind {
        "platform" => Some(&PLATFORM),
        "host" => Some(&HOST),
        _ => None,
    }
}

/// A refused value: the dotted key, the value as the reader's JSON (with
/// `NaN` and `Infinity`, which a file may hold; `None`: the key is
/// missing), and what is allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct FileProblem {
    pub key: String,
    pub value: Option<String>,
    pub allowed: String,
}

/// A number the reader could not put in JSON (`nan`, `inf`) comes as
/// `{"$float": "NaN"}` (or `"Infinity"`, `"-Infinity"`).
const NON_FINITE: &str = "$float";

fn shown(value: &Value) -> String {
    match non_finite(value) {
        Some(text) => text.to_string(),
        None => value.to_string(),
    }
}

fn non_finite(value: &Value) -> Option<&str> {
    let map = value.as_object()?;
    if map.len() != 1 {
        return None;
    }
    map.get(NON_FINITE)?.as_str()
}

struct Reader {
    problems: Vec<FileProblem>,
}

impl Reader {
    fn refuse(&mut self, key: &str, value: Option<&Value>, allowed: impl Into<String>) {
        self.problems.push(FileProblem {
            key: key.to_string(),
            value: value.map(shown),
            allowed: allowed.into(),
        });
    }

    /// Every key a table must hold, said missing (a table left out is said
    /// as all it must hold, so one pass names everything).
    fn missing(&mut self, key: &str, kind: &Kind) {
        match kind {
            Kind::Table(table) => self.missing_table(key, table),
            Kind::Choice { available, .. } => self.missing_table(key, available),
            _ => self.refuse(key, None, "required key is missing"),
        }
    }

    fn missing_table(&mut self, prefix: &str, table: &Table) {
        for field in table.fields.iter().filter(|f| !f.optional) {
            self.missing(&join(prefix, field.name), &field.kind);
        }
    }

    fn table(&mut self, prefix: &str, table: &Table, value: &Value) -> Value {
        let Some(map) = value.as_object() else {
            self.refuse(prefix, Some(value), "must be a table");
            return Value::Null;
        };
        let mut out = Map::new();
        out.insert(CLASS.to_string(), json!(table.class));
        for field in table.fields {
            let key = join(prefix, field.name);
            let read = match (map.get(field.name), &field.kind) {
                (None, Kind::Available(yes)) => json!(yes),
                (None, _) if field.optional => Value::Null,
                (None, kind) => {
                    self.missing(&key, kind);
                    Value::Null
                }
                (Some(v), kind) => self.field(&key, kind, v),
            };
            out.insert(field.name.to_string(), read);
        }
        for (name, v) in map {
            if !table.fields.iter().any(|f| f.name == name) {
                let why = "unknown key (check the spelling; see the schema for the allowed keys)";
                self.refuse(&join(prefix, name), Some(v), why);
            }
        }
        Value::Object(out)
    }

    fn field(&mut self, key: &str, kind: &Kind, value: &Value) -> Value {
        match kind {
            Kind::Figure(figure) => self.figure(key, figure, value),
            Kind::Text => self.text(key, value, 1, "must not be empty"),
            Kind::Reason => self.text(key, value, SOURCE_MIN_CHARS, &source_rule()),
            Kind::AnyText => match value {
                Value::String(_) => value.clone(),
                _ => {
                    self.refuse(key, Some(value), "Input should be a valid string");
                    Value::Null
                }
            },
            Kind::Id => match value.as_str() {
                Some(id) if is_id(id) => value.clone(),
                Some(_) => {
                    let why = format!("String should match pattern '{ID_PATTERN}'");
                    self.refuse(key, Some(value), why);
                    Value::Null
                }
                None => {
                    self.refuse(key, Some(value), "Input should be a valid string");
                    Value::Null
                }
            },
            Kind::Bool => {
                if !value.is_boolean() {
                    self.refuse(key, Some(value), "Input should be a valid boolean");
                }
                value.clone()
            }
            Kind::Version => {
                if value.as_i64() != Some(1) {
                    self.refuse(key, Some(value), "must be one of 1");
                }
                value.clone()
            }
            Kind::Available(yes) => {
                if value.as_bool() != Some(*yes) {
                    let word = if *yes { "True" } else { "False" };
                    self.refuse(key, Some(value), format!("must be one of {word}"));
                }
                value.clone()
            }
            Kind::Table(table) => self.table(key, table, value),
            Kind::Choice {
                available,
                unavailable,
            } => {
                let absent = value.get("available") == Some(&Value::Bool(false));
                self.table(key, if absent { unavailable } else { available }, value)
            }
        }
    }

    /// Text stripped of surrounding white space, at least `min` characters.
    fn text(&mut self, key: &str, value: &Value, min: usize, why: &str) -> Value {
        let Some(text) = value.as_str() else {
            self.refuse(key, Some(value), "Input should be a valid string");
            return Value::Null;
        };
        let stripped = text.trim();
        if stripped.chars().count() < min {
            self.refuse(key, Some(value), why);
        }
        json!(stripped)
    }

    fn figure(&mut self, key: &str, figure: &Figure, value: &Value) -> Value {
        let Some(map) = value.as_object() else {
            let why = "must be a table { value = ..., source = \"...\" }";
            self.refuse(key, Some(value), why);
            return Value::Null;
        };
        let mut out = Map::new();
        out.insert(CLASS.to_string(), json!(figure.class));
        let value_key = join(key, "value");
        let number = match map.get("value") {
            None => {
                self.refuse(&value_key, None, "required key is missing");
                Value::Null
            }
            Some(v) => self.number(&value_key, figure, v),
        };
        out.insert("value".to_string(), number);
        let source = match map.get("source") {
            None => {
                self.refuse(&join(key, "source"), None, "required key is missing");
                Value::Null
            }
            Some(v) => self.text(&join(key, "source"), v, SOURCE_MIN_CHARS, &source_rule()),
        };
        out.insert("source".to_string(), source);
        for (name, v) in map {
            if name != "value" && name != "source" {
                let why = "unknown key (check the spelling; see the schema for the allowed keys)";
                self.refuse(&join(key, name), Some(v), why);
            }
        }
        Value::Object(out)
    }

    fn number(&mut self, key: &str, figure: &Figure, value: &Value) -> Value {
        if non_finite(value).is_some() {
            self.refuse(key, Some(value), "must be a finite number");
            return Value::Null;
        }
        let x = match value {
            Value::Number(n) if figure.whole && (n.is_i64() || n.is_u64()) => n.as_f64(),
            Value::Number(n) if !figure.whole => n.as_f64(),
            _ => None,
        };
        let Some(x) = x else {
            let kind = if figure.whole { "integer" } else { "number" };
            self.refuse(key, Some(value), format!("Input should be a valid {kind}"));
            return Value::Null;
        };
        let broken = match (figure.above, figure.at_least, figure.at_most) {
            (Some(low), _, _) if x <= low => Some(format!("must be > {}", num(low))),
            (_, Some(low), _) if x < low => Some(format!("must be >= {}", num(low))),
            (_, _, Some(high)) if x > high => Some(format!("must be <= {}", num(high))),
            _ => None,
        };
        if let Some(why) = broken {
            self.refuse(key, Some(value), why);
        }
        // a figure's number as its declared type: a float where the file
        // wrote `8` for a clock, as every use computes in floats
        if figure.whole {
            value.clone()
        } else {
            json!(x)
        }
    }
}

fn source_rule() -> String {
    format!(
        "a source must say where the figure comes from (datasheet and table, or the \
         derivation, or `estimate:` with the reasoning): at least {SOURCE_MIN_CHARS} characters"
    )
}

/// A board's id, the file's name: lower-case letters, digits, `.`, `_` and
/// `-`, starting with a letter or digit.
pub const ID_PATTERN: &str = "^[a-z0-9][a-z0-9._-]*$";

pub fn is_id(id: &str) -> bool {
    let mut chars = id.chars();
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    chars.next().is_some_and(alnum) && chars.all(|c| alnum(c) || matches!(c, '.' | '_' | '-'))
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// Read one file's parsed TOML against `table`: its normalised values, or
/// every problem in it.
pub fn check(table: &Table, data: &Value) -> Result<Value, Vec<FileProblem>> {
    let mut reader = Reader {
        problems: Vec::new(),
    };
    if !data.is_object() {
        reader.refuse("(top level)", Some(data), "must be a table");
        return Err(reader.problems);
    }
    let out = reader.table("", table, data);
    if reader.problems.is_empty() {
        Ok(out)
    } else {
        Err(reader.problems)
    }
}

/// The allowed values of a figure, in words: "> 0", "a whole number > 0",
/// ">= -130, <= 30".
pub fn range_words(figure: &Figure) -> String {
    let mut parts = Vec::new();
    if let Some(low) = figure.above {
        parts.push(format!("> {}", num(low)));
    }
    if let Some(low) = figure.at_least {
        parts.push(format!(">= {}", num(low)));
    }
    if let Some(high) = figure.at_most {
        parts.push(format!("<= {}", num(high)));
    }
    let whole = if figure.whole { "a whole number " } else { "" };
    format!("{whole}{}", parts.join(", "))
}

/// The declarations of `table` for the reader: each field's name, kind
/// (`figure`, `text`, `id`, `bool`, `version`, `available`, `reason`,
/// `table`, `choice`), whether it may be left out, a figure's class and
/// range, and a table's own declarations (a choice's in its available form
/// and the class of its unavailable form).
pub fn describe(table: &Table) -> Value {
    let fields: Vec<Value> = table
        .fields
        .iter()
        .map(|field| {
            let mut out = json!({ "name": field.name, "optional": field.optional });
            let (kind, extra) = match &field.kind {
                Kind::Figure(fig) => (
                    "figure",
                    json!({ "class": fig.class, "range": range_words(fig) }),
                ),
                Kind::Text | Kind::AnyText => ("text", json!({})),
                Kind::Id => ("id", json!({ "pattern": ID_PATTERN })),
                Kind::Bool => ("bool", json!({})),
                Kind::Version => ("version", json!({})),
                Kind::Available(_) => ("available", json!({})),
                Kind::Reason => ("reason", json!({})),
                Kind::Table(inner) => ("table", json!({ "table": describe(inner) })),
                Kind::Choice {
                    available,
                    unavailable,
                } => (
                    "choice",
                    json!({ "table": describe(available), "unavailable": unavailable.class }),
                ),
            };
            out["kind"] = json!(kind);
            if let (Value::Object(o), Value::Object(e)) = (&mut out, extra) {
                o.extend(e);
            }
            out
        })
        .collect();
    json!({ "class": table.class, "fields": fields })
}

/// Every class [`check`] may tag a table with, and its fields in order
/// (for the reader's test that its classes mirror these).
pub fn classes(table: &Table, out: &mut Vec<(&'static str, Vec<&'static str>)>) {
    if out.iter().any(|(c, _)| *c == table.class) {
        return;
    }
    out.push((table.class, table.fields.iter().map(|f| f.name).collect()));
    for field in table.fields {
        match &field.kind {
            Kind::Figure(fig) if !out.iter().any(|(c, _)| *c == fig.class) => {
                out.push((fig.class, vec!["value", "source"]));
            }
            Kind::Table(inner) => classes(inner, out),
            Kind::Choice {
                available,
                unavailable,
            } => {
                classes(available, out);
                classes(unavailable, out);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(data: Value) -> Vec<(String, Option<String>, String)> {
        check(&CURVE25519_HOLDER, &data)
            .unwrap_err()
            .into_iter()
            .map(|p| (p.key, p.value, p.allowed))
            .collect()
    }

    const CURVE25519_HOLDER: Table = Table {
        class: "Holder",
        fields: &[
            req("curve25519", t(&CURVE25519)),
            opt("clock", f(&CLOCK_MHZ)),
        ],
    };

    fn sourced(v: Value) -> Value {
        json!({ "value": v, "source": "a datasheet, table 4" })
    }

    #[test]
    fn a_missing_table_is_said_as_every_key_it_must_hold() {
        let found = problems(json!({}));
        let keys: Vec<_> = found.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(
            keys,
            [
                "curve25519.x25519_us",
                "curve25519.ed25519_sign_us",
                "curve25519.ed25519_verify_us"
            ]
        );
        assert!(found.iter().all(|p| p.1.is_none()));
    }

    #[test]
    fn ranges_short_sources_and_non_finite_numbers_are_refused() {
        let data = json!({
            "curve25519": {
                "x25519_us": sourced(json!(-1.5)),
                "ed25519_sign_us": { "value": 1, "source": " ds " },
                "ed25519_verify_us": sourced(json!({ "$float": "NaN" })),
            },
            "clock": sourced(json!(2000)),
        });
        let found = problems(data);
        assert!(found.contains(&(
            "curve25519.x25519_us.value".into(),
            Some("-1.5".into()),
            "must be >= 0".into()
        )));
        assert!(found.contains(&(
            "curve25519.ed25519_verify_us.value".into(),
            Some("NaN".into()),
            "must be a finite number".into()
        )));
        assert!(found.contains(&(
            "clock.value".into(),
            Some("2000".into()),
            "must be <= 1000".into()
        )));
        let short = found
            .iter()
            .find(|p| p.0.ends_with("sign_us.source"))
            .unwrap();
        assert_eq!(short.1.as_deref(), Some("\" ds \""));
        assert!(short.2.ends_with("at least 10 characters"));
    }

    #[test]
    fn a_good_table_is_normalised_and_tagged() {
        let data = json!({
            "curve25519": {
                "x25519_us": sourced(json!(3)),
                "ed25519_sign_us": sourced(json!(0)),
                "ed25519_verify_us": { "value": 2.5, "source": "  estimate: two reads  " },
            },
        });
        let out = check(&CURVE25519_HOLDER, &data).unwrap();
        assert_eq!(out["clock"], Value::Null);
        assert_eq!(out["curve25519"][CLASS], "Curve25519");
        assert_eq!(out["curve25519"]["x25519_us"][CLASS], "NonNegative");
        assert!(out["curve25519"]["x25519_us"]["value"].is_f64());
        assert_eq!(
            out["curve25519"]["ed25519_verify_us"]["source"],
            "estimate: two reads"
        );
    }

    #[test]
    fn a_whole_number_is_refused_as_a_float_and_ids_follow_the_pattern() {
        let mut r = Reader {
            problems: Vec::new(),
        };
        r.number("ram.value", &BYTE_COUNT, &json!(10240.5));
        r.number("ram.value", &BYTE_COUNT, &json!(0));
        assert_eq!(r.problems[0].allowed, "Input should be a valid integer");
        assert_eq!(r.problems[1].allowed, "must be > 0");
        assert!(is_id("openmote-cc2538") && is_id("x86_64.2"));
        assert!(!is_id("NRF") && !is_id("-a") && !is_id(""));
    }

    #[test]
    fn the_template_s_ranges_are_the_rules() {
        assert_eq!(range_words(&POSITIVE), "> 0");
        assert_eq!(range_words(&VOLTAGE), "> 0, <= 12");
        assert_eq!(range_words(&POWER_DBM), ">= -130, <= 30");
        assert_eq!(range_words(&BYTE_COUNT), "a whole number > 0");
    }
}
