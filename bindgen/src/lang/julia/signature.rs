//! Julia signatures: the methods that offer one function, method or constructor (one per
//! number of optional positional arguments given, keyword-only parameters as keywords), the
//! call each makes, and the docstring's signature line and `# Arguments` list.

use super::names;
use super::text::literal;
use super::types::TypeNames;
use crate::ir::{Literal, Type};
use crate::lang::params::{Layout, Offered};

/// How the library takes the arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// Every argument by position, in the library's order (functions, methods, a typed
    /// `__ffi_init__`): a default left out is passed by the binding, and only trailing ones the
    /// library fills itself may be omitted.
    Positional,
    /// Positional arguments, then keyword ones after `TVMFFI.kwargs_marker()` (a generated
    /// `__ffi_init__`): the library fills whatever is left out.
    Kwargs,
}

/// A parameter.
pub struct Param {
    /// Identifier.
    pub ident: String,
    /// Type annotation including `::`, or empty.
    pub annot: String,
    /// ` = <default>`, or empty.
    pub default: String,
    /// The expression passed to the call (the identifier, or its conversion).
    pub arg: String,
}

impl Param {
    /// `ident::Annot = default`, as in a method definition.
    pub fn decl(&self) -> String {
        format!("{}{}{}", self.ident, self.annot, self.default)
    }
}

/// One Julia method of a callable.
pub struct Overload {
    /// Parameter declarations after the receiver (`a::Integer, b::Real; c::Bool = true`).
    pub params: String,
    /// Call arguments after the function handle, each with its leading `, `.
    pub args: String,
    /// The same call for `TVMFFI.construct` (positional arguments, then `; :name => value`).
    pub construct_args: String,
}

/// What a callable's Julia methods need.
pub struct Rendered {
    /// The methods, fewest arguments first.
    pub overloads: Vec<Overload>,
    /// No keyword defaults to `TVMFFI.OMITTED`: the methods can call the function directly
    /// (otherwise a constructor goes through `TVMFFI.construct`, which drops omitted keywords).
    pub fast: bool,
    /// The parameter list of the docstring's signature line (`a::Integer, [b::Real = 1.0]; c::Bool = true`).
    pub doc_params: String,
    /// The docstring's `# Arguments` list, one line per parameter (empty without parameters).
    pub doc_args: Vec<String>,
    /// The positional parameters as declared, required ones first (`arguments.rs` words the
    /// errors of calls no method takes from them).
    pub positional: Vec<Param>,
    /// How many of `positional` a call must give.
    pub required: usize,
    /// The keyword parameters' identifiers.
    pub keywords: Vec<String>,
}

impl Rendered {
    /// What each of [`overloads`](Rendered::overloads) dispatches on, as Julia compares method
    /// signatures: the annotations of its positional parameters (`Any` where there is none),
    /// after `receiver`. Keywords take no part, so two methods with the same list are one
    /// method, the later overwriting the earlier.
    pub fn dispatch_keys(&self, receiver: Option<&str>) -> Vec<Vec<String>> {
        (self.required..=self.positional.len())
            .map(|given| {
                receiver
                    .map(str::to_string)
                    .into_iter()
                    .chain(self.positional[..given].iter().map(|p| {
                        match p.annot.trim_start_matches("::") {
                            "" => "Any".to_string(),
                            a => a.to_string(),
                        }
                    }))
                    .collect()
            })
            .collect()
    }
}

/// A literal as a Julia expression.
pub fn literal_expr(value: &Literal) -> String {
    match value {
        Literal::None => "nothing".into(),
        Literal::Bool(b) => b.to_string(),
        Literal::Int(i) => i.to_string(),
        Literal::Float(f) => float_literal(*f),
        Literal::String(s) => literal(s),
        Literal::EmptyArray => "[]".into(),
        Literal::EmptyMap => "Dict()".into(),
        Literal::DataType(s) => format!("TVMFFI.DLDataType({})", literal(s)),
        Literal::Device {
            device_type,
            device_id,
        } => format!("TVMFFI.DLDevice({device_type}, {device_id})"),
    }
}

