//! Runs the Julia test suite of the TVMFFI support package (tests/julia/runtests.jl) on ffihub's
//! runtime and on Apache's, through the `scripts/julia` wrapper that `scripts/setup-julia.sh`
//! installs. Both runs load Apache's `libtvm_ffi_testing.so` and compile a small C kernel.
//!
//! The runtime is selected with `TVM_FFI_LIB` (the package) and `LD_LIBRARY_PATH` (for libraries
//! that carry `DT_NEEDED libtvm_ffi.so`, see ADR 0001). The two runs are serialized: both
//! precompile the same Julia package into the same depot.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use ffihub_tests::{
    apache_runtime, apache_testing_lib, ffihub_runtime_checked, run_with_timeout, workspace_root,
    Runtime,
};

/// The whole suite takes a few minutes (a 1,000,000-call GC stress test included).
const SUITE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

static SERIAL: Mutex<()> = Mutex::new(());

/// The Julia wrapper, checked to run; fails with the setup command otherwise.
fn julia() -> PathBuf {
    let wrapper = workspace_root().join("scripts/julia");
    let ok = Command::new(&wrapper)
        .args(["--startup-file=no", "-e", "nothing"])
        .output()
        .map(|out| out.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "Julia is not set up: `{}` cannot run Julia. Run scripts/setup-julia.sh (as root; \
         scripts/test.sh does) to install Julia 1.5.3 and its libunwind into .deps/",
        wrapper.display()
    );
    wrapper
}

/// `julia: N passed, N failed, N skipped`, the last line the suite prints.
fn counts_line(stdout: &str) -> Option<&str> {
    stdout.lines().rev().find(|l| l.starts_with("julia: "))
}

fn run_suite(runtime: &Runtime) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let root = workspace_root();
    let mut cmd = Command::new(julia());
    cmd.current_dir(&root)
        .arg("--startup-file=no")
        .arg(format!(
            "--project={}",
            root.join("bindings/julia/TVMFFI").display()
        ))
        .arg(root.join("tests/julia/runtests.jl"))
        .env("TVM_FFI_LIB", runtime.lib_dir.join("libtvm_ffi.so"))
        .env("LD_LIBRARY_PATH", &runtime.lib_dir)
        .env("TVM_FFI_TESTING_LIB", apache_testing_lib())
        .env_remove("TVM_FFI_LIB_DIR")
        .env_remove("TVM_FFI_REPR_WITH_ADDR");
    let out = run_with_timeout(cmd, SUITE_TIMEOUT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let counts = counts_line(&stdout).unwrap_or("julia: no test counts printed");
    // Straight to stderr (not eprintln!, which the test harness captures): the counts are shown
    // even when the test passes.
    let _ = writeln!(
        std::io::stderr(),
        "Julia suite on {}: {}",
        runtime.name,
        counts.trim_start_matches("julia: ")
    );
    assert!(
        out.status.success() && counts.contains(" 0 failed"),
        "the Julia suite failed on {}'s runtime ({}):\n--- stdout\n{}\n--- stderr\n{}",
        runtime.name,
        out.status,
        stdout,
        stderr
    );
}

#[test]
fn julia_suite_on_ffihub_runtime() {
    run_suite(&ffihub_runtime_checked());
}

#[test]
fn julia_suite_on_apache_runtime() {
    run_suite(&apache_runtime());
}
