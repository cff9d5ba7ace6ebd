//! Strings, bytes, big integers and data types.

use super::{byte_array_arg, non_null, out_ptr, safe_call};
use crate::abi::{TVMFFIAny, TVMFFIByteArray};
use crate::dlpack::DLDataType;
use crate::tindex;
use crate::value::any::{Any, RAW_NONE};
use crate::value::error::Error;

/// Writes the value `make` makes to the required output `out`, or None when it fails (the
/// caller never reads a stale value).
#[inline]
fn make_value(out: *mut TVMFFIAny, make: impl FnOnce() -> Result<Any, Error>) -> i32 {
    safe_call(|| {
        let out = out_ptr(out, "out")?;
        match make() {
            Ok(value) => {
                *out = value.into_raw();
                Ok(())
            }
            Err(error) => {
                *out = RAW_NONE;
                Err(error)
            }
        }
    })
}

/// A String value holding a copy of `input` (small when it fits).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIStringFromByteArray(
    input: *const TVMFFIByteArray,
    out: *mut TVMFFIAny,
) -> i32 {
    make_value(out, || {
        crate::value::string::try_string_any(byte_array_arg(input, "input")?)
    })
}

/// A Bytes value holding a copy of `input` (small when it fits).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIBytesFromByteArray(
    input: *const TVMFFIByteArray,
    out: *mut TVMFFIAny,
) -> i32 {
    make_value(out, || {
        crate::value::string::try_bytes_any(byte_array_arg(input, "input")?)
    })
}

/// An integer from little-endian-ordered 64-bit two's-complement words: Int when it fits,
/// otherwise a BigInt object.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIBigIntFromByteArray(
    input: *const TVMFFIByteArray,
    out: *mut TVMFFIAny,
) -> i32 {
    make_value(out, || {
        let bytes = byte_array_arg(input, "input")?;
        if bytes.len() % 8 != 0 {
            return Err(Error::new(
                "ValueError",
                "BigInt content must contain whole 64-bit words",
            ));
        }
        let mut words: Vec<i64> = Vec::new();
        words
            .try_reserve_exact(bytes.len() / 8)
            .map_err(|_| Error::new("MemoryError", format!("cannot copy {} bytes", bytes.len())))?;
        words.extend(
            bytes
                .chunks_exact(8)
                .map(|w| i64::from_ne_bytes(w.try_into().expect("8-byte chunk"))),
        );
        Ok(crate::value::string::bigint_any(&words))
    })
}

/// The words of an Int or BigInt value, borrowed from `value` (empty for other kinds).
#[no_mangle]
pub unsafe extern "C" fn TVMFFIBigIntGetContentByteArray(
    value: *const TVMFFIAny,
) -> TVMFFIByteArray {
    match value.as_ref() {
        Some(v) if v.type_index == tindex::INT || v.type_index == tindex::BIG_INT => {
            crate::value::string::bigint_words(v)
        }
        _ => TVMFFIByteArray {
            data: std::ptr::null(),
            size: 0,
        },
    }
}

/// Parses a data type such as `float32` or `int8x4`.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIDataTypeFromString(
    str: *const TVMFFIByteArray,
    out: *mut DLDataType,
) -> i32 {
    safe_call(|| {
        let text = byte_array_arg(str, "str")?;
        let out = out_ptr(out, "out")?;
        *out = crate::registry::dtype::parse_dtype_registered(text)?;
        Ok(())
    })
}

/// Spells a data type as a String value.
#[no_mangle]
pub unsafe extern "C" fn TVMFFIDataTypeToString(
    dtype: *const DLDataType,
    out: *mut TVMFFIAny,
) -> i32 {
    safe_call(|| {
        let dtype = *non_null(dtype, "dtype")?;
        let out = out_ptr(out, "out")?;
        let text = crate::registry::dtype::format_dtype_registered(dtype)?;
        *out = Any::string(text).into_raw();
        Ok(())
    })
}
