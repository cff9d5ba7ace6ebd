//! Wrapped object handles: wrapping, finding a wrapper's object, finalizers and disposal. The
//! submodules have classes and construction, reflection records, fields, the scratch shared with
//! `lib/object.js`, and sequence reads.
//!
//! Ownership: a JavaScript wrapper owns one strong reference to its object, kept in an
//! [`ObjectCell`] (a small native allocation) whose address the wrapper carries in a private
//! field. A Node-API finalizer attached with `napi_add_finalizer` (run after the wrapper is
//! collected, or at the environment's teardown) releases the reference if `dispose()` has not
//! and frees the cell; `dispose()` empties the cell. Native code finds a wrapper's cell through
//! `napi_unwrap`, attached on the first use of a wrapper as an argument (most wrappers are never
//! passed back: `napi_wrap` on every new wrapper cost more than all the rest of creating it).
//! Wrappers are made from "shells": functions whose `prototype` is the registered class's
//! prototype, so that results get the most derived registered class without running a
//! constructor.

use crate::env::EnvData;
use crate::ffi;
use crate::function;
use crate::napi::{self, napi_value, Env, Result, Type};
use ffihub_abi::abi::TVMFFIObjectHandle;
use ffihub_abi::tindex;
use std::cell::Cell;
use std::ffi::c_void;
use std::ptr;

mod class;
mod fields;
mod reflection;
mod scratch;
mod sequence;

pub use class::*;
pub use fields::*;
pub use reflection::*;
pub use scratch::*;
pub use sequence::*;

/// The reference a wrapper owns (NULL once disposed). It lives as long as its wrapper: only
/// the wrapper's finalizer frees it.
pub struct ObjectCell {
    handle: Cell<TVMFFIObjectHandle>,
}

impl ObjectCell {
    /// A new cell owning `handle`.
    fn new(handle: TVMFFIObjectHandle) -> *mut ObjectCell {
        Box::into_raw(Box::new(ObjectCell {
            handle: Cell::new(handle),
        }))
    }

    /// The live handle, if not disposed.
    pub fn handle(&self) -> Option<TVMFFIObjectHandle> {
        let h = self.handle.get();
        (!h.is_null()).then_some(h)
    }

    /// Takes the reference out (the cell is disposed from now on).
    fn take(&self) -> Option<TVMFFIObjectHandle> {
        let handle = self.handle.replace(ptr::null_mut());
        (!handle.is_null()).then_some(handle)
    }

    /// Releases the reference now (once).
    pub fn dispose(&self) {
        let handle = self.handle.replace(ptr::null_mut());
        if !handle.is_null() {
            // SAFETY: the cell's reference, taken out of it.
            unsafe { ffi::TVMFFIObjectDecRef(handle) };
        }
    }
}

/// Wraps an owned handle in the JavaScript value of its kind (a function for functions, an
/// error for errors, otherwise an instance of the most derived registered class). The wrapper
/// takes the reference, also on failure.
pub fn wrap_object(data: &EnvData, handle: TVMFFIObjectHandle) -> Result<napi_value> {
    // SAFETY: the caller hands over a live, owned handle.
    let type_index = unsafe { ffi::type_index_of(handle) };
    match type_index {
        tindex::FUNCTION => function::wrap_function(data, handle, ""),
        tindex::ERROR => crate::error::error_value(data, handle),
        _ => {
            let env = data.env;
            let cell = ObjectCell::new(handle);
            // The shell stamps the cell's address on the instance (see `lib/object.js`).
            let made = resolve_class(data, type_index).and_then(|shell| {
                let address = cell_number(env, cell)?;
                env.new_instance(shell, &[address])
            });
            let object = match made {
                Ok(object) => object,
                Err(e) => {
                    // SAFETY: not attached to anything that lives on: ours to free.
                    unsafe { free_cell(cell) };
                    return Err(e);
                }
            };
            // SAFETY: `cell` is live and given to `object`'s finalizer.
            if let Err(e) = unsafe { add_finalizer(env, object, cell) } {
                // The instance carries the cell's address (though it is dropped here): the
                // cell stays allocated, empty.
                // SAFETY: live cell.
                unsafe { (*cell).dispose() };
                return Err(e);
            }
            Ok(object)
        }
    }
}

/// A cell's address as a JavaScript number (exact: addresses have at most 53 bits).
fn cell_number(env: Env, cell: *const ObjectCell) -> Result<napi_value> {
    env.double(cell as usize as f64)
}

/// Makes `cell`'s finalizer run when `object` is collected (or at teardown).
///
/// # Safety
/// `cell` is live, and belongs to `object` from now on if this succeeds.
unsafe fn add_finalizer(env: Env, object: napi_value, cell: *mut ObjectCell) -> Result<()> {
    // SAFETY: `object` is a live value of `env`; no reference is asked for (Node deletes its own).
    env.check(unsafe {
        napi_sys::napi_add_finalizer(
            env.0,
            object,
            cell.cast(),
            Some(finalize_object),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    })
}

/// Releases a cell's reference (if not disposed) and frees the cell.
///
/// # Safety
/// `cell` came from [`ObjectCell::new`] and nothing uses it afterwards.
unsafe fn free_cell(cell: *mut ObjectCell) {
    // SAFETY: guaranteed by the caller.
    let cell = unsafe { Box::from_raw(cell) };
    cell.dispose();
}

/// Attaches an owned handle to a JavaScript object made natively (an error), which has no
/// private field: with `napi_wrap`, whose finalizer releases it (released on failure).
pub fn attach(env: Env, object: napi_value, handle: TVMFFIObjectHandle) -> Result<()> {
    let cell = ObjectCell::new(handle);
    if let Err(e) = env.wrap(object, cell.cast(), Some(finalize_object), ptr::null_mut()) {
        // SAFETY: not attached, so still ours.
        unsafe { free_cell(cell) };
        return Err(e);
    }
    Ok(())
}

/// Releases the reference of a collected wrapper (unless disposed) and frees its cell.
unsafe extern "C" fn finalize_object(_env: napi_sys::napi_env, data: *mut c_void, _: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: `data` is the wrapper's cell, finalized once after the wrapper is gone.
        unsafe { free_cell(data.cast()) };
    });
}

