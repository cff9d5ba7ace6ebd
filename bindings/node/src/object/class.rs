//! Classes: registering the JavaScript class of a type, its methods, and constructing objects
//! with `__ffi_init__`.

use super::*;
use crate::convert::ArgBuf;
use crate::env::EnvData;
use crate::ffi;
use crate::function;
use crate::napi::{self, napi_value, Error, Result, Type};
use ffihub_abi::abi::{
    TVMFFIAny, TVMFFIFieldFlagBitMask as Flag, TVMFFIObjectHandle, TVMFFITypeInfo,
};
use ffihub_abi::tindex;
use std::ptr;

/// `setClass(typeIndex, shell)`: the class of a type (and of its unregistered subtypes).
pub fn set_class(data: &EnvData, type_index: i32, shell: napi_value) -> Result<()> {
    let r = data.env.reference(shell, 1)?;
    if let Some(old) = data.registered.borrow_mut().insert(type_index, r) {
        data.env.delete_reference(old);
    }
    // Subtypes may now resolve to this class.
    data.resolved.borrow_mut().clear();
    data.wrappers.classes_changed();
    Ok(())
}

/// The index of a type key, or an error saying the type is not registered.
pub fn type_index(key: &[u8]) -> Result<i32> {
    match ffi::type_key_to_index(key) {
        Some(i) => Ok(i),
        None => napi::error(format!(
            "the type `{}` is not registered (is its library loaded?)",
            String::from_utf8_lossy(key)
        )),
    }
}

/// `typeMethods(typeIndex)`: the type's own methods as callables, keyed by registered name
/// (the first overload of a name).
pub fn type_methods(data: &EnvData, type_index: i32) -> Result<napi_value> {
    let env = data.env;
    let Some(info) = ffi::type_info(type_index) else {
        return napi::error(format!("no type with index {type_index}"));
    };
    let out = env.object()?;
    let mut seen = std::collections::HashSet::new();
    for i in 0..info.num_methods.max(0) as usize {
        // SAFETY: `methods` has `num_methods` records.
        let m = unsafe { &*info.methods.add(i) };
        let name = unsafe_bytes(&m.name);
        if !seen.insert(name) || m.method.type_index != tindex::FUNCTION {
            continue;
        }
        // SAFETY: the record holds a Function; the wrapper gets its own reference.
        let handle: TVMFFIObjectHandle = unsafe { m.method.value.v_obj.cast() };
        // SAFETY: as above.
        unsafe { ffi::TVMFFIObjectIncRef(handle) };
        let label = format!(
            "{}.{}",
            String::from_utf8_lossy(unsafe_bytes(&info.type_key)),
            String::from_utf8_lossy(name)
        );
        let f = function::wrap_function(data, handle, &label)?;
        let mut key = name.to_vec();
        key.push(0);
        env.set_named(out, &key, f)?;
    }
    Ok(out)
}

/// A method (or static method) Function of a type, borrowed from its record.
fn find_method(
    info: &TVMFFITypeInfo,
    name: &[u8],
    want_static: Option<bool>,
) -> Option<TVMFFIObjectHandle> {
    (0..info.num_methods.max(0) as usize).find_map(|i| {
        // SAFETY: `methods` has `num_methods` records.
        let m = unsafe { &*info.methods.add(i) };
        let is_static = m.flags & Flag::kTVMFFIFieldFlagBitMaskIsStaticMethod as i64 != 0;
        let ok = unsafe_bytes(&m.name) == name
            && want_static.is_none_or(|s| s == is_static)
            && m.method.type_index == tindex::FUNCTION;
        // SAFETY: the type index says it holds a Function.
        ok.then(|| unsafe { m.method.value.v_obj.cast() })
    })
}

