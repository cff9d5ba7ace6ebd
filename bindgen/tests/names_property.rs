//! A property test of naming: many generated libraries whose function, type, field, method and
//! namespace names are keywords of each language, collide after sanitizing, are non-ASCII, hold
//! quotes or operators, or are empty once sanitized. For each library and backend, `generate`
//! either writes output that the language's own tools accept (Julia: `Meta.parse` and
//! `Meta.lower` of every statement; Node: a CommonJS parse as `node --check` does it, and
//! `tsc --strict` over the declarations; C++: `g++ -fsyntax-only -Werror`), or fails with
//! diagnostics that name the items. All the cases go through each tool in one invocation.

mod common;

use common::*;
use ffihub_bindgen::{generate, ir, lang};
use ffihub_schema::Reflection;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How many libraries are generated.
const CASES: usize = 160;

/// Names that sanitize to the same identifier, grouped so that a case draws several members of
/// a group (collisions after sanitizing and case conversion).
const FAMILIES: &[&[&str]] = &[
    &[
        "a-b", "a b", "a\"b", "a_b", "a__b", "A_B", "aB", "a'b", "a\\b", "a`b",
    ],
    &[
        "x+y", "x-y", "x*y", "x/y", "x==y", "x<y", "x->y", "x::y", "x_y", "x$y",
    ],
    &[
        "end", "End", "end_", "END", "function", "begin", "module", "export", "struct", "quote",
    ],
    &[
        "nothing", "missing", "Base", "Core", "Main", "isa", "where", "in", "true", "do",
    ],
    &[
        "class",
        "delete",
        "new",
        "this",
        "typeof",
        "yield",
        "await",
        "enum",
        "constructor",
    ],
    &[
        "prototype",
        "toString",
        "valueOf",
        "__proto__",
        "hasOwnProperty",
        "arguments",
        "eval",
    ],
    &[
        "require",
        "module",
        "exports",
        "undefined",
        "name",
        "length",
        "caller",
        "number",
    ],
    &[
        "int",
        "template",
        "operator",
        "namespace",
        "auto",
        "register",
        "volatile",
        "typename",
    ],
    &[
        "and",
        "or",
        "not",
        "xor",
        "bitand",
        "compl",
        "decltype",
        "static_assert",
        "requires",
    ],
    &[
        "std", "ffihub", "detail", "NULL", "nullptr", "errno", "assert", "EOF", "main",
    ],
    &[
        "Any",
        "Object",
        "ObjectRef",
        "Function",
        "Tensor",
        "String",
        "Array",
        "Map",
        "Optional",
    ],
    &[
        "handle", "release", "self", "data", "size", "type", "value", "get", "set",
    ],
    &[
        "é", "naïve", "日本", "Ünï", "ß", "🙂", "µs", "e\u{301}", "ё",
    ],
    &[
        "", "_", "__", "-", "!!", "123", "1a", " ", "?", "@", "#", "%", "$", "$(x)",
    ],
    &[
        "__ffi_x",
        "__ffix",
        "_ffi_x",
        "ffi_library",
        "_",
        "__init__",
        "__call__",
    ],
    &[
        "BitwiseAnd",
        "bitwise_and",
        "bitwiseAnd",
        "BITWISE_AND",
        "bitwise-and",
    ],
];

/// Namespace segments (the middle of a dotted name).
const NAMESPACES: &[&str] = &[
    "ns", "end", "class", "a b", "std", "Base", "detail", "ffihub", "日本", "x-y", "int", "module",
    "_", "exports", "prop",
];

/// splitmix64: a small deterministic generator (the cases must be the same on every run).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// `min` to `min + spread - 1` draws from one family, without repeats.
    fn names(&mut self, min: usize, spread: usize) -> Vec<String> {
        let n = min + self.below(spread);
        let family = FAMILIES[self.below(FAMILIES.len())];
        let mut out: Vec<String> = Vec::new();
        for _ in 0..n {
            let name = self.pick(family).to_string();
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }

    /// A dotted name under `root`, sometimes in a namespace.
    fn dotted(&mut self, root: &str, last: &str) -> String {
        if self.below(4) == 0 {
            format!("{root}.{}.{last}", self.pick(NAMESPACES))
        } else {
            format!("{root}.{last}")
        }
    }
}

fn int() -> Value {
    json!({"type": "int"})
}

