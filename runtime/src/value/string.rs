//! String, Bytes and BigInt values with Apache's encodings: short strings and bytes inline in the
//! `TVMFFIAny` (at most 7 bytes, `small_str_len` set), longer ones as objects whose `TVMFFIByteArray`
//! cell points at inline data with a trailing NUL; BigInt as `{nwords, words[]}`.

use crate::abi::{TVMFFIAny, TVMFFIAnyValue, TVMFFIByteArray};
use crate::tindex;
use crate::value::any::{byte_array_slice, Any};
use crate::value::error::Error;
use crate::value::object::{alloc_object, tail, try_alloc_object_with_tail, AllocError, ObjectRef};
use std::ffi::CStr;

/// The longest string or bytes value stored inline in a `TVMFFIAny`.
pub const SMALL_MAX: usize = 7;

/// Payload of String and Bytes objects: the cell; the data follows inline.
#[repr(C)]
struct BytesPayload {
    cell: TVMFFIByteArray,
}

/// A heap String (`kTVMFFIStr`) or Bytes (`kTVMFFIBytes`) object holding a copy of `data`.
pub fn new_bytes_object(type_index: i32, data: &[u8]) -> ObjectRef {
    // The bytes exist, so a copy of them is an ordinary allocation (whose failure ends the
    // process, as in Rust).
    bytes_object(type_index, data).unwrap_or_else(|error| error.abort())
}

fn bytes_object(type_index: i32, data: &[u8]) -> Result<ObjectRef, AllocError> {
    let len = data.len();
    try_alloc_object_with_tail(type_index, len.saturating_add(1), |tail| {
        // SAFETY: the tail has `len + 1` bytes, and nobody else sees the object yet.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), tail, len);
            *tail.add(len) = 0;
        }
        BytesPayload {
            cell: TVMFFIByteArray {
                data: tail.cast(),
                size: len,
            },
        }
    })
}

fn small_or_heap(small_index: i32, heap_index: i32, data: &[u8]) -> Result<Any, AllocError> {
    match small_value(small_index, data) {
        // SAFETY: a small value owns nothing.
        Some(small) => Ok(unsafe { Any::from_raw(small) }),
        None => Ok(Any::object(bytes_object(heap_index, data)?)),
    }
}

/// The small value (of type `small_index`) holding `data`, if it fits.
#[inline]
fn small_value(small_index: i32, data: &[u8]) -> Option<TVMFFIAny> {
    if data.len() > SMALL_MAX {
        return None;
    }
    let mut bytes = [0u8; 8];
    bytes[..data.len()].copy_from_slice(data);
    Some(TVMFFIAny {
        type_index: small_index,
        small_str_len: data.len() as u32,
        value: TVMFFIAnyValue { v_bytes: bytes },
    })
}

/// The small form of the String (`heap_index` STR) or Bytes (BYTES) holding `data`, if it fits:
/// the value an owned `Any` of it would be (it owns nothing, so it needs no release).
#[inline]
pub(crate) fn small_text(heap_index: i32, data: &[u8]) -> Option<TVMFFIAny> {
    let small_index = if heap_index == tindex::BYTES {
        tindex::SMALL_BYTES
    } else {
        tindex::SMALL_STR
    };
    small_value(small_index, data)
}

/// A String value: small when it fits, a String object otherwise.
pub fn string_any(data: &[u8]) -> Any {
    small_or_heap(tindex::SMALL_STR, tindex::STR, data).unwrap_or_else(|error| error.abort())
}

/// A Bytes value: small when it fits, a Bytes object otherwise.
pub fn bytes_any(data: &[u8]) -> Any {
    small_or_heap(tindex::SMALL_BYTES, tindex::BYTES, data).unwrap_or_else(|error| error.abort())
}

/// [`string_any`] of bytes a C caller described: a MemoryError when their copy cannot be
/// allocated.
pub fn try_string_any(data: &[u8]) -> Result<Any, Error> {
    Ok(small_or_heap(tindex::SMALL_STR, tindex::STR, data)?)
}

/// [`bytes_any`] of bytes a C caller described: a MemoryError when their copy cannot be
/// allocated.
pub fn try_bytes_any(data: &[u8]) -> Result<Any, Error> {
    Ok(small_or_heap(tindex::SMALL_BYTES, tindex::BYTES, data)?)
}

/// The bytes of a string value in any of its forms (small, object, raw C string).
///
/// # Safety
/// `value` is a valid value or view, and the result is used only while it lives.
pub unsafe fn str_bytes(value: &TVMFFIAny) -> Option<&[u8]> {
    match value.type_index {
        tindex::SMALL_STR => Some(small_bytes(value)),
        tindex::STR => Some(object_bytes(value)),
        tindex::RAW_STR => Some(CStr::from_ptr(value.value.v_c_str).to_bytes()),
        _ => None,
    }
}

