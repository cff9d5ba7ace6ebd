//! The runtime's modules are layered by folder (docs/architecture.md, "The runtime's layers"):
//! a file under `runtime/src/<folder>/` names, through `crate::` paths (code, doc links and
//! comments alike), only its own folder, lower folders and the items of the crate root. This test
//! reads every source file and fails on a path that reaches up a layer, or on a folder missing
//! from the table.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The folders of `runtime/src`, lowest layer first.
const LAYERS: [&str; 8] = [
    "value",
    "registry",
    "containers",
    "compat",
    "walks",
    "module",
    "builtins",
    "c_api",
];

/// Items of the crate root any module may name: the ABI re-exports (below every layer) and the
/// functions through which the registries get the built-ins (the crate root wires the layers).
const ROOT_ITEMS: [&str; 5] = [
    "abi",
    "dlpack",
    "tindex",
    "builtin_globals",
    "register_builtin_types",
];

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read runtime/src") {
        let path = entry.expect("read runtime/src").path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The first segments of the `crate::` paths in `text`, with `crate::{a, b::c}` read as `a` and
/// `b`.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = BTreeSet::new();
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices("crate::") {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        // Not the tail of another name (`ffihub_crate::`); `$crate::` in macros counts.
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            continue;
        }
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        found.insert(ident(&group[i..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident(rest));
        }
    }
    found.remove("");
    found
}

#[test]
fn no_module_names_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    source_files(&src, &mut files);
    files.sort();
    let layer_of = |name: &str| LAYERS.iter().position(|l| *l == name);
    let mut problems = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src");
        let shown = format!("runtime/src/{}", relative.display());
        let mut components = relative.components();
        let first = components.next().expect("a path").as_os_str();
        if components.next().is_none() {
            // The crate root is the one place that wires the layers together.
            if first != "lib.rs" {
                problems.push(format!("{shown}: a module outside the layer folders"));
            }
            continue;
        }
        let folder = first.to_str().expect("UTF-8 names");
        let Some(own) = layer_of(folder) else {
            problems.push(format!(
                "{shown}: the folder `{folder}` has no layer in LAYERS"
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).expect("read a source file");
        for name in crate_paths(&text) {
            match layer_of(&name) {
                Some(layer) if layer > own => problems.push(format!(
                    "{shown}: names crate::{name}, a higher layer than `{folder}`"
                )),
                Some(_) => {}
                None if ROOT_ITEMS.contains(&name.as_str()) => {}
                None => problems.push(format!(
                    "{shown}: names crate::{name}, which is neither a layer nor a root item"
                )),
            }
        }
    }
    assert!(files.len() > 50, "read only {} files", files.len());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn crate_paths_reads_groups_and_skips_other_names() {
    let text = "use crate::value::any::Any;\nuse crate::{registry::types, walks};\n\
                $crate::containers::seq\nffihub_crate::builtins\n/// [`crate::c_api`]";
    let names: Vec<String> = crate_paths(text).into_iter().collect();
    assert_eq!(
        names,
        ["c_api", "containers", "registry", "value", "walks"].map(String::from)
    );
}
