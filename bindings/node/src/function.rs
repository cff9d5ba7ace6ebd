//! Functions both ways.
//!
//! TVM-FFI functions appear in JavaScript as real functions (`typeof f === 'function'`) whose
//! prototype is `ffi.Function.prototype`. Each is a native function whose data is a
//! [`FnCell`] holding the function's reference; calling it is the hot path ([`call`]).
//!
//! JavaScript functions passed to native code become TVM-FFI functions ([`js_callback`]) that
//! hold a strong reference to the JavaScript function until the TVM-FFI function dies. Called on
//! the environment's thread they run directly; called from another thread they are queued to the
//! environment's thread and the caller waits (see `env.rs`).

use crate::convert::{self, ArgBuf};
use crate::env::{CallState, CrossCall, EnvData, EnvShared, SyncCall};
use crate::ffi;
use crate::napi::{self, napi_value, Args, Env, Error, Result};
use crate::tensor::CallTensors;
use ffihub_abi::abi::{TVMFFIAny, TVMFFIObjectHandle};
use ffihub_abi::tindex;
use napi_sys::{napi_callback_info, napi_env, napi_ref};
use std::cell::Cell;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// What a JavaScript function wrapping a TVM-FFI function points at.
pub struct FnCell {
    /// The function's reference (NULL once disposed).
    handle: Cell<TVMFFIObjectHandle>,
    /// The environment the wrapper lives in.
    data: *const EnvData,
    /// Calls of this function in progress (on the environment's thread).
    busy: Cell<u32>,
    /// `dispose()` was called during a call; release when the last call returns.
    dispose_pending: Cell<bool>,
    /// None comes back as `undefined`, which costs no Node-API call (see
    /// [`none_as_undefined`]).
    none_as_undefined: Cell<bool>,
}

/// Wraps an owned Function handle in a JavaScript function (the wrapper takes the reference,
/// also on failure). `name` becomes the function's `name`.
pub fn wrap_function(data: &EnvData, handle: TVMFFIObjectHandle, name: &str) -> Result<napi_value> {
    let env = data.env;
    let cell = Box::into_raw(Box::new(FnCell {
        handle: Cell::new(handle),
        data,
        busy: Cell::new(0),
        dispose_pending: Cell::new(false),
        none_as_undefined: Cell::new(false),
    }));
    let made = env.function(name, Some(call), cell.cast()).and_then(|f| {
        env.wrap(f, cell.cast(), Some(finalize_cell), ptr::null_mut())
            .map(|()| f)
    });
    let f = match made {
        Ok(f) => f,
        Err(e) => {
            // SAFETY: the cell was not attached; we still own it and its reference.
            drop(unsafe { Box::from_raw(cell) });
            // SAFETY: as above.
            unsafe { ffi::TVMFFIObjectDecRef(handle) };
            return Err(e);
        }
    };
    // `Object.setPrototypeOf(f, ffi.Function.prototype)`: `instanceof`, `dispose()`.
    let proto = data.hook(|h| h.function_proto)?;
    let set_proto = data.hook(|h| h.set_prototype_of)?;
    env.call_function(env.undefined(), set_proto, &[f, proto])?;
    Ok(f)
}

unsafe extern "C" fn finalize_cell(_env: napi_env, data: *mut c_void, _: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: the cell attached by `wrap_function`, finalized once after the function (and
        // so every call through it) is gone.
        let cell = unsafe { Box::from_raw(data as *mut FnCell) };
        let handle = cell.handle.get();
        if !handle.is_null() {
            // SAFETY: the cell's reference.
            unsafe { ffi::TVMFFIObjectDecRef(handle) };
        }
    });
}

/// The handle of a wrapped TVM-FFI function (None for other functions; an error if disposed).
pub fn unwrap_function(env: Env, value: napi_value) -> Result<Option<TVMFFIObjectHandle>> {
    let Some(cell) = env.unwrap(value) else {
        return Ok(None);
    };
    // SAFETY: only `wrap_function` wraps functions, with a FnCell.
    let handle = unsafe { &*(cell as *const FnCell) }.handle.get();
    if handle.is_null() {
        return napi::type_error("this TVM-FFI function was disposed");
    }
    Ok(Some(handle))
}

