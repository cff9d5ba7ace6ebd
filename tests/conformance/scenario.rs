//! Conformance test 3: one C program (`tests/c/scenario.c`) that exercises every core function
//! of the C ABI, compiled once against Apache's headers and linked with `-ltvm_ffi` (no rpath),
//! run against Apache's runtime and against ours (library path swapped). Both runs must pass
//! and print the same transcript.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ffihub_tests::{
    apache_runtime, command_on, compile_c, ffihub_runtime, scratch_dir, workspace_root, Runtime,
};

/// How long one plain run of the scenario may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// The scenario binary, built once per test process against Apache's headers.
pub(crate) fn scenario_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let apache = apache_runtime();
        let dir = scratch_dir("scenario");
        let output = dir.join("scenario");
        let lib_dir = format!("-L{}", apache.lib_dir.display());
        compile_c(
            &[workspace_root().join("tests/c/scenario.c")],
            &apache.include_dir,
            &output,
            &[&lib_dir, "-ltvm_ffi", "-ldl", "-pthread"],
        );
        output
    })
}

/// Runs a command to completion, killing it after `timeout`.
pub(crate) fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Output {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(Stdio::null());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for child") {
            break status;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not finish within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_reader.join().expect("stdout reader"),
        stderr: err_reader.join().expect("stderr reader"),
    }
}

/// Runs the scenario against `runtime` (no assertion on the outcome).
fn run_scenario_raw(runtime: &Runtime) -> Output {
    run_with_timeout(command_on(runtime, scenario_binary()), RUN_TIMEOUT)
}

/// Fails the test with the failed checks and stderr unless the scenario passed.
fn assert_passed(runtime: &Runtime, out: &Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let passed = stdout.lines().any(|l| l == "PASSED: 0 check(s) failed");
    if !out.status.success() || !passed {
        let failed: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("ok ")).collect();
        panic!(
            "the scenario failed on the {} runtime ({}; status {}):\n{}\n--- stderr\n{}",
            runtime.name,
            runtime.lib_dir.display(),
            out.status,
            failed.join("\n"),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Runs the scenario against `runtime`, asserts that it passed and returns its transcript.
fn run_scenario(runtime: &Runtime) -> String {
    let out = run_scenario_raw(runtime);
    assert_passed(runtime, &out);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A readable line diff of two transcripts (longest common subsequence): lines only in `a`
/// are prefixed with `-`, lines only in `b` with `+`, each with its line number.
pub(crate) fn line_diff(a_name: &str, a: &str, b_name: &str, b: &str) -> String {
    let a: Vec<&str> = a.lines().collect();
    let b: Vec<&str> = b.lines().collect();
    // lcs[i][j] = length of the LCS of a[i..] and b[j..]
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = format!("--- {a_name}\n+++ {b_name}\n");
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push_str(&format!("-{:>4}: {}\n", i + 1, a[i]));
            i += 1;
        } else {
            out.push_str(&format!("+{:>4}: {}\n", j + 1, b[j]));
            j += 1;
        }
    }
    out
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
    let apache_text = String::from_utf8_lossy(&apache_out.stdout);
    let ours_text = String::from_utf8_lossy(&ours_out.stdout);
    // The diff comes first: it is the most useful report even when a run failed.
    if apache_text != ours_text {
        panic!(
            "the scenario transcripts differ between Apache's runtime and ffihub's \
             (apache: {}, ffihub: {}):\n{}",
            apache_out.status,
            ours_out.status,
            line_diff("apache", &apache_text, "ffihub", &ours_text)
        );
    }
    assert_passed(&apache, &apache_out);
    assert_passed(&ours, &ours_out);
}

#[test]
fn line_diff_marks_changed_lines() {
    let diff = line_diff("a", "x\ny\nz\n", "b", "x\nY\nz\nw\n");
    assert_eq!(diff, "--- a\n+++ b\n-   2: y\n+   2: Y\n+   4: w\n");
}
