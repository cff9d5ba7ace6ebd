//! `ffihub dump` on ffihub's runtime and on Apache's, and the CLI's handling of bad input.

mod common;

use common::*;

fn dump(runtime: &std::path::Path, lib: &std::path::Path, format: &str) -> String {
    ffihub_ok(&[
        "dump",
        "--runtime",
        runtime.to_str().unwrap(),
        "--lib",
        lib.to_str().unwrap(),
        "--format",
        format,
    ])
}

/// `on_ours` without the docs of global functions that Apache's runtime does not return: the
/// doc string argument of C++ `GlobalDef().def(name, f, doc)`, which Apache's runtime keeps in a
/// private table and ffihub's returns (`ffihub.GetGlobalFuncDoc`). Those docs are listed in
/// `extra_docs`; everything else must be the same.
fn without_docs_apache_hides(
    on_apache: &str,
    on_ours: &str,
    format: &str,
    extra_docs: &mut Vec<String>,
) -> String {
    use ffihub_schema::Reflection;
    let parse = |text: &str| {
        if format == "json" {
            Reflection::from_json_str(text).unwrap()
        } else {
            Reflection::from_yaml_str(text).unwrap()
        }
    };
    let apache = parse(on_apache);
    let mut ours = parse(on_ours);
    let mut changed = false;
    for f in &mut ours.functions {
        let hidden = apache
            .functions
            .iter()
            .any(|a| a.name == f.name && a.doc.is_empty());
        if hidden && !f.doc.is_empty() {
            extra_docs.push(format!("{}: {}", f.name, std::mem::take(&mut f.doc)));
            changed = true;
        }
    }
    if !changed {
        return on_ours.to_owned();
    }
    ours.seal();
    if format == "json" {
        ours.to_json_string().unwrap()
    } else {
        ours.to_yaml_string().unwrap()
    }
}

fn assert_identical_and_valid(lib: &std::path::Path) -> String {
    assert_identical_but_docs(lib).0
}

/// Dumps `lib` on both runtimes, checks the dumps are the same (but for the docs Apache's runtime
/// hides, which are returned) and valid, and returns the YAML dump made on Apache's runtime.
fn assert_identical_but_docs(lib: &std::path::Path) -> (String, Vec<String>) {
    let apache = apache_root().join("lib/libtvm_ffi.so");
    let ours = our_runtime();
    let mut extra_docs = Vec::new();
    for format in ["yaml", "json"] {
        let on_apache = dump(&apache, lib, format);
        let on_ours_full = dump(&ours, lib, format);
        let on_ours = without_docs_apache_hides(&on_apache, &on_ours_full, format, &mut extra_docs);
        if on_apache != on_ours {
            let first = on_apache
                .lines()
                .zip(on_ours.lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .map(|(i, (a, b))| format!("line {}: apache `{a}` vs ffihub `{b}`", i + 1))
                .unwrap_or_else(|| "lengths differ".into());
            panic!("{format} dumps of {} differ: {first}", lib.display());
        }
        let value: serde_json::Value = if format == "json" {
            serde_json::from_str(&on_ours_full).unwrap()
        } else {
            serde_yaml::from_str(&on_ours_full).unwrap()
        };
        assert_eq!(
            schema_errors(&value),
            Vec::<String>::new(),
            "{format} dump is invalid"
        );
    }
    extra_docs.sort();
    extra_docs.dedup();
    (dump(&apache, lib, "yaml"), extra_docs)
}

#[test]
fn testing_library_dumps_are_identical_on_both_runtimes() {
    let lib = apache_root().join("lib/libtvm_ffi_testing.so");
    let (yaml, extra_docs) = assert_identical_but_docs(&lib);
    // The testing library's `GlobalDef().def(..., doc)` docs, which only ffihub's runtime returns.
    assert_eq!(
        extra_docs,
        [
            "testing.TestIntPairSum: Get sum of the pair",
            "testing.schema_variant_mix: variant passthrough"
        ]
    );
    let doc = ffihub_schema::Reflection::from_yaml_str(&yaml).unwrap();
    assert_eq!(doc.functions.len(), 59);
    assert_eq!(doc.types.len(), 35);
    // The checked-in copy that the IR snapshot uses must stay the real thing.
    let fixture = std::fs::read_to_string(fixture("testing.yaml")).unwrap();
    assert!(
        fixture == yaml,
        "bindgen/tests/fixtures/testing.yaml is stale: regenerate it with `ffihub dump --runtime \
         {} --lib {} -o bindgen/tests/fixtures/testing.yaml`",
        apache_root().join("lib/libtvm_ffi.so").display(),
        lib.display()
    );
}

#[test]
fn demo_extension_dumps_are_identical_on_both_runtimes() {
    // `cargo test --workspace` builds the demo cdylib (a workspace member) into target/debug.
    let lib = target_dir().join("debug/libffihub_demo.so");
    assert!(
        lib.is_file(),
        "{} is missing: build it with `cargo build -p ffihub-demo`",
        lib.display()
    );
    let yaml = assert_identical_and_valid(&lib);
    // Its `#[ffihub::function(export = ...)]` functions are module exports, typed and documented
    // from `__tvm_ffi__metadata_<name>` and `__tvm_ffi__doc_<name>`.
    let doc = ffihub_schema::Reflection::from_yaml_str(&yaml).unwrap();
    assert_eq!(doc.format_version, 2);
    let [module] = &doc.modules[..] else {
        panic!("expected one module: {:?}", doc.modules)
    };
    assert_eq!(module.library, "libffihub_demo.so");
    let names: Vec<&str> = module.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["multiply", "version"]);
    let multiply = &module.functions[0];
    assert_eq!(multiply.doc, "Returns `a * b` (module export `multiply`).");
    assert_eq!(
        multiply
            .signature
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("(int, int) -> int")
    );
}

