//! The Julia backend: a package (`Project.toml`, `src/<Module>.jl`, `test/runtests.jl`) on top of the hand-written
//! support package `TVMFFI` (bindings/julia/TVMFFI). Conventions: templates/julia/README.md.

mod arguments;
pub mod base_names;
pub mod model;
pub mod names;
pub mod signature;

use crate::diagnostics::Diagnostics;
use crate::filemap::{banner_text, FileMap};
use crate::ir;
use crate::lang::naming::{Naming, Place};
use crate::lang::{render, stable_uuid, Capabilities, Config};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The backend's name.
pub const LANG: &str = "julia";

/// The UUID of the support package `TVMFFI` (bindings/julia/TVMFFI/Project.toml).
pub const TVMFFI_UUID: &str = "4dc22cd8-4ca7-4bc0-868b-9a36b89f7c61";

/// What the Julia backend expresses.
pub const CAPABILITIES: Capabilities = Capabilities::ALL;

/// Renders the Julia package of `lib`.
pub fn generate(lib: &ir::Library, cfg: &Config) -> Result<FileMap, Diagnostics> {
    let mut diags = Diagnostics::default();
    let lib = CAPABILITIES.filter(lib, LANG, &mut diags);
    let module = names::module(&cfg.name);
    let mut naming = Naming::<names::Julia>::new(&[module.as_str(), "TVMFFI"]);
    // Without namespaces, names are plain (the package is one module); with them, every
    // reference to a type is qualified from the package root, valid in every submodule.
    let nested_package = lib
        .types
        .iter()
        .map(|t| &t.path)
        .chain(lib.functions.iter().map(|f| &f.path))
        .any(|p| p.len() > 1);
    let place = |ns: &[String], ident: String| model::Place {
        prefix: if nested_package {
            std::iter::once(module.as_str())
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

    let type_places = naming.place_types(&lib, &mut diags);
    let type_names = lib
        .types
        .iter()
        .zip(&type_places)
        .map(|(t, p)| (t.key.clone(), place(&p.ns, p.ident.clone())))
        .collect();
    let types = model::TypeNames(type_names);
    // Method identifiers by namespace (one Julia function per name and module).
    let mut method_names: BTreeMap<Vec<String>, BTreeMap<String, String>> = BTreeMap::new();
    let by_key: BTreeMap<&str, &ir::ObjectType> =
        lib.types.iter().map(|t| (t.key.as_str(), t)).collect();
    let objects: Vec<(Vec<String>, model::Object)> = lib
        .types
        .iter()
        .zip(type_places)
        .map(|(t, Place { ns, .. })| {
            // The methods its local ancestors declare (an own one of the same name overrides).
            let inherited: BTreeSet<&str> = t
                .ancestors
                .iter()
                .filter_map(|a| by_key.get(a.as_str()))
                .flat_map(|a| a.methods.iter().map(|m| m.name.as_str()))
                .collect();
            let o = types.object(
                t,
                method_names.entry(ns.clone()).or_default(),
                &inherited,
                &mut diags,
            );
            (ns, o)
        })
        .collect();
    let function_places = naming.place_functions(&lib, &mut diags);
    let functions: Vec<(Vec<String>, model::Function)> = lib
        .functions
        .iter()
        .zip(function_places)
        .map(|(f, Place { ns, ident })| {
            if let Some(method) = method_names.get(&ns).and_then(|m| m.get(&ident)) {
                diags.error(
                    LANG,
                    &f.name,
                    format!(
                        "its name `{ident}` is also the name of the method `{method}` (one Julia \
                         function); rename one of them"
                    ),
                );
            }
            let module = f.module.as_deref().map(|l| lib.module_index(l));
            (ns.clone(), types.function(f, place(&ns, ident), module))
        })
        .collect();

    // Exported from each module: types, functions and methods, except names that Base exports
    // (a function of the same name would clash with Base's wherever the module is `using`'d;
    // methods with such names extend Base's function instead).
    let mut exports: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for (ns, o) in &objects {
        let e = exports.entry(ns.clone()).or_default();
        e.push(o.ident.clone());
        e.push(o.abstract_ident.clone());
    }
    let callables = functions.iter().map(|(ns, f)| (ns, &f.ident)).chain(
        method_names
            .iter()
            .flat_map(|(ns, m)| m.keys().map(move |k| (ns, k))),
    );
    for (ns, ident) in callables {
        let e = exports.entry(ns.clone()).or_default();
        if !names::is_base_export(ident) && !e.contains(ident) {
            e.push(ident.clone());
        }
    }
    let blocks = namespace_blocks(
        &lib,
        &objects,
        &functions,
        &mut exports,
        &module,
        &mut diags,
    );
    let exports = exports.remove(&Vec::new()).unwrap_or_default();
    let (objects, functions): (Vec<model::Object>, Vec<model::Function>) = (
        objects.into_iter().map(|(_, o)| o).collect(),
        functions.into_iter().map(|(_, f)| f).collect(),
    );

    let banner = format!("# {}", banner_text(&lib.libraries, &lib.checksum));
    let files_list = if lib.libraries.is_empty() {
        "its libraries".to_string()
    } else {
        lib.libraries
            .iter()
            .map(|l| format!("`{l}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let doc = format!(
        "Julia bindings of the TVM-FFI library {files_list}, generated by ffihub from its \
         reflection metadata ({checksum}). Loading the package opens the library: from this \
         package's `lib/` folder, else the folders in `ENV[\"FFIHUB_LIBRARY_PATH\"]`, else the \
         system loader's search; the TVM-FFI runtime is the one `TVMFFI` opened (see \
         `TVMFFI.library_path`). Then it checks that the library still has the functions and \
         types the package was generated from.",
        checksum = lib.checksum
    );
    let lib_args: String = lib
        .libraries
        .iter()
        .map(|l| format!(" --lib path/to/{l}"))
        .collect();
    // Names as the test file sees them: `def_name` is relative to the package root unless it
    // is in a namespace, where it already starts with the module.
    let qualified = |def_name: &str| {
        if def_name.starts_with(&format!("{module}.")) {
            def_name.to_string()
        } else {
            format!("{module}.{def_name}")
        }
    };
    let smoke = model::Smoke {
        banner: banner.clone(),
        module: module.clone(),
        functions: functions
            .iter()
            .filter(|f| !f.is_export)
            .map(|f| (qualified(&f.def_name), f.ffi_name.clone()))
            .collect(),
        exports: functions
            .iter()
            .filter(|f| f.is_export)
            .map(|f| qualified(&f.def_name))
            .collect(),
        types: objects
            .iter()
            .map(|o| {
                let prefix = o.def_name.strip_suffix(&o.ident).unwrap_or_default();
                (
                    qualified(&o.def_name),
                    qualified(&format!("{prefix}{}", o.abstract_ident)),
                )
            })
            .collect(),
    };
    let package = model::Package {
        banner: banner.clone(),
        module_literal: model::literal(&module),
        doc: model::docstring(std::slice::from_ref(&module), &[model::prose(&doc)]),
        checksum: model::literal(&lib.checksum),
        libraries: lib.libraries.iter().map(|l| model::literal(l)).collect(),
        regenerate: model::literal(&format!(
            "ffihub generate --lang julia --name {}{lib_args} --out ",
            cfg.name
        )),
        check_functions: lib
            .functions
            .iter()
            .filter(|f| f.module.is_none())
            .map(|f| {
                let sig = f
                    .signature
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                (model::literal(&f.name), model::literal(&sig))
            })
            .collect(),
        check_types: lib
            .types
            .iter()
            .map(|t| {
                let members = model::check_members(t)
                    .iter()
                    .map(|m| model::literal(m))
                    .collect();
                (model::literal(&t.key), members)
            })
            .collect(),
        modules: lib
            .module_libraries()
            .into_iter()
            .map(|library| model::ModuleCheck {
                library: lib.libraries.iter().position(|l| l == library).unwrap_or(0) + 1,
                exports: lib
                    .functions
                    .iter()
                    .filter(|f| f.module.as_deref() == Some(library))
                    .map(|f| {
                        let sig = f.signature.as_ref().map(ToString::to_string);
                        (
                            model::literal(&f.name),
                            model::literal(&sig.unwrap_or_default()),
                        )
                    })
                    .collect(),
            })
            .collect(),
        types: objects,
        functions,
        exports,
        blocks,
        module: module.clone(),
    };
    let project = model::Project {
        banner,
        uuid: stable_uuid(&format!("ffihub-julia-{module}")),
        module: module.clone(),
        tvmffi_uuid: TVMFFI_UUID,
        version: cfg.package.version().to_string(),
    };
    let mut files = FileMap::new();
    files.insert(
        PathBuf::from("Project.toml"),
        render(&project, LANG, &cfg.name, &mut diags),
    );
    files.insert(
        PathBuf::from(format!("src/{module}.jl")),
        render(&package, LANG, &cfg.name, &mut diags),
    );
    files.insert(
        PathBuf::from("test/runtests.jl"),
        render(&smoke, LANG, &cfg.name, &mut diags),
    );
    diags.result(files, &cfg.allow_unsupported)
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
fn namespace_blocks(
    lib: &ir::Library,
    objects: &[(Vec<String>, model::Object)],
    functions: &[(Vec<String>, model::Function)],
    exports: &mut BTreeMap<Vec<String>, Vec<String>>,
    module: &str,
    diags: &mut Diagnostics,
) -> Vec<model::Block> {
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
    objects: &[(Vec<String>, model::Object)],
    functions: &[(Vec<String>, model::Function)],
    exports: &mut BTreeMap<Vec<String>, Vec<String>>,
    module: &str,
    blocks: &mut Vec<model::Block>,
    diags: &mut Diagnostics,
) {
    blocks.push(model::Block {
        open: Some(model::ModuleOpen {
            name: ns.last().cloned().unwrap_or_default(),
            root_import: format!("{}{module}", ".".repeat(ns.len() + 1)),
        }),
        ..model::Block::default()
    });
    for unit in order_units(ns, all, needs, diags) {
        match unit {
            None => {
                let mut stubs: Vec<model::Stub> = Vec::new();
                for (_, f) in functions.iter().filter(|(n, _)| n == ns) {
                    stubs.push(model::Stub {
                        ident: f.ident.clone(),
                        doc: f.doc.clone(),
                    });
                }
                let mut methods: BTreeSet<&str> = BTreeSet::new();
                for (_, o) in objects.iter().filter(|(n, _)| n == ns) {
                    for m in &o.methods {
                        if !names::is_base_export(&m.ident) {
                            methods.insert(&m.ident);
                        }
                    }
                }
                stubs.extend(methods.into_iter().map(|m| model::Stub {
                    ident: m.to_string(),
                    doc: Vec::new(),
                }));
                blocks.push(model::Block {
                    types: objects
                        .iter()
                        .enumerate()
                        .filter(|(_, (n, _))| n == ns)
                        .map(|(i, _)| i)
                        .collect(),
                    stubs,
                    exports: exports.remove(ns).unwrap_or_default(),
                    ..model::Block::default()
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
    blocks.push(model::Block {
        close: ns.last().cloned(),
        ..model::Block::default()
    });
}
