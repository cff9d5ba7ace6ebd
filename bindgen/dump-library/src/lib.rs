//! `libffihub_dump.so`: `ffihub dump` from inside a process.
//!
//! `ffihub dump --lib` loads libraries into its own process and reads what they registered.
//! Types and functions that a binding registers at run time (Julia's `@ffi_object`, Node's
//! `ffi.defineClass`, Python's `py_class`) exist only in the process that defined them: loading
//! this library there registers `ffihub.DumpReflection(prefix)`, which returns the same document
//! (JSON) for whatever is registered now. `ffihub generate --metadata FILE` then binds those types
//! in any language, like types registered in C++ (docs/adr/0003-generator-metadata.md).

use ffihub::{Error, Result, String};

/// The reflection document (the JSON `ffihub dump` writes) of every global function and object
/// type registered in this process whose name starts with `prefix` (all of them, the runtime's
/// built-ins included, when `prefix` is empty).
#[ffihub::function(name = "ffihub.DumpReflection")]
pub fn dump_reflection(prefix: String) -> Result<String> {
    let doc = ffihub_bindgen::dump::dump_registered(prefix.to_str()?)
        .map_err(|e| Error::runtime_error(e.to_string()))?;
    let text = doc
        .to_json_string()
        .map_err(|e| Error::runtime_error(format!("cannot write the reflection document: {e}")))?;
    String::new(text)
}
