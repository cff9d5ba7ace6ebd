//! `ffihub`: the binding generator. Its commands (`dump`, `generate`, `check`) arrive with the
//! generator-core issue; until then the binary only reports that.

fn main() {
    eprintln!(
        "ffihub {}: the dump/generate/check commands are not built yet",
        env!("CARGO_PKG_VERSION")
    );
    std::process::exit(2);
}
