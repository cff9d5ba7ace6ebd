//! The lists the package's load-time check (`TVMFFI.check_package`) compares with the live
//! library: the functions, the types' members and the modules' exports it was generated from.

use super::text::literal;
use crate::ir;

/// What the load-time check compares: functions (`name`, normalized signature), as Julia string
/// literals.
pub fn functions(lib: &ir::Library) -> Vec<(String, String)> {
    lib.functions
        .iter()
        .filter(|f| f.module.is_none())
        .map(|f| {
            let sig = f
                .signature
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default();
            (literal(&f.name), literal(&sig))
        })
        .collect()
}

/// What the load-time check compares: types (`key`, declared members), as Julia string
/// literals.
pub fn types(lib: &ir::Library) -> Vec<(String, Vec<String>)> {
    lib.types
        .iter()
        .map(|t| {
            let members = members(t).iter().map(|m| literal(m)).collect();
            (literal(&t.key), members)
        })
        .collect()
}

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

/// What the load-time check compares for a type: what it declares itself, one line each
/// (`TVMFFI.check_package` spells the live library the same way).
fn members(t: &ir::ObjectType) -> Vec<String> {
    let mut out: Vec<String> = t
        .fields
        .iter()
        .map(|f| {
            let access = if f.writable { " (writable)" } else { "" };
            if f.untyped {
                format!("field {}: ?{access}", f.name)
            } else {
                format!("field {}: {}{access}", f.name, f.ty)
            }
        })
        .collect();
    out.extend(t.methods.iter().map(|m| {
        let kind = if m.is_static { "static" } else { "method" };
        let sig = m
            .signature
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        format!("{kind} {}: {sig}", m.name)
    }));
    out
}
