//! The data types and constants of the TVM-FFI C ABI 0.1.16, shared by the runtime
//! (`ffihub-runtime`) and by code that talks to any runtime through the ABI (the `ffihub` Rust
//! API, the Node addon). Types only: no functions, so depending on it never links a runtime.

#![no_std]

pub mod abi;
pub mod dlpack;
pub mod tindex;
