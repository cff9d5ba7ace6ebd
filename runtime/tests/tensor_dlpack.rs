//! Tensor/DLPack conformance against Apache's runtime: the C program `tests/c/tensor_dlpack.c`
//! (C11, compiled once against Apache's headers, linked with `-ltvm_ffi` and no rpath) runs with
//! Apache's `libtvm_ffi.so` and with ours (selected by `LD_LIBRARY_PATH`); both runs must pass
//! and print the same transcript. A valgrind run on our runtime must report no errors and no
//! definitely or indirectly lost bytes.
//!
//! Our library is the release build: `cargo build --release -p ffihub-runtime` first (or point
//! `FFIHUB_LIB_DIR` at another folder). Apache's wheel is found at `APACHE_TVM_FFI_DIR` or in
//! `.deps/apache-tvm-ffi/tvm_ffi` (installed by `scripts/setup-apache.sh`).

use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

use ffihub_tests::{
    apache_runtime, assert_checks_passed, assert_same_transcripts, built_once, command_on,
    ffihub_runtime_checked, run_with_timeout, valgrind, Runtime,
};

const RUN_TIMEOUT: Duration = Duration::from_secs(120);
const VALGRIND_TIMEOUT: Duration = Duration::from_secs(600);

/// The test program, compiled once per test process against Apache's headers.
fn program() -> PathBuf {
    let sources = ["tests/c/tensor_dlpack.c"];
    built_once(
        &apache_runtime(),
        "runtime-tensor-dlpack",
        "tensor_dlpack",
        &sources,
        &["-ldl"],
    )
}

/// Runs the program on `runtime`.
fn run_on(runtime: &Runtime) -> Output {
    run_with_timeout(command_on(runtime, &program()), RUN_TIMEOUT)
}

/// Fails with the failed checks and stderr unless the run passed; returns the transcript.
fn assert_passed(runtime: &Runtime, out: &Output) -> String {
    let what = format!("tests/c/tensor_dlpack.c on {}'s runtime", runtime.name);
    assert_checks_passed(&what, out)
}

#[test]
fn tensor_dlpack_passes_on_apache() {
    let apache = apache_runtime();
    assert_passed(&apache, &run_on(&apache));
}

#[test]
fn tensor_dlpack_passes_on_ffihub() {
    let ours = ffihub_runtime_checked();
    assert_passed(&ours, &run_on(&ours));
}

#[test]
fn tensor_dlpack_transcripts_match() {
    let (apache, ours) = (apache_runtime(), ffihub_runtime_checked());
    let (apache_out, ours_out) = (run_on(&apache), run_on(&ours));
    assert_same_transcripts(
        "the transcripts",
        (&apache, &apache_out),
        (&ours, &ours_out),
    );
    assert_passed(&apache, &apache_out);
    assert_passed(&ours, &ours_out);
}

#[test]
fn tensor_dlpack_under_valgrind_on_ffihub() {
    let cmd = valgrind::command_on(&ffihub_runtime_checked(), &program(), &[]);
    let what = "tests/c/tensor_dlpack.c on ffihub's runtime";
    valgrind::assert_checks_clean(what, cmd, VALGRIND_TIMEOUT);
}
