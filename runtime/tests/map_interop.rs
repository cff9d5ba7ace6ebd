//! Map/Dict interoperability with Apache's header-only C++ containers: `tests/c/map_interop.cc`
//! is compiled once with g++ against the Apache wheel's headers and linked with `-ltvm_ffi` (no
//! rpath), then run on Apache's `libtvm_ffi.so` and on ffihub's release build (library path
//! swapped). On each runtime, maps built by inline C++ code go through the runtime's globals and
//! maps built by the runtime go through inline C++ code, with byte-identical table layouts.
//!
//! Needs `cargo build --release -p ffihub-runtime` first, the Apache wheel
//! (`scripts/setup-apache.sh`, or `APACHE_TVM_FFI_DIR`), and g++. `FFIHUB_LIB_DIR` selects
//! another folder holding ffihub's `libtvm_ffi.so`.

use std::path::PathBuf;
use std::time::Duration;

use ffihub_tests::{
    apache_runtime, built_once, command_on, ffihub_runtime_checked, run_with_timeout, valgrind,
    Runtime,
};

/// The interop program, built once per test process.
fn program() -> PathBuf {
    let sources = ["tests/c/map_interop.cc"];
    built_once(
        &apache_runtime(),
        "map_interop",
        "map_interop",
        &sources,
        &[],
    )
}

/// Runs the program on `runtime`, failing the test unless it passed.
fn run_on(runtime: &Runtime) {
    let out = run_with_timeout(command_on(runtime, &program()), Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("map_interop: OK"),
        "map_interop failed on {}'s runtime ({}):\n--- stdout\n{stdout}\n--- stderr\n{}",
        runtime.name,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn map_interop_on_apache_runtime() {
    run_on(&apache_runtime());
}

#[test]
fn map_interop_on_ffihub_runtime() {
    run_on(&ffihub_runtime_checked());
}

/// The same program under valgrind on ffihub's runtime: no memory error, no leak (about 8 s).
#[test]
fn map_interop_under_valgrind() {
    let cmd = valgrind::command_on(&ffihub_runtime_checked(), &program(), &[]);
    let out = run_with_timeout(cmd, valgrind::TIMEOUT);
    let passed = String::from_utf8_lossy(&out.stdout).contains("map_interop: OK");
    valgrind::assert_clean("map_interop on ffihub's runtime", &out, passed);
}
