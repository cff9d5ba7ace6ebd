//! The data structures of the TVM-FFI C ABI 0.1.16 (the source of `include/tvm/ffi/c_api.h`).
//!
//! Every struct here is `#[repr(C)]` with the exact size, alignment and field offsets of Apache
//! TVM-FFI's `c_api.h`; the layout conformance test compares them against Apache's header.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use crate::dlpack::{DLDataType, DLDevice};
use core::ffi::{c_char, c_void};
use core::sync::atomic::AtomicU64;

/// Major version of the TVM-FFI ABI implemented here.
pub const TVM_FFI_VERSION_MAJOR: u32 = 0;
/// Minor version of the TVM-FFI ABI implemented here.
pub const TVM_FFI_VERSION_MINOR: u32 = 1;
/// Patch version of the TVM-FFI ABI implemented here.
pub const TVM_FFI_VERSION_PATCH: u32 = 16;

/// The ABI version reported by `TVMFFIGetVersion`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TVMFFIVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

/// Type indices with a fixed meaning. Values from 128 on are allocated at runtime.
///
/// `kTVMFFIStaticObjectBegin` (= `kTVMFFIObject`) is declared by the header only, since Rust enums
/// cannot repeat a discriminant.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TVMFFITypeIndex {
    kTVMFFIAny = -1,
    kTVMFFINone = 0,
    kTVMFFIInt = 1,
    kTVMFFIBool = 2,
    kTVMFFIFloat = 3,
    kTVMFFIOpaquePtr = 4,
    kTVMFFIDataType = 5,
    kTVMFFIDevice = 6,
    kTVMFFIDLTensorPtr = 7,
    kTVMFFIRawStr = 8,
    kTVMFFIByteArrayPtr = 9,
    kTVMFFIObjectRValueRef = 10,
    kTVMFFISmallStr = 11,
    kTVMFFISmallBytes = 12,
    kTVMFFIUnchanged = 13,
    kTVMFFIObject = 64,
    kTVMFFIStr = 65,
    kTVMFFIBytes = 66,
    kTVMFFIError = 67,
    kTVMFFIFunction = 68,
    kTVMFFIShape = 69,
    kTVMFFITensor = 70,
    kTVMFFIArray = 71,
    kTVMFFIMap = 72,
    kTVMFFIModule = 73,
    kTVMFFIOpaquePyObject = 74,
    kTVMFFIList = 75,
    kTVMFFIDict = 76,
    kTVMFFIVisitInterrupt = 77,
    kTVMFFIBigInt = 78,
    kTVMFFIStaticObjectEnd = 79,
    kTVMFFIDynObjectBegin = 128,
}

/// Handle to an object: always points at its `TVMFFIObject` header.
pub type TVMFFIObjectHandle = *mut c_void;

/// What an object deleter is asked to do.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TVMFFIObjectDeleterFlagBitMask {
    /// The strong count reached zero: destroy the contents.
    kTVMFFIObjectDeleterFlagBitMaskStrong = 1,
    /// The weak count reached zero: free the memory.
    kTVMFFIObjectDeleterFlagBitMaskWeak = 2,
    /// Both at once.
    kTVMFFIObjectDeleterFlagBitMaskBoth = 3,
}

/// Signature of an object deleter.
pub type TVMFFIObjectDeleter = Option<unsafe extern "C" fn(self_: *mut c_void, flags: i32)>;

/// The 24-byte header shared by every heap object.
///
/// `combined_ref_count` holds the strong count in its low 32 bits and the weak count in its high
/// 32 bits; a fresh object starts at `(1 << 32) | 1`.
#[repr(C)]
pub struct TVMFFIObject {
    pub combined_ref_count: AtomicU64,
    pub type_index: i32,
    pub __padding: u32,
    pub deleter: TVMFFIObjectDeleter,
}

