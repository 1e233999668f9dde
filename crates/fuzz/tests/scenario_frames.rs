//! The scenario target's frame invariant on the shipped scenarios (their
//! settled first points, the target's seeds): every copy sent is received
//! or lost with a reason, and time never goes backwards. The check runs on
//! real traffic: the runs put frames on the air and lose some of them.

use std::fs;
use std::path::PathBuf;

use fuzz_harness::scenario::checked_frames;
use sim::trace::RxOutcome;

#[test]
fn shipped_scenarios_account_for_every_frame_sent() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/scenario");
    let mut checked = Vec::new();
    let mut receptions = [0u64; RxOutcome::ALL.len()];
    for name in [
        "exp1-xmac-00",
        "exp3-tsch-03",
        "exp5-llsec-tsch-05",
        "exp6-rtt-07",
    ] {
        let data = fs::read(dir.join(format!("{name}.toml"))).expect("a shipped seed");
        let Some(f) = checked_frames(&data) else {
            panic!("{name}: not run, or its trace was cut");
        };
        eprintln!("{name}: {f:?}");
        assert!(f.copies_sent > 0, "{name}: no frame sent");
        for (all, n) in receptions.iter_mut().zip(f.receptions) {
            *all += n;
        }
        checked.push(name);
    }
    assert_eq!(checked.len(), 4);
    assert!(
        receptions[RxOutcome::Received as usize] > 0,
        "{receptions:?}"
    );
    let lost: u64 = receptions.iter().sum::<u64>() - receptions[RxOutcome::Received as usize];
    assert!(lost > 0, "some copy is lost with a reason: {receptions:?}");
}
