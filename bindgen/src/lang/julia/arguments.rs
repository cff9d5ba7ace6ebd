//! The last method of every typed callable of a package, `f(args...; kwargs...)`: Julia picks
//! it when no other method takes the arguments, and it throws the error in the caller's words
//! (TVMFFI's `throw_argument_error`: the parameter, the type it takes, the type given, or how
//! many arguments were expected).

use super::model::{literal, tuple_literal, Param};

/// The call the fallback method of the callable `spelled` (as the caller spells it: `add_one`,
/// `Point`) makes: `params` are its positional parameters after the `receiver` (`self`, or
/// nothing), of which the first `required` must be given.
pub fn fallback(
    spelled: &str,
    receiver: Option<&str>,
    params: &[&Param],
    required: usize,
) -> String {
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
    let idents: Vec<&str> = receiver
        .into_iter()
        .chain(params.iter().map(|p| p.ident.as_str()))
        .collect();
    format!(
        "TVMFFI.throw_argument_error({}, {}, {}, {}, {required}, args, kwargs)",
        literal(&format!("{spelled}({})", idents.join(", "))),
        tuple_literal(&as_refs(&names)),
        tuple_literal(&types),
        tuple_literal(&as_refs(&annotation_literals)),
    )
}

fn as_refs(items: &[String]) -> Vec<&str> {
    items.iter().map(String::as_str).collect()
}
