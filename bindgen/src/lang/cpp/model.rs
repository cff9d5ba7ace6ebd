//! C++ view models: names from `names.rs`, C++ types and literals computed here.

use super::names;
use crate::diagnostics::Diagnostics;
use crate::ir::{self, Type};
use crate::lang::{doc_lines, Scope};
use askama::Template;
use std::collections::BTreeMap;

/// The header `<namespace>.hpp`.
#[derive(Template)]
#[template(path = "cpp/Library.hpp", escape = "none")]
pub struct Header {
    /// Banner (one `//` comment line).
    pub banner: String,
    /// The support header to include.
    pub support_header: &'static str,
    /// The namespace.
    pub namespace: String,
    /// Metadata checksum, as a C++ string literal.
    pub checksum: String,
    /// Library file names, as C++ string literals.
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
    /// Declaration (`int64_t a`).
    pub decl: String,
}

/// A global function.
pub struct Function {
    /// Identifier.
    pub ident: String,
    /// Registered name, as a C++ string literal.
    pub ffi_name: String,
    /// Doc comment lines.
    pub doc: Vec<String>,
    /// Parameters.
    pub params: Vec<Param>,
    /// Packed (a variadic template returning `ffihub::Any`).
    pub packed: bool,
    /// C++ return type.
    pub ret: String,
}

/// A field accessor.
pub struct Field {
    /// Getter name.
    pub ident: String,
    /// Setter name, for writable fields.
    pub setter: Option<String>,
    /// Registered name, as a C++ string literal.
    pub ffi_name: String,
    /// C++ type.
    pub ty: String,
}

/// A method.
pub struct Method {
    /// Identifier.
    pub ident: String,
    /// Registered name, as a C++ string literal.
    pub ffi_name: String,
    /// Static.
    pub is_static: bool,
    /// Doc comment lines.
    pub doc: Vec<String>,
    /// Parameters.
    pub params: Vec<Param>,
    /// Packed.
    pub packed: bool,
    /// C++ return type.
    pub ret: String,
}

/// A class.
pub struct Class {
    /// Class name.
    pub ident: String,
    /// Base class.
    pub base: String,
    /// The base class's unqualified name (for `using Base::Name;`).
    pub base_name: String,
    /// Type key, as a C++ string literal.
    pub key: String,
    /// Doc comment lines.
    pub doc: Vec<String>,
    /// Own fields.
    pub fields: Vec<Field>,
    /// Own methods.
    pub methods: Vec<Method>,
    /// Constructor parameters, if the type has a constructor.
    pub constructor: Option<Vec<Param>>,
    /// Some member is defined out of line, after every class (so that member signatures may
    /// use classes declared later).
    pub has_definitions: bool,
}

/// A C++ string literal.
pub fn literal(s: &str) -> String {
    let escaped = s
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n");
    format!("\"{escaped}\"")
}

fn doc(text: &str) -> Vec<String> {
    doc_lines(text)
        .into_iter()
        .map(|l| l.replace("*/", "* /"))
        .collect()
}

/// Maps local type keys to class names, and types to C++.
pub struct Types(pub BTreeMap<String, String>);

