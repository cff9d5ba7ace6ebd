//! The Rust side of the runtime's C++ layer (`runtime/cxx`, ADR 0005), which gives the runtime
//! Apache's exported C++ API and lets modules cross between C++ and Rust.
//!
//! The two sides talk through C functions only (mirrored from `runtime/cxx/bridge.h`):
//! - Rust calls the `ffihub_cxx_*` functions, which call a module's C++ virtual methods inside
//!   `try`/`catch` and return an error code with the error raised;
//! - C++ calls back through the [`Bridge`] table of function pointers, whose functions catch
//!   panics like every `extern "C"` entry of the runtime. The table is handed over when the
//!   library is loaded (an `.init_array` constructor), so the C++ layer has it before any caller
//!   can reach it; no extra symbol is exported for it.

use crate::abi::{TVMFFIAny, TVMFFIByteArray, TVMFFIObject, TVMFFIObjectHandle};
use crate::module::Module;
use crate::value::any::{byte_array_slice, Any};
use crate::value::error::{raise, take_raised_or_unknown, Error};
use crate::value::function::panic_error;
use crate::value::object::ObjectRef;
use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Called for each context symbol; nonzero stops the visit.
type ContextSymbolVisitor = unsafe extern "C" fn(
    ctx: *mut c_void,
    name: *const TVMFFIByteArray,
    address: *mut c_void,
) -> i32;

/// `FfihubRustBridge` of `bridge.h`.
#[repr(C)]
struct Bridge {
    kind: unsafe extern "C" fn(*mut TVMFFIObject, *mut *const c_char) -> i32,
    property_mask: unsafe extern "C" fn(*mut TVMFFIObject, *mut i32) -> i32,
    get_function: unsafe extern "C" fn(
        *mut TVMFFIObject,
        *const TVMFFIByteArray,
        i32,
        *mut TVMFFIObjectHandle,
    ) -> i32,
    implements_function:
        unsafe extern "C" fn(*mut TVMFFIObject, *const TVMFFIByteArray, *mut i32) -> i32,
    function_doc:
        unsafe extern "C" fn(*mut TVMFFIObject, *const TVMFFIByteArray, *mut TVMFFIAny) -> i32,
    function_metadata:
        unsafe extern "C" fn(*mut TVMFFIObject, *const TVMFFIByteArray, *mut TVMFFIAny) -> i32,
    write_to_file: unsafe extern "C" fn(
        *mut TVMFFIObject,
        *const TVMFFIByteArray,
        *const TVMFFIByteArray,
    ) -> i32,
    write_formats: unsafe extern "C" fn(*mut TVMFFIObject, *mut TVMFFIAny) -> i32,
    save_to_bytes: unsafe extern "C" fn(*mut TVMFFIObject, *mut TVMFFIAny) -> i32,
    inspect_source:
        unsafe extern "C" fn(*mut TVMFFIObject, *const TVMFFIByteArray, *mut TVMFFIAny) -> i32,
    import_module_base: unsafe extern "C" fn(*mut TVMFFIObject, *mut TVMFFIObject) -> i32,
    clear_imports_base: unsafe extern "C" fn(*mut TVMFFIObject) -> i32,
    lookup_from_imports: unsafe extern "C" fn(
        *mut TVMFFIObject,
        *const TVMFFIByteArray,
        *mut TVMFFIObjectHandle,
    ) -> i32,
    visit_context_symbols: unsafe extern "C" fn(*mut c_void, ContextSymbolVisitor) -> i32,
}

