//! Links `libtvm_ffi` by name (ADR 0001 and 0002): `rustc-link-lib=dylib=tvm_ffi` plus a search
//! path, no rpath. The search path is `TVM_FFI_LIB_DIR` (relative to the workspace root), or the
//! workspace's `target/release`
//! (honouring `CARGO_TARGET_DIR`), where `cargo build --release -p ffihub-runtime` puts ffihub's
//! runtime. Which `libtvm_ffi.so` a program gets is decided at run time by the library path.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TVM_FFI_LIB_DIR");
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_DIR");

    let manifest_dir =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    // bindings/rust/ffihub -> the workspace root.
    let workspace = manifest_dir
        .ancestors()
        .nth(3)
        .expect("the crate lives at <workspace>/bindings/rust/ffihub")
        .to_path_buf();
    // A relative TVM_FFI_LIB_DIR is taken from the workspace root (build scripts run in the
    // package folder, which nobody means).
    let lib_dir = match std::env::var_os("TVM_FFI_LIB_DIR") {
        Some(dir) => workspace.join(dir),
        None => target_dir(&workspace).join("release"),
    };
    let lib = lib_dir.join("libtvm_ffi.so");
    println!("cargo:rerun-if-changed={}", lib.display());

    if !lib.exists() {
        let message = format!(
            "{} is missing: build ffihub's runtime first with `cargo build --release -p ffihub-runtime`, \
             or point TVM_FFI_LIB_DIR at a folder holding a libtvm_ffi.so (for example Apache's wheel's tvm_ffi/lib)",
            lib.display()
        );
        // Lints never link, so they need no runtime (scripts/test.sh lints before building it).
        if is_clippy() {
            println!("cargo:warning={message}");
        } else {
            panic!("{message}");
        }
    }
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    println!("cargo:rustc-link-lib=dylib=tvm_ffi");
    // For this package's own tests (the compile-fail tests build in another target folder).
    println!(
        "cargo:rustc-env=FFIHUB_TVM_FFI_LIB_DIR={}",
        lib_dir.display()
    );
    // Published to dependents' build scripts as DEP_TVM_FFI_LIB_DIR (`links = "tvm_ffi"`).
    println!("cargo:lib_dir={}", lib_dir.display());
}

/// The cargo target directory: `CARGO_TARGET_DIR` (absolute, or relative to the workspace) or
/// `<workspace>/target`.
fn target_dir(workspace: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                workspace.join(dir)
            }
        }
        None => workspace.join("target"),
    }
}

/// Whether this build is `cargo clippy` (which sets these for the crates it lints).
fn is_clippy() -> bool {
    std::env::var_os("CLIPPY_ARGS").is_some()
        || std::env::var("RUSTC_WORKSPACE_WRAPPER").is_ok_and(|w| w.contains("clippy"))
}
