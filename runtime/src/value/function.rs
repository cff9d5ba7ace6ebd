//! Function objects: wrappers of C safe-call functions and of Rust closures, and calling any
//! Function object (ours or foreign) through its cell.

use crate::abi::{TVMFFIAny, TVMFFIFunctionCell, TVMFFIObject};
use crate::tindex;
use crate::value::any::{Any, RAW_NONE};
use crate::value::error::{raise, take_raised_or_unknown, Error};
use crate::value::object::{alloc_object, alloc_object_with_deleter, payload, ObjectRef};
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A non-NULL C safe-call function.
pub type SafeCallFn =
    unsafe extern "C" fn(*mut c_void, *const TVMFFIAny, i32, *mut TVMFFIAny) -> i32;

/// A C safe-call function with its `self` and optional deleter.
#[repr(C)]
struct ExternCPayload {
    cell: TVMFFIFunctionCell,
    self_: *mut c_void,
    call: SafeCallFn,
    deleter: Option<unsafe extern "C" fn(*mut c_void)>,
    stack_hint: crate::value::stack::CallbackStackHint,
}

impl Drop for ExternCPayload {
    fn drop(&mut self) {
        if let Some(deleter) = self.deleter {
            // SAFETY: the creator handed us `self_` with this deleter.
            unsafe { deleter(self.self_) }
        }
    }
}

/// The deleter of Functions over a C function without a deleter of its own: their payload
/// (whichever of the two below) owns nothing, so only the memory is freed (and they are marked
/// plain: the runtime's own last release frees them without this call).
unsafe extern "C" fn delete_c_function_without_deleter(obj: *mut c_void, flags: i32) {
    if flags & crate::value::object::DELETE_WEAK != 0 {
        crate::value::object::free_rust_object(obj.cast());
    }
}

unsafe extern "C" fn call_extern_c(
    handle: *mut c_void,
    args: *const TVMFFIAny,
    n: i32,
    rv: *mut TVMFFIAny,
) -> i32 {
    // Foreign callbacks are where host -> native -> host re-entry recurses; refuse to enter one
    // when the native stack is nearly used up rather than let the host overflow it. On the
    // creating thread the hint decides with two comparisons; otherwise the exact check runs out
    // of line. Both calls stay tail calls (no trampoline frame in the callee's backtrace).
    let p = payload::<ExternCPayload>(handle.cast());
    if p.stack_hint.passes() {
        return (p.call)(p.self_, args, n, rv);
    }
    call_extern_c_checked(handle, args, n, rv)
}

/// [`call_extern_c`] with the exact stack check (`extern "C"`, like its caller, so that the
/// call to it is a plain jump: nothing can unwind through it).
#[cold]
#[inline(never)]
unsafe extern "C" fn call_extern_c_checked(
    handle: *mut c_void,
    args: *const TVMFFIAny,
    n: i32,
    rv: *mut TVMFFIAny,
) -> i32 {
    if crate::value::stack::callback_stack_exhausted() {
        return raise(crate::value::stack::callback_stack_error());
    }
    let p = payload::<ExternCPayload>(handle.cast());
    (p.call)(p.self_, args, n, rv)
}

/// A Function over a C safe-call function, with Apache's rule: when both `self_` and `deleter`
/// are NULL the function is stored directly and receives the Function handle as its `self`
/// (the object is then only the header and the cell).
pub fn from_extern_c(
    self_: *mut c_void,
    call: SafeCallFn,
    deleter: Option<unsafe extern "C" fn(*mut c_void)>,
) -> ObjectRef {
    if self_.is_null() && deleter.is_none() {
        let cell = TVMFFIFunctionCell {
            safe_call: Some(call),
            cpp_call: std::ptr::null_mut(),
        };
        return alloc_object_with_deleter(
            tindex::FUNCTION,
            cell,
            delete_c_function_without_deleter,
        );
    }
    callback_from_extern_c(self_, call, deleter)
}

