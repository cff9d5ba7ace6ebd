//! Apache TVM-FFI's own Python test suite (the `tests/python` folder of the pinned sdist, with
//! the wheel's Python package) run on Apache's runtime and on ffihub's side by side:
//! `tests/pysuite/run.py` does the work and prints both outcome counts and the pass ratio; every
//! test that passes on Apache's runtime must pass on ours unless `known_failures.txt` lists it
//! with its reason, and no listed test may pass (the list stays honest).
//!
//! `scripts/setup-pysuite.sh` prepares the suite and its venvs under `.deps/pysuite`.
//! `PYSUITE_PYTEST_ARGS` passes extra pytest arguments to both runs (e.g. `-k test_object`).

use std::process::Command;

use ffihub_tests::{ffihub_runtime_checked, scratch_dir, workspace_root};

#[test]
fn apache_python_suite_passes_on_ffihub() {
    let root = workspace_root();
    let deps = root.join(".deps/pysuite");
    let python = deps.join("venv-apache/bin/python");
    assert!(
        deps.join(".installed").exists() && python.exists(),
        "Apache's Python test suite is not prepared in {}: run scripts/setup-pysuite.sh",
        deps.display()
    );
    let library = ffihub_runtime_checked().lib_dir.join("libtvm_ffi.so");
    let out = scratch_dir("pysuite");
    // The summary goes straight to the terminal, so the ratio shows even when the test passes.
    let status = Command::new(&python)
        .arg(root.join("tests/pysuite/run.py"))
        .arg("--deps")
        .arg(&deps)
        .arg("--ffihub-lib")
        .arg(&library)
        .arg("--out")
        .arg(&out)
        .status()
        .expect("run tests/pysuite/run.py");
    assert!(
        status.success(),
        "Apache's Python suite on ffihub's runtime: {status} (the FAIL lines above; logs in {})",
        out.display()
    );
}
