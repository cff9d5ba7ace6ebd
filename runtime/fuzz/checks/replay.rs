//! Replays a checked-in seed corpus through a fuzz target's property, so that stable
//! `cargo test` exercises the targets without nightly or libFuzzer.

use std::path::Path;

/// Runs `check` on every file of `<seeds>/<target>`, and on prefixes of each (truncated input
/// is the most common malformation: every prefix of short files, 256 evenly spaced ones of
/// longer files); returns how many inputs ran.
pub fn replay(seeds: &Path, target: &str, check: fn(&[u8])) -> usize {
    let dir = seeds.join(target);
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    assert!(entries.len() >= 5, "the {target} seed corpus is missing");
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
