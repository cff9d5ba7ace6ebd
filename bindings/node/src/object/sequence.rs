//! Reads of sequences: Arrays, Lists and Shapes.

use super::*;
use crate::convert;
use crate::env::EnvData;
use crate::ffi;
use crate::napi::{self, napi_value, Env, Result};
use ffihub_abi::abi::{TVMFFIAny, TVMFFIObjectHandle, TVMFFISeqCell, TVMFFIShapeCell};
use ffihub_abi::tindex;

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