/// `noneAsUndefined(f)`: makes the wrapper `f` return `undefined` for None instead of `null`
/// (in its fast path; `null` elsewhere). For generated functions only, whose wrapper looks `f`
/// up privately and turns the result's `undefined` into `null`: that saves a Node-API call
/// (`napi_get_null`), a sizable part of a call that does nothing.
pub fn none_as_undefined(env: Env, value: napi_value) -> Result<()> {
    match env.unwrap(value) {
        Some(cell) if env.type_of(value)? == napi::Type::napi_function => {
            // SAFETY: a FnCell (see unwrap_function).
            unsafe { &*(cell as *const FnCell) }
                .none_as_undefined
                .set(true);
            Ok(())
        }
        _ => napi::type_error("noneAsUndefined needs a TVM-FFI function"),
    }
}

/// Releases a function wrapper's reference now.
pub fn dispose_function(env: Env, value: napi_value) -> Result<()> {
    if let Some(cell) = env.unwrap(value) {
        // SAFETY: a FnCell (see unwrap_function).
        let cell = unsafe { &*(cell as *const FnCell) };
        if cell.busy.get() > 0 {
            // Called from inside a call of this very function: release it when that returns.
            cell.dispose_pending.set(true);
        } else {
            release_cell(cell);
        }
    }
    Ok(())
}

/// Calls a function with owned arguments (still owned by `args` afterwards); returns the owned
/// result.
pub fn call_raw(func: TVMFFIObjectHandle, args: &mut ArgBuf) -> Result<TVMFFIAny> {
    let args = args.as_mut_slice();
    let mut result = ffi::none();
    // SAFETY: `func` is a live Function; the arguments are valid Anys; the result is owned.
    let rc =
        unsafe { ffi::TVMFFIFunctionCall(func, args.as_mut_ptr(), args.len() as i32, &mut result) };
    if rc != 0 {
        return Err(Error::Ffi(ffi::take_raised_error()));
    }
    Ok(result)
}

/// The native function behind every wrapped TVM-FFI function: the hot path.
unsafe extern "C" fn call(env: napi_env, info: napi_callback_info) -> napi_value {
    const CAP: usize = 4;
    let mut argc = CAP;
    let mut argv = [ptr::null_mut(); CAP];
    let mut cell: *mut c_void = ptr::null_mut();
    // SAFETY: `env` and `info` come from Node for this call; `argv` has room for CAP values.
    let status = unsafe {
        napi_sys::napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            &mut cell,
        )
    };
    if status != napi_sys::Status::napi_ok {
        return crate::entry(env, info, |env, _| {
            env.check(status).map(|()| ptr::null_mut())
        });
    }
    // SAFETY: the data of this native function is its FnCell, alive while it can be called.
    let cell = unsafe { &*(cell as *const FnCell) };
    // SAFETY: the wrapper's environment outlives its functions.
    let data = unsafe { &*cell.data };
    // Read (and cleared) by every call, first: it describes this call only.
    let scratch = data.field_scratch.get();
    let cells = crate::object::argument_cells(scratch, argc);
    let handle = cell.handle.get();
    if handle.is_null() {
        return crate::entry(env, info, |_, _| {
            napi::type_error("this TVM-FFI function was disposed")
        });
    }
    // A dispose() from inside the call waits until the call returns.
    let _busy = Busy::enter(cell);
    // Callbacks from other threads cannot run until it returns.
    let _sync = SyncCall::enter(data);
    if argc <= CAP {
        // SAFETY: on the environment's thread, inside this call.
        let none = cell.none_as_undefined.get();
        if let Some(value) =
            unsafe { call_fast(data, handle, &argv[..argc], (scratch, cells), info, none) }
        {
            return value;
        }
    }
    crate::entry(env, info, |env, info| {
        let spilled;
        let argv = if argc <= CAP {
            &argv[..argc]
        } else {
            spilled = Args::<CAP>::get(env, info)?.all(env, info)?;
            &spilled[..]
        };
        let tensors = CallTensors::open(data);
        let mut buf = ArgBuf::new();
        push_args(data, &tensors, &mut buf, argv)?;
        let result = call_raw(handle, &mut buf);
        let kept = tensors.close();
        let mut result = result?;
        if let Err(e) = kept {
            ffi::release(&mut result);
            return Err(e);
        }
        if result.type_index == tindex::DL_TENSOR_PTR {
            result = owner_of_view(buf.as_mut_slice(), result);
        }
        drop(buf);
        convert::from_any(data, result)
    })
}

