//! Node signatures: the JavaScript parameters of one function, method or typed constructor
//! (positional ones, then one options object with the keyword-only ones, camelCase keys),
//! their TypeScript declarations and JSDoc, and the arguments of the library call in the
//! library's order (defaults filled in, options checked by the support package's `options`,
//! which rejects unknown keys).

use super::model::{coercion, literal, paren_fn, Types};
use super::names::{CHECKED_OPTIONS as CHECKED, OPTIONS_PARAM as OPTIONS};
use crate::ir::{Literal, Type};
use crate::lang::params::{Layout, Offered};

/// What a callable's JavaScript and TypeScript need.
pub struct Rendered {
    /// The JavaScript parameter identifiers (the options object last).
    pub js_params: Vec<String>,
    /// Their TypeScript declarations.
    pub dts_params: Vec<String>,
    /// A statement checking the options object, or empty.
    pub prologue: String,
    /// The library call's arguments, in the library's order.
    pub args: Vec<String>,
    /// JSDoc `@param` lines.
    pub jsdoc: Vec<String>,
    /// How many arguments a call must give (the positional ones before the first that may be
    /// left out with every one after it).
    pub required: usize,
}

/// A literal as a JavaScript expression (of the type the parameter accepts).
pub fn literal_expr(value: &Literal) -> String {
    match value {
        Literal::None => "null".into(),
        Literal::Bool(b) => b.to_string(),
        Literal::Int(i) => i.to_string(),
        Literal::Float(f) => format!("{f:?}"),
        Literal::String(s) | Literal::DataType(s) => literal(s),
        Literal::EmptyArray => "[]".into(),
        Literal::EmptyMap => "new Map()".into(),
        Literal::Device {
            device_type,
            device_id,
        } => format!("new __ffi.Device({device_type}, {device_id})"),
    }
}

/// A literal as the docs spell it (`true`, `null`, `'root'`).
fn literal_doc(value: &Literal) -> String {
    match value {
        Literal::EmptyMap => "{}".into(),
        Literal::Device {
            device_type,
            device_id,
        } => format!("device({device_type}, {device_id})"),
        other => literal_expr(other),
    }
}

impl Types {
    /// The expression passing `value` (a JavaScript expression) as a value of type `ty`.
    fn coerced(ty: &Type, value: &str) -> String {
        match coercion(ty) {
            Some(f) => format!("{f}({value})"),
            None => value.to_string(),
        }
    }

    /// The argument for `o` given as `value`: its default when `undefined`.
    fn with_default(o: &Offered<'_>, value: &str) -> String {
        match o.default_value() {
            Some(v) => format!(
                "{value} === undefined ? {} : {}",
                Self::coerced(&o.param.ty, &literal_expr(v)),
                Self::coerced(&o.param.ty, value)
            ),
            None => Self::coerced(&o.param.ty, value),
        }
    }

    /// The JavaScript of the parameters in `layout`; `display` names the callable in errors
    /// (`Grammar.fromJsonSchema`).
    pub fn signature(&self, layout: &Layout<'_>, display: &str) -> Rendered {
        let mut js_params = Vec::new();
        let mut dts_params = Vec::new();
        let mut jsdoc = Vec::new();
        let positional: Vec<&Offered<'_>> =
            layout.required.iter().chain(&layout.optional).collect();
        // A parameter may be left out when it and every positional parameter after it have a
        // default or take None (an Optional left out is None).
        let may_omit = |i: usize| {
            positional[i..]
                .iter()
                .all(|o| o.param.default.is_some() || matches!(o.param.ty, Type::Optional(_)))
        };
        let required = (0..=positional.len())
            .find(|&i| may_omit(i))
            .unwrap_or(positional.len());
        for (i, o) in positional.iter().enumerate() {
            let ty = self.ts(&o.param.ty, true);
            // Before a required options object a parameter cannot be optional in TypeScript:
            // it is required and takes `undefined` (for its default).
            let decl = match (may_omit(i), layout.has_required_keyword()) {
                (false, _) => format!("{}: {ty}", o.ident),
                (true, false) => format!("{}?: {ty}", o.ident),
                (true, true) if ty.ends_with("| undefined") => format!("{}: {ty}", o.ident),
                (true, true) => format!("{}: {} | undefined", o.ident, paren_fn(ty)),
            };
            js_params.push(o.ident.clone());
            dts_params.push(decl);
            jsdoc.push(param_doc(&o.ident, o));
        }
        let mut prologue = String::new();
        if !layout.keyword.is_empty() {
            let keys: Vec<String> = layout.keyword.iter().map(|k| literal(&k.ident)).collect();
            let required: Vec<String> = layout
                .keyword
                .iter()
                .filter(|k| k.param.default.is_none())
                .map(|k| literal(&k.ident))
                .collect();
            prologue = format!(
                "const {CHECKED} = __ffi.options({OPTIONS}, {}, [{}], [{}]);",
                literal(display),
                keys.join(", "),
                required.join(", ")
            );
            let members: Vec<String> = layout
                .keyword
                .iter()
                .map(|k| {
                    let opt = if k.param.default.is_some() { "?" } else { "" };
                    format!("{}{opt}: {}", k.ident, self.ts(&k.param.ty, true))
                })
                .collect();
            let opt = if layout.has_required_keyword() {
                ""
            } else {
                "?"
            };
            js_params.push(OPTIONS.into());
            dts_params.push(format!("{OPTIONS}{opt}: {{ {} }}", members.join("; ")));
            for k in &layout.keyword {
                jsdoc.push(param_doc(&format!("{OPTIONS}.{}", k.ident), k));
            }
        }
        let args = layout
            .in_library_order()
            .into_iter()
            .map(|o| {
                if layout.keyword.iter().any(|k| k.index == o.index) {
                    Self::with_default(o, &format!("{CHECKED}.{}", o.ident))
                } else {
                    Self::with_default(o, &o.ident)
                }
            })
            .collect();
        if !layout.worth_listing() {
            jsdoc.clear();
        }
        Rendered {
            js_params,
            dts_params,
            prologue,
            args,
            jsdoc,
            required,
        }
    }

    /// The TypeScript declaration of a keyword-only parameter of a generated constructor
    /// (`name?: T`), and of a positional one (`name?: T`, or `name: T | undefined` when a
    /// required options object follows).
    pub fn ctor_param_decl(&self, o: &Offered<'_>, options_required: bool) -> String {
        let ty = self.ts(&o.param.ty, true);
        match (
            o.param.default.is_some(),
            o.param.kw_only || !options_required,
        ) {
            (false, _) => format!("{}: {ty}", o.ident),
            (true, true) => format!("{}?: {ty}", o.ident),
            (true, false) => format!("{}: {} | undefined", o.ident, paren_fn(ty)),
        }
    }
}

/// `@param name doc (default: value)`.
pub fn param_doc(name: &str, o: &Offered<'_>) -> String {
    let doc = crate::lang::doc_lines(&o.param.doc).join(" ");
    let default = o
        .default_doc(|v| format!("`{}`", literal_doc(v)))
        .map(|d| format!("(default: {d})"))
        .unwrap_or_default();
    let text = [doc, default]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let text = text.replace("*/", "*\\/");
    if text.is_empty() {
        format!("@param {name}")
    } else {
        format!("@param {name} {text}")
    }
}
