//! A kernel compiled by a real compiler, called by name from Julia, Node and C++ on both
//! runtimes: `build_vector_add.py` compiles a float32 vector add with Apache TVM (`tvm.compile`
//! and `export_library`, in the Apache-runtime venv of `scripts/setup-tvm.sh`) into a library with
//! no metadata; `vector_add.{jl,mjs,cpp}` load it with one call and run its `main` on arrays of
//! their own language, viewed as DLPack tensors without copying, and check the results. The
//! library is built once and shared by the six runs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use ffihub_tests::{
    apache_runtime, compile_cxx, ffihub_runtime_checked, julia_lock, run_ok_within, scratch_dir,
    workspace_root, Runtime,
};

/// Starting Julia and TVM take seconds; this only catches hangs.
const TIMEOUT: Duration = Duration::from_secs(300);

struct Built {
    kernel: PathBuf,
    cpp_program: PathBuf,
}

fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let root = workspace_root();
        let deps = root.join(".deps/apache-tvm");
        assert!(
            deps.join(".installed").exists(),
            "Apache TVM is not installed in {}: run scripts/setup-tvm.sh",
            deps.display()
        );
        let dir = scratch_dir("kernels");
        let mut build = Command::new(deps.join("venv-apache/bin/python"));
        build
            .arg(root.join("tests/kernels/build_vector_add.py"))
            .arg(&dir)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env_remove("LD_LIBRARY_PATH");
        succeed(build);
        let apache = apache_runtime();
        let cpp_program = dir.join("vector_add");
        compile_cxx(
            &[root.join("tests/kernels/vector_add.cpp")],
            &root.join("bindings/cpp/include"),
            &cpp_program,
            &[
                "-I",
                &root.join("runtime/include").display().to_string(),
                &format!("-L{}", apache.lib_dir.display()),
                "-ltvm_ffi",
            ],
        );
        Built {
            kernel: dir.join("vector_add.so"),
            cpp_program,
        }
    })
}

/// Runs `cmd`, failing the test with its output unless it succeeded; returns its stdout.
fn succeed(cmd: Command) -> String {
    String::from_utf8_lossy(&run_ok_within(cmd, TIMEOUT).stdout).into_owned()
}

fn on(runtime: &Runtime, program: impl AsRef<Path>) -> Command {
    let mut cmd = Command::new(program.as_ref());
    cmd.env("LD_LIBRARY_PATH", &runtime.lib_dir)
        .env("TVM_FFI_LIB", runtime.lib_dir.join("libtvm_ffi.so"));
    cmd
}

fn run_julia(runtime: &Runtime) {
    ffihub_tests::build_julia_shim();
    let _julia = julia_lock();
    let root = workspace_root();
    let mut cmd = on(runtime, root.join("scripts/julia"));
    cmd.arg("--startup-file=no")
        .arg(format!(
            "--project={}",
            root.join("bindings/julia/TVMFFI").display()
        ))
        .arg(root.join("tests/kernels/vector_add.jl"))
        .arg(&built().kernel);
    let out = succeed(cmd);
    assert!(out.contains("julia: vector_add ok"), "{out}");
}

fn run_node(runtime: &Runtime) {
    let mut cmd = on(runtime, "node");
    cmd.arg(workspace_root().join("tests/kernels/vector_add.mjs"))
        .arg(&built().kernel);
    let out = succeed(cmd);
    assert!(out.contains("node: vector_add ok"), "{out}");
}

fn run_cpp(runtime: &Runtime) {
    let mut cmd = on(runtime, &built().cpp_program);
    cmd.arg(&built().kernel);
    let out = succeed(cmd);
    assert!(out.contains("cpp: vector_add ok"), "{out}");
}

#[test]
fn tvm_kernel_from_julia_on_apache_runtime() {
    run_julia(&apache_runtime());
}

#[test]
fn tvm_kernel_from_julia_on_ffihub_runtime() {
    run_julia(&ffihub_runtime_checked());
}

#[test]
fn tvm_kernel_from_node_on_apache_runtime() {
    run_node(&apache_runtime());
}

#[test]
fn tvm_kernel_from_node_on_ffihub_runtime() {
    run_node(&ffihub_runtime_checked());
}

#[test]
fn tvm_kernel_from_cpp_on_apache_runtime() {
    run_cpp(&apache_runtime());
}

#[test]
fn tvm_kernel_from_cpp_on_ffihub_runtime() {
    run_cpp(&ffihub_runtime_checked());
}
