//! The last method of every typed callable of a package, `f(args...; kwargs...)`: Julia picks
//! it when no other method takes the arguments, and it throws the error in the caller's words
//! (TVMFFI's `throw_argument_error`: the parameter, the type it takes, the type given, how many
//! arguments were expected, or the keywords it does not take).
//!
//! It is less specific than every method of the callable, keyword methods included (Julia
//! dispatches on positional arguments only), so it makes no call ambiguous.

use super::model::{literal, tuple_literal};
use super::signature::Rendered;

/// The call the fallback method of the callable `spelled` (as the caller spells it: `add_one`,
/// `Point`) makes, for the parameters `rendered` after the `receiver` (`self`, or nothing).
pub fn fallback(spelled: &str, receiver: Option<&str>, rendered: &Rendered) -> String {
    let params = &rendered.positional;
    let names: Vec<String> = params.iter().map(|p| literal(&p.ident)).collect();
    let annotations: Vec<&str> = params
        .iter()
        .map(|p| p.annot.trim_start_matches("::"))
        .collect();
    let types: Vec<&str> = annotations
        .iter()
        .map(|a| if a.is_empty() { "Any" } else { a })
        .collect();
    let annotation_literals: Vec<String> = annotations.iter().map(|a| literal(a)).collect();
    let keywords: Vec<String> = rendered
        .keywords
        .iter()
        .map(|k| super::names::symbol_literal(k))
        .collect();
    let positional: Vec<&str> = receiver
        .into_iter()
        .chain(params.iter().map(|p| p.ident.as_str()))
        .collect();
    let keyword_idents: Vec<&str> = rendered.keywords.iter().map(String::as_str).collect();
    let signature = match keyword_idents.as_slice() {
        [] => format!("{spelled}({})", positional.join(", ")),
        k => format!("{spelled}({}; {})", positional.join(", "), k.join(", ")),
    };
    format!(
        "TVMFFI.throw_argument_error({}, {}, {}, {}, {}, {}, args, kwargs)",
        literal(&signature),
        tuple_literal(&as_refs(&names)),
        tuple_literal(&types),
        tuple_literal(&as_refs(&annotation_literals)),
        rendered.required,
        tuple_literal(&as_refs(&keywords)),
    )
}

fn as_refs(items: &[String]) -> Vec<&str> {
    items.iter().map(String::as_str).collect()
}