#[test]
fn prefix_filters_and_output_file_format_follows_extension() {
    let lib = apache_root().join("lib/libtvm_ffi_testing.so");
    let out = scratch("dump-prefix").join("pair.json");
    ffihub_ok(&[
        "dump",
        "--runtime",
        our_runtime().to_str().unwrap(),
        "--lib",
        lib.to_str().unwrap(),
        "--prefix",
        "testing.TestIntPair",
        "-o",
        out.to_str().unwrap(),
    ]);
    let doc =
        ffihub_schema::Reflection::from_json_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let names: Vec<&str> = doc.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["testing.TestIntPairSum"]);
    assert_eq!(doc.types.len(), 1);
    assert_eq!(doc.prefix.as_deref(), Some("testing.TestIntPair"));
}

fn expect_error(args: &[&str], needle: &str) {
    let out = ffihub(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(
        stderr.lines().count(),
        1,
        "{args:?}: not one line: {stderr}"
    );
    assert!(stderr.starts_with("ffihub: error: "), "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: `{stderr}` lacks `{needle}`"
    );
}

#[test]
fn bad_input_gives_one_line_errors() {
    let rt = our_runtime();
    let rt = rt.to_str().unwrap();
    let dir = scratch("bad-input");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let not_a_lib = write("not_a_lib.so", "hello");
    let bad_yaml = write("bad.yaml", "functions: [");
    let bad_schema = write(
        "bad_schema.yaml",
        "format_version: 1\nfunctions: [{name: f, signature: {return: {type: Optional}}}]\n",
    );
    let good = fixture("function.yaml");
    let good = good.to_str().unwrap();
    let out = dir.to_str().unwrap();

    expect_error(
        &["dump", "--runtime", rt, "--lib", "/no/such/lib.so"],
        "no such file",
    );
    // The loader's own message (dlerror()), not just "dlopen failed".
    let loader_says = format!("cannot load {not_a_lib}: {not_a_lib}: file too short");
    expect_error(
        &["dump", "--runtime", rt, "--lib", &not_a_lib],
        &loader_says,
    );
    expect_error(
        &["dump", "--runtime", &not_a_lib, "--lib", &not_a_lib],
        &loader_says,
    );
    expect_error(
        &[
            "dump",
            "--runtime",
            "/no/such/libtvm_ffi.so",
            "--lib",
            &not_a_lib,
        ],
        "no such file",
    );
    expect_error(
        &["dump", "--runtime", "libm.so.6", "--lib", &not_a_lib],
        "not a TVM-FFI runtime",
    );
    expect_error(&["dump", "--runtime", rt], "at least one --lib");
    for (meta, needle) in [
        (&bad_yaml, "invalid YAML"),
        (&bad_schema, "Optional takes 1"),
    ] {
        expect_error(
            &[
                "generate",
                "--lang",
                "julia",
                "--metadata",
                meta,
                "--name",
                "x",
                "--out",
                out,
            ],
            needle,
        );
    }
    expect_error(
        &[
            "generate",
            "--lang",
            "rust",
            "--metadata",
            good,
            "--name",
            "x",
            "--out",
            out,
        ],
        "unknown language `rust`",
    );
    expect_error(
        &[
            "generate",
            "--lang",
            "cpp",
            "--metadata",
            "/no/such.yaml",
            "--name",
            "x",
            "--out",
            out,
        ],
        "cannot read",
    );
    expect_error(
        &["generate", "--lang", "cpp", "--name", "x", "--out", out],
        "--metadata FILE",
    );
}

/// `generate` reports typing and one summary line per language; `--prefix` filters a dump;
/// `--config` renames; a rename of an unknown item is a one-line error.
#[test]
fn generate_reports_filters_and_renames() {
    let dir = std::env::temp_dir().join(format!("ffihub-cli-{}", std::process::id()));
    let names = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/names.yaml");
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let run = ffihub(&[
        "generate",
        "--lang",
        "all",
        "--metadata",
        names,
        "--prefix",
        "kinds.f",
        "--name",
        "kinds",
        "--out",
        out,
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains("ffihub: typed: 2 of 2 functions, 0 of 0 fields, 0 of 0 methods"),
        "{stderr}"
    );
    assert!(
        stderr.contains("cpp: 1 files, 2 functions, 0 types, 0 untyped items"),
        "{stderr}"
    );
    let header = std::fs::read_to_string(dir.join("out/cpp/kinds.hpp")).unwrap();
    assert!(header.contains("fooBar(") && !header.contains("delete_("));

    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("rename.yaml");
    std::fs::write(&config, "rename:\n  kinds.fooBar: kinds.more.foo_bar\n").unwrap();
    let run = ffihub(&[
        "generate",
        "--lang",
        "cpp",
        "--metadata",
        names,
        "--config",
        config.to_str().unwrap(),
        "--name",
        "kinds",
        "--out",
        out,
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // The renamed function is in a namespace of its own, which has a header of its own.
    let umbrella = std::fs::read_to_string(dir.join("out/kinds.hpp")).unwrap();
    assert!(
        umbrella.contains("#include \"kinds/more.hpp\""),
        "{umbrella}"
    );
    let header = std::fs::read_to_string(dir.join("out/kinds/more.hpp")).unwrap();
    assert!(header.contains("namespace kinds::more {"), "{header}");

    std::fs::write(&config, "rename:\n  kinds.nope: kinds.x\n").unwrap();
    expect_error(
        &[
            "generate",
            "--lang",
            "cpp",
            "--metadata",
            names,
            "--config",
            config.to_str().unwrap(),
            "--name",
            "kinds",
            "--out",
            out,
        ],
        "kinds.nope",
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Which dynamic symbols are module exports: defined `__tvm_ffi_<name>` functions, not the
/// reserved `__tvm_ffi__*` companions, not data, not undefined references; an embedded
/// `__tvm_ffi__library_bin` is noticed.
#[test]
fn export_symbols_are_read_from_the_dynamic_symbol_table() {
    let dir = scratch("export-symbols");
    let source = dir.join("symbols.c");
    std::fs::write(
        &source,
        r#"
typedef struct { int type_index; } Any;
int __tvm_ffi_vadd(void* self, const Any* args, int n, Any* out) { return 0; }
int __tvm_ffi_main(void* self, const Any* args, int n, Any* out) { return 0; }
int __tvm_ffi__metadata_vadd(void* self, const Any* args, int n, Any* out) { return 0; }
int __tvm_ffi__doc_vadd(void* self, const Any* args, int n, Any* out) { return 0; }
const char __tvm_ffi__library_bin[16] = {0};
void* __tvm_ffi__library_ctx = 0;
const int __tvm_ffi_table = 1;
static int __tvm_ffi_hidden(void) { return 0; }
extern int __tvm_ffi_elsewhere(void* self, const Any* args, int n, Any* out);
int use(void) { return __tvm_ffi_hidden() + __tvm_ffi_elsewhere(0, 0, 0, 0); }
"#,
    )
    .unwrap();
    let lib = dir.join("libsymbols.so");
    let status = std::process::Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&source)
        .status()
        .expect("gcc");
    assert!(status.success());
    let symbols = ffihub_bindgen::dump::export_symbols(&lib).unwrap();
    assert_eq!(symbols.names, ["main", "vadd"]);
    assert!(symbols.library_bin);
    let err = ffihub_bindgen::dump::export_symbols(&source).unwrap_err();
    assert!(
        err.to_string().contains("not a readable shared library"),
        "{err}"
    );
}

/// A library that registers nothing and exports no `__tvm_ffi_` function (the system's zlib):
/// `dump` and `generate` warn, and fail with `--strict`; a real TVM-FFI library passes `--strict`.
#[test]
fn a_library_that_gives_nothing_is_a_warning_or_with_strict_an_error() {
    let rt = our_runtime();
    let rt = rt.to_str().unwrap();
    let zlib = [
        "/usr/lib/x86_64-linux-gnu/libz.so.1",
        "/lib/x86_64-linux-gnu/libz.so.1",
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).is_file())
    .expect("zlib (zlib1g) is installed on every Debian system");
    let out_dir = scratch("empty-library");
    let out = out_dir.to_str().unwrap();
    let warning =
        format!("{zlib} registers no global function or type and exports no `__tvm_ffi_` function");
    let dumped = ffihub(&["dump", "--runtime", rt, "--lib", zlib]);
    assert!(dumped.status.success());
    let stderr = String::from_utf8_lossy(&dumped.stderr);
    assert!(
        stderr.contains(&format!("ffihub: warning: {warning}")),
        "{stderr}"
    );
    let generate = ["generate", "--lang", "node", "--name", "z", "--out", out];
    let generated = ffihub(&[&generate[..], &["--runtime", rt, "--lib", zlib]].concat());
    assert!(generated.status.success());
    assert!(String::from_utf8_lossy(&generated.stderr).contains(&warning));
    expect_error(
        &["dump", "--strict", "--runtime", rt, "--lib", zlib],
        &warning,
    );
    expect_error(
        &[&generate[..], &["--strict", "--runtime", rt, "--lib", zlib]].concat(),
        &warning,
    );
    let testing = apache_root().join("lib/libtvm_ffi_testing.so");
    let ok = ffihub(&[
        "dump",
        "--strict",
        "--runtime",
        rt,
        "--lib",
        testing.to_str().unwrap(),
    ]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(!String::from_utf8_lossy(&ok.stderr).contains("warning"));
}
