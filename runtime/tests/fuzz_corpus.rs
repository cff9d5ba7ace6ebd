//! Replays the checked-in seed corpus of the JSON fuzz targets (`runtime/fuzz/seeds/`) through
//! the targets' own properties (`runtime/fuzz/checks/json.rs`), so that stable `cargo test`
//! exercises them without nightly or libFuzzer.

#[path = "../fuzz/checks/json.rs"]
mod checks;

use std::path::Path;

/// Runs `check` on every file of `runtime/fuzz/seeds/<target>`, and on prefixes of each
/// (truncated input is the most common malformation: every prefix of short files, 256 evenly
/// spaced ones of longer files); returns how many inputs ran.
fn replay(target: &str, check: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    assert!(entries.len() >= 10, "the {target} seed corpus is missing");
    let mut inputs = 0;
    for path in entries {
        let data = std::fs::read(&path).expect("read a seed");
        let step = data.len().div_ceil(256).max(1);
        for end in (0..=data.len()).step_by(step).chain([data.len()]) {
            let outcome = std::panic::catch_unwind(|| check(&data[..end]));
            assert!(
                outcome.is_ok(),
                "{} (first {end} bytes) broke a {target} property",
                path.display()
            );
            inputs += 1;
        }
    }
    inputs
}

#[test]
fn json_parse_seeds_hold_the_properties() {
    assert!(replay("json_parse", checks::check_json_parse) > 100);
}

#[test]
fn json_graph_seeds_hold_the_properties() {
    assert!(replay("json_graph", checks::check_json_graph) > 1000);
}
