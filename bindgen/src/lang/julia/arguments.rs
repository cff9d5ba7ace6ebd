//! Errors in the caller's words for the typed callables of a package.
//!
//! - The last method of each, `f(args...; kwargs...)`: Julia picks it when no other method takes
//!   the arguments, and it throws the error (TVMFFI's `throw_argument_error`: the parameter, the
//!   type it takes, the type given, how many arguments were expected, or the keywords it does
//!   not take). It is less specific than every method of the callable, keyword methods included
//!   (Julia dispatches on positional arguments only), so it makes no call ambiguous.
//! - Its `TVMFFI.CallInfo`, which `TVMFFI.call_typed` uses to word a TypeError the library
//!   raises about an argument that the parameter's Julia type took (a vector with a string
//!   element for `Array[int]`).

use super::names;
use super::signature::{Protocol, Rendered};
use super::text::{literal, tuple_literal};
use super::types::TypeNames;
use crate::lang::params::Layout;

/// The constant holding a typed callable's `TVMFFI.CallInfo` (`call_info`), which it
/// passes to `TVMFFI.call_typed` so that the library's TypeErrors about its arguments are in the
/// caller's words.
pub struct CallInfo {
    /// The constant's name (`_ffi_info_fn_add_one`).
    pub name: String,
    /// Its value.
    pub value: String,
}

impl CallInfo {
    /// The `CallInfo` constant of the callable whose handle constant is `handle`.
    pub(super) fn new(handle: &str, value: String) -> CallInfo {
        let base = handle
            .strip_prefix(names::RESERVED_PREFIX)
            .unwrap_or(handle);
        CallInfo {
            name: format!("{}info_{base}", names::RESERVED_PREFIX),
            value,
        }
    }
}

/// How the caller spells the callable `spelled` with its parameters after the `receiver`
/// (`self`, or nothing): `add_one(x)`, `fill(self, bitmask, index; debug_print)`.
pub fn signature(spelled: &str, receiver: Option<&str>, rendered: &Rendered) -> String {
    let positional: Vec<&str> = receiver
        .into_iter()
        .chain(rendered.positional.iter().map(|p| p.ident.as_str()))
        .collect();
    match rendered.keywords.as_slice() {
        [] => format!("{spelled}({})", positional.join(", ")),
        k => format!("{spelled}({}; {})", positional.join(", "), k.join(", ")),
    }
}

/// The `TVMFFI.CallInfo(...)` expression of a callable that the caller spells as `signature`
/// and that calls `callee` (its registered name; a type key and `.` for a constructor), with
/// the parameters of `layout` taken by `protocol`; the runtime numbers a positional call's
/// arguments from `offset` (1 after a method's receiver).
pub fn call_info(
    types: &TypeNames,
    signature: &str,
    callee: &str,
    layout: &Layout<'_>,
    offset: usize,
    protocol: Protocol,
) -> String {
    let positional = layout.required.len() + layout.optional.len();
    let params: Vec<String> = layout
        .offered()
        .enumerate()
        .map(|(i, o)| {
            let argument = match protocol {
                Protocol::Positional => (o.index + offset).to_string(),
                // Positional arguments first, in the caller's order; keywords by name.
                Protocol::Kwargs if i < positional => i.to_string(),
                Protocol::Kwargs => "-1".to_string(),
            };
            format!(
                "({}, {}, {}, {argument})",
                literal(&o.ident),
                literal(&o.param.name),
                literal(&types.expected(&o.param.ty))
            )
        })
        .collect();
    let params: Vec<&str> = params.iter().map(String::as_str).collect();
    format!(
        "TVMFFI.CallInfo({}, {}, {})",
        literal(signature),
        literal(callee),
        tuple_literal(&params)
    )
}

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
    format!(
        "TVMFFI.throw_argument_error({}, {}, {}, {}, {}, {}, args, kwargs)",
        literal(&signature(spelled, receiver, rendered)),
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
