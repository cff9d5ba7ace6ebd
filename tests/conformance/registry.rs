//! Conformance test: what a freshly loaded runtime registers by itself is the same on both
//! runtimes. `tests/c/registry_dump.c` (built against Apache's headers, linked without rpath)
//! lists every `ffi.*` global function with its metadata, and every entry of the standard
//! type-attribute columns; the two listings are compared live, so any global or attribute
//! Apache's runtime gains or changes shows up here. The globals earlier releases had and later
//! ones removed, which ffihub keeps (docs/compatibility.md), are compared with the last release
//! that registered them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use ffihub_tests::{
    apache_release, apache_runtime, built_once, command_on, ffihub_runtime, run_with_timeout,
    Runtime,
};

const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// The type-attribute columns bindings read (every column Apache's runtime knows).
const COLUMNS: [&str; 20] = [
    "__ffi_new__",
    "__ffi_init__",
    "__ffi_convert__",
    "__ffi_convert_type_schema__",
    "__ffi_shallow_copy__",
    "__ffi_type_final__",
    "__ffi_repr__",
    "__ffi_hash__",
    "__ffi_eq__",
    "__ffi_compare__",
    "__any_hash__",
    "__any_equal__",
    "__data_to_json__",
    "__data_from_json__",
    "__s_equal__",
    "__s_hash__",
    "__s_visit__",
    "__s_mutate__",
    "__s_maybe_inplace_mutate__",
    "__ffi_enum__",
];

fn dump_binary() -> PathBuf {
    let sources = ["tests/c/registry_dump.c"];
    built_once(
        &apache_runtime(),
        "registry_dump",
        "registry_dump",
        &sources,
        &[],
    )
}

/// The dump's lines on `runtime`, split at tabs.
fn dump(runtime: &Runtime, args: &[&str]) -> Vec<Vec<String>> {
    let mut cmd = command_on(runtime, &dump_binary());
    cmd.args(args);
    let out = run_with_timeout(cmd, RUN_TIMEOUT);
    assert!(
        out.status.success(),
        "registry_dump {args:?} on the {} runtime: {}\n{}",
        runtime.name,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("UTF-8 listing")
        .lines()
        .map(|line| line.split('\t').map(str::to_owned).collect())
        .collect()
}

/// `ffi.*` global name -> metadata.
fn ffi_globals(runtime: &Runtime) -> BTreeMap<String, String> {
    dump(runtime, &["globals"])
        .into_iter()
        .filter(|f| f.len() == 3 && f[0] == "global" && f[1].starts_with("ffi."))
        .map(|mut f| (f.remove(1), f.remove(1)))
        .collect()
}

/// (column, type key) -> value description; absent columns as (column, "") -> "absent".
fn type_attrs(runtime: &Runtime) -> BTreeMap<(String, String), String> {
    let mut args = vec!["attrs"];
    args.extend(COLUMNS);
    dump(runtime, &args)
        .into_iter()
        .map(|f| match f.as_slice() {
            [kind, column, key, value] if kind == "attr" => {
                ((column.clone(), key.clone()), value.clone())
            }
            [kind, column, absent] if kind == "column" => {
                ((column.clone(), String::new()), absent.clone())
            }
            _ => panic!("unexpected registry_dump line on {}: {f:?}", runtime.name),
        })
        .collect()
}

/// The differences between Apache's listing and ours: entries missing, differing or extra.
fn differences<K: Ord + std::fmt::Debug>(
    apache: &BTreeMap<K, String>,
    ours: &BTreeMap<K, String>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (key, expected) in apache {
        match ours.get(key) {
            None => problems.push(format!("missing on ffihub: {key:?} = {expected}")),
            Some(actual) if actual != expected => problems.push(format!(
                "differs: {key:?}\n    apache: {expected}\n    ffihub: {actual}"
            )),
            Some(_) => {}
        }
    }
    for (key, actual) in ours {
        if !apache.contains_key(key) {
            problems.push(format!("only on ffihub: {key:?} = {actual}"));
        }
    }
    problems
}

/// The globals later releases removed, each with the last release that registered it.
const REMOVED_GLOBALS: [(&str, &str); 5] = [
    ("ffi.MapGetMissingObject", "0.1.8.post2"),
    ("ffi.GetFieldGetter", "0.1.10"),
    ("ffi.MakeFFINew", "0.1.10"),
    ("ffi.MakeInit", "0.1.10"),
    ("ffi.RegisterAutoInit", "0.1.10"),
];

/// A function's `type_schema` metadata as (return type, parameter types), in either form:
/// `{"args":[ret, params...]}` (up to 0.1.14) or `{"named_args":{"return":[ret],"params":[...]}}`.
fn signature(metadata: &str) -> (serde_json::Value, Vec<serde_json::Value>) {
    let outer: serde_json::Value = serde_json::from_str(metadata).expect("metadata is JSON");
    let schema = outer["type_schema"].as_str().expect("a type_schema string");
    let schema: serde_json::Value = serde_json::from_str(schema).expect("type_schema is JSON");
    if let Some(named) = schema.get("named_args") {
        let ret = named["return"][0].clone();
        (ret, named["params"].as_array().cloned().unwrap_or_default())
    } else {
        let args = schema["args"].as_array().cloned().unwrap_or_default();
        let (ret, params) = args.split_first().expect("a return type");
        (ret.clone(), params.to_vec())
    }
}

#[test]
fn ffi_globals_match_apache_by_name_and_metadata() {
    let apache = ffi_globals(&apache_runtime());
    let mut ours = ffi_globals(&ffihub_runtime());
    for (name, release) in REMOVED_GLOBALS {
        assert!(
            !apache.contains_key(name),
            "{name} is a global of Apache's runtime again"
        );
        let metadata = ours
            .remove(name)
            .unwrap_or_else(|| panic!("{name} (a global of {release}) is missing on ffihub"));
        let theirs = ffi_globals(&apache_release(release).runtime());
        let expected = theirs
            .get(name)
            .unwrap_or_else(|| panic!("{name} is not a global of Apache's {release}"));
        assert_eq!(
            signature(&metadata),
            signature(expected),
            "{name}: ffihub's signature against Apache {release}'s"
        );
    }
    assert!(apache.len() >= 100, "Apache's listing: {}", apache.len());
    let problems = differences(&apache, &ours);
    assert!(
        problems.is_empty(),
        "ffi.* globals of a fresh runtime ({} on Apache's, {} on ffihub's):\n{}",
        apache.len(),
        ours.len(),
        problems.join("\n")
    );
}

#[test]
fn type_attributes_match_apache() {
    let apache = type_attrs(&apache_runtime());
    let ours = type_attrs(&ffihub_runtime());
    let problems = differences(&apache, &ours);
    assert!(
        problems.is_empty(),
        "type attributes of a fresh runtime:\n{}",
        problems.join("\n")
    );
}
