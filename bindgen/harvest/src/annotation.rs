//! Python annotations in the compact TVM-FFI type spelling (`Optional[ffi.Array[int]]`,
//! `mylib.Grammar`), where they have one. Unions of several types, `Callable`, numpy arrays
//! and Python-only classes have none: the generator keeps the library's type.

use crate::index::{Index, ModScope, Value};
use crate::sites::last_name;
use ruff_python_ast::{self as ast, Expr};

/// Array-like classes that cross as tensors (never `ArrayLike`, which includes lists).
const TENSORS: &[&str] = &[
    "torch.Tensor",
    "numpy.ndarray",
    "mlx.core.array",
    "tvm_ffi.Tensor",
    "tvm_ffi.core.Tensor",
];

/// The compact spelling of an annotation, or why it has none (its source text, shortened).
pub fn compact(ann: &Expr, ix: &Index<'_>, module: usize, text: &str) -> Result<String, String> {
    spell(ann, ix, module, 0).ok_or_else(|| {
        let src = source(ann, text);
        let short: String = src.chars().take(60).collect();
        short
    })
}

/// The source text of an expression.
pub fn source<'t>(e: &Expr, text: &'t str) -> &'t str {
    use ruff_text_size::Ranged;
    text.get(e.range().to_std_range()).unwrap_or("")
}

fn spell(ann: &Expr, ix: &Index<'_>, module: usize, depth: u32) -> Option<String> {
    if depth > 10 {
        return None;
    }
    match ann {
        Expr::StringLiteral(s) => {
            let parsed = ruff_python_parser::parse_expression(s.value.to_str()).ok()?;
            spell(parsed.expr(), ix, module, depth + 1)
        }
        Expr::NoneLiteral(_) => Some("None".into()),
        Expr::BinOp(b) if b.op == ast::Operator::BitOr => {
            let mut parts = Vec::new();
            flatten_union(ann, &mut parts);
            union(&parts, ix, module, depth)
        }
        Expr::Subscript(s) => {
            let head = last_name(&s.value)?;
            let elts: Vec<&Expr> = match &*s.slice {
                Expr::Tuple(t) => t.elts.iter().collect(),
                e => vec![e],
            };
            match head {
                "Optional" => {
                    let none = Expr::NoneLiteral(ast::ExprNoneLiteral::default());
                    union(&[elts.first().copied()?, &none], ix, module, depth)
                }
                "Union" => union(&elts, ix, module, depth),
                "List" | "list" | "Sequence" => Some(format!(
                    "ffi.Array[{}]",
                    spell(elts.first()?, ix, module, depth + 1)?
                )),
                "Tuple" | "tuple" => {
                    if let [one, Expr::EllipsisLiteral(_)] = elts.as_slice() {
                        return Some(format!("ffi.Array[{}]", spell(one, ix, module, depth + 1)?));
                    }
                    let args: Option<Vec<String>> = elts
                        .iter()
                        .map(|e| spell(e, ix, module, depth + 1))
                        .collect();
                    Some(format!("Tuple[{}]", args?.join(", ")))
                }
                "Dict" | "dict" | "Mapping" => {
                    let [k, v] = elts.as_slice() else { return None };
                    Some(format!(
                        "ffi.Map[{}, {}]",
                        spell(k, ix, module, depth + 1)?,
                        spell(v, ix, module, depth + 1)?
                    ))
                }
                "Literal" => {
                    let all = |f: fn(&Expr) -> bool| !elts.is_empty() && elts.iter().all(|e| f(e));
                    if all(|e| e.is_string_literal_expr()) {
                        Some("ffi.String".into())
                    } else if all(|e| e.is_number_literal_expr()) {
                        Some("int".into())
                    } else {
                        None
                    }
                }
                _ => None,
            }
        }
        Expr::Name(_) | Expr::Attribute(_) => {
            let last = last_name(ann)?;
            let builtin = match last {
                "int" => Some("int"),
                "bool" => Some("bool"),
                "float" => Some("float"),
                "str" => Some("ffi.String"),
                "bytes" => Some("ffi.Bytes"),
                "Any" | "object" => Some("Any"),
                _ => None,
            };
            if let (Some(b), Expr::Name(_)) = (builtin, ann) {
                return Some(b.into());
            }
            match ix.eval(ann, &ModScope(module), 0) {
                Some(Value::External(n)) if n == "typing.Any" => Some("Any".into()),
                Some(Value::External(n)) if TENSORS.contains(&n.as_str()) => {
                    Some("ffi.Tensor".into())
                }
                Some(Value::Class(c)) => {
                    let ci = &ix.classes[c];
                    let key = ci.type_key.as_ref().or(ci.handle_key.as_ref())?;
                    ix.reg.types.contains_key(key).then(|| key.clone())
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn flatten_union<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::BinOp(b) if b.op == ast::Operator::BitOr => {
            flatten_union(&b.left, out);
            flatten_union(&b.right, out);
        }
        e => out.push(e),
    }
}

/// `X | None` is `Optional[X]`; a union of several types has no spelling here (a `Variant`
/// would be valid but reads worse than the library's type in most bindings).
fn union(parts: &[&Expr], ix: &Index<'_>, module: usize, depth: u32) -> Option<String> {
    let spelled: Option<Vec<String>> = parts
        .iter()
        .map(|p| spell(p, ix, module, depth + 1))
        .collect();
    let spelled = spelled?;
    let optional = spelled.iter().any(|s| s == "None");
    let rest: Vec<&String> = spelled.iter().filter(|s| *s != "None").collect();
    match rest.as_slice() {
        [one] if optional => Some(format!("Optional[{one}]")),
        [one] => Some((*one).clone()),
        _ => None,
    }
}