impl Types {
    /// The C++ type of `ty`.
    pub fn cpp(&self, ty: &Type) -> String {
        let list = |ts: &[Type]| {
            ts.iter()
                .map(|t| self.cpp(t))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match ty {
            Type::None => "void".into(),
            Type::Any => "ffihub::Any".into(),
            Type::Bool => "bool".into(),
            Type::Int => "int64_t".into(),
            Type::BigInt => "ffihub::BigInt".into(),
            Type::Float => "double".into(),
            Type::OpaquePtr => "void*".into(),
            Type::DataType => "DLDataType".into(),
            Type::Device => "DLDevice".into(),
            Type::String => "std::string".into(),
            Type::Bytes => "ffihub::Bytes".into(),
            Type::Tensor => "ffihub::Tensor".into(),
            Type::Shape => "ffihub::Shape".into(),
            Type::Object => "ffihub::ObjectRef".into(),
            Type::Module => "ffihub::Module".into(),
            Type::Error => "ffihub::Error".into(),
            Type::Array(t) => format!("ffihub::Array<{}>", self.cpp(t)),
            Type::List(t) => format!("ffihub::List<{}>", self.cpp(t)),
            Type::Map(k, v) => format!("ffihub::Map<{}, {}>", self.cpp(k), self.cpp(v)),
            Type::Dict(k, v) => format!("ffihub::Dict<{}, {}>", self.cpp(k), self.cpp(v)),
            Type::Optional(t) => format!("std::optional<{}>", self.cpp(t)),
            Type::Variant(ts) => format!("std::variant<{}>", list(ts)),
            Type::Tuple(ts) => format!("std::tuple<{}>", list(ts)),
            Type::Function(None) => "ffihub::Function".into(),
            Type::Function(Some(sig)) => {
                let params: Vec<ir::Type> = sig.params.iter().map(|p| p.ty.clone()).collect();
                format!(
                    "ffihub::TypedFunction<{}({})>",
                    self.cpp(&sig.ret),
                    list(&params)
                )
            }
            Type::Class(key) => self
                .0
                .get(key)
                .cloned()
                .unwrap_or_else(|| "ffihub::ObjectRef".into()),
        }
    }

    fn params(&self, params: &[ir::Param], item: &str, diags: &mut Diagnostics) -> Vec<Param> {
        let mut scope = Scope::with_reserved(&["args"]);
        params
            .iter()
            .map(|p| {
                let ident = names::value(&p.name);
                names::claim(&mut scope, &ident, &format!("{item}({})", p.name), diags);
                Param {
                    decl: format!("{} {ident}", self.cpp(&p.ty)),
                    ident,
                }
            })
            .collect()
    }

    /// The model of a global function.
    pub fn function(&self, f: &ir::Function, ident: String, diags: &mut Diagnostics) -> Function {
        let (params, ret) = match &f.signature {
            Some(sig) => (self.params(&sig.params, &f.name, diags), self.cpp(&sig.ret)),
            None => (Vec::new(), "ffihub::Any".into()),
        };
        Function {
            ffi_name: literal(&f.name),
            doc: doc(&f.doc),
            packed: f.signature.is_none(),
            params,
            ret,
            ident,
        }
    }

    /// The model of a class.
    pub fn class(&self, t: &ir::ObjectType, diags: &mut Diagnostics) -> Class {
        let ident = self.0.get(&t.key).cloned().unwrap_or_default();
        let mut members = Scope::with_reserved(&[ident.as_str(), "get", "type_key"]);
        for f in &t.inherited_fields {
            let getter = names::value(&f.name);
            members.claim(
                &getter,
                &format!("{}.{}", f.owner, f.name),
                super::LANG,
                diags,
            );
            if f.writable {
                members.claim(
                    &names::setter(&getter),
                    &format!("{}.{}", f.owner, f.name),
                    super::LANG,
                    diags,
                );
            }
        }
        let fields: Vec<Field> = t
            .fields
            .iter()
            .map(|f| {
                let item = format!("{}.{}", t.key, f.name);
                let ident = names::value(&f.name);
                names::claim(&mut members, &ident, &item, diags);
                let setter = f.writable.then(|| names::setter(&ident));
                if let Some(s) = &setter {
                    names::claim(&mut members, s, &item, diags);
                }
                Field {
                    ident,
                    setter,
                    ffi_name: literal(&f.name),
                    ty: self.cpp(&f.ty),
                }
            })
            .collect();
        let mut seen = std::collections::BTreeSet::new();
        let methods: Vec<Method> = t
            .methods
            .iter()
            .filter(|m| seen.insert(m.name.clone()))
            .map(|m| {
                let item = format!("{}.{}", t.key, m.name);
                let ident = names::value(&m.name);
                names::claim(&mut members, &ident, &item, diags);
                let (params, ret) = match &m.signature {
                    Some(sig) => (self.params(&sig.params, &item, diags), self.cpp(&sig.ret)),
                    None => (Vec::new(), "ffihub::Any".into()),
                };
                Method {
                    ident,
                    ffi_name: literal(&m.name),
                    is_static: m.is_static,
                    doc: doc(&m.doc),
                    packed: m.signature.is_none(),
                    params,
                    ret,
                }
            })
            .collect();
        let constructor = t.constructor.as_ref().map(|c| {
            let params: Vec<ir::Param> = c.params.iter().map(|p| p.param.clone()).collect();
            self.params(&params, &format!("{}.__ffi_init__", t.key), diags)
        });
        let base = self
            .0
            .get(&t.parent)
            .cloned()
            .unwrap_or_else(|| "ffihub::ObjectRef".into());
        Class {
            has_definitions: constructor.is_some()
                || !fields.is_empty()
                || methods.iter().any(|m| !m.packed),
            base_name: base.rsplit("::").next().unwrap_or(&base).to_string(),
            base,
            key: literal(&t.key),
            doc: doc(&t.doc),
            fields,
            methods,
            constructor,
            ident,
        }
    }
}
