//! Conformance test 3: one C program (`tests/c/scenario/`, a file per area) that exercises every
//! core function of the C ABI, compiled once against Apache's headers and linked with `-ltvm_ffi`
//! (no rpath), run against Apache's runtime and against ours (library path swapped). Both runs must
//! pass and print the same transcript.

use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

use ffihub_tests::{
    apache_runtime, assert_checks_passed, assert_same_transcripts, built_once, command_on,
    ffihub_runtime, run_with_timeout, Runtime,
};

/// How long one plain run of the scenario may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// The scenario binary, built once per test process against Apache's headers.
pub(crate) fn scenario_binary() -> PathBuf {
    let (sources, args) = (crate::c_sources("scenario"), ["-ldl", "-pthread"]);
    built_once(&apache_runtime(), "scenario", "scenario", &sources, &args)
}

/// Runs the scenario against `runtime` (no assertion on the outcome).
fn run_scenario_raw(runtime: &Runtime) -> Output {
    run_with_timeout(command_on(runtime, &scenario_binary()), RUN_TIMEOUT)
}

/// Fails the test with the failed checks and stderr unless the scenario passed; returns its
/// transcript.
fn assert_passed(runtime: &Runtime, out: &Output) -> String {
    let what = format!(
        "the scenario on the {} runtime ({})",
        runtime.name,
        runtime.lib_dir.display()
    );
    assert_checks_passed(&what, out)
}

/// Runs the scenario against `runtime`, asserts that it passed and returns its transcript.
fn run_scenario(runtime: &Runtime) -> String {
    assert_passed(runtime, &run_scenario_raw(runtime))
}

#[test]
fn scenario_on_apache() {
    run_scenario(&apache_runtime());
}

#[test]
fn scenario_on_ffihub() {
    run_scenario(&ffihub_runtime());
}

#[test]
fn scenario_transcripts_match() {
    let (apache, ours) = (apache_runtime(), ffihub_runtime());
    let (apache_out, ours_out) = (run_scenario_raw(&apache), run_scenario_raw(&ours));
    // The diff comes first: it is the most useful report even when a run failed.
    assert_same_transcripts(
        "the scenario transcripts",
        (&apache, &apache_out),
        (&ours, &ours_out),
    );
    assert_passed(&apache, &apache_out);
    assert_passed(&ours, &ours_out);
}

#[test]
fn line_diff_marks_changed_lines() {
    let diff = ffihub_tests::transcript_diff("a", "x\ny\nz\n", "b", "x\nY\nz\nw\n", usize::MAX);
    assert_eq!(diff, "--- a\n+++ b\n-   2: y\n+   2: Y\n+   4: w\n");
}