/// The bytes of a bytes value in any of its forms (small, object, byte-array pointer).
///
/// # Safety
/// As for [`str_bytes`].
pub unsafe fn bytes_bytes(value: &TVMFFIAny) -> Option<&[u8]> {
    match value.type_index {
        tindex::SMALL_BYTES => Some(small_bytes(value)),
        tindex::BYTES => Some(object_bytes(value)),
        tindex::BYTE_ARRAY_PTR => Some(byte_array_slice(
            &*(value.value.v_ptr as *const TVMFFIByteArray),
        )),
        _ => None,
    }
}

unsafe fn small_bytes(value: &TVMFFIAny) -> &[u8] {
    let len = (value.small_str_len as usize).min(8);
    &value.value.v_bytes[..len]
}

/// The bytes of a String or Bytes object (ours or foreign: only the cell is read).
unsafe fn object_bytes(value: &TVMFFIAny) -> &[u8] {
    let cell = value
        .value
        .v_obj
        .cast::<u8>()
        .add(24)
        .cast::<TVMFFIByteArray>();
    byte_array_slice(&*cell)
}

/// Payload of BigInt objects: the word count; the words follow inline.
#[repr(C)]
struct BigIntPayload {
    nwords: usize,
}

/// A big integer from little-endian-ordered two's-complement words, normalized: values that fit
/// in an `i64` become Int, others a BigInt object with the fewest words.
pub fn bigint_any(words: &[i64]) -> Any {
    let mut len = words.len();
    while len > 1 {
        let top = words[len - 1];
        let below_negative = words[len - 2] < 0;
        if (top == 0 && !below_negative) || (top == -1 && below_negative) {
            len -= 1;
        } else {
            break;
        }
    }
    match len {
        0 => Any::int(0),
        1 => Any::int(words[0]),
        _ => {
            let obj = alloc_object(tindex::BIG_INT, BigIntPayload { nwords: len }, len * 8);
            // SAFETY: the tail holds `len` words.
            unsafe {
                let dst = tail::<BigIntPayload>(obj.as_ptr()).cast::<i64>();
                std::ptr::copy_nonoverlapping(words.as_ptr(), dst, len);
            }
            Any::object(obj)
        }
    }
}

/// The words of an Int or BigInt value, borrowed from `value`.
///
/// # Safety
/// `value` is an Int or a BigInt (any runtime's: the layout is `{header, nwords, words[]}`).
pub unsafe fn bigint_words(value: &TVMFFIAny) -> TVMFFIByteArray {
    if value.type_index == tindex::BIG_INT {
        let base = value.value.v_obj.cast::<u8>().add(24);
        let nwords = *base.cast::<usize>();
        TVMFFIByteArray {
            data: base.add(8).cast(),
            size: nwords * 8,
        }
    } else {
        TVMFFIByteArray {
            data: std::ptr::addr_of!(value.value.v_int64).cast(),
            size: 8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_strings_are_small_and_long_ones_heap() {
        let small = string_any(b"1234567");
        assert_eq!(small.type_index(), tindex::SMALL_STR);
        assert_eq!(small.as_raw().small_str_len, 7);
        assert_eq!(unsafe { str_bytes(small.as_raw()) }, Some(&b"1234567"[..]));
        let heap = string_any(b"12345678");
        assert_eq!(heap.type_index(), tindex::STR);
        assert_eq!(unsafe { str_bytes(heap.as_raw()) }, Some(&b"12345678"[..]));
    }

    #[test]
    fn heap_strings_store_data_inline_with_a_trailing_nul() {
        let obj = new_bytes_object(tindex::STR, b"hello, world");
        unsafe {
            let cell = obj.cell::<TVMFFIByteArray>();
            assert_eq!(
                cell.data as usize,
                obj.as_ptr() as usize + 40,
                "data follows the 40-byte object"
            );
            assert_eq!(*cell.data.add(cell.size), 0);
        }
    }

    #[test]
    fn bytes_keep_embedded_nuls() {
        let value = bytes_any(b"a\0b\0c\0d\0e");
        assert_eq!(value.type_index(), tindex::BYTES);
        assert_eq!(
            unsafe { bytes_bytes(value.as_raw()) },
            Some(&b"a\0b\0c\0d\0e"[..])
        );
        assert_eq!(
            unsafe { str_bytes(value.as_raw()) },
            None,
            "bytes are not strings"
        );
    }

    #[test]
    fn bigints_normalize() {
        assert_eq!(bigint_any(&[]).type_index(), tindex::INT);
        assert_eq!(
            bigint_any(&[-5, -1]).type_index(),
            tindex::INT,
            "sign extension is dropped"
        );
        let big = bigint_any(&[0, 1, 0]);
        assert_eq!(big.type_index(), tindex::BIG_INT);
        let words = unsafe { bigint_words(big.as_raw()) };
        assert_eq!(words.size, 16, "the redundant top word is dropped");
        let positive_top = bigint_any(&[-1, 0]);
        assert_eq!(
            positive_top.type_index(),
            tindex::BIG_INT,
            "a zero top word keeps 2^64-1 positive"
        );
    }
}