/// One library: functions and types named from a few families.
fn case(rng: &mut Rng, root: &str) -> Value {
    let mut types: Vec<Value> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    for name in rng.names(0, 3) {
        let key = rng.dotted(root, &name);
        if keys.contains(&key) {
            continue;
        }
        let fields: Vec<Value> = rng
            .names(0, 4)
            .into_iter()
            .map(|f| json!({"name": f, "type": int()}))
            .collect();
        let methods: Vec<Value> = rng
            .names(0, 4)
            .into_iter()
            .map(|m| {
                if rng.below(3) == 0 {
                    json!({"name": m, "static": true,
                           "signature": {"params": [int()], "return": int()}})
                } else {
                    json!({"name": m,
                           "signature": {"params": [{"type": key}, int()], "return": int()}})
                }
            })
            .collect();
        types.push(json!({
            "key": key, "ancestors": ["ffi.Object"], "constructor": "auto_init",
            "fields": fields, "methods": methods,
        }));
        keys.push(key);
    }
    let mut functions: Vec<Value> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for _ in 0..1 + rng.below(3) {
        for last in rng.names(2, 4) {
            let name = rng.dotted(root, &last);
            if names.contains(&name) || keys.contains(&name) {
                continue;
            }
            let param = match keys.get(rng.below(keys.len() + 1)) {
                Some(key) => json!({"type": key}),
                None => int(),
            };
            functions.push(json!({
                "name": name, "signature": {"params": [param], "return": int()},
            }));
            names.push(name);
        }
    }
    functions.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    types.sort_by(|a, b| a["key"].as_str().cmp(&b["key"].as_str()));
    json!({
        "format_version": 1, "libraries": [format!("lib{root}.so")],
        "functions": functions, "types": types,
    })
}

/// The registered names of a case, for messages.
fn registered(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for f in doc["functions"].as_array().unwrap() {
        out.push(f["name"].as_str().unwrap().to_string());
    }
    for t in doc["types"].as_array().unwrap() {
        let key = t["key"].as_str().unwrap();
        out.push(key.to_string());
        for m in t["fields"]
            .as_array()
            .unwrap()
            .iter()
            .chain(t["methods"].as_array().unwrap())
        {
            out.push(format!("{key}.{}", m["name"].as_str().unwrap()));
        }
    }
    out
}

/// What each case produced.
#[derive(Default)]
struct Outcome {
    /// Files written, by language.
    files: Vec<(&'static str, PathBuf)>,
    /// Libraries generated / refused, by backend name.
    generated: std::collections::BTreeMap<&'static str, (usize, usize)>,
}

fn run_tool(mut cmd: Command, what: &str, failures: &mut String) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    if !out.status.success() {
        let _ = writeln!(
            failures,
            "{what} rejected generated code ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Julia: every file parses and every top-level statement (and each statement of a module)
/// lowers without an error expression.
const JULIA_CHECK: &str = r#"
function problem(path)
    ex = try
        Meta.parse("begin\n" * read(path, String) * "\nend")
    catch e
        return sprint(showerror, e)
    end
    ex isa Expr && ex.head in (:error, :incomplete) && return string(ex.args[1])
    sandbox = Module(:Sandbox)
    Core.eval(sandbox, :(using Test))  # the generated tests' macros
    for stmt in ex.args
        body = stmt isa Expr && stmt.head == :module ? stmt.args[3].args : Any[stmt]
        for s in body
            lowered = try
                Meta.lower(sandbox, s)
            catch e
                return sprint(showerror, e)
            end
            lowered isa Expr && lowered.head in (:error, :incomplete) && return string(lowered.args[1])
        end
    end
    return nothing
end
bad = 0
for path in readlines(ARGS[1])
    p = problem(path)
    p === nothing && continue
    global bad += 1
    println(path, ": ", p)
end
exit(bad == 0 ? 0 : 1)
"#;

/// Node: each file compiles as the CommonJS module `node --check` would compile.
const NODE_CHECK: &str = r#"
const fs = require('fs'), vm = require('vm'), { wrap } = require('module');
let bad = 0;
for (const path of fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean)) {
  try {
    new vm.Script(wrap(fs.readFileSync(path, 'utf8')), { filename: path });
  } catch (e) {
    bad++;
    console.log(`${path}: ${e}`);
  }
}
process.exit(bad ? 1 : 0);
"#;

fn check_julia(root: &Path, files: &[PathBuf], failures: &mut String) {
    let julia = workspace().join("scripts/julia");
    let probe = Command::new(&julia).arg("--version").output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("Julia not installed (scripts/setup-julia.sh): Julia output not parsed");
        return;
    }
    let list = root.join("julia-files.txt");
    std::fs::write(&list, lines(files)).unwrap();
    let script = root.join("check.jl");
    std::fs::write(&script, JULIA_CHECK).unwrap();
    let mut cmd = Command::new(julia);
    cmd.args(["--startup-file=no"]).arg(&script).arg(&list);
    run_tool(cmd, "Julia Meta.parse/Meta.lower", failures);
}

fn check_node(root: &Path, js: &[PathBuf], dts: &[PathBuf], failures: &mut String) {
    if !tool("node") {
        eprintln!("node not installed: Node output not parsed");
        return;
    }
    let list = root.join("js-files.txt");
    std::fs::write(&list, lines(js)).unwrap();
    let script = root.join("check.js");
    std::fs::write(&script, NODE_CHECK).unwrap();
    let mut cmd = Command::new("node");
    cmd.arg(&script).arg(&list);
    run_tool(cmd, "node (CommonJS parse)", failures);

    let node_tests = workspace().join("tests/node");
    let tsc = node_tests.join("node_modules/typescript/bin/tsc");
    if !tsc.is_file() {
        eprintln!("tsc not installed (scripts/setup-node.sh): declarations not type-checked");
        return;
    }
    let config = root.join("tsconfig.json");
    let support = workspace().join("bindings/node/index.d.ts");
    let settings = json!({
        "extends": node_tests.join("types/tsconfig.json"),
        "compilerOptions": {"baseUrl": root, "paths": {"@ffihub/tvm-ffi": [support]}},
        "files": dts,
    });
    std::fs::write(&config, settings.to_string()).unwrap();
    let mut cmd = Command::new("node");
    cmd.arg(&tsc)
        .args(["-p", config.to_str().unwrap(), "--pretty", "false"]);
    run_tool(cmd, "tsc --strict", failures);
}

fn check_cpp(root: &Path, headers: &[PathBuf], failures: &mut String) {
    if !tool("g++") {
        eprintln!("g++ not installed: C++ output not compiled");
        return;
    }
    // One translation unit: every case has its own namespace.
    let cmd = cpp_syntax_check(&root.join("all.cpp"), headers);
    run_tool(cmd, "g++ -fsyntax-only -Werror", failures);
}

fn lines(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| format!("{}\n", p.display())).collect()
}

