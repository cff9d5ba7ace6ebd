//! Replays the checked-in seed corpus of the `containers` fuzz target (`runtime/fuzz/seeds/`)
//! through its property (`runtime/fuzz/checks/containers.rs`). Alone in this process, so the
//! live-object count the property checks sees only the scripts' objects.

#[path = "../fuzz/checks/containers.rs"]
mod containers;
#[path = "../fuzz/checks/replay.rs"]
mod replay;

#[test]
fn container_scripts_free_everything_and_fail_cleanly() {
    let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    assert!(replay::replay(&seeds, "containers", containers::check_containers) > 100);
}
