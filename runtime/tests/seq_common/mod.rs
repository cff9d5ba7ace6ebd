//! Helpers of the sequence tests that run C/C++ programs against both runtimes, on top of the
//! shared harness (`ffihub-tests`): the programs are compiled against Apache's headers and run
//! with a chosen `libtvm_ffi.so`.
#![allow(dead_code, unused_imports)] // each test uses a part of it

use ffihub_tests::{apache_runtime, command_in, compile_c, compile_cxx, transcript_diff};
use std::path::{Path, PathBuf};
use std::process::Output;

pub use ffihub_tests::{scratch_dir, workspace_root};

/// The folder of ffihub's release `libtvm_ffi.so` (`FFIHUB_LIB_DIR` overrides), with a warning
/// when it is older than the runtime's sources.
pub fn ffihub_lib_dir() -> PathBuf {
    ffihub_tests::ffihub_runtime_checked().lib_dir
}

/// Apache's `libtvm_ffi.so` folder.
pub fn apache_lib_dir() -> PathBuf {
    apache_runtime().lib_dir
}

/// Compiles `source` (C11 with gcc for `.c`, C++17 with g++ otherwise) against Apache's headers,
/// linked with `-ltvm_ffi` from Apache's folder and no rpath: the library path picks the runtime
/// at run time.
pub fn compile(source: &Path, output: &Path) {
    let apache = apache_runtime();
    let lib_dir = format!("-L{}", apache.lib_dir.display());
    let is_c = source.extension().is_some_and(|e| e == "c");
    let compile = if is_c { compile_c } else { compile_cxx };
    compile(
        &[source.to_path_buf()],
        &apache.include_dir,
        output,
        &[&lib_dir, "-ltvm_ffi"],
    );
}

/// Runs `program` with `lib_dir`'s `libtvm_ffi.so`, optionally under a wrapper (valgrind).
pub fn run_on(lib_dir: &Path, program: &Path, wrapper: &[&str]) -> Output {
    command_in(lib_dir, program, wrapper)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()))
}

/// The lines that differ between Apache's transcript and ffihub's, for failure messages (at
/// most `max` of them).
pub fn first_differences(expected: &str, actual: &str, max: usize) -> String {
    transcript_diff("apache", expected, "ffihub", actual, max)
}
