//! Fuzzes `ffi.json.Parse` (see `checks/json.rs` for the properties).
#![no_main]

#[path = "../checks/json.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_json_parse(data));
