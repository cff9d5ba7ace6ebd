//! Wrapped object handles: wrapping, finding a wrapper's object, finalizers and disposal. The
//! submodules have classes and construction, reflection records, fields, the scratch shared with
//! `lib/object.js`, and sequence reads.
//!
//! Ownership: a JavaScript wrapper owns one strong reference to its object, kept in an
//! [`ObjectCell`] (a small native allocation) whose address the wrapper carries in a private
//! field. A Node-API finalizer attached with `napi_add_finalizer` (run after the wrapper is
//! collected, or at the environment's teardown) releases the reference if `dispose()` has not
//! and frees the cell.
//!
//! One wrapper per object: a result whose object has a live wrapper is that wrapper
//! ([`Wrappers`]; making a wrapper costs several times the call, most of it the finalizer's
//! weak handle). The cell counts its hand-outs (results and constructions); `dispose()`
//! releases one, and the reference goes (the wrapper becomes unusable) with the last. Native code finds a wrapper's cell through
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
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_void;
use std::hash::{BuildHasherDefault, Hasher};
use std::ptr;
use std::rc::Rc;

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
    /// Hand-outs of the wrapper not disposed yet (see the module's comment).
    handouts: Cell<u64>,
    /// The wrapper (weak: from `napi_add_finalizer`, deleted by the finalizer), for reuse.
    wrapper: Cell<napi_sys::napi_ref>,
    /// The class generation the wrapper was made in ([`Wrappers::generation`]).
    generation: u64,
    /// The registry that lists the wrapper while it holds its reference (None for objects
    /// attached with [`attach`], which are never reused).
    registry: Option<Rc<Wrappers>>,
}

impl ObjectCell {
    /// A new cell owning `handle`, handed out once.
    fn new(handle: TVMFFIObjectHandle, registry: Option<Rc<Wrappers>>) -> *mut ObjectCell {
        let generation = registry.as_ref().map_or(0, |r| r.generation.get());
        Box::into_raw(Box::new(ObjectCell {
            handle: Cell::new(handle),
            handouts: Cell::new(1),
            wrapper: Cell::new(ptr::null_mut()),
            generation,
            registry,
        }))
    }

    /// The live handle, if not disposed.
    pub fn handle(&self) -> Option<TVMFFIObjectHandle> {
        let h = self.handle.get();
        (!h.is_null()).then_some(h)
    }

    /// Disposes one hand-out: the reference, taken out of the cell, when it was the last (the
    /// wrapper is disposed from now on).
    fn dispose_handout(&self) -> Option<TVMFFIObjectHandle> {
        self.handle()?;
        let left = self.handouts.get().saturating_sub(1);
        self.handouts.set(left);
        if left > 0 {
            return None;
        }
        self.take()
    }

    /// Takes the reference out (the cell is disposed from now on) and unlists the wrapper.
    fn take(&self) -> Option<TVMFFIObjectHandle> {
        let handle = self.handle.replace(ptr::null_mut());
        if handle.is_null() {
            return None;
        }
        if let Some(registry) = &self.registry {
            registry.remove(handle, self);
        }
        Some(handle)
    }

    /// Releases the reference now (once).
    fn dispose(&self) {
        if let Some(handle) = self.take() {
            // SAFETY: the cell's reference, taken out of it.
            unsafe { ffi::TVMFFIObjectDecRef(handle) };
        }
    }
}

/// The wrappers of an environment that hold their reference, by object address: a result
/// whose object has one gets it (ADR 0017). An entry is removed when its wrapper lets go of
/// its reference (disposal or finalizer), so an address is never that of a freed object; an
/// entry whose wrapper was collected but not finalized yet is replaced by the next wrapper of
/// the object.
#[derive(Default)]
pub struct Wrappers {
    by_handle: RefCell<HashMap<usize, *const ObjectCell, BuildHasherDefault<AddressHasher>>>,
    /// Bumped when a class is registered: wrappers made before may have a less derived class
    /// than a result would get now, and are not reused.
    generation: Cell<u64>,
}

impl Wrappers {
    /// A class was registered (see `set_class`).
    pub fn classes_changed(&self) {
        self.generation.set(self.generation.get() + 1);
    }

    /// The live wrapper of `handle`, handed out once more, if there is one.
    fn reuse(&self, env: Env, handle: TVMFFIObjectHandle) -> Option<napi_value> {
        let cell = *self.by_handle.borrow().get(&(handle as usize))?;
        // SAFETY: listed cells are live (the finalizer unlists its cell before freeing it).
        let cell = unsafe { &*cell };
        if cell.generation != self.generation.get() {
            return None;
        }
        let wrapper = env.deref(cell.wrapper.get()).ok()?;
        if wrapper.is_null() {
            return None;
        }
        cell.handouts.set(cell.handouts.get() + 1);
        Some(wrapper)
    }

    fn insert(&self, handle: TVMFFIObjectHandle, cell: *const ObjectCell) {
        self.by_handle.borrow_mut().insert(handle as usize, cell);
    }

    /// Unlists `cell` (if the entry of `handle` is still its own).
    fn remove(&self, handle: TVMFFIObjectHandle, cell: *const ObjectCell) {
        let mut map = self.by_handle.borrow_mut();
        if map.get(&(handle as usize)) == Some(&cell) {
            map.remove(&(handle as usize));
        }
    }
}

