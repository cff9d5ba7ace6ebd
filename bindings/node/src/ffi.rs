//! The C functions of `libtvm_ffi` (declared in `ffihub-sys`) and small helpers over the object
//! layouts (which are ABI too).
//!
//! They resolve against whichever `libtvm_ffi.so` the process loaded (ffihub's or Apache's); the
//! data types come from `ffihub-abi`. Conventions: arguments are borrowed, handles and `Any`s
//! written to `out` parameters are owned, 0 means success and -1 an error raised on this thread.

use ffihub_abi::abi::{
    TVMFFIAny, TVMFFIByteArray, TVMFFIObject, TVMFFIObjectHandle, TVMFFITypeInfo,
};
use ffihub_abi::dlpack::{DLDataType, DLTensor};
use ffihub_abi::tindex;
use std::ffi::c_void;
use std::ptr;

pub use ffihub_sys::*;

/// A byte array viewing `bytes` (valid while `bytes` is).
pub fn byte_array(bytes: &[u8]) -> TVMFFIByteArray {
    TVMFFIByteArray {
        data: bytes.as_ptr().cast(),
        size: bytes.len(),
    }
}

/// The bytes of a byte array.
///
/// # Safety
/// `array` must describe readable memory that outlives the returned slice.
pub unsafe fn bytes_of<'a>(array: &TVMFFIByteArray) -> &'a [u8] {
    if array.size == 0 || array.data.is_null() {
        &[]
    } else {
        // SAFETY: the caller guarantees `data[..size]` is readable for 'a.
        unsafe { std::slice::from_raw_parts(array.data.cast(), array.size) }
    }
}

/// The payload of an `Any` read as an i64 (Int, Bool).
pub fn payload_i64(value: &TVMFFIAny) -> i64 {
    // SAFETY: the payload is 8 initialized bytes and every bit pattern is a valid i64.
    unsafe { value.value.v_int64 }
}

/// The payload of an `Any` read as an f64 (Float).
pub fn payload_f64(value: &TVMFFIAny) -> f64 {
    // SAFETY: the payload is 8 initialized bytes and every bit pattern is a valid f64.
    unsafe { value.value.v_float64 }
}

/// The payload of an `Any` read as a pointer (objects, views, opaque pointers).
pub fn payload_ptr(value: &TVMFFIAny) -> *mut c_void {
    // SAFETY: the payload is 8 initialized bytes; reading a pointer dereferences nothing.
    unsafe { value.value.v_ptr }
}

/// The payload of an `Any` read as a DataType.
pub fn payload_dtype(value: &TVMFFIAny) -> DLDataType {
    // SAFETY: the payload is 8 initialized bytes; any bits are a valid DLDataType.
    unsafe { value.value.v_dtype }
}

/// The payload of an `Any` read as a Device.
pub fn payload_device(value: &TVMFFIAny) -> ffihub_abi::dlpack::DLDevice {
    // SAFETY: the payload is 8 initialized bytes; any bits are a valid DLDevice.
    unsafe { value.value.v_device }
}

/// A `None` value.
pub const fn none() -> TVMFFIAny {
    TVMFFIAny {
        type_index: tindex::NONE,
        small_str_len: 0,
        value: ffihub_abi::abi::TVMFFIAnyValue { v_int64: 0 },
    }
}

/// An `Any` holding an object handle (the reference is not changed).
pub fn object_any(handle: TVMFFIObjectHandle) -> TVMFFIAny {
    // SAFETY: handles always point at a live object header.
    let type_index = unsafe { type_index_of(handle) };
    TVMFFIAny {
        type_index,
        small_str_len: 0,
        value: ffihub_abi::abi::TVMFFIAnyValue {
            v_obj: handle.cast(),
        },
    }
}

/// The type index stored in an object's header.
///
/// # Safety
/// `handle` must point at a live object.
pub unsafe fn type_index_of(handle: TVMFFIObjectHandle) -> i32 {
    // SAFETY: every handle points at the 24-byte TVMFFIObject header.
    unsafe { (*(handle as *const TVMFFIObject)).type_index }
}

