//! Conformance test 4: hosting Apache's `libtvm_ffi_testing.so`. One C program
//! (`tests/c/testing_lib/`, a file per area), compiled once against Apache's headers and linked
//! with `-ltvm_ffi` (no rpath), dlopens the wheel's testing library and drives it through the C API:
//! its `testing.*` global functions, its object types (type info, `__ffi_init__` with keyword
//! arguments, getters, setters, methods), containers built on either side, tensors, callbacks,
//! errors, the library as a DSO module and as a system library, and `ffi.ReprPrint`. The
//! testing library's `DT_NEEDED libtvm_ffi.so` binds to whichever runtime the library path
//! selects, so the same binary runs on Apache's runtime and on ours. Both runs must pass and
//! print the same transcript, and a valgrind run on ours must be clean.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use ffihub_tests::valgrind::{self, parse_summary};
use ffihub_tests::{
    apache_runtime, apache_testing_lib, assert_checks_passed, assert_same_transcripts, built_once,
    command_on, ffihub_runtime, run_with_timeout, workspace_root, Runtime,
};

use crate::valgrind::assert_parses_leaky_summary;

/// How long one plain run may take (it sleeps one second in `testing.run_check_signal`).
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// The host binary, built once per test process against Apache's headers.
fn host_binary() -> PathBuf {
    let sources = crate::c_sources("testing_lib");
    built_once(
        &apache_runtime(),
        "testing_lib",
        "testing_lib",
        &sources,
        &["-ldl"],
    )
}

/// The host's arguments and environment on top of `cmd` (which runs the host binary, directly
/// or under valgrind): the testing library's path as the only argument, and no variable that
/// changes `ffi.ReprPrint`.
fn host_args(mut cmd: Command) -> Command {
    cmd.arg(apache_testing_lib())
        .env_remove("TVM_FFI_REPR_WITH_ADDR");
    cmd
}

/// Fails the test with the failed checks and stderr unless the run passed.
fn assert_passed(runtime: &Runtime, out: &Output) {
    let what = format!(
        "hosting libtvm_ffi_testing.so on the {} runtime ({})",
        runtime.name,
        runtime.lib_dir.display()
    );
    assert_checks_passed(&what, out);
}

fn run_host(runtime: &Runtime) -> Output {
    run_with_timeout(host_args(command_on(runtime, &host_binary())), RUN_TIMEOUT)
}

#[test]
fn testing_lib_on_apache() {
    let apache = apache_runtime();
    assert_passed(&apache, &run_host(&apache));
}

#[test]
fn testing_lib_on_ffihub() {
    let ours = ffihub_runtime();
    assert_passed(&ours, &run_host(&ours));
}

#[test]
fn testing_lib_transcripts_match() {
    let (apache, ours) = (apache_runtime(), ffihub_runtime());
    let (apache_out, ours_out) = (run_host(&apache), run_host(&ours));
    // The diff comes first: it is the most useful report even when a run failed.
    assert_same_transcripts(
        "the testing-library transcripts",
        (&apache, &apache_out),
        (&ours, &ours_out),
    );
    assert_passed(&apache, &apache_out);
    assert_passed(&ours, &ours_out);
}

/// The checked-in suppressions (each one explained in the file).
fn suppression_file() -> PathBuf {
    workspace_root().join("tests/conformance/testing_lib.supp")
}

#[test]
fn valgrind_testing_lib_on_ffihub() {
    // the runtime under test is chosen by the library path, as in a plain run (valgrind slows
    // the program down a lot: about 5 s on an idle machine)
    let suppressions = format!("--suppressions={}", suppression_file().display());
    let cmd = valgrind::command_on(&ffihub_runtime(), &host_binary(), &[&suppressions]);
    let what = "the testing-library host on ffihub's runtime";
    valgrind::assert_checks_clean(what, host_args(cmd), valgrind::TIMEOUT);
}

#[test]
fn testing_lib_summary_parsing() {
    // the suppressions show up in the ERROR SUMMARY line
    assert_parses_leaky_summary("4 from 4");
    assert!(parse_summary("nothing here").is_err());
}
