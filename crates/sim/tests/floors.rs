//! The simulator's floors: the lower ones (the event queue, timers, clocks,
//! random streams, the topology and channel, energy, the world and its
//! trace, the MACs, the network layer, the engine and a node's CPU and
//! application interface) never name the higher ones (the applications and
//! their records, the workloads, the replication and its result rows).
//! Read from the sources, so a new import fails here.

use std::path::{Path, PathBuf};

/// Source files and folders (under `src/`) of the lower floors.
const LOWER: &[&str] = &[
    "queue.rs",
    "timer.rs",
    "clock.rs",
    "rng.rs",
    "topology.rs",
    "channel.rs",
    "medium.rs",
    "radio.rs",
    "k7.rs",
    "energy.rs",
    "world.rs",
    "trace.rs",
    "mac",
    "net.rs",
    "engine.rs",
    "node",
];

/// What a lower floor must not name.
const HIGHER: &[&str] = &[
    "crate::app",
    "crate::workload",
    "crate::run",
    "crate::row",
    "crate::node_rows",
];

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .expect("a source folder")
            .map(|e| e.expect("an entry").path())
            .collect();
        entries.sort();
        for e in entries {
            rust_files(&e, out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

/// Lines of code naming a higher floor, as "file:line: text".
fn higher_names(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).expect("a readable source file");
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            // what a comment says is not an import
            let code = line.split("//").next().unwrap_or("");
            HIGHER
                .iter()
                .any(|h| code.contains(h))
                .then(|| format!("{}:{}: {}", file.display(), i + 1, line.trim()))
        })
        .collect()
}

#[test]
fn lower_floors_never_name_higher_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for part in LOWER {
        let path = src.join(part);
        assert!(path.exists(), "{} is gone: update LOWER", path.display());
        rust_files(&path, &mut files);
    }
    assert!(files.len() > LOWER.len(), "the folders were read");
    let found: Vec<String> = files.iter().flat_map(|f| higher_names(f)).collect();
    assert!(
        found.is_empty(),
        "a lower floor names a higher one:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_an_import() {
    let dir = std::env::temp_dir().join(format!("sim-floors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("lower.rs");
    std::fs::write(
        &file,
        "//! About crate::app, in words.\nuse crate::app::record::Record;\n",
    )
    .unwrap();
    let found = higher_names(&file);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with(":2: use crate::app::record::Record;"));
}
