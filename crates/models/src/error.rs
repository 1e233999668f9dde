use thiserror::Error;

/// A model parameter outside the range where the model is defined.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{name} = {value}: {allowed}")]
pub struct ModelError {
    pub name: &'static str,
    pub value: String,
    pub allowed: String,
}

impl ModelError {
    pub fn new(name: &'static str, value: impl ToString, allowed: impl Into<String>) -> Self {
        ModelError {
            name,
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }
}

/// Refuse `value` unless `ok`; keeps the checks at the top of each model short.
pub(crate) fn require(
    ok: bool,
    name: &'static str,
    value: impl ToString,
    allowed: &str,
) -> Result<(), ModelError> {
    if ok {
        Ok(())
    } else {
        Err(ModelError::new(name, value, allowed))
    }
}

/// A delivery ratio must be a probability that lets something through.
pub(crate) fn require_pdr(name: &'static str, p: f64) -> Result<(), ModelError> {
    require(p > 0.0 && p <= 1.0, name, p, "must be in (0, 1]")
}
