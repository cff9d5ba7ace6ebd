//! DLPack 1.3 declarations used by the TVM-FFI ABI (the source of `include/dlpack/dlpack.h`).
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use core::ffi::c_void;

/// DLPack major version implemented by this runtime.
pub const DLPACK_MAJOR_VERSION: u32 = 1;
/// DLPack minor version implemented by this runtime.
pub const DLPACK_MINOR_VERSION: u32 = 3;
/// The tensor is read only.
pub const DLPACK_FLAG_BITMASK_READ_ONLY: u64 = 1 << 0;
/// The tensor was copied from its producer.
pub const DLPACK_FLAG_BITMASK_IS_COPIED: u64 = 1 << 1;
/// Sub-byte elements are padded to whole bytes.
pub const DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED: u64 = 1 << 2;

/// The DLPack ABI version carried by versioned managed tensors.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLPackVersion {
    pub major: u32,
    pub minor: u32,
}

/// Kinds of devices.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DLDeviceType {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17,
    kDLTrn = 18,
}

/// A device: its type (a `DLDeviceType` value) and ordinal.
// `device_type` is an `i32` in Rust (the enum in C) so that unknown device codes coming from
// foreign code are representable without undefined behaviour.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DLDevice {
    pub device_type: i32,
    pub device_id: i32,
}

/// Type codes of `DLDataType`.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DLDataTypeCode {
    kDLInt = 0,
    kDLUInt = 1,
    kDLFloat = 2,
    kDLOpaqueHandle = 3,
    kDLBfloat = 4,
    kDLComplex = 5,
    kDLBool = 6,
    kDLFloat8_e3m4 = 7,
    kDLFloat8_e4m3 = 8,
    kDLFloat8_e4m3b11fnuz = 9,
    kDLFloat8_e4m3fn = 10,
    kDLFloat8_e4m3fnuz = 11,
    kDLFloat8_e5m2 = 12,
    kDLFloat8_e5m2fnuz = 13,
    kDLFloat8_e8m0fnu = 14,
    kDLFloat6_e2m3fn = 15,
    kDLFloat6_e3m2fn = 16,
    kDLFloat4_e2m1fn = 17,
}

/// An element type: type code, bits per lane and number of lanes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DLDataType {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

/// A borrowed view of a strided n-dimensional array.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLTensor {
    pub data: *mut c_void,
    pub device: DLDevice,
    pub ndim: i32,
    pub dtype: DLDataType,
    pub shape: *mut i64,
    pub strides: *mut i64,
    pub byte_offset: u64,
}

/// A tensor with an owner (DLPack before 1.0).
#[repr(C)]
pub struct DLManagedTensor {
    pub dl_tensor: DLTensor,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// A tensor with an owner, a version and flags (DLPack 1.0 and later).
#[repr(C)]
pub struct DLManagedTensorVersioned {
    pub version: DLPackVersion,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    pub flags: u64,
    pub dl_tensor: DLTensor,
}

/// Allocates a tensor like `prototype`; on failure reports through `SetError` and returns non-zero.
pub type DLPackManagedTensorAllocator = Option<
    unsafe extern "C" fn(
        prototype: *mut DLTensor,
        out: *mut *mut DLManagedTensorVersioned,
        error_ctx: *mut c_void,
        SetError: Option<
            unsafe extern "C" fn(
                error_ctx: *mut c_void,
                kind: *const core::ffi::c_char,
                message: *const core::ffi::c_char,
            ),
        >,
    ) -> i32,
>;

/// Converts a Python object to a managed tensor without synchronizing streams.
pub type DLPackManagedTensorFromPyObjectNoSync = Option<
    unsafe extern "C" fn(py_object: *mut c_void, out: *mut *mut DLManagedTensorVersioned) -> i32,
>;

/// Converts a managed tensor to a Python object without synchronizing streams.
pub type DLPackManagedTensorToPyObjectNoSync = Option<
    unsafe extern "C" fn(
        tensor: *mut DLManagedTensorVersioned,
        out_py_object: *mut *mut c_void,
    ) -> i32,
>;

/// Fills a non-owning DLTensor view of a Python object without synchronizing streams.
pub type DLPackDLTensorFromPyObjectNoSync =
    Option<unsafe extern "C" fn(py_object: *mut c_void, out: *mut DLTensor) -> i32>;

/// Returns the producer's current work stream for a device.
pub type DLPackCurrentWorkStream = Option<
    unsafe extern "C" fn(
        device_type: i32,
        device_id: i32,
        out_current_stream: *mut *mut c_void,
    ) -> i32,
>;

/// The header of a DLPack exchange API table; `prev_api` chains older versions.
#[repr(C)]
pub struct DLPackExchangeAPIHeader {
    pub version: DLPackVersion,
    pub prev_api: *mut DLPackExchangeAPIHeader,
}

/// A table of fast DLPack exchange functions published by a framework.
#[repr(C)]
pub struct DLPackExchangeAPI {
    pub header: DLPackExchangeAPIHeader,
    pub managed_tensor_allocator: DLPackManagedTensorAllocator,
    pub managed_tensor_from_py_object_no_sync: DLPackManagedTensorFromPyObjectNoSync,
    pub managed_tensor_to_py_object_no_sync: DLPackManagedTensorToPyObjectNoSync,
    pub dltensor_from_py_object_no_sync: DLPackDLTensorFromPyObjectNoSync,
    pub current_work_stream: DLPackCurrentWorkStream,
}
