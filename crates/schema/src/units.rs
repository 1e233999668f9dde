//! The one place a file's unit-suffixed value becomes the simulator's
//! microseconds (rounded to the nearest).

pub fn us_from_ms(ms: f64) -> u64 {
    (ms * 1000.0).round() as u64
}

pub fn us_from_s(s: f64) -> u64 {
    (s * 1e6).round() as u64
}

/// A duration the simulator defines in microseconds, as the file writes it
/// in milliseconds (a declared default).
pub fn ms_from_us(us: u64) -> f64 {
    us as f64 / 1000.0
}