/// Converts the arguments of a synchronous call into `buf`. Wrapped objects are borrowed (as in
/// [`call_fast`]). TypedArrays (but Uint8Arrays, which are bytes) become tensors of `tensors`,
/// last: converting other values may run JavaScript (getters of plain objects, proxies), which
/// must not find those tensors made.
fn push_args(
    data: &EnvData,
    tensors: &CallTensors,
    buf: &mut ArgBuf,
    argv: &[napi_value],
) -> Result<()> {
    let env = data.env;
    let mut typed = 0u64;
    for (i, v) in argv.iter().enumerate() {
        if env.try_f64(*v).is_some() || env.type_of(*v)? != napi::Type::napi_object {
            buf.push_js(data, *v)?;
        } else if i < 64 && env.is_typedarray(*v)? {
            typed |= 1 << i;
            buf.push(ffi::none());
        } else if let Some(handle) = borrowed_wrapper(data, *v)? {
            // As in `call_fast`: the caller's frame holds the wrapper, whose `dispose()` waits
            // for the end of the call.
            buf.push_borrowed(handle);
        } else {
            buf.push_js(data, *v)?;
        }
    }
    while typed != 0 {
        let i = typed.trailing_zeros() as usize;
        typed &= typed - 1;
        let any = match tensors.convert(argv[i])? {
            Some(handle) => ffi::object_any(handle),
            None => {
                let mut any = ffi::none();
                convert::to_any(data, argv[i], &mut any)?;
                any
            }
        };
        buf.as_mut_slice()[i] = any;
    }
    Ok(())
}

/// Marks a function wrapper as running (calls may nest); the last one out completes a
/// `dispose()` made meanwhile.
struct Busy<'a>(&'a FnCell);

impl<'a> Busy<'a> {
    fn enter(cell: &'a FnCell) -> Self {
        cell.busy.set(cell.busy.get() + 1);
        Busy(cell)
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        let cell = self.0;
        cell.busy.set(cell.busy.get() - 1);
        if cell.busy.get() == 0 && cell.dispose_pending.replace(false) {
            release_cell(cell);
        }
    }
}

/// Releases a cell's reference (once).
fn release_cell(cell: &FnCell) {
    let handle = cell.handle.replace(ptr::null_mut());
    if !handle.is_null() {
        // SAFETY: the cell's reference.
        unsafe { ffi::TVMFFIObjectDecRef(handle) };
    }
}

/// The fast path of [`call`]: when every argument is a number, a boolean, a wrapped object
/// (a tensor's buffer checked as in the general conversion; borrowed from its wrapper, which
/// the caller's frame holds and whose `dispose()` waits for the end of the synchronous call,
/// see `object::dispose`) or a TypedArray other than a
/// Uint8Array (a tensor made for the call, as in [`push_args`]: after the other arguments,
/// whose conversion here runs no JavaScript), the call goes straight to the runtime, and scalar
/// results straight back. Returns None (before calling) for other arguments; results other
/// than scalars, and errors, go through the general conversion. None comes back as `undefined`
/// (NULL) if `none_as_undefined`.
///
/// # Safety
/// Must run on `data`'s thread inside the Node-API call `info`, inside a [`SyncCall`]; `handle`
/// is a live Function; `cells` are this call's argument cells in `scratch`
/// (`object::argument_cells`).
#[inline]
unsafe fn call_fast(
    data: &EnvData,
    handle: TVMFFIObjectHandle,
    argv: &[napi_value],
    (scratch, cells): (*mut f64, u32),
    info: napi_callback_info,
    none_as_undefined: bool,
) -> Option<napi_value> {
    let env = data.env;
    let mut args = [ffi::none(); 4];
    // Bit i: argument i is a TypedArray, made a tensor below.
    let mut typed = 0u32;
    for (i, (slot, v)) in args.iter_mut().zip(argv).enumerate() {
        if let Some(x) = env.try_f64(*v) {
            *slot = convert::number_any(x);
            continue;
        }
        // SAFETY: `cells` is this call's (read at its start); i < 4 = ARG_CELLS.
        let handle =
            if let Some(handle) = unsafe { crate::object::scratch_handle(scratch, cells, i) } {
                handle
            } else if let Some(b) = env.try_bool(*v) {
                *slot = convert::bool_any(b);
                continue;
            } else if env.is_typedarray(*v).ok()? {
                typed |= 1 << i;
                continue;
            } else {
                crate::object::borrowed_handle(env, *v)?
            };
        // A tensor over JavaScript memory must still have its ArrayBuffer (else the general
        // conversion throws the error, as it checks the same).
        // SAFETY: the wrapper's reference keeps the object alive.
        if unsafe { ffi::type_index_of(handle) } == tindex::TENSOR {
            crate::tensor::js_source(data, handle).ok()?;
        }
        *slot = ffi::object_any(handle);
    }
    let tensors = CallTensors::open(data);
    if typed != 0 {
        if let Err(outcome) = make_call_tensors(&tensors, &mut args, argv, typed) {
            return outcome.map(|e| crate::entry(env.0, info, |_, _| Err(e)));
        }
    }
    let mut result = ffi::none();
    // SAFETY: a live Function and `argv.len()` valid arguments (the tensors owned, the rest
    // borrowed); the result is owned.
    let rc = unsafe {
        ffi::TVMFFIFunctionCall(handle, args.as_mut_ptr(), argv.len() as i32, &mut result)
    };
    let mut kept = Ok(());
    if typed != 0 {
        // While the tensors still hold the arguments' references.
        kept = tensors.close();
        if rc == 0 && result.type_index == tindex::DL_TENSOR_PTR {
            result = owner_of_view(&args[..argv.len()], result);
        }
        release_typed(&mut args, typed);
    }
    if rc == 0 && kept.is_ok() {
        let scalar = match result.type_index {
            // A Node-API callback returning NULL (no exception pending) returns `undefined`.
            tindex::NONE if none_as_undefined => Some(ptr::null_mut()),
            tindex::NONE => Some(env.null()),
            tindex::BOOL => Some(env.boolean(ffi::payload_i64(&result) != 0)),
            tindex::FLOAT => env.double(ffi::payload_f64(&result)).ok(),
            tindex::INT => convert::int_value(env, ffi::payload_i64(&result)).ok(),
            _ => None,
        };
        if let Some(value) = scalar {
            return Some(value);
        }
    }
    Some(crate::entry(env.0, info, |_, _| {
        if rc != 0 {
            return Err(Error::Ffi(ffi::take_raised_error()));
        }
        if let Err(e) = kept {
            ffi::release(&mut result);
            return Err(e);
        }
        convert::from_any(data, result)
    }))
}

