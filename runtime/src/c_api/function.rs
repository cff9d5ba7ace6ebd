//! Functions and the global registry.

use super::{byte_array_arg, non_null, out_ptr, safe_call};
use crate::abi::{
    TVMFFIAny, TVMFFIByteArray, TVMFFIMethodInfo, TVMFFIObjectHandle, TVMFFISafeCallType,
};
use crate::registry::globals::{GlobalEntry, DEFAULT_FLAGS};
use crate::tindex;
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use std::ffi::c_void;

/// Creates a Function over a C safe-call function.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIFunctionCreate(
    self_: *mut c_void,
    safe_call_fn: TVMFFISafeCallType,
    deleter: Option<unsafe extern "C" fn(self_: *mut c_void)>,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    safe_call(|| {
        let out = out_ptr(out, "out")?;
        let call = safe_call_fn.ok_or_else(null_safe_call)?;
        *out = crate::value::function::from_extern_c(self_, call, deleter)
            .into_raw()
            .cast();
        Ok(())
    })
}

#[cold]
fn null_safe_call() -> Error {
    Error::new("ValueError", "safe_call must not be NULL")
}

/// Calls a Function: borrowed arguments in, an owned result out (`result` must hold no object).
// The hot path: one jump to the callee's safe call (in the Function's cell, right after the
// header), which handles its own errors. Every Function object has one (TVMFFIFunctionCreate
// refuses NULL, as do Apache's constructors), so, as in Apache's runtime, it is not tested. On
// x86-64 the jump reads the cell itself (the compiler would load it first, then jump).
#[cfg_attr(target_arch = "x86_64", unsafe(naked))]
#[no_mangle]
pub unsafe extern "C" fn TVMFFIFunctionCall(
    func: TVMFFIObjectHandle,
    args: *mut TVMFFIAny,
    num_args: i32,
    result: *mut TVMFFIAny,
) -> i32 {
    #[cfg(target_arch = "x86_64")]
    std::arch::naked_asm!("jmp qword ptr [rdi + 24]");
    #[cfg(not(target_arch = "x86_64"))]
    {
        let cell = &*func
            .cast::<u8>()
            .add(24)
            .cast::<crate::abi::TVMFFIFunctionCell>();
        // SAFETY: every Function object has a safe call (see above).
        cell.safe_call.unwrap_unchecked()(func, args, num_args, result)
    }
}

/// A new reference to the global function `name`, or NULL if there is none.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIFunctionGetGlobal(
    name: *const TVMFFIByteArray,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    safe_call(|| {
        let name = byte_array_arg(name, "name")?;
        let out = out_ptr(out, "out")?;
        *out = crate::registry::globals::get(name).map_or(std::ptr::null_mut(), |e| {
            e.function.clone().into_raw().cast()
        });
        Ok(())
    })
}

fn function_ref(handle: *mut crate::abi::TVMFFIObject) -> Result<ObjectRef, Error> {
    // SAFETY: non-NULL handles given to the C API are live objects.
    unsafe {
        if handle.is_null()
            || !crate::registry::types::is_instance((*handle).type_index, tindex::FUNCTION)
        {
            return Err(Error::new("TypeError", "expected a Function object"));
        }
        Ok(ObjectRef::from_borrowed(handle))
    }
}

/// Registers `f` (borrowed) as global `name`.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIFunctionSetGlobal(
    name: *const TVMFFIByteArray,
    f: TVMFFIObjectHandle,
    allow_override: i32,
) -> i32 {
    safe_call(|| {
        let name = byte_array_arg(name, "name")?;
        let entry = GlobalEntry {
            function: function_ref(f.cast())?,
            doc: Box::default(),
            metadata: Box::default(),
            flags: DEFAULT_FLAGS,
        };
        crate::registry::globals::register(name, entry, allow_override != 0).map_err(|_| {
            let name = String::from_utf8_lossy(name);
            Error::new(
                "RuntimeError",
                format!("Global Function `{name}` is already registered"),
            )
        })
    })
}

/// Registers a global function with its doc, metadata and flags.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIFunctionSetGlobalFromMethodInfo(
    method_info: *const TVMFFIMethodInfo,
    allow_override: i32,
) -> i32 {
    safe_call(|| {
        let info = non_null(method_info, "method_info")?;
        let function = match info.method.type_index {
            t if crate::value::object::is_object_index(t) => function_ref(info.method.value.v_obj)?,
            _ => {
                return Err(Error::new(
                    "TypeError",
                    "method_info.method must hold a Function",
                ))
            }
        };
        let entry = GlobalEntry {
            function,
            doc: byte_array_arg(&info.doc, "method_info.doc")?.into(),
            metadata: byte_array_arg(&info.metadata, "method_info.metadata")?.into(),
            flags: info.flags,
        };
        let name = byte_array_arg(&info.name, "method_info.name")?;
        crate::registry::globals::register(name, entry, allow_override != 0).map_err(|_| {
            // Apache's wording for registrations that carry method info.
            let name = String::from_utf8_lossy(name);
            Error::new(
                "RuntimeError",
                format!(
                    "Global Function `{name}` is already registered, possible causes:\n- Two GlobalDef().def registrations for the same function \nPlease remove the duplicate registration."
                ),
            )
        })
    })
}
