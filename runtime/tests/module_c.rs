//! Module loading through the C ABI, on ffihub's runtime and on Apache's: C test libraries
//! (`tests/c/module_lib.c`, `tests/c/module_lib_import.c`) are built with gcc and driven by
//! `tests/c/module_driver.c`. Behaviour that Apache's runtime shares is checked on both; the
//! malformed `__tvm_ffi__library_bin` cases are ffihub's (Apache's runtime reads out of bounds or
//! crashes on several of them), except the missing-loader one, which both report alike.

mod module_util;

use module_util::*;
use std::path::{Path, PathBuf};
use tvm_ffi::module::library_bin::{serialize, Entry};

/// The test libraries and the driver, built for one runtime.
struct Fixture {
    runtime: Runtime,
    dir: PathBuf,
    driver: PathBuf,
}

impl Fixture {
    fn new(test: &str, runtime: Runtime) -> Fixture {
        let dir = scratch(test, &runtime);
        let driver = build_driver(&runtime, &dir);
        Fixture {
            runtime,
            dir,
            driver,
        }
    }

    fn library(&self, source: &str, name: &str) -> PathBuf {
        let output = self.dir.join(format!("lib{name}.so"));
        build_library(&self.runtime, source, &output, &[]);
        output
    }

    fn blob_library(&self, name: &str, blob: &[u8]) -> PathBuf {
        build_blob_library(&self.runtime, &self.dir, name, blob)
    }

    fn run(&self, args: &[&Path]) -> String {
        let mut cmd = on(&self.runtime, &self.driver);
        cmd.args(args);
        String::from_utf8_lossy(&run_ok(cmd).stdout).into_owned()
    }
}

fn p(s: &str) -> &Path {
    Path::new(s)
}

fn basic(runtime: Runtime) {
    let f = Fixture::new("basic", runtime);
    let lib = f.library("module_lib.c", "module_test");
    let alias = f.dir.join("module_test_alias.dso");
    std::os::unix::fs::symlink(&lib, &alias).expect("symlink the .dso alias");
    let not_a_library = f.dir.join("not_a_library.so");
    std::fs::write(&not_a_library, "this is text, not ELF\n").unwrap();
    let out = f.run(&[p("basic"), &lib, &alias, &not_a_library]);
    assert!(out.contains("ok basic"), "{out}");
}

#[test]
fn module_basic_on_ffihub() {
    basic(ffihub());
}

#[test]
fn module_basic_on_apache() {
    basic(apache());
}

/// A closure, an opaque object and a global function made by a module library, used after the
/// module is released: its library stays mapped (ADR 0011). ffihub's runtime only: Apache's
/// unmaps the library and all three crash.
#[test]
fn what_a_library_made_outlives_its_module_on_ffihub() {
    let f = Fixture::new("after_unload", ffihub());
    let lib = f.library("module_lib.c", "module_test");
    let out = f.run(&[p("after_unload"), &lib]);
    assert!(out.contains("ok after_unload"), "{out}");
}

fn imports(runtime: Runtime) {
    let f = Fixture::new("imports", runtime);
    let lib = f.library("module_lib.c", "module_test");
    let import = f.library("module_lib_import.c", "module_import");
    let out = f.run(&[p("imports"), &lib, &import]);
    assert!(out.contains("ok imports"), "{out}");
}

#[test]
fn module_imports_on_ffihub() {
    imports(ffihub());
}

#[test]
fn module_imports_on_apache() {
    imports(apache());
}

fn system_lib(runtime: Runtime) {
    let f = Fixture::new("syslib", runtime);
    let out = f.run(&[p("syslib")]);
    assert!(out.contains("ok syslib"), "{out}");
}

#[test]
fn module_system_lib_on_ffihub() {
    system_lib(ffihub());
}

#[test]
fn module_system_lib_on_apache() {
    system_lib(apache());
}

/// `_lib` (root) imports a `testkind` module whose payload is the system-library prefix `tk1.`.
fn lib_root_blob() -> Vec<u8> {
    serialize(
        &[
            Entry::Lib,
            Entry::Custom {
                kind: b"testkind",
                payload: b"tk1.",
            },
        ],
        &[vec![1], vec![]],
    )
}

/// A `testkind` module (`tk2.`) is the root and imports `_lib`.
fn custom_root_blob() -> Vec<u8> {
    serialize(
        &[
            Entry::Custom {
                kind: b"testkind",
                payload: b"tk2.",
            },
            Entry::Lib,
        ],
        &[vec![1], vec![]],
    )
}

fn library_bin_round_trip(runtime: Runtime) {
    let f = Fixture::new("bin", runtime);
    let lib = f.blob_library("bin_lib_root", &lib_root_blob());
    let out = f.run(&[p("bin_lib_root"), &lib]);
    assert!(out.contains("ok bin_lib_root"), "{out}");
    let lib = f.blob_library("bin_custom_root", &custom_root_blob());
    let out = f.run(&[p("bin_custom_root"), &lib]);
    assert!(out.contains("ok bin_custom_root"), "{out}");
}

#[test]
fn module_library_bin_round_trip_on_ffihub() {
    library_bin_round_trip(ffihub());
}

#[test]
fn module_library_bin_round_trip_on_apache() {
    library_bin_round_trip(apache());
}

