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
use crate::lang::naming::Naming;
use crate::lang::{render, Capabilities, Config};

/// The backend's name.
pub const LANG: &str = "cpp";

/// The support header that generated code includes.
pub const SUPPORT_HEADER: &str = "ffihub/ffihub.hpp";

/// What the C++ backend expresses: everything. Keyword-only and defaulted constructor
/// parameters become C++ parameters (defaulted ones `std::optional`, last) passed by keyword.
pub const CAPABILITIES: Capabilities = Capabilities::ALL;

/// Renders the C++ header of `lib`.
pub fn generate(lib: &ir::Library, cfg: &Config) -> Result<FileMap, Diagnostics> {
    let mut diags = Diagnostics::default();
    // The load-time check describes the whole library, before the capability filter.
    let mut manifest: Vec<String> = ir::manifest::lines(lib)
        .iter()
        .flat_map(|line| model::literal_pieces(&format!("{line}\n")))
        .collect();
    if manifest.is_empty() {
        manifest.push(model::literal(""));
    }
    let lib = CAPABILITIES.filter(lib, LANG, &mut diags);
    let namespace = names::namespace(&cfg.name);
    // Every namespace reserves `detail` (the header's internals) and the support library's
    // namespaces, so that unqualified `detail::` and `ffihub::` always mean those.
    let mut naming = Naming::<names::Cpp>::new(&["detail", "ffihub", "std"]);
    let qualified_ns = |ns: &[String]| -> String {
        std::iter::once(namespace.as_str())
            .chain(ns.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("::")
    };
    let class_places = naming.place_types(&lib, &mut diags);
    let classes = lib
        .types
        .iter()
        .zip(&class_places)
        .map(|(t, p)| {
            let qualified = format!("::{}::{}", qualified_ns(&p.ns), p.ident);
            (t.key.clone(), qualified)
        })
        .collect();
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
    let class_models = lib
        .types
        .iter()
        .zip(&class_places)
        .map(|(t, place)| types.class(&lib, t, place.ident.clone(), &mut diags))
        .collect();
    // A function's options struct is named next to it, in its namespace.
    let mut function_models = Vec::new();
    let function_places = naming.place_functions_with(&lib, &mut diags, |i, place| {
        let function = types.function(&lib.functions[i], place.ident.clone());
        let options = function.options.as_ref().map(|o| o.ident.clone());
        function_models.push(function);
        options
    });
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
    let class_namespaces: Vec<&[String]> = class_places.iter().map(|p| &p.ns[..]).collect();
    let function_namespaces: Vec<&[String]> = function_places.iter().map(|p| &p.ns[..]).collect();
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
    diags.result(files, &cfg.allow_unsupported)
}
