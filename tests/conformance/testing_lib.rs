//! Conformance test 4: hosting Apache's `libtvm_ffi_testing.so`. One C program
//! (`tests/c/testing_lib.c`), compiled once against Apache's headers and linked with
//! `-ltvm_ffi` (no rpath), dlopens the wheel's testing library and drives it through the C API:
//! its `testing.*` global functions, its object types (type info, `__ffi_init__` with keyword
//! arguments, getters, setters, methods), containers built on either side, tensors, callbacks,
//! errors, the library as a DSO module and as a system library, and `ffi.ReprPrint`. The
//! testing library's `DT_NEEDED libtvm_ffi.so` binds to whichever runtime the library path
//! selects, so the same binary runs on Apache's runtime and on ours. Both runs must pass and
//! print the same transcript, and a valgrind run on ours must be clean.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Duration;

use ffihub_tests::{
    apache_runtime, apache_testing_lib, command_on, compile_c, ffihub_runtime, scratch_dir,
    workspace_root, Runtime,
};

use crate::scenario::{line_diff, run_with_timeout};

/// How long one plain run may take (it sleeps one second in `testing.run_check_signal`).
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// valgrind slows the program down a lot (about 5 s on an idle machine).
const VALGRIND_TIMEOUT: Duration = Duration::from_secs(900);

/// The last line of a passing run.
const PASSED_LINE: &str = "PASSED: 0 check(s) failed";

/// The host binary, built once per test process against Apache's headers.
fn host_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let apache = apache_runtime();
        let dir = scratch_dir("testing_lib");
        let output = dir.join("testing_lib");
        let lib_dir = format!("-L{}", apache.lib_dir.display());
        compile_c(
            &[workspace_root().join("tests/c/testing_lib.c")],
            &apache.include_dir,
            &output,
            &[&lib_dir, "-ltvm_ffi", "-ldl"],
        );
        output
    })
}

/// The host command for `runtime`: the testing library's path as the only argument, the
/// runtime chosen by the library path, and no variable that changes `ffi.ReprPrint`.
fn host_command(runtime: &Runtime) -> Command {
    let mut cmd = command_on(runtime, host_binary());
    cmd.arg(apache_testing_lib())
        .env_remove("TVM_FFI_REPR_WITH_ADDR");
    cmd
}

/// Fails the test with the failed checks and stderr unless the run passed.
fn assert_passed(runtime: &Runtime, out: &Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let passed = stdout.lines().any(|l| l == PASSED_LINE);
    if !out.status.success() || !passed {
        let failed: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("ok ")).collect();
        panic!(
            "hosting libtvm_ffi_testing.so failed on the {} runtime ({}; status {}):\n{}\n--- stderr\n{}",
            runtime.name,
            runtime.lib_dir.display(),
            out.status,
            failed.join("\n"),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn run_host(runtime: &Runtime) -> Output {
    run_with_timeout(host_command(runtime), RUN_TIMEOUT)
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
    let apache_text = String::from_utf8_lossy(&apache_out.stdout);
    let ours_text = String::from_utf8_lossy(&ours_out.stdout);
    // The diff comes first: it is the most useful report even when a run failed.
    if apache_text != ours_text {
        panic!(
            "the testing-library transcripts differ between Apache's runtime and ffihub's \
             (apache: {}, ffihub: {}):\n{}",
            apache_out.status,
            ours_out.status,
            line_diff("apache", &apache_text, "ffihub", &ours_text)
        );
    }
    assert_passed(&apache, &apache_out);
    assert_passed(&ours, &ours_out);
}

/// The numbers of valgrind's final summary that the test asserts on.
#[derive(Debug, PartialEq, Eq)]
struct Summary {
    errors: u64,
    definitely_lost: u64,
    indirectly_lost: u64,
}

/// Parses `N` from "<label> N ..." on the last line containing `label` (`1,234` allowed).
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

/// Reads valgrind's ERROR SUMMARY and LEAK SUMMARY from its stderr.
fn parse_summary(stderr: &str) -> Result<Summary, String> {
    let errors = number_after(stderr, "ERROR SUMMARY:").ok_or("no ERROR SUMMARY line")?;
    let no_leaks = stderr.contains("All heap blocks were freed -- no leaks are possible");
    let lost = |label: &str| match number_after(stderr, label) {
        Some(n) => Ok(n),
        None if no_leaks => Ok(0),
        None => Err(format!("no `{label}` line in the leak summary")),
    };
    Ok(Summary {
        errors,
        definitely_lost: lost("definitely lost:")?,
        indirectly_lost: lost("indirectly lost:")?,
    })
}

/// The checked-in suppressions (each one explained in the file).
fn suppression_file() -> PathBuf {
    workspace_root().join("tests/conformance/testing_lib.supp")
}

#[test]
fn valgrind_testing_lib_on_ffihub() {
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "`valgrind --version` failed with {}: is valgrind installed correctly?",
            out.status
        ),
        Err(e) => panic!(
            "valgrind is not available ({e}); install it with `apt-get install -y valgrind` \
             (scripts/test.sh does this before running the tests)"
        ),
    }
    let ours = ffihub_runtime();
    let mut cmd = Command::new("valgrind");
    cmd.arg(format!("--suppressions={}", suppression_file().display()))
        .args([
            "--error-exitcode=99",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
        ])
        .arg(host_binary())
        .arg(apache_testing_lib())
        // the runtime under test is chosen by the library path, as in a plain run
        .env("LD_LIBRARY_PATH", &ours.lib_dir)
        .env_remove("TVM_FFI_REPR_WITH_ADDR");
    let out = run_with_timeout(cmd, VALGRIND_TIMEOUT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary = parse_summary(&stderr)
        .unwrap_or_else(|e| panic!("cannot read valgrind's summary ({e}):\n{stderr}"));
    let clean = summary
        == Summary {
            errors: 0,
            definitely_lost: 0,
            indirectly_lost: 0,
        };
    let passed = stdout.lines().any(|l| l == PASSED_LINE);
    if !(out.status.success() && clean && passed) {
        let report: String = if clean {
            let lines: Vec<&str> = stderr.lines().collect();
            lines[lines.len().saturating_sub(20)..].join("\n")
        } else {
            stderr.into_owned()
        };
        panic!(
            "valgrind run of the testing-library host on ffihub's runtime failed: status {}, \
             {summary:?}\n--- failed checks\n{}\n--- valgrind\n{report}",
            out.status,
            stdout
                .lines()
                .filter(|l| !l.starts_with("ok "))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn testing_lib_summary_parsing() {
    let leaky = "==1== ERROR SUMMARY: 3 errors from 2 contexts (suppressed: 4 from 4)\n\
                 ==1==    definitely lost: 1,024 bytes in 2 blocks\n\
                 ==1==    indirectly lost: 48 bytes in 1 blocks\n";
    assert_eq!(
        parse_summary(leaky),
        Ok(Summary {
            errors: 3,
            definitely_lost: 1024,
            indirectly_lost: 48
        })
    );
    assert!(parse_summary("nothing here").is_err());
}