/// The 8-byte payload of a `TVMFFIAny`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union TVMFFIAnyValue {
    pub v_int64: i64,
    pub v_float64: f64,
    pub v_ptr: *mut c_void,
    pub v_c_str: *const c_char,
    pub v_obj: *mut TVMFFIObject,
    pub v_dtype: DLDataType,
    pub v_device: DLDevice,
    pub v_bytes: [u8; 8],
    pub v_uint64: u64,
}

/// The 16-byte tagged value passed through every call.
///
/// `small_str_len` shares its slot with `zero_padding`: it must be zero for everything but small
/// strings and small bytes.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TVMFFIAny {
    pub type_index: i32,
    pub small_str_len: u32,
    pub value: TVMFFIAnyValue,
}

/// A borrowed byte range.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TVMFFIByteArray {
    pub data: *const c_char,
    pub size: usize,
}

/// The cell of a Shape object.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TVMFFIShapeCell {
    pub data: *const i64,
    pub size: usize,
}

/// The cell of Array and List objects.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TVMFFISeqCell {
    pub data: *mut c_void,
    pub size: i64,
    pub capacity: i64,
    pub data_deleter: Option<unsafe extern "C" fn(*mut c_void)>,
}

/// How `update_backtrace` changes an error's backtrace.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TVMFFIBacktraceUpdateMode {
    kTVMFFIBacktraceUpdateModeReplace = 0,
    kTVMFFIBacktraceUpdateModeAppend = 1,
}

/// The cell of an Error object.
#[repr(C)]
pub struct TVMFFIErrorCell {
    pub kind: TVMFFIByteArray,
    pub message: TVMFFIByteArray,
    pub backtrace: TVMFFIByteArray,
    pub update_backtrace: Option<
        unsafe extern "C" fn(
            self_: TVMFFIObjectHandle,
            backtrace: *const TVMFFIByteArray,
            update_mode: i32,
        ),
    >,
    pub cause_chain: TVMFFIObjectHandle,
    pub extra_context: TVMFFIObjectHandle,
}

/// The packed calling convention: borrowed arguments in, an owned result out, 0 or -1.
pub type TVMFFISafeCallType = Option<
    unsafe extern "C" fn(
        handle: *mut c_void,
        args: *const TVMFFIAny,
        num_args: i32,
        result: *mut TVMFFIAny,
    ) -> i32,
>;

/// The cell of a Function object. `cpp_call` is always NULL for functions this runtime creates.
#[repr(C)]
pub struct TVMFFIFunctionCell {
    pub safe_call: TVMFFISafeCallType,
    pub cpp_call: *mut c_void,
}

/// The cell of an opaque foreign object.
#[repr(C)]
pub struct TVMFFIOpaqueObjectCell {
    pub handle: *mut c_void,
}

/// Sits right before an object allocated through a custom allocator.
#[repr(C)]
pub struct TVMFFIObjectAllocHeader {
    pub delete_space: Option<unsafe extern "C" fn(ptr: *mut c_void)>,
}

/// A process-wide object allocator.
#[repr(C)]
pub struct TVMFFICustomAllocator {
    pub allocate: Option<
        unsafe extern "C" fn(
            size: usize,
            alignment: usize,
            type_index: i32,
            context: *mut c_void,
        ) -> *mut c_void,
    >,
    pub context: *mut c_void,
}

/// Reads a field at `field` into an owned `result`.
pub type TVMFFIFieldGetter =
    Option<unsafe extern "C" fn(field: *mut c_void, result: *mut TVMFFIAny) -> i32>;
/// Writes `value` into the field at `field`.
pub type TVMFFIFieldSetter =
    Option<unsafe extern "C" fn(field: *mut c_void, value: *const TVMFFIAny) -> i32>;
/// Creates a default instance of a type.
pub type TVMFFIObjectCreator = Option<unsafe extern "C" fn(result: *mut TVMFFIObjectHandle) -> i32>;