/// The tensors of [`call_fast`]'s TypedArray arguments (the bits of `typed`), into `args`. On
/// failure none is left: `Err(None)` for a Uint8Array (bytes: the general path converts it),
/// `Err(Some(error))` for an error to throw.
fn make_call_tensors(
    tensors: &CallTensors,
    args: &mut [TVMFFIAny; 4],
    argv: &[napi_value],
    typed: u32,
) -> std::result::Result<(), Option<Error>> {
    let mut pending = typed;
    while pending != 0 {
        let i = pending.trailing_zeros() as usize;
        pending &= pending - 1;
        let made = match tensors.convert(argv[i]) {
            Ok(Some(handle)) => {
                args[i] = ffi::object_any(handle);
                continue;
            }
            Ok(None) => None,
            Err(e) => Some(e),
        };
        release_typed(args, typed); // those not made yet are None
        return Err(made);
    }
    Ok(())
}

/// Releases the tensors of [`call_fast`] (the bits of `typed`; other arguments are borrowed).
fn release_typed(args: &mut [TVMFFIAny; 4], typed: u32) {
    for (i, arg) in args.iter_mut().enumerate() {
        if typed & (1 << i) != 0 {
            ffi::release(arg);
        }
    }
}

/// The handle of a wrapped object (not a tensor: its buffer must be checked), for a call that
/// borrows it; a wrapper made in JavaScript and not used before is attached here
/// (`object::object_cell`). None for other values.
pub fn borrowed_wrapper(data: &EnvData, value: napi_value) -> Result<Option<TVMFFIObjectHandle>> {
    let env = data.env;
    let cell = match env.unwrap(value) {
        // SAFETY: only cells are attached to objects (see `object::object_cell`).
        Some(cell) => Some(unsafe { &*(cell as *const crate::object::ObjectCell) }),
        None if env.instance_of(value, data.hook(|h| h.object_base)?)? => {
            crate::object::unwrapped_cell(data, value)?
        }
        None => None,
    };
    Ok(cell
        .and_then(crate::object::ObjectCell::handle)
        // SAFETY: a live handle (its wrapper's).
        .filter(|h| unsafe { ffi::type_index_of(*h) } != tindex::TENSOR))
}

/// A `DLTensor*` result that points into one of the argument tensors becomes that tensor (a
/// function taking and returning a tensor view returns the tensor itself).
fn owner_of_view(args: &[TVMFFIAny], result: TVMFFIAny) -> TVMFFIAny {
    // SAFETY: a DLTensorPtr result carries the pointer in v_ptr.
    let view = unsafe { result.value.v_ptr };
    for arg in args {
        if arg.type_index == tindex::TENSOR {
            // SAFETY: an owned Tensor argument.
            let handle: TVMFFIObjectHandle = unsafe { arg.value.v_obj.cast() };
            // SAFETY: as above.
            if unsafe { ffi::dltensor(handle) } as *mut c_void == view {
                // SAFETY: the result gets its own reference.
                unsafe { ffi::TVMFFIObjectIncRef(handle) };
                return ffi::object_any(handle);
            }
        }
    }
    result
}

