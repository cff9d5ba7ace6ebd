//! C++ signatures. C++ has no keyword arguments, so:
//! - required parameters (positional or keyword-only) are plain parameters, in the library's
//!   order, positional ones first;
//! - positional parameters with a default are parameters with a default argument (`= true`);
//!   when the default has no C++ spelling and the library fills it in (a constructor), a
//!   `std::optional` defaulting to `std::nullopt` that is left out when unset; otherwise
//!   (only the binding knows it) the parameter is required;
//! - keyword-only parameters with a default are members of an options struct (an aggregate
//!   with default member initializers, `<Function>Options`, or `Options` for a constructor),
//!   taken last as `const XOptions& options = {}`: callers set the members they need
//!   (`XOptions o; o.any_whitespace = false;`, or `{.any_whitespace = false}` in C++20).
//!
//! The library is called with the arguments in its own order.

use super::model::{comment_text, literal, Param, Types};
use super::names;
use crate::ir::{Literal, ParamDefault, Type};
use crate::lang::params::{Layout, Offered};

/// How a C++ parameter or options member passes its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passing {
    /// Always passed.
    Always,
    /// A `std::optional` passed only when set (the library applies its default otherwise).
    WhenSet,
}

/// One argument of the library call, in the library's order.
pub struct Arg {
    /// The registered parameter name, as a C++ string literal.
    pub name: String,
    /// The expression (`schema`, `options.any_whitespace`).
    pub expr: String,
    /// How it is passed.
    pub passing: Passing,
}

/// A member of an options struct.
pub struct Member {
    /// Doc comment lines.
    pub doc: Vec<String>,
    /// Its declaration (`bool any_whitespace`).
    pub decl: String,
    /// Its default member initializer (` = true`).
    pub init: String,
}

/// The options struct of a callable's keyword-only parameters with defaults.
pub struct Options {
    /// Its name (`FromJsonSchemaOptions`, `Options`).
    pub ident: String,
    /// The name its definition uses: `ident` for a function's; qualified by the class for a
    /// nested one, defined after every class (`xgrammar::Grammar::FromJsonSchemaOptions`).
    pub definition: String,
    /// Doc comment lines.
    pub doc: Vec<String>,
    /// Its members.
    pub members: Vec<Member>,
}

/// What a callable's C++ needs.
pub struct Rendered {
    /// The parameters in C++ order (the options struct last).
    pub params: Vec<Param>,
    /// The library call's arguments, in the library's order.
    pub args: Vec<Arg>,
    /// The options struct, if any.
    pub options: Option<Options>,
    /// `@param` doc lines.
    pub doc: Vec<String>,
}

impl Rendered {
    /// Some argument is passed only when set: the call is assembled at run time.
    pub fn assembled(&self) -> bool {
        self.args.iter().any(|a| a.passing == Passing::WhenSet)
    }
}

/// The C++ spelling of `value` as a value of type `ty`, when it has one.
fn cpp_literal(types: &Types, value: &Literal, ty: &Type) -> Option<String> {
    let inner = match ty {
        Type::Optional(t) => t,
        t => t,
    };
    Some(match (value, inner) {
        (Literal::None, _) if matches!(ty, Type::Optional(_)) => "std::nullopt".into(),
        (Literal::None, Type::Any) => "ffihub::Any()".into(),
        (Literal::None, Type::None) => "nullptr".into(),
        (Literal::Bool(b), Type::Bool) => b.to_string(),
        (Literal::Int(i), Type::Int) => int_literal(*i),
        (Literal::Int(i), Type::Float) => format!("{:?}", *i as f64),
        (Literal::Float(f), Type::Float) => format!("{f:?}"),
        (Literal::String(s), Type::String) => literal(s),
        (Literal::DataType(s), Type::DataType) => format!("ffihub::dtype({})", literal(s)),
        (
            Literal::EmptyArray | Literal::EmptyMap,
            t @ (Type::Array(_) | Type::List(_) | Type::Map(..) | Type::Dict(..)),
        ) => {
            format!("{}()", types.cpp(t))
        }
        (Literal::Bool(b), Type::Any) => format!("ffihub::Any({b})"),
        (Literal::Int(i), Type::Any) => format!("ffihub::Any(int64_t{{{}}})", int_literal(*i)),
        (Literal::Float(f), Type::Any) => format!("ffihub::Any({f:?})"),
        (Literal::String(s), Type::Any) => format!("ffihub::Any(std::string({}))", literal(s)),
        _ => return None,
    })
}

/// An `int64_t` literal (the most negative one has no literal of its own).
fn int_literal(i: i64) -> String {
    if i == i64::MIN {
        "INT64_MIN".into()
    } else {
        i.to_string()
    }
}

/// `(default: value)` for a parameter with a default: in C++ when it has a spelling there.
fn default_doc(types: &Types, o: &Offered<'_>) -> Option<String> {
    o.default_doc(|v| cpp_literal(types, v, &o.param.ty).unwrap_or_else(|| v.to_string()))
        .map(|d| format!("(default: {d})"))
}

/// `@param ident doc (default: ...)`.
fn param_doc(types: &Types, ident: &str, o: &Offered<'_>) -> String {
    let doc = crate::lang::doc_lines(&o.param.doc).join(" ");
    let mut text = format!("@param {ident}");
    for part in [Some(doc), default_doc(types, o)].into_iter().flatten() {
        if !part.is_empty() {
            text.push(' ');
            text.push_str(&part);
        }
    }
    comment_text(&text)
}

