//! `ffihub harvest` and `generate --harvest` on the `harvest/mylib` fixture package: the call
//! patterns it reads, the overlay it writes (a snapshot, byte-identical on every run), the
//! overlay extensions it needs (null defaults of objects, data-type strings), hand entries
//! winning, and bad input (a file that does not parse, a package without FFI calls, a missing
//! folder, a call of another arity, names colliding in a language).

mod common;

use common::*;
use ffihub_bindgen::ir::{self, Literal, ParamDefault, Type};
use ffihub_schema::Reflection;

fn library() -> String {
    fixture("harvest/library.yaml").display().to_string()
}

fn package(name: &str) -> String {
    fixture(&format!("harvest/{name}")).display().to_string()
}

/// `ffihub harvest` on the fixture: (stdout, stderr).
fn harvest(python: &str) -> (String, String) {
    let out = ffihub(&["harvest", "--metadata", &library(), "--python", python]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn harvest_writes_a_reviewable_deterministic_overlay() {
    let (yaml, report) = harvest(&package("mylib"));
    let (again, _) = harvest(&package("mylib"));
    assert_eq!(yaml, again, "two runs differ");
    insta::assert_snapshot!("harvest_mylib", yaml);
    // The report: counts per source and role, then what needs review.
    for line in [
        "harvest: 7 Python files (0 not parsed), 2 FFI namespaces, 5 registered classes, 19 call sites of 17 registered entries",
        "harvest: 16 entries: 16 named, 0 partly, 0 positional;",
        "parameter names: 25 direct, 2 fan-out, 5 receiver",
        "harvest: roles: 2 constructor, 4 method, 10 plain, 1 property",
        "mylib.ops.clash: clash: parameter 1: `x` here, `first` at mylib/ops/core.py:20 clash_b",
        "mylib.ops.split: `names`: weak name (fan-out)",
        "mylib.cast: `dtype`: dropped the default `\"float32\"` (a required positional parameter follows)",
        "1 packed (not harvested)",
    ] {
        assert!(report.contains(line), "no `{line}` in:\n{report}");
    }
    // The file is a --config file that `generate` accepts as it is.
    let dir = scratch("harvest-config");
    let config = dir.join("harvested.yaml");
    std::fs::write(&config, &yaml).unwrap();
    let out = dir.join("out");
    let gen = ffihub(&[
        "generate",
        "--lang",
        "node",
        "--name",
        "mylib",
        "--metadata",
        &library(),
        "--config",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&gen.stderr);
    assert!(gen.status.success(), "{stderr}");
    assert!(stderr.contains("from the overlay"), "{stderr}");
}

#[test]
fn generate_harvest_names_parameters_and_hand_entries_win() {
    let dir = scratch("harvest-generate");
    let hand = dir.join("hand.yaml");
    std::fs::write(
        &hand,
        "signatures:\n  version: 1\n  entries:\n    mylib.add:\n      params: [a, b]\n",
    )
    .unwrap();
    let out = dir.join("out");
    let gen = ffihub(&[
        "generate",
        "--lang",
        "node",
        "--name",
        "mylib",
        "--metadata",
        &library(),
        "--harvest",
        "--python",
        &package("mylib"),
        "--config",
        hand.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&gen.stderr);
    assert!(gen.status.success(), "{stderr}");
    assert!(
        stderr.contains("1 from the overlay, 15 from the harvest"),
        "{stderr}"
    );
    let dts = std::fs::read_to_string(out.join("index.d.ts")).unwrap();
    for decl in [
        "function add(a: ",
        "function scale(expr: ",
        // A null default on an object parameter: the binding declares it optional.
        "function var_(name: string, span?: __ffiRoot.Span | null | undefined)",
        // A keyword-only parameter with a default: an options object.
        "constructor(size: number | bigint, options?: { strict?: boolean; });",
        // One parameter fanned out to two locals.
        "export function split(names: ",
        // The roles (ADR 0019): the global `mylib.Var` constructs, `VarName` is a property,
        // `VarWithName` the method `with_name` (called on a copy of the receiver).
        "constructor(name: string, span?: __ffiRoot.Span | null | undefined);",
        "readonly name: string;",
        "withName(name: string): __ffiRoot.Var;",
        // Names that collide in camelCase are made unique; a JavaScript keyword is escaped.
        "export function spelled(anyThing: number | bigint, anyThing_: number | bigint, end: number | bigint, new_: number | bigint)",
    ] {
        assert!(dts.contains(decl), "no `{decl}` in:\n{dts}");
    }
    // A member's doc is the Python function's: the property's getter, the constructor's class
    // (its `__init__` has none), with the note naming the global.
    for doc in [
        "   * The variable's name.\n   * \n   * Calls the global function `mylib.VarName`",
        "   * A variable (the class documents its constructor, as TVM's do).\n   * \n   * Calls \
         the global function `mylib.Var`",
    ] {
        assert!(dts.contains(doc), "no `{doc}` in:\n{dts}");
    }
    // `check` agrees with what `generate --harvest` wrote.
    let check = ffihub(&[
        "check",
        "--lang",
        "node",
        "--name",
        "mylib",
        "--metadata",
        &library(),
        "--harvest",
        "--python",
        &package("mylib"),
        "--config",
        hand.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

/// The overlay accepts what harvests need: `null` for object parameters (the declared type
/// becomes optional, the library's stays for checks) and strings for data types.
#[test]
fn overlay_accepts_null_objects_and_data_type_strings() {
    let text = std::fs::read_to_string(fixture("harvest/library.yaml")).unwrap();
    let doc = Reflection::from_yaml_str(&text).unwrap();
    let overlay: ffihub_schema::Signatures = serde_yaml::from_str(
        "version: 1\nentries:\n  mylib.Var:\n    params: [name, {name: span, default: null}]\n  \
         mylib.cast:\n    params: [{name: dtype, default: float32, keyword_only: true}, x]\n",
    )
    .unwrap();
    let lib = ir::build_with(
        &doc,
        &ir::Options {
            signatures: Some(overlay),
            ..Default::default()
        },
    )
    .unwrap();
    let f = |n: &str| {
        lib.functions
            .iter()
            .find(|f| f.name == n)
            .and_then(|f| f.signature.clone())
            .unwrap()
    };
    let span = &f("mylib.Var").params[1];
    assert_eq!(
        span.ty,
        Type::Optional(Box::new(Type::Class("mylib.Span".into())))
    );
    assert_eq!(span.declared_ty(), &Type::Class("mylib.Span".into()));
    assert_eq!(span.default, Some(ParamDefault::Binding(Literal::None)));
    let dtype = &f("mylib.cast").params[0];
    assert_eq!(
        dtype.default,
        Some(ParamDefault::Binding(Literal::DataType("float32".into())))
    );
}

#[test]
fn unparsable_python_is_a_warning_with_file_and_line() {
    let (yaml, report) = harvest(&package("broken/mylib"));
    assert!(
        report.contains("warning: mylib/bad.py:5: does not parse"),
        "{report}"
    );
    assert!(
        yaml.contains("mylib.add:"),
        "the other files are harvested:\n{yaml}"
    );
}

#[test]
fn a_package_without_ffi_calls_is_a_warning() {
    let (yaml, report) = harvest(&package("empty_pkg"));
    assert!(
        report.contains("warning: the Python package calls no registered function"),
        "{report}"
    );
    assert!(yaml.contains("entries: {}"), "{yaml}");
}

#[test]
fn a_missing_python_folder_is_an_error() {
    let out = ffihub(&[
        "harvest",
        "--metadata",
        &library(),
        "--python",
        "/no/such/dir",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--python /no/such/dir: no such folder"),
        "{stderr}"
    );
    // Without libraries there is no package to find.
    let out = ffihub(&["harvest", "--metadata", &library()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_call_of_another_arity_is_a_warning_and_not_used() {
    let (yaml, report) = harvest(&package("mylib"));
    assert!(
        report.contains(
            "warning: mylib/ops/core.py:42 wrong_arity: `mylib.ops.clash` is called with 1 \
             argument(s), the library's signature has 2"
        ),
        "{report}"
    );
    assert!(yaml.contains("# mylib/ops/core.py:16 clash_a\n"), "{yaml}");
}

/// Python names are valid Python but may be keywords, or collide, once Julia or C++ spells
/// them: `spelled(any_thing, anyThing, end, new)` keeps four distinct, legal names in each
/// (both spell `anyThing` in snake case, so the second becomes `any_thing_`).
#[test]
fn harvested_names_are_spelled_legally_in_julia_and_cpp() {
    let dir = scratch("harvest-spelling");
    let generate = |lang: &str| {
        let out = dir.join(lang);
        let gen = ffihub(&[
            "generate",
            "--lang",
            lang,
            "--name",
            "mylib",
            "--metadata",
            &library(),
            "--harvest",
            "--python",
            &package("mylib"),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            gen.status.success(),
            "{}",
            String::from_utf8_lossy(&gen.stderr)
        );
        out
    };
    let jl = std::fs::read_to_string(generate("julia").join("src/Mylib.jl")).unwrap();
    let decl = "spelled(any_thing::Integer, any_thing_::Integer, end_::Integer, new::Integer)";
    assert!(jl.contains(decl), "no `{decl}` in:\n{jl}");
    let header = generate("cpp").join("mylib/ops.hpp");
    let hpp = std::fs::read_to_string(&header).unwrap();
    let decl = "spelled(int64_t any_thing, int64_t any_thing_, int64_t end, int64_t new_)";
    assert!(hpp.contains(decl), "no `{decl}` in:\n{hpp}");
    let status = cpp_syntax_check(&dir.join("all.cpp"), &[header])
        .status()
        .unwrap();
    assert!(
        status.success(),
        "the harvested C++ header does not compile"
    );
}
