//! The Node.js addon of ffihub (`@ffihub/tvm-ffi`): TVM-FFI values, objects, functions and
//! tensors for JavaScript, on raw Node-API (see docs/adr/0004-node-addon.md for why not napi-rs).
//!
//! The addon exports low-level functions that `index.js` turns into the public API; nothing
//! here is meant to be called directly. It links `libtvm_ffi.so` by name (ffihub's or
//! Apache's, chosen by `LD_LIBRARY_PATH`). It is context-aware: each Node environment (main
//! thread, worker threads) gets its own state (`env.rs`).
//!
//! Rules every entry point follows:
//! - no panic crosses into Node or into the runtime (`catch_unwind` everywhere: `entry`,
//!   finalizers, TVM-FFI callbacks and deleters);
//! - results of TVM-FFI calls are owned and arguments borrowed; wrappers own one reference each,
//!   released by their finalizer or `dispose()`;
//! - JavaScript values are only touched on their environment's thread.

mod convert;
mod define;
mod env;
mod error;
mod ffi;
mod fieldtype;
mod function;
mod library;
mod napi;
mod object;
mod tensor;

use env::EnvData;
use napi::{napi_value, Args, Env, Result, Type};
use napi_sys::{napi_callback_info, napi_env};
use std::panic::AssertUnwindSafe;

/// Runs a native entry point: panics become `InternalError`s, errors are thrown.
fn entry(
    env: napi_env,
    info: napi_callback_info,
    body: impl FnOnce(Env, napi_callback_info) -> Result<napi_value>,
) -> napi_value {
    let env = Env(env);
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| body(env, info)));
    match outcome {
        Ok(Ok(value)) => value,
        Ok(Err(e)) => fail(env, e),
        Err(panic) => fail(
            env,
            napi::Error::Ffi(ffi::make_error(
                "InternalError",
                &format!("panic in the Node addon: {}", napi::panic_message(&*panic)),
                "",
            )),
        ),
    }
}

/// Throws the error of a failed entry point; returns NULL (Node-API's "no value").
#[cold]
#[inline(never)]
fn fail(env: Env, error: napi::Error) -> napi_value {
    let mut data = std::ptr::null_mut();
    // SAFETY: `env` is live; the instance data is the EnvData installed at registration.
    unsafe { napi_sys::napi_get_instance_data(env.0, &mut data) };
    if data.is_null() {
        if let napi::Error::Js {
            type_error,
            message,
        } = &error
        {
            env.throw_message(*type_error, message);
        } else if !matches!(error, napi::Error::Pending) {
            env.throw_message(false, "ffihub addon error");
        }
    } else {
        // SAFETY: as above.
        error::throw(unsafe { EnvData::from_data(data) }, error);
    }
    std::ptr::null_mut()
}

/// Defines a native entry point taking up to `$n` arguments.
macro_rules! native {
    ($name:ident, $n:literal, |$data:ident, $args:ident, $info:ident| $body:expr) => {
        unsafe extern "C" fn $name(env: napi_env, info: napi_callback_info) -> napi_value {
            entry(env, info, |env, $info| {
                let $args = Args::<$n>::get(env, $info)?;
                // SAFETY: every native entry point is created with its environment's EnvData.
                let $data: &EnvData = unsafe { EnvData::from_data($args.data) };
                $body
            })
        }
    };
}

pub(crate) fn arg_i32(env: Env, v: napi_value, what: &str) -> Result<i32> {
    let x = env.get_f64(v)?;
    if x.trunc() != x || !(i32::MIN as f64..=i32::MAX as f64).contains(&x) {
        return napi::type_error(format!("{what} must be an integer"));
    }
    Ok(x as i32)
}

fn optional(env: Env, v: napi_value) -> Result<Option<napi_value>> {
    Ok(match env.type_of(v)? {
        Type::napi_undefined | Type::napi_null => None,
        _ => Some(v),
    })
}

