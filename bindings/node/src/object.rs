//! Wrapped object handles, classes, reflection (fields, methods, constructors) and containers.
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

use crate::convert::{self, ArgBuf};
use crate::env::{EnvData, FieldAccess, FieldSlot};
use crate::ffi::{self, bytes_of};
use crate::function;
use crate::napi::{self, napi_value, Env, Error, Result, Type};
use ffihub_abi::abi::{
    TVMFFIAny, TVMFFIAnyValue, TVMFFIFieldFlagBitMask as Flag, TVMFFIFieldInfo, TVMFFIObjectHandle,
    TVMFFISeqCell, TVMFFIShapeCell, TVMFFITypeInfo,
};
use ffihub_abi::tindex;
use std::cell::Cell;
use std::ffi::c_void;
use std::ptr;

/// The reference a wrapper owns (NULL once disposed). It lives as long as its wrapper: only
/// the wrapper's finalizer frees it.
pub struct ObjectCell(Cell<TVMFFIObjectHandle>);

impl ObjectCell {
    /// A new cell owning `handle`.
    fn new(handle: TVMFFIObjectHandle) -> *mut ObjectCell {
        Box::into_raw(Box::new(ObjectCell(Cell::new(handle))))
    }

    /// The live handle, if not disposed.
    pub fn handle(&self) -> Option<TVMFFIObjectHandle> {
        let h = self.0.get();
        (!h.is_null()).then_some(h)
    }