/// Functions of the runtime that the addon calls itself, looked up once per process.
#[derive(Clone, Copy)]
pub enum Builtin {
    /// `ffi.Array(*items)`.
    Array,
    /// `ffi.Map(k0, v0, ...)`.
    Map,
}

static BUILTINS: [AtomicPtr<c_void>; 2] = [
    AtomicPtr::new(ptr::null_mut()),
    AtomicPtr::new(ptr::null_mut()),
];

/// Calls a builtin with owned arguments.
pub fn call_builtin(which: Builtin, args: &mut ArgBuf) -> Result<TVMFFIAny> {
    let (slot, name): (_, &[u8]) = match which {
        Builtin::Array => (&BUILTINS[0], b"ffi.Array"),
        Builtin::Map => (&BUILTINS[1], b"ffi.Map"),
    };
    let mut f = slot.load(Ordering::Acquire);
    if f.is_null() {
        f = ffi::get_global(name).map_err(Error::Ffi)?;
        if f.is_null() {
            return napi::error(format!(
                "the runtime has no global `{}`",
                String::from_utf8_lossy(name)
            ));
        }
        // Keep one reference for the life of the process (globals are never unloaded).
        if let Err(other) =
            slot.compare_exchange(ptr::null_mut(), f, Ordering::AcqRel, Ordering::Acquire)
        {
            // SAFETY: another thread stored first; release our extra reference.
            unsafe { ffi::TVMFFIObjectDecRef(f) };
            f = other;
        }
    }
    call_raw(f, args)
}

/// Calls the global `name` with no arguments and returns its object result (owned).
pub fn call_global_for_object(name: &[u8]) -> Result<TVMFFIObjectHandle> {
    let f = ffi::get_global(name).map_err(Error::Ffi)?;
    if f.is_null() {
        return napi::error(format!(
            "the runtime has no global `{}`",
            String::from_utf8_lossy(name)
        ));
    }
    let result = call_raw(f, &mut ArgBuf::new());
    // SAFETY: our reference from get_global.
    unsafe { ffi::TVMFFIObjectDecRef(f) };
    let result = result?;
    if result.type_index < tindex::OBJECT {
        return napi::error("expected an object");
    }
    // SAFETY: an object Any.
    Ok(unsafe { result.value.v_obj.cast() })
}

/// `getGlobal(name)`: the global function `name`, or `null`.
pub fn get_global(data: &EnvData, name: napi_value) -> Result<napi_value> {
    let env = data.env;
    let name = env.get_string(name)?;
    let handle = ffi::get_global(&name).map_err(Error::Ffi)?;
    if handle.is_null() {
        return Ok(env.null());
    }
    wrap_function(data, handle, &String::from_utf8_lossy(&name))
}

/// `registerGlobal(name, fn, override)`.
pub fn register_global(
    data: &EnvData,
    name: napi_value,
    func: napi_value,
    allow_override: bool,
) -> Result<()> {
    let env = data.env;
    let name = env.get_string(name)?;
    let mut value = ffi::none();
    convert::to_any(data, func, &mut value)?;
    let value = convert::OwnedAny(value);
    if value.0.type_index != tindex::FUNCTION {
        return napi::type_error("registerGlobal needs a function");
    }
    let array = ffi::byte_array(&name);
    // SAFETY: the name views live bytes; the function is live (the registry takes its own
    // reference).
    let rc = unsafe {
        ffi::TVMFFIFunctionSetGlobal(
            &array,
            value.0.value.v_obj.cast(),
            i32::from(allow_override),
        )
    };
    if rc != 0 {
        return Err(Error::Ffi(ffi::take_raised_error()));
    }
    Ok(())
}

/// A JavaScript function called by native code.
pub struct JsCallback {
    shared: Arc<EnvShared>,
    data: *const EnvData,
    func: napi_ref,
    /// The function's `name`, for errors raised on other threads (which cannot read it).
    name: Box<str>,
}

/// A new TVM-FFI function (owned) calling the JavaScript function `func`.
pub fn js_callback(data: &EnvData, func: napi_value) -> Result<TVMFFIObjectHandle> {
    let env = data.env;
    let name = env
        .get_named(func, b"name\0")
        .and_then(|v| env.get_rust_string(v))
        .unwrap_or_default();
    let r = env.reference(func, 1)?;
    new_function(JsCallback {
        shared: data.shared.clone(),
        data,
        func: r,
        name: name.into(),
    })
}

