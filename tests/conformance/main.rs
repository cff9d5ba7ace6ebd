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

use std::path::PathBuf;

/// The C files of a program split by area into the folder `tests/c/<program>/`, in name order.
pub(crate) fn c_sources(program: &str) -> Vec<PathBuf> {
    let dir = ffihub_tests::workspace_root().join("tests/c").join(program);
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|entry| entry.expect("read a C source folder").path())
        .filter(|path| path.extension().is_some_and(|e| e == "c"))
        .collect();
    sources.sort();
    sources
}
