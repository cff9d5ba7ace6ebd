//! Helpers of the sequence tests that run C/C++ programs against both runtimes: where the
//! libraries and headers are, compiling, running with a chosen `libtvm_ffi.so`.
//!
//! (The runtime crate does not depend on `ffihub-tests`, so this is a small private copy of the
//! parts of its harness these tests need, with the same environment variables.)
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("runtime/ has a parent")
        .to_path_buf()
}

/// The cargo target directory (honours `CARGO_TARGET_DIR`).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if Path::new(&dir).is_absolute() => PathBuf::from(dir),
        Some(dir) => workspace_root().join(dir),
        None => workspace_root().join("target"),
    }
}

/// A scratch folder for one test, emptied first.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = target_dir().join("ffihub-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// The folder of ffihub's release `libtvm_ffi.so` (`FFIHUB_LIB_DIR` overrides).
pub fn ffihub_lib_dir() -> PathBuf {
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

/// Warns when a runtime source file is newer than the library under test.
fn warn_if_stale(lib: &Path) {
    let built = std::fs::metadata(lib).and_then(|m| m.modified()).ok();
    let newest = newest_source(&workspace_root().join("runtime/src"));
    if let (Some(built), Some((when, path))) = (built, newest) {
        if when > built {
            eprintln!(
                "warning: {} is older than {} (rebuild with `cargo build --release -p ffihub-runtime`)",
                lib.display(),
                path.display()
            );
        }
    }
}

fn newest_source(dir: &Path) -> Option<(SystemTime, PathBuf)> {
    let mut newest: Option<(SystemTime, PathBuf)> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let candidate = if path.is_dir() {
            newest_source(&path)
        } else {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .map(|t| (t, path))
        };
        newest = match (newest, candidate) {
            (Some(n), Some(c)) => Some(if c.0 > n.0 { c } else { n }),
            (n, c) => n.or(c),
        };
    }
    newest
}

/// The unpacked Apache wheel's `tvm_ffi` folder (`APACHE_TVM_FFI_DIR` overrides).
pub fn apache_root() -> PathBuf {
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

/// Apache's headers (the programs are compiled against them, as extensions are).
pub fn apache_include() -> PathBuf {
    apache_root().join("include")
}

/// Apache's `libtvm_ffi.so` folder.
pub fn apache_lib_dir() -> PathBuf {
    apache_root().join("lib")
}

/// Compiles `source` (C11 with gcc for `.c`, C++17 with g++ otherwise) against Apache's headers,
/// linked with `-ltvm_ffi` from Apache's folder and no rpath: the library path picks the runtime
/// at run time.
pub fn compile(source: &Path, output: &Path) {
    let is_c = source.extension().is_some_and(|e| e == "c");
    let mut cmd = Command::new(if is_c { "gcc" } else { "g++" });
    cmd.arg(if is_c { "-std=c11" } else { "-std=c++17" })
        .args(["-Wall", "-Wextra", "-Werror", "-g", "-O1"])
        .arg("-I")
        .arg(apache_include())
        .arg(source)
        .arg("-o")
        .arg(output)
        .arg(format!("-L{}", apache_lib_dir().display()))
        .arg("-ltvm_ffi");
    let out = cmd.output().expect("run the compiler");
    assert!(
        out.status.success(),
        "compiling {} failed:\n{}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `program` with `lib_dir`'s `libtvm_ffi.so`, optionally under a wrapper (valgrind).
pub fn run_on(lib_dir: &Path, program: &Path, wrapper: &[&str]) -> Output {
    let mut cmd = match wrapper.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(program);
            c
        }
        None => Command::new(program),
    };
    cmd.env("LD_LIBRARY_PATH", lib_dir);
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()))
}

/// Lines that differ between two transcripts, for failure messages (at most `max` of them).
pub fn first_differences(expected: &str, actual: &str, max: usize) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let mut out = Vec::new();
    for i in 0..e.len().max(a.len()) {
        let (x, y) = (e.get(i).copied(), a.get(i).copied());
        if x != y {
            out.push(format!(
                "line {}:\n  apache: {}\n  ffihub: {}",
                i + 1,
                x.unwrap_or("<none>"),
                y.unwrap_or("<none>")
            ));
            if out.len() == max {
                break;
            }
        }
    }
    out.join("\n")
}
