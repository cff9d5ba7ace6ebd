//! Where each item of the library goes in the package: the module (namespace) and identifier
//! of its types and functions, and their models paired with that namespace.

use super::function::Function;
use super::names;
use super::object::Object;
use super::types::TypeNames;
use super::LANG;
use crate::diagnostics::Diagnostics;
use crate::ir;
use crate::lang::naming::{self, Naming};
use std::collections::{BTreeMap, BTreeSet};

/// Where an item of the package is defined: its identifier and the qualification that names
/// it from anywhere in the package (`""` in a package without namespaces, else `Tvm.ir.`).
#[derive(Clone, Debug, Default)]
pub struct Place {
    /// The identifier in its module.
    pub ident: String,
    /// `Root.ns.` (with the trailing dot), or empty.
    pub prefix: String,
    /// The item is in a namespace below the package root (defined in a submodule).
    pub nested: bool,
    /// A prefix for the package-level constants of this item (`_ffi_init_<infix><ident>`).
    pub infix: String,
}

/// The package's items, each with its namespace (empty for the package root).
pub struct Items {
    /// The object types, in the library's order.
    pub objects: Vec<(Vec<String>, Object)>,
    /// The global functions and module exports, in the library's order.
    pub functions: Vec<(Vec<String>, Function)>,
    /// Method identifiers by namespace (one Julia function per name and module), each with the
    /// item that claimed it.
    pub method_names: BTreeMap<Vec<String>, BTreeMap<String, String>>,
}

impl Items {
    /// Places the types and functions of `lib` in the package `module` and builds their models.
    pub fn place(lib: &ir::Library, module: &str, diags: &mut Diagnostics) -> Items {
        let mut naming = Naming::<names::Julia>::new(&[module, "TVMFFI"]);
        // Without namespaces, names are plain (the package is one module); with them, every
        // reference to a type is qualified from the package root, valid in every submodule.
        let nested_package = lib
            .types
            .iter()
            .map(|t| &t.path)
            .chain(lib.functions.iter().map(|f| &f.path))
            .any(|p| p.len() > 1);
        let place = |ns: &[String], ident: String| Place {
            prefix: if nested_package {
                std::iter::once(module)
                    .chain(ns.iter().map(String::as_str))
                    .map(|s| format!("{s}."))
                    .collect()
            } else {
                String::new()
            },
            nested: !ns.is_empty(),
            infix: ns.iter().map(|s| format!("{s}_")).collect(),
            ident,
        };

        let type_places = naming.place_types(lib, diags);
        let type_names = lib
            .types
            .iter()
            .zip(&type_places)
            .map(|(t, p)| (t.key.clone(), place(&p.ns, p.ident.clone())))
            .collect();
        let types = TypeNames(type_names);
        let mut method_names: BTreeMap<Vec<String>, BTreeMap<String, String>> = BTreeMap::new();
        let by_key: BTreeMap<&str, &ir::ObjectType> =
            lib.types.iter().map(|t| (t.key.as_str(), t)).collect();
        let function_places = naming.place_functions(lib, diags);
        // The globals' names from anywhere in the package, for the members that call them.
        let globals: BTreeMap<String, String> = lib
            .functions
            .iter()
            .zip(&function_places)
            .filter(|(f, _)| f.module.is_none())
            .map(|(f, p)| {
                let at = place(&p.ns, p.ident.clone());
                (f.name.clone(), format!("{}{}", at.prefix, at.ident))
            })
            .collect();
        let mut objects: Vec<(Vec<String>, Object)> = lib
            .types
            .iter()
            .zip(type_places)
            .map(|(t, naming::Place { ns, .. })| {
                // The methods its local ancestors declare, registered or members of their
                // Python API (an own one of the same name overrides).
                let inherited: BTreeSet<&str> = t
                    .ancestors
                    .iter()
                    .filter_map(|a| by_key.get(a.as_str()))
                    .flat_map(|a| {
                        a.methods.iter().map(|m| m.name.as_str()).chain(
                            naming::members(lib, a)
                                .into_iter()
                                .filter(|m| m.kind == ffihub_schema::RoleKind::Method)
                                .map(|m| m.name.as_str()),
                        )
                    })
                    .collect();
                let o = types.object(
                    t,
                    method_names.entry(ns.clone()).or_default(),
                    &inherited,
                    (lib, &globals),
                    diags,
                );
                (ns, o)
            })
            .collect();
        let functions: Vec<(Vec<String>, Function)> = lib
            .functions
            .iter()
            .zip(function_places)
            .map(|(f, naming::Place { ns, ident })| {
                if let Some(method) = method_names.get(&ns).and_then(|m| m.get(&ident)) {
                    diags.error(
                        LANG,
                        &f.name,
                        format!(
                            "its name `{ident}` is also the name of the method `{method}` (one \
                             Julia function); rename one of them"
                        ),
                    );
                }
                let module = f.module.as_deref().map(|l| lib.module_index(l));
                (ns.clone(), types.function(f, place(&ns, ident), module))
            })
            .collect();
        let globals_by_name: BTreeMap<(&[String], &str), &Function> = functions
            .iter()
            .filter(|(_, f)| !f.is_export)
            .map(|(ns, f)| ((ns.as_slice(), f.ident.as_str()), f))
            .collect();
        for (ns, o) in &mut objects {
            o.member_methods.retain_mut(|m| {
                match globals_by_name.get(&(ns.as_slice(), m.ident.as_str())) {
                    // A global of the module with that name is the same Julia function: the
                    // member is left out if it has one of its methods' signatures; else it
                    // gets no fallback (calls could be ambiguous between the two).
                    Some(global) => {
                        let repeats = m.keys.iter().any(|k| global.keys.contains(k));
                        m.drop_fallback();
                        !repeats
                    }
                    // A type, its abstract type or a module of that name is no function.
                    None => !naming.is_taken(ns, &m.ident),
                }
            });
        }
        Items {
            objects,
            functions,
            method_names,
        }
    }
}
