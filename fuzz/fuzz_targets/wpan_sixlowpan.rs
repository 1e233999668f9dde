//! libFuzzer entry of the target `wpan_sixlowpan`: its body and invariants are
//! `fuzz_harness::wpan_frames::sixlowpan` (crates/fuzz).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::wpan_frames::sixlowpan(data));
