//! Links `libtvm_ffi` by name (ADR 0001 and 0002): `rustc-link-lib=dylib=tvm_ffi` plus a search
//! path, no rpath. Which `libtvm_ffi.so` a program gets is decided when it is loaded (the library
//! path, or a runtime already in the process); the link only needs one with the same symbols.
//!
//! Where the build looks, in order (docs/install.md, "Finding libraries"):
//! 1. `TVM_FFI_LIB`: a `libtvm_ffi.so` file or a folder holding one;
//! 2. `TVM_FFI_LIB_DIR`: a folder holding `libtvm_ffi.so`;
//! 3. `FFIHUB_WORKSPACE_LIB_DIR`: set by ffihub's own workspace (`.cargo/config.toml`) to its
//!    `target/release`, so that builds inside the checkout need no variable (a separate name,
//!    because cargo passes `[env]` to every program it runs, tests included);
//! 4. `pkg-config`: the `libdir` of a `tvm_ffi` package (installed by `scripts/install.sh`).
//!
//! Otherwise the build fails naming what it tried, except under `cargo clippy` and on docs.rs
//! (`DOCS_RS`), which never link (scripts/test.sh lints before the runtime is built; docs.rs has
//! no runtime).

use std::path::{Path, PathBuf};
use std::process::Command;

const LIB_NAME: &str = "libtvm_ffi.so";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    for var in [
        "TVM_FFI_LIB",
        "TVM_FFI_LIB_DIR",
        "FFIHUB_WORKSPACE_LIB_DIR",
        "DOCS_RS",
        "PKG_CONFIG",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let mut tried = Vec::new();
    let Some(lib_dir) = find_runtime(&mut tried) else {
        let message = format!(
            "cannot find {LIB_NAME} to link: tried {}. Set TVM_FFI_LIB to the runtime (a file or its folder; \
             for example ffihub's target/release after `cargo build --release -p ffihub-runtime`, or Apache's \
             wheel's tvm_ffi/lib), or install one with a tvm_ffi.pc for pkg-config (`scripts/install.sh --prefix P`, \
             then add P/lib/pkgconfig to PKG_CONFIG_PATH)",
            tried.join("; ")
        );
        if is_clippy() || std::env::var_os("DOCS_RS").is_some() {
            println!("cargo:warning={message}");
            println!("cargo:lib_dir=");
            return;
        }
        panic!("{message}");
    };
    println!(
        "cargo:rerun-if-changed={}",
        lib_dir.join(LIB_NAME).display()
    );
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    println!("cargo:rustc-link-lib=dylib=tvm_ffi");
    // Published to dependents' build scripts as DEP_TVM_FFI_LIB_DIR (`links = "tvm_ffi"`).
    println!("cargo:lib_dir={}", lib_dir.display());
}

/// The folder holding the runtime to link, recording each place tried (and why it failed).
fn find_runtime(tried: &mut Vec<String>) -> Option<PathBuf> {
    for var in ["TVM_FFI_LIB", "TVM_FFI_LIB_DIR", "FFIHUB_WORKSPACE_LIB_DIR"] {
        let Some(value) = std::env::var_os(var).filter(|v| !v.is_empty()) else {
            tried.push(format!("{var} (unset)"));
            continue;
        };
        let path = PathBuf::from(&value);
        match runtime_folder(&path, var == "TVM_FFI_LIB") {
            Ok(dir) => return Some(dir),
            // An explicit setting that is wrong is an error, not a reason to look elsewhere.
            Err(why) if var != "FFIHUB_WORKSPACE_LIB_DIR" => {
                panic!("{var}={}: {why}", path.display())
            }
            Err(why) => tried.push(format!("{var}={} ({why})", path.display())),
        }
    }
    match pkg_config_libdir() {
        Ok(dir) => match runtime_folder(&dir, false) {
            Ok(dir) => return Some(dir),
            Err(why) => tried.push(format!(
                "pkg-config tvm_ffi: libdir {} ({why})",
                dir.display()
            )),
        },
        Err(why) => tried.push(format!("pkg-config tvm_ffi ({why})")),
    }
    None
}

/// The folder of the runtime `path` names: a folder holding `libtvm_ffi.so` or, when
/// `file_allowed`, that file itself.
fn runtime_folder(path: &Path, file_allowed: bool) -> Result<PathBuf, String> {
    if !path.is_absolute() {
        // Build scripts run in the package's folder, which nobody means.
        return Err("the path must be absolute".into());
    }
    if path.is_dir() {
        let lib = path.join(LIB_NAME);
        return if lib.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(format!("no {LIB_NAME} in this folder"))
        };
    }
    if !path.exists() {
        return Err("no such file or folder".into());
    }
    if !file_allowed {
        return Err("not a folder".into());
    }
    // `-ltvm_ffi` finds the file by this name only.
    if path.file_name().and_then(|n| n.to_str()) != Some(LIB_NAME) {
        return Err(format!("the file must be named {LIB_NAME}"));
    }
    Ok(path
        .parent()
        .expect("an absolute file path has a parent")
        .to_path_buf())
}

/// The `libdir` of pkg-config's `tvm_ffi` package.
fn pkg_config_libdir() -> Result<PathBuf, String> {
    let program = std::env::var_os("PKG_CONFIG").unwrap_or_else(|| "pkg-config".into());
    let output = Command::new(&program)
        .args(["--variable=libdir", "tvm_ffi"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", Path::new(&program).display()))?;
    let libdir = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() || libdir.is_empty() {
        return Err("no tvm_ffi package on PKG_CONFIG_PATH".into());
    }
    Ok(PathBuf::from(libdir))
}

/// Whether this build is `cargo clippy` (which sets these for the crates it lints).
fn is_clippy() -> bool {
    std::env::var_os("CLIPPY_ARGS").is_some()
        || std::env::var("RUSTC_WORKSPACE_WRAPPER").is_ok_and(|w| w.contains("clippy"))
}
