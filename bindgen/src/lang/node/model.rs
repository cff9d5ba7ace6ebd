//! Node view models: names from `names.rs`, TypeScript types and literals computed here.

use super::names;
use crate::diagnostics::Diagnostics;
use crate::ir::{self, Type};
use crate::lang::{doc_lines, Scope};
use askama::Template;
use std::collections::BTreeMap;

/// `package.json`.
#[derive(Template)]
#[template(path = "node/package.json", escape = "none")]
pub struct PackageJson {
    /// Banner text, as a JSON string literal.
    pub banner: String,
    /// npm package name, as a JSON string literal.
    pub name: String,
    /// The support package's name, as a JSON string literal.
    pub support: String,
}

/// `index.js` (CommonJS).
#[derive(Template)]
#[template(path = "node/index.js", escape = "none")]
pub struct IndexJs<'a> {
    /// The shared model.
    pub m: &'a Module,
}

/// `index.d.ts`.
#[derive(Template)]
#[template(path = "node/index.d.ts", escape = "none")]
pub struct IndexDts<'a> {
    /// The shared model.
    pub m: &'a Module,
}

/// What both `index.js` and `index.d.ts` print.
pub struct Module {
    /// Banner (one `//` comment line).
    pub banner: String,
    /// The support package, as a JS string literal.
    pub support: String,
    /// Metadata checksum, as a JS string literal.
    pub checksum: String,
    /// Library file names, as JS string literals.
    pub libraries: Vec<String>,
    /// Classes, parents first.
    pub classes: Vec<Class>,
    /// Global functions.
    pub functions: Vec<Function>,
}

/// A parameter.
pub struct Param {
    /// Identifier.
    pub ident: String,
    /// TypeScript declaration (`a: number`, `b?: string`).
    pub decl: String,
}

/// A global function.
pub struct Function {
    /// Identifier.
    pub ident: String,
    /// The lazily resolved handle's constant name (`__ffiFn_<ident>`).
    pub handle: String,
    /// Registered name, as a JS string literal.
    pub ffi_name: String,
    /// JSDoc lines.
    pub doc: Vec<String>,
    /// Parameters (packed functions take `...args`).
    pub params: Vec<Param>,
    /// Packed.
    pub packed: bool,
    /// TypeScript return type.
    pub ret: String,
}

/// A field accessor.
pub struct Field {
    /// Property name.
    pub ident: String,
    /// Registered name, as a JS string literal.
    pub ffi_name: String,
    /// TypeScript type.
    pub ty: String,
    /// Has a setter.
    pub writable: bool,
}

/// A method (instance or static).
pub struct Method {
    /// Identifier.
    pub ident: String,
    /// Registered name, as a JS string literal.
    pub ffi_name: String,
    /// Static.
    pub is_static: bool,
    /// What `callMethod` dispatches on: `this`, or the type key literal.
    pub target: String,
    /// JSDoc lines.
    pub doc: Vec<String>,
    /// Parameters.
    pub params: Vec<Param>,
    /// Packed.
    pub packed: bool,
    /// TypeScript return type.
    pub ret: String,
}

/// A constructor.
pub struct Constructor {
    /// Positional parameters.
    pub positional: Vec<Param>,
    /// Keyword-only parameters, passed in one options object.
    pub keyword: Vec<Param>,
    /// The options object may be left out (no required keyword parameter).
    pub options_optional: bool,
}

/// A class.
pub struct Class {
    /// Class name.
    pub ident: String,
    /// The base class expression (`ffi.Object` or a local class).
    pub base: String,
    /// Type key, as a JS string literal.
    pub key: String,
    /// JSDoc lines.
    pub doc: Vec<String>,
    /// Own fields (inherited ones come from the base class).
    pub fields: Vec<Field>,
    /// Own methods.
    pub methods: Vec<Method>,
    /// Constructor, if any.
    pub constructor: Option<Constructor>,
}

/// A JS string literal (single quotes).
pub fn literal(s: &str) -> String {
    let escaped = s
        .replace('\\', "\\\\")
        .replace('\'', "\\'")
        .replace('\n', "\\n");
    format!("'{escaped}'")
}

fn jsdoc(doc: &str) -> Vec<String> {
    doc_lines(doc)
        .into_iter()
        .map(|l| l.replace("*/", "*\\/"))
        .collect()
}

/// Maps local type keys to class names, and types to TypeScript.
pub struct Types(pub BTreeMap<String, String>);