/// What a TVM-FFI function made by [`new_function`] owns and calls: its C entry calls it under
/// `catch_unwind`, and the runtime drops it (on any thread) with the function.
pub trait Callee: Sized {
    /// Calls with the borrowed arguments: an owned result, or an owned error to raise.
    fn call(&self, args: &[TVMFFIAny]) -> std::result::Result<TVMFFIAny, TVMFFIObjectHandle>;
}

/// A new TVM-FFI function (owned) that owns `callee`.
pub fn new_function<T: Callee>(callee: T) -> Result<TVMFFIObjectHandle> {
    let handle = Box::into_raw(Box::new(callee));
    let mut out: TVMFFIObjectHandle = ptr::null_mut();
    // SAFETY: `handle` is handed to the function, which frees it through `delete_callee`.
    let rc = unsafe {
        ffi::TVMFFIFunctionCreate(
            handle.cast(),
            Some(call_callee::<T>),
            Some(delete_callee::<T>),
            &mut out,
        )
    };
    if rc != 0 {
        // SAFETY: not taken by the runtime.
        unsafe { delete_callee::<T>(handle.cast()) };
        return Err(Error::Ffi(ffi::take_raised_error()));
    }
    Ok(out)
}

/// The C entry of a [`new_function`].
unsafe extern "C" fn call_callee<T: Callee>(
    handle: *mut c_void,
    args: *const TVMFFIAny,
    num_args: i32,
    result: *mut TVMFFIAny,
) -> i32 {
    let outcome = std::panic::catch_unwind(|| {
        // SAFETY: `handle` is the callee given to TVMFFIFunctionCreate, alive while the function
        // is (and the caller holds the function during the call).
        let callee = unsafe { &*(handle as *const T) };
        // SAFETY: the caller passes `num_args` valid arguments.
        callee.call(unsafe { ffi::call_args(args, num_args) })
    });
    finish_safe_call(outcome, result)
}

unsafe extern "C" fn delete_callee<T>(handle: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: the callee boxed by `new_function`, deleted once by the runtime.
        drop(unsafe { Box::from_raw(handle as *mut T) });
    });
}

/// The TVM-FFI side of a JavaScript callback.
impl Callee for JsCallback {
    fn call(&self, args: &[TVMFFIAny]) -> std::result::Result<TVMFFIAny, TVMFFIObjectHandle> {
        if self.shared.on_thread() {
            if !self.shared.alive() {
                return Err(ffi::make_error(
                    "RuntimeError",
                    "the JavaScript environment of this callback has exited",
                    "",
                ));
            }
            // SAFETY: alive, and on its thread.
            let env = unsafe { &*self.data }.env;
            self.invoke(env, args)
        } else {
            let call = Arc::new(CrossCall {
                callback: self,
                args: args.as_ptr(),
                num_args: args.len(),
                state: Mutex::new(CallState::Queued),
                done: Condvar::new(),
            });
            match self.shared.call_on_thread(&call, || self.blocked_message()) {
                Ok(Ok(v)) => Ok(v.0),
                Ok(Err(e)) => Err(e.0),
                Err(message) => Err(ffi::make_error("RuntimeError", &message, "")),
            }
        }
    }
}

/// Ends a safe call (a function's C entry, a field converter): writes its value to `out` and
/// returns 0, or raises its error (an owned error object; a panic becomes an `InternalError`)
/// and returns -1.
pub fn finish_safe_call(
    outcome: std::thread::Result<std::result::Result<TVMFFIAny, TVMFFIObjectHandle>>,
    out: *mut TVMFFIAny,
) -> i32 {
    let outcome = outcome.unwrap_or_else(|panic| {
        Err(ffi::make_error(
            "InternalError",
            &format!("panic in the Node addon: {}", napi::panic_message(&*panic)),
            "",
        ))
    });
    match outcome {
        Ok(v) => {
            // SAFETY: the caller provides a result slot holding no owned value.
            unsafe { *out = v };
            0
        }
        Err(error) => {
            // SAFETY: `error` is an owned error object; the runtime takes its own reference.
            unsafe {
                ffi::TVMFFIErrorSetRaised(error);
                ffi::TVMFFIObjectDecRef(error);
            }
            -1
        }
    }
}

impl Drop for JsCallback {
    fn drop(&mut self) {
        self.shared.release_ref(self.func);
    }
}

