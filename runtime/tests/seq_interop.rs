//! Interoperability with Apache's header-only C++ containers: `tests/c/seq_interop.cc` (g++
//! -std=c++17 against Apache's headers, linked with -ltvm_ffi) builds Arrays, Lists, Shapes,
//! Maps and Dicts inline and hands them to the runtime's globals, and reads and mutates the
//! runtime's containers inline (copy-on-write of a shared Array, List buffers grown by each side
//! in turn). It must pass on ffihub's release `libtvm_ffi.so` and on Apache's, with identical
//! transcripts, and run clean under valgrind on ffihub's.

mod seq_common;

use seq_common::*;
use std::path::PathBuf;

fn interop_binary(name: &str) -> PathBuf {
    let dir = scratch_dir(name);
    let binary = dir.join("seq_interop");
    compile(&workspace_root().join("tests/c/seq_interop.cc"), &binary);
    binary
}

fn run_passing(lib: &std::path::Path, binary: &std::path::Path) -> String {
    let out = run_on(lib, binary, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "seq_interop failed on {} with {}:\n{}\n{}",
        lib.display(),
        out.status,
        stdout
            .lines()
            .filter(|l| !l.starts_with("ok "))
            .collect::<Vec<_>>()
            .join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn cxx_containers_interoperate_like_on_apache() {
    let ours = ffihub_lib_dir();
    let binary = interop_binary("seq_interop");
    let apache = run_passing(&apache_lib_dir(), &binary);
    let ffihub = run_passing(&ours, &binary);
    assert!(
        apache == ffihub,
        "transcripts differ:\n{}",
        first_differences(&apache, &ffihub, 10)
    );
}

#[test]
fn cxx_interop_is_clean_under_valgrind_on_ffihub() {
    ffihub_tests::valgrind::require();
    let binary = interop_binary("seq_interop_valgrind");
    let mut wrapper = vec!["valgrind"];
    wrapper.extend_from_slice(&ffihub_tests::valgrind::OPTIONS);
    let out = run_on(&ffihub_lib_dir(), &binary, &wrapper);
    ffihub_tests::valgrind::assert_clean("seq_interop on ffihub", &out, out.status.success());
}
