//! Conformance of ffihub's runtime and headers against Apache TVM-FFI.

mod add_one;
mod cxx_modules;
mod cxx_symbols;
mod headers;
mod layouts;
mod scenario;
mod testing_lib;
mod valgrind;