native!(init, 1, |data, args, _info| {
    let env = data.env;
    // Once per environment: the hooks are trusted (`cellOf` hands the addon cell addresses), so
    // no later caller may replace the ones index.js installed.
    if data.hooks.borrow().cell_of.is_some() {
        return napi::error("the ffihub addon is already initialized");
    }
    let hooks = args.argv[0];
    let get = |name: &[u8]| -> Result<Option<napi_sys::napi_ref>> {
        let v = env.get_named(hooks, name)?;
        Ok(Some(env.reference(v, 1)?))
    };
    let mut h = env::Hooks {
        make_error: get(b"makeError\0")?,
        error_parts: get(b"errorParts\0")?,
        function_proto: get(b"functionPrototype\0")?,
        set_prototype_of: get(b"setPrototypeOf\0")?,
        data_type: get(b"DataType\0")?,
        device: get(b"Device\0")?,
        opaque_ptr: get(b"OpaquePtr\0")?,
        map: get(b"Map\0")?,
        flatten_map: get(b"flattenMap\0")?,
        pack_numbers: get(b"packNumbers\0")?,
        object_proto: get(b"objectPrototype\0")?,
        object_base: get(b"Object\0")?,
        cell_of: get(b"cellOf\0")?,
        keep_attached: get(b"keepAttached\0")?,
        is_array: get(b"isArray\0")?,
    };
    std::mem::swap(&mut *data.hooks.borrow_mut(), &mut h);
    Ok(env.undefined())
});

native!(set_class, 2, |data, args, _info| {
    let index = arg_i32(data.env, args.argv[0], "typeIndex")?;
    object::set_class(data, index, args.argv[1])?;
    Ok(data.env.undefined())
});

native!(type_index, 1, |data, args, _info| {
    let key = data.env.get_string(args.argv[0])?;
    data.env.double(f64::from(object::type_index(&key)?))
});

native!(type_info, 1, |data, args, _info| {
    let env = data.env;
    let index = if env.type_of(args.argv[0])? == Type::napi_string {
        object::type_index(&env.get_string(args.argv[0])?)?
    } else {
        arg_i32(env, args.argv[0], "typeIndex")?
    };
    object::type_info_value(data, index)
});

native!(type_methods, 1, |data, args, _info| {
    let index = arg_i32(data.env, args.argv[0], "typeIndex")?;
    object::type_methods(data, index)
});

native!(type_index_of, 1, |data, args, _info| {
    let env = data.env;
    match object::handle_of(data, args.argv[0])? {
        // SAFETY: a live handle.
        Some(h) => env.double(f64::from(unsafe { ffi::type_index_of(h) })),
        None => env.double(-1.0),
    }
});

native!(get_global, 1, |data, args, _info| {
    function::get_global(data, args.argv[0])
});

native!(register_global, 3, |data, args, _info| {
    let allow =
        data.env.type_of(args.argv[2])? == Type::napi_boolean && data.env.get_bool(args.argv[2])?;
    function::register_global(data, args.argv[0], args.argv[1], allow)?;
    Ok(data.env.undefined())
});

native!(to_function, 1, |data, args, _info| {
    if data.env.type_of(args.argv[0])? != Type::napi_function {
        return napi::type_error("toFunction needs a function");
    }
    function::to_function(data, args.argv[0])
});

native!(call_async, 8, |data, args, info| {
    let all = args.all(data.env, info)?;
    let started = match all.split_first() {
        Some((func, rest)) => function::call_async(data, *func, rest),
        None => napi::type_error("callAsync needs a function"),
    };
    // An asynchronous call fails through its promise, whatever the reason.
    started.or_else(|error| function::rejected(data, error))
});

native!(construct, 8, |data, args, info| {
    if args.argc < 2 {
        return napi::type_error("construct(typeIndex, kwargs, ...args)");
    }
    let index = arg_i32(data.env, args.argv[0], "typeIndex")?;
    if args.argc <= 8 {
        object::construct(data, index, &args.argv[2..args.argc], args.argv[1])
    } else {
        let all = args.all(data.env, info)?;
        object::construct(data, index, &all[2..], all[1])
    }
});

native!(define_type, 4, |data, args, _info| {
    let kind = arg_i32(data.env, args.argv[3], "structureKind")?;
    let index = define::define_type(data, args.argv[0], args.argv[1], args.argv[2], kind)?;
    data.env.double(f64::from(index))
});

native!(define_method, 7, |data, args, _info| {
    define::define_method(data, &args.argv)?;
    Ok(data.env.undefined())
});

native!(adopt, 2, |data, args, _info| {
    object::adopt(data, args.argv[0], args.argv[1])
});

native!(set_field_scratch, 1, |data, args, _info| {
    object::set_field_scratch(data, args.argv[0])?;
    Ok(data.env.undefined())
});

native!(field_getters, 3, |data, args, _info| {
    let index = arg_i32(data.env, args.argv[0], "typeIndex")?;
    object::field_getters(data, index, args.argv[1], args.argv[2])
});

native!(field_id, 1, |data, args, _info| {
    let id = object::field_id(data, args.argv[0])?;
    data.env.double(id as f64)
});

