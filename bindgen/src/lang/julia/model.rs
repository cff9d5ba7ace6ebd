//! Julia view models: everything the templates print, computed here (names from `names.rs`,
//! type annotations, escaped literals). Templates only loop and interpolate.

use super::names;
use crate::diagnostics::Diagnostics;
use crate::ir::{self, Type};
use crate::lang::{doc_lines, Scope};
use askama::Template;
use std::collections::BTreeMap;

/// `Project.toml`.
#[derive(Template)]
#[template(path = "julia/Project.toml", escape = "none")]
pub struct Project {
    /// Banner (one comment line).
    pub banner: String,
    /// Module name.
    pub module: String,
    /// The package UUID (stable for a name).
    pub uuid: String,
    /// UUID of the TVMFFI support package.
    pub tvmffi_uuid: &'static str,
}

/// `src/<Module>.jl`: the module with every type and function.
#[derive(Template)]
#[template(path = "julia/Package.jl", escape = "none")]
pub struct Package {
    /// Banner (one comment line).
    pub banner: String,
    /// Module name.
    pub module: String,
    /// Metadata checksum, as a Julia string literal.
    pub checksum: String,
    /// Library file names, as Julia string literals.
    pub libraries: Vec<String>,
    /// Object types, parents first.
    pub types: Vec<Object>,
    /// Global functions.
    pub functions: Vec<Function>,
    /// Exported names (types and functions).
    pub exports: Vec<String>,
}

/// A parameter.
pub struct Param {
    /// Identifier.
    pub ident: String,
    /// Type annotation including `::`, or empty.
    pub annot: String,
    /// ` = TVMFFI.MISSING` for parameters that may be left out, or empty.
    pub default: String,
}

/// A global function (`Function.jl`).
pub struct Function {
    /// Identifier.
    pub ident: String,
    /// The cached lazy handle's constant name (`_ffi_fn_<ident>`).
    pub handle: String,
    /// Registered name, as a Julia string literal.
    pub ffi_name: String,
    /// Signature line of the docstring.
    pub doc_signature: String,
    /// Docstring lines (escaped).
    pub doc: Vec<String>,
    /// Parameters (empty and `packed` for packed functions).
    pub params: Vec<Param>,
    /// Packed: takes `args...`.
    pub packed: bool,
    /// Return type assertion including `::`, or empty.
    pub ret: String,
}

/// A field accessor.
pub struct Field {
    /// Property name.
    pub ident: String,
    /// Registered name, as a Julia string literal.
    pub ffi_name: String,
    /// Return type assertion including `::`, or empty.
    pub ret: String,
    /// Has a setter.
    pub writable: bool,
}

/// A method.
pub struct Method {
    /// Identifier.
    pub ident: String,
    /// Registered name, as a Julia string literal.
    pub ffi_name: String,
    /// The receiver parameter: `self::AbstractX`, or `::Type{<:AbstractX}` for static methods.
    pub receiver: String,
    /// What `TVMFFI.call_method` dispatches on: `self`, or the type key literal when static.
    pub target: String,
    /// Docstring lines (escaped).
    pub doc: Vec<String>,
    /// Parameters after `self`.
    pub params: Vec<Param>,
    /// Packed: takes `args...`.
    pub packed: bool,
    /// Return type assertion including `::`, or empty.
    pub ret: String,
}

/// A constructor.
pub struct Constructor {
    /// Positional parameters.
    pub positional: Vec<Param>,
    /// Keyword parameters.
    pub keyword: Vec<Param>,
}

/// An object type (`Object.jl`).
pub struct Object {
    /// Concrete type name.
    pub ident: String,
    /// Abstract type standing for it and its subtypes.
    pub abstract_ident: String,
    /// Supertype of the abstract type.
    pub parent_abstract: String,
    /// Type key, as a Julia string literal.
    pub key: String,
    /// Docstring lines (escaped).
    pub doc: Vec<String>,
    /// Own and inherited fields.
    pub fields: Vec<Field>,
    /// Some field is writable (a `setproperty!` is generated).
    pub has_setters: bool,
    /// Own methods.
    pub methods: Vec<Method>,
    /// Constructor, if any.
    pub constructor: Option<Constructor>,
}

/// Escapes text for a `"""` docstring.
fn doc_escape(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .map(|l| {
            l.replace('\\', "\\\\")
                .replace('$', "\\$")
                .replace("\"\"\"", "\\\"\\\"\\\"")
        })
        .collect()
}

/// A Julia string literal.
pub fn literal(s: &str) -> String {
    let escaped = s
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('$', "\\$");
    format!("\"{escaped}\"")
}

/// Maps type keys of this library to Julia type names.
pub struct TypeNames(pub BTreeMap<String, String>);

impl TypeNames {
    fn abstract_of(&self, key: &str) -> String {
        match self.0.get(key) {
            Some(ident) => names::abstract_type_name(ident),
            None => "TVMFFI.AbstractObject".into(),
        }
    }

    /// The annotation of a parameter of type `ty` (what it accepts), if any.
    fn accepts(&self, ty: &Type) -> Option<String> {
        Some(match ty {
            Type::None => "Nothing".into(),
            Type::Bool => "Bool".into(),
            Type::Int => "Integer".into(),
            Type::Float => "Real".into(),
            Type::String => "AbstractString".into(),
            Type::Bytes => "AbstractVector{UInt8}".into(),
            Type::Class(key) => self.abstract_of(key),
            Type::Object => "TVMFFI.AbstractObject".into(),
            Type::Optional(inner) => format!("Union{{Nothing, {}}}", self.accepts(inner)?),
            _ => return None,
        })
    }

