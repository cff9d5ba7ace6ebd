//! The types every TVM-FFI runtime has from the start, at Apache's fixed indices.

use crate::abi::TVMFFITypeMetadata;
use crate::registry::types::{TypeRegistrar, TypeSpec};
use crate::tindex;

/// POD kinds (depth 0, no parent).
const POD_TYPES: [(&str, i32); 14] = [
    ("None", tindex::NONE),
    ("int", tindex::INT),
    ("bool", tindex::BOOL),
    ("float", tindex::FLOAT),
    ("void*", tindex::OPAQUE_PTR),
    ("DataType", tindex::DATA_TYPE),
    ("Device", tindex::DEVICE),
    ("DLTensor*", tindex::DL_TENSOR_PTR),
    ("const char*", tindex::RAW_STR),
    ("TVMFFIByteArray*", tindex::BYTE_ARRAY_PTR),
    ("ObjectRValueRef", tindex::OBJECT_RVALUE_REF),
    ("ffi.SmallStr", tindex::SMALL_STR),
    ("ffi.SmallBytes", tindex::SMALL_BYTES),
    ("ffi.Unchanged", tindex::UNCHANGED),
];

/// Object kinds directly under `ffi.Object`, in Apache's registration order.
const OBJECT_TYPES: [(&str, i32); 13] = [
    ("ffi.String", tindex::STR),
    ("ffi.BigInt", tindex::BIG_INT),
    ("ffi.Bytes", tindex::BYTES),
    ("ffi.Error", tindex::ERROR),
    ("ffi.Function", tindex::FUNCTION),
    ("ffi.Shape", tindex::SHAPE),
    ("ffi.Tensor", tindex::TENSOR),
    ("ffi.Array", tindex::ARRAY),
    ("ffi.List", tindex::LIST),
    ("ffi.Map", tindex::MAP),
    ("ffi.Dict", tindex::DICT),
    ("ffi.Module", tindex::MODULE),
    ("ffi.OpaquePyObject", tindex::OPAQUE_PY_OBJECT),
];

fn fixed(index: i32, depth: i32, parent_index: i32) -> TypeSpec {
    TypeSpec {
        static_index: index,
        depth,
        num_child_slots: 0,
        child_slots_can_overflow: depth == 0 && index == tindex::OBJECT,
        parent_index,
    }
}

/// Registers the fixed types; called once while the type registry is created.
pub(crate) fn register_types(registrar: &mut TypeRegistrar) {
    fn fail(what: &str, e: crate::value::error::Error) -> ! {
        panic!("registering builtin type {what}: {e}")
    }
    registrar
        .get_or_alloc_index(b"ffi.Object", fixed(tindex::OBJECT, 0, -1))
        .unwrap_or_else(|e| fail("ffi.Object", e));
    let object_metadata = TVMFFITypeMetadata {
        doc: crate::value::any::byte_array(b""),
        creator: None,
        total_size: std::mem::size_of::<crate::abi::TVMFFIObject>() as i32,
        structural_eq_hash_kind: 0,
    };
    registrar
        .register_metadata(tindex::OBJECT, &object_metadata)
        .unwrap_or_else(|e| fail("ffi.Object", e));
    for (key, index) in POD_TYPES {
        registrar
            .get_or_alloc_index(key.as_bytes(), fixed(index, 0, -1))
            .unwrap_or_else(|e| fail(key, e));
    }
    for (key, index) in OBJECT_TYPES {
        registrar
            .get_or_alloc_index(key.as_bytes(), fixed(index, 1, tindex::OBJECT))
            .unwrap_or_else(|e| fail(key, e));
    }
    super::dyn_types::register(registrar).unwrap_or_else(|e| fail("the builtin dynamic types", e));
}
