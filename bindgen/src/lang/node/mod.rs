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
use crate::lang::naming::{grouped, Naming, Place};
use crate::lang::{render, Capabilities, Config};
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
pub const CAPABILITIES: Capabilities = Capabilities::ALL;

/// Renders the Node package of `lib`.
pub fn generate(lib: &ir::Library, cfg: &Config) -> Result<FileMap, Diagnostics> {
    let mut diags = Diagnostics::default();
    // The load-time check describes the whole library, before the capability filter.
    let manifest = ir::manifest::lines(lib)
        .iter()
        .map(|line| model::literal(line))
        .collect();
    let modules = model::module_exports(lib);
    let module_libraries: Vec<String> = lib
        .module_libraries()
        .into_iter()
        .map(String::from)
        .collect();
    let lib = CAPABILITIES.filter(lib, LANG, &mut diags);
    let mut naming = Naming::<names::Node>::new(&[]);
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
    let class_places = naming.place_types(&lib, &mut diags);
    let classes = lib
        .types
        .iter()
        .zip(&class_places)
        .map(|(t, p)| (t.key.clone(), object_path(&p.ns, &p.ident)))
        .collect();
    let types = model::Types(classes);
    let function_places = naming.place_functions(&lib, &mut diags);
    let functions: Vec<model::Function> = lib
        .functions
        .iter()
        .zip(&function_places)
        .enumerate()
        .map(|(i, (f, p))| {
            let place = (js_path(&object_path(&p.ns, &p.ident)), decl(&p.ns), i);
            let module = f
                .module
                .as_ref()
                .and_then(|l| module_libraries.iter().position(|m| m == l));
            types.function(f, p.ident.clone(), place, module)
        })
        .collect();
    // Every namespace with an item, and its parents, in the order they are first needed.
    // The bindings of the globals, for the members that call them.
    let globals: std::collections::BTreeMap<String, String> = lib
        .functions
        .iter()
        .zip(&functions)
        .filter(|(f, _)| f.module.is_none())
        .map(|(f, m)| (f.name.clone(), m.path.clone()))
        .collect();
    let mut namespaces: Vec<&[String]> = Vec::new();
    for ns in class_places.iter().chain(&function_places).map(|p| &p.ns) {
        for i in 1..=ns.len() {
            if !namespaces.contains(&&ns[..i]) {
                namespaces.push(&ns[..i]);
            }
        }
    }
    let classes: Vec<model::Class> = lib
        .types
        .iter()
        .zip(&class_places)
        .enumerate()
        .map(|(i, (t, p))| {
            types.class(
                t,
                p.ident.clone(),
                (decl(&p.ns), i),
                (&lib, &globals),
                &mut diags,
            )
        })
        .collect();
    let by_namespace = |places: &[Place]| {
        grouped(
            places
                .iter()
                .enumerate()
                .map(|(i, p)| (p.ns.join("."), i))
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
        dts_classes: by_namespace(&class_places),
        dts_functions: by_namespace(&function_places),
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
    diags.result(files, &cfg.allow_unsupported)
}
