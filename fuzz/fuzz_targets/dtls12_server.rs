//! libFuzzer entry of the target `dtls12_server`: its body and invariants are
//! `fuzz_harness::dtls12::server` (crates/fuzz).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::dtls12::server(data));
