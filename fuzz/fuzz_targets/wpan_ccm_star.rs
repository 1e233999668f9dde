//! libFuzzer entry of the target `wpan_ccm_star`: its body and invariants are
//! `fuzz_harness::wpan_frames::ccm_star` (crates/fuzz).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::wpan_frames::ccm_star(data));