/// [`from_extern_c`] with a `self` or a deleter: called through [`call_extern_c`]. Out of line,
/// so that the common case above saves no registers.
#[inline(never)]
fn callback_from_extern_c(
    self_: *mut c_void,
    call: SafeCallFn,
    deleter: Option<unsafe extern "C" fn(*mut c_void)>,
) -> ObjectRef {
    let payload = ExternCPayload {
        cell: TVMFFIFunctionCell {
            safe_call: Some(call_extern_c),
            cpp_call: std::ptr::null_mut(),
        },
        self_,
        call,
        deleter,
        stack_hint: crate::value::stack::CallbackStackHint::here(),
    };
    match deleter {
        Some(_) => alloc_object(tindex::FUNCTION, payload, 0),
        None => {
            alloc_object_with_deleter(tindex::FUNCTION, payload, delete_c_function_without_deleter)
        }
    }
}

/// A Function running a Rust closure: the closure lives in the payload, and the safe call is
/// instantiated for its type, so a call reaches the closure's code directly (no boxed trait
/// object, no second indirect call).
#[repr(C)]
struct ClosurePayload<F> {
    cell: TVMFFIFunctionCell,
    callback: F,
}

unsafe extern "C" fn call_closure<F>(
    handle: *mut c_void,
    args: *const TVMFFIAny,
    n: i32,
    rv: *mut TVMFFIAny,
) -> i32
where
    F: Fn(*const TVMFFIAny, i32) -> Result<Any, Error>,
{
    let result = catch_unwind(AssertUnwindSafe(|| {
        let p = payload::<ClosurePayload<F>>(handle.cast());
        (p.callback)(args, n)
    }));
    match result {
        Ok(Ok(value)) => {
            *rv = value.into_raw();
            0
        }
        Ok(Err(error)) => raise(error),
        Err(panic) => raise(panic_error(panic)),
    }
}

/// A Function running a Rust closure (borrowed arguments in, an owned result or an error out).
pub fn from_closure<F>(callback: F) -> ObjectRef
where
    F: Fn(&[TVMFFIAny]) -> Result<Any, Error> + Send + Sync + 'static,
{
    // SAFETY: the safe call passes its caller's arguments, valid for `n` values.
    from_raw_closure(move |args, n| callback(unsafe { args_slice(args, n) }))
}

/// [`from_closure`] for a closure that takes the arguments as the C ABI passes them: a pointer
/// valid for `n` values when `n > 0` (for callers that check the count before they read them).
pub(crate) fn from_raw_closure<F>(callback: F) -> ObjectRef
where
    F: Fn(*const TVMFFIAny, i32) -> Result<Any, Error> + Send + Sync + 'static,
{
    let cell = TVMFFIFunctionCell {
        safe_call: Some(call_closure::<F>),
        cpp_call: std::ptr::null_mut(),
    };
    alloc_object(tindex::FUNCTION, ClosurePayload { cell, callback }, 0)
}

/// The argument array as a slice (empty for `n <= 0`, whatever the pointer).
///
/// # Safety
/// `args` is valid for `n` values when `n > 0`.
#[inline]
pub unsafe fn args_slice<'a>(args: *const TVMFFIAny, n: i32) -> &'a [TVMFFIAny] {
    if n <= 0 || args.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(args, n as usize)
    }
}

/// Turns a caught panic into an `InternalError`.
pub fn panic_error(panic: Box<dyn std::any::Any + Send>) -> Error {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a Rust panic with a non-string payload".to_string());
    Error::new(
        "InternalError",
        format!("panic in the ffihub runtime: {message}"),
    )
}

