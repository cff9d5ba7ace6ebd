//! Errors and backtraces.

use crate::abi::{TVMFFIByteArray, TVMFFIObjectHandle};
use crate::value::any::byte_array_slice;
use crate::value::error::{set_raised, take_raised_resolved, Error};
use crate::value::object::ObjectRef;
use std::cell::RefCell;
use std::ffi::{c_char, CStr};

unsafe fn c_str<'a>(s: *const c_char) -> &'a [u8] {
    if s.is_null() {
        b""
    } else {
        CStr::from_ptr(s).to_bytes()
    }
}

unsafe fn array<'a>(a: *const TVMFFIByteArray) -> &'a [u8] {
    a.as_ref().map_or(&[], |a| byte_array_slice(a))
}

/// Moves this thread's raised error into `*result` (NULL when there is none).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIErrorMoveFromRaised(result: *mut TVMFFIObjectHandle) {
    let error = take_raised_resolved();
    match result.as_mut() {
        Some(out) => *out = error.map_or(std::ptr::null_mut(), |e| e.into_raw().cast()),
        None => drop(error),
    }
}

/// Raises `error` on this thread; the caller keeps its own reference. An error in the layout of
/// releases up to 0.1.7 is raised as a copy in the current layout (docs/compatibility.md).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIErrorSetRaised(error: TVMFFIObjectHandle) {
    if !error.is_null() {
        set_raised(crate::compat::upgrade_raised_error(
            ObjectRef::from_borrowed(error.cast()),
        ));
    }
}

fn raise_with_backtrace(kind: &[u8], message: &[u8]) {
    let trace = crate::value::backtrace::capture_addresses();
    crate::value::error::raise(Error::with_trace(kind, message, trace));
}

/// Raises a new error from C strings.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIErrorSetRaisedFromCStr(kind: *const c_char, message: *const c_char) {
    raise_with_backtrace(c_str(kind), c_str(message));
}

/// Raises a new error whose message is the concatenation of the non-NULL parts.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIErrorSetRaisedFromCStrParts(
    kind: *const c_char,
    message_parts: *mut *const c_char,
    num_parts: i32,
) {
    let mut message = Vec::new();
    if !message_parts.is_null() {
        for i in 0..num_parts.max(0) as usize {
            message.extend_from_slice(c_str(*message_parts.add(i)));
        }
    }
    raise_with_backtrace(c_str(kind), &message);
}

/// Creates an Error object (does not raise it).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIErrorCreate(
    kind: *const TVMFFIByteArray,
    message: *const TVMFFIByteArray,
    backtrace: *const TVMFFIByteArray,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    TVMFFIErrorCreateWithCauseAndExtraContext(
        kind,
        message,
        backtrace,
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        out,
    )
}

/// Creates an Error object with a cause (an Error) and an extra context object, both borrowed.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIErrorCreateWithCauseAndExtraContext(
    kind: *const TVMFFIByteArray,
    message: *const TVMFFIByteArray,
    backtrace: *const TVMFFIByteArray,
    cause_chain: TVMFFIObjectHandle,
    extra_context: TVMFFIObjectHandle,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    super::or_exit("TVMFFIErrorCreateWithCauseAndExtraContext", || {
        let out = super::out_ptr(out, "out")?;
        let borrow =
            |h: TVMFFIObjectHandle| (!h.is_null()).then(|| ObjectRef::from_borrowed(h.cast()));
        let error = Error::from_parts(
            array(kind),
            array(message),
            array(backtrace),
            borrow(cause_chain),
            borrow(extra_context),
        );
        *out = error.into_object().into_raw().cast();
        Ok(0)
    })
}

thread_local! {
    static LAST_BACKTRACE: RefCell<(String, TVMFFIByteArray)> =
        const { RefCell::new((String::new(), TVMFFIByteArray { data: std::ptr::null(), size: 0 })) };
}

/// The current backtrace as text, in thread-local storage valid until the next call on this
/// thread; `filename`/`lineno`/`func`, when given, become the most recent frame.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIBacktrace(
    filename: *const c_char,
    lineno: i32,
    func: *const c_char,
    _cross_ffi_boundary: i32,
) -> *const TVMFFIByteArray {
    let mut text = String::new();
    if !filename.is_null() && !func.is_null() {
        let file = String::from_utf8_lossy(c_str(filename));
        let func = String::from_utf8_lossy(c_str(func));
        crate::value::backtrace::push_frame(&mut text, &file, lineno.max(0) as u32, &func);
        text.push_str(&crate::value::backtrace::capture_after_caller());
    } else {
        text.push_str(&crate::value::backtrace::capture());
    }
    LAST_BACKTRACE.with(|slot| {
        let mut slot = slot.borrow_mut();
        slot.0 = text;
        slot.1 = TVMFFIByteArray {
            data: slot.0.as_ptr().cast(),
            size: slot.0.len(),
        };
        &slot.1 as *const TVMFFIByteArray
    })
}
