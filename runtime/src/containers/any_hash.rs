//! Key hashing and key equality of Map and Dict, bit for bit as Apache's `AnyHash` / `AnyEqual`.
//!
//! Hash tables are built on one side of the ABI and probed on the other (header-only C++ code in
//! extensions inlines Apache's functions), so the values here are part of the ABI:
//!
//! * strings and bytes hash by content: `combine(65 or 66, stable_hash_bytes(data))`; the small
//!   inline forms use the index of their heap form, so `"ab"` hashes the same small or heap;
//! * values with a type-attribute hook (`__any_hash__` / `__any_equal__`, a native function
//!   pointer stored as OpaquePtr or a Function object) hash as `combine(type_index, hook(v))`;
//! * BigInt hashes by value (Apache registers a hook for it; this module computes the same value
//!   when no hook is registered);
//! * everything else hashes its raw 8-byte payload: `combine(type_index, v_uint64)`. Floats hash
//!   their bit pattern (0.0 and -0.0 differ, a NaN equals itself bit for bit), objects their
//!   address.
//!
//! Equality is a 16-byte bitwise comparison first, then string/bytes content comparison (heap and
//! small forms compare equal), then the `__any_equal__` hook for objects of the same type.

use crate::abi::{TVMFFIAny, TVMFFIObject};
use crate::tindex;
use crate::value::any::{byte_array_slice, Any};
use crate::value::error::Error;
use crate::value::hash::{stable_hash_bytes, stable_hash_combine};
use crate::value::object::is_object_index;
use std::ffi::{c_void, CStr};

/// The type-attribute column of custom hash hooks.
pub const ANY_HASH_ATTR: &[u8] = b"__any_hash__";
/// The type-attribute column of custom equality hooks.
pub const ANY_EQUAL_ATTR: &[u8] = b"__any_equal__";

/// The native form of a `__any_hash__` hook: returns an Int, or an Error (owned) on failure.
pub type NativeAnyHash = unsafe extern "C" fn(value: *const TVMFFIAny) -> TVMFFIAny;
/// The native form of a `__any_equal__` hook: returns a Bool, or an Error (owned) on failure.
pub type NativeAnyEqual =
    unsafe extern "C" fn(lhs: *const TVMFFIAny, rhs: *const TVMFFIAny) -> TVMFFIAny;

/// A value with its borrowed-only forms (raw C string, byte-array pointer, rvalue reference)
/// turned into the form an owned `Any` would have, so the rules below see only owned forms.
pub(crate) enum Normalized<'a> {
    Borrowed(&'a TVMFFIAny),
    Owned(Any),
}

impl Normalized<'_> {
    pub(crate) fn get(&self) -> &TVMFFIAny {
        match self {
            Normalized::Borrowed(v) => v,
            Normalized::Owned(v) => v.as_raw(),
        }
    }
}

/// `value` with a borrowed-only form turned into its owned form (other values as they are).
///
/// # Safety
/// `value` is a valid value or argument view.
#[inline]
pub(crate) unsafe fn normalize(value: &TVMFFIAny) -> Normalized<'_> {
    if is_view_form(value.type_index) {
        Normalized::Owned(owned_form(value))
    } else {
        Normalized::Borrowed(value)
    }
}

/// The owned form of a view-only value (raw C string, byte-array pointer, rvalue reference).
///
/// # Safety
/// `value` is a valid argument view of one of those forms.
#[inline(never)]
pub(crate) unsafe fn owned_form(value: &TVMFFIAny) -> Any {
    match value.type_index {
        tindex::RAW_STR => {
            let bytes = CStr::from_ptr(value.value.v_c_str).to_bytes();
            crate::value::string::string_any(bytes)
        }
        tindex::BYTE_ARRAY_PTR => {
            let bytes =
                byte_array_slice(&*(value.value.v_ptr as *const crate::abi::TVMFFIByteArray));
            crate::value::string::bytes_any(bytes)
        }
        _ => {
            // An rvalue reference: look through it without moving the object out of its slot.
            let obj = *(value.value.v_ptr as *const *mut TVMFFIObject);
            if obj.is_null() {
                Any::none()
            } else {
                Any::object(crate::value::object::ObjectRef::from_borrowed(obj))
            }
        }
    }
}