fn words(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A blob from a body, with an honest size header.
fn with_header(body: &[u8]) -> Vec<u8> {
    let mut blob = (body.len() as u64).to_le_bytes().to_vec();
    blob.extend_from_slice(body);
    blob
}

/// One malformed library: its blob and the error loading it must give.
struct Malformed {
    name: &'static str,
    blob: Vec<u8>,
    kind: &'static str,
    message: &'static str,
}

fn malformed_cases() -> Vec<Malformed> {
    let valid = lib_root_blob();
    let mut truncated = valid[8..valid.len() - 6].to_vec();
    truncated = with_header(&truncated);
    let mut lying = valid.clone();
    lying[..8].copy_from_slice(&(valid.len() as u64 - 8 + 1000).to_le_bytes());
    let mut huge = words(&[1 << 60, 0, 1]);
    huge = with_header(&huge);
    let mut bad_child = words(&[2, 0, 1, 1, 7, 4]);
    bad_child.extend_from_slice(b"_lib");
    let mut bad_indptr = words(&[3, 0, 2, 1, 2, 0, 0]);
    bad_indptr.extend_from_slice(b"_lib");
    let cycle = serialize(
        &[
            Entry::Lib,
            Entry::Custom {
                kind: b"testkind",
                payload: b"tk1.",
            },
        ],
        &[vec![1], vec![0]],
    );
    let missing_loader = serialize(
        &[
            Entry::Lib,
            Entry::Custom {
                kind: b"nokind",
                payload: b"whatever",
            },
        ],
        &[vec![1], vec![]],
    );
    const BIN: &str = "InternalError";
    vec![
        Malformed {
            name: "truncated",
            blob: truncated,
            kind: BIN,
            message: "truncated while reading a module",
        },
        Malformed {
            name: "lying_size",
            blob: lying,
            kind: BIN,
            message: "the header declares",
        },
        Malformed {
            name: "huge_count",
            blob: huge,
            kind: BIN,
            message: "truncated while reading the import tree indptr",
        },
        Malformed {
            name: "bad_child",
            blob: with_header(&bad_child),
            kind: BIN,
            message: "module 0 imports module 7 but there are only 1 modules",
        },
        Malformed {
            name: "bad_indptr",
            blob: with_header(&bad_indptr),
            kind: BIN,
            message: "import tree row 1 spans [2, 1)",
        },
        Malformed {
            name: "cycle",
            blob: cycle,
            kind: BIN,
            message: "the import tree has a cycle",
        },
        Malformed {
            name: "no_modules",
            blob: with_header(&words(&[1, 0, 0])),
            kind: BIN,
            message: "the import tree declares no modules",
        },
        Malformed {
            name: "tiny_symbol",
            blob: vec![1, 2, 3],
            kind: BIN,
            message: "fewer than its 8-byte size header",
        },
        Malformed {
            name: "missing_loader",
            blob: missing_loader,
            kind: "RuntimeError",
            message: "Library binary was created using {nokind} but a loader of that name is not \
                      registered. Make sure to have runtime that registers \
                      ffi.Module.load_from_bytes.nokind",
        },
    ]
}

#[test]
fn module_malformed_library_bin_on_ffihub() {
    let f = Fixture::new("malformed", ffihub());
    let mut failures = Vec::new();
    for case in malformed_cases() {
        let lib = f.blob_library(case.name, &case.blob);
        let mut cmd = on(&f.runtime, &f.driver);
        cmd.arg("load_error")
            .arg(&lib)
            .arg(case.kind)
            .arg(case.message);
        let out = cmd.output().expect("run the driver");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            failures.push(format!("{}: {}\n{stdout}{stderr}", case.name, out.status));
            continue;
        }
        // Every malformed-blob error names the library and the symbol.
        let named = format!("Malformed __tvm_ffi__library_bin in `{}`", lib.display());
        if case.kind == "InternalError" && !stdout.contains(&named) {
            failures.push(format!(
                "{}: message does not name the library: {stdout}",
                case.name
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn module_missing_loader_on_apache() {
    let f = Fixture::new("missing-loader", apache());
    let case = malformed_cases()
        .into_iter()
        .find(|c| c.name == "missing_loader")
        .unwrap();
    let lib = f.blob_library(case.name, &case.blob);
    let mut cmd = on(&f.runtime, &f.driver);
    cmd.arg("load_error")
        .arg(&lib)
        .arg(case.kind)
        .arg(case.message);
    run_ok(cmd);
}

/// Where Apache's runtime rejects a malformed blob without crashing (it reads out of bounds
/// with a lying size, accepts cycles and segfaults on an empty import tree), it reports the same
/// error kind as ffihub: `InternalError`.
#[test]
fn module_malformed_library_bin_kind_on_apache() {
    let f = Fixture::new("malformed", apache());
    for case in malformed_cases().into_iter().filter(|c| {
        matches!(
            c.name,
            "truncated" | "huge_count" | "bad_child" | "bad_indptr"
        )
    }) {
        let lib = f.blob_library(case.name, &case.blob);
        let mut cmd = on(&f.runtime, &f.driver);
        cmd.arg("load_error").arg(&lib).arg(case.kind).arg("");
        run_ok(cmd);
    }
}
