//! Map/Dict interoperability with Apache's header-only C++ containers: `tests/c/map_interop.cc`
//! is compiled once with g++ against the Apache wheel's headers and linked with `-ltvm_ffi` (no
//! rpath), then run on Apache's `libtvm_ffi.so` and on ffihub's release build (library path
//! swapped). On each runtime, maps built by inline C++ code go through the runtime's globals and
//! maps built by the runtime go through inline C++ code, with byte-identical table layouts.
//!
//! Needs `cargo build --release -p ffihub-runtime` first, the Apache wheel
//! (`scripts/setup-apache.sh`, or `APACHE_TVM_FFI_DIR`), and g++. `FFIHUB_LIB_DIR` selects
//! another folder holding ffihub's `libtvm_ffi.so`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("runtime/ has a parent")
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if Path::new(&dir).is_absolute() => PathBuf::from(dir),
        Some(dir) => workspace_root().join(dir),
        None => workspace_root().join("target"),
    }
}

fn apache_root() -> PathBuf {
    let root = std::env::var_os("APACHE_TVM_FFI_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(".deps/apache-tvm-ffi/tvm_ffi"));
    assert!(
        root.join("lib/libtvm_ffi.so").exists(),
        "the Apache TVM-FFI wheel is not installed at {}: run scripts/setup-apache.sh (or set APACHE_TVM_FFI_DIR)",
        root.display()
    );
    root
}

/// The folder holding ffihub's release `libtvm_ffi.so`.
fn ffihub_lib_dir() -> PathBuf {
    let dir = std::env::var_os("FFIHUB_LIB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("release"));
    let lib = dir.join("libtvm_ffi.so");
    assert!(
        lib.exists(),
        "{} is missing: build it first with `cargo build --release -p ffihub-runtime`",
        lib.display()
    );
    warn_if_stale(&lib);
    dir
}

/// Warns when a map source file is newer than the library under test.
fn warn_if_stale(lib: &Path) {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let Some(lib_time) = modified(lib) else {
        return;
    };
    let src = workspace_root().join("runtime/src");
    for file in ["containers/map.rs", "any_hash.rs", "builtins/maps.rs"] {
        if modified(&src.join(file)).is_some_and(|t| t > lib_time) {
            eprintln!(
                "warning: runtime/src/{file} is newer than {}: rebuild with `cargo build --release -p ffihub-runtime`",
                lib.display()
            );
        }
    }
}

/// The interop program, built once per test process.
fn program() -> &'static Path {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let apache = apache_root();
        let dir = target_dir().join("ffihub-tests").join("map_interop");
        std::fs::create_dir_all(&dir).expect("create the build folder");
        let output = dir.join("map_interop");
        let out = Command::new("g++")
            .args(["-std=c++17", "-g", "-O1", "-Wall", "-Wextra", "-Werror"])
            .arg("-I")
            .arg(apache.join("include"))
            .arg(workspace_root().join("tests/c/map_interop.cc"))
            .arg("-o")
            .arg(&output)
            .arg(format!("-L{}", apache.join("lib").display()))
            .arg("-ltvm_ffi")
            .output()
            .expect("run g++ (is it installed?)");
        assert!(
            out.status.success(),
            "g++ failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        output
    })
}

/// Runs `cmd`, killing it after `timeout`.
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
        if let Some(status) = child.try_wait().expect("wait for the program") {
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

fn run_on(runtime: &str, lib_dir: &Path, wrapper: &[&str], timeout: Duration) -> String {
    let mut cmd = match wrapper.split_first() {
        Some((tool, args)) => {
            let mut cmd = Command::new(tool);
            cmd.args(args).arg(program());
            cmd
        }
        None => Command::new(program()),
    };
    cmd.env("LD_LIBRARY_PATH", lib_dir);
    let out = run_with_timeout(cmd, timeout);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success() && stdout.contains("map_interop: OK"),
        "map_interop failed on {runtime}'s runtime ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    stderr
}

#[test]
fn map_interop_on_apache_runtime() {
    run_on(
        "Apache",
        &apache_root().join("lib"),
        &[],
        Duration::from_secs(120),
    );
}

#[test]
fn map_interop_on_ffihub_runtime() {
    run_on("ffihub", &ffihub_lib_dir(), &[], Duration::from_secs(120));
}

/// The same program under valgrind on ffihub's runtime: no memory error, no leak.
/// Slow; run with `cargo test -p ffihub-runtime --test map_interop -- --ignored`.
#[test]
#[ignore = "slow: runs the interop program under valgrind"]
fn map_interop_under_valgrind() {
    let available = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(available, "valgrind is not installed");
    let stderr = run_on(
        "ffihub (valgrind)",
        &ffihub_lib_dir(),
        &[
            "valgrind",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--error-exitcode=9",
        ],
        Duration::from_secs(900),
    );
    assert!(
        stderr.contains("ERROR SUMMARY: 0 errors"),
        "valgrind reported errors:\n{stderr}"
    );
}
