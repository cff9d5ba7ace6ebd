//! The modules of the package: what each exports, and the submodules of a package with
//! namespaces as blocks to print in order.

use super::function::Function;
use super::names;
use super::object::Object;
use super::place::Items;
use super::LANG;
use crate::diagnostics::Diagnostics;
use crate::ir;
use std::collections::{BTreeMap, BTreeSet};

/// One step of printing the submodules (see `blocks`).
#[derive(Default)]
pub struct Block {
    /// Opens a module.
    pub open: Option<ModuleOpen>,
    /// Indices (into `Package::types`) of the module's own types.
    pub types: Vec<usize>,
    /// The module's functions, declared here (with their docstrings) and defined at the end.
    pub stubs: Vec<Stub>,
    /// The module's exported names.
    pub exports: Vec<String>,
    /// Closes the module of this name.
    pub close: Option<String>,
}

/// The start of a submodule.
pub struct ModuleOpen {
    /// Its name.
    pub name: String,
    /// The relative import of the package root (`..Tvm`), which qualified names start from.
    pub root_import: String,
}

/// A function declared without methods (`function add end`), with its docstring.
pub struct Stub {
    /// Identifier.
    pub ident: String,
    /// Docstring lines; empty for none.
    pub doc: Vec<String>,
}

/// What each module exports: types, functions and methods, except names that Base exports (a
/// function of the same name would clash with Base's wherever the module is `using`'d; methods
/// with such names extend Base's function instead).
pub fn exports(items: &Items) -> BTreeMap<Vec<String>, Vec<String>> {
    let mut exports: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for (ns, o) in &items.objects {
        let e = exports.entry(ns.clone()).or_default();
        e.push(o.ident.clone());
        e.push(o.abstract_ident.clone());
    }
    let callables = items
        .functions
        .iter()
        .map(|(ns, f)| (ns, &f.ident))
        .chain(
            items
                .method_names
                .iter()
                .flat_map(|(ns, m)| m.keys().map(move |k| (ns, k))),
        )
        .chain(
            items
                .objects
                .iter()
                .flat_map(|(ns, o)| o.member_methods.iter().map(move |m| (ns, &m.ident))),
        );
    for (ns, ident) in callables {
        let e = exports.entry(ns.clone()).or_default();
        if !names::is_base_export(ident) && !e.contains(ident) {
            e.push(ident.clone());
        }
    }
    exports
}

/// A part of a module: `None` for its own types, `Some(segment)` for a child module.
type Unit = Option<String>;

/// `needs[(module, unit)]`: the units of that module that must be printed before `unit`.
type Needs = BTreeMap<(Vec<String>, Unit), BTreeSet<Unit>>;

/// The submodules of a package with namespaces, as a flat sequence of blocks to print (open a
/// module, its own types and function stubs, close it), nested as the namespaces are. A module
/// block cannot be reopened, and an abstract type needs its supertype defined first, so each
/// module's parts (its own types, its child modules) are ordered by the supertypes they need;
/// a cycle is reported. Functions, constructors and methods are defined after all modules, so
/// their signatures may name any type.
pub fn blocks(
    lib: &ir::Library,
    objects: &[(Vec<String>, Object)],
    functions: &[(Vec<String>, Function)],
    exports: &mut BTreeMap<Vec<String>, Vec<String>>,
    module: &str,
    diags: &mut Diagnostics,
) -> Vec<Block> {
    let mut all: BTreeSet<Vec<String>> = BTreeSet::new();
    for ns in objects
        .iter()
        .map(|(ns, _)| ns)
        .chain(functions.iter().map(|(ns, _)| ns))
    {
        for i in 0..=ns.len() {
            all.insert(ns[..i].to_vec());
        }
    }
    let mut needs = Needs::new();
    let ns_by_key: BTreeMap<&str, &[String]> = lib
        .types
        .iter()
        .zip(objects)
        .map(|(t, (ns, _))| (t.key.as_str(), &ns[..]))
        .collect();
    for t in &lib.types {
        let (Some(&child), Some(&parent)) = (
            ns_by_key.get(t.key.as_str()),
            ns_by_key.get(t.parent.as_str()),
        ) else {
            continue;
        };
        let common = child.iter().zip(parent).take_while(|(a, b)| a == b).count();
        let unit = |ns: &[String]| -> Unit { ns.get(common).cloned() };
        let (a, b) = (unit(child), unit(parent));
        if a != b {
            needs
                .entry((child[..common].to_vec(), a))
                .or_default()
                .insert(b);
        }
    }
    let mut blocks = Vec::new();
    let root_units = order_units(&[], &all, &needs, diags);
    if root_units.first() != Some(&None) && !root_units.is_empty() {
        diags.error(
            LANG,
            module,
            "types at the package root derive from types of a namespace; give them a namespace \
             with a rename map (`--config`)",
        );
    }
    for unit in root_units.into_iter().flatten() {
        emit_block(
            &[unit],
            &all,
            &needs,
            objects,
            functions,
            exports,
            module,
            &mut blocks,
            diags,
        );
    }
    blocks
}