    /// Releases the reference now (once).
    pub fn dispose(&self) {
        let handle = self.0.replace(ptr::null_mut());
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

/// `setClass(typeIndex, shell)`: the class of a type (and of its unregistered subtypes).
pub fn set_class(data: &EnvData, type_index: i32, shell: napi_value) -> Result<()> {
    let r = data.env.reference(shell, 1)?;
    if let Some(old) = data.registered.borrow_mut().insert(type_index, r) {
        data.env.delete_reference(old);
    }
    // Subtypes may now resolve to this class.
    data.resolved.borrow_mut().clear();
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

/// `typeInfo(indexOrKey)`: the reflection record of a type, as a plain object.
pub fn type_info_value(data: &EnvData, type_index: i32) -> Result<napi_value> {
    let env = data.env;
    let Some(info) = ffi::type_info(type_index) else {
        return napi::error(format!("no type with index {type_index}"));
    };
    let out = env.object()?;
    env.set_named(out, b"index\0", env.double(f64::from(type_index))?)?;
    env.set_named(out, b"key\0", env.string(unsafe_bytes(&info.type_key))?)?;
    let chain = ffi::self_and_ancestors(type_index);
    let ancestors = env.array(chain.len().saturating_sub(1))?;
    for (i, a) in chain.iter().skip(1).rev().enumerate() {
        env.set_element(ancestors, i as u32, env.string(unsafe_bytes(&a.type_key))?)?;
    }
    env.set_named(out, b"ancestors\0", ancestors)?;
    let fields = env.array(info.num_fields.max(0) as usize)?;
    for i in 0..info.num_fields.max(0) as usize {
        // SAFETY: `fields` has `num_fields` records (re-read from the live type record).
        let f = unsafe { &*info.fields.add(i) };
        let item = env.object()?;
        env.set_named(item, b"name\0", env.string(unsafe_bytes(&f.name))?)?;
        env.set_named(item, b"doc\0", env.string(unsafe_bytes(&f.doc))?)?;
        env.set_named(item, b"metadata\0", env.string(unsafe_bytes(&f.metadata))?)?;
        env.set_named(item, b"flags\0", env.double(f.flags as f64)?)?;
        env.set_element(fields, i as u32, item)?;
    }
    env.set_named(out, b"fields\0", fields)?;
    let methods = env.array(info.num_methods.max(0) as usize)?;
    for i in 0..info.num_methods.max(0) as usize {
        // SAFETY: as for fields.
        let m = unsafe { &*info.methods.add(i) };
        let item = env.object()?;
        env.set_named(item, b"name\0", env.string(unsafe_bytes(&m.name))?)?;
        env.set_named(item, b"doc\0", env.string(unsafe_bytes(&m.doc))?)?;
        env.set_named(item, b"metadata\0", env.string(unsafe_bytes(&m.metadata))?)?;
        env.set_named(item, b"flags\0", env.double(m.flags as f64)?)?;
        env.set_element(methods, i as u32, item)?;
    }
    env.set_named(out, b"methods\0", methods)?;
    env.set_named(
        out,
        b"autoInit\0",
        env.boolean(init_attr(type_index).is_some()),
    )?;
    env.set_named(
        out,
        b"reprHook\0",
        env.boolean(type_attr(type_index, b"__ffi_repr__").is_some()),
    )?;
    // SAFETY: metadata, when present, lives as long as the type record.
    if let Some(meta) = unsafe { info.metadata.as_ref() } {
        env.set_named(out, b"doc\0", env.string(unsafe_bytes(&meta.doc))?)?;
    }
    Ok(out)
}

fn unsafe_bytes(array: &ffihub_abi::abi::TVMFFIByteArray) -> &'static [u8] {
    // SAFETY: reflection strings are runtime-owned and live for the process.
    unsafe { bytes_of(array) }
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
        args.push_js(data, value)?;
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
    let cell = ObjectCell::new(handle);
    // SAFETY: a live cell, given to `object`.
    if let Err(e) = unsafe { add_finalizer(env, object, cell) } {
        // SAFETY: not attached, so still ours.
        unsafe { free_cell(cell) };
        return Err(e);
    }
    cell_number(env, cell)
}

/// The `__ffi_init__` type attribute of a type (a borrowed Function), if any.
fn init_attr(type_index: i32) -> Option<TVMFFIObjectHandle> {
    type_attr(type_index, b"__ffi_init__")
}

/// A Function-valued type attribute registered for exactly `type_index` (borrowed), if any.
fn type_attr(type_index: i32, name: &[u8]) -> Option<TVMFFIObjectHandle> {
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

/// `fieldId(name)`: the id of a field name (the same for every type), which `getFieldById` and
/// `setFieldById` take instead of the name.
pub fn field_id(data: &EnvData, name: napi_value) -> Result<u32> {
    let name = data.env.get_string(name)?;
    if let Some(&id) = data.field_ids.borrow().get(name.as_slice()) {
        return Ok(id);
    }
    let mut slots = data.field_slots.borrow_mut();
    let Ok(id) = u32::try_from(slots.len()) else {
        return napi::error("too many field names");
    };
    slots.push(FieldSlot {
        name: name.clone().into_boxed_slice(),
        by_type: Vec::new(),
    });
    data.field_ids
        .borrow_mut()
        .insert(name.into_boxed_slice(), id);
    Ok(id)
}

/// The accessor of field `id` for objects of `type_index` (found on the type or its ancestors
/// once, then cached).
fn field_access(data: &EnvData, type_index: i32, id: u32) -> Result<FieldAccess> {
    let slots = data.field_slots.borrow();
    let Some(slot) = slots.get(id as usize) else {
        return napi::type_error(format!("unknown field id {id}"));
    };
    if let Some((_, access)) = slot.by_type.iter().find(|(t, _)| *t == type_index) {
        return Ok(*access);
    }
    let name = slot.name.clone();
    drop(slots);
    match find_field(type_index, &name).map(field_access_of) {
        Some(access) => {
            data.field_slots.borrow_mut()[id as usize]
                .by_type
                .push((type_index, access));
            Ok(access)
        }
        None => no_such_field(type_index, &name),
    }
}

/// The record of the field `name` of a type (its own or an ancestor's).
fn find_field(type_index: i32, name: &[u8]) -> Option<&'static TVMFFIFieldInfo> {
    ffi::self_and_ancestors(type_index).iter().find_map(|info| {
        (0..info.num_fields.max(0) as usize).find_map(|i| {
            // SAFETY: `fields` has `num_fields` records, which live for the process.
            let f: &'static TVMFFIFieldInfo = unsafe { &*info.fields.add(i) };
            (unsafe_bytes(&f.name) == name).then_some(f)
        })
    })
}

fn field_access_of(f: &TVMFFIFieldInfo) -> FieldAccess {
    FieldAccess {
        offset: f.offset,
        flags: f.flags,
        getter: f.getter,
        setter: f.setter,
    }
}

/// How a reader reads its field: through the getter, or straight from memory for a
/// read-only field stored as a plain 64-bit integer, double or bool (the storage the
/// reflection record's static type and size describe, which is all such a getter reads).
#[derive(Clone, Copy)]
enum ReadKind {
    Getter,
    Int64,
    Float64,
    Bool,
}

impl ReadKind {
    fn of(f: &TVMFFIFieldInfo) -> ReadKind {
        if f.flags & Flag::kTVMFFIFieldFlagBitMaskWritable as i64 != 0 {
            return ReadKind::Getter;
        }
        match (f.field_static_type_index, f.size) {
            (tindex::INT, 8) => ReadKind::Int64,
            (tindex::FLOAT, 8) => ReadKind::Float64,
            (tindex::BOOL, 1) => ReadKind::Bool,
            _ => ReadKind::Getter,
        }
    }
}

fn no_such_field<T>(type_index: i32, name: &[u8]) -> Result<T> {
    napi::type_error(format!(
        "`{}` has no field `{}`",
        ffi::type_key(type_index),
        String::from_utf8_lossy(name)
    ))
}

/// A field getter resolved once per class (`fieldGetters`): the native function reading it
/// takes the receiver's cell from the field scratch (where `lib/object.js` puts the address
/// its wrapper carries) and needs no name, hash lookup or `napi_unwrap` per read.
pub struct FieldReader {
    data: *const EnvData,
    /// The environment's field scratch (`setFieldScratch`, made before any reader), or NULL.
    scratch: *mut f64,
    /// The class's type; receivers must be of it or of a subtype.
    type_index: i32,
    /// Its depth in the type hierarchy (where subtypes list it among their ancestors).
    type_depth: i32,
    /// The field's offset from the object header, and its getter.
    offset: i64,
    getter: unsafe extern "C" fn(*mut c_void, *mut TVMFFIAny) -> i32,
    kind: ReadKind,
}

/// `fieldGetters(typeIndex, names, scratch)`: one native reader per field name (see
/// [`read_field`]), for the holder of the field scratch only (`lib/object.js`, whose readers
/// put their receiver's cell in it before every read; any other caller could make a reader
/// read a cell left there by an earlier read, whose wrapper may be gone).
pub fn field_getters(
    data: &EnvData,
    type_index: i32,
    names: napi_value,
    scratch: napi_value,
) -> Result<napi_value> {
    let env = data.env;
    let held = env.is_typedarray(scratch)? && {
        let info = env.typedarray_info(scratch)?;
        info.data.cast() == data.field_scratch.get() && !info.data.is_null()
    };
    if !held {
        return napi::type_error("fieldGetters needs the field scratch (it is for lib/object.js)");
    }
    let Some(info) = ffi::type_info(type_index) else {
        return napi::error(format!("no type with index {type_index}"));
    };
    let n = env.array_len(names)?;
    let out = env.array(n as usize)?;
    for i in 0..n {
        let name = env.get_string(env.get_element(names, i)?)?;
        let Some(field) = find_field(type_index, &name) else {
            return no_such_field(type_index, &name);
        };
        let Some(getter) = field.getter else {
            return napi::type_error(format!(
                "the field `{}` has no getter",
                String::from_utf8_lossy(&name)
            ));
        };
        let reader = Box::new(FieldReader {
            data,
            scratch: data.field_scratch.get(),
            type_index,
            type_depth: info.type_depth,
            offset: field.offset,
            getter,
            kind: ReadKind::of(field),
        });
        let label = String::from_utf8_lossy(&name).into_owned();
        let f = env.function(
            &label,
            Some(read_field),
            (&*reader as *const FieldReader).cast_mut().cast(),
        )?;
        // The readers live as long as the environment (classes are never unregistered).
        data.field_readers.borrow_mut().push(reader);
        env.set_element(out, i, f)?;
    }
    Ok(out)
}

/// `setFieldScratch(float64Array)`: the memory field readers exchange values through (kept
/// for the life of the environment). Only the first call counts: `lib/object.js` makes it
/// when it loads, so no other code can hand readers addresses.
pub fn set_field_scratch(data: &EnvData, array: napi_value) -> Result<()> {
    let env = data.env;
    if !data.field_scratch.get().is_null() {
        return napi::type_error("the field scratch is already set");
    }
    let info = env.typedarray_info(array)?;
    if info.kind != napi_sys::TypedarrayType::float64_array || info.length < 2 {
        return napi::type_error("the field scratch must be a Float64Array of 2 elements");
    }
    // Held until the environment's teardown frees its references.
    env.reference(array, 1)?;
    data.field_scratch.set(info.data.cast());
    Ok(())
}

/// Is an object of type `type_index` a `reader.type_index` (or of a subtype)?
#[inline]
fn reader_accepts(reader: &FieldReader, type_index: i32) -> bool {
    if type_index == reader.type_index {
        return true;
    }
    ffi::type_info(type_index).is_some_and(|info| {
        info.type_depth > reader.type_depth
            // SAFETY: `type_ancestors` has `type_depth` entries, each a stable record.
            && unsafe { (*info.type_ancestors.add(reader.type_depth as usize)).as_ref() }
                .is_some_and(|a| a.type_index == reader.type_index)
    })
}

/// The native function of a [`FieldReader`]: `read()`, with the receiver's cell address in
/// element 1 of the field scratch (put there by the caller, `lib/object.js`, before every read).
/// Numbers go back through element 0 (`undefined` says so); other values, and errors,
/// through the general conversion.
unsafe extern "C" fn read_field(
    env: napi_sys::napi_env,
    info: napi_sys::napi_callback_info,
) -> napi_value {
    let mut cell: *mut c_void = ptr::null_mut();
    // SAFETY: `env` and `info` come from Node for this call; only the data is asked for.
    let status = unsafe {
        napi_sys::napi_get_cb_info(
            env,
            info,
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            &mut cell,
        )
    };
    if status != napi_sys::Status::napi_ok {
        return crate::entry(env, info, |env, _| {
            env.check(status).map(|()| ptr::null_mut())
        });
    }
    // SAFETY: the data of a reader function is its FieldReader, alive with the environment.
    let reader = unsafe { &*(cell as *const FieldReader) };
    // SAFETY: the environment outlives its functions.
    let data = unsafe { &*reader.data };
    let scratch = reader.scratch;
    let address = if scratch.is_null() {
        0.0
    } else {
        // SAFETY: the scratch has 2 elements and lives as long as the environment.
        unsafe { scratch.add(1).read() }
    };
    // Only `lib/object.js` writes the scratch and calls readers, each time with the cell
    // address of the live wrapper it reads (or 0): the cell lives as long as the wrapper.
    let cell = address as usize as *const ObjectCell;
    let handle = if cell.is_null() || address != cell as usize as f64 {
        None
    } else {
        // SAFETY: as above.
        unsafe { &*cell }.handle()
    };
    let Some(handle) = handle else {
        return crate::entry(env, info, |_, _| {
            napi::type_error("the receiver is not a TVM-FFI object (or it was disposed)")
        });
    };
    // SAFETY: a live handle (its cell is not disposed).
    if !reader_accepts(reader, unsafe { ffi::type_index_of(handle) }) {
        return crate::entry(env, info, |_, _| {
            napi::type_error("the receiver is not an object of the field's class")
        });
    }
    // SAFETY: the field lives at `offset` from the header of a live object of this type (or
    // of a subtype, which keeps its ancestors' layout).
    let field = unsafe { (handle as *mut u8).offset(reader.offset as isize) };
    let scalar = |type_index, value| TVMFFIAny {
        type_index,
        small_str_len: 0,
        value,
    };
    let mut out = ffi::none();
    // SAFETY (each read): a read-only field stored as the kind's plain value (`ReadKind::of`).
    let rc = match reader.kind {
        ReadKind::Int64 => {
            let v_int64 = unsafe { field.cast::<i64>().read() };
            out = scalar(tindex::INT, TVMFFIAnyValue { v_int64 });
            0
        }
        ReadKind::Float64 => {
            let v_float64 = unsafe { field.cast::<f64>().read() };
            out = scalar(tindex::FLOAT, TVMFFIAnyValue { v_float64 });
            0
        }
        ReadKind::Bool => {
            let v_int64 = i64::from(unsafe { field.read() } != 0);
            out = scalar(tindex::BOOL, TVMFFIAnyValue { v_int64 });
            0
        }
        // SAFETY: the getter of this field, given its address and a result slot.
        ReadKind::Getter => unsafe { (reader.getter)(field.cast(), &mut out) },
    };
    if rc == 0 {
        let env = data.env;
        // A number goes back through the scratch element (`undefined` says so): JavaScript
        // reads it from there without a number object made on this side, which would cost
        // more than all the rest of the read.
        let number = match out.type_index {
            tindex::FLOAT => Some(ffi::payload_f64(&out)),
            tindex::INT => {
                let i = ffi::payload_i64(&out);
                (-convert::MAX_SAFE_INTEGER..=convert::MAX_SAFE_INTEGER)
                    .contains(&i)
                    .then_some(i as f64)
            }
            _ => None,
        };
        match number {
            Some(x) if !scratch.is_null() => {
                // Stored only when it changes (as `lib/object.js` does with the receiver): a
                // store still in flight when the return's stack accesses run slows reads where
                // it shares its page offset with one of them (4K aliasing). Bitwise, so that
                // -0.0 and NaN payloads come back exactly.
                // SAFETY: the scratch element lives as long as the environment (referenced).
                unsafe {
                    if scratch.read().to_bits() != x.to_bits() {
                        scratch.write(x);
                    }
                }
                // A Node-API callback returning NULL (no exception pending) returns
                // `undefined`, without the call that makes it.
                return ptr::null_mut();
            }
            Some(x) => {
                if let Ok(value) = env.double(x) {
                    return value;
                }
            }
            None if out.type_index == tindex::BOOL => {
                return env.boolean(ffi::payload_i64(&out) != 0);
            }
            None => {}
        }
    }
    crate::entry(env, info, |_, _| {
        if rc != 0 {
            return Err(Error::Ffi(ffi::take_raised_error()));
        }
        convert::from_any(data, out)
    })
}

/// The handle of a field access's receiver.
fn receiver(data: &EnvData, object: napi_value) -> Result<TVMFFIObjectHandle> {
    require_handle(data, object, "the receiver")
}

/// `getFieldById(object, id)`.
pub fn get_field(data: &EnvData, object: napi_value, id: u32) -> Result<napi_value> {
    let handle = receiver(data, object)?;
    // SAFETY: live handle.
    let access = field_access(data, unsafe { ffi::type_index_of(handle) }, id)?;
    let Some(getter) = access.getter else {
        return napi::type_error("this field has no getter");
    };
    let mut out = ffi::none();
    // SAFETY: the field lives at `offset` from the header of a live object of this type.
    let rc = unsafe {
        getter(
            (handle as *mut u8).offset(access.offset as isize).cast(),
            &mut out,
        )
    };
    if rc != 0 {
        return Err(Error::Ffi(ffi::take_raised_error()));
    }
    convert::from_any(data, out)
}

/// `setFieldById(object, id, value)`.
pub fn set_field(data: &EnvData, object: napi_value, id: u32, value: napi_value) -> Result<()> {
    let handle = receiver(data, object)?;
    // SAFETY: live handle.
    let access = field_access(data, unsafe { ffi::type_index_of(handle) }, id)?;
    if access.flags & Flag::kTVMFFIFieldFlagBitMaskWritable as i64 == 0 || access.setter.is_null() {
        let name =
            String::from_utf8_lossy(&data.field_slots.borrow()[id as usize].name).into_owned();
        return napi::type_error(format!("the field `{name}` is read-only"));
    }
    let mut args = ArgBuf::new();
    // SAFETY: the field lives at `offset` from the header of a live object.
    let addr = unsafe { (handle as *mut u8).offset(access.offset as isize) };
    if access.flags & Flag::kTVMFFIFieldFlagBitSetterIsFunctionObj as i64 != 0 {
        args.push(TVMFFIAny {
            type_index: tindex::OPAQUE_PTR,
            small_str_len: 0,
            value: ffihub_abi::abi::TVMFFIAnyValue { v_ptr: addr.cast() },
        });
        args.push_js(data, value)?;
        let _sync = crate::env::SyncCall::enter(data);
        let mut r = function::call_raw(access.setter, &mut args)?;
        ffi::release(&mut r);
    } else {
        args.push_js(data, value)?;
        // SAFETY: without the function-object flag, the setter is a C function pointer.
        let setter: unsafe extern "C" fn(*mut c_void, *const TVMFFIAny) -> i32 =
            unsafe { std::mem::transmute(access.setter) };
        // SAFETY: the field address and the value are valid for the call.
        if unsafe { setter(addr.cast(), &args.as_mut_slice()[0]) } != 0 {
            return Err(Error::Ffi(ffi::take_raised_error()));
        }
    }
    Ok(())
}

/// `dispose(value)`: releases a wrapper's reference now (idempotent).
pub fn dispose(data: &EnvData, value: napi_value) -> Result<()> {
    let env = data.env;
    match env.type_of(value)? {
        Type::napi_object => {
            if let Some(cell) = object_cell(data, value)? {
                cell.dispose();
            }
        }
        Type::napi_function => function::dispose_function(env, value)?,
        _ => {}
    }
    Ok(())
}

/// `seqSize(array)`: the length of an Array or List.
pub fn seq_cell(data: &EnvData, value: napi_value) -> Result<(TVMFFIObjectHandle, TVMFFISeqCell)> {
    let handle = require_handle(data, value, "the receiver")?;
    // SAFETY: live handle.
    let t = unsafe { ffi::type_index_of(handle) };
    if t != tindex::ARRAY && t != tindex::LIST {
        return napi::type_error("not an ffi.Array or ffi.List");
    }
    // SAFETY: Arrays and Lists hold a TVMFFISeqCell after the header.
    Ok((handle, unsafe { *ffi::cell::<TVMFFISeqCell>(handle) }))
}

/// `seqGet(array, index)`: an element (negative indices count from the end; `undefined` out
/// of range).
pub fn seq_get(data: &EnvData, value: napi_value, index: napi_value) -> Result<napi_value> {
    let env = data.env;
    let (_, cell) = seq_cell(data, value)?;
    let mut i = env.get_f64(index)?;
    if i.trunc() != i {
        return Ok(env.undefined());
    }
    if i < 0.0 {
        i += cell.size as f64;
    }
    if i < 0.0 || i >= cell.size as f64 {
        return Ok(env.undefined());
    }
    // SAFETY: `data` holds `size` Anys.
    let item = unsafe { &*(cell.data as *const TVMFFIAny).add(i as usize) };
    convert::from_view(data, item)
}

/// `seqToArray(array)`: every element, in a JavaScript array.
pub fn seq_to_array(data: &EnvData, value: napi_value) -> Result<napi_value> {
    let env = data.env;
    let (handle, cell) = seq_cell(data, value)?;
    // Keep the container alive even if a conversion runs JavaScript that disposes it.
    // SAFETY: live handle.
    unsafe { ffi::TVMFFIObjectIncRef(handle) };
    let _guard = convert::OwnedAny(ffi::object_any(handle));
    let out = env.array(cell.size as usize)?;
    for i in 0..cell.size.max(0) as usize {
        // SAFETY: `data` holds `size` Anys (a live List is not resized by conversions).
        let item = unsafe { &*(cell.data as *const TVMFFIAny).add(i) };
        env.set_element(out, i as u32, convert::from_view(data, item)?)?;
    }
    Ok(out)
}

/// `shapeToArray(shape)`: the extents of a Shape.
pub fn shape_to_array(data: &EnvData, value: napi_value) -> Result<napi_value> {
    let env = data.env;
    let handle = require_handle(data, value, "the receiver")?;
    // SAFETY: live handle.
    if unsafe { ffi::type_index_of(handle) } != tindex::SHAPE {
        return napi::type_error("not an ffi.Shape");
    }
    // SAFETY: Shapes hold a TVMFFIShapeCell after the header.
    let cell = unsafe { *ffi::cell::<TVMFFIShapeCell>(handle) };
    let dims: &[i64] = if cell.size == 0 {
        &[]
    } else {
        // SAFETY: `data` holds `size` extents.
        unsafe { std::slice::from_raw_parts(cell.data, cell.size) }
    };
    int_array(env, dims)
}

/// A JavaScript array of integers.
pub fn int_array(env: Env, values: &[i64]) -> Result<napi_value> {
    let out = env.array(values.len())?;
    for (i, v) in values.iter().enumerate() {
        env.set_element(out, i as u32, convert::int_value(env, *v)?)?;
    }
    Ok(out)
}
