//! Tensor-related global functions. Apache's runtime registers none besides `ffi.Shape`, which
//! belongs to the shape container (see `containers`), so this registers nothing: Tensor support
//! is the `TVMFFITensor*` C functions (in `c_api`) and the Rust API in `crate::containers::tensor`.

use crate::registry::define::Globals;

pub(super) fn register(_globals: &mut Globals) {}
