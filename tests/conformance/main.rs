//! Conformance of ffihub's runtime and headers against Apache TVM-FFI.

mod add_one;
mod cxx_modules;
mod cxx_symbols;
mod headers;
mod json_graph;
mod layouts;
mod legacy_layouts;
mod registry;
mod scenario;
mod structural;
mod testing_lib;
mod thread_stress;
mod valgrind;