extern "C" {
    fn ffihub_cxx_install_bridge(bridge: *const Bridge);
    fn ffihub_cxx_module_vptr() -> *const c_void;
    fn ffihub_cxx_module_kind(module: *mut TVMFFIObject, out: *mut *const c_char) -> i32;
    fn ffihub_cxx_module_property_mask(module: *mut TVMFFIObject, out: *mut i32) -> i32;
    fn ffihub_cxx_module_get_function(
        module: *mut TVMFFIObject,
        name: *const TVMFFIByteArray,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;
    fn ffihub_cxx_module_implements_function(
        module: *mut TVMFFIObject,
        name: *const TVMFFIByteArray,
        out: *mut i32,
    ) -> i32;
    fn ffihub_cxx_module_function_doc(
        module: *mut TVMFFIObject,
        name: *const TVMFFIByteArray,
        out: *mut TVMFFIAny,
    ) -> i32;
    fn ffihub_cxx_module_function_metadata(
        module: *mut TVMFFIObject,
        name: *const TVMFFIByteArray,
        out: *mut TVMFFIAny,
    ) -> i32;
    fn ffihub_cxx_module_write_to_file(
        module: *mut TVMFFIObject,
        file: *const TVMFFIByteArray,
        format: *const TVMFFIByteArray,
    ) -> i32;
    fn ffihub_cxx_module_write_formats(module: *mut TVMFFIObject, out: *mut TVMFFIAny) -> i32;
    fn ffihub_cxx_module_save_to_bytes(module: *mut TVMFFIObject, out: *mut TVMFFIAny) -> i32;
    fn ffihub_cxx_module_inspect_source(
        module: *mut TVMFFIObject,
        format: *const TVMFFIByteArray,
        out: *mut TVMFFIAny,
    ) -> i32;
    fn ffihub_cxx_module_import_module(module: *mut TVMFFIObject, other: *mut TVMFFIObject) -> i32;
    fn ffihub_cxx_module_clear_imports(module: *mut TVMFFIObject) -> i32;
    fn ffihub_cxx_lookup_from_imports(
        module: *mut TVMFFIObject,
        name: *const c_char,
        out: *mut TVMFFIObjectHandle,
    ) -> i32;
}

static BRIDGE: Bridge = Bridge {
    kind: bridge_kind,
    property_mask: bridge_property_mask,
    get_function: bridge_get_function,
    implements_function: bridge_implements_function,
    function_doc: bridge_function_doc,
    function_metadata: bridge_function_metadata,
    write_to_file: bridge_write_to_file,
    write_formats: bridge_write_formats,
    save_to_bytes: bridge_save_to_bytes,
    inspect_source: bridge_inspect_source,
    import_module_base: bridge_import_module_base,
    clear_imports_base: bridge_clear_imports_base,
    lookup_from_imports: bridge_lookup_from_imports,
    visit_context_symbols: bridge_visit_context_symbols,
};

extern "C" fn install_bridge() {
    // SAFETY: hands the C++ layer a pointer to a static table.
    unsafe { ffihub_cxx_install_bridge(&BRIDGE) };
}

/// Runs when the library (or a test binary holding the runtime) is loaded.
#[used]
#[link_section = ".init_array"]
static INSTALL_BRIDGE: extern "C" fn() = install_bridge;

/// The vptr of the runtime's own modules (their C++ class, whose slots call back into Rust).
pub(crate) fn module_vptr() -> *const c_void {
    static VPTR: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    // SAFETY: a C++ function without preconditions that cannot throw.
    *VPTR.get_or_init(|| unsafe { ffihub_cxx_module_vptr() } as usize) as *const c_void
}

/// Runs a bridge function's body: 0, or -1 with the error (or panic) raised.
fn guard(body: impl FnOnce() -> Result<(), Error>) -> i32 {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => 0,
        Ok(Err(error)) => raise(error),
        Err(panic) => raise(panic_error(panic)),
    }
}

/// The module behind a handle the C++ layer passes (borrowed: a new reference is taken).
///
/// # Safety
/// `module` is a live module handle.
unsafe fn borrowed_module(module: *mut TVMFFIObject) -> Result<Module, Error> {
    if module.is_null() {
        return Err(Error::new("ValueError", "module must not be NULL"));
    }
    Module::from_object(ObjectRef::from_borrowed(module))
}

/// # Safety
/// `bytes` is NULL or a valid byte array.
unsafe fn bytes_arg<'a>(bytes: *const TVMFFIByteArray) -> &'a [u8] {
    bytes.as_ref().map_or(&[], |b| byte_array_slice(b))
}

/// Writes an owned result into a C++ out slot.
///
/// # Safety
/// `out` is a valid slot the caller owns (holding None).
unsafe fn put<T>(out: *mut T, value: T) -> Result<(), Error> {
    if out.is_null() {
        return Err(Error::new("ValueError", "out must not be NULL"));
    }
    out.write(value);
    Ok(())
}

