//! The harness of the demo's integration tests: every test runs twice, in child processes of
//! the test binary itself, once with ffihub's `libtvm_ffi.so` and once with Apache's on the
//! library path (ADR 0001: the same binary, no rpath). The child loads the demo library through
//! the runtime (`ffi.ModuleLoadFromFile`) and calls it through the `ffihub` API.
#![allow(dead_code)] // each test file uses part of the harness

use ffihub::{Function, Module};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Set in child processes: which runtime they run on.
const RUNTIME_ENV: &str = "FFIHUB_DEMO_TEST_RUNTIME";

/// A runtime under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    Ffihub,
    Apache,
}

impl Runtime {
    fn name(self) -> &'static str {
        match self {
            Runtime::Ffihub => "ffihub",
            Runtime::Apache => "apache",
        }
    }
}

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("examples/demo is two levels below the workspace root")
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if Path::new(&dir).is_absolute() => PathBuf::from(dir),
        Some(dir) => workspace_root().join(dir),
        None => workspace_root().join("target"),
    }
}

/// The folder holding ffihub's `libtvm_ffi.so` (`FFIHUB_LIB_DIR`, else `TVM_FFI_LIB_DIR`, else
/// the workspace's `target/release`).
pub fn ffihub_lib_dir() -> PathBuf {
    let dir = std::env::var_os("FFIHUB_LIB_DIR")
        .or_else(|| std::env::var_os("TVM_FFI_LIB_DIR"))
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("release"));
    assert!(
        dir.join("libtvm_ffi.so").exists(),
        "{} is missing: build it first with `cargo build --release -p ffihub-runtime`",
        dir.join("libtvm_ffi.so").display()
    );
    dir
}

/// The root of Apache's wheel (`APACHE_TVM_FFI_DIR`, else `.deps/apache-tvm-ffi/tvm_ffi`).
pub fn apache_root() -> PathBuf {
    let root = std::env::var_os("APACHE_TVM_FFI_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(".deps/apache-tvm-ffi/tvm_ffi"));
    assert!(
        root.join("lib/libtvm_ffi.so").exists(),
        "Apache's TVM-FFI wheel is not installed at {}: run scripts/setup-apache.sh",
        root.display()
    );
    root
}

/// The folder holding `runtime`'s `libtvm_ffi.so`.
pub fn lib_dir(runtime: Runtime) -> PathBuf {
    match runtime {
        Runtime::Ffihub => ffihub_lib_dir(),
        Runtime::Apache => apache_root().join("lib"),
    }
}

/// The demo library built for this test run (cargo builds it next to the test binary).
pub fn demo_library() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("the test binary is in a folder");
    [
        deps.to_path_buf(),
        deps.parent().unwrap_or(deps).to_path_buf(),
    ]
    .into_iter()
    .map(|dir| dir.join("libffihub_demo.so"))
    .find(|path| path.exists())
    .unwrap_or_else(|| panic!("libffihub_demo.so not found next to {}", exe.display()))
}

/// The runtime this (child) process runs on, if it is a child.
pub fn current_runtime() -> Option<Runtime> {
    match std::env::var(RUNTIME_ENV).ok()?.as_str() {
        "ffihub" => Some(Runtime::Ffihub),
        "apache" => Some(Runtime::Apache),
        other => panic!("unknown {RUNTIME_ENV}={other}"),
    }
}

/// The demo module, loaded once per process through `ffi.ModuleLoadFromFile`.
pub fn demo() -> &'static Module {
    static DEMO: OnceLock<Module> = OnceLock::new();
    DEMO.get_or_init(|| Module::load(demo_library()).expect("load the demo library"))
}

/// The global function `name`.
pub fn global(name: &str) -> Function {
    demo();
    Function::global(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The runtime's live-object count (`ffihub.LiveObjectCount`, ffihub's runtime only).
pub fn runtime_live_objects() -> Option<i64> {
    Function::get_global("ffihub.LiveObjectCount")
        .expect("global lookup")
        .map(|f| f.call::<i64>(()).expect("ffihub.LiveObjectCount"))
}

/// The number of Rust objects alive in the demo library.
pub fn demo_live_objects() -> i64 {
    global("demo.live_object_count")
        .call::<i64>(())
        .expect("demo.live_object_count")
}

/// Runs `body` in a child process per runtime (or, in a child, runs it), failing with the
/// child's output if it fails. `test_name` is the test's path as the harness names it.
///
/// In the child, `body` runs twice: once to warm the caches (global lookups, registrations),
/// then once more between two leak counts: the runtime's live objects (ffihub's runtime only)
/// and the demo's live Rust objects must come back to where they were.
pub fn on_both_runtimes(test_name: &str, body: fn(Runtime)) {
    if let Some(runtime) = current_runtime() {
        let has_counter = runtime_live_objects().is_some();
        assert_eq!(
            has_counter,
            runtime == Runtime::Ffihub,
            "the process is not running on the {} runtime (check LD_LIBRARY_PATH)",
            runtime.name()
        );
        demo();
        body(runtime);
        let (objects, rust_objects) = (runtime_live_objects(), demo_live_objects());
        body(runtime);
        assert_eq!(
            demo_live_objects(),
            rust_objects,
            "Rust objects of the demo leaked"
        );
        assert_eq!(runtime_live_objects(), objects, "runtime objects leaked");
        return;
    }
    for runtime in [Runtime::Ffihub, Runtime::Apache] {
        let dir = lib_dir(runtime);
        let mut path = std::ffi::OsString::from(&dir);
        if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
            path.push(":");
            path.push(old);
        }
        let output = Command::new(std::env::current_exe().expect("test binary path"))
            .args([test_name, "--exact", "--nocapture", "--test-threads=1"])
            .env("LD_LIBRARY_PATH", path)
            .env(RUNTIME_ENV, runtime.name())
            .output()
            .expect("run the test binary");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("1 passed"),
            "{test_name} failed on the {} runtime ({}):\n--- stdout\n{stdout}\n--- stderr\n{}",
            runtime.name(),
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// Declares tests that run on both runtimes: `both_runtimes! { fn name(runtime) { ... } }`.
#[macro_export]
macro_rules! both_runtimes {
    ($(fn $name:ident($runtime:ident) $body:block)*) => {$(
        #[test]
        fn $name() {
            fn body($runtime: common::Runtime) {
                let _ = $runtime;
                $body
            }
            common::on_both_runtimes(stringify!($name), body);
        }
    )*};
}
