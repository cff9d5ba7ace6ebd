//! The properties the JSON fuzz targets check, shared with the corpus replay test
//! (`runtime/tests/fuzz_corpus.rs`), which runs them on the checked-in corpus with stable cargo.
// Each includer uses only some of the checks.
#![allow(dead_code)]

use tvm_ffi::value::error::Error;

/// Rejections must be clean errors of these kinds (a panic or a crash fails the fuzzer).
fn assert_clean_error(error: &Error, allowed: &[&str]) {
    let kind = String::from_utf8_lossy(error.kind()).into_owned();
    assert!(
        allowed.contains(&kind.as_str()),
        "unexpected {kind}: {}",
        String::from_utf8_lossy(error.message())
    );
}

/// `ffi.json.Parse`: any input parses or raises ValueError; what parses prints, and printing
/// is a fixed point after one round trip.
pub fn check_json_parse(data: &[u8]) {
    match tvm_ffi::walks::json::parse(data) {
        Err(error) => assert_clean_error(&error, &["ValueError"]),
        Ok(value) => {
            // SAFETY: owned values are valid.
            let text = unsafe { tvm_ffi::walks::json::stringify(value.as_raw(), 0) }
                .expect("parsed values print");
            let again = tvm_ffi::walks::json::parse(&text).expect("printed text parses");
            // SAFETY: as above.
            let text2 = unsafe { tvm_ffi::walks::json::stringify(again.as_raw(), 0) }
                .expect("parsed values print");
            assert_eq!(text, text2, "printing is stable");
        }
    }
}

/// `ffi.FromJSONGraphString`: any input decodes or raises a clean error; what decodes writes
/// a graph that reads back to the same graph.
pub fn check_json_graph(data: &[u8]) {
    match tvm_ffi::walks::serialization::from_json_graph_string(data) {
        Err(error) => assert_clean_error(&error, &["ValueError", "TypeError", "RuntimeError"]),
        Ok(value) => {
            let none = tvm_ffi::value::any::Any::none();
            let text = tvm_ffi::walks::serialization::to_json_graph_string(&value, &none)
                .expect("decoded values write");
            let again = tvm_ffi::walks::serialization::from_json_graph_string(&text)
                .expect("written graphs read");
            let text2 = tvm_ffi::walks::serialization::to_json_graph_string(&again, &none)
                .expect("decoded values write");
            assert_eq!(text, text2, "a graph read back writes the same graph");
        }
    }
}