/// A raw C string or byte-array view as the String or Bytes it stands for: the type index of
/// the heap form (STR or BYTES) and the bytes.
///
/// # Safety
/// `value` is a valid value or argument view; the bytes are used only while it lives.
#[inline]
pub(crate) unsafe fn view_text(value: &TVMFFIAny) -> Option<(i32, &[u8])> {
    match value.type_index {
        tindex::RAW_STR => Some((tindex::STR, CStr::from_ptr(value.value.v_c_str).to_bytes())),
        tindex::BYTE_ARRAY_PTR => Some((
            tindex::BYTES,
            byte_array_slice(&*(value.value.v_ptr as *const crate::abi::TVMFFIByteArray)),
        )),
        _ => None,
    }
}

/// [`any_hash`] of a String or Bytes object (`heap_index`) holding `bytes`.
#[inline]
pub(crate) fn heap_text_hash(heap_index: i32, bytes: &[u8]) -> u64 {
    stable_hash_combine(heap_index as u64, stable_hash_bytes(bytes))
}

/// [`any_equal`] of an owned value and the String or Bytes object (`heap_index`) holding `bytes`,
/// which are too long for the small form (so only an object of that type can be equal).
///
/// # Safety
/// `value` is a valid owned value.
#[inline]
pub(crate) unsafe fn equals_heap_text(value: &TVMFFIAny, heap_index: i32, bytes: &[u8]) -> bool {
    value.type_index == heap_index && object_bytes(value) == bytes
}

/// The bytes of a String or Bytes object (ours or foreign: only the cell at +24 is read).
///
/// # Safety
/// `value` holds a live String or Bytes object.
unsafe fn object_bytes(value: &TVMFFIAny) -> &[u8] {
    let cell = value
        .value
        .v_obj
        .cast::<u8>()
        .add(std::mem::size_of::<TVMFFIObject>())
        .cast::<crate::abi::TVMFFIByteArray>();
    byte_array_slice(&*cell)
}

/// The bytes of a small string or small bytes value.
fn small_bytes(value: &TVMFFIAny) -> &[u8] {
    // SAFETY: every bit pattern of the payload is a valid byte array.
    let bytes = unsafe { &value.value.v_bytes };
    &bytes[..(value.small_str_len as usize).min(bytes.len())]
}

/// Apache's `StableHashSmallStrBytes`: the whole 8-byte payload, modulo 2^31 - 1 (equal to
/// [`stable_hash_bytes`] of the bytes when the unused tail is zero, as it always is).
pub(crate) fn small_payload_hash(value: &TVMFFIAny) -> u64 {
    // SAFETY: reading the payload as raw bits is valid for every kind.
    let bits = unsafe { value.value.v_uint64 };
    crate::value::hash::mod_2p31m1(bits)
}

/// The words of a BigInt object (layout `{header, nwords, words[]}`, ours or foreign).
///
/// # Safety
/// `value` holds a live BigInt object.
unsafe fn bigint_word_bytes(value: &TVMFFIAny) -> &[u8] {
    byte_array_slice(&crate::value::string::bigint_words(value))
}

/// Apache's `BigInt::hash`: an Int hashes to its value, a BigInt to the stable hash of its
/// little-endian words.
///
/// # Safety
/// `value` is an Int or holds a live BigInt object.
unsafe fn bigint_value_hash(value: &TVMFFIAny) -> u64 {
    if value.type_index == tindex::INT {
        value.value.v_uint64
    } else {
        stable_hash_bytes(bigint_word_bytes(value))
    }
}