/// The units of namespace `ns` in an order that respects `needs` (own types first when free).
fn order_units(
    ns: &[String],
    all: &BTreeSet<Vec<String>>,
    needs: &Needs,
    diags: &mut Diagnostics,
) -> Vec<Unit> {
    let mut pending: Vec<Unit> = std::iter::once(None)
        .chain(
            all.iter()
                .filter(|n| n.len() == ns.len() + 1 && n.starts_with(ns))
                .map(|n| Some(n[ns.len()].clone())),
        )
        .collect();
    let mut out = Vec::new();
    while !pending.is_empty() {
        let ready = pending.iter().position(|u| {
            needs
                .get(&(ns.to_vec(), u.clone()))
                .is_none_or(|deps| deps.iter().all(|d| out.contains(d)))
        });
        match ready {
            Some(i) => out.push(pending.remove(i)),
            None => {
                diags.error(
                    LANG,
                    &ns.join("."),
                    format!(
                        "the types of the namespaces {} derive from each other in a cycle; Julia \
                         modules cannot be reopened (move some with a rename map, `--config`)",
                        pending
                            .iter()
                            .map(|u| u.clone().unwrap_or_else(|| ns.join(".")))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                out.append(&mut pending);
            }
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn emit_block(
    ns: &[String],
    all: &BTreeSet<Vec<String>>,
    needs: &Needs,
    objects: &[(Vec<String>, Object)],
    functions: &[(Vec<String>, Function)],
    exports: &mut BTreeMap<Vec<String>, Vec<String>>,
    module: &str,
    blocks: &mut Vec<Block>,
    diags: &mut Diagnostics,
) {
    blocks.push(Block {
        open: Some(ModuleOpen {
            name: ns.last().cloned().unwrap_or_default(),
            root_import: format!("{}{module}", ".".repeat(ns.len() + 1)),
        }),
        ..Block::default()
    });
    for unit in order_units(ns, all, needs, diags) {
        match unit {
            None => {
                let mut stubs: Vec<Stub> = Vec::new();
                for (_, f) in functions.iter().filter(|(n, _)| n == ns) {
                    stubs.push(Stub {
                        ident: f.ident.clone(),
                        doc: f.doc.clone(),
                    });
                }
                let mut methods: BTreeSet<&str> = BTreeSet::new();
                for (_, o) in objects.iter().filter(|(n, _)| n == ns) {
                    let idents = o.methods.iter().map(|m| m.ident.as_str());
                    let members = o.member_methods.iter().map(|m| m.ident.as_str());
                    for ident in idents.chain(members) {
                        // A global's stub already declares a member's function.
                        if !names::is_base_export(ident) && !stubs.iter().any(|s| s.ident == ident)
                        {
                            methods.insert(ident);
                        }
                    }
                }
                stubs.extend(methods.into_iter().map(|m| Stub {
                    ident: m.to_string(),
                    doc: Vec::new(),
                }));
                blocks.push(Block {
                    types: objects
                        .iter()
                        .enumerate()
                        .filter(|(_, (n, _))| n == ns)
                        .map(|(i, _)| i)
                        .collect(),
                    stubs,
                    exports: exports.remove(ns).unwrap_or_default(),
                    ..Block::default()
                });
            }
            Some(child) => {
                let mut path = ns.to_vec();
                path.push(child);
                emit_block(
                    &path, all, needs, objects, functions, exports, module, blocks, diags,
                );
            }
        }
    }
    blocks.push(Block {
        close: ns.last().cloned(),
        ..Block::default()
    });
}
