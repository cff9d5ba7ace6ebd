//! ffihub-runtime: an ABI-compatible implementation of Apache TVM-FFI's `libtvm_ffi.so`.
//!
//! The modules are grouped by layer in folders (docs/architecture.md): `value` (objects, `Any`,
//! strings, errors, functions), `registry` (the global function and type tables, reflection),
//! `containers`, `compat`, `walks` (structural equality, serialization and the other walks over
//! value graphs), `module` (modules and the C++ layer), `builtins` (the `ffi.*` functions and
//! built-in types) and `c_api`, the C surface, which only converts arguments, catches panics and
//! reports errors the ABI way.

pub use ffihub_abi::{abi, dlpack, tindex};

// The layers, lowest first; a module names only modules of its own layer or of lower ones
// (runtime/tests/layers.rs checks it; docs/architecture.md describes each).
pub mod builtins;
mod c_api;
pub mod compat;
pub mod containers;
pub mod module;
pub mod registry;
pub mod value;
pub mod walks;

// The registries are created on first use, by whichever library calls in first (static
// initializers of other libraries included), so nothing can fill them beforehand: they take their
// initial contents from the crate root, which wires in the built-ins. This keeps `registry` and
// `types` below the built-in functions and types they hold (no extra work on lookups: the
// contents are asked for once, inside the registries' one-time initialisation).

/// The global functions the runtime starts with.
fn builtin_globals() -> registry::globals::Globals {
    builtins::global_functions()
}

/// Registers the types the runtime starts with; called once, while the type registry is made.
fn register_builtin_types(registrar: &mut registry::types::TypeRegistrar<'_>) {
    builtins::register_types(registrar)
}
