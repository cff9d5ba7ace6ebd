//! A C program (compiled with gcc against ffihub's headers, linked with `-ltvm_ffi`) loads the
//! demo with `dlopen` and checks that errors raised in Rust reach C with the right kind, the
//! message, and Rust frames of the demo's source in the backtrace, on both runtimes.

mod common;

use common::{demo_library, lib_dir, workspace_root, Runtime};
use std::process::Command;

#[test]
fn errors_reach_a_c_caller_with_kind_message_and_rust_frames() {
    let root = workspace_root();
    let out_dir = std::env::temp_dir().join(format!("ffihub-demo-c-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).expect("create a scratch folder");
    let program = out_dir.join("raise_error");
    let ffihub_lib = lib_dir(Runtime::Ffihub);
    let compiled = Command::new("gcc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-O1", "-I"])
        .arg(root.join("runtime/include"))
        .arg(root.join("examples/demo/tests/c/raise_error.c"))
        .arg("-o")
        .arg(&program)
        .arg(format!("-L{}", ffihub_lib.display()))
        .args(["-ltvm_ffi", "-ldl"])
        .output()
        .expect("run gcc");
    assert!(
        compiled.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    for runtime in [Runtime::Ffihub, Runtime::Apache] {
        let output = Command::new(&program)
            .arg(demo_library())
            .env("LD_LIBRARY_PATH", lib_dir(runtime))
            .output()
            .expect("run the C program");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.trim_end().ends_with("OK"),
            "on the {runtime:?} runtime:\n--- stdout\n{stdout}\n--- stderr\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}
