//! Conformance of ffihub's runtime and headers against Apache TVM-FFI.

mod headers;
mod layouts;
