//! The C functions of `libtvm_ffi` (TVM-FFI C ABI 0.1.16) that ffihub's bindings call, declared
//! once for the Rust extension API (`ffihub`) and the Node addon.
//!
//! They resolve against whichever `libtvm_ffi.so` the process loads (ffihub's or Apache's); the
//! data types come from `ffihub-abi`. Conventions: arguments are borrowed, handles and `Any`s
//! written to `out` parameters are owned, 0 means success and -1 an error raised on this thread.
//!
//! The build script links the runtime by name; where it looks (`TVM_FFI_LIB`, `TVM_FFI_LIB_DIR`,
//! `pkg-config`) is described in `build.rs` and `docs/install.md`.
#![allow(non_snake_case)]
#![no_std]

use core::ffi::c_void;
use ffihub_abi::abi::{
    TVMFFIAny, TVMFFIByteArray, TVMFFIFieldInfo, TVMFFIMethodInfo, TVMFFIObjectHandle,
    TVMFFISafeCallType, TVMFFITypeAttrColumn, TVMFFITypeInfo, TVMFFITypeMetadata, TVMFFIVersion,
};
use ffihub_abi::dlpack::{DLDataType, DLManagedTensorVersioned};

extern "C" {
    /// The ABI version of the loaded runtime.
    pub fn TVMFFIGetVersion(out: *mut TVMFFIVersion);

    /// Adds a strong reference.
    pub fn TVMFFIObjectIncRef(obj: TVMFFIObjectHandle) -> i32;
    /// Releases a strong reference (the last one deletes the object).
    pub fn TVMFFIObjectDecRef(obj: TVMFFIObjectHandle) -> i32;
    /// Makes an owned copy of a view (strings from raw C strings, new references for objects).
    pub fn TVMFFIAnyViewToOwnedAny(view: *const TVMFFIAny, out: *mut TVMFFIAny) -> i32;

    /// Creates a string (small or heap) from bytes.
    pub fn TVMFFIStringFromByteArray(input: *const TVMFFIByteArray, out: *mut TVMFFIAny) -> i32;
    /// Creates a bytes value (small or heap) from bytes.
    pub fn TVMFFIBytesFromByteArray(input: *const TVMFFIByteArray, out: *mut TVMFFIAny) -> i32;
    /// Creates an arbitrary-precision integer from its content bytes (the runtime's format).
    pub fn TVMFFIBigIntFromByteArray(input: *const TVMFFIByteArray, out: *mut TVMFFIAny) -> i32;
    /// The content bytes of an arbitrary-precision integer (borrowed from `value`).
    pub fn TVMFFIBigIntGetContentByteArray(value: *const TVMFFIAny) -> TVMFFIByteArray;
    /// Parses a dtype string (`"float32"`).
    pub fn TVMFFIDataTypeFromString(input: *const TVMFFIByteArray, out: *mut DLDataType) -> i32;
    /// The name of a dtype, as an owned string.
    pub fn TVMFFIDataTypeToString(dtype: *const DLDataType, out: *mut TVMFFIAny) -> i32;

    /// Takes the error raised on this thread (NULL if none).
    pub fn TVMFFIErrorMoveFromRaised(out: *mut TVMFFIObjectHandle);
    /// Raises `error` on this thread (the runtime takes its own reference).
    pub fn TVMFFIErrorSetRaised(error: TVMFFIObjectHandle);
    /// Creates an error object from kind, message and backtrace.
    pub fn TVMFFIErrorCreate(
        kind: *const TVMFFIByteArray,
        message: *const TVMFFIByteArray,
        backtrace: *const TVMFFIByteArray,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;

    /// Creates a function object calling `safe_call(self_, ...)`; `deleter(self_)` runs when it dies.
    pub fn TVMFFIFunctionCreate(
        self_: *mut c_void,
        safe_call: TVMFFISafeCallType,
        deleter: Option<unsafe extern "C" fn(*mut c_void)>,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;
    /// Calls a function with borrowed arguments; the result is owned.
    pub fn TVMFFIFunctionCall(
        func: TVMFFIObjectHandle,
        args: *mut TVMFFIAny,
        num_args: i32,
        result: *mut TVMFFIAny,
    ) -> i32;
    /// Looks a global function up (a new reference, or NULL).
    pub fn TVMFFIFunctionGetGlobal(
        name: *const TVMFFIByteArray,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;
    /// Registers a global function without metadata.
    pub fn TVMFFIFunctionSetGlobal(
        name: *const TVMFFIByteArray,
        func: TVMFFIObjectHandle,
        allow_override: i32,
    ) -> i32;
    /// Registers a global function with doc and metadata.
    pub fn TVMFFIFunctionSetGlobalFromMethodInfo(
        info: *const TVMFFIMethodInfo,
        allow_override: i32,
    ) -> i32;

    /// Adopts a DLPack tensor as a Tensor object.
    pub fn TVMFFITensorFromDLPackVersioned(
        from: *mut DLManagedTensorVersioned,
        require_alignment: i32,
        require_contiguous: i32,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;
    /// Exports a Tensor as a DLPack tensor holding a reference.
    pub fn TVMFFITensorToDLPackVersioned(
        from: TVMFFIObjectHandle,
        out: *mut *mut DLManagedTensorVersioned,
    ) -> i32;

    /// Returns the index of a type key, allocating it under `parent_type_index` if new (`-2` as parent: query only).
    pub fn TVMFFITypeGetOrAllocIndex(
        type_key: *const TVMFFIByteArray,
        static_type_index: i32,
        type_depth: i32,
        num_child_slots: i32,
        child_slots_can_overflow: i32,
        parent_type_index: i32,
    ) -> i32;
    /// Looks a type key up.
    pub fn TVMFFITypeKeyToIndex(type_key: *const TVMFFIByteArray, out: *mut i32) -> i32;
    /// The process-lifetime record of a type index.
    pub fn TVMFFIGetTypeInfo(type_index: i32) -> *const TVMFFITypeInfo;
    /// Appends a reflected field to a type.
    pub fn TVMFFITypeRegisterField(type_index: i32, info: *const TVMFFIFieldInfo) -> i32;
    /// Appends a reflected method to a type.
    pub fn TVMFFITypeRegisterMethod(type_index: i32, info: *const TVMFFIMethodInfo) -> i32;
    /// Sets a type's metadata (doc, creator, size).
    pub fn TVMFFITypeRegisterMetadata(type_index: i32, metadata: *const TVMFFITypeMetadata) -> i32;
    /// Sets a type attribute (`__ffi_init__`...).
    pub fn TVMFFITypeRegisterAttr(
        type_index: i32,
        name: *const TVMFFIByteArray,
        value: *const TVMFFIAny,
    ) -> i32;
    /// The column of a type attribute (NULL if never created).
    pub fn TVMFFIGetTypeAttrColumn(name: *const TVMFFIByteArray) -> *const TVMFFITypeAttrColumn;
}
