//! The C functions of `libtvm_ffi` (from `ffihub-sys`) and helpers over its byte arrays.
//!
//! Everything here is raw: the safe API is the rest of the crate.

use ffihub_abi::abi::TVMFFIByteArray;
pub use ffihub_sys::*;

/// A borrowed `TVMFFIByteArray` over `bytes` (valid while `bytes` is).
pub(crate) fn byte_array(bytes: &[u8]) -> TVMFFIByteArray {
    TVMFFIByteArray {
        data: bytes.as_ptr().cast(),
        size: bytes.len(),
    }
}

/// The bytes of a `TVMFFIByteArray`.
///
/// # Safety
/// `array` describes `size` readable bytes (or has size 0) that outlive `'a`.
pub(crate) unsafe fn byte_slice<'a>(array: &TVMFFIByteArray) -> &'a [u8] {
    if array.size == 0 || array.data.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(array.data.cast(), array.size)
    }
}