impl JsCallback {
    /// The error of a call from another thread that cannot run because the JavaScript thread
    /// stays inside a synchronous call.
    fn blocked_message(&self) -> String {
        let callback = if self.name.is_empty() {
            "an anonymous JavaScript callback".to_string()
        } else {
            format!("the JavaScript callback `{}`", self.name)
        };
        format!(
            "{callback} was called from another thread while its JavaScript thread is blocked \
             in a synchronous call into TVM-FFI, which may be waiting for that thread: the \
             callback cannot run until the call returns. Make the call with \
             `await ffi.callAsync(fn, ...args)`, which lets such callbacks run"
        )
    }

    /// Runs the JavaScript function on its environment's thread: converts the borrowed
    /// arguments, calls, and converts the result (owned) or the exception (an owned error).
    pub fn invoke(
        &self,
        env: Env,
        args: &[TVMFFIAny],
    ) -> std::result::Result<TVMFFIAny, TVMFFIObjectHandle> {
        let scope = match env.open_scope() {
            Ok(s) => s,
            Err(_) => {
                return Err(ffi::make_error(
                    "RuntimeError",
                    "cannot open a handle scope",
                    "",
                ))
            }
        };
        // SAFETY: alive on this thread (checked by the callers).
        let data = unsafe { &*self.data };
        let outcome = self.invoke_in_scope(data, args);
        let outcome = match outcome {
            Ok(v) => Ok(v),
            Err(Error::Ffi(e)) => Err(e),
            Err(Error::Pending) => {
                let exception = env.take_exception();
                Err(
                    crate::error::error_from_js(data, exception).unwrap_or_else(|_| {
                        ffi::make_error("RuntimeError", "JavaScript exception", "")
                    }),
                )
            }
            Err(Error::Js {
                type_error,
                message,
            }) => Err(ffi::make_error(
                if type_error {
                    "TypeError"
                } else {
                    "RuntimeError"
                },
                &message,
                "",
            )),
        };
        env.close_scope(scope);
        outcome
    }

    fn invoke_in_scope(&self, data: &EnvData, args: &[TVMFFIAny]) -> Result<TVMFFIAny> {
        let env = data.env;
        // JavaScript is about to run inside the calls in progress.
        CallTensors::keep_all(data)?;
        let func = env.deref(self.func)?;
        let mut js_args = Vec::with_capacity(args.len());
        for a in args {
            js_args.push(convert::from_view(data, a)?);
        }
        let result = env.call_function(env.undefined(), func, &js_args)?;
        let mut out = ffi::none();
        convert::to_any(data, result, &mut out)?;
        Ok(out)
    }
}

/// `toFunction(fn)`: the TVM-FFI function of a JavaScript function, wrapped (so that it can be
/// passed many times, registered, or disposed).
pub fn to_function(data: &EnvData, func: napi_value) -> Result<napi_value> {
    if function_handle_exists(data.env, func)? {
        return Ok(func);
    }
    let handle = js_callback(data, func)?;
    wrap_function(data, handle, "")
}

fn function_handle_exists(env: Env, func: napi_value) -> Result<bool> {
    Ok(unwrap_function(env, func)?.is_some())
}

/// `benchNoop()`: a bare Node-API function that does nothing (the benchmark's floor).
pub unsafe extern "C" fn bench_noop(env: napi_env, _info: napi_callback_info) -> napi_value {
    Env(env).undefined()
}

