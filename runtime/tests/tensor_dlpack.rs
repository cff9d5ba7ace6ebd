//! Tensor/DLPack conformance against Apache's runtime: the C program `tests/c/tensor_dlpack.c`
//! (C11, compiled once against Apache's headers, linked with `-ltvm_ffi` and no rpath) runs with
//! Apache's `libtvm_ffi.so` and with ours (selected by `LD_LIBRARY_PATH`); both runs must pass
//! and print the same transcript. A valgrind run on our runtime must report no errors and no
//! definitely or indirectly lost bytes.
//!
//! Our library is the release build: `cargo build --release -p ffihub-runtime` first (or point
//! `FFIHUB_LIB_DIR` at another folder). Apache's wheel is found at `APACHE_TVM_FFI_DIR` or in
//! `.deps/apache-tvm-ffi/tvm_ffi` (installed by `scripts/setup-apache.sh`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

const BUILD_COMMAND: &str = "cargo build --release -p ffihub-runtime";
const PASSED: &str = "PASSED: 0 check(s) failed";
const RUN_TIMEOUT: Duration = Duration::from_secs(120);
const VALGRIND_TIMEOUT: Duration = Duration::from_secs(600);

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("runtime/ has a parent")
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from) {
        Some(dir) if dir.is_absolute() => dir,
        Some(dir) => workspace_root().join(dir),
        None => workspace_root().join("target"),
    }
}

/// The folder holding our `libtvm_ffi.so`; fails with the build command when it is missing.
fn ffihub_lib_dir() -> PathBuf {
    let dir = std::env::var_os("FFIHUB_LIB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("release"));
    let lib = dir.join("libtvm_ffi.so");
    assert!(
        lib.exists(),
        "{} is missing: build it first with `{BUILD_COMMAND}`",
        lib.display()
    );
    warn_if_stale(&lib);
    dir
}

/// A library older than the runtime's sources is probably stale: say so (not an error, since
/// sources may be touched without changing anything).
fn warn_if_stale(lib: &Path) {
    fn newest(dir: &Path) -> Option<SystemTime> {
        let mut latest = None;
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let path = entry.path();
            let time = if path.is_dir() {
                newest(&path)
            } else {
                entry.metadata().and_then(|m| m.modified()).ok()
            };
            latest = latest.max(time);
        }
        latest
    }
    let built = std::fs::metadata(lib).and_then(|m| m.modified()).ok();
    let sources = newest(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    if let (Some(built), Some(sources)) = (built, sources) {
        if sources > built {
            eprintln!(
                "warning: {} is older than runtime/src: rebuild it with `{BUILD_COMMAND}`",
                lib.display()
            );
        }
    }
}

/// Root of the unpacked Apache wheel (the `tvm_ffi` package folder).
fn apache_root() -> PathBuf {
    let root = std::env::var_os("APACHE_TVM_FFI_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(".deps/apache-tvm-ffi/tvm_ffi"));
    assert!(
        root.join("lib/libtvm_ffi.so").exists(),
        "the Apache TVM-FFI wheel is not installed at {}: run scripts/setup-apache.sh",
        root.display()
    );
    root
}

/// The test program, compiled once per test process against Apache's headers.
fn program() -> &'static Path {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let apache = apache_root();
        let dir = target_dir().join("ffihub-tests/runtime-tensor-dlpack");
        std::fs::create_dir_all(&dir).expect("create the build folder");
        let output = dir.join("tensor_dlpack");
        let out = Command::new("gcc")
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-O1"])
            .arg("-I")
            .arg(apache.join("include"))
            .arg(workspace_root().join("tests/c/tensor_dlpack.c"))
            .arg("-o")
            .arg(&output)
            .arg(format!("-L{}", apache.join("lib").display()))
            .args(["-ltvm_ffi", "-ldl"])
            .output()
            .expect("run gcc");
        assert!(
            out.status.success(),
            "gcc failed for tests/c/tensor_dlpack.c:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        output
    })
}

