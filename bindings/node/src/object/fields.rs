//! Fields: ids of field names, accessors resolved per type, the native readers of generated
//! getters, and reads and writes by id.

use super::*;
use crate::convert::{self, ArgBuf};
use crate::env::{EnvData, FieldAccess, FieldSlot};
use crate::ffi;
use crate::function;
use crate::napi::{self, napi_value, Error, Result};
use ffihub_abi::abi::{
    TVMFFIAny, TVMFFIAnyValue, TVMFFIFieldFlagBitMask as Flag, TVMFFIFieldInfo, TVMFFIObjectHandle,
};
use ffihub_abi::tindex;
use std::ffi::c_void;
use std::ptr;

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
