//! Fuzzes the `__tvm_ffi__library_bin` parser: any input must be accepted or rejected without a
//! panic, an overflow or an unbounded allocation, and what it accepts must survive a round trip
//! through `serialize`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tvm_ffi::module::library_bin::{parse, serialize};

fuzz_target!(|data: &[u8]| {
    if let Ok(parsed) = parse(data) {
        assert_eq!(parsed.imports.len(), parsed.modules.len());
        for children in &parsed.imports {
            assert!(children.iter().all(|&c| c < parsed.modules.len()));
        }
        let again = serialize(&parsed.modules, &parsed.imports);
        assert_eq!(parse(&again).as_ref(), Ok(&parsed));
    }
});