/// A float as Julia spells it: Rust's `{:?}` (always with a `.` or an exponent, so that it reads
/// back as a `Float64`), except the non-finite values, which Julia names `Inf` and `NaN`.
fn float_literal(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Inf" } else { "-Inf" }.into()
    } else {
        format!("{f:?}")
    }
}

/// Declarations joined as a method definition writes them, the receiver (if any) first:
/// `self::X, a::Integer; b::Bool = true`.
pub fn join_decls(receiver: Option<&str>, params: &str) -> String {
    match (receiver, params) {
        (None, p) => p.to_string(),
        (Some(r), "") => r.to_string(),
        (Some(r), p) if p.starts_with(';') => format!("{r}{p}"),
        (Some(r), p) => format!("{r}, {p}"),
    }
}

impl TypeNames {
    fn declared(&self, o: &Offered<'_>) -> Param {
        Param {
            ident: o.ident.clone(),
            annot: self
                .accepts(&o.param.ty)
                .map(|a| format!("::{a}"))
                .unwrap_or_default(),
            default: String::new(),
            arg: self.convert(&o.param.ty, &o.ident),
        }
    }

    /// The Julia methods, call arguments and docs of the parameters in `layout`.
    pub fn signature(&self, layout: &Layout<'_>, protocol: Protocol) -> Rendered {
        let required: Vec<Param> = layout.required.iter().map(|o| self.declared(o)).collect();
        let optional: Vec<Param> = layout.optional.iter().map(|o| self.declared(o)).collect();
        let mut fast = true;
        // Keyword-only parameters: a spelled default is the keyword's default; one the library
        // computes defaults to `TVMFFI.OMITTED` (left out of the call).
        let keyword: Vec<Param> = layout
            .keyword
            .iter()
            .map(|o| {
                let mut p = self.declared(o);
                match &o.param.default {
                    None => {}
                    Some(d) => match d.value() {
                        Some(v) => p.default = format!(" = {}", literal_expr(v)),
                        None => {
                            fast = false;
                            p.annot.clear();
                            p.default = " = TVMFFI.OMITTED".into();
                            p.arg = format!("{0} === TVMFFI.OMITTED ? {0} : {1}", p.ident, p.arg);
                        }
                    },
                }
                p
            })
            .collect();
        let keyword_decls = if keyword.is_empty() {
            String::new()
        } else {
            let decls: Vec<String> = keyword.iter().map(Param::decl).collect();
            format!("; {}", decls.join(", "))
        };
        let positional_decls = |given: usize| -> String {
            required
                .iter()
                .chain(&optional[..given])
                .map(Param::decl)
                .collect::<Vec<_>>()
                .join(", ")
        };
        let overloads = (0..=optional.len())
            .map(|given| {
                let decls = positional_decls(given);
                let params = match (decls.is_empty(), keyword_decls.is_empty()) {
                    (true, _) => keyword_decls.clone(),
                    (false, true) => decls,
                    (false, false) => format!("{decls}{keyword_decls}"),
                };
                let (args, construct_args) = match protocol {
                    Protocol::Positional => {
                        let args = self.positional_args(layout, &keyword, given);
                        (args.clone(), args)
                    }
                    Protocol::Kwargs => {
                        self.kwargs_args(layout, &required, &optional, &keyword, given)
                    }
                };
                Overload {
                    params,
                    args,
                    construct_args,
                }
            })
            .collect();
        let mut doc_params = positional_decls(0);
        let mut closing = String::new();
        for (p, o) in optional.iter().zip(&layout.optional) {
            let sep = if doc_params.is_empty() { "" } else { ", " };
            let default = o
                .default_value()
                .map(|v| format!(" = {}", literal_expr(v)))
                .unwrap_or_default();
            doc_params.push_str(&format!("{sep}[{}{default}", p.decl()));
            closing.push(']');
        }
        doc_params.push_str(&closing);
        doc_params.push_str(&keyword_decls);
        let doc_args = self.argument_docs(layout, &required, &optional, &keyword);
        let required_count = required.len();
        Rendered {
            overloads,
            fast,
            doc_params,
            doc_args,
            positional: required.into_iter().chain(optional).collect(),
            required: required_count,
            keywords: keyword.into_iter().map(|p| p.ident).collect(),
        }
    }

