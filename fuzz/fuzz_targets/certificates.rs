//! libFuzzer entry of the target `certificates`: its body and invariants are
//! `fuzz_harness::certificates::parse` (crates/fuzz).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::certificates::parse(data));
