//! The Julia backend: a package (`Project.toml`, `src/<Module>.jl`, `test/runtests.jl`) on top of the hand-written
//! support package `TVMFFI` (bindings/julia/TVMFFI). Conventions: templates/julia/README.md.
//!
//! The steps, a module each: place the library's items in the package's modules and build
//! their models (`place`: types in `object`, functions in `function`, spelled by `types`,
//! `signature`, `arguments`, `text` and `names`), work out what each module exports and how
//! the submodules nest (`namespaces`), and render the files (`package`, with the load-time
//! check lists of `checks`).

mod arguments;
pub mod base_names;
mod checks;
mod function;
mod members;
pub mod names;
mod namespaces;
mod object;
mod package;
mod place;
pub mod signature;
mod text;
mod types;

use crate::diagnostics::Diagnostics;
use crate::filemap::FileMap;
use crate::ir;
use crate::lang::{Capabilities, Config};

/// The backend's name.
pub const LANG: &str = "julia";

/// The UUID of the support package `TVMFFI` (bindings/julia/TVMFFI/Project.toml).
pub const TVMFFI_UUID: &str = "4dc22cd8-4ca7-4bc0-868b-9a36b89f7c61";

/// The Julia versions a generated package (and `TVMFFI`, whose Project.toml says the same) is
/// written for: every minor version from 1.5 (the tested one) to 1.12 (the newest reviewed,
/// docs/julia.md "Julia versions"). Minor by minor (`~`), so that Pkg does not promise a newer
/// Julia that no one has checked.
pub const JULIA_COMPAT: &str = "~1.5, ~1.6, ~1.7, ~1.8, ~1.9, ~1.10, ~1.11, ~1.12";

/// What the Julia backend expresses.
pub const CAPABILITIES: Capabilities = Capabilities::ALL;

/// Renders the Julia package of `lib`.
pub fn generate(lib: &ir::Library, cfg: &Config) -> Result<FileMap, Diagnostics> {
    let mut diags = Diagnostics::default();
    let lib = CAPABILITIES.filter(lib, LANG, &mut diags);
    let module = names::module(&cfg.name);
    let items = place::Items::place(&lib, &module, &mut diags);
    let mut exports = namespaces::exports(&items);
    let blocks = namespaces::blocks(
        &lib,
        &items.objects,
        &items.functions,
        &mut exports,
        &module,
        &mut diags,
    );
    let exports = exports.remove(&Vec::new()).unwrap_or_default();
    let files = package::files(&lib, cfg, &module, items, exports, blocks, &mut diags);
    diags.result(files, &cfg.allow_unsupported)
}

#[cfg(test)]
mod tests {
    /// `TVMFFI`'s own bounds are the generated packages' (a package cannot load where its
    /// support package does not).
    #[test]
    fn tvmffi_has_the_same_julia_compat() {
        let project = include_str!("../../../../bindings/julia/TVMFFI/Project.toml");
        let line = format!("julia = \"{}\"", super::JULIA_COMPAT);
        assert!(project.lines().any(|l| l == line), "{line}");
    }
}
