//! A thin layer over raw Node-API (`napi-sys`): status checks turned into [`Result`], and the
//! calls the addon makes, with their safety conditions in one place.
//!
//! Every function here must run on the JavaScript thread of `env`, inside a Node-API callback
//! (or a finalizer), which is where the addon's entry points run.

use napi_sys::*;
use std::ffi::c_void;
use std::ptr;

pub use napi_sys::{napi_env, napi_ref, napi_value};

/// Why a native entry point did not produce a value.
#[derive(Debug)]
pub enum Error {
    /// A JavaScript exception is already pending (thrown by JavaScript code we called).
    Pending,
    /// Throw a JavaScript `Error` (`TypeError` when `type_error`) with this message.
    Js { type_error: bool, message: String },
    /// Throw this TVM-FFI error object (owned), converted to the `FFIError` class of its kind.
    Ffi(ffihub_abi::abi::TVMFFIObjectHandle),
}

/// The result of a step of a native entry point.
pub type Result<T> = std::result::Result<T, Error>;

/// A `TypeError` with `message`.
pub fn type_error<T>(message: impl Into<String>) -> Result<T> {
    Err(Error::Js {
        type_error: true,
        message: message.into(),
    })
}

/// A `RangeError` with `message`, thrown at once (the caller passes on `Error::Pending`).
pub fn range_error<T>(env: Env, message: &str) -> Result<T> {
    env.throw_range_error(message);
    Err(Error::Pending)
}

/// `message` as a C string (NUL bytes dropped).
fn c_message(message: &str) -> Vec<u8> {
    let mut text = message.as_bytes().to_vec();
    text.retain(|&b| b != 0);
    text.push(0);
    text
}

/// An `Error` with `message`.
pub fn error<T>(message: impl Into<String>) -> Result<T> {
    Err(Error::Js {
        type_error: false,
        message: message.into(),
    })
}

/// A Node-API environment (`Copy`; only meaningful on its own thread).
#[derive(Clone, Copy, Debug)]
pub struct Env(pub napi_env);

/// A value type as `typeof` reports it.
pub use napi_sys::ValueType as Type;

macro_rules! call {
    ($env:expr, $f:ident($($arg:expr),* $(,)?)) => {{
        // SAFETY: `env` is live on this thread (the module invariant); the other arguments are
        // valid for the call as documented by Node-API.
        let status = unsafe { $f($env.0, $($arg),*) };
        $env.check(status)
    }};
}

impl Env {
    /// Turns a status into a result: a pending exception stays pending, other failures become
    /// an `Error` naming the status.
    pub fn check(self, status: napi_status) -> Result<()> {
        if status == Status::napi_ok {
            return Ok(());
        }
        let mut pending = false;
        // SAFETY: `env` is live on this thread.
        unsafe { napi_is_exception_pending(self.0, &mut pending) };
        if pending || status == Status::napi_pending_exception {
            return Err(Error::Pending);
        }
        error(format!("Node-API call failed with status {status}"))
    }

    /// `undefined`.
    pub fn undefined(self) -> napi_value {
        let mut v = ptr::null_mut();
        // SAFETY: `env` is live; getting a singleton cannot fail.
        unsafe { napi_get_undefined(self.0, &mut v) };
        v
    }

    /// `null`.
    pub fn null(self) -> napi_value {
        let mut v = ptr::null_mut();
        // SAFETY: as above.
        unsafe { napi_get_null(self.0, &mut v) };
        v
    }

    /// A boolean.
    pub fn boolean(self, b: bool) -> napi_value {
        let mut v = ptr::null_mut();
        // SAFETY: as above.
        unsafe { napi_get_boolean(self.0, b, &mut v) };
        v
    }