unsafe extern "C" fn bridge_kind(module: *mut TVMFFIObject, out: *mut *const c_char) -> i32 {
    guard(|| put(out, borrowed_module(module)?.own_kind_c_str()?))
}

unsafe extern "C" fn bridge_property_mask(module: *mut TVMFFIObject, out: *mut i32) -> i32 {
    guard(|| {
        let mask = borrowed_module(module)?.property_mask()?;
        put(out, mask as i32)
    })
}

unsafe extern "C" fn bridge_get_function(
    module: *mut TVMFFIObject,
    name: *const TVMFFIByteArray,
    query_imports: i32,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    guard(|| {
        let found = borrowed_module(module)?.get_function(bytes_arg(name), query_imports != 0)?;
        put(
            out,
            found.map_or(std::ptr::null_mut(), |f| f.into_raw().cast()),
        )
    })
}

unsafe extern "C" fn bridge_implements_function(
    module: *mut TVMFFIObject,
    name: *const TVMFFIByteArray,
    out: *mut i32,
) -> i32 {
    guard(|| {
        let found = borrowed_module(module)?.implements_function(bytes_arg(name), false)?;
        put(out, found as i32)
    })
}

fn optional_string(bytes: Option<Vec<u8>>) -> TVMFFIAny {
    bytes.map_or_else(Any::none, Any::string).into_raw()
}

unsafe extern "C" fn bridge_function_doc(
    module: *mut TVMFFIObject,
    name: *const TVMFFIByteArray,
    out: *mut TVMFFIAny,
) -> i32 {
    guard(|| {
        let doc = borrowed_module(module)?.function_doc(bytes_arg(name), false)?;
        put(out, optional_string(doc))
    })
}

unsafe extern "C" fn bridge_function_metadata(
    module: *mut TVMFFIObject,
    name: *const TVMFFIByteArray,
    out: *mut TVMFFIAny,
) -> i32 {
    guard(|| {
        let metadata = borrowed_module(module)?.function_metadata(bytes_arg(name), false)?;
        put(out, optional_string(metadata))
    })
}

unsafe extern "C" fn bridge_write_to_file(
    module: *mut TVMFFIObject,
    file: *const TVMFFIByteArray,
    format: *const TVMFFIByteArray,
) -> i32 {
    guard(|| borrowed_module(module)?.write_to_file(bytes_arg(file), bytes_arg(format)))
}

unsafe extern "C" fn bridge_write_formats(module: *mut TVMFFIObject, out: *mut TVMFFIAny) -> i32 {
    guard(|| {
        let formats = borrowed_module(module)?.write_formats()?;
        let items = formats.into_iter().map(Any::string).collect();
        put(
            out,
            crate::containers::seq::Array::from_vec(items)
                .into_any()
                .into_raw(),
        )
    })
}

unsafe extern "C" fn bridge_save_to_bytes(module: *mut TVMFFIObject, out: *mut TVMFFIAny) -> i32 {
    guard(|| {
        let bytes = borrowed_module(module)?.save_to_bytes()?;
        put(out, crate::value::string::bytes_any(&bytes).into_raw())
    })
}

unsafe extern "C" fn bridge_inspect_source(
    module: *mut TVMFFIObject,
    format: *const TVMFFIByteArray,
    out: *mut TVMFFIAny,
) -> i32 {
    guard(|| {
        let source = borrowed_module(module)?.inspect_source(bytes_arg(format))?;
        put(out, Any::string(source).into_raw())
    })
}

unsafe extern "C" fn bridge_import_module_base(
    module: *mut TVMFFIObject,
    other: *mut TVMFFIObject,
) -> i32 {
    guard(|| borrowed_module(module)?.import_module_base(&borrowed_module(other)?))
}

unsafe extern "C" fn bridge_clear_imports_base(module: *mut TVMFFIObject) -> i32 {
    guard(|| {
        borrowed_module(module)?.clear_imports_base();
        Ok(())
    })
}

unsafe extern "C" fn bridge_lookup_from_imports(
    module: *mut TVMFFIObject,
    name: *const TVMFFIByteArray,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    guard(|| {
        let found = borrowed_module(module)?.lookup_from_imports_locked(bytes_arg(name))?;
        put(out, found.cast())
    })
}

