//! `::operator new(size_t, std::nothrow_t const&)` and `::operator delete(void*)`, resolved at
//! run time: from the process's global scope first (the same resolution C++ extensions get),
//! then from `libstdc++.so.6`, and `malloc`/`free` when no C++ runtime exists at all. The
//! choice is made once, so every buffer we allocate is freed by its matching function.

use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

type NewFn = unsafe extern "C" fn(usize, *const c_void) -> *mut c_void;
type DeleteFn = unsafe extern "C" fn(*mut c_void);

extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn malloc(size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
}

const RTLD_NOW: c_int = 2;
/// glibc's `RTLD_DEFAULT`.
const RTLD_DEFAULT: *mut c_void = std::ptr::null_mut();

struct Functions {
    new: Option<NewFn>,
    delete: DeleteFn,
}

/// The `operator new` / `operator delete` pair (or malloc/free).
fn functions() -> &'static Functions {
    static FUNCTIONS: OnceLock<Functions> = OnceLock::new();
    FUNCTIONS.get_or_init(|| {
        // SAFETY: dlopen/dlsym are called with NUL-terminated names; the symbols, when found,
        // have the C++ ABI signatures declared above (a `const nothrow_t&` is a pointer).
        unsafe {
            let lookup = |handle: *mut c_void| {
                let new = dlsym(handle, c"_ZnwmRKSt9nothrow_t".as_ptr());
                let delete = dlsym(handle, c"_ZdlPv".as_ptr());
                (!new.is_null() && !delete.is_null()).then(|| Functions {
                    new: Some(std::mem::transmute::<*mut c_void, NewFn>(new)),
                    delete: std::mem::transmute::<*mut c_void, DeleteFn>(delete),
                })
            };
            lookup(RTLD_DEFAULT)
                .or_else(|| {
                    let handle = dlopen(c"libstdc++.so.6".as_ptr(), RTLD_NOW);
                    (!handle.is_null()).then(|| lookup(handle)).flatten()
                })
                .unwrap_or(Functions {
                    new: None,
                    delete: free,
                })
        }
    })
}

/// A buffer for `count` elements (NULL for 0), or `None` when the size overflows or memory
/// is exhausted.
pub(super) fn try_allocate(count: usize) -> Option<*mut c_void> {
    if count == 0 {
        return Some(std::ptr::null_mut());
    }
    let bytes = count
        .checked_mul(super::ELEM)
        .filter(|&b| b <= isize::MAX as usize)?;
    /// Stands in for `std::nothrow`, an empty tag object that is only passed by address.
    static NOTHROW: u8 = 0;
    let functions = functions();
    // SAFETY: both allocation functions take a byte count and return NULL on failure.
    let ptr = unsafe {
        match functions.new {
            Some(new) => new(bytes, std::ptr::addr_of!(NOTHROW).cast()),
            None => malloc(bytes),
        }
    };
    (!ptr.is_null()).then_some(ptr)
}

/// The `data_deleter` of List buffers we allocate (also handed to C++, which may put
/// `::operator new` buffers under it, exactly like Apache's own `RawDataDeleter`).
pub(super) unsafe extern "C" fn release(data: *mut c_void) {
    if !data.is_null() {
        (functions().delete)(data);
    }
}
