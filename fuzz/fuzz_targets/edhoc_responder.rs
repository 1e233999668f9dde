//! libFuzzer entry of the target `edhoc_responder`: its body and invariants
//! are `fuzz_harness::edhoc::responder` (crates/fuzz).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::edhoc::responder(data));
