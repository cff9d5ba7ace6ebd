//! The C++ backend: header-only files on top of the hand-written support headers
//! (bindings/cpp/include): one header, or one per namespace and an umbrella header (see
//! `headers.rs`). Conventions: templates/cpp/README.md.

mod headers;
pub mod model;
pub mod names;
pub mod signature;

use crate::diagnostics::Diagnostics;
use crate::filemap::{banner_text, FileMap};
use crate::ir;
use crate::lang::{self, render, Capabilities, Config, Namespaces};
use std::collections::BTreeMap;

/// The backend's name.
pub const LANG: &str = "cpp";

/// The support header that generated code includes.
pub const SUPPORT_HEADER: &str = "ffihub/ffihub.hpp";

/// What the C++ backend expresses: everything. Keyword-only and defaulted constructor
/// parameters become C++ parameters (defaulted ones `std::optional`, last) passed by keyword.
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

/// Renders the C++ header of `lib`.
pub fn generate(lib: &ir::Library, cfg: &Config) -> Result<FileMap, Diagnostics> {
    let mut diags = Diagnostics::default();
    let lib = capabilities().filter(lib, LANG, &mut diags);
    let namespace = names::namespace(&cfg.name);
    // Every namespace reserves `detail` (the header's internals) and the support library's
    // namespaces, so that unqualified `detail::` and `ffihub::` always mean those.
    let mut scopes = Namespaces::new(&["detail", "ffihub", "std"], false);
    let ns_idents = |path: &[String]| -> Vec<String> {
        lang::namespace_of(path)
            .iter()
            .map(|s| names::namespace_segment(s))
            .collect()
    };
    let qualified_ns = |ns: &[String]| -> String {
        std::iter::once(namespace.as_str())
            .chain(ns.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("::")
    };
    let mut classes = BTreeMap::new();
    let mut class_places = Vec::new();
    for t in &lib.types {
        let ident = names::class(t.path.last().map_or("", String::as_str));
        let ns = ns_idents(&t.path);
        names::claim(
            scopes.scope(&ns, LANG, &mut diags),
            &ident,
            &t.key,
            &mut diags,
        );
        classes.insert(t.key.clone(), format!("::{}::{ident}", qualified_ns(&ns)));
        class_places.push((ns, ident));
    }
    let types = model::Types(classes);
    let file_name = format!("{namespace}.hpp");
    let libraries = lib.libraries.join(", ");
    let lib_args: String = lib
        .libraries
        .iter()
        .map(|l| format!(" --lib <path of {l}>"))
        .collect();
    let regenerate = format!(
        "ffihub generate --lang cpp --name {}{lib_args} --out <folder of {file_name}>",
        cfg.name
    );
    let mut manifest: Vec<String> = model::manifest(&lib)
        .iter()
        .map(|line| model::literal(&format!("{line}\n")))
        .collect();
    if manifest.is_empty() {
        manifest.push(model::literal(""));
    }
    let class_models = lib
        .types
        .iter()
        .zip(&class_places)
        .map(|(t, (_, ident))| types.class(t, ident.clone(), &mut diags))
        .collect();
    let function_idents = lang::function_idents(
        &lib,
        names::value,
        names::namespace_segment,
        names::namespace_segment,
        |segment| vec![names::class(segment)],
        false,
    );
    let mut function_places = Vec::new();
    let function_models = lib
        .functions
        .iter()
        .zip(function_idents)
        .map(|(f, ident)| {
            let ns = ns_idents(&f.path);
            let scope = scopes.scope(&ns, LANG, &mut diags);
            names::claim(scope, &ident, &f.name, &mut diags);
            let function = types.function(f, ident);
            if let Some(o) = &function.options {
                names::claim(scope, &o.ident, &f.name, &mut diags);
            }
            function_places.push(ns);
            function
        })
        .collect();
    let library = model::Library {
        banner: format!("// {}", banner_text(&lib.libraries, &lib.checksum)),
        support_header: SUPPORT_HEADER,
        file_name: model::literal(&file_name),
        checksum: model::literal(&lib.checksum),
        libraries: model::literal(&libraries),
        regenerate: model::literal(&regenerate),
        manifest,
        classes: class_models,
        functions: function_models,
        namespace: namespace.clone(),
    };
    let class_namespaces: Vec<&[String]> = class_places.iter().map(|(ns, _)| &ns[..]).collect();
    let function_namespaces: Vec<&[String]> = function_places.iter().map(|ns| &ns[..]).collect();
    let headers = headers::layout(
        &library,
        &class_namespaces,
        &function_namespaces,
        &qualified_ns,
    );
    let mut files = FileMap::new();
    for (path, header) in headers {
        files.insert(path, render(&header, LANG, &cfg.name, &mut diags));
    }
    let fatal = diags.fatal(&cfg.allow_unsupported);
    if fatal.is_empty() {
        Ok(files)
    } else {
        Err(fatal)
    }
}