    /// The arguments of a positional call when `given` optional ones are given: the rest are
    /// passed with their defaults, up to the first whose value only the library knows.
    fn positional_args(&self, layout: &Layout<'_>, keyword: &[Param], given: usize) -> String {
        let mut out = String::new();
        for o in layout.in_library_order() {
            let arg = if let Some(k) = layout.keyword.iter().position(|k| k.index == o.index) {
                keyword[k].arg.clone()
            } else if let Some(i) = layout.optional.iter().position(|x| x.index == o.index) {
                if i < given {
                    self.convert(&o.param.ty, &o.ident)
                } else {
                    match o.default_value() {
                        Some(v) => self.convert(&o.param.ty, &literal_expr(v)),
                        None => break,
                    }
                }
            } else {
                self.convert(&o.param.ty, &o.ident)
            };
            out.push_str(&format!(", {arg}"));
        }
        out
    }

    /// The arguments of a generated `__ffi_init__` when `given` optional ones are given: the
    /// positional ones, then each keyword after the marker (fast path), or by name for
    /// `TVMFFI.construct` (slow path).
    fn kwargs_args(
        &self,
        layout: &Layout<'_>,
        required: &[Param],
        optional: &[Param],
        keyword: &[Param],
        given: usize,
    ) -> (String, String) {
        let positional: String = required
            .iter()
            .chain(&optional[..given])
            .map(|p| format!(", {}", p.arg))
            .collect();
        let (mut args, mut construct_args) = (positional.clone(), positional);
        if !keyword.is_empty() {
            args.push_str(", TVMFFI.kwargs_marker()");
            let mut by_name = Vec::new();
            for (o, p) in layout.keyword.iter().zip(keyword) {
                args.push_str(&format!(", {}, {}", literal(&o.param.name), p.arg));
                by_name.push(format!(
                    "{} => {}",
                    names::symbol_literal(&o.param.name),
                    p.arg
                ));
            }
            construct_args.push_str(&format!("; {}", by_name.join(", ")));
        }
        (args, construct_args)
    }

    /// `- `name::Type = default` (keyword): doc` per parameter, in the order callers see them.
    fn argument_docs(
        &self,
        layout: &Layout<'_>,
        required: &[Param],
        optional: &[Param],
        keyword: &[Param],
    ) -> Vec<String> {
        let mut out = Vec::new();
        if !layout.worth_listing() {
            return out;
        }
        let groups = [
            (&layout.required, required, ""),
            (&layout.optional, optional, ""),
            (&layout.keyword, keyword, " (keyword)"),
        ];
        for (offered, params, kind) in groups {
            for (o, p) in offered.iter().zip(params) {
                let default = o
                    .default_doc(literal_expr)
                    .map(|d| format!(" = {d}"))
                    .unwrap_or_default();
                let annot = match o.param.ty {
                    Type::Any => String::new(),
                    _ => p.annot.clone(),
                };
                let doc = crate::lang::doc_lines(&o.param.doc).join(" ");
                let sep = if doc.is_empty() { "" } else { ": " };
                out.push(format!("- `{}{annot}{default}`{kind}{sep}{doc}", p.ident));
            }
        }
        if !out.is_empty() {
            out.insert(0, "# Arguments".into());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receivers_join_declarations() {
        assert_eq!(join_decls(Some("self::X"), ""), "self::X");
        assert_eq!(join_decls(Some("self::X"), "; b = 1"), "self::X; b = 1");
        assert_eq!(join_decls(Some("self::X"), "a; b = 1"), "self::X, a; b = 1");
        assert_eq!(join_decls(None, "a"), "a");
        assert_eq!(literal_expr(&Literal::Float(-1.0)), "-1.0");
        assert_eq!(literal_expr(&Literal::String("root".into())), "\"root\"");
    }

    #[test]
    fn non_finite_floats_are_spelled_for_julia() {
        assert_eq!(literal_expr(&Literal::Float(f64::INFINITY)), "Inf");
        assert_eq!(literal_expr(&Literal::Float(f64::NEG_INFINITY)), "-Inf");
        assert_eq!(literal_expr(&Literal::Float(f64::NAN)), "NaN");
        assert_eq!(literal_expr(&Literal::Float(1e300)), "1e300");
        assert_eq!(literal_expr(&Literal::Float(0.5)), "0.5");
    }
}
