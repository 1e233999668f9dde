//! Run one target over files, printing what fails:
//! `cargo run -p dtlsim-fuzz --example replay -- <target> <file>…`.
fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().expect("usage: replay <target> <file>…");
    let target = fuzz_harness::TARGETS
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no target {name}"));
    for path in args {
        let data = std::fs::read(&path).expect("an input file");
        println!("{path}: {} bytes", data.len());
        (target.run)(&data);
        println!("{path}: ok");
    }
}
