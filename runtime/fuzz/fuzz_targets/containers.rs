//! Fuzzes container construction and lookup through the C surface, driven by a byte script (see `checks/containers.rs` for the properties).
#![no_main]

#[path = "../checks/containers.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_containers(data));