/// Bits of `TVMFFIFieldInfo::flags` and `TVMFFIMethodInfo::flags`.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TVMFFIFieldFlagBitMask {
    kTVMFFIFieldFlagBitMaskWritable = 1 << 0,
    kTVMFFIFieldFlagBitMaskHasDefault = 1 << 1,
    kTVMFFIFieldFlagBitMaskIsStaticMethod = 1 << 2,
    kTVMFFIFieldFlagBitMaskSEqHashIgnore = 1 << 3,
    kTVMFFIFieldFlagBitMaskSEqHashDefPattern = 1 << 4,
    kTVMFFIFieldFlagBitMaskDefaultFromFactory = 1 << 5,
    kTVMFFIFieldFlagBitMaskReprOff = 1 << 6,
    kTVMFFIFieldFlagBitMaskCompareOff = 1 << 7,
    kTVMFFIFieldFlagBitMaskHashOff = 1 << 8,
    kTVMFFIFieldFlagBitMaskInitOff = 1 << 9,
    kTVMFFIFieldFlagBitMaskKwOnly = 1 << 10,
    kTVMFFIFieldFlagBitSetterIsFunctionObj = 1 << 11,
    kTVMFFIFieldFlagBitMaskSEqHashDefSimple = 1 << 12,
}

/// How a type takes part in structural equality and hashing.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TVMFFISEqHashKind {
    kTVMFFISEqHashKindUnsupported = 0,
    kTVMFFISEqHashKindTreeNode = 1,
    kTVMFFISEqHashKindFreeVar = 2,
    kTVMFFISEqHashKindDAGNode = 3,
    kTVMFFISEqHashKindConstTreeNode = 4,
    kTVMFFISEqHashKindUniqueInstance = 5,
}

/// Definition-region kinds of structural visitors.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TVMFFIDefRegionKind {
    kTVMFFIDefRegionKindNone = 0,
    kTVMFFIDefRegionKindPattern = 1,
    kTVMFFIDefRegionKindSimple = 2,
}

/// Reflection record of one field.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TVMFFIFieldInfo {
    pub name: TVMFFIByteArray,
    pub doc: TVMFFIByteArray,
    pub metadata: TVMFFIByteArray,
    pub flags: i64,
    pub size: i64,
    pub alignment: i64,
    pub offset: i64,
    pub getter: TVMFFIFieldGetter,
    pub setter: *mut c_void,
    pub default_value_or_factory: TVMFFIAny,
    pub field_static_type_index: i32,
}

/// Reflection record of one method (or of a global function).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TVMFFIMethodInfo {
    pub name: TVMFFIByteArray,
    pub doc: TVMFFIByteArray,
    pub metadata: TVMFFIByteArray,
    pub flags: i64,
    pub method: TVMFFIAny,
}

/// Extra reflection data of a type.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TVMFFITypeMetadata {
    pub doc: TVMFFIByteArray,
    pub creator: TVMFFIObjectCreator,
    pub total_size: i32,
    /// A `TVMFFISEqHashKind` value (kept as `i32`: foreign code may store any value).
    pub structural_eq_hash_kind: i32,
}

/// One named type attribute: `data[type_index - begin_index]` for types in range.
#[repr(C)]
pub struct TVMFFITypeAttrColumn {
    pub data: *const TVMFFIAny,
    pub size: i32,
    pub begin_index: i32,
}

/// Runtime information about a type; its address never changes once handed out.
#[repr(C)]
pub struct TVMFFITypeInfo {
    pub type_index: i32,
    pub type_depth: i32,
    pub type_key: TVMFFIByteArray,
    pub type_ancestors: *const *const TVMFFITypeInfo,
    pub type_key_hash: u64,
    pub num_fields: i32,
    pub num_methods: i32,
    pub fields: *const TVMFFIFieldInfo,
    pub methods: *const TVMFFIMethodInfo,
    pub metadata: *const TVMFFITypeMetadata,
}

/// Handle to a device stream.
pub type TVMFFIStreamHandle = *mut c_void;
