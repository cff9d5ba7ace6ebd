//! Interoperability with Apache's header-only C++ containers: `tests/c/seq_interop.cc` (g++
//! -std=c++17 against Apache's headers, linked with -ltvm_ffi) builds Arrays, Lists, Shapes,
//! Maps and Dicts inline and hands them to the runtime's globals, and reads and mutates the
//! runtime's containers inline (copy-on-write of a shared Array, List buffers grown by each side
//! in turn). It must pass on ffihub's release `libtvm_ffi.so` and on Apache's, with identical
//! transcripts, and run clean under valgrind on ffihub's.

mod seq_common;

use seq_common::*;
use std::path::PathBuf;
use std::process::Command;

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

/// Parses `N` from the last "<label> N" in valgrind's output.
fn number_after(text: &str, label: &str) -> Option<u64> {
    let line = text.lines().rev().find(|l| l.contains(label))?;
    let rest = &line[line.find(label)? + label.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .collect();
    digits.replace(',', "").parse().ok()
}

#[test]
fn cxx_interop_is_clean_under_valgrind_on_ffihub() {
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => {}
        _ => panic!(
            "valgrind is not available; install it with `apt-get install -y valgrind` \
             (scripts/test.sh does this before running the tests)"
        ),
    }
    let ours = ffihub_lib_dir();
    let binary = interop_binary("seq_interop_valgrind");
    let out = run_on(
        &ours,
        &binary,
        &[
            "valgrind",
            "--error-exitcode=99",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors = number_after(&stderr, "ERROR SUMMARY:");
    let no_leaks = stderr.contains("All heap blocks were freed -- no leaks are possible");
    let lost = |label| number_after(&stderr, label).or(no_leaks.then_some(0));
    assert!(
        out.status.success()
            && errors == Some(0)
            && lost("definitely lost:") == Some(0)
            && lost("indirectly lost:") == Some(0),
        "valgrind reported problems (status {}):\n{stderr}\n--- stdout\n{stdout}",
        out.status
    );
}
