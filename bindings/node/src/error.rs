//! Errors both ways.
//!
//! A TVM-FFI error (raised by a call, or returned as a value) becomes an instance of the
//! `FFIError` subclass of its kind, built by index.js's `makeError(kind, message, backtrace)`;
//! the error object is attached to it, so passing it back to native code passes the same error.
//! A JavaScript exception thrown in a callback becomes a TVM-FFI error whose kind, message and
//! backtrace come from index.js's `errorParts(exception)` (the JavaScript stack, as frames).

use crate::env::EnvData;
use crate::ffi::{self, bytes_of};
use crate::napi::{napi_value, Error, Result, Type};
use crate::object;
use ffihub_abi::abi::{TVMFFIErrorCell, TVMFFIObjectHandle};
use ffihub_abi::tindex;

/// The JavaScript error object of an owned error handle (not thrown).
pub fn error_value(data: &EnvData, handle: TVMFFIObjectHandle) -> Result<napi_value> {
    let env = data.env;
    // SAFETY: an Error object holds a TVMFFIErrorCell after the header.
    let cell = unsafe { &*ffi::cell::<TVMFFIErrorCell>(handle) };
    // SAFETY: the cell's strings live as long as the error, which we hold.
    let (kind, message, backtrace) = unsafe {
        (
            bytes_of(&cell.kind),
            bytes_of(&cell.message),
            bytes_of(&cell.backtrace),
        )
    };
    let made = (|| {
        let args = [
            env.string(kind)?,
            env.string(message)?,
            env.string(backtrace)?,
        ];
        env.call_function(env.undefined(), data.hook(|h| h.make_error)?, &args)
    })();
    let error = match made {
        Ok(e) => e,
        Err(e) => {
            // SAFETY: our reference.
            unsafe { ffi::TVMFFIObjectDecRef(handle) };
            return Err(e);
        }
    };
    object::attach(env, error, handle)?;
    Ok(error)
}

/// The JavaScript value to throw (or reject with) for an addon error.
pub fn to_js(data: &EnvData, error: Error) -> Result<napi_value> {
    match error {
        Error::Pending => Ok(data.env.take_exception()),
        Error::Ffi(handle) => error_value(data, handle),
        Error::Js {
            type_error,
            message,
        } => {
            let kind: &[u8] = if type_error {
                b"TypeError"
            } else {
                b"RuntimeError"
            };
            let env = data.env;
            let args = [
                env.string(kind)?,
                env.string(message.as_bytes())?,
                env.string(b"")?,
            ];
            env.call_function(env.undefined(), data.hook(|h| h.make_error)?, &args)
        }
    }
}

/// A TVM-FFI error (owned) for a JavaScript exception: the attached error if it came from
/// TVM-FFI, else a new one from `errorParts(exception)`.
pub fn error_from_js(data: &EnvData, exception: napi_value) -> Result<TVMFFIObjectHandle> {
    let env = data.env;
    if env.type_of(exception)? == Type::napi_object {
        if let Some(handle) = object::handle_of(data, exception)? {
            // SAFETY: a live wrapped object.
            if unsafe { ffi::type_index_of(handle) } == tindex::ERROR {
                // SAFETY: the caller gets its own reference.
                unsafe { ffi::TVMFFIObjectIncRef(handle) };
                return Ok(handle);
            }
        }
    }
    let parts = env.call_function(env.undefined(), data.hook(|h| h.error_parts)?, &[exception])?;
    let part = |i| -> Result<String> { env.get_rust_string(env.get_element(parts, i)?) };
    let (kind, message, backtrace) = (part(0)?, part(1)?, part(2)?);
    Ok(ffi::make_error(&kind, &message, &backtrace))
}

/// Throws an addon error in JavaScript.
pub fn throw(data: &EnvData, error: Error) {
    match error {
        Error::Pending => {}
        Error::Js {
            type_error,
            ref message,
        } if data.hooks.borrow().make_error.is_none() => {
            data.env.throw_message(type_error, message);
        }
        error => match to_js(data, error) {
            Ok(value) => data.env.throw(value),
            Err(Error::Pending) => {}
            Err(_) => data
                .env
                .throw_message(false, "failed to convert a TVM-FFI error"),
        },
    }
}
