//! Reflection records of types, as plain JavaScript objects.

use super::*;
use crate::env::EnvData;
use crate::ffi::{self, bytes_of};
use crate::napi::{self, napi_value, Result};

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

pub(super) fn unsafe_bytes(array: &ffihub_abi::abi::TVMFFIByteArray) -> &'static [u8] {
    // SAFETY: reflection strings are runtime-owned and live for the process.
    unsafe { bytes_of(array) }
}
