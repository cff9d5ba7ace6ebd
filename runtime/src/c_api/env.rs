//! The environment API of `tvm/ffi/extra/c_env_api.h`, plus the custom allocator and one-time
//! initialization helpers of `c_api.h`.

use super::{non_null, or_exit, out_ptr, safe_call};
use crate::abi::{TVMFFICustomAllocator, TVMFFIObjectHandle, TVMFFIStreamHandle};
use crate::dlpack::{DLPackManagedTensorAllocator, DLTensor};
use crate::value::error::Error;
use std::ffi::{c_char, c_void, CStr};

/// Sets this thread's stream for a device; the previous one goes to `opt_out_original_stream`.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIEnvSetStream(
    device_type: i32,
    device_id: i32,
    stream: TVMFFIStreamHandle,
    opt_out_original_stream: *mut TVMFFIStreamHandle,
) -> i32 {
    safe_call(|| {
        let previous = crate::value::env::set_stream(device_type, device_id, stream);
        if let Some(out) = opt_out_original_stream.as_mut() {
            *out = previous;
        }
        Ok(())
    })
}

/// This thread's stream for a device (NULL if never set).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIEnvGetStream(
    device_type: i32,
    device_id: i32,
) -> TVMFFIStreamHandle {
    or_exit("TVMFFIEnvGetStream", || {
        Ok(crate::value::env::stream(device_type, device_id))
    })
}

/// Sets this thread's DLPack allocator (and the process-wide one if `write_to_global_context`).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIEnvSetDLPackManagedTensorAllocator(
    allocator: DLPackManagedTensorAllocator,
    write_to_global_context: i32,
    opt_out_original_allocator: *mut DLPackManagedTensorAllocator,
) -> i32 {
    safe_call(|| {
        let previous =
            crate::value::env::set_tensor_allocator(allocator, write_to_global_context != 0);
        if let Some(out) = opt_out_original_allocator.as_mut() {
            *out = previous;
        }
        Ok(())
    })
}

/// This thread's DLPack allocator, or the process-wide one.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIEnvGetDLPackManagedTensorAllocator() -> DLPackManagedTensorAllocator
{
    or_exit("TVMFFIEnvGetDLPackManagedTensorAllocator", || {
        Ok(crate::value::env::tensor_allocator())
    })
}

/// Allocates a Tensor like `prototype` through the current DLPack allocator.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIEnvTensorAlloc(
    prototype: *mut DLTensor,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    // The allocator's own return code passes through, as in Apache's runtime.
    let mut code = -1;
    let status = safe_call(|| {
        let prototype = non_null(prototype, "prototype")?;
        let out = out_ptr(out, "out")?;
        match crate::containers::tensor::Tensor::env_alloc(prototype) {
            Ok(tensor) => {
                *out = tensor.into_object().into_raw().cast();
                Ok(())
            }
            Err((allocator_code, error)) => {
                code = allocator_code;
                Err(error)
            }
        }
    });
    if status == 0 {
        0
    } else {
        code
    }
}

/// Asks the host interpreter whether a signal is pending (0 when no host registered hooks).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIEnvCheckSignals() -> i32 {
    match crate::value::env::check_signals() {
        Ok(code) => code,
        Err(error) => crate::value::error::raise(error),
    }
}

/// Registers a host API function by name (`PyErr_CheckSignals`, `PyGILState_Ensure`,
/// `PyGILState_Release`).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIEnvRegisterCAPI(name: *const c_char, symbol: *mut c_void) -> i32 {
    safe_call(|| {
        let name = CStr::from_ptr(non_null(name, "name")?);
        crate::value::env::register_host_api(&name.to_string_lossy(), symbol)
    })
}

/// Finds `func_name` in the imports of the module behind a library context (borrowed result).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIEnvModLookupFromImports(
    library_ctx: TVMFFIObjectHandle,
    func_name: *const c_char,
    out: *mut TVMFFIObjectHandle,
) -> i32 {
    safe_call(|| {
        let name = CStr::from_ptr(non_null(func_name, "func_name")?);
        let out = out_ptr(out, "out")?;
        *out = crate::module::lookup_from_imports(library_ctx, name)?.cast();
        Ok(())
    })
}

/// Makes every library loaded from now on that defines `name` receive `symbol` there.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIEnvModRegisterContextSymbol(
    name: *const c_char,
    symbol: *mut c_void,
) -> i32 {
    safe_call(|| {
        let name = CStr::from_ptr(non_null(name, "name")?);
        crate::value::env::register_context_symbol(name.to_bytes(), symbol);
        Ok(())
    })
}

/// Adds a symbol of the statically linked system library.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIEnvModRegisterSystemLibSymbol(
    name: *const c_char,
    symbol: *mut c_void,
) -> i32 {
    if let Some(name) = name.as_ref() {
        crate::value::env::register_system_lib_symbol(CStr::from_ptr(name).to_bytes(), symbol);
    }
    0
}

/// The current custom object allocator (never NULL).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIGetCustomAllocator() -> *mut TVMFFICustomAllocator {
    crate::value::env::custom_allocator()
}

/// Installs a custom object allocator (NULL restores the builtin one); it must live forever.
#[no_mangle]
pub unsafe extern "C" fn TVMFFISetCustomAllocator(allocator: *mut TVMFFICustomAllocator) -> i32 {
    safe_call(|| {
        crate::value::env::set_custom_allocator(allocator);
        Ok(())
    })
}

/// Fills `*handle_addr` once, thread-safely, with what `init_func` produces.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIHandleInitOnce(
    handle_addr: *mut *mut c_void,
    init_func: Option<unsafe extern "C" fn(result: *mut *mut c_void) -> i32>,
) -> i32 {
    match (handle_addr.is_null(), init_func) {
        (false, Some(init)) => crate::value::env::init_once(handle_addr, init),
        _ => crate::value::error::raise(Error::new(
            "ValueError",
            "handle_addr and init_func must not be NULL",
        )),
    }
}

/// Empties `*handle_addr` and runs `deinit_func` on what it held.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIHandleDeinitOnce(
    handle_addr: *mut *mut c_void,
    deinit_func: Option<unsafe extern "C" fn(handle: *mut c_void) -> i32>,
) -> i32 {
    match (handle_addr.is_null(), deinit_func) {
        (false, Some(deinit)) => crate::value::env::deinit_once(handle_addr, deinit),
        _ => crate::value::error::raise(Error::new(
            "ValueError",
            "handle_addr and deinit_func must not be NULL",
        )),
    }
}
