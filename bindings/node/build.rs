//! Links `libtvm_ffi` by name (ADR 0001 and 0004): a `DT_NEEDED libtvm_ffi.so` entry, a link
//! search path, and a `RUNPATH $ORIGIN`. The search path is `TVM_FFI_LIB_DIR`, or the
//! workspace's `target/release` (honouring `CARGO_TARGET_DIR`), where `cargo build --release -p
//! ffihub-runtime` puts ffihub's runtime. Which `libtvm_ffi.so` the addon gets is decided when
//! Node loads it (`lib/addon.js`, docs/install.md "Finding libraries"); the RUNPATH is the last
//! resort after LD_LIBRARY_PATH: the runtime beside the addon (in `target/release`, or in the
//! packed npm package).
//!
//! The Node-API functions (`napi_*`) stay undefined: Node provides them when it loads the addon.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TVM_FFI_LIB_DIR");
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_DIR");

    let manifest_dir =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let workspace = manifest_dir
        .ancestors()
        .nth(2)
        .expect("the crate lives at <workspace>/bindings/node")
        .to_path_buf();
    let lib_dir = match std::env::var_os("TVM_FFI_LIB_DIR") {
        Some(dir) => PathBuf::from(dir),
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
        // Lints never link, so they need no runtime.
        if is_clippy() {
            println!("cargo:warning={message}");
        } else {
            panic!("{message}");
        }
    }
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    println!("cargo:rustc-link-lib=dylib=tvm_ffi");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--enable-new-dtags,-rpath,$ORIGIN");
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

/// Whether this build is `cargo clippy`.
fn is_clippy() -> bool {
    std::env::var_os("CLIPPY_ARGS").is_some()
        || std::env::var("RUSTC_WORKSPACE_WRAPPER").is_ok_and(|w| w.contains("clippy"))
}
