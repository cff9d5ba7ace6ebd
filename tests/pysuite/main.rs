//! The own Python test suites of apache-tvm-ffi releases (the `tests/python` folder of each
//! release's sdist, with the release's Python package), each run on the release's own Apache
//! library and on ffihub's side by side: `tests/pysuite/run.py` does the work and prints, per
//! release, both outcome counts and the pass ratio; every test that passes on Apache's library
//! must pass on ours unless `known_failures/<version>.txt` lists it with its reason, and no listed
//! test may pass (the lists stay honest).
//!
//! The releases are those of `tests/pysuite/releases.txt`; `scripts/setup-pysuite.sh` prepares
//! their suites and venvs under `.deps/pysuites`. `PYSUITE_RELEASES` (space-separated versions)
//! picks some of them; `PYSUITE_PYTEST_ARGS` passes extra pytest arguments to every run (e.g.
//! `-k test_object`).

use std::process::Command;

use ffihub_tests::{ffihub_runtime_checked, scratch_dir, workspace_root};

#[test]
fn release_python_suites_pass_on_ffihub() {
    let root = workspace_root();
    let deps = root.join(".deps/pysuites");
    assert!(
        deps.join("site/.installed").exists(),
        "the releases' Python test suites are not prepared in {}: run scripts/setup-pysuite.sh",
        deps.display()
    );
    let library = ffihub_runtime_checked().lib_dir.join("libtvm_ffi.so");
    let out = scratch_dir("pysuite");
    let mut command = Command::new("python3");
    command
        .arg(root.join("tests/pysuite/run.py"))
        .arg("--deps")
        .arg(&deps)
        .arg("--ffihub-lib")
        .arg(&library)
        .arg("--out")
        .arg(&out);
    for release in std::env::var("PYSUITE_RELEASES")
        .unwrap_or_default()
        .split_whitespace()
    {
        command.arg("--release").arg(release);
    }
    // The summary goes straight to the terminal, so the ratios show even when the test passes.
    let status = command.status().expect("run tests/pysuite/run.py");
    assert!(
        status.success(),
        "the releases' Python suites on ffihub's runtime: {status} (the FAIL lines above; logs in {})",
        out.display()
    );
}