/// `AnyHash` of a value, exactly as Apache computes it (see the module documentation).
///
/// Errors come only from custom `__any_hash__` hooks.
///
/// # Safety
/// `value` is a valid value or argument view (object payloads are live).
#[inline]
pub unsafe fn any_hash(value: &TVMFFIAny) -> Result<u64, Error> {
    if is_view_form(value.type_index) {
        hash_owned(normalize(value).get())
    } else {
        hash_owned(value)
    }
}

/// Is `type_index` one of the forms only argument views have (raw C string, byte-array
/// pointer, rvalue reference)? Such values are normalized before hashing or comparing.
#[inline]
pub(crate) fn is_view_form(type_index: i32) -> bool {
    matches!(
        type_index,
        tindex::RAW_STR | tindex::BYTE_ARRAY_PTR | tindex::OBJECT_RVALUE_REF
    )
}

/// [`any_hash`] of a value in an owned form: plain values and small strings inline, objects
/// out of line.
///
/// # Safety
/// As for [`any_hash`], and `value` is not a view-only form.
#[inline]
pub(crate) unsafe fn hash_owned(value: &TVMFFIAny) -> Result<u64, Error> {
    let type_index = value.type_index;
    if is_object_index(type_index) {
        return hash_object(value);
    }
    Ok(match type_index {
        tindex::SMALL_STR => stable_hash_combine(tindex::STR as u64, small_payload_hash(value)),
        tindex::SMALL_BYTES => stable_hash_combine(tindex::BYTES as u64, small_payload_hash(value)),
        _ => stable_hash_combine(type_index as u64, value.value.v_uint64),
    })
}

/// [`hash_owned`] of an object.
#[inline(never)]
unsafe fn hash_object(value: &TVMFFIAny) -> Result<u64, Error> {
    let type_index = value.type_index;
    if type_index == tindex::STR || type_index == tindex::BYTES {
        return Ok(stable_hash_combine(
            type_index as u64,
            stable_hash_bytes(object_bytes(value)),
        ));
    }
    if let Some(hook) = crate::registry::types::attr_value(ANY_HASH_ATTR, type_index) {
        let custom = call_hash_hook(&hook, value)?;
        return Ok(stable_hash_combine(type_index as u64, custom));
    }
    if type_index == tindex::BIG_INT {
        return Ok(stable_hash_combine(
            type_index as u64,
            bigint_value_hash(value),
        ));
    }
    Ok(stable_hash_combine(type_index as u64, value.value.v_uint64))
}

/// A private fingerprint of an owned value for telling keys apart faster than [`any_equal`]:
/// values that are `any_equal` without a user hook have equal fingerprints. Strings and bytes
/// (heap or small) get their content: up to 7 bytes packed as they are (exact), longer ones
/// hashed with a strong hash; every other kind gets 0, so only their [`any_hash`] (exact for
/// plain values) or a comparison tells them apart.
///
/// # Safety
/// `value` is a valid owned value (no raw-string or rvalue view forms).
pub unsafe fn content_fingerprint(value: &TVMFFIAny) -> u64 {
    let bytes = match value.type_index {
        tindex::STR | tindex::BYTES => object_bytes(value),
        tindex::SMALL_STR | tindex::SMALL_BYTES => small_bytes(value),
        _ => return 0,
    };
    if bytes.len() < 8 {
        let mut packed = [0u8; 8];
        packed[..bytes.len()].copy_from_slice(bytes);
        packed[7] = bytes.len() as u8;
        u64::from_le_bytes(packed)
    } else {
        crate::value::hash::fingerprint_bytes(bytes)
    }
}

