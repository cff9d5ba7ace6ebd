//! Objects, values and the version.

use super::{non_null, out_ptr, safe_call};
use crate::abi::{
    TVMFFIAny, TVMFFIObject, TVMFFIObjectHandle, TVMFFIOpaqueObjectCell, TVMFFIVersion,
};
use crate::tindex;
use crate::value::error::Error;
use crate::value::object::alloc_object;
use std::ffi::c_void;

/// Writes the ABI version implemented by this runtime.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIGetVersion(out_version: *mut TVMFFIVersion) {
    if let Some(out) = out_version.as_mut() {
        *out = TVMFFIVersion {
            major: crate::abi::TVM_FFI_VERSION_MAJOR,
            minor: crate::abi::TVM_FFI_VERSION_MINOR,
            patch: crate::abi::TVM_FFI_VERSION_PATCH,
        };
    }
}

/// Adds a strong reference to an object the caller holds.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIObjectIncRef(obj: TVMFFIObjectHandle) -> i32 {
    safe_call(|| {
        let obj = non_null(obj.cast::<TVMFFIObject>(), "obj")?;
        crate::value::object::inc_ref(obj as *const TVMFFIObject as *mut TVMFFIObject);
        Ok(())
    })
}

/// Releases a strong reference (NULL is a no-op).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIObjectDecRef(obj: TVMFFIObjectHandle) -> i32 {
    // Nothing here can fail or unwind: deleters are `extern "C"` (a panic in one aborts).
    crate::value::object::dec_ref_status(obj.cast())
}

/// Payload of opaque foreign objects: the cell, then the foreign deleter.
#[repr(C)]
struct OpaquePayload {
    cell: TVMFFIOpaqueObjectCell,
    deleter: Option<unsafe extern "C" fn(*mut c_void)>,
}

impl Drop for OpaquePayload {
    fn drop(&mut self) {
        if let Some(deleter) = self.deleter {
            // SAFETY: the creator gave us the handle together with its deleter.
            unsafe { deleter(self.cell.handle) }
        }
    }
}

/// Wraps a foreign handle (only `kTVMFFIOpaquePyObject` is accepted, as in Apache's runtime).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIObjectCreateOpaque(
    handle: *mut c_void,
    type_index: i32,
    deleter: Option<unsafe extern "C" fn(handle: *mut c_void)>,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    safe_call(|| {
        let out = out_ptr(out, "out")?;
        if type_index != tindex::OPAQUE_PY_OBJECT {
            return Err(Error::new(
                "RuntimeError",
                "Only kTVMFFIOpaquePyObject is supported for now",
            ));
        }
        let obj = alloc_object(
            type_index,
            OpaquePayload {
                cell: TVMFFIOpaqueObjectCell { handle },
                deleter,
            },
            0,
        );
        *out = obj.into_raw().cast();
        Ok(())
    })
}

/// Makes an owned copy of a borrowed value.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIAnyViewToOwnedAny(
    any_view: *const TVMFFIAny,
    out: *mut TVMFFIAny,
) -> i32 {
    safe_call(|| {
        let view = non_null(any_view, "any_view")?;
        let out = out_ptr(out, "out")?;
        *out = crate::value::any::view_to_owned(view)?.into_raw();
        Ok(())
    })
}