/// The shell of the most derived registered class of a type.
fn resolve_class(data: &EnvData, type_index: i32) -> Result<napi_value> {
    let cached = data.resolved.borrow().get(&type_index).copied();
    if let Some(shell) = cached {
        return data.env.deref(shell);
    }
    let found = {
        let registered = data.registered.borrow();
        ffi::self_and_ancestors(type_index)
            .iter()
            .find_map(|info| registered.get(&info.type_index).copied())
            .or_else(|| registered.get(&tindex::OBJECT).copied())
    };
    match found {
        Some(shell) => {
            data.resolved.borrow_mut().insert(type_index, shell);
            data.env.deref(shell)
        }
        None => napi::error("the ffihub addon was not initialized by index.js"),
    }
}

/// The cell of a wrapped object, if `value` is one (disposed or not). A wrapper made in
/// JavaScript is found through its private field the first time (the `cellOf` hook), then
/// attached with `napi_wrap`, without a finalizer (its own releases it), for the next times.
pub fn object_cell(data: &EnvData, value: napi_value) -> Result<Option<&ObjectCell>> {
    if let Some(cell) = data.env.unwrap(value) {
        // SAFETY: only cells are attached to objects (see `attach` and below); a cell lives
        // as long as its wrapper.
        return Ok(Some(unsafe { &*(cell as *const ObjectCell) }));
    }
    unwrapped_cell(data, value)
}

/// The handle of a wrapped object for a synchronous call that borrows it (None for anything
/// else, a disposed wrapper, or a tensor, whose buffer must be checked: the general conversion
/// does these). The wrapper's reference stays valid for the call: `dispose()` defers its release
/// until the call ends ([`dispose`]).
#[inline]
pub fn borrowed_handle(env: Env, value: napi_value) -> Option<TVMFFIObjectHandle> {
    if env.type_of(value).ok()? != Type::napi_object {
        return None;
    }
    // SAFETY: only cells are attached to objects (see `object_cell`).
    let handle = unsafe { &*(env.unwrap(value)? as *const ObjectCell) }.handle()?;
    // SAFETY: a live handle.
    (unsafe { ffi::type_index_of(handle) } != tindex::TENSOR).then_some(handle)
}

/// [`object_cell`] of an object `napi_unwrap` found nothing on.
pub fn unwrapped_cell(data: &EnvData, value: napi_value) -> Result<Option<&ObjectCell>> {
    let env = data.env;
    let address = env.call_function(env.undefined(), data.hook(|h| h.cell_of)?, &[value])?;
    let address = env.get_f64(address)?;
    let cell = address as usize as *mut ObjectCell;
    if cell.is_null() || address != cell as usize as f64 {
        return Ok(None);
    }
    // The address comes from the private field of the live wrapper `value`, which only the
    // addon stamps: its cell lives as long as `value`.
    env.wrap(value, cell.cast(), None, ptr::null_mut())?;
    // SAFETY: as above.
    Ok(Some(unsafe { &*cell }))
}

/// The handle held by a wrapper (an object or a function), if `value` is one (None if
/// disposed).
pub fn handle_of(data: &EnvData, value: napi_value) -> Result<Option<TVMFFIObjectHandle>> {
    let env = data.env;
    match env.type_of(value)? {
        Type::napi_object => Ok(object_cell(data, value)?.and_then(ObjectCell::handle)),
        Type::napi_function => function::unwrap_function(env, value),
        _ => Ok(None),
    }
}

/// The handle held by a wrapper, or a TypeError naming `what`.
pub fn require_handle(data: &EnvData, value: napi_value, what: &str) -> Result<TVMFFIObjectHandle> {
    match handle_of(data, value)? {
        Some(h) => Ok(h),
        None => napi::type_error(format!(
            "{what} is not a TVM-FFI object (or it was disposed)"
        )),
    }
}

/// `dispose(value)`: releases a wrapper's reference now (idempotent).
pub fn dispose(data: &EnvData, value: napi_value) -> Result<()> {
    let env = data.env;
    match env.type_of(value)? {
        Type::napi_object => {
            if let Some(cell) = object_cell(data, value)? {
                if data.in_sync_call() {
                    // A synchronous call in progress may borrow it (`borrowed_handle`): the
                    // wrapper is disposed now, the reference released when the call ends.
                    if let Some(handle) = cell.take() {
                        data.release_after_call(handle);
                    }
                } else {
                    cell.dispose();
                }
            }
        }
        Type::napi_function => function::dispose_function(env, value)?,
        _ => {}
    }
    Ok(())
}
