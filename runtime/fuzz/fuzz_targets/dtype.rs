//! Fuzzes `TVMFFIDataTypeFromString` (see `checks/dtype.rs` for the properties).
#![no_main]

#[path = "../checks/dtype.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_dtype(data));