/// Hashes object addresses (16-byte aligned: the low bits carry nothing) with one multiply.
#[derive(Default)]
pub struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = ((n as u64) >> 4).wrapping_mul(0x9E37_79B9_7F4A_7C15);
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
            if let Some(wrapper) = data.wrappers.reuse(env, handle) {
                // SAFETY: the wrapper owns a reference already: the one handed over goes.
                unsafe { ffi::TVMFFIObjectDecRef(handle) };
                return Ok(wrapper);
            }
            let cell = ObjectCell::new(handle, Some(data.wrappers.clone()));
            // The shell stamps the cell's address on the instance (see `lib/object.js`).
            let made = resolve_class(data, type_index).and_then(|shell| {
                let address = cell_number(env, cell)?;
                env.new_instance(shell, &[address])
            });
            let object = match made {
                Ok(object) => object,
                Err(e) => {
                    // SAFETY: not attached to anything that lives on: ours to free.
                    unsafe { free_cell(env.0, cell) };
                    return Err(e);
                }
            };
            // SAFETY: `cell` is live and given to `object`.
            unsafe { give_cell(data, object, cell) }?;
            Ok(object)
        }
    }
}

/// Gives `cell` (live, not listed) to the new wrapper `object`: its finalizer, and its entry
/// in the environment's [`Wrappers`]. On failure the cell is disposed (the instance carries
/// its address: it stays allocated, empty).
///
/// # Safety
/// `cell` is live and belongs to `object` from now on.
unsafe fn give_cell(data: &EnvData, object: napi_value, cell: *mut ObjectCell) -> Result<()> {
    // SAFETY: as guaranteed by the caller.
    let live = unsafe { &*cell };
    // SAFETY: `object` is a live value of the env; the reference is deleted by the finalizer.
    let added = data.env.check(unsafe {
        napi_sys::napi_add_finalizer(
            data.env.0,
            object,
            cell.cast(),
            Some(finalize_object),
            ptr::null_mut(),
            live.wrapper.as_ptr(),
        )
    });
    if let Err(e) = added {
        live.dispose();
        return Err(e);
    }
    if let Some(handle) = live.handle() {
        data.wrappers.insert(handle, cell);
    }
    Ok(())
}

/// A cell's address as a JavaScript number (exact: addresses have at most 53 bits).
fn cell_number(env: Env, cell: *const ObjectCell) -> Result<napi_value> {
    env.double(cell as usize as f64)
}

/// Releases a cell's reference (if not disposed), deletes its reference to the wrapper and
/// frees the cell.
///
/// # Safety
/// `cell` came from [`ObjectCell::new`] and nothing uses it afterwards.
unsafe fn free_cell(env: napi_sys::napi_env, cell: *mut ObjectCell) {
    // SAFETY: guaranteed by the caller.
    let cell = unsafe { Box::from_raw(cell) };
    cell.dispose();
    let wrapper = cell.wrapper.get();
    if !wrapper.is_null() {
        // SAFETY: the reference `napi_add_finalizer` made, deleted in its finalizer as Node-API
        // asks.
        unsafe { napi_sys::napi_delete_reference(env, wrapper) };
    }
}

/// Attaches an owned handle to a JavaScript object made natively (an error), which has no
/// private field: with `napi_wrap`, whose finalizer releases it (released on failure).
pub fn attach(env: Env, object: napi_value, handle: TVMFFIObjectHandle) -> Result<()> {
    let cell = ObjectCell::new(handle, None);
    if let Err(e) = env.wrap(object, cell.cast(), Some(finalize_object), ptr::null_mut()) {
        // SAFETY: not attached, so still ours.
        unsafe { free_cell(env.0, cell) };
        return Err(e);
    }
    Ok(())
}

/// Releases the reference of a collected wrapper (unless disposed) and frees its cell.
unsafe extern "C" fn finalize_object(env: napi_sys::napi_env, data: *mut c_void, _: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: `data` is the wrapper's cell, finalized once after the wrapper is gone.
        unsafe { free_cell(env, data.cast()) };
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
/// else or a disposed wrapper: the general conversion does these; a tensor's buffer is the
/// caller's to check). The wrapper's reference stays valid for the call: `dispose()` defers its
/// release until the call ends ([`dispose`]).
#[inline]
pub fn borrowed_handle(env: Env, value: napi_value) -> Option<TVMFFIObjectHandle> {
    if env.type_of(value).ok()? != Type::napi_object {
        return None;
    }
    // SAFETY: only cells are attached to objects (see `object_cell`).
    unsafe { &*(env.unwrap(value)? as *const ObjectCell) }.handle()
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

/// `dispose(value)`: disposes one hand-out of a wrapper; the last releases its reference now
/// (later calls do nothing).
pub fn dispose(data: &EnvData, value: napi_value) -> Result<()> {
    let env = data.env;
    match env.type_of(value)? {
        Type::napi_object => {
            if let Some(handle) = object_cell(data, value)?.and_then(ObjectCell::dispose_handout) {
                if data.in_sync_call() {
                    // A synchronous call in progress may borrow it (`borrowed_handle`): the
                    // wrapper is disposed now, the reference released when the call ends.
                    data.release_after_call(handle);
                } else {
                    // SAFETY: the wrapper's reference, taken out of its cell.
                    unsafe { ffi::TVMFFIObjectDecRef(handle) };
                }
            }
        }
        Type::napi_function => function::dispose_function(env, value)?,
        _ => {}
    }
    Ok(())
}
