//! Which `libtvm_ffi.so` the generator loads (docs/install.md, "Finding libraries"): `--runtime
//! PATH`; else `TVM_FFI_LIB` (a file or a folder holding one) or `TVM_FFI_LIB_DIR` (a folder); else
//! a `libtvm_ffi.so` next to the `ffihub` executable or in its `../lib` (an install prefix);
//! else the system loader by name. A failure names each place tried and what to set.

use super::runtime::Runtime;
use super::DumpError;
use std::path::{Path, PathBuf};

const LIB_NAME: &str = "libtvm_ffi.so";

/// Opens the runtime: `explicit` (from `--runtime`) alone if given, else the first that loads of
/// the convention's places.
pub fn open_runtime(explicit: Option<&Path>) -> Result<Runtime, DumpError> {
    if let Some(path) = explicit {
        return Runtime::open(path)
            .map_err(|e| DumpError::Runtime(format!("{} (from --runtime)", message_of(&e))));
    }
    let mut tried = Vec::new();
    // A variable that is set must work: falling back would hide a typo behind another runtime.
    for (var, file_allowed) in [("TVM_FFI_LIB", true), ("TVM_FFI_LIB_DIR", false)] {
        match std::env::var_os(var).filter(|v| !v.is_empty()) {
            None => tried.push(format!("{var} (unset)")),
            Some(value) => {
                let path = runtime_file(Path::new(&value), file_allowed);
                return Runtime::open(&path).map_err(|e| {
                    DumpError::Runtime(format!(
                        "{} (from {var}={}); fix or unset {var}",
                        message_of(&e),
                        Path::new(&value).display()
                    ))
                });
            }
        }
    }
    for candidate in beside_executable() {
        if candidate.is_file() {
            match Runtime::open(&candidate) {
                Ok(rt) => return Ok(rt),
                Err(e) => tried.push(format!("{} ({})", candidate.display(), message_of(&e))),
            }
        } else {
            tried.push(format!("{} (no such file)", candidate.display()));
        }
    }
    match Runtime::open(Path::new(LIB_NAME)) {
        Ok(rt) => Ok(rt),
        Err(e) => {
            tried.push(format!("the system loader ({})", message_of(&e)));
            Err(DumpError::Runtime(format!(
                "cannot load the TVM-FFI runtime {LIB_NAME}: tried {}. Pass --runtime PATH, set \
                 TVM_FFI_LIB to a {LIB_NAME} or its folder (ffihub's: `cargo build --release -p \
                 ffihub-runtime` gives target/release/{LIB_NAME}; Apache's: `pip install \
                 apache-tvm-ffi` gives tvm_ffi/lib/{LIB_NAME}), or install one next to ffihub \
                 (`scripts/install.sh --prefix P` puts both under P). `generate --metadata FILE` \
                 needs no runtime",
                tried.join("; ")
            )))
        }
    }
}

/// The runtime file a variable names: the path itself, or `libtvm_ffi.so` in it when it is a
/// folder (always, when only folders are allowed).
fn runtime_file(path: &Path, file_allowed: bool) -> PathBuf {
    if !file_allowed || path.is_dir() {
        path.join(LIB_NAME)
    } else {
        path.to_path_buf()
    }
}

/// `libtvm_ffi.so` next to the running `ffihub`, then in `../lib` of it (symlinks resolved, so a
/// link to an installed `ffihub` finds the install's runtime).
fn beside_executable() -> Vec<PathBuf> {
    let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| std::fs::canonicalize(exe).ok())
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    else {
        return Vec::new();
    };
    let mut out = vec![dir.join(LIB_NAME)];
    if let Some(prefix) = dir.parent() {
        out.push(prefix.join("lib").join(LIB_NAME));
    }
    out
}

/// The message of a runtime error without its `runtime: ` prefix.
fn message_of(error: &DumpError) -> String {
    match error {
        DumpError::Runtime(m) | DumpError::Library(m) | DumpError::Call(m) => m.clone(),
    }
}
