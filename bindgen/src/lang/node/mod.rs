//! The Node backend: a package (`package.json`, `index.js`, `index.d.ts`) on top of the
//! hand-written support package (bindings/node). Conventions: templates/node/README.md.

mod calls;
pub mod model;
pub mod names;
pub mod platform;
pub mod signature;

use crate::diagnostics::Diagnostics;
use crate::filemap::{banner_text, FileMap};
use crate::ir;
use crate::lang::{self, render, Capabilities, Config, Namespaces};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The backend's name.
pub const LANG: &str = "node";

/// The npm name of the support package that generated code requires.
pub const SUPPORT_PACKAGE: &str = "@ffihub/tvm-ffi";

/// The support package's version that generated code is written for: ffihub's own (the support
/// package, bindings/node/package.json, is released with it). Packages require a caret range of it.
pub const SUPPORT_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The package's exports as `index.d.ts` names them (`import * as __ffiRoot from './index'`),
/// so that no namespace of the package can shadow another.
pub const ROOT: &str = "__ffiRoot";

/// The package's exports in `index.js`: namespaces and items are assigned as `exports.x...`,
/// which Node's CommonJS lexer sees, so that ES modules can import them by name.
pub const JS_ROOT: &str = "exports";

/// `path` (a `ROOT` path) as `index.js` spells it.
pub fn js_path(path: &str) -> String {
    match path.strip_prefix(ROOT) {
        Some(rest) => format!("{JS_ROOT}{rest}"),
        None => path.to_string(),
    }
}

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
    let modules = model::module_exports(lib);
    let module_libraries: Vec<String> = lib
        .module_libraries()
        .into_iter()
        .map(String::from)
        .collect();
    let lib = capabilities().filter(lib, LANG, &mut diags);
    let mut scopes = Namespaces::new(&[], false);
    let ns_idents = |path: &[String]| -> Vec<String> {
        lang::namespace_of(path)
            .iter()
            .map(|s| names::namespace_segment(s))
            .collect()
    };
    let object_path = |ns: &[String], ident: &str| -> String {
        std::iter::once(ROOT)
            .chain(ns.iter().map(String::as_str))
            .chain(std::iter::once(ident))
            .collect::<Vec<_>>()
            .join(".")
    };
    let decl = |ns: &[String]| {
        if ns.is_empty() {
            "export declare "
        } else {
            "export "
        }
    };
    let mut namespaces: Vec<Vec<String>> = Vec::new();
    let mut note_namespace = |ns: &[String]| {
        for i in 1..=ns.len() {
            if !namespaces.iter().any(|n| n[..] == ns[..i]) {
                namespaces.push(ns[..i].to_vec());
            }
        }
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
        note_namespace(&ns);
        classes.insert(t.key.clone(), object_path(&ns, &ident));
        class_places.push((ns, ident));
    }
    let types = model::Types(classes);
    let mut function_places = Vec::new();
    let functions: Vec<model::Function> = lib
        .functions
        .iter()
        .zip(lang::function_idents(
            &lib,
            names::value,
            names::namespace_segment,
            names::namespace_segment,
            |segment| vec![names::class(segment)],
            false,
        ))
        .enumerate()
        .map(|(i, (f, ident))| {
            let ns = ns_idents(&f.path);
            names::claim(
                scopes.scope(&ns, LANG, &mut diags),
                &ident,
                &f.name,
                &mut diags,
            );
            note_namespace(&ns);
            let place = (js_path(&object_path(&ns, &ident)), decl(&ns), i);
            function_places.push(ns.join("."));
            let module = f
                .module
                .as_ref()
                .and_then(|l| module_libraries.iter().position(|m| m == l));
            types.function(f, ident, place, module)
        })
        .collect();
    let classes: Vec<model::Class> = lib
        .types
        .iter()
        .zip(&class_places)
        .enumerate()
        .map(|(i, (t, (ns, ident)))| types.class(t, ident.clone(), (decl(ns), i), &mut diags))
        .collect();
    let by_namespace = |places: Vec<String>| {
        crate::lang::cpp::model::grouped(
            places
                .into_iter()
                .enumerate()
                .map(|(i, ns)| (ns, i))
                .collect(),
        )
    };
    let module = model::Module {
        banner: format!("// {}", banner_text(&lib.libraries, &lib.checksum)),
        support: model::literal(SUPPORT_PACKAGE),
        checksum: model::literal(&lib.checksum),
        libraries: lib.libraries.iter().map(|l| model::literal(l)).collect(),
        manifest,
        modules,
        namespaces: namespaces
            .iter()
            .map(|ns| js_path(&object_path(&ns[..ns.len() - 1], &ns[ns.len() - 1])))
            .collect(),
        dts_classes: by_namespace(class_places.iter().map(|(ns, _)| ns.join(".")).collect()),
        dts_functions: by_namespace(function_places),
        classes,
        functions,
    };
    let json = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    let banner = json(&banner_text(&lib.libraries, &lib.checksum));
    let package_name = names::package(&cfg.name).unwrap_or_else(|| {
        diags.error(
            LANG,
            &cfg.name,
            "not an npm package name: give `name` or `@scope/name` with letters or digits in each part",
        );
        String::new()
    });
    let version = json(cfg.package.version());
    let platforms: Vec<platform::Platform> = cfg
        .package
        .platforms
        .iter()
        .filter_map(|p| match platform::Platform::parse(p) {
            Ok(p) => Some(p),
            Err(e) => {
                diags.error(LANG, &cfg.name, format!("package.platforms: {e}"));
                None
            }
        })
        .collect();
    // Without prebuilt packages, the library bundled in `lib/` is an ELF file.
    let mut oses: Vec<String> = Vec::new();
    for p in &platforms {
        if !oses.contains(&json(&p.os)) {
            oses.push(json(&p.os));
        }
    }
    if oses.is_empty() {
        oses.push(json("linux"));
    }
    let package = model::PackageJson {
        banner: banner.clone(),
        name: json(&package_name),
        version: version.clone(),
        license: json(cfg.package.license()),
        description: json(&format!(
            "TVM-FFI bindings of {} for Node.js, generated by ffihub",
            // A dump made inside a process (`ffihub.DumpReflection`) names no library.
            if lib.libraries.is_empty() {
                cfg.name.clone()
            } else {
                lib.libraries.join(", ")
            }
        )),
        support: json(SUPPORT_PACKAGE),
        support_range: json(&format!("^{SUPPORT_VERSION}")),
        oses,
        prebuilt: platforms
            .iter()
            .map(|p| (json(&p.package_of(&package_name)), version.clone()))
            .collect(),
    };
    let mut files = FileMap::new();
    files.insert(
        PathBuf::from("package.json"),
        render(&package, LANG, &cfg.name, &mut diags),
    );
    for p in &platforms {
        let prebuilt = model::PlatformPackageJson {
            banner: banner.clone(),
            name: json(&p.package_of(&package_name)),
            version: version.clone(),
            description: json(&format!(
                "{} for {}: the prebuilt library of {package_name}, which installs it",
                lib.libraries.join(", "),
                p.name
            )),
            license: json(cfg.package.license()),
            os: json(&p.os),
            cpu: json(&p.cpu),
            libc: p.libc.as_deref().map(json),
        };
        files.insert(
            PathBuf::from(format!("npm/{}/package.json", p.name)),
            render(&prebuilt, LANG, &cfg.name, &mut diags),
        );
    }
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
