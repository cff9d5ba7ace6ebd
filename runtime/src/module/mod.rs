//! (being written)

use crate::error::Error;

/// `TVMFFIEnvModLookupFromImports`: finds `name` for the module behind a library context.
pub fn lookup_from_imports(
    _library_ctx: *mut std::ffi::c_void,
    _name: &[u8],
) -> Result<*mut crate::abi::TVMFFIObject, Error> {
    Err(Error::new(
        "RuntimeError",
        "TVMFFIEnvModLookupFromImports is not implemented yet in the ffihub runtime",
    ))
}
