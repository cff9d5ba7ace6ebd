//! What generated wrappers say about themselves, so that their errors are in the caller's
//! words (the support package's `lib/wrappers.js` writes the messages), and how they return
//! typed results as declared.

use super::model::{literal, Types};
use super::names::OPTIONS_PARAM;
use crate::ir::Type;
use crate::lang::params::{Layout, Offered};

/// A wrapper's description for its errors, and its argument-count check.
#[derive(Default)]
pub struct Errors {
    /// `[name, params, callee, positional, keyword, required]` as a JS literal (the `CallInfo`
    /// of `wrappers.js`).
    pub info: String,
    /// The condition on `arguments.length` that a wrong number of arguments meets.
    pub count_check: String,
    /// The first argument beyond the most it takes (`arguments[2]`), for the message.
    pub extra_arg: String,
    /// The parameters' values as the caller gave them, positional ones then the options'
    /// (`[schema, options?.strict]`), as a JS array literal.
    pub values: String,
}

/// The description of a wrapper named `name` as the caller spells it (`addOne`,
/// `Point.translate`, `new Point`) with the parameters of `layout`, of which a call must give
/// the first `required` (positional ones, then an options object with the keyword-only ones).
/// It calls `callee` (its registered name; for a constructor the type key and `.`), whose
/// runtime errors count the library's parameters from `offset` (1 after an instance method's
/// receiver).
pub fn errors(
    types: &Types,
    name: &str,
    callee: &str,
    offset: usize,
    layout: &Layout<'_>,
    required: usize,
) -> Errors {
    let positional: Vec<&Offered<'_>> = layout.required.iter().chain(&layout.optional).collect();
    let describe = |display: &str, o: &Offered<'_>| {
        format!(
            "[{}, {}, {}, {}]",
            literal(display),
            literal(&o.param.name),
            literal(&expected(types, &o.param.ty)),
            o.index + offset
        )
    };
    let mut js_params: Vec<&str> = positional.iter().map(|o| o.ident.as_str()).collect();
    let mut values: Vec<String> = js_params.iter().map(|p| p.to_string()).collect();
    if !layout.keyword.is_empty() {
        js_params.push(OPTIONS_PARAM);
        values.extend(
            layout
                .keyword
                .iter()
                .map(|k| format!("{OPTIONS_PARAM}?.{}", k.ident)),
        );
    }
    let most = js_params.len();
    let described = |items: Vec<String>| format!("[{}]", items.join(", "));
    Errors {
        info: format!(
            "[{}, {}, {}, {}, {}, {required}]",
            literal(name),
            literal(&js_params.join(", ")),
            literal(callee),
            described(positional.iter().map(|o| describe(&o.ident, o)).collect()),
            described(
                layout
                    .keyword
                    .iter()
                    .map(|k| describe(&format!("{OPTIONS_PARAM}.{}", k.ident), k))
                    .collect()
            ),
        ),
        count_check: match (required, most) {
            (r, m) if r == m => format!("arguments.length !== {m}"),
            (0, m) => format!("arguments.length > {m}"),
            (r, m) => format!("arguments.length < {r} || arguments.length > {m}"),
        },
        extra_arg: format!("arguments[{most}]"),
        values: format!("[{}]", values.join(", ")),
    }
}

/// What a parameter of type `ty` takes, in JavaScript's terms (`an integer (number or bigint)`).
pub fn expected(types: &Types, ty: &Type) -> String {
    match ty {
        Type::None => "null".into(),
        Type::Any => "any value".into(),
        Type::Bool => "a boolean".into(),
        Type::Int => "an integer (number or bigint)".into(),
        Type::BigInt => "an integer (bigint or number)".into(),
        Type::Float => "a number".into(),
        Type::OpaquePtr => "an ffi.OpaquePtr".into(),
        Type::DataType => "a data type (ffi.DataType or a name like 'float32')".into(),
        Type::Device => "a device (ffi.Device or a name like 'cuda:0')".into(),
        Type::String => "a string".into(),
        Type::Bytes => "bytes (a Uint8Array, ArrayBuffer or DataView)".into(),
        Type::Tensor => "a tensor (ffi.Tensor or a TypedArray)".into(),
        Type::Shape => "a shape (ffi.Shape or an array of integers)".into(),
        Type::Object => "a TVM-FFI object".into(),
        Type::Module => "an ffi.Module".into(),
        Type::Error => "an Error".into(),
        Type::Array(t) | Type::List(t) => format!("an array of {}", plural(types, t)),
        Type::Map(k, v) | Type::Dict(k, v) => format!(
            "a Map (or plain object) from {} to {}",
            plural(types, k),
            plural(types, v)
        ),
        Type::Optional(t) => format!("{} or null", expected(types, t)),
        Type::Variant(ts) => one_of(ts.iter().map(|t| expected(types, t)).collect()),
        Type::Tuple(ts) => format!("an array of {} items", ts.len()),
        Type::Function(_) => "a function".into(),
        Type::Class(key) => {
            let class = class_name(types, key);
            let article = if class.starts_with(['A', 'E', 'I', 'O', 'U']) {
                "an"
            } else {
                "a"
            };
            format!("{article} {class}")
        }
    }
}

/// Values of type `ty`, in the plural (`integers`, `Point objects`).
fn plural(types: &Types, ty: &Type) -> String {
    match ty {
        Type::Any => "any values".into(),
        Type::Bool => "booleans".into(),
        Type::Int | Type::BigInt => "integers".into(),
        Type::Float => "numbers".into(),
        Type::String => "strings".into(),
        Type::Array(_) | Type::List(_) | Type::Tuple(_) => "arrays".into(),
        Type::Map(..) | Type::Dict(..) => "maps".into(),
        Type::Function(_) => "functions".into(),
        Type::Tensor => "tensors".into(),
        Type::Class(key) => format!("{} objects", class_name(types, key)),
        Type::Optional(t) => format!("{} or null", plural(types, t)),
        other => format!("values that are {}", expected(types, other)),
    }
}

fn class_name(types: &Types, key: &str) -> String {
    types
        .0
        .get(key)
        .and_then(|path| path.rsplit('.').next())
        .map_or_else(|| format!("object of type {key}"), str::to_string)
}

fn one_of(mut items: Vec<String>) -> String {
    match items.len() {
        0 => "nothing".into(),
        1 => items.remove(0),
        _ => {
            let last = items.pop().unwrap_or_default();
            format!("{} or {last}", items.join(", "))
        }
    }
}

/// How a wrapper returns a result of type `ty` as its declaration says: the text before and
/// after the expression that produces it. Integers come back as numbers (a value beyond ±2^53
/// is a RangeError naming `name`), `bigint`-typed values as bigints; with `none_as_undefined`
/// the expression gives `undefined` for None, which becomes `null`.
pub fn result(ty: &Type, name: &str, none_as_undefined: bool) -> (String, String) {
    let inner = match ty {
        Type::Optional(t) => t,
        other => other,
    };
    match inner {
        Type::Int => ("__ffi.intResult(".into(), format!(", {})", literal(name))),
        Type::BigInt => ("__ffi.bigintResult(".into(), ")".into()),
        _ if none_as_undefined => (String::new(), " ?? null".into()),
        _ => (String::new(), String::new()),
    }
}

/// The TypeScript type of a result of type `ty`, where it differs from `Types::ts` (values
/// that `result` converts).
pub fn declared_result(types: &Types, ty: &Type) -> String {
    match ty {
        Type::BigInt => "bigint".into(),
        Type::Optional(t) if **t == Type::BigInt => "bigint | null".into(),
        other => types.ts(other, false),
    }
}
