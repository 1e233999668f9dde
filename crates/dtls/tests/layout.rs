//! The crate's layout rule: shared parts at the root, one folder per
//! version (`src/v12`, `src/v13`). Shared code imports from no version
//! folder, and neither version folder imports from the other; each
//! version's own files reach their siblings through `crate::v1x` or
//! `super::`, never through `super::super::` into another version.

use std::fs;
use std::path::{Path, PathBuf};

const VERSIONS: [&str; 2] = ["v12", "v13"];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).expect("source folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The version folder a source file lies in (None: shared code).
fn version_of(src: &Path, file: &Path) -> Option<&'static str> {
    let first = file.strip_prefix(src).ok()?.components().next()?;
    VERSIONS
        .into_iter()
        .find(|v| first.as_os_str() == std::ffi::OsStr::new(v))
}

/// The paths into a version folder that a line of code names:
/// `crate::v12`, `crate::v13`, `super::super::v12`, … (comments skipped).
fn versions_named(line: &str) -> Vec<&'static str> {
    let code = line.split("//").next().unwrap_or("");
    VERSIONS
        .into_iter()
        .filter(|v| {
            code.contains(&format!("crate::{v}"))
                || code.contains(&format!("super::super::{v}"))
                || code.contains(&format!("super::{v}::"))
        })
        .collect()
}

/// Every place that breaks the rule: (file, line number, line).
fn violations(src: &Path) -> Vec<(PathBuf, usize, String)> {
    let mut out = Vec::new();
    for file in rust_files(src) {
        let own = version_of(src, &file);
        let text = fs::read_to_string(&file).expect("source file");
        for (i, line) in text.lines().enumerate() {
            let bad = versions_named(line).into_iter().any(|v| match own {
                // shared code names no version folder (the crate root's
                // `pub mod` and `pub use` lines are the public API, not
                // an import into shared code)
                None => !is_root_reexport(src, &file, line),
                Some(o) => o != v,
            });
            if bad {
                out.push((file.clone(), i + 1, line.trim().to_string()));
            }
        }
    }
    out
}

/// `lib.rs` re-exports the versions' types at the crate root.
fn is_root_reexport(src: &Path, file: &Path, line: &str) -> bool {
    file == src.join("lib.rs") && line.trim_start().starts_with("pub use v1")
}

#[test]
fn no_import_crosses_between_versions_or_into_shared_code() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    assert!(
        found.is_empty(),
        "imports against the layout rule:\n{}",
        found
            .iter()
            .map(|(f, n, l)| format!("{}:{n}: {l}", f.display()))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_check_sees_a_crossing_import() {
    assert_eq!(versions_named("use crate::v13::header::Header13;"), ["v13"]);
    assert_eq!(versions_named("use super::super::v12::record;"), ["v12"]);
    assert!(versions_named("// see crate::v13::header").is_empty());
    assert!(versions_named("use crate::error::v13::RecordError;").is_empty());
}

#[test]
fn the_crypto_primitives_take_no_configuration() {
    // `config` builds on `crypto::suite`; the other way round would be a
    // cycle again
    let crypto = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/crypto");
    for file in rust_files(&crypto) {
        let text = fs::read_to_string(&file).expect("source file");
        assert!(
            !text.contains("crate::config"),
            "{} imports crate::config",
            file.display()
        );
    }
}

/// The shared module a file belongs to (`crypto/aead.rs`: `crypto`), or
/// None for the crate root and the version folders.
fn shared_module(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib" && !VERSIONS.contains(&name)).then(|| name.to_string())
}

#[test]
fn the_shared_modules_import_each_other_without_a_cycle() {
    use std::collections::{BTreeMap, BTreeSet};
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(&src) {
        let Some(from) = shared_module(&src, &file) else {
            continue;
        };
        let text = fs::read_to_string(&file).expect("source file");
        let deps = edges.entry(from.clone()).or_default();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            for (i, _) in code.match_indices("crate::") {
                let to: String = code[i + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if to != from && !to.is_empty() {
                    deps.insert(to);
                }
            }
        }
    }
    // depth-first search; a module met again on the current path closes
    // a cycle
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if let Some(at) = path.iter().position(|p| p == n) {
            panic!("import cycle: {}", path[at..].join(" -> ") + " -> " + n);
        }
        if !done.insert(n.to_string()) {
            return;
        }
        path.push(n.to_string());
        for m in edges.get(n).into_iter().flatten() {
            if edges.contains_key(m) {
                visit(m, edges, path, done);
            }
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for n in edges.keys() {
        visit(n, &edges, &mut Vec::new(), &mut done);
    }
}
