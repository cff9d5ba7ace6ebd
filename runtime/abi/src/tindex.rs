//! Short names for the fixed type indices of [`TVMFFITypeIndex`](crate::abi::TVMFFITypeIndex).

use crate::abi::TVMFFITypeIndex as T;

pub const ANY: i32 = T::kTVMFFIAny as i32;
pub const NONE: i32 = T::kTVMFFINone as i32;
pub const INT: i32 = T::kTVMFFIInt as i32;
pub const BOOL: i32 = T::kTVMFFIBool as i32;
pub const FLOAT: i32 = T::kTVMFFIFloat as i32;
pub const OPAQUE_PTR: i32 = T::kTVMFFIOpaquePtr as i32;
pub const DATA_TYPE: i32 = T::kTVMFFIDataType as i32;
pub const DEVICE: i32 = T::kTVMFFIDevice as i32;
pub const DL_TENSOR_PTR: i32 = T::kTVMFFIDLTensorPtr as i32;
pub const RAW_STR: i32 = T::kTVMFFIRawStr as i32;
pub const BYTE_ARRAY_PTR: i32 = T::kTVMFFIByteArrayPtr as i32;
pub const OBJECT_RVALUE_REF: i32 = T::kTVMFFIObjectRValueRef as i32;
pub const SMALL_STR: i32 = T::kTVMFFISmallStr as i32;
pub const SMALL_BYTES: i32 = T::kTVMFFISmallBytes as i32;
pub const UNCHANGED: i32 = T::kTVMFFIUnchanged as i32;
pub const OBJECT: i32 = T::kTVMFFIObject as i32;
pub const STR: i32 = T::kTVMFFIStr as i32;
pub const BYTES: i32 = T::kTVMFFIBytes as i32;
pub const ERROR: i32 = T::kTVMFFIError as i32;
pub const FUNCTION: i32 = T::kTVMFFIFunction as i32;
pub const SHAPE: i32 = T::kTVMFFIShape as i32;
pub const TENSOR: i32 = T::kTVMFFITensor as i32;
pub const ARRAY: i32 = T::kTVMFFIArray as i32;
pub const MAP: i32 = T::kTVMFFIMap as i32;
pub const MODULE: i32 = T::kTVMFFIModule as i32;
pub const OPAQUE_PY_OBJECT: i32 = T::kTVMFFIOpaquePyObject as i32;
pub const LIST: i32 = T::kTVMFFIList as i32;
pub const DICT: i32 = T::kTVMFFIDict as i32;
pub const VISIT_INTERRUPT: i32 = T::kTVMFFIVisitInterrupt as i32;
pub const BIG_INT: i32 = T::kTVMFFIBigInt as i32;
pub const STATIC_OBJECT_END: i32 = T::kTVMFFIStaticObjectEnd as i32;
pub const DYN_OBJECT_BEGIN: i32 = T::kTVMFFIDynObjectBegin as i32;
