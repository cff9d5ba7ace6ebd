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
//!
//! A second test shares an enum class between the two `ffi.Enum` schemas (0.1.12's and 0.1.13+'s)
//! in one process: `enum_schemas.py`.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use ffihub_tests::{
    apache_release, compile_cxx, ffihub_runtime_checked, run_with_timeout, scratch_dir,
    workspace_root,
};

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

/// Makes `venv`'s `tvm_ffi/lib/libtvm_ffi.so` a link to `library` (replaced atomically, as
/// `run.py` does before its runs).
fn point_library(venv: &Path, library: &Path) {
    let lib_dir = venv.join("lib/python3.11/site-packages/tvm_ffi/lib");
    let tmp = lib_dir.join("libtvm_ffi.so.enum_schemas");
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(library, &tmp).expect("link ffihub's library into the venv");
    std::fs::rename(&tmp, lib_dir.join("libtvm_ffi.so")).expect("replace the venv's library");
}

/// An enum class defined by C++ code of one `ffi.Enum` schema and bound by the Python package
/// of the other, in both directions, on ffihub's runtime (`enum_schemas.py`, ADR 0013): the
/// Python class sees the C++ entries and attributes, and the C++ lookup sees an entry Python
/// added. Warnings are errors: each package sees exactly the field names it declares.
#[test]
fn enum_classes_are_shared_across_the_two_schemas() {
    let root = workspace_root();
    let deps = root.join(".deps/pysuites");
    let library = ffihub_runtime_checked()
        .lib_dir
        .join("libtvm_ffi.so")
        .canonicalize()
        .expect("ffihub's libtvm_ffi.so");
    let out = scratch_dir("enum_schemas");
    // (headers the C++ library is built with, Python package that binds it)
    for (cxx, python) in [("0.1.12", "0.1.15.post2"), ("0.1.15.post2", "0.1.12")] {
        let headers = apache_release(cxx).runtime();
        let enum_lib = out.join(format!("enum_lib-{cxx}.so"));
        let lib_dir = format!("-L{}", headers.lib_dir.display());
        compile_cxx(
            &[root.join("tests/c/enum_lib.cc")],
            &headers.include_dir,
            &enum_lib,
            &[
                "-shared",
                "-fPIC",
                "-Wno-unused-parameter",
                &lib_dir,
                "-ltvm_ffi",
            ],
        );
        let venv = deps.join(python).join("venv-ffihub");
        point_library(&venv, &library);
        let mut cmd = Command::new(venv.join("bin/python"));
        cmd.args(["-W", "error"])
            .arg(root.join("tests/pysuite/enum_schemas.py"))
            .arg(&enum_lib);
        let output = run_with_timeout(cmd, Duration::from_secs(120));
        let stdout = String::from_utf8_lossy(&output.stdout);
        print!("{stdout}");
        assert!(
            output.status.success() && stdout.contains("ok the library's lookup of Gamma"),
            "tvm_ffi {python} binding an enum of {cxx}'s headers: {}\n{stdout}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