/// `AnyEqual` of two values, exactly as Apache computes it (see the module documentation).
///
/// Errors come only from custom `__any_equal__` hooks.
///
/// # Safety
/// Both are valid values or argument views (object payloads are live).
#[inline]
pub unsafe fn any_equal(lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<bool, Error> {
    if is_view_form(lhs.type_index) || is_view_form(rhs.type_index) {
        let (lhs, rhs) = (normalize(lhs), normalize(rhs));
        equal_owned(lhs.get(), rhs.get())
    } else {
        equal_owned(lhs, rhs)
    }
}

/// [`any_equal`] of two values in owned forms: identical values and plain values inline, the
/// others out of line.
///
/// # Safety
/// As for [`any_equal`], and neither is a view-only form.
#[inline]
pub(crate) unsafe fn equal_owned(lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<bool, Error> {
    // Fast path: the two 16-byte values are identical.
    if raw_words(lhs) == raw_words(rhs) {
        return Ok(true);
    }
    // Plain values of one type are equal only bit for bit (small strings and bytes included:
    // their unused tail is zero).
    if lhs.type_index == rhs.type_index && !is_object_index(lhs.type_index) {
        return Ok(false);
    }
    equal_contents(lhs, rhs)
}

/// [`equal_owned`] of two values that differ bit for bit, one of them an object or the two of
/// different types.
#[inline(never)]
unsafe fn equal_contents(lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<bool, Error> {
    let (lt, rt) = (lhs.type_index, rhs.type_index);
    if lt == rt {
        if lt == tindex::STR || lt == tindex::BYTES {
            return Ok(object_bytes(lhs) == object_bytes(rhs));
        }
        if let Some(hook) = crate::registry::types::attr_value(ANY_EQUAL_ATTR, lt) {
            return call_equal_hook(&hook, lhs, rhs);
        }
        if lt == tindex::BIG_INT {
            return Ok(bigint_word_bytes(lhs) == bigint_word_bytes(rhs));
        }
        return Ok(false);
    }
    // Different type indices: only the heap and small forms of one kind can be equal.
    let equal = match (lt, rt) {
        (tindex::STR, tindex::SMALL_STR) | (tindex::BYTES, tindex::SMALL_BYTES) => {
            object_bytes(lhs) == small_bytes(rhs)
        }
        (tindex::SMALL_STR, tindex::STR) | (tindex::SMALL_BYTES, tindex::BYTES) => {
            small_bytes(lhs) == object_bytes(rhs)
        }
        _ => false,
    };
    Ok(equal)
}

/// The two 8-byte words of a value, as Apache's fast path compares them.
fn raw_words(value: &TVMFFIAny) -> (u64, u64) {
    let head = (value.type_index as u32 as u64) | ((value.small_str_len as u64) << 32);
    // SAFETY: reading the payload as raw bits is valid for every kind.
    (head, unsafe { value.value.v_uint64 })
}

/// Safe form of [`any_hash`] for owned values.
pub fn hash_of(value: &Any) -> Result<u64, Error> {
    // SAFETY: an `Any` is always a valid owned value.
    unsafe { any_hash(value.as_raw()) }
}

/// Safe form of [`any_equal`] for owned values.
pub fn equal_of(lhs: &Any, rhs: &Any) -> Result<bool, Error> {
    // SAFETY: `Any`s are always valid owned values.
    unsafe { any_equal(lhs.as_raw(), rhs.as_raw()) }
}

/// Calls a `__any_hash__` hook (native pointer or Function) on `value`.
///
/// # Safety
/// `value` is a valid value; the hook honours the hook convention.
unsafe fn call_hash_hook(hook: &Any, value: &TVMFFIAny) -> Result<u64, Error> {
    let result = match hook.type_index() {
        tindex::OPAQUE_PTR => {
            let ptr = hook.as_raw().value.v_ptr;
            // SAFETY: the column convention says an OpaquePtr entry is a native hash hook.
            let func = std::mem::transmute::<*mut c_void, NativeAnyHash>(ptr);
            owned_hook_result(func(value), ANY_HASH_ATTR)?
        }
        tindex::FUNCTION => crate::value::function::call(hook.as_raw().value.v_obj, &[*value])?,
        other => {
            return Err(Error::new(
                "InternalError",
                format!("__any_hash__ hook of type index {other} is neither a native function nor a Function"),
            ))
        }
    };
    match result.type_index() {
        tindex::INT => Ok(result.as_raw().value.v_uint64),
        _ => Err(hook_failure(result, "__any_hash__", "int")),
    }
}

/// Calls a `__any_equal__` hook (native pointer or Function) on `lhs`, `rhs`.
///
/// # Safety
/// As for [`call_hash_hook`].
unsafe fn call_equal_hook(hook: &Any, lhs: &TVMFFIAny, rhs: &TVMFFIAny) -> Result<bool, Error> {
    let result = match hook.type_index() {
        tindex::OPAQUE_PTR => {
            let ptr = hook.as_raw().value.v_ptr;
            // SAFETY: the column convention says an OpaquePtr entry is a native equality hook.
            let func = std::mem::transmute::<*mut c_void, NativeAnyEqual>(ptr);
            owned_hook_result(func(lhs, rhs), ANY_EQUAL_ATTR)?
        }
        tindex::FUNCTION => crate::value::function::call(hook.as_raw().value.v_obj, &[*lhs, *rhs])?,
        other => {
            return Err(Error::new(
                "InternalError",
                format!("__any_equal__ hook of type index {other} is neither a native function nor a Function"),
            ))
        }
    };
    match result.type_index() {
        tindex::BOOL => Ok(result.as_raw().value.v_int64 != 0),
        _ => Err(hook_failure(result, "__any_equal__", "bool")),
    }
}

/// Takes ownership of what a native hook returned, unless its type index belongs to no type: then
/// it is not a value at all (dropping it could free a random address) but the bits of a hook
/// built for an older TVM-FFI convention, where the hook returns `int64_t` / `bool` directly
/// (Apache TVM 0.27.0's `ir.PrimType` hooks do), and the caller gets an error instead.
fn owned_hook_result(raw: TVMFFIAny, hook: &[u8]) -> Result<Any, Error> {
    let index = raw.type_index;
    let valid = if is_object_index(index) {
        crate::registry::types::type_info(index).is_some()
    } else {
        index >= 0
    };
    if valid {
        // SAFETY: a native hook returns an owned value, and this one has a real type index.
        return Ok(unsafe { Any::from_raw(raw) });
    }
    Err(Error::new(
        "InternalError",
        format!(
            "the native {} hook returned a value of type index {index}, which no type has: \
             it does not follow this runtime's convention (a TVMFFIAny holding the result or an \
             Error); hooks built for older TVM-FFI releases return int64_t/bool directly",
            String::from_utf8_lossy(hook)
        ),
    ))
}

/// The error a hook reported, or an InternalError if it returned something unexpected.
fn hook_failure(result: Any, hook: &str, expected: &str) -> Error {
    if result.type_index() == tindex::ERROR {
        let obj = result
            .as_object()
            .cloned()
            .expect("an Error value holds an object");
        return Error::from_object(obj);
    }
    Error::new(
        "InternalError",
        format!(
            "{hook} hook returned a value of type index {} instead of {expected}",
            result.type_index()
        ),
    )
}

/// Packs a hook's outcome the native-hook way: the value, or the error object (owned).
fn hook_result(result: Result<Any, Error>) -> TVMFFIAny {
    match result {
        Ok(value) => value.into_raw(),
        Err(error) => Any::object(error.into_object()).into_raw(),
    }
}

/// Reads an Int-or-BigInt argument of the BigInt hooks.
///
/// # Safety
/// `value` is NULL or points at a valid value.
unsafe fn bigint_arg<'a>(value: *const TVMFFIAny) -> Result<&'a TVMFFIAny, Error> {
    match value.as_ref() {
        Some(v) if v.type_index == tindex::INT || v.type_index == tindex::BIG_INT => Ok(v),
        Some(v) => Err(Error::new(
            "TypeError",
            format!(
                "Cannot convert from type `{}` to `ffi.BigInt`",
                crate::registry::types::type_key_of(v.type_index)
            ),
        )),
        None => Err(Error::new(
            "ValueError",
            "NULL value passed to a BigInt hook",
        )),
    }
}

/// The native `__any_hash__` hook of `ffi.BigInt` (what Apache's runtime registers): the
/// value hash of an Int or BigInt as an Int, or an Error.
///
/// # Safety
/// `value` points at a valid value (the hook convention).
pub unsafe extern "C" fn bigint_any_hash_hook(value: *const TVMFFIAny) -> TVMFFIAny {
    let outcome = std::panic::catch_unwind(|| {
        // SAFETY: the caller passes a valid value.
        unsafe { bigint_arg(value).map(|v| Any::int(bigint_value_hash(v) as i64)) }
    });
    hook_result(outcome.unwrap_or_else(|p| Err(crate::value::function::panic_error(p))))
}

/// The native `__any_equal__` hook of `ffi.BigInt`: value equality as a Bool, or an Error.
///
/// # Safety
/// `lhs` and `rhs` point at valid values (the hook convention).
pub unsafe extern "C" fn bigint_any_equal_hook(
    lhs: *const TVMFFIAny,
    rhs: *const TVMFFIAny,
) -> TVMFFIAny {
    let outcome = std::panic::catch_unwind(|| {
        // SAFETY: the caller passes valid values.
        unsafe {
            let (l, r) = (bigint_arg(lhs)?, bigint_arg(rhs)?);
            let equal =
                l.type_index == r.type_index && bigint_word_bytes(l) == bigint_word_bytes(r);
            Ok(Any::bool(equal))
        }
    });
    hook_result(outcome.unwrap_or_else(|p| Err(crate::value::function::panic_error(p))))
}

/// The `(column, value)` entries of ffi.BigInt's native hooks, for registration in the
/// `__any_hash__` / `__any_equal__` attribute columns (Apache's runtime registers the same).
pub fn bigint_hooks() -> [(&'static [u8], Any); 2] {
    [
        (
            ANY_HASH_ATTR,
            Any::opaque_ptr(bigint_any_hash_hook as NativeAnyHash as *mut c_void),
        ),
        (
            ANY_EQUAL_ATTR,
            Any::opaque_ptr(bigint_any_equal_hook as NativeAnyEqual as *mut c_void),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::TVMFFIAnyValue;

    fn h(v: &Any) -> u64 {
        hash_of(v).unwrap()
    }

    #[test]
    fn small_and_heap_strings_hash_and_compare_alike() {
        let small = Any::string("abc");
        let heap = Any::object(crate::value::string::new_bytes_object(tindex::STR, b"abc"));
        assert_eq!(small.type_index(), tindex::SMALL_STR);
        assert_eq!(h(&small), h(&heap));
        assert_eq!(
            h(&small),
            stable_hash_combine(tindex::STR as u64, stable_hash_bytes(b"abc"))
        );
        assert!(equal_of(&small, &heap).unwrap());
        assert!(equal_of(&heap, &small).unwrap());
        let bytes = crate::value::string::bytes_any(b"abc");
        assert_ne!(h(&small), h(&bytes), "str and bytes differ by type index");
        assert!(!equal_of(&small, &bytes).unwrap());
    }

    #[test]
    fn floats_hash_their_bits() {
        assert_ne!(h(&Any::float(0.0)), h(&Any::float(-0.0)));
        assert!(!equal_of(&Any::float(0.0), &Any::float(-0.0)).unwrap());
        assert!(equal_of(&Any::float(f64::NAN), &Any::float(f64::NAN)).unwrap());
        assert!(!equal_of(&Any::int(1), &Any::bool(true)).unwrap());
    }

    #[test]
    fn bigints_hash_by_value() {
        let a = crate::value::string::bigint_any(&[0, 1]);
        let b = crate::value::string::bigint_any(&[0, 1]);
        assert_ne!(a.as_raw().value.v_uint64(), b.as_raw().value.v_uint64());
        assert_eq!(h(&a), h(&b));
        assert!(equal_of(&a, &b).unwrap());
        let c = crate::value::string::bigint_any(&[1, 1]);
        assert!(!equal_of(&a, &c).unwrap());
    }

    /// What a hook built for the older convention (`int64_t(const Any&)`, `bool(const Any&, const
    /// Any&)`) leaves in the return registers, read as a TVMFFIAny: Apache TVM 0.27.0's PrimType
    /// hash of float32 in the type-index word, whatever the other register held as payload.
    unsafe extern "C" fn legacy_hook_bits(_value: *const TVMFFIAny) -> TVMFFIAny {
        TVMFFIAny {
            type_index: (2 << 24) | (32 << 16) | 1,
            small_str_len: 0,
            value: TVMFFIAnyValue { v_uint64: 0x10 },
        }
    }

    unsafe extern "C" fn legacy_equal_bits(
        lhs: *const TVMFFIAny,
        _rhs: *const TVMFFIAny,
    ) -> TVMFFIAny {
        legacy_hook_bits(lhs)
    }

    #[test]
    fn native_hooks_of_the_older_convention_fail_cleanly() {
        let spec = crate::registry::types::TypeSpec {
            static_index: -1,
            depth: 1,
            num_child_slots: 0,
            child_slots_can_overflow: true,
            parent_index: tindex::OBJECT,
        };
        let index =
            crate::registry::types::get_or_alloc_index(b"testing.LegacyHookObject", spec).unwrap();
        let hash = Any::opaque_ptr(legacy_hook_bits as NativeAnyHash as *mut c_void);
        let equal = Any::opaque_ptr(legacy_equal_bits as NativeAnyEqual as *mut c_void);
        crate::registry::types::register_attr(index, ANY_HASH_ATTR, hash.as_raw()).unwrap();
        crate::registry::types::register_attr(index, ANY_EQUAL_ATTR, equal.as_raw()).unwrap();
        let a = Any::object(crate::value::object::alloc_object(index, (), 0));
        let b = Any::object(crate::value::object::alloc_object(index, (), 0));

        let err = hash_of(&a).unwrap_err();
        assert_eq!(err.kind(), b"InternalError");
        let message = String::from_utf8_lossy(err.message()).into_owned();
        assert!(
            message.contains("__any_hash__ hook returned a value of type index 35651585"),
            "{message}"
        );
        let err = equal_of(&a, &b).unwrap_err();
        let message = String::from_utf8_lossy(err.message()).into_owned();
        assert!(message.contains("__any_equal__ hook"), "{message}");
        // The same object is equal to itself without asking the hook.
        assert!(equal_of(&a, &a).unwrap());
    }

    #[test]
    fn raw_strings_hash_as_strings() {
        let text = c"hello, world";
        let view = TVMFFIAny {
            type_index: tindex::RAW_STR,
            small_str_len: 0,
            value: TVMFFIAnyValue {
                v_c_str: text.as_ptr(),
            },
        };
        let owned = Any::string("hello, world");
        // SAFETY: the view points at a live C string.
        assert_eq!(unsafe { any_hash(&view) }.unwrap(), h(&owned));
        // SAFETY: as above.
        assert!(unsafe { any_equal(&view, owned.as_raw()) }.unwrap());
    }

    trait Bits {
        fn v_uint64(&self) -> u64;
    }
    impl Bits for TVMFFIAnyValue {
        fn v_uint64(&self) -> u64 {
            // SAFETY: every bit pattern is a valid u64.
            unsafe { self.v_uint64 }
        }
    }
}
