//! Keeps an extension loaded for the life of the process (ADR 0002): the runtime keeps pointers
//! into it (registered functions, type records, reflection tables), so a host's `dlclose` must not
//! unmap it. This is what linking with `-z nodelete` does, applied when the library loads, so an
//! extension needs no link option: the first registration re-opens the library holding this code
//! with `RTLD_NOLOAD | RTLD_NODELETE`, which marks the loaded copy as never to be unloaded.

use libc::{c_void, Dl_info, RTLD_NODELETE, RTLD_NOLOAD, RTLD_NOW};
use std::ffi::{CStr, CString};
use std::sync::Once;

/// The file name (as the loader knows it) of the loaded object holding `address`.
pub(crate) fn library_of(address: *const c_void) -> Option<CString> {
    let mut info = Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    // SAFETY: `info` is a valid out parameter; dladdr only reads the loader's tables.
    if unsafe { libc::dladdr(address, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr returned the loader's NUL-terminated name of a loaded object.
    Some(unsafe { CStr::from_ptr(info.dli_fname) }.to_owned())
}

/// The file name of the library holding this code.
pub(crate) fn this_library() -> Option<CString> {
    // Any address inside this library names it; this function's is one.
    library_of(this_library as fn() -> Option<CString> as *const c_void)
}

/// Marks the shared library holding this code as never unloaded (once per library; in a program
/// that links the crate statically it is a no-op, since executables are never unloaded).
pub(crate) fn keep_loaded() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let Some(file) = this_library() else {
            eprintln!("ffihub: cannot find the library holding this extension; it may be unloaded by dlclose");
            return;
        };
        // SAFETY: a NUL-terminated name of a loaded object. With RTLD_NOLOAD, dlopen only finds
        // that object (it maps nothing new); the returned handle is kept on purpose, like the
        // library itself.
        let handle = unsafe { libc::dlopen(file.as_ptr(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) };
        let name = file.to_string_lossy();
        // In an executable (tests, hosts linking the crate) dladdr names the program, which
        // dlopen may not find by that name; it is never unloaded anyway.
        if handle.is_null() && (name.ends_with(".so") || name.contains(".so.") || name.ends_with(".dylib")) {
            eprintln!("ffihub: cannot mark {name} as never unloaded; link it with -z nodelete");
        }
    });
}
