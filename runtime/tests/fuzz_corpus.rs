//! Replays the checked-in seed corpus of the runtime's parser fuzz targets
//! (`runtime/fuzz/seeds/`) through the targets' own properties (`runtime/fuzz/checks/`), so that
//! stable `cargo test` exercises them without nightly or libFuzzer.

#[path = "../fuzz/checks/dtype.rs"]
mod dtype;
#[path = "../fuzz/checks/json.rs"]
mod json;
#[path = "../fuzz/checks/replay.rs"]
mod replay;

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) -> usize {
    replay::replay(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds"),
        target,
        check,
    )
}

#[test]
fn json_parse_seeds_hold_the_properties() {
    assert!(replay("json_parse", json::check_json_parse) > 100);
}

#[test]
fn json_graph_seeds_hold_the_properties() {
    assert!(replay("json_graph", json::check_json_graph) > 1000);
}

#[test]
fn dtype_seeds_hold_the_properties() {
    assert!(replay("dtype", dtype::check_dtype) > 100);
}
