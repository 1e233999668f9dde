//! One declaration per scenario parameter. [`params!`] writes a section's
//! struct from a list of keys, each with its type, default, range and doc
//! comment (its unit is in its name: `check_interval_ms`), and from that
//! one list generates:
//!
//! - the struct field with its serde and schemars attributes (the doc
//!   comment becomes the JSON Schema's description);
//! - `declared()`, the section with every declared default (a section whose
//!   `Default` is that says so with `: Default`; a section whose keys belong
//!   to one `kind` each fills them from it when it settles);
//! - `check_ranges`, the range check of every ranged key;
//! - `params()`, the [`Param`] rows that [`crate::ranges`] puts into the
//!   JSON Schema and [`crate::generated`] writes out as the documentation's
//!   tables and the Python module of key names.
//!
//! Rules that tie keys together stay with the section, in its `validate`.

use serde::Serialize;
use serde_json::Value;

use crate::problem::{Low, Problems};

/// One scenario key as declared.
#[derive(Debug, Clone)]
pub struct Param {
    /// The dotted key (`mac.xmac.check_interval_ms`; `[]` for the items of
    /// a list of tables: `topology.links[].pdr`).
    pub key: String,
    /// The unit its name ends with (`ms`, `s`, `bytes`), or "".
    pub unit: &'static str,
    /// The declared default as the file writes it (null: absent unless
    /// given); None: required.
    pub default: Option<Value>,
    /// The allowed range (of each item, for a list of numbers).
    pub range: Option<(Low, f64)>,
    /// The doc comment, one line.
    pub doc: String,
}

/// A value with a range: a number, or an optional one (checked when given).
pub trait Ranged {
    fn check(&self, key: &str, low: Low, high: f64, p: &mut Problems);
}

macro_rules! ranged_number {
    ($($t:ty),*) => {$(
        impl Ranged for $t {
            fn check(&self, key: &str, low: Low, high: f64, p: &mut Problems) {
                p.outside(key, *self, *self as f64, low, high);
            }
        }
    )*};
}
ranged_number!(u8, u32, u64, f64);

impl<T: Ranged> Ranged for Option<T> {
    fn check(&self, key: &str, low: Low, high: f64, p: &mut Problems) {
        if let Some(v) = self {
            v.check(key, low, high, p);
        }
    }
}

/// A list's range is its items': each is checked at `key[i]`.
impl<T: Ranged> Ranged for Vec<T> {
    fn check(&self, key: &str, low: Low, high: f64, p: &mut Problems) {
        for (i, v) in self.iter().enumerate() {
            v.check(&format!("{key}[{i}]"), low, high, p);
        }
    }
}

/// A declared default as the file would write it (`Some(1)` is `1`;
/// `None`, absent, is null).
pub fn default_value(v: &impl Serialize) -> Option<Value> {
    serde_json::to_value(v).ok()
}

/// The units a key's name may end with: a key carries its unit in its
/// name (`check_interval_ms`), so the name is the unit's one declaration.
pub const UNITS: &[&str] = &["ms", "us", "s", "m", "bytes", "ppm", "dbm", "db"];

/// The unit `name` ends with, or "".
pub fn unit_of(name: &str) -> &'static str {
    UNITS
        .iter()
        .find(|u| name.ends_with(&format!("_{u}")))
        .copied()
        .unwrap_or("")
}

/// The doc comment's lines as one line.
pub fn doc_line(lines: &[&str]) -> String {
    lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ")
}

/// `params! { #[attrs] pub struct Name at "dotted.prefix" $(: Default)? {
/// /// doc
/// key: Type [field attributes] = default; range (low, high), ... } }`.
/// A key without `= default` is required (its `declared()` value is the
/// type's own default and it has none in the tables).
macro_rules! params {
    (
        $(#[$meta:meta])*
        pub struct $name:ident at $at:literal $(: $default_trait:ident)? {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $ty:ty
                $([$($attr:meta),* $(,)?])?
                $(= $default:expr)?
                $(; range ($low:expr, $high:expr))?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $(
                $(#[doc = $doc])*
                $($(#[$attr])*)?
                pub $field: $ty,
            )*
        }

        impl $name {
            /// The section with every declared default.
            #[allow(clippy::needless_update)]
            pub fn declared() -> Self {
                $name {
                    $($field: $crate::param::default_or!($ty $(, $default)?),)*
                }
            }

            /// Every declared range, checked at the keys under `at`.
            #[allow(unused_variables)]
            pub fn check_ranges_at(&self, at: &str, p: &mut $crate::problem::Problems) {
                $($(
                    $crate::param::Ranged::check(
                        &self.$field,
                        &format!("{at}.{}", stringify!($field)),
                        $low,
                        $high,
                        p,
                    );
                )?)*
            }

            /// Every declared range, checked.
            pub fn check_ranges(&self, p: &mut $crate::problem::Problems) {
                self.check_ranges_at($at, p);
            }

            /// The section's keys as declared.
            pub fn params() -> Vec<$crate::param::Param> {
                let declared = Self::declared();
                let _ = &declared;
                vec![$(
                    $crate::param::Param {
                        key: concat!($at, ".", stringify!($field)).to_string(),
                        unit: $crate::param::unit_of(stringify!($field)),
                        default: $crate::param::declared_value!(declared.$field $(, $default)?),
                        range: $crate::param::range!($($low, $high)?),
                        doc: $crate::param::doc_line(&[$($doc),*]),
                    },
                )*]
            }
        }

        $(
            impl $default_trait for $name {
                fn default() -> Self {
                    Self::declared()
                }
            }
        )?
    };
}

macro_rules! default_or {
    ($ty:ty) => {
        <$ty as Default>::default()
    };
    ($ty:ty, $default:expr) => {
        $default
    };
}

macro_rules! declared_value {
    ($value:expr) => {
        None
    };
    ($value:expr, $default:expr) => {
        $crate::param::default_value(&$value)
    };
}

macro_rules! range {
    () => {
        None
    };
    ($low:expr, $high:expr) => {
        Some(($low, $high))
    };
}

pub(crate) use {declared_value, default_or, params, range};
