//! Replays the checked-in seed corpus of the schema crate's fuzz targets (`type_schema`, `dump`
//! in `runtime/fuzz/seeds/`) through their properties (`runtime/fuzz/checks/schema.rs`), so that
//! stable `cargo test` exercises them without nightly or libFuzzer.

#[path = "../../runtime/fuzz/checks/replay.rs"]
mod replay;
#[path = "../../runtime/fuzz/checks/schema.rs"]
mod schema;

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) -> usize {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/fuzz/seeds");
    replay::replay(&seeds, target, check)
}

#[test]
fn type_schema_seeds_hold_the_properties() {
    assert!(replay("type_schema", schema::check_type_schema) > 100);
}

#[test]
fn dump_seeds_hold_the_properties() {
    assert!(replay("dump", schema::check_dump) > 500);
}