#[test]
fn generated_names_always_parse_or_are_refused_with_a_clear_error() {
    let root = scratch("names-property");
    let mut rng = Rng(0x5eed_2028);
    let mut outcome = Outcome::default();
    let mut failures = String::new();
    let mut index = String::new();
    for i in 0..CASES {
        let name = format!("prop{i}");
        let doc_value = case(&mut rng, &name);
        let doc = Reflection::from_json_str(&doc_value.to_string()).unwrap();
        let names = registered(&doc_value);
        let _ = writeln!(index, "case {i}: {names:?}");
        let lib = match ir::build(&doc) {
            Ok(lib) => lib,
            Err(e) => {
                // The IR refuses some documents outright (one line, no backend runs).
                assert!(!e.is_empty() && !e.contains('\n'), "case {i}: {e:?}");
                continue;
            }
        };
        let cfg = lang::Config {
            name: name.clone(),
            allow_unsupported: vec!["*".into()],
            ..Default::default()
        };
        for backend in lang::BACKENDS {
            let counts = outcome.generated.entry(backend.name).or_default();
            match generate(&lib, &[backend], &cfg) {
                Ok(files) => {
                    counts.0 += 1;
                    let dir = root.join(&name).join(backend.name);
                    ffihub_bindgen::filemap::write(&files, &dir).unwrap();
                    for path in files.keys() {
                        outcome.files.push((backend.name, dir.join(path)));
                    }
                }
                Err(diags) => {
                    counts.1 += 1;
                    // A clear error: every diagnostic names one of the case's items (or
                    // namespaces).
                    for d in diags.sorted() {
                        let named = names.contains(&d.item)
                            || d.item.strip_prefix("namespace ").is_some_and(|ns| {
                                names.iter().any(|n| n.contains(&format!(".{ns}.")))
                            });
                        assert!(
                            !d.message.is_empty() && named,
                            "case {i}, {}: a diagnostic that names no item: {d}\n{names:?}",
                            backend.name
                        );
                    }
                }
            }
        }
    }
    std::fs::write(root.join("cases.txt"), &index).unwrap();
    // Most libraries generate: the property is not met by refusing everything.
    for (lang, (ok, refused)) in &outcome.generated {
        eprintln!("{lang}: {ok} libraries generated, {refused} refused");
        assert!(
            *ok >= CASES / 2,
            "{lang}: only {ok} of {CASES} libraries generated"
        );
    }
    let of = |lang: &str, suffix: &str| -> Vec<PathBuf> {
        outcome
            .files
            .iter()
            .filter(|(l, p)| *l == lang && p.to_string_lossy().ends_with(suffix))
            .map(|(_, p)| p.clone())
            .collect()
    };
    check_julia(&root, &of("julia", ".jl"), &mut failures);
    check_node(
        &root,
        &of("node", ".js"),
        &of("node", ".d.ts"),
        &mut failures,
    );
    check_cpp(&root, &of("cpp", ".hpp"), &mut failures);
    assert!(
        failures.is_empty(),
        "{failures}\n(the names of each case: {})",
        root.join("cases.txt").display()
    );
}
