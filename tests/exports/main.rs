//! Module exports end to end: tests/exports/run.sh (build examples/exports_cpp with and without
//! metadata and examples/add_one_c against Apache's headers, dump on both runtimes, generate,
//! call from C++, Node and Julia on both runtimes, and check that stale packages are refused).
//! Needs scripts/setup-apache.sh, scripts/setup-node.sh and scripts/setup-julia.sh
//! (scripts/test.sh runs them) and a built workspace.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn module_exports_dump_generate_and_call_on_both_runtimes() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = root.join("target/tests/exports");
    let status = Command::new(root.join("tests/exports/run.sh"))
        .arg(&out)
        .status()
        .expect("cannot run tests/exports/run.sh");
    assert!(status.success(), "tests/exports/run.sh failed ({status})");
}
