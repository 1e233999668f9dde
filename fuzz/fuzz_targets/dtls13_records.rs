//! libFuzzer entry of the target `dtls13_records`: its body and invariants are
//! `fuzz_harness::dtls13::records` (crates/fuzz).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::dtls13::records(data));
