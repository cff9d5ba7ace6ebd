//! `ffi.StructuralKey`: a value with its structural hash cached, usable as a Map key that
//! compares structurally (through the `__any_hash__` / `__any_equal__` hooks of its type).

use super::equal::{structural_equal, Options};
use super::hash::structural_hash;
use crate::abi::TVMFFIAny;
use crate::registry::reflection::{new_reflected, Accessor};
use crate::value::any::Any;
use crate::value::error::Error;
use std::ffi::c_void;

use crate::registry::types::runtime_index::STRUCTURAL_KEY;
/// Layout: the key (Any) at 24, the cached hash (int64) at 40.
const KEY_OFFSET: usize = 24;
const HASH_OFFSET: usize = 40;
pub const TOTAL_SIZE: usize = 48;

/// A new StructuralKey of `key`.
pub fn new_key(key: Any) -> Result<Any, Error> {
    let hash = structural_hash(&key, Options::default())? as i64;
    let obj = new_reflected(STRUCTURAL_KEY, TOTAL_SIZE);
    // SAFETY: the offsets are the fields of a StructuralKey, of these accessors' storage.
    unsafe {
        let base = obj.as_ptr().cast::<u8>();
        Accessor::Any.write(base.add(KEY_OFFSET), key.as_raw())?;
        Accessor::I64.write(base.add(HASH_OFFSET), Any::int(hash).as_raw())?;
    }
    Ok(Any::object(obj))
}

/// The key and hash of a StructuralKey value, or None for other values.
fn parts(value: &TVMFFIAny) -> Option<(Any, i64)> {
    if value.type_index != STRUCTURAL_KEY {
        return None;
    }
    // SAFETY: the tag says the payload is a live StructuralKey.
    unsafe {
        let base = value.value.v_obj.cast::<u8>();
        let key = Accessor::Any.read(base.add(KEY_OFFSET));
        Some((key, base.add(HASH_OFFSET).cast::<i64>().read()))
    }
}

/// `ffi.StructuralKeyEqual`: identity, then the cached hashes, then structural equality.
pub fn key_equal(lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<bool, Error> {
    if super::same_as(lhs, rhs) {
        return Ok(true);
    }
    let not_key = || {
        Error::new(
            "InternalError",
            "Check failed: StructuralKeyEqual expects two ffi.StructuralKey values",
        )
    };
    let (l, lh) = parts(lhs).ok_or_else(not_key)?;
    let (r, rh) = parts(rhs).ok_or_else(not_key)?;
    if lh != rh {
        return Ok(false);
    }
    structural_equal(&l, &r, Options::default())
}

fn hook_result(result: Result<Any, Error>) -> TVMFFIAny {
    match result {
        Ok(value) => value.into_raw(),
        Err(error) => Any::object(error.into_object()).into_raw(),
    }
}

/// The native `__any_hash__` hook of ffi.StructuralKey: the cached structural hash.
unsafe extern "C" fn any_hash_hook(value: *const TVMFFIAny) -> TVMFFIAny {
    let outcome = std::panic::catch_unwind(|| {
        // SAFETY: the hook convention passes a valid value.
        let value = unsafe { value.as_ref() };
        value
            .and_then(parts)
            .map(|(_, hash)| Any::int(hash))
            .ok_or_else(|| Error::new("InternalError", "Check failed: key_obj is not NULL"))
    });
    hook_result(outcome.unwrap_or_else(|p| Err(crate::value::function::panic_error(p))))
}

/// The native `__any_equal__` hook of ffi.StructuralKey.
unsafe extern "C" fn any_equal_hook(lhs: *const TVMFFIAny, rhs: *const TVMFFIAny) -> TVMFFIAny {
    let outcome = std::panic::catch_unwind(|| {
        // SAFETY: the hook convention passes valid values.
        match unsafe { (lhs.as_ref(), rhs.as_ref()) } {
            (Some(l), Some(r)) => key_equal(l, r).map(Any::bool),
            _ => Err(Error::new(
                "ValueError",
                "NULL value passed to an equality hook",
            )),
        }
    });
    hook_result(outcome.unwrap_or_else(|p| Err(crate::value::function::panic_error(p))))
}

/// The `(column, value)` type attributes of ffi.StructuralKey.
pub fn key_hooks() -> [(&'static [u8], Any); 2] {
    [
        (
            crate::containers::any_hash::ANY_HASH_ATTR,
            Any::opaque_ptr(
                any_hash_hook as crate::containers::any_hash::NativeAnyHash as *mut c_void,
            ),
        ),
        (
            crate::containers::any_hash::ANY_EQUAL_ATTR,
            Any::opaque_ptr(
                any_equal_hook as crate::containers::any_hash::NativeAnyEqual as *mut c_void,
            ),
        ),
    ]
}
