//! The global functions that later releases removed, with the behaviour and signatures they had
//! in the last release that registered them (docs/compatibility.md).

use super::reflection::{
    field_getter, make_init, object_size, register_allocator, register_attr, type_info_of,
};
use crate::abi::TVMFFIMethodInfo;
use crate::registry::define::{def_typed, Globals};
use crate::registry::reflection::missing_object;
use crate::registry::type_schema::{INT, NONE, OBJECT, PACKED_FUNCTION};
use crate::value::any::{byte_array, Any};
use crate::value::error::Error;
use crate::value::object::ObjectRef;

/// `TVMFFIFieldFlagBitMaskIsStaticMethod`.
const STATIC_METHOD: i64 =
    crate::abi::TVMFFIFieldFlagBitMask::kTVMFFIFieldFlagBitMaskIsStaticMethod as i64;

/// Registers a method of `type_index` (a copy of `function` is kept by the type table).
fn register_method(
    type_index: i32,
    name: &[u8],
    flags: i64,
    metadata: &[u8],
    function: ObjectRef,
) -> Result<(), Error> {
    let function = Any::object(function);
    let info = TVMFFIMethodInfo {
        name: byte_array(name),
        doc: byte_array(b""),
        metadata: byte_array(metadata),
        flags,
        method: *function.as_raw(),
    };
    crate::registry::types::register_method(type_index, &info)
}

/// `ffi.MakeFFINew(type_index, total_size)` (0.1.10): the allocator (`__ffi_new__`) and the
/// shallow copy (`__ffi_shallow_copy__`, as a type attribute and as a method) of a type a binding
/// defined field by field. 0.1.11 folded it into `ffi._PyClassRegisterTypeAttrColumns`.
fn make_ffi_new(type_index: i32, total_size: i64) -> Result<(), Error> {
    let size = object_size(total_size)?;
    type_info_of(type_index)?;
    let copy = register_allocator(type_index, size)?;
    register_attr(type_index, b"__ffi_shallow_copy__", copy.clone())?;
    register_method(type_index, b"__ffi_shallow_copy__", 0, b"", copy)
}

/// `ffi.RegisterAutoInit(type_index)` (0.1.10): the generated constructor registered as the
/// static method `__ffi_init__`, marked `auto_init` (0.1.10's bindings look for that method;
/// later releases use the `__ffi_init__` type attribute instead).
fn register_auto_init(type_index: i32) -> Result<(), Error> {
    let init = make_init(type_index)?;
    let metadata = br#"{"type_schema":{"type":"ffi.Function"},"auto_init":true}"#;
    register_method(type_index, b"__ffi_init__", STATIC_METHOD, metadata, init)
}

/// Registers the removed globals.
pub(crate) fn register(globals: &mut Globals) {
    // <= 0.1.8: the sentinel `ffi.MapGetItemOrMissing` returns; 0.1.9 renamed it
    // `ffi.GetInvalidObject` (the same object).
    def_typed(globals, "ffi.MapGetMissingObject", OBJECT, vec![], |_| {
        Ok(Any::object(missing_object()))
    });
    // 0.1.10 only: the binding support for types defined at run time.
    def_typed(globals, "ffi.GetFieldGetter", INT, vec![INT], field_getter);
    def_typed(globals, "ffi.MakeFFINew", NONE, vec![INT, INT], |call| {
        make_ffi_new(call.int(0)? as i32, call.int(1)?)?;
        Ok(Any::none())
    });
    def_typed(
        globals,
        "ffi.MakeInit",
        PACKED_FUNCTION,
        vec![INT],
        |call| Ok(Any::object(make_init(call.int(0)? as i32)?)),
    );
    def_typed(globals, "ffi.RegisterAutoInit", NONE, vec![INT], |call| {
        register_auto_init(call.int(0)? as i32)?;
        Ok(Any::none())
    });
}
