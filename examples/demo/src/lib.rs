//! `ffihub-demo`: a TVM-FFI extension written with the `ffihub` Rust API.
//!
//! Loading `libffihub_demo.so` (with `dlopen` or the runtime's `ffi.ModuleLoadFromFile`)
//! registers, on ffihub's or Apache's `libtvm_ffi.so` alike:
//!
//! - global functions under `demo.`, covering every kind of value the bindings must pass:
//!   scalars and strings ([`scalars`]), containers ([`containers`]), callbacks and closures
//!   ([`callbacks`]), errors raised on purpose ([`errors`]), tensor kernels ([`tensors`]) and
//!   packed (variadic) functions ([`packed`]);
//! - object types `demo.Point`, `demo.Point3D` (derives from `demo.Point`), `demo.Counter`,
//!   `demo.Shape2D` and `demo.TensorSpec` ([`types`]) with fields, methods, static methods and
//!   constructors;
//! - module exports `multiply` and `version` (`__tvm_ffi_multiply`, ...), for
//!   `ffi.ModuleGetFunction` ([`exports`]).
//!
//! It is the shared fixture of the Rust, Julia, Node and C++ binding tests: every function's
//! behaviour is simple to assert, and every item is documented (the docs become `doc` in the
//! reflection metadata).

#![warn(missing_docs)]

pub mod callbacks;
pub mod containers;
pub mod errors;
pub mod exports;
pub mod packed;
pub mod scalars;
pub mod tensors;
pub mod types;
