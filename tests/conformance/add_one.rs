//! Conformance test 2: the seeds' `add_one_c` example (`examples/add_one_c/add_one_c.c`, kept
//! verbatim) compiled into a shared library, loaded by a C host (`tests/c/add_one_host.c`)
//! linked with `-ltvm_ffi`, wrapped with `TVMFFIFunctionCreate` and called through
//! `TVMFFIFunctionCall` on float32 tensors and on a non-tensor argument.

use std::path::{Path, PathBuf};

use ffihub_tests::{
    apache_runtime, built_once, command_on, compile_c, ffihub_runtime, run_ok, scratch_dir,
    workspace_root, Runtime,
};

/// The example is built exactly as it is published. It has an unused local (`stream`) and
/// unused parameters, which the harness's `-Wall -Wextra -Werror` would reject, so only those
/// two warnings are switched off; the source itself is never touched.
fn build_example(include_dir: &Path, dir: &Path) -> PathBuf {
    let library = dir.join("add_one_c.so");
    compile_c(
        &[workspace_root().join("examples/add_one_c/add_one_c.c")],
        include_dir,
        &library,
        &[
            "-fPIC",
            "-shared",
            "-Wno-unused-variable",
            "-Wno-unused-parameter",
        ],
    );
    library
}

fn build_host(runtime: &Runtime) -> PathBuf {
    let dir = format!("add_one_host/{}", runtime.name);
    built_once(
        runtime,
        &dir,
        "add_one_host",
        &["tests/c/add_one_host.c"],
        &["-ldl"],
    )
}

/// Runs the host with `run_on`'s `libtvm_ffi.so` and checks that every check passed.
fn run_host(run_on: &Runtime, host: &Path, library: &Path) {
    let mut cmd = command_on(run_on, host);
    cmd.arg(library);
    let out = run_ok(cmd);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().any(|l| l == "PASSED: 0 check(s) failed"),
        "add_one_host on {} did not report success:\n{stdout}",
        run_on.name
    );
    for needle in [
        "add_one on DLTensor* args: rc=0",
        "raised error: type_index=67 kind=ValueError",
    ] {
        assert!(
            stdout.contains(needle),
            "add_one_host output on {} lacks {needle:?}:\n{stdout}",
            run_on.name
        );
    }
}

#[test]
fn add_one_c_on_apache() {
    let apache = apache_runtime();
    let dir = scratch_dir("add_one_apache");
    let library = build_example(&apache.include_dir, &dir);
    let host = build_host(&apache);
    run_host(&apache, &host, &library);
}

#[test]
fn add_one_c_on_ffihub() {
    let ours = ffihub_runtime();
    // 1. Example and host built against ffihub's headers and linked with ffihub's runtime:
    //    the example must compile unmodified against our headers.
    let dir = scratch_dir("add_one_ffihub");
    let library = build_example(&ours.include_dir, &dir);
    let host = build_host(&ours);
    run_host(&ours, &host, &library);

    // 2. Drop-in: both built against Apache's headers (and linked with Apache's runtime), then
    //    run with ffihub's libtvm_ffi.so on the library path.
    let apache = apache_runtime();
    let dir = scratch_dir("add_one_apache_built_on_ffihub");
    let library = build_example(&apache.include_dir, &dir);
    let host = build_host(&apache);
    run_host(&ours, &host, &library);
}
