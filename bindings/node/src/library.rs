//! Loading TVM-FFI libraries into the process (ADR 0003: plain `dlopen(RTLD_NOW | RTLD_GLOBAL)`,
//! never closed): their static initializers register functions and types with the runtime the
//! addon is linked to. The addon's own `DT_NEEDED libtvm_ffi.so` is loaded first, so a library
//! asking for `libtvm_ffi.so` gets the same runtime (the loader matches the SONAME).

use crate::napi::{self, Result};
use libc::{c_void, dlerror, dlopen, Dl_info, RTLD_GLOBAL, RTLD_NOLOAD, RTLD_NOW};
use std::ffi::{CStr, CString};

/// Makes the runtime's symbols global. Node loads the addon, and with it `libtvm_ffi.so`, with
/// `RTLD_LOCAL`; a library that does not link the runtime but uses its symbols (every kernel a
/// compiler emits, such as TVM's `export_library` output, which leaves `TVMFFIErrorSetRaised*`
/// undefined) could then not be loaded with `loadModule`. Python's `tvm_ffi` and Julia load the
/// runtime globally as well.
pub fn share_runtime_symbols() {
    let mut info = Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    // SAFETY: the address of a function of the loaded runtime and a valid out record; the
    // runtime's own file name is then reopened (already loaded: only its scope changes).
    unsafe {
        if libc::dladdr(crate::ffi::TVMFFIGetVersion as *const c_void, &mut info) != 0
            && !info.dli_fname.is_null()
        {
            dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
        }
    }
}

/// Loads a library for good. An error its initializers raise fails the load (an extension
/// already loaded from another path raises one naming both paths).
pub fn load(path: &str) -> Result<()> {
    let Ok(c_path) = CString::new(path) else {
        return napi::type_error("library path contains a NUL byte");
    };
    if let Some(stale) = crate::ffi::take_raised_if_any() {
        // SAFETY: an owned error nobody took: released.
        unsafe { crate::ffi::TVMFFIObjectDecRef(stale) };
    }
    // SAFETY: a NUL-terminated path; the handle is deliberately never closed (the runtime keeps
    // pointers into the library).
    let handle = unsafe { dlopen(c_path.as_ptr(), RTLD_NOW | RTLD_GLOBAL) };
    if let Some(error) = crate::ffi::take_raised_if_any() {
        return Err(napi::Error::Ffi(error));
    }
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
