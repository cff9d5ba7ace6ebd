//! (being written)

use crate::dlpack::DLTensor;
use crate::error::Error;
use crate::object::ObjectRef;

/// `TVMFFIEnvTensorAlloc`: a Tensor like `prototype` from the current DLPack allocator.
pub fn env_tensor_alloc(_prototype: &DLTensor) -> Result<ObjectRef, Error> {
    Err(Error::new(
        "RuntimeError",
        "TVMFFIEnvTensorAlloc is not implemented yet in the ffihub runtime",
    ))
}
