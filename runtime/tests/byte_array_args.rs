//! Byte-array arguments of the C surface: a NULL data pointer is only the empty string when the
//! size is 0; with a size it is a ValueError, never a silently empty value. A size no memory
//! can have is an error too, never the end of the process.

use tvm_ffi::abi::{TVMFFIAny, TVMFFIByteArray};
use tvm_ffi::value::any::{Any, RAW_NONE};
use tvm_ffi::value::error::take_raised_or_unknown;

extern "C" {
    fn TVMFFIStringFromByteArray(input: *const TVMFFIByteArray, out: *mut TVMFFIAny) -> i32;
    fn TVMFFIBytesFromByteArray(input: *const TVMFFIByteArray, out: *mut TVMFFIAny) -> i32;
    fn TVMFFIBigIntFromByteArray(input: *const TVMFFIByteArray, out: *mut TVMFFIAny) -> i32;
}

type FromByteArray = unsafe extern "C" fn(*const TVMFFIByteArray, *mut TVMFFIAny) -> i32;

fn convert(make: FromByteArray, data: *const u8, size: usize) -> Result<Any, (String, String)> {
    let input = TVMFFIByteArray {
        data: data.cast(),
        size,
    };
    let mut out = RAW_NONE;
    // SAFETY: valid pointers; `data` is either NULL or points at `size` bytes.
    match unsafe { make(&input, &mut out) } {
        // SAFETY: on success `out` holds an owned value.
        0 => Ok(unsafe { Any::from_raw(out) }),
        code => {
            let error = take_raised_or_unknown(code);
            Err((
                String::from_utf8_lossy(error.kind()).into_owned(),
                String::from_utf8_lossy(error.message()).into_owned(),
            ))
        }
    }
}

/// Reads the bytes of a String or Bytes value.
type ReadBytes = unsafe fn(&TVMFFIAny) -> Option<&[u8]>;

#[test]
fn null_data_with_a_size_is_a_value_error() {
    for (make, read) in [
        (
            TVMFFIStringFromByteArray as FromByteArray,
            tvm_ffi::value::string::str_bytes as ReadBytes,
        ),
        (
            TVMFFIBytesFromByteArray as FromByteArray,
            tvm_ffi::value::string::bytes_bytes as ReadBytes,
        ),
    ] {
        let (kind, message) = convert(make, std::ptr::null(), 5).expect_err("NULL with size 5");
        assert_eq!(kind, "ValueError");
        assert_eq!(message, "input.data must not be NULL when input.size is 5");

        let empty = convert(make, std::ptr::null(), 0).expect("NULL with size 0 is empty");
        // SAFETY: the value lives while we read it.
        assert_eq!(unsafe { read(empty.as_raw()) }, Some(&b""[..]));
        let text = b"hello, a string long enough for the heap";
        let value = convert(make, text.as_ptr(), text.len()).expect("real bytes convert");
        // SAFETY: as above.
        assert_eq!(unsafe { read(value.as_raw()) }, Some(&text[..]));
    }
}

#[test]
fn sizes_no_memory_can_have_are_errors() {
    let text = b"a few bytes";
    for make in [
        TVMFFIStringFromByteArray as FromByteArray,
        TVMFFIBytesFromByteArray as FromByteArray,
        TVMFFIBigIntFromByteArray as FromByteArray,
    ] {
        // Beyond any array (a negative size cast to size_t, say): refused before anything is
        // read or allocated.
        let (kind, message) =
            convert(make, text.as_ptr(), usize::MAX - 7).expect_err("size near 2^64");
        assert_eq!(kind, "ValueError");
        assert_eq!(
            message,
            format!("input.size is {}, larger than any array", usize::MAX - 7)
        );
        // 2^50 bytes (1 PiB, more than the address space of a process on x86-64): the copy
        // cannot be allocated, which is a MemoryError (Python's MemoryError through tvm_ffi),
        // raised before the bytes are read.
        let (kind, message) = convert(make, text.as_ptr(), 1 << 50).expect_err("1 PiB");
        assert_eq!(kind, "MemoryError", "{message}");
        assert!(message.starts_with("cannot "), "{message}");
    }
}

#[test]
fn names_follow_the_same_rules() {
    extern "C" {
        fn TVMFFIFunctionGetGlobal(name: *const TVMFFIByteArray, out: *mut *mut c_void) -> i32;
        fn TVMFFITypeKeyToIndex(key: *const TVMFFIByteArray, out: *mut i32) -> i32;
    }
    use std::ffi::c_void;
    let error_of = |code: i32| {
        let error = take_raised_or_unknown(code);
        (
            String::from_utf8_lossy(error.kind()).into_owned(),
            String::from_utf8_lossy(error.message()).into_owned(),
        )
    };
    let null_with_size = TVMFFIByteArray {
        data: std::ptr::null(),
        size: 3,
    };
    let beyond = TVMFFIByteArray {
        data: b"ffi.Array".as_ptr().cast(),
        size: usize::MAX,
    };
    for (name, what) in [
        (&null_with_size, "must not be NULL"),
        (&beyond, "larger than any array"),
    ] {
        let mut function = std::ptr::null_mut();
        // SAFETY: valid pointers; the runtime validates the array before reading it.
        let (kind, message) = error_of(unsafe { TVMFFIFunctionGetGlobal(name, &mut function) });
        assert_eq!(kind, "ValueError");
        assert!(
            message.starts_with("name.") && message.contains(what),
            "{message}"
        );
        assert!(function.is_null());
        let mut index = -1;
        // SAFETY: as above.
        let (kind, message) = error_of(unsafe { TVMFFITypeKeyToIndex(name, &mut index) });
        assert_eq!(kind, "ValueError");
        assert!(
            message.starts_with("type_key.") && message.contains(what),
            "{message}"
        );
    }
}
