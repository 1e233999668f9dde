//! The bodies of dtlsim's fuzz targets, one function per target.
//!
//! Each takes arbitrary bytes, drives one parser or endpoint through its
//! public API and asserts what must hold for every input (never a panic,
//! parse → emit → parse gives back what was parsed, bounded state and
//! bounded answers, no session or application data without the handshake
//! that earns it). The same functions run twice over: under libFuzzer
//! (`fuzz/`, `make fuzz`, nightly) and, over the corpora committed in
//! `fuzz/corpus/<target>/`, in this crate's tests on stable, so `cargo test`
//! replays every input the fuzzer kept.
//!
//! The endpoint targets start from real traffic: a handshake recorded in
//! memory ([`recorded`]) whose first k datagrams are replayed before the
//! fuzzer's, so the fuzzed bytes reach every state the handshake passes
//! through.

#![forbid(unsafe_code)]

pub mod certificates;
pub mod dtls12;
pub mod dtls13;
pub mod edhoc;
pub mod input;
pub mod recorded;
pub mod scenario;
pub mod wpan_frames;

/// One fuzz target: its name (the libFuzzer binary and the corpus
/// directory) and its body.
pub struct Target {
    /// Binary and `fuzz/corpus/<name>/`.
    pub name: &'static str,
    /// Runs one input; panics if an invariant breaks.
    pub run: fn(&[u8]),
}

/// Every target, in the order `make fuzz` runs them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "dtls12_record",
        run: dtls12::record,
    },
    Target {
        name: "dtls12_handshake_messages",
        run: dtls12::handshake_messages,
    },
    Target {
        name: "dtls12_server",
        run: dtls12::server,
    },
    Target {
        name: "dtls12_client",
        run: dtls12::client,
    },
    Target {
        name: "dtls13_records",
        run: dtls13::records,
    },
    Target {
        name: "dtls13_messages",
        run: dtls13::messages,
    },
    Target {
        name: "dtls13_server",
        run: dtls13::server,
    },
    Target {
        name: "certificates",
        run: certificates::parse,
    },
    Target {
        name: "wpan_frame",
        run: wpan_frames::frame,
    },
    Target {
        name: "wpan_sixlowpan",
        run: wpan_frames::sixlowpan,
    },
    Target {
        name: "wpan_ccm_star",
        run: wpan_frames::ccm_star,
    },
    Target {
        name: "scenario",
        run: scenario::run,
    },
    Target {
        name: "edhoc_responder",
        run: edhoc::responder,
    },
];
