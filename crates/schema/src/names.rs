//! Values named from a list another crate owns (security levels in
//! `crates/wpan`, cipher suites in `crates/models`): the file holds the
//! name, the list is written once, there.

/// A newtype over one of the names `$names()` returns, read by serde
/// (an unknown name is refused with the whole list) and shown in the
/// schema as an enum of those names.
macro_rules! named {
    ($(#[$doc:meta])* $name:ident, $names:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name(pub &'static str);

        impl $name {
            pub fn names() -> &'static [&'static str] {
                static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
                NAMES.get_or_init($names)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let given = String::deserialize(d)?;
                match $name::names().iter().find(|&&n| n == given) {
                    Some(&n) => Ok($name(n)),
                    None => Err(serde::de::Error::unknown_variant(&given, $name::names())),
                }
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "enum": $name::names() })
            }
        }
    };
}

pub(crate) use named;
