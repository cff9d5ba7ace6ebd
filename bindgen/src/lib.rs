//! `ffihub-bindgen`: the generator behind the `ffihub` binary.
//!
//! Pipeline: reflection ([`dump`] from a runtime, or a document read with `ffihub-schema`) ->
//! [`ir`] (normalized, sorted) -> per-language view models and askama templates
//! ([`lang`]) -> [`filemap::FileMap`] -> disk. See docs/adr/0003-generator-metadata.md.

pub mod cli;
pub mod diagnostics;
pub mod dump;
pub mod filemap;
pub mod harvest;
pub mod ir;
pub mod lang;

use diagnostics::Diagnostics;
use filemap::FileMap;
use std::path::PathBuf;

/// Generates `backends` for `lib`. With one backend its files are at the top of the output;
/// with several, each backend's files go to a subfolder named after it. Every backend runs
/// even if an earlier one failed, so all diagnostics are reported together.
pub fn generate(
    lib: &ir::Library,
    backends: &[&lang::Backend],
    cfg: &lang::Config,
) -> Result<FileMap, Diagnostics> {
    let mut files = FileMap::new();
    let mut diags = Diagnostics::default();
    for backend in backends {
        match (backend.generate)(lib, cfg) {
            Ok(out) => {
                for (path, text) in out {
                    let path = if backends.len() > 1 {
                        PathBuf::from(backend.name).join(path)
                    } else {
                        path
                    };
                    files.insert(path, text);
                }
            }
            Err(d) => diags.extend(d),
        }
    }
    if diags.is_empty() {
        Ok(files)
    } else {
        Err(diags)
    }
}