unsafe extern "C" fn bridge_visit_context_symbols(
    ctx: *mut c_void,
    visit: ContextSymbolVisitor,
) -> i32 {
    guard(|| {
        for (name, address) in crate::value::env::context_symbols() {
            let name = crate::value::any::byte_array(&name);
            // The visitor catches its own exceptions and asks to stop; it reports them itself.
            if visit(ctx, &name, address) != 0 {
                break;
            }
        }
        Ok(())
    })
}

/// Calls of a C++ module's virtual methods (through its vtable, exceptions turned into errors).
pub(crate) mod virtual_call {
    use super::*;

    fn check(code: i32) -> Result<(), Error> {
        if code == 0 {
            Ok(())
        } else {
            Err(take_raised_or_unknown(code))
        }
    }

    /// An owned Any out slot, initialized to None.
    fn call_any(f: impl FnOnce(*mut TVMFFIAny) -> i32) -> Result<Any, Error> {
        let mut out = Any::none().into_raw();
        let code = f(&mut out);
        // SAFETY: the C++ side leaves None or writes an owned value.
        let value = unsafe { Any::from_raw(out) };
        check(code)?;
        Ok(value)
    }

    fn string_bytes(value: &Any, what: &str) -> Result<Vec<u8>, Error> {
        // SAFETY: `value` is a valid owned value.
        unsafe { crate::value::string::str_bytes(value.as_raw()) }
            .map(<[u8]>::to_vec)
            .ok_or_else(|| {
                Error::new(
                    "TypeError",
                    format!(
                        "{what} returned type index {}, expected str",
                        value.type_index()
                    ),
                )
            })
    }

    fn optional_string(value: Any, what: &str) -> Result<Option<Vec<u8>>, Error> {
        if value.type_index() == crate::tindex::NONE {
            Ok(None)
        } else {
            string_bytes(&value, what).map(Some)
        }
    }

    pub(crate) fn kind(module: &Module) -> Result<String, Error> {
        let mut out: *const c_char = std::ptr::null();
        // SAFETY: a live module handle and a valid out slot.
        check(unsafe { ffihub_cxx_module_kind(module.as_object().as_ptr(), &mut out) })?;
        if out.is_null() {
            return Err(Error::new(
                "RuntimeError",
                "ModuleObj::kind() returned NULL",
            ));
        }
        // SAFETY: kind() returns a NUL-terminated string that lives as long as the module.
        Ok(unsafe { std::ffi::CStr::from_ptr(out) }
            .to_string_lossy()
            .into_owned())
    }

    pub(crate) fn property_mask(module: &Module) -> Result<i64, Error> {
        let mut out = 0;
        // SAFETY: as for `kind`.
        check(unsafe { ffihub_cxx_module_property_mask(module.as_object().as_ptr(), &mut out) })?;
        Ok(i64::from(out))
    }

    pub(crate) fn get_function(module: &Module, name: &[u8]) -> Result<Option<ObjectRef>, Error> {
        let name = crate::value::any::byte_array(name);
        let mut out: TVMFFIObjectHandle = std::ptr::null_mut();
        // SAFETY: as for `kind`; the result is an owned Function handle or NULL.
        check(unsafe {
            ffihub_cxx_module_get_function(module.as_object().as_ptr(), &name, &mut out)
        })?;
        // SAFETY: an owned handle.
        Ok((!out.is_null()).then(|| unsafe { ObjectRef::from_raw(out.cast()) }))
    }

    pub(crate) fn implements_function(module: &Module, name: &[u8]) -> Result<bool, Error> {
        let name = crate::value::any::byte_array(name);
        let mut out = 0;
        // SAFETY: as for `kind`.
        check(unsafe {
            ffihub_cxx_module_implements_function(module.as_object().as_ptr(), &name, &mut out)
        })?;
        Ok(out != 0)
    }

    pub(crate) fn function_doc(module: &Module, name: &[u8]) -> Result<Option<Vec<u8>>, Error> {
        let name = crate::value::any::byte_array(name);
        let doc = call_any(|out| {
            // SAFETY: as for `kind`.
            unsafe { ffihub_cxx_module_function_doc(module.as_object().as_ptr(), &name, out) }
        })?;
        optional_string(doc, "ModuleObj::GetFunctionDoc")
    }

