//! Conformance test: structural equality, hashing and traversal on both runtimes. One C program
//! (`tests/c/structural.c`), compiled once against Apache's headers and linked with `-ltvm_ffi`
//! (no rpath), defines reflected types through the C API, loads the wheel's testing library for
//! its visit fixtures, and calls `ffi.StructuralHash`, `ffi.StructuralEqual`,
//! `ffi.GetFirstStructuralMismatch`, `ffi.StructuralKey*`, `ffi.StructuralWalk/Visit` and
//! `ffi.VisitErrorContext.FindAccessPaths`. Its transcript prints hash values, mismatch paths
//! and traversal orders; both runs must pass and print the same transcript (so the structural
//! hashes of the same objects are equal on both runtimes), and a valgrind run on ours must be
//! clean.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use ffihub_tests::valgrind;
use ffihub_tests::{
    apache_runtime, apache_testing_lib, assert_checks_passed, assert_same_transcripts, built_once,
    command_on, ffihub_runtime, run_with_timeout, workspace_root, Runtime,
};

const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// The program, built once per test process against Apache's headers.
fn binary() -> PathBuf {
    built_once(
        &apache_runtime(),
        "structural",
        "structural",
        &["tests/c/structural.c"],
        &["-ldl"],
    )
}

fn with_args(mut cmd: Command) -> Command {
    cmd.arg(apache_testing_lib())
        .env_remove("TVM_FFI_REPR_WITH_ADDR");
    cmd
}

fn run(runtime: &Runtime) -> Output {
    run_with_timeout(with_args(command_on(runtime, &binary())), RUN_TIMEOUT)
}

fn assert_passed(runtime: &Runtime, out: &Output) {
    let what = format!("the structural checks on the {} runtime", runtime.name);
    assert_checks_passed(&what, out);
}

#[test]
fn structural_transcripts_match() {
    let (apache, ours) = (apache_runtime(), ffihub_runtime());
    let (apache_out, ours_out) = (run(&apache), run(&ours));
    assert_same_transcripts(
        "the structural transcripts",
        (&apache, &apache_out),
        (&ours, &ours_out),
    );
    assert_passed(&apache, &apache_out);
    assert_passed(&ours, &ours_out);
    // The transcript really carries hash values (the cross-runtime hash check).
    let text = String::from_utf8_lossy(&ours_out.stdout);
    let hashes = text.lines().filter(|l| l.contains("hash=")).count();
    assert!(hashes >= 25, "only {hashes} hash lines in the transcript");
}

#[test]
fn valgrind_structural_on_ffihub() {
    // Loading the testing library triggers the same ld.so false positives as the testing-library
    // host, which its suppression file explains.
    let suppressions = format!(
        "--suppressions={}",
        workspace_root()
            .join("tests/conformance/testing_lib.supp")
            .display()
    );
    let cmd = valgrind::command_on(&ffihub_runtime(), &binary(), &[&suppressions]);
    valgrind::assert_checks_clean(
        "the structural checks on ffihub's runtime",
        with_args(cmd),
        valgrind::TIMEOUT,
    );
}
