//! The `extern "C"` surface of `libtvm_ffi.so`: argument conversion, panic catching and error
//! reporting only; the logic lives in the concept modules.
//!
//! Two error styles, as in Apache's runtime: safe calls return 0, or -1 with the error raised in
//! the thread's slot; the few functions without an error channel print the error and exit.

mod env;
pub(crate) mod error;
mod function;
mod object;
pub(crate) mod string;
mod tensor;
mod types;

use crate::value::error::{raise, Error};
use crate::value::function::panic_error;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `body` as a safe call: 0 on success, -1 with the error raised otherwise (panics included).
#[inline]
fn safe_call(body: impl FnOnce() -> Result<(), Error>) -> i32 {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => 0,
        Ok(Err(error)) => raise(error),
        Err(panic) => raise(panic_error(panic)),
    }
}

/// Runs `body` for a function without an error channel: on error or panic, prints the error
/// and exits the process, as Apache's runtime does.
#[inline]
fn or_exit<T>(function: &str, body: impl FnOnce() -> Result<T, Error>) -> T {
    let error = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(value)) => return value,
        Ok(Err(error)) => error,
        Err(panic) => panic_error(panic),
    };
    eprintln!(
        "[ffihub] {function} failed: {error}\n{}",
        String::from_utf8_lossy(error.backtrace())
    );
    std::process::exit(-1);
}

/// A required pointer argument, or a ValueError naming it.
#[inline]
fn non_null<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, Error> {
    // SAFETY: non-NULL pointers handed to the C API point at valid values.
    unsafe { ptr.as_ref() }.ok_or_else(|| null_argument(what))
}

/// The bytes of a required byte-array argument, or a ValueError naming it: the array itself
/// must not be NULL, and neither may its data unless the size is 0 (a NULL pointer with a
/// length is a caller bug, not an empty string).
#[inline]
fn byte_array_arg<'a>(
    array: *const crate::abi::TVMFFIByteArray,
    what: &str,
) -> Result<&'a [u8], Error> {
    let array = non_null(array, what)?;
    if array.data.is_null() {
        return match array.size {
            0 => Ok(&[]),
            _ => Err(bad_byte_array(array, what)),
        };
    }
    // No array is larger than isize::MAX bytes: such a size is wrong (a negative value cast,
    // say).
    if array.size > isize::MAX as usize {
        return Err(bad_byte_array(array, what));
    }
    // SAFETY: a non-NULL `data` handed to the C API points at `size` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(array.data.cast(), array.size) })
}

/// The error for a byte array whose data is NULL with a size, or whose size is too large (out
/// of line, like [`null_argument`]).
#[cold]
#[inline(never)]
fn bad_byte_array(array: &crate::abi::TVMFFIByteArray, what: &str) -> Error {
    let message = if array.data.is_null() {
        format!(
            "{what}.data must not be NULL when {what}.size is {}",
            array.size
        )
    } else {
        format!("{what}.size is {}, larger than any array", array.size)
    };
    Error::new("ValueError", message)
}

/// The error for a required pointer argument that is NULL (out of line: the hot paths of the
/// C API only test the pointer).
#[cold]
#[inline(never)]
fn null_argument(what: &str) -> Error {
    Error::new("ValueError", format!("{what} must not be NULL"))
}

/// A required output pointer, or a ValueError naming it.
#[inline]
fn out_ptr<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, Error> {
    // SAFETY: as for `non_null`.
    unsafe { ptr.as_mut() }.ok_or_else(|| null_argument(what))
}