/// Calls a Function object with borrowed arguments.
///
/// # Safety
/// `func` is a live Function object and `args` are valid views.
pub unsafe fn call(func: *mut TVMFFIObject, args: &[TVMFFIAny]) -> Result<Any, Error> {
    let cell = &*func.cast::<u8>().add(24).cast::<TVMFFIFunctionCell>();
    let safe_call = cell.safe_call.expect("Function object without safe_call");
    let mut rv = RAW_NONE;
    let code = safe_call(func.cast(), args.as_ptr(), args.len() as i32, &mut rv);
    if code == 0 {
        Ok(Any::from_raw(rv))
    } else {
        Err(take_raised_or_unknown(code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_function_returns_and_raises() {
        let f = from_closure(|args| match args.len() {
            1 => Ok(Any::int(unsafe { args[0].value.v_int64 } + 1)),
            _ => Err(Error::new("TypeError", "expects one argument")),
        });
        let out = unsafe { call(f.as_ptr(), &[*Any::int(41).as_raw()]) }.unwrap();
        assert_eq!(unsafe { out.as_raw().value.v_int64 }, 42);
        let err = unsafe { call(f.as_ptr(), &[]) }.unwrap_err();
        assert_eq!(err.kind(), b"TypeError");
    }

    #[test]
    fn panics_become_internal_errors() {
        let f = from_closure(|_| panic!("on purpose"));
        let err = unsafe { call(f.as_ptr(), &[]) }.unwrap_err();
        assert_eq!(err.kind(), b"InternalError");
        assert!(String::from_utf8_lossy(err.message()).contains("on purpose"));
    }

    unsafe extern "C" fn nop(
        _: *mut c_void,
        _: *const TVMFFIAny,
        _: i32,
        _: *mut TVMFFIAny,
    ) -> i32 {
        0
    }

    static DELETED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    unsafe extern "C" fn count_deletion(_: *mut c_void) {
        DELETED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    #[test]
    fn functions_that_own_nothing_are_plain() {
        use crate::value::object::is_plain;
        let bare = from_extern_c(std::ptr::null_mut(), nop, None);
        let with_self = from_extern_c(8 as *mut c_void, nop, None);
        let with_deleter = from_extern_c(8 as *mut c_void, nop, Some(count_deletion));
        let closure = from_closure(|_| Ok(Any::none()));
        let captured = Any::string("a string longer than the small form");
        let owning_closure = from_closure(move |_| Ok(captured.clone()));
        unsafe {
            assert!(is_plain(bare.as_ptr()));
            assert!(is_plain(with_self.as_ptr()));
            assert!(is_plain(closure.as_ptr()));
            assert!(!is_plain(with_deleter.as_ptr()));
            assert!(!is_plain(owning_closure.as_ptr()));
        }
        // Their deleters still run on the general path.
        drop(with_deleter);
        assert_eq!(DELETED.load(std::sync::atomic::Ordering::SeqCst), 1);
        let out = unsafe { call(owning_closure.as_ptr(), &[]) }.unwrap();
        drop(owning_closure);
        // SAFETY: `out` is a live value.
        let text = unsafe { crate::value::string::str_bytes(out.as_raw()) };
        assert_eq!(text, Some(&b"a string longer than the small form"[..]));
    }

    unsafe extern "C" fn add_self(
        self_: *mut c_void,
        _: *const TVMFFIAny,
        _: i32,
        rv: *mut TVMFFIAny,
    ) -> i32 {
        *rv = Any::int(self_ as i64).into_raw();
        0
    }

    #[test]
    fn callbacks_run_on_their_thread_and_on_others() {
        // On the creating thread the stack hint decides; on another, the exact check.
        let f = from_extern_c(7 as *mut c_void, add_self, None);
        let on = |f: &ObjectRef| unsafe { call(f.as_ptr(), &[]).unwrap().as_raw().value.v_int64 };
        assert_eq!(on(&f), 7);
        let f = std::thread::scope(|scope| scope.spawn(|| on(&f)).join().unwrap());
        assert_eq!(f, 7);
    }

    #[test]
    fn a_stack_hint_passes_calls_only_on_its_thread() {
        let hint = crate::value::stack::CallbackStackHint::here();
        assert!(hint.passes());
        assert!(!std::thread::spawn(move || hint.passes()).join().unwrap());
    }

    #[test]
    fn functions_we_create_have_no_cpp_call() {
        let f = from_closure(|_| Ok(Any::none()));
        let cell = unsafe { f.cell::<TVMFFIFunctionCell>() };
        assert!(cell.cpp_call.is_null());
    }
}
