//! Fuzzes `TypeSchema::from_json_str`, the `type_schema` JSON of library metadata (see `checks/schema.rs` for the properties).
#![no_main]

#[path = "../checks/schema.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_type_schema(data));
