//! The property of the `dtype` fuzz target, shared with the corpus replay test
//! (`runtime/tests/fuzz_corpus.rs`).

use tvm_ffi::abi::TVMFFIByteArray;
use tvm_ffi::dlpack::DLDataType;
use tvm_ffi::value::error::take_raised_or_unknown;

extern "C" {
    fn TVMFFIDataTypeFromString(str: *const TVMFFIByteArray, out: *mut DLDataType) -> i32;
}

/// Parses `text` through the C surface; a failure is the raised error's kind.
fn parse(text: &[u8]) -> Result<DLDataType, String> {
    let input = TVMFFIByteArray {
        data: text.as_ptr().cast(),
        size: text.len(),
    };
    let mut out = DLDataType {
        code: 0,
        bits: 0,
        lanes: 0,
    };
    // SAFETY: valid pointers; `input` points at `text`.
    match unsafe { TVMFFIDataTypeFromString(&input, &mut out) } {
        0 => Ok(out),
        code => Err(String::from_utf8_lossy(take_raised_or_unknown(code).kind()).into_owned()),
    }
}

/// `TVMFFIDataTypeFromString`: any bytes parse or raise ValueError (also `custom[...]`, as no
/// `dtype.get_custom_type_code` global is registered); what parses and has a name reads back
/// from that name, and prints the same name again (names are canonical; they may drop what a
/// type ignores, such as the bits of a `handle`).
pub fn check_dtype(data: &[u8]) {
    match parse(data) {
        Err(kind) => assert_eq!(kind, "ValueError"),
        Ok(dtype) => {
            if let Ok(name) = tvm_ffi::registry::dtype::try_format_dtype(dtype) {
                let again = parse(name.as_bytes())
                    .unwrap_or_else(|kind| panic!("{name:?}, a printed dtype, raised {kind}"));
                assert_eq!(
                    tvm_ffi::registry::dtype::try_format_dtype(again).as_ref(),
                    Ok(&name),
                    "printing is stable"
                );
            }
        }
    }
}
