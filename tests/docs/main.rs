//! Global function docs end to end, on both runtimes: a Rust global's `///` comment (the demo's
//! `demo.add_one`) and the docs of a C++ library built against Apache's headers
//! (`global_docs.cc`: `GlobalDef().def(name, f, doc)` and `def(name, f, refl::Metadata({{"doc", ...}}))`)
//! go through `ffihub dump` and `ffihub generate` into the Julia docstring (`string(@doc f)`),
//! the `.d.ts` JSDoc and the C++ header's doc comment.
//!
//! Apache's runtime keeps the doc string argument of `GlobalDef().def` in a private table that
//! no API returns, so that doc reaches the bindings on ffihub's runtime only (which returns it
//! through `ffihub.GetGlobalFuncDoc`); docs in the metadata reach them on both.

use std::path::{Path, PathBuf};
use std::process::Command;

use ffihub_tests::{
    apache_runtime, built_once, ffihub_runtime_checked, julia_lock, run_ok, scratch_dir,
    target_dir, workspace_root, Runtime,
};

/// The Rust global's doc comment (examples/demo/src/scalars.rs).
const RUST_DOC: &str = "Returns `x + 1`.";
/// `kdocs.add`'s doc: GlobalDef's doc string argument.
const DEF_DOC: &str = "Adds two integers.";
/// `kdocs.scale`'s doc: a `doc` metadata entry.
const METADATA_DOC: &str = "Multiplies `x` by `factor`.";

/// The bindings of `demo.add_one` (package `demo_docs`) and of `global_docs.cc` (package
/// `kdocs`), generated from dumps on `runtime`.
struct Generated {
    demo: PathBuf,
    kdocs: PathBuf,
}

/// `global_docs.cc` built against Apache's headers, once for both runtimes.
fn kdocs_library() -> PathBuf {
    // Apache's inline code has unused parameters.
    let args = ["-shared", "-fPIC", "-Wno-unused-parameter"];
    let sources = ["tests/docs/global_docs.cc"];
    built_once(
        &apache_runtime(),
        "global_docs/lib",
        "libkdocs_globals.so",
        &sources,
        &args,
    )
}

fn generate(runtime: &Runtime) -> Generated {
    let dir = scratch_dir(&format!("global_docs/{}", runtime.name));
    let kdocs_lib = kdocs_library();
    let demo_lib = target_dir().join("debug/libffihub_demo.so");
    assert!(
        demo_lib.is_file(),
        "{} is missing: cargo build -p ffihub-demo",
        demo_lib.display()
    );
    let ffihub = target_dir().join("debug/ffihub");
    let package = |lib: &Path, prefix: &str, name: &str| {
        let yaml = dir.join(format!("{name}.yaml"));
        let mut dump = Command::new(&ffihub);
        dump.arg("dump")
            .arg("--runtime")
            .arg(runtime.lib_dir.join("libtvm_ffi.so"))
            .arg("--lib")
            .arg(lib)
            .args(["--prefix", prefix, "-o"])
            .arg(&yaml)
            .env("LD_LIBRARY_PATH", &runtime.lib_dir);
        run_ok(dump);
        let out = dir.join(name);
        let mut generate = Command::new(&ffihub);
        generate
            .args(["generate", "--lang", "all", "--name", name, "--metadata"])
            .arg(&yaml)
            .arg("--out")
            .arg(&out);
        run_ok(generate);
        out
    };
    Generated {
        demo: package(&demo_lib, "demo.add_one", "demo_docs"),
        kdocs: package(&kdocs_lib, "kdocs.", "kdocs"),
    }
}

/// `string(@doc name)` of each name, from the generated Julia packages loaded on `runtime`.
fn julia_docstrings(runtime: &Runtime, generated: &Generated, names: &[&str]) -> Vec<String> {
    ffihub_tests::build_julia_shim();
    let root = workspace_root();
    let lib_dirs = [
        kdocs_library().parent().unwrap().to_path_buf(),
        target_dir().join("debug"),
    ];
    let library_path = std::env::join_paths(&lib_dirs).unwrap();
    let mut cmd = Command::new(root.join("scripts/julia"));
    cmd.arg("--startup-file=no")
        .arg(format!(
            "--project={}",
            root.join("bindings/julia/TVMFFI").display()
        ))
        .arg(root.join("tests/docs/docstrings.jl"))
        .arg(generated.demo.join("julia"))
        .arg(generated.kdocs.join("julia"))
        .arg("::")
        .args(names)
        .env("TVM_FFI_LIB", runtime.lib_dir.join("libtvm_ffi.so"))
        .env("FFIHUB_LIBRARY_PATH", &library_path)
        .env(
            "LD_LIBRARY_PATH",
            std::env::join_paths(std::iter::once(runtime.lib_dir.clone()).chain(lib_dirs.clone()))
                .unwrap(),
        );
    let out = {
        let _julia = julia_lock();
        run_ok(cmd)
    };
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    names
        .iter()
        .map(|name| {
            let start = format!("=== {name}\n");
            let body = text
                .split_once(&start)
                .and_then(|(_, rest)| rest.split_once("=== end\n"))
                .unwrap_or_else(|| panic!("no docstring of {name} in:\n{text}"));
            body.0.to_owned()
        })
        .collect()
}

fn read(dir: &Path, file: &str) -> String {
    let path = dir.join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Checks every language's docs of the three globals; `def_doc` tells whether the runtime
/// returns GlobalDef's doc string argument.
fn check(runtime: &Runtime, def_doc: bool) {
    let generated = generate(runtime);
    let docs = julia_docstrings(
        runtime,
        &generated,
        &["DemoDocs.add_one", "Kdocs.add", "Kdocs.scale"],
    );
    assert!(
        docs[0].contains(RUST_DOC),
        "Julia, demo.add_one:\n{}",
        docs[0]
    );
    assert!(
        docs[2].contains(METADATA_DOC),
        "Julia, kdocs.scale:\n{}",
        docs[2]
    );
    assert_eq!(
        docs[1].contains(DEF_DOC),
        def_doc,
        "Julia, kdocs.add:\n{}",
        docs[1]
    );

    let demo_ts = read(&generated.demo.join("node"), "index.d.ts");
    let kdocs_ts = read(&generated.kdocs.join("node"), "index.d.ts");
    assert!(
        demo_ts.contains(&format!(" * {RUST_DOC}")),
        "demo .d.ts:\n{demo_ts}"
    );
    assert!(
        kdocs_ts.contains(&format!(" * {METADATA_DOC}")),
        "kdocs .d.ts:\n{kdocs_ts}"
    );
    assert_eq!(
        kdocs_ts.contains(&format!(" * {DEF_DOC}")),
        def_doc,
        "kdocs .d.ts:\n{kdocs_ts}"
    );

    let demo_hpp = read(&generated.demo.join("cpp"), "demo_docs.hpp");
    let kdocs_hpp = read(&generated.kdocs.join("cpp"), "kdocs.hpp");
    assert!(demo_hpp.contains(RUST_DOC), "demo_docs.hpp:\n{demo_hpp}");
    assert!(kdocs_hpp.contains(METADATA_DOC), "kdocs.hpp:\n{kdocs_hpp}");
    assert_eq!(
        kdocs_hpp.contains(DEF_DOC),
        def_doc,
        "kdocs.hpp:\n{kdocs_hpp}"
    );
}

#[test]
fn global_docs_reach_every_language_on_ffihub_runtime() {
    check(&ffihub_runtime_checked(), true);
}

#[test]
fn global_docs_reach_every_language_on_apache_runtime() {
    check(&apache_runtime(), false);
}
