//! A safe Rust API over the TVM-FFI C ABI, for writing extensions (libraries that register
//! functions and object types) and hosts (programs that load and call them).
//!
//! The crate links `libtvm_ffi` dynamically and never contains a runtime: whichever
//! `libtvm_ffi.so` the process loads (ffihub's or Apache's) is the one it talks to (see
//! `docs/adr/0002-rust-extension-api.md`).
//!
//! Building: the link step needs a `libtvm_ffi.so`, found by `ffihub-sys` through `TVM_FFI_LIB`
//! (the file or its folder), `TVM_FFI_LIB_DIR`, or `pkg-config tvm_ffi` (`scripts/install.sh`
//! writes one); inside ffihub's checkout, its `target/release`. An extension (a `cdylib` using the
//! macros) marks itself as never unloaded when it loads, as linking with `-z nodelete` would: the
//! runtime keeps pointers into it, so a host's `dlclose` must not unmap it. A walk-through from
//! `cargo new --lib` to Julia, Node.js and C++: `docs/extensions.md`.
//!
//! - Values: [`Any`] (owned) and [`AnyView`] (borrowed), converted to and from Rust types with
//!   [`IntoAny`] / [`FromAny`]; every convertible type has a [`FfiType`] schema.
//! - Objects: [`ObjectRef<T>`] with checked downcasts by type index; [`String`], [`Bytes`],
//!   [`Array<T>`], [`Map<K, V>`], [`Shape`], [`Tensor`], [`Function`], [`TypedFunction<F>`],
//!   [`Module`]; reflection ([`reflection`]) for fields and methods of any object.
//! - Errors: [`Error`] with kind, message and backtrace; [`Result`]; [`alloc`]: allocation
//!   failures as `MemoryError`s instead of aborts.
//! - Macros: [`function`] registers a global (or exports a module symbol),
//!   [`derive@Object`] registers an object type with its fields, [`methods`] its methods and
//!   constructor.
//!
//! ```no_run
//! /// Adds one.
//! #[ffihub::function(name = "demo.add_one")]
//! fn add_one(x: i64) -> i64 {
//!     x + 1
//! }
//! ```

#![warn(missing_docs)]

pub mod alloc;
mod any;
mod containers;
mod convert;
mod dtype;
mod error;
mod function;
mod module;
#[cfg(any(target_os = "linux", target_vendor = "apple"))]
mod nodelete;
mod object;
mod one_copy;
pub mod reflection;
mod schema;
mod string;
pub mod sys;
mod tensor;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use any::{Any, AnyView};
pub use containers::{Array, Map, Shape};
pub use convert::{ByRef, FfiType, FromAny, IntoAny, IntoReturn};
pub use dtype::{DataType, Device};
pub use error::{Error, Result};
/// The ABI data types (`ffihub-abi`): `TVMFFIAny`, the object header, DLPack structs...
pub use ffihub_abi as abi;
pub use function::{Function, IntoArgs, Signature, TypedClosure, TypedFunction};
pub use module::Module;
pub use object::{live_rust_objects, Object, ObjectRef, ObjectType};
pub use reflection::Writable;
pub use schema::Schema;
pub use string::{Bytes, String};
pub use tensor::{Element, Tensor};

/// Registers a Rust function as a TVM-FFI function when the library is loaded.
///
/// - `name = "demo.add_one"`: a global function, with its signature as `type_schema` metadata
///   (Apache's form) and its doc comment as doc;
/// - `export = "add_one"`: exported as the module symbol `__tvm_ffi_add_one` (with
///   `__tvm_ffi__metadata_add_one` and `__tvm_ffi__doc_add_one`) for `Module::get_function`;
/// - both may be given.
///
/// Parameters take any [`FromAny`] type; `#[ffihub(default = expr)]` on trailing parameters
/// makes them optional. The return type is any [`IntoAny`] type or a `Result` of one. A function
/// whose only parameter is `&[AnyView]` is packed (variadic, untyped).
pub use ffihub_macros::function;

/// Registers the methods of a `#[derive(ffihub::Object)]` type: `&self` methods are instance
/// methods, the others static methods, and the one marked `#[ffihub(init)]` is the constructor
/// (`__ffi_init__`, callable from every language).
pub use ffihub_macros::methods;

/// Declares a `#[repr(C)]` struct as a TVM-FFI object type:
/// `#[ffihub(type_key = "demo.Point")]`; the first field is the parent's struct ([`struct@Object`] for
/// a root type). Other fields are reflected (read-only, or writable when of type
/// [`Writable<T>`]), with their doc comments and `#[ffihub(default = expr)]` defaults;
/// `#[ffihub(skip)]` hides a field.
pub use ffihub_macros::Object;

/// The runtime's ABI version (`TVMFFIGetVersion`): `(major, minor, patch)`.
pub fn runtime_version() -> (u32, u32, u32) {
    let mut version = ffihub_abi::abi::TVMFFIVersion {
        major: 0,
        minor: 0,
        patch: 0,
    };
    // SAFETY: `version` is valid for a write.
    unsafe { sys::TVMFFIGetVersion(&mut version) };
    (version.major, version.minor, version.patch)
}
