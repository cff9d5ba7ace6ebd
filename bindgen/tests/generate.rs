//! Snapshots (insta) of the IR and of every backend's output for one small input per kind of
//! item, syntax checks of the output with the real tools when they are installed, and the
//! `generate`/`check` commands.

mod common;

use common::*;
use ffihub_bindgen::{generate, ir, lang};
use ffihub_schema::Reflection;
use std::path::Path;
use std::process::Command;

/// One small input per kind of item.
const KINDS: &[&str] = &[
    "function",
    "packed_function",
    "object_fields",
    "inheritance",
    "methods",
    "static_method",
    "constructor",
    "containers",
    "optional_variant",
    "callbacks",
    "names",
    "module_exports",
    "namespaces",
];

fn load(name: &str) -> Reflection {
    let path = fixture(&format!("{name}.yaml"));
    Reflection::from_yaml_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn config(allow: &[&str]) -> lang::Config {
    lang::Config {
        name: "kinds".into(),
        allow_unsupported: allow.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

/// The diagnostics of a backend (if any), then its files (with every unsupported item allowed).
fn render(backend: &lang::Backend, lib: &ir::Library) -> String {
    let mut out = String::new();
    if let Err(diags) = (backend.generate)(lib, &config(&[])) {
        out.push_str(&format!("# diagnostics\n{diags}\n\n"));
    }
    match (backend.generate)(lib, &config(&["*"])) {
        Ok(files) => {
            for (path, text) in files {
                out.push_str(&format!("# file {}\n{text}\n", path.display()));
            }
        }
        Err(diags) => out.push_str(&format!("# errors\n{diags}\n")),
    }
    out
}

/// The IR of the `signatures` fixture with its overlay (`signatures.config.yaml`).
fn with_overlay() -> ir::Library {
    ir::build_with(&load("signatures"), &overlay_options(None)).unwrap()
}

/// IR options with the overlay of `signatures.config.yaml`, or with `text` as its `signatures:`.
fn overlay_options(text: Option<&str>) -> ir::Options {
    #[derive(serde::Deserialize)]
    struct File {
        signatures: ffihub_schema::Signatures,
    }
    let text = text.map_or_else(
        || std::fs::read_to_string(fixture("signatures.config.yaml")).unwrap(),
        |t| format!("signatures:\n  version: 1\n  entries:\n{t}"),
    );
    let file: File = serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    ir::Options {
        signatures: Some(file.signatures),
        ..Default::default()
    }
}

/// Parameter names, defaults, keyword-only parameters and narrower types from the overlay,
/// names and docs from docstrings, in the IR and in every language.
#[test]
fn signatures_from_the_overlay_and_docstrings() {
    let lib = with_overlay();
    insta::assert_yaml_snapshot!("ir__signatures", lib);
    for backend in lang::BACKENDS {
        insta::assert_snapshot!(
            format!("{}__signatures", backend.name),
            render(backend, &lib)
        );
    }
    let counts = lib.name_sources();
    assert_eq!(counts[&ir::NameSource::Overlay], 5);
    assert_eq!(counts[&ir::NameSource::Docstring], 3);
    // Without the overlay, only the docstrings name parameters.
    let plain = ir::build(&load("signatures")).unwrap();
    assert_eq!(plain.name_sources()[&ir::NameSource::Positional], 5);
    // The load-time checks compare the library's types, not the overlay's.
    let f = lib
        .functions
        .iter()
        .find(|f| f.name == "kinds.from_schema")
        .unwrap();
    assert_eq!(
        f.signature.as_ref().unwrap().to_string(),
        "(str, bool, Any, bool) -> Object"
    );
}

/// IR options with a `signatures:` section read from `text` (a whole `--config` file).
fn config_overlay(text: &str) -> ir::Options {
    #[derive(serde::Deserialize)]
    struct File {
        signatures: ffihub_schema::Signatures,
    }
    let file: File = serde_yaml::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    ir::Options {
        signatures: Some(file.signatures),
        ..ir::Options::default()
    }
}

/// Globals with roles become constructors, methods and properties of their type in every
/// language (ADR 0019); one named like a field is left out; the globals stay.
#[test]
fn roles_make_members() {
    let text = std::fs::read_to_string(fixture("members.config.yaml")).unwrap();
    let lib = ir::build_with(&load("members"), &config_overlay(&text)).unwrap();
    insta::assert_yaml_snapshot!("ir__members", lib);
    for backend in lang::BACKENDS {
        insta::assert_snapshot!(format!("{}__members", backend.name), render(backend, &lib));
    }
    let point = lib.types.iter().find(|t| t.key == "shapes.Point").unwrap();
    let names: Vec<&str> = ffihub_bindgen::lang::naming::members(&lib, point)
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(names, ["Point", "Point", "label", "scaled"]);
    assert_eq!(lib.functions.len(), 8, "the globals stay bound");
    // A member's doc is the Python function's where the role has one, else the global's.
    let docs: Vec<(&str, &str)> = point
        .members
        .iter()
        .map(|m| (m.function.as_str(), m.doc.as_str()))
        .collect();
    assert!(docs.contains(&("shapes.PointOrigin", "The origin, (0, 0).")));
    assert!(docs.contains(&("shapes.Point", "Makes a point.")));
    let label = point.members.iter().find(|m| m.name == "label").unwrap();
    let label = ffihub_bindgen::lang::naming::member_doc(label);
    assert_eq!(
        label,
        "The point's label.\n\nAs `Point.label` in Python.\n\nCalls the global function \
         `shapes.PointLabel`, which is also bound under its own name."
    );
}

/// The signature of each Julia method definition in `text` (the function's name and the types
/// of its positional parameters, `Any` where there is no annotation), as Julia compares them:
/// a repeated one would overwrite a method.
fn julia_method_signatures(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.strip_prefix("TVMFFI.@extend_base ").unwrap_or(line);
        let long_form = line.starts_with("function ");
        let line = line.strip_prefix("function ").unwrap_or(line);
        let Some((name, rest)) = line.split_once('(') else {
            continue;
        };
        let is_name = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
        // The parameters: up to the parenthesis that closes the first.
        let mut depth = 1;
        let Some(close) = rest.char_indices().find_map(|(i, c)| {
            depth += match c {
                '(' | '{' => 1,
                ')' | '}' => -1,
                _ => 0,
            };
            (depth == 0).then_some(i)
        }) else {
            continue;
        };
        let after = rest[close + 1..].trim_start_matches(" where {N}");
        // A definition (not a call such as `Base.precompile(f, ())`).
        if !is_name || !(long_form && after.is_empty() || after.starts_with(" =")) {
            continue;
        }
        let positional = rest[..close].split(';').next().unwrap_or("");
        let mut types = Vec::new();
        let (mut depth, mut param) = (0, String::new());
        for ch in positional.chars().chain([',']) {
            match ch {
                '{' | '(' => depth += 1,
                '}' | ')' => depth -= 1,
                ',' if depth == 0 => {
                    let p = std::mem::take(&mut param);
                    let p = p.split(" = ").next().unwrap_or("").trim().to_string();
                    if !p.is_empty() {
                        types.push(match p.split_once("::") {
                            _ if p.ends_with("...") => "Vararg".to_string(),
                            Some((_, t)) if t.starts_with("Vararg") => "Vararg".to_string(),
                            Some((_, t)) => t.to_string(),
                            None => "Any".to_string(),
                        });
                    }
                    continue;
                }
                _ => {}
            }
            param.push(ch);
        }
        out.push(format!("{name}({})", types.join(", ")));
    }
    out
}

/// Julia renders members as methods (ADR 0019) and never emits two methods of one function
/// with the same signature: the own constructor's full method wins over a member's, a member's
/// wins over the own constructor's shorter one, a packed member takes what the fallback would,
/// and a method with a global's signature is left out.
#[test]
fn julia_members_never_repeat_a_signature() {
    let text = std::fs::read_to_string(fixture("member_collisions.config.yaml")).unwrap();
    let lib = ir::build_with(&load("member_collisions"), &config_overlay(&text)).unwrap();
    let out = render(lang::backend("julia").unwrap(), &lib);
    insta::assert_snapshot!("julia__member_collisions", out);
    let signatures = julia_method_signatures(&out);
    let mut seen = std::collections::BTreeSet::new();
    for s in &signatures {
        assert!(seen.insert(s), "{s} is defined twice:\n{out}");
    }
    for want in [
        "Point(Integer, Integer)",
        "Point(Integer)",
        "Point()",
        "Point(Vararg)",
        "shifted(AbstractPoint, Integer)",
        "shifted(AbstractShape, Real)",
        "Base.copy(AbstractPoint)",
        "Label(AbstractString)",
        "Label(Vararg)",
    ] {
        assert!(seen.contains(&want.to_string()), "{want}: {signatures:?}");
    }
    // The own constructor's full method, the member's `Point(x)` (calling the global).
    assert!(out.contains("function Point(x::Integer, y::Integer)\n    return TVMFFI.call_typed("));
    assert!(out.contains("Point(x::Integer) =\n    point_from_x(x)"));
    assert!(out.contains("Point() =\n    point_origin()"));
    assert!(out.contains("Point(args::Vararg{Any,N}) where {N} =\n    point_any(args...)"));
    assert!(!out.contains("Point(args...; kwargs...) ="), "{out}");
    // Label has no constructor of its own: its packed member takes the fallback's place.
    assert!(!out.contains("Label(args...; kwargs...) ="), "{out}");
    // `scaled` repeats the global's signature: only the global's methods remain.
    assert!(!seen
        .iter()
        .any(|s| s.starts_with("scaled(AbstractPoint, Real)") && s.contains("self")));
    assert_eq!(
        signatures
            .iter()
            .filter(|s| s.starts_with("scaled("))
            .count(),
        2
    );
    assert!(out.contains("shifted(self::AbstractPoint, dx::Integer; wrap::Bool = false) =\n    shifted(self, dx; wrap = wrap)") || out.contains("shifted(self::AbstractPoint, dx::Integer; wrap::Bool = false) =\n    point_shifted(self, dx; wrap = wrap)"), "{out}");
}

/// Every way a role can fail to match the library is an error naming the entry.
#[test]
fn bad_roles_name_their_entries() {
    let cases: &[(&str, &str)] = &[
        (
            "    shapes.PointLabel: {role: {kind: property, of: shapes.Nope, name: label}}\n",
            "signatures: `shapes.PointLabel`: role: unknown class `shapes.Nope`",
        ),
        (
            "    shapes.PointScaled: {role: {kind: property, of: shapes.Point, name: s}}\n",
            "a property takes only the receiver; this takes 1 more parameter(s)",
        ),
        (
            "    shapes.PointScaled: {role: {kind: method, of: shapes.Shape, name: s}}\n    \
             shapes.PointLabel: {role: {kind: method, of: shapes.Shape, name: l}}\n",
            "signatures: `shapes.PointLabel`: role: the receiver's type `shapes.Point` is not \
             `shapes.Shape` or a base of it",
        ),
        (
            "    shapes.PointOrigin: {role: {kind: constructor, of: shapes.Point}}\n    \
             shapes.PointX: {role: {kind: constructor, of: shapes.Point}}\n",
            "returns `int`, no object of it",
        ),
        (
            "    shapes.PointLabel: {role: {kind: constructor, of: shapes.Point}}\n    \
             shapes.PointX: {role: {kind: constructor, of: shapes.Shape}}\n",
            "returns `str`, no object of it",
        ),
        (
            "    shapes.Point: {role: {kind: constructor, of: shapes.Point}}\n    \
             shapes.PointScaled: {role: {kind: constructor, of: shapes.Point}}\n",
            "signatures: `shapes.PointScaled`: role: `shapes.Point` is a constructor of the same \
             class with as many parameters",
        ),
    ];
    for (entries, want) in cases {
        let text = format!("signatures:\n  version: 2\n  entries:\n{entries}");
        let err = ir::build_with(&load("members"), &config_overlay(&text))
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{entries}: {err}");
    }
}

/// Every way an overlay entry can fail to match the library is an error naming the entry.
#[test]
fn overlay_problems_name_their_entries() {
    let cases: &[(&str, &str)] = &[
        (
            "    kinds.nope: {returns: kinds.Grammar}\n",
            "signatures: `kinds.nope`: the library has no function",
        ),
        (
            "    kinds.Grammar.nope: {}\n",
            "signatures: `kinds.Grammar.nope`: the library has no function",
        ),
        (
            "    kinds.needs_name: {params: [x]}\n",
            "signatures: `kinds.needs_name`: the library's signature has 2 parameter(s) (int, \
             int), the overlay lists 1: it lists no parameter 2 (`int`)",
        ),
        (
            "    kinds.needs_name: {params: [x, y, z]}\n",
            "it lists 1 too many",
        ),
        (
            "    kinds.needs_name: {params: [x, x]}\n",
            "signatures: `kinds.needs_name`: parameter `x` is listed twice",
        ),
        (
            "    kinds.needs_name: {params: [x, {name: y, default: yes}]}\n",
            "signatures: `kinds.needs_name`: parameter `y`: the default `\"yes\"` is not a \
             value of its type `int`",
        ),
        (
            "    kinds.needs_name: {params: [x, {name: y, default: [1]}]}\n",
            "parameter `y`: the default `[1]` is not null, a bool, a number, a string, [] or {}",
        ),
        (
            "    kinds.needs_name: {params: [{name: x, default: 1}, y]}\n",
            "parameter `y` has no default but follows `x`, which has one",
        ),
        (
            "    kinds.needs_name: {params: [{name: x, type: kinds.Nope}, y]}\n",
            "parameter `x`: type `kinds.Nope`: unknown type key `kinds.Nope`",
        ),
        (
            "    kinds.needs_name: {params: [{name: x, type: ffi.String}, y]}\n",
            "parameter `x`: type `ffi.String` is not narrower than the library's `int`",
        ),
        (
            "    kinds.needs_name: {params: [{name: x, type: \"Optional[\"}, y]}\n",
            "parameter `x`: type `Optional[`",
        ),
        (
            "    kinds.Matcher.__init__: {returns: kinds.Matcher}\n",
            "signatures: `kinds.Matcher.__init__`: `returns` does not apply to a constructor",
        ),
        (
            "    kinds.Grammar.__init__: {}\n",
            "signatures: `kinds.Grammar.__init__`: the type has no constructor",
        ),
        ("    kinds.from_schema: {returns: kinds.Matcher}\n", ""),
    ];
    for (entry, why) in cases {
        let result = ir::build_with(&load("signatures"), &overlay_options(Some(entry)));
        if why.is_empty() {
            // A subclass of the library's `ffi.Object` is narrower: accepted.
            result.unwrap();
            continue;
        }
        match result {
            Err(ir::BuildError::Overlay(problems)) => {
                assert!(
                    problems.iter().any(|p| p.contains(why)),
                    "{entry}: {problems:#?}"
                );
            }
            other => panic!("{entry}: expected an overlay error, got {other:?}"),
        }
    }
    // A generated `__ffi_init__` takes its names and defaults from the fields.
    let doc = load("constructor");
    let sigs = overlay_options(Some("    kinds.Options.__init__: {}\n")).signatures;
    let err = ir::build_with(
        &doc,
        &ir::Options {
            signatures: sigs,
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("generated from the type's fields"), "{err}");
}

/// `generate` refuses an overlay that does not match the library (exit 2, every problem
/// listed); `check` reports its entries as stale (exit 1); a misspelled key is a read error.
#[test]
fn generate_and_check_with_an_overlay() {
    let out = scratch("overlay");
    let config = out.join("config.yaml");
    let meta = fixture("signatures.yaml");
    let run = |cmd: &str| {
        ffihub(&[
            cmd,
            "--lang",
            "all",
            "--name",
            "kinds",
            "--metadata",
            meta.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--out",
            out.join("pkg").to_str().unwrap(),
        ])
    };
    std::fs::copy(fixture("signatures.config.yaml"), &config).unwrap();
    let ok = run("generate");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let stderr = String::from_utf8_lossy(&ok.stderr);
    assert!(
        stderr.contains(
            "parameter names (functions, methods and constructors with \
                         parameters): 5 from the overlay, 3 from docstrings"
        ),
        "{stderr}"
    );
    assert!(run("check").status.success());

    // The library's `kinds.needs_name` lost a parameter: the entry is stale.
    let text = std::fs::read_to_string(fixture("signatures.config.yaml")).unwrap();
    std::fs::write(&config, text.replace("        - x\n", "")).unwrap();
    let stale = run("check");
    assert_eq!(stale.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&stale.stderr);
    assert!(
        stderr.contains("the signature overlay no longer matches the library (1 stale entry)"),
        "{stderr}"
    );
    assert!(stderr.contains("`kinds.needs_name`"), "{stderr}");
    let refused = run("generate");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("does not match the library"));

    // An unknown key in an entry is named with where it is.
    std::fs::write(
        &config,
        text.replace(
            "keyword_only: true\n          doc:",
            "keywordonly: true\n          doc:",
        ),
    )
    .unwrap();
    let misspelled = run("generate");
    assert_eq!(misspelled.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&misspelled.stderr);
    assert!(stderr.contains("unknown field `keywordonly`"), "{stderr}");
    assert!(stderr.contains("kinds.from_schema"), "{stderr}");
}

#[test]
fn ir_of_the_testing_library() {
    insta::assert_yaml_snapshot!("ir__testing", ir::build(&load("testing")).unwrap());
}

/// A dump of the demo extension (examples/demo) as it was when this snapshot was taken; refresh
/// it with `ffihub dump --lib target/debug/libffihub_demo.so -o bindgen/tests/fixtures/demo.yaml`
/// when the demo changes.
#[test]
fn ir_of_the_demo_extension() {
    insta::assert_yaml_snapshot!("ir__demo", ir::build(&load("demo")).unwrap());
}

#[test]
fn ir_of_the_kinds() {
    for kind in KINDS {
        insta::assert_yaml_snapshot!(format!("ir__{kind}"), ir::build(&load(kind)).unwrap());
    }
}

#[test]
fn output_per_language_and_kind() {
    for kind in KINDS {
        let lib = ir::build(&load(kind)).unwrap();
        for backend in lang::BACKENDS {
            insta::assert_snapshot!(format!("{}__{kind}", backend.name), render(backend, &lib));
        }
    }
}

#[test]
fn names_that_collide_after_case_change_keep_their_spelling_and_keywords_are_escaped() {
    let lib = ir::build(&load("names")).unwrap();
    let julia = generate(&lib, &[lang::backend("julia").unwrap()], &config(&[])).unwrap();
    assert!(julia.values().any(|t| t.contains("function end_()")));
    assert!(julia.values().any(|t| t.contains("function foo_bar()")));
    assert!(julia.values().any(|t| t.contains("function fooBar()")));
    let node = generate(&lib, &[lang::backend("node").unwrap()], &config(&[])).unwrap();
    assert!(node.values().any(|t| t.contains("function delete_()")));
    assert!(node.values().any(|t| t.contains("function fooBar()")));
    assert!(node.values().any(|t| t.contains("function foo_bar()")));
    let cpp = generate(&lib, &[lang::backend("cpp").unwrap()], &config(&[])).unwrap();
    assert!(cpp.values().any(|t| t.contains("inline void delete_()")));
    assert!(cpp.values().any(|t| t.contains("inline void foo_bar()")));
    assert!(cpp.values().any(|t| t.contains("inline void fooBar()")));
    // Declared without defaults (Zeta is incomplete there), defined with them after all classes.
    let header = cpp.values().next().unwrap();
    assert!(header.contains("explicit Alpha(const std::optional<::kinds::Zeta>& zeta);"));
    assert!(header.contains("  Alpha();"));
    assert!(header.contains("inline kinds::Alpha::Alpha() : Alpha(std::nullopt) {}"));
}

/// A rename map moves an item; one that names an unknown item is an error.
#[test]
fn rename_map_moves_items() {
    let doc = load("names");
    let mut opts = ir::Options::default();
    opts.rename
        .insert("kinds.fooBar".into(), "kinds.extra.foo_bar_2".into());
    let lib = ir::build_with(&doc, &opts).unwrap();
    let f = lib
        .functions
        .iter()
        .find(|f| f.name == "kinds.fooBar")
        .unwrap();
    assert_eq!(f.path, ["extra", "foo_bar_2"]);
    let cpp = generate(&lib, &[lang::backend("cpp").unwrap()], &config(&[])).unwrap();
    assert!(cpp.values().any(|t| t.contains("namespace kinds::extra {")));
    opts.rename.insert("kinds.nope".into(), "x".into());
    assert!(ir::build_with(&doc, &opts)
        .unwrap_err()
        .to_string()
        .contains("kinds.nope"));
}

/// Allowed unsupported items of the testing library: none (C++ passes keyword-only constructor
/// parameters by keyword).
const TESTING_ALLOWED: &[&str] = &[];

fn syntax_check(dir: &Path) {
    let run = |mut cmd: Command| {
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{cmd:?}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // One Julia process parses every file: Julia starts slowly.
    let mut julia_files = Vec::new();
    for entry in walk(dir) {
        let ext = entry.extension().and_then(|e| e.to_str()).unwrap_or("");
        match ext {
            "js" if tool("node") => {
                let mut c = Command::new("node");
                c.arg("--check").arg(&entry);
                run(c);
            }
            "hpp" if tool("g++") => {
                let main = entry.with_extension("check.cpp");
                run(cpp_syntax_check(&main, std::slice::from_ref(&entry)));
            }
            "jl" => julia_files.push(entry),
            "json" => {
                serde_json::from_str::<serde_json::Value>(
                    &std::fs::read_to_string(&entry).unwrap(),
                )
                .unwrap_or_else(|e| panic!("{}: {e}", entry.display()));
            }
            _ => {}
        }
    }
    if !julia_files.is_empty() && tool("julia") {
        let mut c = Command::new("julia");
        // Each file in a block: a file may hold several top-level expressions. A syntax error
        // is an `Expr(:error)` or `Expr(:incomplete)`, which names its file here.
        c.args([
            "--startup-file=no",
            "-e",
            r#"for f in ARGS
                   e = Meta.parse("begin\n" * read(f, String) * "\nend"; raise = false)
                   e isa Expr && e.head in (:error, :incomplete) && error("$f: $(e.args[1])")
               end"#,
        ])
        .args(&julia_files);
        run(c);
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn generated_code_is_syntactically_valid() {
    let root = scratch("syntax");
    let all: Vec<&lang::Backend> = lang::BACKENDS.iter().collect();
    for kind in KINDS
        .iter()
        .filter(|k| **k != "names")
        .chain(&["testing", "demo"])
    {
        let files = generate(&ir::build(&load(kind)).unwrap(), &all, &config(&["*"])).unwrap();
        ffihub_bindgen::filemap::write(&files, &root.join(kind)).unwrap();
    }
    let files = generate(&with_overlay(), &all, &config(&[])).unwrap();
    ffihub_bindgen::filemap::write(&files, &root.join("signatures")).unwrap();
    let members = std::fs::read_to_string(fixture("members.config.yaml")).unwrap();
    let members = ir::build_with(&load("members"), &config_overlay(&members)).unwrap();
    let files = generate(&members, &all, &config(&[])).unwrap();
    ffihub_bindgen::filemap::write(&files, &root.join("members")).unwrap();
    syntax_check(&root);
}

#[test]
fn generate_all_for_the_testing_library_and_check() {
    let out = scratch("generate-all");
    let meta = fixture("testing.yaml");
    let mut args = vec![
        "generate".to_string(),
        "--lang".into(),
        "all".into(),
        "--metadata".into(),
        meta.to_str().unwrap().into(),
        "--name".into(),
        "tvm_ffi_testing".into(),
        "--out".into(),
        out.to_str().unwrap().into(),
    ];
    // Without the allow list, exactly the allowed items are reported (and then the run fails).
    let refused = ffihub(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let expected_code = if TESTING_ALLOWED.is_empty() { 0 } else { 1 };
    assert_eq!(refused.status.code(), Some(expected_code));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    let reported: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(": unsupported: "))
        .collect();
    assert_eq!(reported.len(), TESTING_ALLOWED.len(), "{stderr}");
    for item in TESTING_ALLOWED {
        args.push("--allow-unsupported".into());
        args.push(item.to_string());
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    ffihub_ok(&argv);
    for f in [
        "julia/Project.toml",
        "julia/src/TvmFfiTesting.jl",
        "node/index.js",
        "node/index.d.ts",
        "node/package.json",
        "cpp/tvm_ffi_testing.hpp",
    ] {
        assert!(out.join(f).is_file(), "{f} not written");
    }

    // check: clean, then stale after an edit, then stale with an extra generated file.
    let mut check = argv.clone();
    check[0] = "check";
    ffihub_ok(&check);
    let js = out.join("node/index.js");
    std::fs::write(&js, std::fs::read_to_string(&js).unwrap() + "// edited\n").unwrap();
    let stale = ffihub(&check);
    assert_eq!(stale.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&stale.stderr).contains("changed: node/index.js"));
    ffihub_ok(&argv);
    ffihub_ok(&check);
    std::fs::write(
        out.join("julia/old.jl"),
        "# This file is generated by ffihub 0.0.1\n",
    )
    .unwrap();
    let stale = ffihub(&check);
    assert!(String::from_utf8_lossy(&stale.stderr).contains("stale: julia/old.jl"));
    ffihub_ok(&argv);
    assert!(
        !out.join("julia/old.jl").exists(),
        "generate removes stale generated files"
    );
}

#[test]
fn output_is_deterministic() {
    let lib = ir::build(&load("testing")).unwrap();
    let all: Vec<&lang::Backend> = lang::BACKENDS.iter().collect();
    let a = generate(&lib, &all, &config(&["*"])).unwrap();
    let b = generate(&ir::build(&load("testing")).unwrap(), &all, &config(&["*"])).unwrap();
    assert_eq!(a, b);
    for (path, text) in &a {
        assert!(
            text.ends_with('\n'),
            "{} lacks a trailing newline",
            path.display()
        );
        assert!(
            text.lines()
                .take(3)
                .any(|l| l.contains("generated by ffihub")),
            "{} lacks the banner",
            path.display()
        );
    }
}

/// Doc text and names full of comment ends, quotes, control characters and interpolation:
/// every backend's output still parses (g++ `-Wall -Wextra -Werror`, `node --check`, Julia),
/// and the text is escaped where the tools would not notice (inside comments).
#[test]
fn comment_and_literal_contexts_are_escaped() {
    let lib = ir::build(&load("hostile")).unwrap();
    let all: Vec<&lang::Backend> = lang::BACKENDS.iter().collect();
    let files = generate(&lib, &all, &config(&["*"])).unwrap();
    let root = scratch("hostile");
    ffihub_bindgen::filemap::write(&files, &root).unwrap();
    syntax_check(&root);

    let text = |ext: &str| -> String {
        files
            .iter()
            .filter(|(p, _)| p.to_str().unwrap().ends_with(ext))
            .map(|(_, t)| t.as_str())
            .collect()
    };
    let (cpp, dts, js, jl) = (text(".hpp"), text(".d.ts"), text("index.js"), text(".jl"));
    for out in [&cpp, &dts, &js, &jl] {
        assert!(!out.contains('\r'), "a raw CR is written");
        assert!(!out.contains('\u{2028}') && !out.contains('\u{b}'));
    }
    // Inside C++ doc comments neither `/*` nor `*/` survives (the only `/*`s open doc comments).
    for line in cpp.lines().filter(|l| l.trim_start().starts_with("* ")) {
        assert!(!line.contains("/*") && !line.contains("*/"), "{line}");
    }
    assert!(
        cpp.contains("\"kinds.odd\\015\\\"\\\\$name\\001\""),
        "{cpp}"
    );
    assert!(cpp.contains("\"fi\\\"eld\\015\\011\""));
    for line in dts.lines().filter(|l| l.trim_start().starts_with("* ")) {
        assert!(!line.contains("*/"), "{line}");
    }
    assert!(js.contains("'kinds.odd\\r\"\\\\$name\\u0001'"), "{js}");
    // Julia: `$` and `\"\"\"` in docstrings and literals are escaped.
    assert!(jl.contains("\\\"\\\"\\\" and \\$(error())"), "{jl}");
    assert!(
        jl.contains("\"kinds.odd\\u000d\\\"\\\\\\$name\\u0001\""),
        "{jl}"
    );
}

/// `tsc --strict --noEmit` over generated declarations, with the pinned TypeScript of the Node
/// tests (installed by scripts/setup-node.sh, which the test command runs first).
fn tsc_strict(declarations: &Path) {
    let node_tests = workspace().join("tests/node");
    let tsc = node_tests.join("node_modules/typescript/bin/tsc");
    if !tsc.is_file() || !tool("node") {
        eprintln!("tsc not installed (scripts/setup-node.sh): declarations not type-checked");
        return;
    }
    let dir = declarations.parent().unwrap();
    let config = dir.join("tsconfig.json");
    let support = workspace().join("bindings/node/index.d.ts");
    let settings = serde_json::json!({
        "extends": node_tests.join("types/tsconfig.json"),
        "compilerOptions": {"baseUrl": dir, "paths": {"@ffihub/tvm-ffi": [support]}},
        "files": [declarations],
    });
    std::fs::write(&config, settings.to_string()).unwrap();
    let out = Command::new("node")
        .arg(&tsc)
        .args(["-p", config.to_str().unwrap(), "--pretty", "false"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tsc --strict failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Members every JavaScript object (or class) already has get the keyword escape, so the
/// declarations type-check under `tsc --strict` and objects still print and compare.
#[test]
fn members_named_like_object_prototype_members_are_escaped_in_node() {
    let lib = ir::build(&load("hostile")).unwrap();
    let files = generate(&lib, &[lang::backend("node").unwrap()], &config(&[])).unwrap();
    let root = scratch("object-members");
    ffihub_bindgen::filemap::write(&files, &root).unwrap();
    tsc_strict(&root.join("index.d.ts"));
    let all: String = files.values().map(String::as_str).collect();
    for escaped in [
        "toString_(): number;",
        "valueOf_(): string;",
        "hasOwnProperty_(arg0: number | bigint): boolean;",
        "static bind_(arg0: number | bigint): number;",
    ] {
        assert!(all.contains(escaped), "{escaped} missing:\n{all}");
    }
    for clash in ["toString(", "valueOf(", "hasOwnProperty(", "bind("] {
        assert!(!all.contains(clash), "{clash} generated:\n{all}");
    }
}

/// Self and cyclic inheritance are refused with one line naming the types in the cycle.
#[test]
fn cyclic_inheritance_is_refused() {
    let doc = |types: &str| {
        Reflection::from_yaml_str(&format!(
            "format_version: 1\nlibraries: [libkinds.so]\ntypes:\n{types}"
        ))
        .unwrap()
    };
    let own = doc("- {key: kinds.A, ancestors: [ffi.Object, kinds.A]}\n");
    assert_eq!(
        ir::build(&own).unwrap_err(),
        "cyclic inheritance: kinds.A -> kinds.A"
    );
    let pair = doc(concat!(
        "- {key: kinds.A, ancestors: [ffi.Object, kinds.B]}\n",
        "- {key: kinds.B, ancestors: [ffi.Object, kinds.C]}\n",
        "- {key: kinds.C, ancestors: [ffi.Object, kinds.A]}\n",
        "- {key: kinds.D, ancestors: [ffi.Object]}\n",
    ));
    assert_eq!(
        ir::build(&pair).unwrap_err(),
        "cyclic inheritance: kinds.A -> kinds.B -> kinds.C -> kinds.A"
    );
    // The command line reports it as one line and fails.
    let dir = scratch("cyclic");
    let meta = dir.join("cyclic.yaml");
    std::fs::write(
        &meta,
        "format_version: 1\nlibraries: [libkinds.so]\ntypes:\n- {key: kinds.A, ancestors: [ffi.Object, kinds.A]}\n",
    )
    .unwrap();
    let out = ffihub(&[
        "generate",
        "--lang",
        "all",
        "--metadata",
        meta.to_str().unwrap(),
        "--name",
        "kinds",
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cyclic inheritance: kinds.A -> kinds.A"),
        "{stderr}"
    );
}

#[test]
fn config_package_section_sets_version_and_license() {
    let out = scratch("generate-package-info");
    let config = out.join("config.yaml");
    let meta = fixture("testing.yaml");
    let generate = |config_text: &str| {
        std::fs::write(&config, config_text).unwrap();
        ffihub(&[
            "generate",
            "--lang",
            "all",
            "--metadata",
            meta.to_str().unwrap(),
            "--name",
            "tvm_ffi_testing",
            "--out",
            out.join("pkg").to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ])
    };
    let ok = generate("package:\n  version: 2.3.4-rc.1\n  license: MIT OR Apache-2.0\n");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let package: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("pkg/node/package.json")).unwrap())
            .unwrap();
    assert_eq!(package["version"], "2.3.4-rc.1");
    assert_eq!(package["license"], "MIT OR Apache-2.0");
    assert_eq!(package["os"], serde_json::json!(["linux"]));
    assert!(package.get("optionalDependencies").is_none());
    let project = std::fs::read_to_string(out.join("pkg/julia/Project.toml")).unwrap();
    assert!(
        project.contains("\nversion = \"2.3.4-rc.1\"\n"),
        "{project}"
    );

    // Prebuilt packages per platform.
    let ok = generate("package:\n  version: 1.2.0\n  platforms: [linux-x64-gnu, darwin-arm64, linux-arm64-musl]\n");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let read = |file: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(out.join("pkg/node").join(file)).unwrap())
            .unwrap()
    };
    let package = read("package.json");
    assert_eq!(package["os"], serde_json::json!(["linux", "darwin"]));
    assert_eq!(
        package["optionalDependencies"],
        serde_json::json!({
            "tvm-ffi-testing-linux-x64-gnu": "1.2.0",
            "tvm-ffi-testing-darwin-arm64": "1.2.0",
            "tvm-ffi-testing-linux-arm64-musl": "1.2.0",
        })
    );
    let gnu = read("npm/linux-x64-gnu/package.json");
    assert_eq!(gnu["name"], "tvm-ffi-testing-linux-x64-gnu");
    assert_eq!(gnu["version"], "1.2.0");
    assert_eq!(gnu["files"], serde_json::json!(["lib/"]));
    assert_eq!(
        (&gnu["os"], &gnu["cpu"], &gnu["libc"]),
        (
            &serde_json::json!(["linux"]),
            &serde_json::json!(["x64"]),
            &serde_json::json!(["glibc"])
        )
    );
    assert_eq!(
        read("npm/linux-arm64-musl/package.json")["libc"],
        serde_json::json!(["musl"])
    );
    let mac = read("npm/darwin-arm64/package.json");
    assert_eq!(
        (&mac["cpu"], mac.get("libc")),
        (&serde_json::json!(["arm64"]), None)
    );

    for (bad, message) in [
        (
            "package:\n  version: one\n",
            "package.version `one` is not a version like 1.2.3",
        ),
        (
            "package:\n  license: \"\"\n",
            "package.license `` is not an SPDX license expression",
        ),
        ("package:\n  author: me\n", "unknown field `author`"),
        (
            "package:\n  platforms: [linux-x64]\n",
            "package.platforms: platform `linux-x64` is not one of linux-<cpu>-gnu|musl",
        ),
    ] {
        let refused = generate(bad);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(message), "{bad}: {stderr}");
    }
}

#[test]
fn npm_scoped_names_keep_their_scope() {
    let out = scratch("generate-npm-scope");
    let meta = fixture("function.yaml");
    let generate = |name: &str, dir: &str| {
        ffihub(&[
            "generate",
            "--lang",
            "all",
            "--metadata",
            meta.to_str().unwrap(),
            "--name",
            name,
            "--out",
            out.join(dir).to_str().unwrap(),
        ])
    };
    let ok = generate("@Me/my_testing", "scoped");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let package: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("scoped/node/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(package["name"], "@me/my-testing");
    // The other languages spell the whole name as plain identifiers (and file names).
    assert!(out.join("scoped/julia/src/MeMyTesting.jl").is_file());
    assert!(out.join("scoped/cpp/me_my_testing.hpp").is_file());

    let refused = generate("@me/", "empty");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not an npm package name"), "{stderr}");
}
