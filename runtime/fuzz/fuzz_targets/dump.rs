//! Fuzzes the dump reader, `Reflection` from YAML and JSON (see `checks/schema.rs` for the properties).
#![no_main]

#[path = "../checks/schema.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_dump(data));