    /// A number.
    pub fn double(self, x: f64) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(self, napi_create_double(x, &mut v))?;
        Ok(v)
    }

    /// A bigint from a signed 64-bit integer.
    pub fn bigint_i64(self, x: i64) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(self, napi_create_bigint_int64(x, &mut v))?;
        Ok(v)
    }

    /// A bigint from a sign and little-endian magnitude words.
    pub fn bigint_words(self, negative: bool, words: &[u64]) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(
            self,
            napi_create_bigint_words(i32::from(negative), words.len(), words.as_ptr(), &mut v)
        )?;
        Ok(v)
    }

    /// A string from UTF-8 bytes (invalid sequences become U+FFFD).
    pub fn string(self, s: &[u8]) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(
            self,
            napi_create_string_utf8(s.as_ptr().cast(), s.len() as isize, &mut v)
        )?;
        Ok(v)
    }

    /// `typeof value`.
    pub fn type_of(self, value: napi_value) -> Result<i32> {
        let mut t = 0;
        call!(self, napi_typeof(value, &mut t))?;
        Ok(t)
    }

    /// A number's value.
    pub fn get_f64(self, value: napi_value) -> Result<f64> {
        let mut x = 0.0;
        call!(self, napi_get_value_double(value, &mut x))?;
        Ok(x)
    }

    /// A number's value, or None if `value` is not a number (without throwing).
    #[inline]
    pub fn try_f64(self, value: napi_value) -> Option<f64> {
        let mut x = 0.0;
        // SAFETY: `env` is live; a non-number only sets the last error status.
        let status = unsafe { napi_get_value_double(self.0, value, &mut x) };
        (status == Status::napi_ok).then_some(x)
    }

    /// A boolean's value, or None if `value` is not a boolean (without throwing).
    #[inline]
    pub fn try_bool(self, value: napi_value) -> Option<bool> {
        let mut b = false;
        // SAFETY: `env` is live; a non-boolean only sets the last error status.
        let status = unsafe { napi_get_value_bool(self.0, value, &mut b) };
        (status == Status::napi_ok).then_some(b)
    }

    /// A boolean's value.
    pub fn get_bool(self, value: napi_value) -> Result<bool> {
        let mut b = false;
        call!(self, napi_get_value_bool(value, &mut b))?;
        Ok(b)
    }

    /// A bigint's value if it fits in an i64.
    pub fn get_bigint_i64(self, value: napi_value) -> Result<(i64, bool)> {
        let (mut x, mut lossless) = (0i64, false);
        call!(
            self,
            napi_get_value_bigint_int64(value, &mut x, &mut lossless)
        )?;
        Ok((x, lossless))
    }

    /// A bigint's sign and little-endian magnitude words.
    pub fn get_bigint_words(self, value: napi_value) -> Result<(bool, Vec<u64>)> {
        let mut count = 0usize;
        let mut sign = 0i32;
        call!(
            self,
            napi_get_value_bigint_words(value, ptr::null_mut(), &mut count, ptr::null_mut())
        )?;
        let mut words = vec![0u64; count.max(1)];
        call!(
            self,
            napi_get_value_bigint_words(value, &mut sign, &mut count, words.as_mut_ptr())
        )?;
        words.truncate(count);
        Ok((sign != 0, words))
    }

    /// A string's UTF-8 bytes, appended to `out` (which is cleared first).
    pub fn get_string_into(self, value: napi_value, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        let mut len = 0usize;
        if out.capacity() < 64 {
            out.reserve(64);
        }
        // First try the existing capacity (one call for short strings).
        let cap = out.capacity();
        call!(
            self,
            napi_get_value_string_utf8(value, out.as_mut_ptr().cast(), cap, &mut len)
        )?;
        if len + 1 < cap {
            // SAFETY: Node-API wrote `len` bytes (plus a NUL) into the buffer.
            unsafe { out.set_len(len) };
            return Ok(());
        }
        call!(
            self,
            napi_get_value_string_utf8(value, ptr::null_mut(), 0, &mut len)
        )?;
        out.reserve(len + 1);
        let cap = out.capacity();
        call!(
            self,
            napi_get_value_string_utf8(value, out.as_mut_ptr().cast(), cap, &mut len)
        )?;
        // SAFETY: as above.
        unsafe { out.set_len(len) };
        Ok(())
    }

    /// A string's UTF-8 bytes.
    pub fn get_string(self, value: napi_value) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.get_string_into(value, &mut out)?;
        Ok(out)
    }

    /// A string's value as a Rust string (lossy).
    pub fn get_rust_string(self, value: napi_value) -> Result<String> {
        Ok(String::from_utf8_lossy(&self.get_string(value)?).into_owned())
    }

    /// A new plain object.
    pub fn object(self) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(self, napi_create_object(&mut v))?;
        Ok(v)
    }

    /// A new array of `len` holes.
    pub fn array(self, len: usize) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(self, napi_create_array_with_length(len, &mut v))?;
        Ok(v)
    }

    /// `array[index] = value`.
    pub fn set_element(self, array: napi_value, index: u32, value: napi_value) -> Result<()> {
        call!(self, napi_set_element(array, index, value))
    }

    /// `array[index]`.
    pub fn get_element(self, array: napi_value, index: u32) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(self, napi_get_element(array, index, &mut v))?;
        Ok(v)
    }

    /// `array.length` of a real array.
    pub fn array_len(self, array: napi_value) -> Result<u32> {
        let mut n = 0;
        call!(self, napi_get_array_length(array, &mut n))?;
        Ok(n)
    }

    /// `Array.isArray(value)`.
    pub fn is_array(self, value: napi_value) -> Result<bool> {
        let mut b = false;
        call!(self, napi_is_array(value, &mut b))?;
        Ok(b)
    }

    /// `object[name] = value` (`name` NUL-terminated).
    pub fn set_named(self, object: napi_value, name: &[u8], value: napi_value) -> Result<()> {
        debug_assert_eq!(name.last(), Some(&0));
        call!(
            self,
            napi_set_named_property(object, name.as_ptr().cast(), value)
        )
    }

    /// `object[name]` (`name` NUL-terminated).
    pub fn get_named(self, object: napi_value, name: &[u8]) -> Result<napi_value> {
        debug_assert_eq!(name.last(), Some(&0));
        let mut v = ptr::null_mut();
        call!(
            self,
            napi_get_named_property(object, name.as_ptr().cast(), &mut v)
        )?;
        Ok(v)
    }

    /// The own enumerable string keys of an object (`Object.keys`).
    pub fn keys(self, object: napi_value) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(self, napi_get_property_names(object, &mut v))?;
        Ok(v)
    }

    /// `object[key]`.
    pub fn get_property(self, object: napi_value, key: napi_value) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(self, napi_get_property(object, key, &mut v))?;
        Ok(v)
    }

    /// `Object.getPrototypeOf(object)`.
    pub fn prototype_of(self, object: napi_value) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(self, napi_get_prototype(object, &mut v))?;
        Ok(v)
    }

    /// `a === b`.
    pub fn strict_equals(self, a: napi_value, b: napi_value) -> Result<bool> {
        let mut eq = false;
        call!(self, napi_strict_equals(a, b, &mut eq))?;
        Ok(eq)
    }

    /// `object instanceof constructor`.
    pub fn instance_of(self, object: napi_value, constructor: napi_value) -> Result<bool> {
        let mut b = false;
        call!(self, napi_instanceof(object, constructor, &mut b))?;
        Ok(b)
    }

    /// Calls `func` with `this` and `args`.
    pub fn call_function(
        self,
        this: napi_value,
        func: napi_value,
        args: &[napi_value],
    ) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(
            self,
            napi_call_function(this, func, args.len(), args.as_ptr(), &mut v)
        )?;
        Ok(v)
    }

    /// `new constructor(...args)`.
    pub fn new_instance(self, constructor: napi_value, args: &[napi_value]) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(
            self,
            napi_new_instance(constructor, args.len(), args.as_ptr(), &mut v)
        )?;
        Ok(v)
    }

    /// A native function calling `cb` with `data`.
    pub fn function(self, name: &str, cb: napi_callback, data: *mut c_void) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(
            self,
            napi_create_function(name.as_ptr().cast(), name.len() as isize, cb, data, &mut v)
        )?;
        Ok(v)
    }

    /// A reference to `value` with `count` strong counts (0 = weak).
    pub fn reference(self, value: napi_value, count: u32) -> Result<napi_ref> {
        let mut r = ptr::null_mut();
        call!(self, napi_create_reference(value, count, &mut r))?;
        Ok(r)
    }

    /// The value of a reference (NULL if a weak reference's value was collected).
    pub fn deref(self, r: napi_ref) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(self, napi_get_reference_value(r, &mut v))?;
        Ok(v)
    }

    /// Deletes a reference.
    pub fn delete_reference(self, r: napi_ref) {
        // SAFETY: `r` was created in this env and is deleted once.
        unsafe { napi_delete_reference(self.0, r) };
    }

    /// Attaches `data` to `object`; `finalize` runs when the object is collected.
    pub fn wrap(
        self,
        object: napi_value,
        data: *mut c_void,
        finalize: napi_finalize,
        hint: *mut c_void,
    ) -> Result<()> {
        call!(
            self,
            napi_wrap(object, data, finalize, hint, ptr::null_mut())
        )
    }

    /// The data attached to `object` by [`Env::wrap`], if any.
    pub fn unwrap(self, object: napi_value) -> Option<*mut c_void> {
        let mut data = ptr::null_mut();
        // SAFETY: `env` is live; a failed unwrap (not wrapped) returns napi_invalid_arg without
        // throwing.
        let status = unsafe { napi_unwrap(self.0, object, &mut data) };
        (status == Status::napi_ok && !data.is_null()).then_some(data)
    }

    /// Whether `value` is a TypedArray.
    pub fn is_typedarray(self, value: napi_value) -> Result<bool> {
        let mut b = false;
        call!(self, napi_is_typedarray(value, &mut b))?;
        Ok(b)
    }

    /// A TypedArray's element type, length, data pointer, ArrayBuffer and byte offset.
    pub fn typedarray_info(self, value: napi_value) -> Result<TypedArrayInfo> {
        let mut info = TypedArrayInfo {
            kind: 0,
            length: 0,
            data: ptr::null_mut(),
            buffer: ptr::null_mut(),
            byte_offset: 0,
        };
        call!(
            self,
            napi_get_typedarray_info(
                value,
                &mut info.kind,
                &mut info.length,
                &mut info.data,
                &mut info.buffer,
                &mut info.byte_offset,
            )
        )?;
        Ok(info)
    }

    /// Whether `value` is an ArrayBuffer.
    pub fn is_arraybuffer(self, value: napi_value) -> Result<bool> {
        let mut b = false;
        call!(self, napi_is_arraybuffer(value, &mut b))?;
        Ok(b)
    }

    /// Whether an ArrayBuffer was detached (transferred); false for other values.
    pub fn is_detached_arraybuffer(self, value: napi_value) -> Result<bool> {
        let mut b = false;
        call!(self, napi_is_detached_arraybuffer(value, &mut b))?;
        Ok(b)
    }

    /// An ArrayBuffer's data and length.
    pub fn arraybuffer_info(self, value: napi_value) -> Result<(*mut c_void, usize)> {
        let (mut data, mut len) = (ptr::null_mut(), 0);
        call!(self, napi_get_arraybuffer_info(value, &mut data, &mut len))?;
        Ok((data, len))
    }

    /// Whether `value` is a DataView.
    pub fn is_dataview(self, value: napi_value) -> Result<bool> {
        let mut b = false;
        call!(self, napi_is_dataview(value, &mut b))?;
        Ok(b)
    }

    /// A DataView's data and length.
    pub fn dataview_info(self, value: napi_value) -> Result<(*mut c_void, usize)> {
        let (mut len, mut data) = (0, ptr::null_mut());
        call!(
            self,
            napi_get_dataview_info(value, &mut len, &mut data, ptr::null_mut(), ptr::null_mut())
        )?;
        Ok((data, len))
    }

    /// Whether `value` is an Error.
    pub fn is_error(self, value: napi_value) -> Result<bool> {
        let mut b = false;
        call!(self, napi_is_error(value, &mut b))?;
        Ok(b)
    }

    /// A new ArrayBuffer of `len` bytes and its data pointer.
    pub fn arraybuffer(self, len: usize) -> Result<(napi_value, *mut u8)> {
        let (mut v, mut data) = (ptr::null_mut(), ptr::null_mut());
        call!(self, napi_create_arraybuffer(len, &mut data, &mut v))?;
        Ok((v, data.cast()))
    }

    /// An ArrayBuffer over external memory, or `None` where the host forbids them.
    pub fn external_arraybuffer(
        self,
        data: *mut c_void,
        len: usize,
        finalize: napi_finalize,
        hint: *mut c_void,
    ) -> Result<Option<napi_value>> {
        let mut v = ptr::null_mut();
        // SAFETY: `data[..len]` stays valid until `finalize` runs (the caller's contract).
        let status =
            unsafe { napi_create_external_arraybuffer(self.0, data, len, finalize, hint, &mut v) };
        if status == Status::napi_no_external_buffers_allowed {
            return Ok(None);
        }
        self.check(status)?;
        Ok(Some(v))
    }

    /// A TypedArray over `buffer`.
    pub fn typedarray(
        self,
        kind: i32,
        length: usize,
        buffer: napi_value,
        byte_offset: usize,
    ) -> Result<napi_value> {
        let mut v = ptr::null_mut();
        call!(
            self,
            napi_create_typedarray(kind, length, buffer, byte_offset, &mut v)
        )?;
        Ok(v)
    }

    /// A Node `Buffer` holding a copy of `bytes`.
    pub fn buffer_copy(self, bytes: &[u8]) -> Result<napi_value> {
        let (mut v, mut data) = (ptr::null_mut(), ptr::null_mut());
        call!(
            self,
            napi_create_buffer_copy(bytes.len(), bytes.as_ptr().cast(), &mut data, &mut v)
        )?;
        Ok(v)
    }

    /// Throws `value`.
    pub fn throw(self, value: napi_value) {
        // SAFETY: `env` is live; throwing makes the exception pending.
        unsafe { napi_throw(self.0, value) };
    }

    /// Throws a plain `Error` or a `TypeError`.
    pub fn throw_message(self, type_error: bool, message: &str) {
        let text = c_message(message);
        // SAFETY: `text` is NUL-terminated.
        unsafe {
            if type_error {
                napi_throw_type_error(self.0, ptr::null(), text.as_ptr().cast());
            } else {
                napi_throw_error(self.0, ptr::null(), text.as_ptr().cast());
            }
        }
    }

    /// Throws a `RangeError`.
    pub fn throw_range_error(self, message: &str) {
        let text = c_message(message);
        // SAFETY: `text` is NUL-terminated.
        unsafe { napi_throw_range_error(self.0, ptr::null(), text.as_ptr().cast()) };
    }

    /// Takes the pending exception (`undefined` if none).
    pub fn take_exception(self) -> napi_value {
        let mut v = ptr::null_mut();
        // SAFETY: `env` is live.
        let status = unsafe { napi_get_and_clear_last_exception(self.0, &mut v) };
        if status != Status::napi_ok || v.is_null() {
            return self.undefined();
        }
        v
    }

    /// A promise and its resolver.
    pub fn promise(self) -> Result<(napi_deferred, napi_value)> {
        let (mut d, mut p) = (ptr::null_mut(), ptr::null_mut());
        call!(self, napi_create_promise(&mut d, &mut p))?;
        Ok((d, p))
    }

    /// Settles a promise.
    pub fn settle(self, deferred: napi_deferred, ok: bool, value: napi_value) -> Result<()> {
        if ok {
            call!(self, napi_resolve_deferred(deferred, value))
        } else {
            call!(self, napi_reject_deferred(deferred, value))
        }
    }

    /// Opens a handle scope (for callbacks that run outside a Node-API call).
    pub fn open_scope(self) -> Result<napi_handle_scope> {
        let mut s = ptr::null_mut();
        call!(self, napi_open_handle_scope(&mut s))?;
        Ok(s)
    }

    /// Closes a handle scope.
    pub fn close_scope(self, scope: napi_handle_scope) {
        // SAFETY: `scope` was opened on this env and is closed once, innermost first.
        unsafe { napi_close_handle_scope(self.0, scope) };
    }
}

