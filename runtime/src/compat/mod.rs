//! What ffihub serves to consumers built for older 0.1.x releases of Apache TVM-FFI, beyond the
//! release it implements (docs/compatibility.md): the older schema of `ffi.Enum` and errors in the
//! layout of the earliest releases. The global functions later releases removed are registered
//! with the other built-ins (`builtins/compat.rs`); the C++ entries whose argument layout changed
//! are in `runtime/cxx/legacy.cc`.

mod enum_schema;
mod legacy_error;

pub(crate) use enum_schema::register as register_enum_schema;
pub(crate) use enum_schema::{before_type_info_read, new_enum_state};
pub(crate) use legacy_error::upgrade_raised as upgrade_raised_error;

/// Brings both schemas of enum entries in step before column `name` is read, when it is an enum
/// column (`TVMFFIGetTypeAttrColumn`, and the runtime's own reads of `__ffi_enum__`).
pub(crate) fn before_enum_column_read(name: &[u8]) {
    if enum_schema::is_enum_column(name) {
        enum_schema::sync(name);
    }
}
