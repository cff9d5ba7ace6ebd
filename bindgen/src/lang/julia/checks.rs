//! The modules' exports the package checks where it loads them (`TVMFFI.load_package_modules!`).
//! The functions and types are checked through the IR's manifest (`ir::manifest`, ADR 0020).

use super::text::literal;
use crate::ir;

/// The libraries loaded as modules, in order, with the exports expected of each.
pub fn modules(lib: &ir::Library) -> Vec<ModuleCheck> {
    lib.module_libraries()
        .into_iter()
        .map(|library| ModuleCheck {
            library: lib.libraries.iter().position(|l| l == library).unwrap_or(0) + 1,
            exports: lib
                .functions
                .iter()
                .filter(|f| f.module.as_deref() == Some(library))
                .map(|f| {
                    let sig = f.signature.as_ref().map(ToString::to_string);
                    (literal(&f.name), literal(&sig.unwrap_or_default()))
                })
                .collect(),
        })
        .collect()
}

/// A library loaded as a module, and the exports the load-time check expects of it.
pub struct ModuleCheck {
    /// The library's position in `Package::libraries`, 1-based.
    pub library: usize,
    /// Export names and normalized signatures (`""` when untyped), as Julia string literals.
    pub exports: Vec<(String, String)>,
}
