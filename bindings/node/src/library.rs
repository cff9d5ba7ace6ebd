//! Loading TVM-FFI libraries into the process (ADR 0003: plain `dlopen(RTLD_NOW | RTLD_GLOBAL)`,
//! never closed): their static initializers register functions and types with the runtime the
//! addon is linked to. The addon's own `DT_NEEDED libtvm_ffi.so` is loaded first, so a library
//! asking for `libtvm_ffi.so` gets the same runtime (the loader matches the SONAME).

use crate::napi::{self, Result};
use std::ffi::{c_char, c_int, c_void, CStr, CString};

const RTLD_NOW: c_int = 2;
const RTLD_GLOBAL: c_int = 0x100;

extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlerror() -> *mut c_char;
}

/// Loads a library for good.
pub fn load(path: &str) -> Result<()> {
    let Ok(c_path) = CString::new(path) else {
        return napi::type_error("library path contains a NUL byte");
    };
    // SAFETY: a NUL-terminated path; the handle is deliberately never closed (the runtime keeps
    // pointers into the library).
    let handle = unsafe { dlopen(c_path.as_ptr(), RTLD_NOW | RTLD_GLOBAL) };
    if handle.is_null() {
        // SAFETY: dlerror returns a thread-local message or NULL.
        let msg = unsafe { dlerror() };
        let msg = if msg.is_null() {
            "unknown error".to_string()
        } else {
            // SAFETY: a NUL-terminated string owned by the loader.
            unsafe { CStr::from_ptr(msg) }
                .to_string_lossy()
                .into_owned()
        };
        return napi::error(format!("cannot load {path}: {msg}"));
    }
    Ok(())
}

/// The ABI version of the loaded runtime (`major.minor.patch`).
pub fn runtime_version() -> String {
    let mut v = ffihub_abi::abi::TVMFFIVersion {
        major: 0,
        minor: 0,
        patch: 0,
    };
    // SAFETY: a valid out pointer.
    unsafe { crate::ffi::TVMFFIGetVersion(&mut v) };
    format!("{}.{}.{}", v.major, v.minor, v.patch)
}