/// `construct(typeIndex, kwargs, ...positional)`: creates an object with its `__ffi_init__`
/// (the static method, else the type attribute with keyword arguments after the kwargs
/// marker). The positional arguments come as the call's own (no array to read back).
///
/// The new object waits in `EnvData::pending` for `adopt`, which the base class constructor
/// calls right after (only binding code runs in between); the result is the construction's
/// number, which `adopt` checks. A construction never adopted (an exception in between) is
/// released by the next one or at teardown. No finalizer-carrying token is needed: those cost
/// more than the whole construction.
pub fn construct(
    data: &EnvData,
    type_index: i32,
    positional: &[napi_value],
    kwargs: napi_value,
) -> Result<napi_value> {
    let env = data.env;
    let Some(info) = ffi::type_info(type_index) else {
        return napi::error("unknown type");
    };
    let mut args = ArgBuf::new();
    for &value in positional {
        // Wrapped objects are borrowed, as by function calls (see `function::push_args`).
        let wrapped = env.try_f64(value).is_none()
            && env.type_of(value)? == Type::napi_object
            && !env.is_typedarray(value)?;
        match if wrapped {
            function::borrowed_wrapper(data, value)?
        } else {
            None
        } {
            Some(handle) => args.push_borrowed(handle),
            None => args.push_js(data, value)?,
        }
    }
    let func = if let Some(f) = find_method(info, b"__ffi_init__", Some(true)) {
        f
    } else {
        let f = init_attr(type_index).ok_or_else(|| Error::Js {
            type_error: true,
            message: format!(
                "`{}` has no constructor (__ffi_init__)",
                ffi::type_key(type_index)
            ),
        })?;
        if env.type_of(kwargs)? == Type::napi_object && env.array_len(kwargs)? > 0 {
            let marker = data.kwargs_marker()?;
            // SAFETY: the marker is a live object; the Any gets its own reference.
            unsafe { ffi::TVMFFIObjectIncRef(marker) };
            args.push(ffi::object_any(marker));
            for i in 0..env.array_len(kwargs)? {
                args.push_js(data, env.get_element(kwargs, i)?)?;
            }
        }
        f
    };
    let result = {
        let _sync = crate::env::SyncCall::enter(data);
        function::call_raw(func, &mut args)?
    };
    drop(args);
    if result.type_index < tindex::OBJECT {
        let mut r = result;
        ffi::release(&mut r);
        return napi::error("__ffi_init__ did not return an object");
    }
    // SAFETY: an object Any.
    let handle: TVMFFIObjectHandle = unsafe { result.value.v_obj.cast() };
    let number = data.pending.get().0.wrapping_add(1);
    let (_, stale) = data.pending.replace((number, handle));
    if !stale.is_null() {
        // SAFETY: a construction that was never adopted still owns its object.
        unsafe { ffi::TVMFFIObjectDecRef(stale) };
    }
    env.double(number as f64)
}

/// `adopt(object, number)`: attaches the object of construction `number` to `object`; returns
/// the address of its cell, which the wrapper carries (see the module's comment).
pub fn adopt(data: &EnvData, object: napi_value, number: napi_value) -> Result<napi_value> {
    let env = data.env;
    let number = env.get_f64(number)?;
    let (pending, handle) = data.pending.get();
    if handle.is_null() || pending as f64 != number {
        return napi::type_error("this construction token was already used");
    }
    data.pending.set((pending, ptr::null_mut()));
    let cell = ObjectCell::new(handle, Some(data.wrappers.clone()));
    // SAFETY: a live cell, given to `object`.
    unsafe { give_cell(data, object, cell) }?;
    cell_number(env, cell)
}

/// The `__ffi_init__` type attribute of a type (a borrowed Function), if any.
pub(super) fn init_attr(type_index: i32) -> Option<TVMFFIObjectHandle> {
    type_attr(type_index, b"__ffi_init__")
}

/// A Function-valued type attribute registered for exactly `type_index` (borrowed), if any.
pub(super) fn type_attr(type_index: i32, name: &[u8]) -> Option<TVMFFIObjectHandle> {
    let name = ffi::byte_array(name);
    // SAFETY: the name views live bytes; columns are stable for the process.
    let column = unsafe { ffi::TVMFFIGetTypeAttrColumn(&name).as_ref() }?;
    let i = type_index - column.begin_index;
    if i < 0 || i >= column.size {
        return None;
    }
    // SAFETY: `data` has `size` entries.
    let entry: &TVMFFIAny = unsafe { &*column.data.add(i as usize) };
    // SAFETY: the type index says it holds a Function.
    (entry.type_index == tindex::FUNCTION).then(|| unsafe { entry.value.v_obj.cast() })
}
