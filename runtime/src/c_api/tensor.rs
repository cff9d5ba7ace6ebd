//! Tensors and DLPack exchange: the C surface of [`crate::containers::tensor`].
#![warn(unsafe_op_in_unsafe_fn)]

use super::{non_null, out_ptr, safe_call};
use crate::abi::TVMFFIObjectHandle;
use crate::containers::tensor::Tensor;
use crate::dlpack::{DLManagedTensor, DLManagedTensorVersioned, DLTensor};
use crate::value::object::ObjectRef;
use std::mem::ManuallyDrop;

/// Apache converts the `int32_t` alignment with `static_cast<size_t>`: a negative value becomes
/// a huge alignment (and shows up as such in the error message).
fn alignment(require_alignment: i32) -> usize {
    require_alignment as isize as usize
}

/// Wraps a DLPack tensor (taking ownership on success).
#[no_mangle]
pub unsafe extern "C" fn TVMFFITensorFromDLPack(
    from: *mut DLManagedTensor,
    require_alignment: i32,
    require_contiguous: i32,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    safe_call(|| {
        // Every argument is checked before the capsule is taken over, so a failure leaves it
        // with the caller.
        let out = out_ptr(out, "out")?;
        non_null(from, "from")?;
        // SAFETY: a non-NULL capsule from the caller, handed over if the import succeeds.
        let tensor = unsafe {
            Tensor::from_dlpack(from, alignment(require_alignment), require_contiguous != 0)
        }?;
        *out = tensor.into_object().into_raw().cast();
        Ok(())
    })
}

/// Exports a Tensor as a DLPack tensor holding a reference.
#[no_mangle]
pub unsafe extern "C" fn TVMFFITensorToDLPack(
    from: TVMFFIObjectHandle,
    out: *mut *mut DLManagedTensor,
) -> i32 {
    safe_call(|| {
        let out = out_ptr(out, "out")?;
        // SAFETY: `from` is NULL or an object the caller holds a reference to.
        *out = unsafe { Tensor::from_borrowed_handle(from) }?.to_dlpack();
        Ok(())
    })
}

/// Wraps a versioned DLPack tensor (taking ownership on success).
#[no_mangle]
pub unsafe extern "C" fn TVMFFITensorFromDLPackVersioned(
    from: *mut DLManagedTensorVersioned,
    require_alignment: i32,
    require_contiguous: i32,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    safe_call(|| {
        let out = out_ptr(out, "out")?;
        non_null(from, "from")?;
        // SAFETY: as for `TVMFFITensorFromDLPack`.
        let tensor = unsafe {
            Tensor::from_dlpack_versioned(
                from,
                alignment(require_alignment),
                require_contiguous != 0,
            )
        }?;
        *out = tensor.into_object().into_raw().cast();
        Ok(())
    })
}

/// Exports a Tensor as a versioned DLPack tensor holding a reference.
#[no_mangle]
pub unsafe extern "C" fn TVMFFITensorToDLPackVersioned(
    from: TVMFFIObjectHandle,
    out: *mut *mut DLManagedTensorVersioned,
) -> i32 {
    safe_call(|| {
        let out = out_ptr(out, "out")?;
        // SAFETY: `from` is NULL or an object the caller holds a reference to.
        *out = unsafe { Tensor::from_borrowed_handle(from) }?.to_dlpack_versioned();
        Ok(())
    })
}

/// A Tensor viewing part of `source`'s memory, keeping `source` alive.
#[no_mangle]
pub unsafe extern "C" fn TVMFFITensorCreateUnsafeView(
    source: TVMFFIObjectHandle,
    prototype: *const DLTensor,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    safe_call(|| {
        let out = out_ptr(out, "out")?;
        let prototype = non_null(prototype, "prototype")?;
        // The caller's reference, borrowed without touching the count (the view takes its own);
        // a NULL source is accepted, as in Apache's runtime, and keeps nothing alive.
        let source = (!source.is_null()).then(|| {
            // SAFETY: a non-NULL source is a live object the caller holds a reference to;
            // ManuallyDrop keeps that reference the caller's.
            ManuallyDrop::new(unsafe { ObjectRef::from_raw(source.cast()) })
        });
        // SAFETY: the prototype's shape and strides hold `ndim` values and describe memory the
        // source keeps alive: the contract of this entry point.
        let view = unsafe { Tensor::create_unsafe_view(source.as_deref(), prototype) }?;
        *out = view.into_object().into_raw().cast();
        Ok(())
    })
}
