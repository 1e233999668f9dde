//! Every committed corpus input through its target, on stable: what the
//! fuzzer found and kept (crashes fixed, seeds from real traffic) is
//! replayed by `cargo test`, so a regression fails here first.

use std::fs;
use std::path::PathBuf;

use dtls::Session;
use fuzz_harness::TARGETS;

fn corpus_dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target)
}

#[test]
fn every_target_has_a_corpus_and_every_input_holds() {
    for t in TARGETS {
        let dir = corpus_dir(t.name);
        let mut inputs: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "{}: no seeds", dir.display());
        for path in inputs {
            let data = fs::read(&path).expect("a corpus file");
            let outcome = std::panic::catch_unwind(|| (t.run)(&data));
            assert!(outcome.is_ok(), "{} fails on {}", t.name, path.display());
        }
    }
}

#[test]
fn replaying_a_whole_recording_connects_the_endpoint() {
    use fuzz_harness::recorded::{client_addr, handshake12, server12, Handshake12};
    // the premise of the endpoint targets: a replay reaches the recorded states
    for h in [Handshake12::Psk, Handshake12::EcdheMutual] {
        let mut s = server12(h);
        for (t, d) in &handshake12(h).c2s {
            s.handle_datagram(*t, client_addr(), d);
            while s.poll_transmit(*t).is_some() {}
        }
        let session = s.session(&client_addr()).expect("a session");
        assert!(session.is_established(), "{h:?}");
    }
}