impl Types {
    /// The C++ of the parameters in `layout`: `library_fills` when the library applies its
    /// own defaults to arguments left out (a constructor); the options struct is named
    /// `options.0` and documented as the keyword-only parameters of `options.1`.
    pub fn signature(
        &self,
        layout: &Layout<'_>,
        library_fills: bool,
        options: (&str, &str),
    ) -> Rendered {
        let (options_ident, owner) = options;
        let mut required: Vec<(&Offered<'_>, Param)> = Vec::new();
        let mut defaulted: Vec<(&Offered<'_>, Param)> = Vec::new();
        let mut exprs: Vec<(usize, String, Passing)> = Vec::new();
        let plain = |o: &Offered<'_>| Param {
            ident: o.ident.clone(),
            decl: format!("{} {}", self.param(&o.param.ty), o.ident),
            default: String::new(),
        };
        for o in &layout.required {
            required.push((o, plain(o)));
            exprs.push((o.index, o.ident.clone(), Passing::Always));
        }
        // Keyword-only parameters without default are plain C++ parameters (after the
        // positional required ones); with one, members of the options struct.
        let mut members = Vec::new();
        for o in &layout.keyword {
            let expr = format!("{}.{}", names::OPTIONS_PARAM, o.ident);
            let value = o
                .default_value()
                .and_then(|v| cpp_literal(self, v, &o.param.ty));
            match (&o.param.default, value) {
                (Some(_), Some(init)) => {
                    members.push(self.member(o, &self.cpp(&o.param.ty), format!(" = {init}")));
                    exprs.push((o.index, expr, Passing::Always));
                }
                (Some(ParamDefault::Library(_)), None) if library_fills => {
                    members.push(self.member(
                        o,
                        &optional_of(self, &o.param.ty),
                        " = std::nullopt".into(),
                    ));
                    exprs.push((o.index, expr, Passing::WhenSet));
                }
                _ => {
                    required.push((o, plain(o)));
                    exprs.push((o.index, o.ident.clone(), Passing::Always));
                }
            }
        }
        // Positional parameters with a default: a trailing run gets default arguments (or
        // `std::nullopt` for those the library fills in); the ones before the first that has
        // neither are required.
        let mut trailing = true;
        let mut optional_params: Vec<(&Offered<'_>, Param)> = Vec::new();
        for o in layout.optional.iter().rev() {
            let value = o
                .default_value()
                .and_then(|v| cpp_literal(self, v, &o.param.ty));
            let omittable =
                library_fills && matches!(o.param.default, Some(ParamDefault::Library(_)));
            let (param, passing) = match value {
                Some(init) if trailing => (
                    Param {
                        default: format!(" = {init}"),
                        ..plain(o)
                    },
                    Passing::Always,
                ),
                None if trailing && omittable => (
                    Param {
                        ident: o.ident.clone(),
                        decl: format!("const {}& {}", optional_of(self, &o.param.ty), o.ident),
                        default: " = std::nullopt".into(),
                    },
                    Passing::WhenSet,
                ),
                _ => {
                    trailing = false;
                    (plain(o), Passing::Always)
                }
            };
            exprs.push((o.index, o.ident.clone(), passing));
            optional_params.push((o, param));
        }
        optional_params.reverse();
        for (o, p) in optional_params {
            if p.default.is_empty() {
                required.push((o, p));
            } else {
                defaulted.push((o, p));
            }
        }
        let mut doc: Vec<String> = required
            .iter()
            .chain(&defaulted)
            .filter(|_| layout.worth_listing())
            .map(|(o, p)| param_doc(self, &p.ident, o))
            .collect();
        let mut params: Vec<Param> = required
            .into_iter()
            .chain(defaulted)
            .map(|(_, p)| p)
            .collect();
        let options = (!members.is_empty()).then(|| {
            doc.push(comment_text(&format!(
                "@param {} the keyword-only parameters (`{options_ident}`; each member \
                 documents its default)",
                names::OPTIONS_PARAM
            )));
            params.push(Param {
                ident: names::OPTIONS_PARAM.into(),
                decl: format!("const {options_ident}& {}", names::OPTIONS_PARAM),
                default: " = {}".into(),
            });
            Options {
                ident: options_ident.to_string(),
                definition: options_ident.to_string(),
                doc: vec![comment_text(&format!(
                    "The keyword-only parameters of `{owner}`: set the members to pass."
                ))],
                members,
            }
        });
        exprs.sort_by_key(|(i, _, _)| *i);
        let args = exprs
            .into_iter()
            .map(|(i, expr, passing)| Arg {
                name: literal(&layout.in_library_order()[i].param.name),
                expr,
                passing,
            })
            .collect();
        Rendered {
            params,
            args,
            options,
            doc,
        }
    }

    fn member(&self, o: &Offered<'_>, ty: &str, init: String) -> Member {
        let mut doc: Vec<String> = crate::lang::doc_lines(&o.param.doc)
            .iter()
            .map(|l| comment_text(l))
            .collect();
        doc.extend(default_doc(self, o).map(|d| comment_text(&d)));
        Member {
            doc,
            decl: format!("{ty} {}", o.ident),
            init,
        }
    }
}

/// `std::optional<T>` of a type (an Optional type is already one).
fn optional_of(types: &Types, ty: &Type) -> String {
    match ty {
        Type::Optional(_) => types.cpp(ty),
        other => format!("std::optional<{}>", types.cpp(other)),
    }
}
