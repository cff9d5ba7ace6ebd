//! Conformance of ffihub's runtime and headers against Apache TVM-FFI.

mod add_one;
mod headers;
mod json_graph;
mod layouts;
mod registry;
mod scenario;
mod structural;
mod testing_lib;
mod valgrind;
