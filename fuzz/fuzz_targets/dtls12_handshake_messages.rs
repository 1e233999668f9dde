//! libFuzzer entry of the target `dtls12_handshake_messages`: its body and invariants are
//! `fuzz_harness::dtls12::handshake_messages` (crates/fuzz).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::dtls12::handshake_messages(data));
