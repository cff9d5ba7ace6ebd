//! Tensor-related global functions. Apache's runtime registers none besides `ffi.Shape`, which
//! belongs to the shape container (see `containers`), so this registers nothing: Tensor support
//! is the `TVMFFITensor*` C functions (`crate::c_api`) and the Rust API in `crate::tensor`.

use super::Globals;

pub(super) fn register(_globals: &mut Globals) {}
