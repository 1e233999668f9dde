//! The one place a file's unit-suffixed value becomes the simulator's
//! microseconds (rounded to the nearest).

pub fn us_from_ms(ms: f64) -> u64 {
    (ms * 1000.0).round() as u64
}

pub fn us_from_s(s: f64) -> u64 {
    (s * 1e6).round() as u64
}