/// The combined reference count of an object: weak references in the high 32 bits, strong
/// ones in the low 32.
///
/// # Safety
/// `handle` must point at a live object.
pub unsafe fn combined_count(handle: TVMFFIObjectHandle) -> u64 {
    // SAFETY: every handle points at the header; the counter is atomic.
    unsafe {
        (*(handle as *const TVMFFIObject))
            .combined_ref_count
            .load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The strong reference count of an object (low 32 bits of the combined count).
///
/// # Safety
/// `handle` must point at a live object.
pub unsafe fn strong_count(handle: TVMFFIObjectHandle) -> u32 {
    // SAFETY: the caller's guarantee.
    unsafe { combined_count(handle) as u32 }
}

/// The cell of an object (`handle + 24`, right after the header).
///
/// # Safety
/// `handle` must point at a live object whose cell has type `T`.
pub unsafe fn cell<T>(handle: TVMFFIObjectHandle) -> *mut T {
    // SAFETY: the caller guarantees the object has a `T` after its header.
    unsafe {
        (handle as *mut u8)
            .add(std::mem::size_of::<TVMFFIObject>())
            .cast()
    }
}

/// The DLTensor of a Tensor object.
///
/// # Safety
/// `handle` must be a live `ffi.Tensor`.
pub unsafe fn dltensor(handle: TVMFFIObjectHandle) -> *mut DLTensor {
    // SAFETY: a Tensor's cell is its DLTensor.
    unsafe { cell::<DLTensor>(handle) }
}

/// The arguments of a safe call as a slice.
///
/// # Safety
/// `args` points at `num_args` valid values (or `num_args` is 0), alive for `'a`.
pub unsafe fn call_args<'a>(args: *const TVMFFIAny, num_args: i32) -> &'a [TVMFFIAny] {
    if num_args <= 0 || args.is_null() {
        &[]
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts(args, num_args as usize) }
    }
}

/// Releases an owned `Any` (DecRef for objects) and resets it to None.
pub fn release(value: &mut TVMFFIAny) {
    if value.type_index >= tindex::OBJECT {
        // SAFETY: an owned Any with an object type index holds one strong reference.
        unsafe { TVMFFIObjectDecRef(value.value.v_obj.cast()) };
    }
    *value = none();
}

/// Takes the error raised on this thread, or makes one if the runtime raised nothing.
pub fn take_raised_error() -> TVMFFIObjectHandle {
    take_raised_if_any().unwrap_or_else(|| {
        make_error(
            "InternalError",
            "a TVM-FFI call failed without raising an error",
            "",
        )
    })
}

/// Takes the error raised on this thread (owned), if there is one.
pub fn take_raised_if_any() -> Option<TVMFFIObjectHandle> {
    let mut err: TVMFFIObjectHandle = ptr::null_mut();
    // SAFETY: the out pointer is valid; the runtime moves its thread-local error into it.
    unsafe { TVMFFIErrorMoveFromRaised(&mut err) };
    (!err.is_null()).then_some(err)
}

/// Creates an error object (owned).
pub fn make_error(kind: &str, message: &str, backtrace: &str) -> TVMFFIObjectHandle {
    let (k, m, b) = (
        byte_array(kind.as_bytes()),
        byte_array(message.as_bytes()),
        byte_array(backtrace.as_bytes()),
    );
    let mut out: TVMFFIObjectHandle = ptr::null_mut();
    // SAFETY: the byte arrays view live strings; the out pointer is valid.
    let rc = unsafe { TVMFFIErrorCreate(&k, &m, &b, &mut out) };
    if rc != 0 || out.is_null() {
        // Only allocation failure gets here; there is nothing better to do.
        std::process::abort();
    }
    out
}

/// Looks a global function up (owned handle, or NULL when missing).
pub fn get_global(name: &[u8]) -> Result<TVMFFIObjectHandle, TVMFFIObjectHandle> {
    let name = byte_array(name);
    let mut out: TVMFFIObjectHandle = ptr::null_mut();
    // SAFETY: the name views live bytes; the out pointer is valid.
    if unsafe { TVMFFIFunctionGetGlobal(&name, &mut out) } != 0 {
        return Err(take_raised_error());
    }
    Ok(out)
}

/// The type index of a type key.
pub fn type_key_to_index(key: &[u8]) -> Option<i32> {
    let key = byte_array(key);
    let mut out = 0;
    // SAFETY: the key views live bytes; the out pointer is valid.
    if unsafe { TVMFFITypeKeyToIndex(&key, &mut out) } != 0 {
        // Unknown key: drop the raised error.
        let err = take_raised_error();
        // SAFETY: `err` is an owned reference.
        unsafe { TVMFFIObjectDecRef(err) };
        return None;
    }
    Some(out)
}

/// The runtime's record of a type (stable for the life of the process).
pub fn type_info(type_index: i32) -> Option<&'static TVMFFITypeInfo> {
    // SAFETY: only called with indices of registered types (from object headers or
    // TVMFFITypeKeyToIndex); the record is never freed or moved.
    let info = unsafe { TVMFFIGetTypeInfo(type_index) };
    // SAFETY: non-null records live for the whole process.
    unsafe { info.as_ref() }
}

/// The key of a type.
pub fn type_key(type_index: i32) -> String {
    match type_info(type_index) {
        // SAFETY: type keys are runtime-owned strings that live for the process.
        Some(info) => String::from_utf8_lossy(unsafe { bytes_of(&info.type_key) }).into_owned(),
        None => format!("<type {type_index}>"),
    }
}

/// The ancestors of a type, most derived first, starting with the type itself.
pub fn self_and_ancestors(type_index: i32) -> Vec<&'static TVMFFITypeInfo> {
    let mut out = Vec::new();
    if let Some(info) = type_info(type_index) {
        out.push(info);
        for depth in (0..info.type_depth.max(0) as usize).rev() {
            // SAFETY: `type_ancestors` has `type_depth` entries, each a stable record.
            let parent = unsafe { *info.type_ancestors.add(depth) };
            // SAFETY: ancestor records live for the process.
            if let Some(parent) = unsafe { parent.as_ref() } {
                out.push(parent);
            }
        }
    }
    out
}
