//! Raw Node-API through napi-sys: the floor the other two are compared with.
use napi_sys::*;
use std::ptr;

unsafe extern "C" fn noop(env: napi_env, _info: napi_callback_info) -> napi_value {
    let mut undefined = ptr::null_mut();
    // SAFETY: `env` is the live environment of this callback.
    unsafe { napi_get_undefined(env, &mut undefined) };
    undefined
}

unsafe extern "C" fn add3(env: napi_env, info: napi_callback_info) -> napi_value {
    let mut argc = 3usize;
    let mut argv = [ptr::null_mut(); 3];
    let mut sum = 0.0;
    // SAFETY: `env`/`info` come from Node for this call; argv has room for argc values.
    unsafe {
        napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            ptr::null_mut(),
        );
        for v in &argv[..argc] {
            let mut x = 0.0;
            napi_get_value_double(env, *v, &mut x);
            sum += x;
        }
        let mut out = ptr::null_mut();
        napi_create_double(env, sum, &mut out);
        out
    }
}

/// Registers the module's exports.
///
/// # Safety
/// Called by Node with a live environment and exports object.
#[no_mangle]
pub unsafe extern "C" fn napi_register_module_v1(env: napi_env, exports: napi_value) -> napi_value {
    let functions: [(
        &[u8],
        unsafe extern "C" fn(napi_env, napi_callback_info) -> napi_value,
    ); 2] = [(b"noop\0", noop), (b"add3\0", add3)];
    for (name, cb) in functions {
        let mut f = ptr::null_mut();
        // SAFETY: names are NUL-terminated; `env` and `exports` are live.
        unsafe {
            napi_create_function(
                env,
                name.as_ptr().cast(),
                -1,
                Some(cb),
                ptr::null_mut(),
                &mut f,
            );
            napi_set_named_property(env, exports, name.as_ptr().cast(), f);
        }
    }
    exports
}
