//! Shared helpers of the bindgen tests.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `bindgen/tests/fixtures/<name>`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The cargo target directory.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if Path::new(&d).is_absolute() => PathBuf::from(d),
        Some(d) => workspace().join(d),
        None => workspace().join("target"),
    }
}

/// A fresh scratch folder.
pub fn scratch(name: &str) -> PathBuf {
    let dir = target_dir().join("ffihub-bindgen-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// ffihub's runtime (release build).
pub fn our_runtime() -> PathBuf {
    let dir = std::env::var_os("FFIHUB_LIB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("release"));
    let lib = dir.join("libtvm_ffi.so");
    assert!(
        lib.is_file(),
        "{} is missing: build it first with `cargo build --release -p ffihub-runtime`",
        lib.display()
    );
    lib
}

/// Root of the unpacked Apache wheel.
pub fn apache_root() -> PathBuf {
    let root = std::env::var_os("APACHE_TVM_FFI_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join(".deps/apache-tvm-ffi/tvm_ffi"));
    assert!(
        root.join("lib/libtvm_ffi.so").is_file(),
        "the Apache TVM-FFI wheel is not installed at {}: run scripts/setup-apache.sh",
        root.display()
    );
    root
}

/// Runs the `ffihub` binary.
pub fn ffihub(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ffihub"))
        .args(args)
        .env_remove("TVM_FFI_LIB")
        .env_remove("TVM_FFI_LIB_DIR")
        .output()
        .expect("run ffihub")
}

/// Runs `ffihub` and returns its standard output, failing with stderr if it failed.
pub fn ffihub_ok(args: &[&str]) -> String {
    let out = ffihub(args);
    assert!(
        out.status.success(),
        "ffihub {args:?} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Validates a document (JSON value) against schema/reflection.schema.json.
pub fn schema_errors(doc: &serde_json::Value) -> Vec<String> {
    let schema: serde_json::Value = serde_json::from_str(ffihub_schema::JSON_SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Whether `name --version` runs: a check whose tool is not installed is left out.
pub fn tool(name: &str) -> bool {
    Command::new(name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `g++ -fsyntax-only`, warnings as errors, of `main`, written here to include each of
/// `headers`, against the real C++ support library (bindings/cpp/include) and our C header.
pub fn cpp_syntax_check(main: &Path, headers: &[PathBuf]) -> Command {
    let includes: String = headers
        .iter()
        .map(|h| format!("#include \"{}\"\n", h.display()))
        .collect();
    std::fs::write(main, includes).unwrap();
    let mut cmd = Command::new("g++");
    cmd.args([
        "-std=c++17",
        "-fsyntax-only",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
    ])
    .arg("-I")
    .arg(workspace().join("bindings/cpp/include"))
    .arg("-I")
    .arg(workspace().join("runtime/include"))
    .arg(main);
    cmd
}