    pub(crate) fn function_metadata(
        module: &Module,
        name: &[u8],
    ) -> Result<Option<Vec<u8>>, Error> {
        let name = crate::value::any::byte_array(name);
        let metadata = call_any(|out| {
            // SAFETY: as for `kind`.
            unsafe { ffihub_cxx_module_function_metadata(module.as_object().as_ptr(), &name, out) }
        })?;
        optional_string(metadata, "ModuleObj::GetFunctionMetadata")
    }

    pub(crate) fn write_to_file(module: &Module, file: &[u8], format: &[u8]) -> Result<(), Error> {
        let (file, format) = (
            crate::value::any::byte_array(file),
            crate::value::any::byte_array(format),
        );
        // SAFETY: as for `kind`.
        check(unsafe {
            ffihub_cxx_module_write_to_file(module.as_object().as_ptr(), &file, &format)
        })
    }

    pub(crate) fn write_formats(module: &Module) -> Result<Vec<Vec<u8>>, Error> {
        let formats = call_any(|out| {
            // SAFETY: as for `kind`.
            unsafe { ffihub_cxx_module_write_formats(module.as_object().as_ptr(), out) }
        })?;
        let array = formats
            .as_object()
            .and_then(|obj| crate::containers::seq::Array::from_object(obj.clone()).ok())
            .ok_or_else(|| {
                Error::new(
                    "TypeError",
                    format!(
                        "ModuleObj::GetWriteFormats returned type index {}, expected an Array",
                        formats.type_index()
                    ),
                )
            })?;
        array
            .iter()
            .map(|item| string_bytes(&item, "ModuleObj::GetWriteFormats"))
            .collect()
    }

    pub(crate) fn save_to_bytes(module: &Module) -> Result<Vec<u8>, Error> {
        let bytes = call_any(|out| {
            // SAFETY: as for `kind`.
            unsafe { ffihub_cxx_module_save_to_bytes(module.as_object().as_ptr(), out) }
        })?;
        // SAFETY: a valid owned value.
        unsafe { crate::value::string::bytes_bytes(bytes.as_raw()) }
            .map(<[u8]>::to_vec)
            .ok_or_else(|| {
                Error::new(
                    "TypeError",
                    format!(
                        "ModuleObj::SaveToBytes returned type index {}, expected bytes",
                        bytes.type_index()
                    ),
                )
            })
    }

    pub(crate) fn inspect_source(module: &Module, format: &[u8]) -> Result<Vec<u8>, Error> {
        let format = crate::value::any::byte_array(format);
        let source = call_any(|out| {
            // SAFETY: as for `kind`.
            unsafe { ffihub_cxx_module_inspect_source(module.as_object().as_ptr(), &format, out) }
        })?;
        string_bytes(&source, "ModuleObj::InspectSource")
    }

    pub(crate) fn import_module(module: &Module, other: &Module) -> Result<(), Error> {
        // SAFETY: two live module handles.
        check(unsafe {
            ffihub_cxx_module_import_module(module.as_object().as_ptr(), other.as_object().as_ptr())
        })
    }

    pub(crate) fn clear_imports(module: &Module) -> Result<(), Error> {
        // SAFETY: a live module handle.
        check(unsafe { ffihub_cxx_module_clear_imports(module.as_object().as_ptr()) })
    }

    /// `ModuleObj::InternalUnsafe::GetFunctionFromImports`: the lookup under the process-wide
    /// lock; the result is borrowed from the module's cache.
    pub(crate) fn lookup_from_imports(
        module: &Module,
        name: &std::ffi::CStr,
    ) -> Result<*mut TVMFFIObject, Error> {
        let mut out: TVMFFIObjectHandle = std::ptr::null_mut();
        // SAFETY: a live module handle, a NUL-terminated name and a valid out slot.
        check(unsafe {
            ffihub_cxx_lookup_from_imports(module.as_object().as_ptr(), name.as_ptr(), &mut out)
        })?;
        Ok(out.cast())
    }
}
