//! The Julia backend: a package (`Project.toml`, `src/<Module>.jl`) on top of the hand-written
//! support package `TVMFFI` (bindings/julia/TVMFFI). Conventions: templates/julia/README.md.

pub mod model;
pub mod names;

use crate::diagnostics::Diagnostics;
use crate::filemap::{banner_text, FileMap};
use crate::ir;
use crate::lang::{render, stable_uuid, Capabilities, Config, Scope};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The backend's name.
pub const LANG: &str = "julia";

/// The UUID of the support package `TVMFFI` (its Project.toml must use the same).
pub const TVMFFI_UUID: &str = "6f0b7d54-4c5e-4d43-9a3e-2b6f3f0a1c11";

/// What the Julia backend expresses.
pub fn capabilities() -> Capabilities {
    Capabilities {
        packed_functions: true,
        objects: true,
        methods: true,
        constructors: true,
        kw_only_params: true,
        callbacks: true,
        containers: true,
        optional: true,
        variant: true,
        tensors: true,
        bigint: true,
        opaque_ptr: true,
    }
}

/// Renders the Julia package of `lib`.
pub fn generate(lib: &ir::Library, cfg: &Config) -> Result<FileMap, Diagnostics> {
    let mut diags = Diagnostics::default();
    let lib = capabilities().filter(lib, LANG, &mut diags);
    let module = names::module(&cfg.name);
    let mut top = Scope::with_reserved(&[module.as_str(), "TVMFFI"]);

    let mut type_names = BTreeMap::new();
    for t in &lib.types {
        let ident = names::type_name(t.path.last().map_or("", String::as_str));
        names::claim(&mut top, &ident, &t.key, &mut diags);
        names::claim(
            &mut top,
            &names::abstract_type_name(&ident),
            &t.key,
            &mut diags,
        );
        type_names.insert(t.key.clone(), ident);
    }
    let types = model::TypeNames(type_names);
    let objects: Vec<model::Object> = lib
        .types
        .iter()
        .map(|t| types.object(t, &mut diags))
        .collect();
    let functions: Vec<model::Function> = lib
        .functions
        .iter()
        .map(|f| {
            let ident = names::value_name(f.path.last().map_or("", String::as_str));
            names::claim(&mut top, &ident, &f.name, &mut diags);
            types.function(f, ident, &mut diags)
        })
        .collect();

    let banner = format!("# {}", banner_text(&lib.libraries, &lib.checksum));
    let mut exports: Vec<String> = objects.iter().map(|o| o.ident.clone()).collect();
    exports.extend(functions.iter().map(|f| f.ident.clone()));
    let package = model::Package {
        banner: banner.clone(),
        module: module.clone(),
        checksum: model::literal(&lib.checksum),
        libraries: lib.libraries.iter().map(|l| model::literal(l)).collect(),
        types: objects,
        functions,
        exports,
    };
    let project = model::Project {
        banner,
        uuid: stable_uuid(&format!("ffihub-julia-{module}")),
        module: module.clone(),
        tvmffi_uuid: TVMFFI_UUID,
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
    let fatal = diags.fatal(&cfg.allow_unsupported);
    if fatal.is_empty() {
        Ok(files)
    } else {
        Err(fatal)
    }
}
