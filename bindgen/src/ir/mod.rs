//! The IR: the reflection document, normalized for code generation.
//!
//! - Types are normalized ([`Type`]): string-like origins become [`Type::String`], C++ standard
//!   containers become their TVM-FFI counterparts, missing container arguments become `Any`,
//!   wrappers that do not change the value seen by a binding (`Expected`, `ObjectRValueRef`,
//!   `UnchangedOr`) are removed.
//! - Inheritance is resolved: each type knows its parent, whether the parent is defined in the
//!   same library, and the fields it inherits from local ancestors.
//! - Constructors are resolved from `__ffi_init__` (typed method or generated from fields).
//! - Instance methods lose their `self` parameter; parameters get names (TVM-FFI records none),
//!   the first found wins: the signature overlay ([`Options::signatures`], see [`overlay`]); the
//!   metadata key `arg_names`; the docstring's parameter list ([`docstring`]) when it names as
//!   many parameters as the signature has; the field names for constructors; else `arg0`,
//!   `arg1`... Each parameter records where its name came from ([`NameSource`]).
//! - Parameters may have defaults ([`ParamDefault`]: from `arg_defaults`, fields or the overlay)
//!   and be keyword-only; the overlay may narrow parameter and return types, keeping the
//!   library's for the load-time checks ([`Param::library_ty`], [`Signature::library_ret`]).
//! - Items are sorted: functions by name, types parents-first (pre-order of the inheritance
//!   tree, siblings by key), methods by name (overloads keep their order).
//!
//! - Namespaces: every item has a `path` below the package root. The root is the dotted
//!   namespace that every item shares (`testing.` for a library of `testing.*` items, nothing for
//!   TVM), so `ir.IntImm` becomes the path `[ir, IntImm]` and `testing.add_one` just
//!   `[add_one]`. A rename map ([`Options::rename`]) gives single items another dotted name first.
//!
//! - Module exports (the `modules` section: `__tvm_ffi_<name>` symbols of a library) are
//!   functions too, with [`Function::module`] naming their library. They live at the package
//!   root (their names have no namespace). An export whose path a global function already takes
//!   is left out: the global binds it (the Rust macros export a function under both names).
//!
//! - The load-time check manifest of a library ([`manifest`], ADR 0020) is computed here once,
//!   for every backend.
//!
//! The IR knows nothing about target languages; naming is done by each backend's `names.rs`.

pub mod docstring;
mod lower;
pub mod manifest;
mod model;
pub mod overlay;
mod types;

pub use lower::{build, build_with, BuildError, Options};
pub use model::*;
pub use types::Type;