/// Runs a command to completion, killing it after `timeout`.
fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Output {
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
        if let Some(status) = child.try_wait().expect("wait for the child") {
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

/// Runs the program with the `libtvm_ffi.so` of `lib_dir`.
fn run_on(lib_dir: &Path) -> Output {
    let mut cmd = Command::new(program());
    cmd.env("LD_LIBRARY_PATH", lib_dir);
    run_with_timeout(cmd, RUN_TIMEOUT)
}

/// Fails with the failed checks and stderr unless the run passed; returns the transcript.
fn assert_passed(name: &str, out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() || !stdout.lines().any(|l| l == PASSED) {
        let failed: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("ok ")).collect();
        panic!(
            "tests/c/tensor_dlpack.c failed on {name}'s runtime (status {}):\n{}\n--- stderr\n{}",
            out.status,
            failed.join("\n"),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    stdout
}

/// The lines that differ between two transcripts (`-` only in a, `+` only in b), by line
/// number; transcripts have one line per check in a fixed order, so this is enough to read.
fn diff(a: &str, b: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let mut out = String::new();
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i), b.get(i));
        if x != y {
            if let Some(x) = x {
                out.push_str(&format!("-{:>4}: {x}\n", i + 1));
            }
            if let Some(y) = y {
                out.push_str(&format!("+{:>4}: {y}\n", i + 1));
            }
        }
    }
    out
}

#[test]
fn tensor_dlpack_passes_on_apache() {
    let out = run_on(&apache_root().join("lib"));
    assert_passed("Apache", &out);
}

#[test]
fn tensor_dlpack_passes_on_ffihub() {
    let out = run_on(&ffihub_lib_dir());
    assert_passed("ffihub", &out);
}

#[test]
fn tensor_dlpack_transcripts_match() {
    let apache = run_on(&apache_root().join("lib"));
    let ours = run_on(&ffihub_lib_dir());
    let (a, b) = (
        String::from_utf8_lossy(&apache.stdout),
        String::from_utf8_lossy(&ours.stdout),
    );
    assert!(
        a == b,
        "the transcripts differ (- apache, + ffihub):\n{}",
        diff(&a, &b)
    );
    assert_passed("Apache", &apache);
    assert_passed("ffihub", &ours);
}

/// `N` of "<label> N ..." on the last line containing `label` (`1,234` allowed).
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
fn tensor_dlpack_under_valgrind_on_ffihub() {
    let lib_dir = ffihub_lib_dir();
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => {}
        _ => panic!(
            "valgrind is not available: install it with `apt-get install -y valgrind` \
             (scripts/test.sh does)"
        ),
    }
    let mut cmd = Command::new("valgrind");
    cmd.args([
        "--error-exitcode=99",
        "--leak-check=full",
        "--errors-for-leak-kinds=definite,indirect",
    ])
    .arg(program())
    .env("LD_LIBRARY_PATH", &lib_dir);
    let out = run_with_timeout(cmd, VALGRIND_TIMEOUT);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let no_leaks = stderr.contains("All heap blocks were freed -- no leaks are possible");
    let count = |label: &str| number_after(&stderr, label).or(no_leaks.then_some(0));
    let summary = (
        number_after(&stderr, "ERROR SUMMARY:"),
        count("definitely lost:"),
        count("indirectly lost:"),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let passed = stdout.lines().any(|l| l == PASSED);
    assert!(
        passed && summary == (Some(0), Some(0), Some(0)),
        "valgrind run on ffihub's runtime: status {}, checks {}, (errors, definitely lost, \
         indirectly lost) = {summary:?}\n--- failed checks\n{}\n--- valgrind\n{stderr}",
        out.status,
        if passed { "passed" } else { "FAILED" },
        stdout
            .lines()
            .filter(|l| !l.starts_with("ok "))
            .collect::<Vec<_>>()
            .join("\n"),
    );
}
