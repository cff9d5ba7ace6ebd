//! Functions exported as module symbols (`__tvm_ffi_<name>`, with metadata and doc symbols),
//! found through `ffi.ModuleGetFunction` on the loaded library rather than as globals.

/// Returns `a * b` (module export `multiply`).
#[ffihub::function(export = "multiply")]
pub fn multiply(a: i64, b: i64) -> i64 {
    a.wrapping_mul(b)
}

/// The demo library's version, `"ffihub-demo <version>"`: both the global `demo.version` and the
/// module export `version`.
#[ffihub::function(name = "demo.version", export = "version")]
pub fn version() -> std::string::String {
    format!("ffihub-demo {}", env!("CARGO_PKG_VERSION"))
}
