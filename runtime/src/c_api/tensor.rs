//! Tensors and DLPack exchange. Exported now so the ABI is complete; the tensor object itself
//! arrives with the runtime built-ins, and until then these raise a clear error.

use super::safe_call;
use crate::abi::TVMFFIObjectHandle;
use crate::dlpack::{DLManagedTensor, DLManagedTensorVersioned, DLTensor};
use crate::error::Error;

/// The error raised by entry points whose feature is not built yet.
pub(super) fn not_yet(function: &str) -> Error {
    Error::new(
        "RuntimeError",
        format!("{function} is not implemented yet in the ffihub runtime"),
    )
}

/// Wraps a DLPack tensor (taking ownership on success).
#[no_mangle]
pub unsafe extern "C" fn TVMFFITensorFromDLPack(
    from: *mut DLManagedTensor,
    require_alignment: i32,
    require_contiguous: i32,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    let _ = (from, require_alignment, require_contiguous, out);
    safe_call(|| Err(not_yet("TVMFFITensorFromDLPack")))
}

/// Exports a Tensor as a DLPack tensor holding a reference.
#[no_mangle]
pub unsafe extern "C" fn TVMFFITensorToDLPack(
    from: TVMFFIObjectHandle,
    out: *mut *mut DLManagedTensor,
) -> i32 {
    let _ = (from, out);
    safe_call(|| Err(not_yet("TVMFFITensorToDLPack")))
}

/// Wraps a versioned DLPack tensor (taking ownership on success).
#[no_mangle]
pub unsafe extern "C" fn TVMFFITensorFromDLPackVersioned(
    from: *mut DLManagedTensorVersioned,
    require_alignment: i32,
    require_contiguous: i32,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    let _ = (from, require_alignment, require_contiguous, out);
    safe_call(|| Err(not_yet("TVMFFITensorFromDLPackVersioned")))
}

/// Exports a Tensor as a versioned DLPack tensor holding a reference.
#[no_mangle]
pub unsafe extern "C" fn TVMFFITensorToDLPackVersioned(
    from: TVMFFIObjectHandle,
    out: *mut *mut DLManagedTensorVersioned,
) -> i32 {
    let _ = (from, out);
    safe_call(|| Err(not_yet("TVMFFITensorToDLPackVersioned")))
}

/// A Tensor viewing part of `source`'s memory, keeping `source` alive.
#[no_mangle]
pub unsafe extern "C" fn TVMFFITensorCreateUnsafeView(
    source: TVMFFIObjectHandle,
    prototype: *const DLTensor,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    let _ = (source, prototype, out);
    safe_call(|| Err(not_yet("TVMFFITensorCreateUnsafeView")))
}