impl Types {
    /// The TypeScript type of `ty`: `input` for parameters (what converts in), else results.
    pub fn ts(&self, ty: &Type, input: bool) -> String {
        let seq = |t: &Type| {
            if input {
                format!("ReadonlyArray<{}>", self.ts(t, true))
            } else {
                format!("ffi.Array<{}>", self.ts(t, false))
            }
        };
        match ty {
            Type::None => {
                if input {
                    "null".into()
                } else {
                    "void".into()
                }
            }
            Type::Any => "unknown".into(),
            Type::Bool => "boolean".into(),
            Type::Int | Type::Float => "number".into(),
            Type::BigInt => "bigint".into(),
            Type::OpaquePtr => "ffi.OpaquePtr".into(),
            Type::DataType => "ffi.DataType".into(),
            Type::Device => "ffi.Device".into(),
            Type::String => "string".into(),
            Type::Bytes => "Uint8Array".into(),
            Type::Tensor => "ffi.Tensor".into(),
            Type::Shape => "ffi.Shape".into(),
            Type::Object => "ffi.Object".into(),
            Type::Module => "ffi.Module".into(),
            Type::Error => "ffi.FFIError".into(),
            Type::Array(t) => seq(t),
            Type::List(t) if input => seq(t),
            Type::List(t) => format!("ffi.List<{}>", self.ts(t, false)),
            Type::Map(k, v) | Type::Dict(k, v) if input => {
                format!("ReadonlyMap<{}, {}>", self.ts(k, true), self.ts(v, true))
            }
            Type::Map(k, v) => format!("ffi.Map<{}, {}>", self.ts(k, false), self.ts(v, false)),
            Type::Dict(k, v) => format!("ffi.Dict<{}, {}>", self.ts(k, false), self.ts(v, false)),
            Type::Optional(t) => format!("{} | null", self.ts(t, input)),
            Type::Variant(ts) => ts
                .iter()
                .map(|t| self.ts(t, input))
                .collect::<Vec<_>>()
                .join(" | "),
            Type::Tuple(ts) => format!(
                "[{}]",
                ts.iter()
                    .map(|t| self.ts(t, input))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Type::Function(None) => "(...args: unknown[]) => unknown".into(),
            Type::Function(Some(sig)) => {
                let params: Vec<String> = sig
                    .params
                    .iter()
                    .map(|p| format!("{}: {}", names::value(&p.name), self.ts(&p.ty, !input)))
                    .collect();
                format!("(({}) => {})", params.join(", "), self.ts(&sig.ret, input))
            }
            Type::Class(key) => self
                .0
                .get(key)
                .cloned()
                .unwrap_or_else(|| "ffi.Object".into()),
        }
    }

    fn params(&self, params: &[ir::Param], item: &str, diags: &mut Diagnostics) -> Vec<Param> {
        let mut scope = Scope::with_reserved(&["args", "ffi"]);
        params
            .iter()
            .map(|p| {
                let ident = names::value(&p.name);
                names::claim(&mut scope, &ident, &format!("{item}({})", p.name), diags);
                Param {
                    decl: format!("{ident}: {}", self.ts(&p.ty, true)),
                    ident,
                }
            })
            .collect()
    }

    /// The model of a global function.
    pub fn function(&self, f: &ir::Function, ident: String, diags: &mut Diagnostics) -> Function {
        let (params, ret) = match &f.signature {
            Some(sig) => (
                self.params(&sig.params, &f.name, diags),
                self.ts(&sig.ret, false),
            ),
            None => (Vec::new(), "unknown".into()),
        };
        Function {
            handle: format!("{}Fn_{ident}", names::RESERVED_PREFIX),
            ffi_name: literal(&f.name),
            doc: jsdoc(&f.doc),
            packed: f.signature.is_none(),
            params,
            ret,
            ident,
        }
    }

    /// The model of a class.
    pub fn class(&self, t: &ir::ObjectType, diags: &mut Diagnostics) -> Class {
        let ident = self.0.get(&t.key).cloned().unwrap_or_default();
        // Inherited accessors are reserved so an own member cannot shadow them.
        let mut members = Scope::with_reserved(&["dispose"]);
        for f in &t.inherited_fields {
            members.claim(
                &names::member(&f.name),
                &format!("{}.{}", f.owner, f.name),
                super::LANG,
                diags,
            );
        }
        let mut statics = Scope::default();
        let fields = t
            .fields
            .iter()
            .map(|f| {
                let ident = names::member(&f.name);
                names::claim(
                    &mut members,
                    &ident,
                    &format!("{}.{}", t.key, f.name),
                    diags,
                );
                Field {
                    ident,
                    ffi_name: literal(&f.name),
                    ty: self.ts(&f.ty, false),
                    writable: f.writable,
                }
            })
            .collect();
        let mut seen = std::collections::BTreeSet::new();
        let methods = t
            .methods
            .iter()
            .filter(|m| seen.insert((m.name.clone(), m.is_static)))
            .map(|m| {
                let item = format!("{}.{}", t.key, m.name);
                let ident = if m.is_static {
                    let ident = names::static_member(&m.name);
                    names::claim(&mut statics, &ident, &item, diags);
                    ident
                } else {
                    let ident = names::member(&m.name);
                    names::claim(&mut members, &ident, &item, diags);
                    ident
                };
                let (params, ret) = match &m.signature {
                    Some(sig) => (
                        self.params(&sig.params, &item, diags),
                        self.ts(&sig.ret, false),
                    ),
                    None => (Vec::new(), "unknown".into()),
                };
                Method {
                    ident,
                    ffi_name: literal(&m.name),
                    is_static: m.is_static,
                    target: if m.is_static {
                        literal(&t.key)
                    } else {
                        "this".into()
                    },
                    doc: jsdoc(&m.doc),
                    packed: m.signature.is_none(),
                    params,
                    ret,
                }
            })
            .collect();
        let constructor = t.constructor.as_ref().map(|c| {
            let mut scope = Scope::with_reserved(&["options"]);
            let (mut positional, mut keyword) = (Vec::new(), Vec::new());
            for p in &c.params {
                let ident = names::value(&p.param.name);
                names::claim(
                    &mut scope,
                    &ident,
                    &format!("{}.__ffi_init__({})", t.key, p.param.name),
                    diags,
                );
                let opt = if p.optional { "?" } else { "" };
                let param = Param {
                    decl: format!("{ident}{opt}: {}", self.ts(&p.param.ty, true)),
                    ident,
                };
                if p.kw_only {
                    keyword.push(param);
                } else {
                    positional.push(param);
                }
            }
            let options_optional = c.params.iter().all(|p| !p.kw_only || p.optional);
            Constructor {
                positional,
                keyword,
                options_optional,
            }
        });
        Class {
            base: match self.0.get(&t.parent) {
                Some(parent) => parent.clone(),
                None => "ffi.Object".into(),
            },
            key: literal(&t.key),
            doc: jsdoc(&t.doc),
            fields,
            methods,
            constructor,
            ident,
        }
    }
}