/// `benchAdd3(a, b, c)`: a bare Node-API function adding three numbers (the benchmark's floor
/// for a call with three number arguments).
pub unsafe extern "C" fn bench_add3(env: napi_env, info: napi_callback_info) -> napi_value {
    let env = Env(env);
    let mut argc = 3usize;
    let mut argv = [ptr::null_mut(); 3];
    // SAFETY: `env` and `info` come from Node for this call; `argv` has room for 3 values.
    unsafe {
        napi_sys::napi_get_cb_info(
            env.0,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    let sum: f64 = argv.iter().map(|v| env.try_f64(*v).unwrap_or(0.0)).sum();
    env.double(sum).unwrap_or(ptr::null_mut())
}

/// One `callAsync` in flight.
struct AsyncCall {
    func: TVMFFIObjectHandle,
    args: ArgBuf,
    outcome: Option<std::result::Result<TVMFFIAny, TVMFFIObjectHandle>>,
    deferred: napi_sys::napi_deferred,
    work: napi_sys::napi_async_work,
    data: *const EnvData,
}

/// `callAsync(fn, ...args)`: calls a TVM-FFI function on a worker thread of Node's pool and
/// returns a promise of its result. JavaScript callbacks that it calls run on this thread
/// while it waits.
pub fn call_async(data: &EnvData, func: napi_value, rest: &[napi_value]) -> Result<napi_value> {
    let env = data.env;
    let mut f = ffi::none();
    convert::to_any(data, func, &mut f)?;
    let f = convert::OwnedAny(f);
    if f.0.type_index != tindex::FUNCTION {
        return napi::type_error("callAsync needs a function");
    }
    let mut args = ArgBuf::new();
    for v in rest {
        args.push_js(data, *v)?;
    }
    let (deferred, promise) = env.promise()?;
    let call = Box::into_raw(Box::new(AsyncCall {
        // SAFETY: an object Any; ownership moves into the call.
        func: unsafe { f.take().value.v_obj.cast() },
        args,
        outcome: None,
        deferred,
        work: ptr::null_mut(),
        data,
    }));
    let name = env.string(b"ffihub.callAsync")?;
    let mut work = ptr::null_mut();
    // SAFETY: `call` is freed by `complete_async` (which Node always runs once).
    let status = unsafe {
        napi_sys::napi_create_async_work(
            env.0,
            ptr::null_mut(),
            name,
            Some(execute_async),
            Some(complete_async),
            call.cast(),
            &mut work,
        )
    };
    if let Err(e) = env.check(status) {
        // SAFETY: not handed to Node.
        drop(unsafe { Box::from_raw(call) });
        return Err(e);
    }
    // SAFETY: `call` is ours until queued.
    unsafe { (*call).work = work };
    // SAFETY: `work` was just created on this env.
    env.check(unsafe { napi_sys::napi_queue_async_work(env.0, work) })?;
    Ok(promise)
}

/// A promise rejected with `error` (a pending JavaScript exception is taken).
pub fn rejected(data: &EnvData, error: Error) -> Result<napi_value> {
    let env = data.env;
    let reason = crate::error::to_js(data, error)?;
    let (deferred, promise) = env.promise()?;
    env.settle(deferred, false, reason)?;
    Ok(promise)
}

impl Drop for AsyncCall {
    fn drop(&mut self) {
        if !self.func.is_null() {
            // SAFETY: the call's reference.
            unsafe { ffi::TVMFFIObjectDecRef(self.func) };
        }
        match self.outcome.take() {
            Some(Ok(mut v)) => ffi::release(&mut v),
            // SAFETY: an owned error.
            Some(Err(e)) => unsafe {
                ffi::TVMFFIObjectDecRef(e);
            },
            None => {}
        }
    }
}

unsafe extern "C" fn execute_async(_env: napi_env, data: *mut c_void) {
    // Runs on a pool thread: no JavaScript here.
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: the AsyncCall of this work, touched only by this thread until completion.
        let call = unsafe { &mut *(data as *mut AsyncCall) };
        call.outcome = Some(match call_raw(call.func, &mut call.args) {
            Ok(v) => Ok(v),
            Err(Error::Ffi(e)) => Err(e),
            Err(_) => Err(ffi::make_error("RuntimeError", "call failed", "")),
        });
        // Release the arguments here, off the JavaScript thread.
        call.args = ArgBuf::new();
    });
}

unsafe extern "C" fn complete_async(
    env: napi_env,
    status: napi_sys::napi_status,
    data: *mut c_void,
) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: the AsyncCall boxed by `call_async`, completed once.
        let mut call = unsafe { Box::from_raw(data as *mut AsyncCall) };
        let env = Env(env);
        if env.0.is_null() {
            return;
        }
        // SAFETY: the work belongs to this env and is deleted once, here.
        unsafe { napi_sys::napi_delete_async_work(env.0, call.work) };
        // SAFETY: completion runs on the environment's thread while it is alive.
        let data = unsafe { &*call.data };
        let settled = (|| -> Result<()> {
            let outcome = if status == napi_sys::Status::napi_cancelled {
                Err(ffi::make_error(
                    "RuntimeError",
                    "the call was cancelled",
                    "",
                ))
            } else {
                call.outcome
                    .take()
                    .unwrap_or_else(|| Err(ffi::make_error("InternalError", "no result", "")))
            };
            match outcome {
                Ok(v) => {
                    let value = convert::from_any(data, v);
                    match value {
                        Ok(v) => env.settle(call.deferred, true, v),
                        Err(Error::Pending) => {
                            let e = env.take_exception();
                            env.settle(call.deferred, false, e)
                        }
                        Err(e) => {
                            let e = crate::error::to_js(data, e)?;
                            env.settle(call.deferred, false, e)
                        }
                    }
                }
                Err(e) => {
                    let e = crate::error::error_value(data, e)?;
                    env.settle(call.deferred, false, e)
                }
            }
        })();
        if settled.is_err() {
            let e = env.take_exception();
            let _ = env.settle(call.deferred, false, e);
        }
    });
}
