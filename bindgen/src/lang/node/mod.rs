//! The Node backend: a package (`package.json`, `index.js`, `index.d.ts`) on top of the
//! hand-written support package (bindings/node). Conventions: templates/node/README.md.

pub mod model;
pub mod names;

use crate::diagnostics::Diagnostics;
use crate::filemap::{banner_text, FileMap};
use crate::ir;
use crate::lang::{render, Capabilities, Config, Scope};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The backend's name.
pub const LANG: &str = "node";

/// The npm name of the support package that generated code requires.
pub const SUPPORT_PACKAGE: &str = "@ffihub/tvm-ffi";

/// What the Node backend expresses.
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

/// Renders the Node package of `lib`.
pub fn generate(lib: &ir::Library, cfg: &Config) -> Result<FileMap, Diagnostics> {
    let mut diags = Diagnostics::default();
    // The load-time check describes the whole library, before the capability filter.
    let manifest = model::manifest(lib);
    let lib = capabilities().filter(lib, LANG, &mut diags);
    let mut top = Scope::with_reserved(&["ffi"]);
    let mut classes = BTreeMap::new();
    for t in &lib.types {
        let ident = names::class(t.path.last().map_or("", String::as_str));
        names::claim(&mut top, &ident, &t.key, &mut diags);
        classes.insert(t.key.clone(), ident);
    }
    let types = model::Types(classes);
    let module = model::Module {
        banner: format!("// {}", banner_text(&lib.libraries, &lib.checksum)),
        support: model::literal(SUPPORT_PACKAGE),
        checksum: model::literal(&lib.checksum),
        libraries: lib.libraries.iter().map(|l| model::literal(l)).collect(),
        manifest,
        classes: lib
            .types
            .iter()
            .map(|t| types.class(t, &mut diags))
            .collect(),
        functions: lib
            .functions
            .iter()
            .map(|f| {
                let ident = names::value(f.path.last().map_or("", String::as_str));
                names::claim(&mut top, &ident, &f.name, &mut diags);
                types.function(f, ident, &mut diags)
            })
            .collect(),
    };
    let json = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    let package = model::PackageJson {
        banner: json(&banner_text(&lib.libraries, &lib.checksum)),
        name: json(&names::package(&cfg.name)),
        support: json(SUPPORT_PACKAGE),
    };
    let mut files = FileMap::new();
    files.insert(
        PathBuf::from("package.json"),
        render(&package, LANG, &cfg.name, &mut diags),
    );
    files.insert(
        PathBuf::from("index.js"),
        render(&model::IndexJs { m: &module }, LANG, &cfg.name, &mut diags),
    );
    files.insert(
        PathBuf::from("index.d.ts"),
        render(&model::IndexDts { m: &module }, LANG, &cfg.name, &mut diags),
    );
    let fatal = diags.fatal(&cfg.allow_unsupported);
    if fatal.is_empty() {
        Ok(files)
    } else {
        Err(fatal)
    }
}
