//! The type registry and reflection.

use super::{byte_array_arg, non_null, or_exit, out_ptr, safe_call};
use crate::abi::{
    TVMFFIAny, TVMFFIByteArray, TVMFFIFieldInfo, TVMFFIMethodInfo, TVMFFITypeAttrColumn,
    TVMFFITypeInfo, TVMFFITypeMetadata,
};
use crate::registry::types::TypeSpec;
use crate::value::error::Error;

/// The index of `type_key`, allocating it (under `parent_type_index`) if new; with
/// `parent_type_index == -2` only looks the key up and returns -2 if it is unknown.
#[no_mangle]
pub unsafe extern "C" fn TVMFFITypeGetOrAllocIndex(
    type_key: *const TVMFFIByteArray,
    static_type_index: i32,
    type_depth: i32,
    num_child_slots: i32,
    child_slots_can_overflow: i32,
    parent_type_index: i32,
) -> i32 {
    or_exit("TVMFFITypeGetOrAllocIndex", || {
        let key = byte_array_arg(type_key, "type_key")?;
        let spec = TypeSpec {
            static_index: static_type_index,
            depth: type_depth,
            num_child_slots: num_child_slots.max(0),
            child_slots_can_overflow: child_slots_can_overflow != 0,
            parent_index: parent_type_index,
        };
        crate::registry::types::get_or_alloc_index(key, spec)
    })
}

/// The index registered for `type_key`.
#[no_mangle]
pub unsafe extern "C" fn TVMFFITypeKeyToIndex(
    type_key: *const TVMFFIByteArray,
    out_tindex: *mut i32,
) -> i32 {
    safe_call(|| {
        let key = byte_array_arg(type_key, "type_key")?;
        let out = out_ptr(out_tindex, "out_tindex")?;
        *out = crate::registry::types::key_to_index(key).ok_or_else(|| {
            // Apache's wording, down to the check it reports.
            Error::new(
                "InternalError",
                format!(
                    "Check failed: (it != type_key2index_.end()) is false: Cannot find type `{}`",
                    String::from_utf8_lossy(key)
                ),
            )
        })?;
        Ok(())
    })
}

/// The type info of `type_index`; its address never changes. An unknown index exits the process.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIGetTypeInfo(type_index: i32) -> *const TVMFFITypeInfo {
    or_exit("TVMFFIGetTypeInfo", || {
        crate::compat::before_type_info_read(type_index);
        crate::registry::types::type_info(type_index)
            .map(|info| info as *const TVMFFITypeInfo)
            .ok_or_else(|| {
                Error::new(
                    "RuntimeError",
                    format!("Cannot find type info for type_index={type_index}"),
                )
            })
    })
}

/// Appends a field record (strings and default value are copied).
#[no_mangle]
pub unsafe extern "C" fn TVMFFITypeRegisterField(
    type_index: i32,
    info: *const TVMFFIFieldInfo,
) -> i32 {
    safe_call(|| crate::registry::types::register_field(type_index, non_null(info, "info")?))
}

/// Appends a method record (strings and method are copied).
#[no_mangle]
pub unsafe extern "C" fn TVMFFITypeRegisterMethod(
    type_index: i32,
    info: *const TVMFFIMethodInfo,
) -> i32 {
    safe_call(|| crate::registry::types::register_method(type_index, non_null(info, "info")?))
}

/// Sets a type's metadata (once).
#[no_mangle]
pub unsafe extern "C" fn TVMFFITypeRegisterMetadata(
    type_index: i32,
    metadata: *const TVMFFITypeMetadata,
) -> i32 {
    safe_call(|| {
        crate::registry::types::register_metadata(type_index, non_null(metadata, "metadata")?)
    })
}

/// Stores an attribute value for a type (type index 0 only creates the column).
#[no_mangle]
pub unsafe extern "C" fn TVMFFITypeRegisterAttr(
    type_index: i32,
    attr_name: *const TVMFFIByteArray,
    attr_value: *const TVMFFIAny,
) -> i32 {
    safe_call(|| {
        let name = byte_array_arg(attr_name, "attr_name")?;
        crate::registry::types::register_attr(type_index, name, non_null(attr_value, "attr_value")?)
    })
}

/// The attribute column `attr_name`, or NULL if no type registered it.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIGetTypeAttrColumn(
    attr_name: *const TVMFFIByteArray,
) -> *const TVMFFITypeAttrColumn {
    or_exit("TVMFFIGetTypeAttrColumn", || {
        let name = byte_array_arg(attr_name, "attr_name")?;
        crate::compat::before_enum_column_read(name);
        Ok(crate::registry::types::attr_column(name)
            .map_or(std::ptr::null(), |c| c as *const TVMFFITypeAttrColumn))
    })
}