native!(get_field_by_id, 2, |data, args, _info| {
    let id = field_id_arg(data.env, args.argv[1])?;
    object::get_field(data, args.argv[0], id)
});

native!(set_field_by_id, 3, |data, args, _info| {
    let id = field_id_arg(data.env, args.argv[1])?;
    object::set_field(data, args.argv[0], id, args.argv[2])?;
    Ok(data.env.undefined())
});

/// A field id from `fieldId` (a small non-negative integer).
#[inline]
fn field_id_arg(env: Env, v: napi_value) -> Result<u32> {
    let x = env.get_f64(v)?;
    // `as` saturates (NaN gives 0): the round trip holds only for exact ids (no libm `trunc`).
    let id = x as u32;
    if f64::from(id) != x {
        return napi::type_error("a field id must come from fieldId");
    }
    Ok(id)
}

native!(dispose, 1, |data, args, _info| {
    object::dispose(data, args.argv[0])?;
    Ok(data.env.undefined())
});

native!(none_as_undefined, 1, |data, args, _info| {
    function::none_as_undefined(data.env, args.argv[0])?;
    Ok(args.argv[0])
});

native!(same, 2, |data, args, _info| {
    let env = data.env;
    let a = object::handle_of(data, args.argv[0])?;
    let b = object::handle_of(data, args.argv[1])?;
    Ok(env.boolean(a.is_some() && a == b))
});

native!(ref_count, 1, |data, args, _info| {
    let env = data.env;
    let h = object::require_handle(data, args.argv[0], "the argument")?;
    // SAFETY: a live handle.
    env.double(f64::from(unsafe { ffi::strong_count(h) }))
});

native!(handle_address, 1, |data, args, _info| {
    let env = data.env;
    match object::handle_of(data, args.argv[0])? {
        Some(h) => env.bigint_i64(h as usize as i64),
        None => Ok(env.null()),
    }
});

native!(seq_size, 1, |data, args, _info| {
    let (_, cell) = object::seq_cell(data, args.argv[0])?;
    data.env.double(cell.size as f64)
});

native!(seq_get, 2, |data, args, _info| {
    object::seq_get(data, args.argv[0], args.argv[1])
});

native!(seq_to_array, 1, |data, args, _info| {
    object::seq_to_array(data, args.argv[0])
});

native!(shape_to_array, 1, |data, args, _info| {
    object::shape_to_array(data, args.argv[0])
});

native!(tensor_from_array, 3, |data, args, _info| {
    let env = data.env;
    if !env.is_typedarray(args.argv[0])? {
        return napi::type_error("expected a TypedArray");
    }
    let shape = match optional(env, args.argv[1])? {
        Some(v) => Some(convert::int_list(env, v, "shape")?),
        None => None,
    };
    let strides = match optional(env, args.argv[2])? {
        Some(v) => Some(convert::int_list(env, v, "strides")?),
        None => None,
    };
    let handle = tensor::from_typed_array(data, args.argv[0], shape, strides)?;
    object::wrap_object(data, handle)
});

native!(tensor_info, 1, |data, args, _info| {
    tensor::tensor_info(data, args.argv[0])
});

native!(tensor_data, 1, |data, args, _info| {
    tensor::tensor_data(data, args.argv[0])
});

native!(dtype_parse, 1, |data, args, _info| {
    tensor::dtype_parse(data.env, args.argv[0])
});

native!(dtype_string, 3, |data, args, _info| {
    let env = data.env;
    let code = arg_i32(env, args.argv[0], "code")? as u8;
    let bits = arg_i32(env, args.argv[1], "bits")? as u8;
    let lanes = arg_i32(env, args.argv[2], "lanes")? as u16;
    tensor::dtype_string(data, code, bits, lanes)
});

native!(load_library, 1, |data, args, _info| {
    let path = data.env.get_rust_string(args.argv[0])?;
    library::load(&path)?;
    Ok(data.env.undefined())
});

native!(bench_call_loop, 2, |data, args, _info| {
    // The cost of the TVM-FFI call alone: `n` calls of `f()` in a Rust loop, in ns per call.
    let f = object::require_handle(data, args.argv[0], "the function")?;
    let n = data.env.get_f64(args.argv[1])?.max(1.0) as u32;
    let start = std::time::Instant::now();
    for _ in 0..n {
        let mut result = function::call_raw(f, &mut convert::ArgBuf::new())?;
        ffi::release(&mut result);
    }
    data.env
        .double(start.elapsed().as_nanos() as f64 / f64::from(n))
});

