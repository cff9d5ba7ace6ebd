//! Which header holds what.
//!
//! A library whose items all sit in the package's namespace gets one header, `<ns>.hpp`. A
//! library with nested namespaces (TVM's `tvm::ir`, `tvm::relax::op`...) gets one header per
//! namespace, so that a program compiles only the bodies of the namespaces it includes:
//! - `<ns>/detail.hpp`: the library description (the load-time check), a declaration of every
//!   class, then every class definition (parents first; members declared, not defined);
//! - `<ns>/<a>/<b>.hpp` for the namespace `<ns>::a::b`: `detail.hpp`, then the out-of-line
//!   members of the namespace's classes and its functions;
//! - `<ns>.hpp`, the umbrella: every namespace header, then the items of `<ns>` itself.
//!
//! `detail` is reserved in every namespace, so no namespace header is called `detail.hpp`.

use super::model::{Header, Library};
use crate::lang::naming::grouped;
use std::path::PathBuf;

/// The headers of `library`: their paths and contents. `class_namespaces[i]` and
/// `function_namespaces[i]` are the namespace segments (below the package's) of the class
/// `library.classes[i]` and of the function `library.functions[i]`; `qualified` spells a
/// namespace (`tvm::relax::op`).
pub fn layout<'a>(
    library: &'a Library,
    class_namespaces: &[&[String]],
    function_namespaces: &[&[String]],
    qualified: &dyn Fn(&[String]) -> String,
) -> Vec<(PathBuf, Header<'a>)> {
    let in_ns =
        |namespaces: &[&[String]], ns: &[String], with_definitions: &dyn Fn(usize) -> bool| {
            grouped(
                namespaces
                    .iter()
                    .enumerate()
                    .filter(|&(i, n)| *n == ns && with_definitions(i))
                    .map(|(i, n)| (qualified(n), i))
                    .collect(),
            )
        };
    let declared = || {
        grouped(
            class_namespaces
                .iter()
                .enumerate()
                .map(|(i, n)| (qualified(n), i))
                .collect(),
        )
    };
    let has_definitions = |i: usize| library.classes[i].has_definitions;
    let support = format!("<{}>", library.support_header);
    let root = library.namespace.clone();

    let mut namespaces: Vec<&[String]> = class_namespaces
        .iter()
        .chain(function_namespaces)
        .copied()
        .filter(|n| !n.is_empty())
        .collect();
    namespaces.sort();
    namespaces.dedup();
    if namespaces.is_empty() {
        return vec![(
            PathBuf::from(format!("{root}.hpp")),
            Header {
                lib: library,
                about: String::new(),
                includes: vec![support],
                declares: true,
                declared: declared(),
                defined: in_ns(class_namespaces, &[], &has_definitions),
                functions: in_ns(function_namespaces, &[], &|_| true),
            },
        )];
    }

    let mut headers = vec![(
        PathBuf::from(format!("{root}/detail.hpp")),
        Header {
            lib: library,
            about: format!(
                "// The library description and every class of {root}; {root}.hpp includes every \
                 namespace."
            ),
            includes: vec![support],
            declares: true,
            declared: declared(),
            defined: Vec::new(),
            functions: Vec::new(),
        },
    )];
    let mut umbrella_includes = vec![format!("\"{root}/detail.hpp\"")];
    for ns in namespaces {
        let file = format!("{root}/{}.hpp", ns.join("/"));
        umbrella_includes.push(format!("\"{file}\""));
        headers.push((
            PathBuf::from(file),
            Header {
                lib: library,
                about: format!(
                    "// The functions of namespace {} and the members of its classes.",
                    qualified(ns)
                ),
                includes: vec![format!("\"{}detail.hpp\"", "../".repeat(ns.len() - 1))],
                declares: false,
                declared: Vec::new(),
                defined: in_ns(class_namespaces, ns, &has_definitions),
                functions: in_ns(function_namespaces, ns, &|_| true),
            },
        ));
    }
    headers.push((
        PathBuf::from(format!("{root}.hpp")),
        Header {
            lib: library,
            about: format!(
                "// Every namespace of {root} ({root}/a/b.hpp alone holds {root}::a::b, and compiles \
                 faster)."
            ),
            includes: umbrella_includes,
            declares: false,
            declared: Vec::new(),
            defined: in_ns(class_namespaces, &[], &has_definitions),
            functions: in_ns(function_namespaces, &[], &|_| true),
        },
    ));
    headers
}
