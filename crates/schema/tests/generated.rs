//! The files generated from the parameters' declarations (the JSON Schema,
//! the Python key constants, the documentation's table of keys) are the
//! ones the declarations give now. `DTLSIM_REGENERATE=1` writes them.

#[test]
fn the_generated_files_are_current() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let regenerate = std::env::var_os("DTLSIM_REGENERATE").is_some();
    let mut stale = Vec::new();
    for (path, text) in schema::generated::files() {
        let file = format!("{root}/{path}");
        if std::fs::read_to_string(&file).unwrap_or_default() == text {
            continue;
        }
        if regenerate {
            std::fs::write(&file, text).unwrap();
        } else {
            stale.push(path);
        }
    }
    assert!(
        stale.is_empty(),
        "{stale:?} out of date: run `DTLSIM_REGENERATE=1 cargo test -p dtlsim-schema --test generated`"
    );
}

#[test]
fn every_key_names_its_unit_and_every_number_has_a_range() {
    for p in schema::ranges::all() {
        let name = p.key.rsplit('.').next().unwrap_or_default();
        if !p.unit.is_empty() {
            assert!(name.ends_with(&format!("_{}", p.unit)), "{}", p.key);
        }
        let number = matches!(p.default, Some(serde_json::Value::Number(_)));
        assert!(!number || p.range.is_some(), "{} has no range", p.key);
    }
}
