//! ffihub-runtime: an ABI-compatible implementation of Apache TVM-FFI's `libtvm_ffi.so`.
//!
//! The C surface lives in `c_api`; each concept (objects, strings, errors, functions, the
//! registries...) has its own module with the logic, and `c_api` only converts arguments, catches
//! panics and reports errors the ABI way.

pub use ffihub_abi::{abi, dlpack, tindex};

pub(crate) mod access_path;
pub mod any;
pub mod any_hash;
pub mod backtrace;
pub mod bigint;
pub mod builtins;
mod c_api;
pub mod compat;
pub mod containers;
mod cxx;
pub mod deep_copy;
pub mod dtype;
pub mod env;
pub mod error;
pub mod function;
pub mod hash;
pub mod json;
mod live_count;
pub mod module;
pub mod object;
pub mod recursive;
pub mod reflection;
pub mod registry;
pub mod repr;
pub mod serialization;
mod stack;
pub mod string;
pub mod structural;
pub mod tensor;
pub mod type_schema;
pub mod types;

// The registries are created on first use, by whichever library calls in first (static
// initializers of other libraries included), so nothing can fill them beforehand: they take their
// initial contents from the crate root, which wires in the built-ins. This keeps `registry` and
// `types` below the built-in functions and types they hold (no extra work on lookups: the
// contents are asked for once, inside the registries' one-time initialisation).

/// The global functions the runtime starts with.
fn builtin_globals() -> registry::Globals {
    builtins::global_functions()
}

/// Registers the types the runtime starts with; called once, while the type registry is made.
fn register_builtin_types(registrar: &mut types::TypeRegistrar<'_>) {
    builtins::register_types(registrar)
}