    /// The type a result of type `ty` has, if known.
    fn returns(&self, ty: &Type) -> Option<String> {
        Some(match ty {
            Type::None => "Nothing".into(),
            Type::Bool => "Bool".into(),
            Type::Int => "Int64".into(),
            Type::Float => "Float64".into(),
            Type::String => "String".into(),
            Type::Bytes => "Vector{UInt8}".into(),
            Type::Class(key) => self.abstract_of(key),
            Type::Optional(inner) => format!("Union{{Nothing, {}}}", self.returns(inner)?),
            _ => return None,
        })
    }

    fn annot(t: Option<String>) -> String {
        t.map(|t| format!("::{t}")).unwrap_or_default()
    }

    fn params(&self, params: &[ir::Param], item: &str, diags: &mut Diagnostics) -> Vec<Param> {
        let mut scope = Scope::with_reserved(&["self"]);
        params
            .iter()
            .map(|p| {
                let ident = names::value_name(&p.name);
                names::claim(&mut scope, &ident, &format!("{item}({})", p.name), diags);
                Param {
                    ident,
                    annot: Self::annot(self.accepts(&p.ty)),
                    default: String::new(),
                }
            })
            .collect()
    }

    /// The model of a global function.
    pub fn function(&self, f: &ir::Function, ident: String, diags: &mut Diagnostics) -> Function {
        let (params, ret, doc_signature) = match &f.signature {
            Some(sig) => {
                let params = self.params(&sig.params, &f.name, diags);
                let list: Vec<String> = params
                    .iter()
                    .map(|p| format!("{}{}", p.ident, p.annot))
                    .collect();
                let ret = Self::annot(self.returns(&sig.ret));
                let doc_sig = format!("{ident}({}){ret}", list.join(", "));
                (params, ret, doc_sig)
            }
            None => (Vec::new(), String::new(), format!("{ident}(args...)")),
        };
        Function {
            handle: format!("{}fn_{ident}", names::RESERVED_PREFIX),
            ffi_name: literal(&f.name),
            doc: doc_escape(doc_lines(&f.doc)),
            doc_signature,
            packed: f.signature.is_none(),
            params,
            ret,
            ident,
        }
    }

    /// The model of an object type.
    pub fn object(&self, t: &ir::ObjectType, diags: &mut Diagnostics) -> Object {
        let ident = self.0.get(&t.key).cloned().unwrap_or_default();
        let mut members = Scope::with_reserved(&["_ffi_obj"]);
        let fields: Vec<Field> = t
            .all_fields()
            .map(|f| {
                let ident = names::value_name(&f.name);
                names::claim(
                    &mut members,
                    &ident,
                    &format!("{}.{}", f.owner, f.name),
                    diags,
                );
                Field {
                    ident,
                    ffi_name: literal(&f.name),
                    ret: Self::annot(self.returns(&f.ty)),
                    writable: f.writable,
                }
            })
            .collect();
        let mut method_scope = Scope::default();
        let ident_of_type = ident.clone();
        let methods = t
            .methods
            .iter()
            .map(|m| {
                let item = format!("{}.{}", t.key, m.name);
                let ident = names::value_name(&m.name);
                // Overloads share a name: claim each name once.
                if !t
                    .methods
                    .iter()
                    .take_while(|o| !std::ptr::eq(*o, m))
                    .any(|o| o.name == m.name)
                {
                    names::claim(&mut method_scope, &ident, &item, diags);
                }
                let (params, ret) = match &m.signature {
                    Some(sig) => (
                        self.params(&sig.params, &item, diags),
                        Self::annot(self.returns(&sig.ret)),
                    ),
                    None => (Vec::new(), String::new()),
                };
                let abstract_ident = names::abstract_type_name(&ident_of_type);
                let (receiver, target) = if m.is_static {
                    (format!("::Type{{<:{abstract_ident}}}"), literal(&t.key))
                } else {
                    (format!("self::{abstract_ident}"), "self".to_string())
                };
                Method {
                    ident,
                    ffi_name: literal(&m.name),
                    receiver,
                    target,
                    doc: doc_escape(doc_lines(&m.doc)),
                    packed: m.signature.is_none(),
                    params,
                    ret,
                }
            })
            .collect();
        let constructor = t.constructor.as_ref().map(|c| {
            let mut scope = Scope::default();
            let (mut positional, mut keyword) = (Vec::new(), Vec::new());
            for p in &c.params {
                let ident = names::value_name(&p.param.name);
                names::claim(
                    &mut scope,
                    &ident,
                    &format!("{}.__ffi_init__({})", t.key, p.param.name),
                    diags,
                );
                // A parameter that may be left out defaults to the `TVMFFI.MISSING` sentinel, so
                // it is not annotated.
                let param = if p.optional {
                    Param {
                        ident,
                        annot: String::new(),
                        default: " = TVMFFI.MISSING".into(),
                    }
                } else {
                    Param {
                        ident,
                        annot: Self::annot(self.accepts(&p.param.ty)),
                        default: String::new(),
                    }
                };
                if p.kw_only {
                    keyword.push(param);
                } else {
                    positional.push(param);
                }
            }
            Constructor {
                positional,
                keyword,
            }
        });
        Object {
            has_setters: fields.iter().any(|f| f.writable),
            abstract_ident: names::abstract_type_name(&ident),
            parent_abstract: self.abstract_of(&t.parent),
            key: literal(&t.key),
            doc: doc_escape(doc_lines(&t.doc)),
            fields,
            methods,
            constructor,
            ident,
        }
    }
}
