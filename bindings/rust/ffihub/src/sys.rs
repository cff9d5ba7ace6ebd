//! The C functions of `libtvm_ffi` (TVM-FFI C ABI 0.1.16) that this crate calls.
//!
//! They are resolved from whichever `libtvm_ffi.so` the process loads (ffihub's or Apache's); the
//! data types come from `ffihub-abi`. Everything here is raw: the safe API is the rest of the crate.
#![allow(non_snake_case)]

use ffihub_abi::abi::{
    TVMFFIAny, TVMFFIByteArray, TVMFFIFieldInfo, TVMFFIMethodInfo, TVMFFIObjectHandle,
    TVMFFISafeCallType, TVMFFITypeAttrColumn, TVMFFITypeInfo, TVMFFITypeMetadata, TVMFFIVersion,
};
use ffihub_abi::dlpack::{DLDataType, DLManagedTensorVersioned};
use std::ffi::c_void;

extern "C" {
    pub fn TVMFFIGetVersion(out: *mut TVMFFIVersion);

    pub fn TVMFFIObjectIncRef(obj: TVMFFIObjectHandle) -> i32;
    pub fn TVMFFIObjectDecRef(obj: TVMFFIObjectHandle) -> i32;
    pub fn TVMFFIAnyViewToOwnedAny(view: *const TVMFFIAny, out: *mut TVMFFIAny) -> i32;

    pub fn TVMFFIStringFromByteArray(input: *const TVMFFIByteArray, out: *mut TVMFFIAny) -> i32;
    pub fn TVMFFIBytesFromByteArray(input: *const TVMFFIByteArray, out: *mut TVMFFIAny) -> i32;
    pub fn TVMFFIDataTypeFromString(input: *const TVMFFIByteArray, out: *mut DLDataType) -> i32;
    pub fn TVMFFIDataTypeToString(dtype: *const DLDataType, out: *mut TVMFFIAny) -> i32;

    pub fn TVMFFIErrorMoveFromRaised(out: *mut TVMFFIObjectHandle);
    pub fn TVMFFIErrorSetRaised(error: TVMFFIObjectHandle);
    pub fn TVMFFIErrorCreate(
        kind: *const TVMFFIByteArray,
        message: *const TVMFFIByteArray,
        backtrace: *const TVMFFIByteArray,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;

    pub fn TVMFFIFunctionCreate(
        self_: *mut c_void,
        safe_call: TVMFFISafeCallType,
        deleter: Option<unsafe extern "C" fn(*mut c_void)>,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;
    pub fn TVMFFIFunctionCall(
        func: TVMFFIObjectHandle,
        args: *mut TVMFFIAny,
        num_args: i32,
        result: *mut TVMFFIAny,
    ) -> i32;
    pub fn TVMFFIFunctionGetGlobal(
        name: *const TVMFFIByteArray,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;
    pub fn TVMFFIFunctionSetGlobal(
        name: *const TVMFFIByteArray,
        func: TVMFFIObjectHandle,
        allow_override: i32,
    ) -> i32;
    pub fn TVMFFIFunctionSetGlobalFromMethodInfo(
        info: *const TVMFFIMethodInfo,
        allow_override: i32,
    ) -> i32;

    pub fn TVMFFITensorFromDLPackVersioned(
        from: *mut DLManagedTensorVersioned,
        require_alignment: i32,
        require_contiguous: i32,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;
    pub fn TVMFFITensorToDLPackVersioned(
        from: TVMFFIObjectHandle,
        out: *mut *mut DLManagedTensorVersioned,
    ) -> i32;

    pub fn TVMFFITypeGetOrAllocIndex(
        type_key: *const TVMFFIByteArray,
        static_type_index: i32,
        type_depth: i32,
        num_child_slots: i32,
        child_slots_can_overflow: i32,
        parent_type_index: i32,
    ) -> i32;
    pub fn TVMFFITypeKeyToIndex(type_key: *const TVMFFIByteArray, out: *mut i32) -> i32;
    pub fn TVMFFIGetTypeInfo(type_index: i32) -> *const TVMFFITypeInfo;
    pub fn TVMFFITypeRegisterField(type_index: i32, info: *const TVMFFIFieldInfo) -> i32;
    pub fn TVMFFITypeRegisterMethod(type_index: i32, info: *const TVMFFIMethodInfo) -> i32;
    pub fn TVMFFITypeRegisterMetadata(type_index: i32, metadata: *const TVMFFITypeMetadata)
        -> i32;
    pub fn TVMFFITypeRegisterAttr(
        type_index: i32,
        name: *const TVMFFIByteArray,
        value: *const TVMFFIAny,
    ) -> i32;
    pub fn TVMFFIGetTypeAttrColumn(name: *const TVMFFIByteArray) -> *const TVMFFITypeAttrColumn;
}

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