/// What [`Env::typedarray_info`] reports.
pub struct TypedArrayInfo {
    /// The element type (`napi_typedarray_type`).
    pub kind: i32,
    /// Number of elements.
    pub length: usize,
    /// The first element.
    pub data: *mut c_void,
    /// The ArrayBuffer.
    pub buffer: napi_value,
    /// Offset of the first element in the buffer.
    pub byte_offset: usize,
}

/// The arguments of a native callback.
pub struct Args<const N: usize> {
    /// Number of arguments the caller passed.
    pub argc: usize,
    /// The first `N` arguments (`undefined` beyond `argc`).
    pub argv: [napi_value; N],
    /// `this`.
    pub this: napi_value,
    /// The function's data pointer.
    pub data: *mut c_void,
}

impl<const N: usize> Args<N> {
    /// Reads the arguments of `info`.
    pub fn get(env: Env, info: napi_callback_info) -> Result<Self> {
        let mut args = Args {
            argc: N,
            argv: [ptr::null_mut(); N],
            this: ptr::null_mut(),
            data: ptr::null_mut(),
        };
        call!(
            env,
            napi_get_cb_info(
                info,
                &mut args.argc,
                args.argv.as_mut_ptr(),
                &mut args.this,
                &mut args.data
            )
        )?;
        Ok(args)
    }

    /// Every argument (also those beyond `N`).
    pub fn all(&self, env: Env, info: napi_callback_info) -> Result<Vec<napi_value>> {
        if self.argc <= N {
            return Ok(self.argv[..self.argc].to_vec());
        }
        let mut argc = self.argc;
        let mut argv = vec![ptr::null_mut(); argc];
        call!(
            env,
            napi_get_cb_info(
                info,
                &mut argc,
                argv.as_mut_ptr(),
                ptr::null_mut(),
                ptr::null_mut()
            )
        )?;
        Ok(argv)
    }
}

/// The text of a caught panic.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}
