//! The load-time check manifest (ADR 0020): what a generated package expects from its library,
//! one line per item, computed once here and written verbatim by every backend. Each support
//! package spells the same lines from the live reflection of the loaded library
//! (`ffihub/metadata.hpp` `Library::live_line`, `metadata.js` `liveLine`) and reports the lines
//! that differ.
//!
//! It is computed from the library before any backend's capability filter: it describes the
//! library the package was generated from, the same in every language. Types are spelled like
//! the IR's `Display` (the library's types, before any narrowing by the signature overlay).
//!
//! ```text
//! f <function> <signature or "packed">
//! t <type key> <parent type key>
//! d <type key> <field> <rw|ro> <type>     (`?`: untyped; only the access is compared)
//! m <type key> <method> <static|instance> <signature or "packed">   (without `self`)
//! c <type key> init_method <(parameter types)>
//! c <type key> auto_init
//! ```
//!
//! Module exports (`__tvm_ffi_<name>` symbols) are checked where each package loads the module.

use std::collections::BTreeSet;

use super::{ConstructorKind, Library, Signature};

/// The manifest lines of `lib`, in order: its global functions, then each type with its own
/// fields, methods (once per name) and constructor.
pub fn lines(lib: &Library) -> Vec<String> {
    let mut lines = Vec::new();
    for f in lib.functions.iter().filter(|f| f.module.is_none()) {
        lines.push(format!("f {} {}", f.name, callable(f.signature.as_ref())));
    }
    for t in &lib.types {
        lines.push(format!("t {} {}", t.key, t.parent));
        for f in &t.fields {
            let access = if f.writable { "rw" } else { "ro" };
            if f.untyped {
                lines.push(format!("d {} {} {access} ?", t.key, f.name));
            } else {
                lines.push(format!("d {} {} {access} {}", t.key, f.name, f.ty));
            }
        }
        let mut seen = BTreeSet::new();
        for m in t.methods.iter().filter(|m| seen.insert(m.name.as_str())) {
            let kind = if m.is_static { "static" } else { "instance" };
            let sig = callable(m.signature.as_ref());
            lines.push(format!("m {} {} {kind} {sig}", t.key, m.name));
        }
        match &t.constructor {
            Some(c) if c.kind == ConstructorKind::InitMethod => {
                let types: Vec<String> = c
                    .params
                    .iter()
                    .map(|p| p.declared_ty().to_string())
                    .collect();
                lines.push(format!("c {} init_method ({})", t.key, types.join(", ")));
            }
            Some(_) => lines.push(format!("c {} auto_init", t.key)),
            None => {}
        }
    }
    lines
}

/// A signature as the manifest spells it: `(int, str) -> int`, or `packed`.
fn callable(sig: Option<&Signature>) -> String {
    sig.map_or_else(|| "packed".to_string(), ToString::to_string)
}
