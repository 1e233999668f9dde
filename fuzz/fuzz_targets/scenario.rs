//! libFuzzer entry of the target `scenario`: its body and invariants are
//! `fuzz_harness::scenario::run` (crates/fuzz).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::scenario::run(data));