native!(bench_array_floor, 2, |data, args, _info| {
    // The floor of passing an array: `f(ffi.Array(0.5, 1.5, ...))` with `n` floats made in Rust
    // and called through TVMFFIFunctionCall, in ns per element.
    let f = object::require_handle(data, args.argv[0], "the function")?;
    let n = data.env.get_f64(args.argv[1])?.max(1.0) as u32;
    let start = std::time::Instant::now();
    let mut items = convert::ArgBuf::new();
    for i in 0..n {
        items.push(convert::number_any(f64::from(i) + 0.5));
    }
    let array = function::call_builtin(function::Builtin::Array, &mut items)?;
    let mut call_args = convert::ArgBuf::new();
    call_args.push(array);
    let mut result = function::call_raw(f, &mut call_args)?;
    ffi::release(&mut result);
    drop(call_args);
    data.env
        .double(start.elapsed().as_nanos() as f64 / f64::from(n))
});

native!(set_external_buffers, 1, |data, args, _info| {
    tensor::set_external_buffers(data.env.get_bool(args.argv[0])?);
    Ok(data.env.undefined())
});

native!(runtime_version, 0, |data, _args, _info| {
    let v = library::runtime_version();
    data.env.string(v.as_bytes())
});

/// The exported functions: (name, entry point).
const EXPORTS: &[(
    &str,
    unsafe extern "C" fn(napi_env, napi_callback_info) -> napi_value,
)] = &[
    ("init", init),
    ("setClass", set_class),
    ("typeIndex", type_index),
    ("typeInfo", type_info),
    ("typeMethods", type_methods),
    ("typeIndexOf", type_index_of),
    ("getGlobal", get_global),
    ("registerGlobal", register_global),
    ("toFunction", to_function),
    ("callAsync", call_async),
    ("construct", construct),
    ("adopt", adopt),
    ("defineType", define_type),
    ("defineMethod", define_method),
    ("fieldId", field_id),
    ("fieldGetters", field_getters),
    ("setFieldScratch", set_field_scratch),
    ("getFieldById", get_field_by_id),
    ("setFieldById", set_field_by_id),
    ("dispose", dispose),
    ("noneAsUndefined", none_as_undefined),
    ("same", same),
    ("refCount", ref_count),
    ("handleAddress", handle_address),
    ("seqSize", seq_size),
    ("seqGet", seq_get),
    ("seqToArray", seq_to_array),
    ("shapeToArray", shape_to_array),
    ("tensorFromArray", tensor_from_array),
    ("tensorInfo", tensor_info),
    ("tensorData", tensor_data),
    ("dtypeParse", dtype_parse),
    ("dtypeString", dtype_string),
    ("loadLibrary", load_library),
    ("runtimeVersion", runtime_version),
    ("setExternalBuffers", set_external_buffers),
    ("benchNoop", function::bench_noop),
    ("benchAdd3", function::bench_add3),
    ("benchCallLoop", bench_call_loop),
    ("benchArrayFloor", bench_array_floor),
];

fn register(env: Env, exports: napi_value) -> Result<napi_value> {
    library::share_runtime_symbols();
    let data = EnvData::install(env)?;
    let data_ptr = data as *const EnvData as *mut std::ffi::c_void;
    for (name, cb) in EXPORTS {
        let f = env.function(name, Some(*cb), data_ptr)?;
        let mut key = name.as_bytes().to_vec();
        key.push(0);
        env.set_named(exports, &key, f)?;
    }
    Ok(exports)
}

/// Node's entry point: called once per environment that loads the addon.
///
/// # Safety
/// Called by Node with a live environment and its exports object.
#[no_mangle]
pub unsafe extern "C" fn napi_register_module_v1(env: napi_env, exports: napi_value) -> napi_value {
    let env = Env(env);
    match std::panic::catch_unwind(AssertUnwindSafe(|| register(env, exports))) {
        Ok(Ok(v)) => v,
        Ok(Err(napi::Error::Pending)) => std::ptr::null_mut(),
        Ok(Err(napi::Error::Js { message, .. })) => {
            env.throw_message(false, &message);
            std::ptr::null_mut()
        }
        Ok(Err(napi::Error::Ffi(e))) => {
            // SAFETY: an owned error we cannot convert before initialization.
            unsafe { ffi::TVMFFIObjectDecRef(e) };
            env.throw_message(false, "ffihub addon initialization failed");
            std::ptr::null_mut()
        }
        Err(_) => {
            env.throw_message(false, "panic while initializing the ffihub addon");
            std::ptr::null_mut()
        }
    }
}
