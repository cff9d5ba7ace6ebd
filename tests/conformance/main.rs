//! Conformance of ffihub's runtime and headers against Apache TVM-FFI.

mod add_one;
mod headers;
mod layouts;
mod registry;
mod scenario;
mod testing_lib;
mod valgrind;
