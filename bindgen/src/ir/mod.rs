//! The IR: the reflection document, normalized for code generation.
//!
//! - Types are normalized ([`Type`]): string-like origins become [`Type::String`], C++ standard
//!   containers become their TVM-FFI counterparts, missing container arguments become `Any`,
//!   wrappers that do not change the value seen by a binding (`Expected`, `ObjectRValueRef`,
//!   `UnchangedOr`) are removed.
//! - Inheritance is resolved: each type knows its parent, whether the parent is defined in the
//!   same library, and the fields it inherits from local ancestors.
//! - Constructors are resolved from `__ffi_init__` (typed method or generated from fields).
//! - Instance methods lose their `self` parameter; parameters get names (TVM-FFI records none:
//!   the metadata key `arg_names` when present, else field names for constructors, else `arg0`,
//!   `arg1`...).
//! - Items are sorted: functions by name, types parents-first (pre-order of the inheritance
//!   tree, siblings by key), methods by name (overloads keep their order).
//!
//! - Namespaces: every item has a `path` below the package root. The root is the dotted
//!   namespace that every item shares (`testing.` for a library of `testing.*` items, nothing for
//!   TVM), so `ir.IntImm` becomes the path `[ir, IntImm]` and `testing.add_one` just
//!   `[add_one]`. A rename map ([`Options::rename`]) gives single items another dotted name first.
//!
//! - Module exports (the `modules` section: `__tvm_ffi_<name>` symbols of a library) are
//!   functions too, with [`Function::module`] naming their library. They live at the package
//!   root (their names have no namespace). An export whose path a global function already takes
//!   is left out: the global binds it (the Rust macros export a function under both names).
//!
//! The IR knows nothing about target languages; naming is done by each backend's `names.rs`.

mod types;

pub use types::Type;

use ffihub_schema::{self as schema, FieldFlags, Reflection};
use serde::Serialize;
use std::collections::BTreeMap;

/// A library's API, ready for the backends.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Library {
    /// The metadata checksum (written in every generated file's banner).
    pub checksum: String,
    /// File names of the libraries the items come from.
    pub libraries: Vec<String>,
    /// The namespace every item shares, stripped from the items' paths (the package itself).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub root: Vec<String>,
    /// Global functions sorted by name, then module exports (by library, then by name).
    pub functions: Vec<Function>,
    /// Object types, parents before children.
    pub types: Vec<ObjectType>,
    /// Module exports left out because a global (or an earlier library's export) binds their
    /// name, one note each (`generate` prints them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shadowed_exports: Vec<String>,
}

/// A parameter of a function, method or constructor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Param {
    /// Its name: `arg<i>`, or the field name for constructor parameters.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: Type,
}

/// A typed signature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Signature {
    /// The parameters.
    pub params: Vec<Param>,
    /// The return type ([`Type::None`] for nothing).
    #[serde(rename = "return")]
    pub ret: Type,
}

/// A global function.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Function {
    /// The registered name (`testing.add_one`): what the binding looks up.
    pub name: String,
    /// Where the binding lives below the package root: the (renamed) name split at dots, without
    /// the root (`["relax", "op", "add"]`); the last segment names the binding.
    pub path: Vec<String>,
    /// Documentation.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub doc: String,
    /// The signature; `None` for packed functions (called with any arguments, returning Any).
    pub signature: Option<Signature>,
    /// For a module export: the file name of the library that exports it (`name` is then the
    /// export name, looked up in that library loaded as a module). `None` for globals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
}

/// An object type.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ObjectType {
    /// The type key (`testing.TestIntPair`).
    pub key: String,
    /// Where the binding lives below the package root (like [`Function::path`]).
    pub path: Vec<String>,
    /// The direct parent's key (`ffi.Object` for roots).
    pub parent: String,
    /// Whether the parent is defined in this library (otherwise it is a builtin or foreign type).
    pub parent_is_local: bool,
    /// All ancestors, root first.
    pub ancestors: Vec<String>,
    /// Documentation.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub doc: String,
    /// No subclasses.
    pub is_final: bool,
    /// Fields inherited from ancestors of this library, root first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inherited_fields: Vec<Field>,
    /// The type's own fields, in registration order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<Field>,
    /// The type's own methods (without `__ffi_init__`), sorted by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<Method>,
    /// How to construct it, if possible.
    pub constructor: Option<Constructor>,
}

impl Library {
    /// The libraries that module exports come from, in the order of [`Library::libraries`]:
    /// each is loaded once as a module by the generated package.
    pub fn module_libraries(&self) -> Vec<&str> {
        let used: std::collections::BTreeSet<&str> = self
            .functions
            .iter()
            .filter_map(|f| f.module.as_deref())
            .collect();
        self.libraries
            .iter()
            .map(String::as_str)
            .filter(|l| used.contains(l))
            .collect()
    }

    /// The position of `library` in [`Library::module_libraries`].
    pub fn module_index(&self, library: &str) -> usize {
        self.module_libraries()
            .iter()
            .position(|l| *l == library)
            .unwrap_or_default()
    }
}

impl Field {
    /// The type of the values the field holds: its type, or `Optional` of it when its default
    /// is None (a reference the library declares as `ir.Span` but leaves unset, like TVM's
    /// spans, reads as None).
    pub fn value_type(&self) -> Type {
        match (&self.default, &self.ty) {
            (_, Type::Optional(_) | Type::Any | Type::None) => self.ty.clone(),
            (Some(schema::DefaultValue::None), ty) => Type::Optional(Box::new(ty.clone())),
            (_, ty) => ty.clone(),
        }
    }
}

impl ObjectType {
    /// Inherited and own fields, root first.
    pub fn all_fields(&self) -> impl Iterator<Item = &Field> {
        self.inherited_fields.iter().chain(&self.fields)
    }
}

/// A field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Field {
    /// The field name (what the binding passes to the field accessors).
    pub name: String,
    /// The key of the type that declares it.
    pub owner: String,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: Type,
    /// The library gave no readable type (`ty` is then `Any`): checks compare only the name.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub untyped: bool,
    /// Documentation.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub doc: String,
    /// Has a setter.
    pub writable: bool,
    /// The default value, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<schema::DefaultValue>,
}

/// A method.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Method {
    /// The registered name.
    pub name: String,
    /// Static (no receiver).
    pub is_static: bool,
    /// Documentation.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub doc: String,
    /// The signature without the receiver; `None` when packed.
    pub signature: Option<Signature>,
}

/// How a constructor is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConstructorKind {
    /// The typed static method `__ffi_init__`: positional arguments only.
    InitMethod,
    /// The generated `__ffi_init__` type attribute: positional arguments, then keyword
    /// arguments after the `ffi.GetKwargsObject()` marker.
    AutoInit,
}

/// A constructor parameter.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CtorParam {
    /// The parameter (named after its field when known).
    #[serde(flatten)]
    pub param: Param,
    /// Can only be passed by keyword.
    pub kw_only: bool,
    /// May be left out (the field has a default).
    pub optional: bool,
}

/// A constructor.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Constructor {
    /// Which calling convention.
    pub kind: ConstructorKind,
    /// Its documentation (from the `__ffi_init__` method, when there is one).
    pub doc: String,
    /// Its parameters in calling order: positional ones (required before optional), then
    /// keyword-only ones.
    pub params: Vec<CtorParam>,
}

/// How the IR is built.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Registered name (function name or type key) -> the dotted name to bind it under instead.
    pub rename: BTreeMap<String, String>,
}

/// Builds the IR of a document; fails if its inheritance is cyclic.
pub fn build(doc: &Reflection) -> Result<Library, String> {
    build_with(doc, &Options::default())
}

/// Builds the IR of a document with options; fails if its inheritance is cyclic or a rename
/// names an unknown item.
pub fn build_with(doc: &Reflection, opts: &Options) -> Result<Library, String> {
    let local: BTreeMap<&str, &schema::ObjectType> =
        doc.types.iter().map(|t| (t.key.as_str(), t)).collect();
    if let Some(cycle) = inheritance_cycle(&local) {
        return Err(format!("cyclic inheritance: {}", cycle.join(" -> ")));
    }
    let unknown: Vec<&str> = opts
        .rename
        .keys()
        .filter(|k| !local.contains_key(k.as_str()) && doc.functions.iter().all(|f| f.name != **k))
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        return Err(format!(
            "the rename map names items the library does not have: {}",
            unknown.join(", ")
        ));
    }
    let bound_name = |name: &str| -> Vec<String> {
        split_path(opts.rename.get(name).map_or(name, String::as_str))
    };

    let mut functions: Vec<Function> = doc
        .functions
        .iter()
        .map(|f| function(f, bound_name(&f.name)))
        .collect();
    functions.sort_by(|a, b| a.name.cmp(&b.name));

    let mut types: Vec<ObjectType> = doc
        .types
        .iter()
        .map(|t| object_type(t, &local, bound_name(&t.key)))
        .collect();
    // Pre-order of the inheritance tree: sort by the chain of local ancestors plus the key.
    let chain = |t: &ObjectType| -> Vec<String> {
        let mut c: Vec<String> = t
            .ancestors
            .iter()
            .filter(|a| local.contains_key(a.as_str()))
            .cloned()
            .collect();
        c.push(t.key.clone());
        c
    };
    types.sort_by_cached_key(chain);

    let root = common_namespace(
        functions
            .iter()
            .map(|f| &f.path)
            .chain(types.iter().map(|t| &t.path)),
    );
    for path in functions
        .iter_mut()
        .map(|f| &mut f.path)
        .chain(types.iter_mut().map(|t| &mut t.path))
    {
        path.drain(..root.len());
    }
    let (exports, shadowed_exports) = module_exports(doc, &functions);
    functions.extend(exports);
    // A module's library is one of the package's libraries even if a hand-written document
    // forgot to list it.
    let mut libraries = doc.libraries.clone();
    for m in &doc.modules {
        if !libraries.contains(&m.library) {
            libraries.push(m.library.clone());
        }
    }

    Ok(Library {
        checksum: doc.checksum(),
        libraries,
        root,
        functions,
        types,
        shadowed_exports,
    })
}

/// A cycle among the library's types, where each type points to its local ancestors (a type
/// listed among its own ancestors is a cycle of one): the keys along it, the first repeated
/// at the end. Code generated for such types could never compile, so the IR refuses them.
fn inheritance_cycle(local: &BTreeMap<&str, &schema::ObjectType>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Visiting,
        Done,
    }
    let ancestors = |key: &str| -> Vec<&str> {
        local[key]
            .ancestors
            .iter()
            .map(String::as_str)
            .filter(|a| local.contains_key(a))
            .collect()
    };
    let mut state: BTreeMap<&str, State> = BTreeMap::new();
    for &start in local.keys() {
        if state.contains_key(start) {
            continue;
        }
        // Depth-first, with an explicit stack (metadata may hold long chains): each entry is
        // a type on the current path and the local ancestors still to visit from it.
        state.insert(start, State::Visiting);
        let mut stack: Vec<(&str, Vec<&str>)> = vec![(start, ancestors(start))];
        while let Some((_, pending)) = stack.last_mut() {
            let Some(next) = pending.pop() else {
                let (done, _) = stack.pop().unwrap_or_else(|| unreachable!());
                state.insert(done, State::Done);
                continue;
            };
            match state.get(next) {
                Some(State::Done) => {}
                Some(State::Visiting) => {
                    let from = stack.iter().position(|(k, _)| *k == next).unwrap_or(0);
                    let mut cycle: Vec<String> =
                        stack[from..].iter().map(|(k, _)| k.to_string()).collect();
                    cycle.push(next.to_string());
                    return Some(cycle);
                }
                None => {
                    state.insert(next, State::Visiting);
                    stack.push((next, ancestors(next)));
                }
            }
        }
    }
    None
}

/// The longest namespace (path without its last segment) that every path starts with.
fn common_namespace<'a>(mut paths: impl Iterator<Item = &'a Vec<String>>) -> Vec<String> {
    let Some(first) = paths.next() else {
        return Vec::new();
    };
    let mut common: &[String] = &first[..first.len().saturating_sub(1)];
    for p in paths {
        let ns = &p[..p.len().saturating_sub(1)];
        let n = common.iter().zip(ns).take_while(|(a, b)| a == b).count();
        common = &common[..n];
    }
    common.to_vec()
}

fn split_path(name: &str) -> Vec<String> {
    name.split('.').map(str::to_string).collect()
}

fn params(types: &[schema::TypeSchema]) -> Vec<Param> {
    types
        .iter()
        .enumerate()
        .map(|(i, t)| Param {
            name: format!("arg{i}"),
            ty: Type::from_schema(t),
        })
        .collect()
}

/// Parameter names from the metadata key `arg_names` (a JSON list of strings, or a string
/// holding one), as the ffihub Rust extension API records them.
fn arg_names(meta: &schema::Metadata) -> Option<Vec<String>> {
    let value = meta.get("arg_names")?;
    let list = match value {
        serde_json::Value::String(text) => serde_json::from_str(text).ok()?,
        other => other.clone(),
    };
    serde_json::from_value(list).ok()
}

fn signature(sig: &schema::Signature, skip_self: bool, meta: &schema::Metadata) -> Signature {
    let from = usize::from(skip_self && !sig.params.is_empty());
    let mut params = params(&sig.params[from..]);
    if let Some(names) = arg_names(meta) {
        // The names may or may not include the receiver.
        let names = if names.len() == params.len() + from {
            &names[from..]
        } else {
            &names[..]
        };
        if names.len() == params.len() && names.iter().all(|n| !n.is_empty()) {
            for (p, n) in params.iter_mut().zip(names) {
                p.name = n.clone();
            }
        }
    }
    Signature {
        params,
        ret: Type::from_schema(&sig.ret),
    }
}

fn function(f: &schema::Function, path: Vec<String>) -> Function {
    Function {
        name: f.name.clone(),
        path,
        doc: f.doc.clone(),
        signature: f
            .signature
            .as_ref()
            .map(|s| signature(s, false, &f.metadata)),
        module: None,
    }
}

/// The module exports of every library, in library order then by name, at the package root;
/// those whose path a global (or an earlier library's export) takes are left out, with a note.
fn module_exports(doc: &Reflection, globals: &[Function]) -> (Vec<Function>, Vec<String>) {
    let mut taken: BTreeMap<Vec<String>, String> = globals
        .iter()
        .map(|f| (f.path.clone(), format!("the global function `{}`", f.name)))
        .collect();
    let (mut out, mut shadowed) = (Vec::new(), Vec::new());
    for m in &doc.modules {
        for f in &m.functions {
            let path = vec![f.name.clone()];
            if let Some(owner) = taken.get(&path) {
                shadowed.push(format!(
                    "the export `{}` of {} is not bound: {owner} has its name",
                    f.name, m.library
                ));
                continue;
            }
            taken.insert(
                path.clone(),
                format!("the export `{}` of {}", f.name, m.library),
            );
            out.push(Function {
                module: Some(m.library.clone()),
                ..function(f, path)
            });
        }
    }
    (out, shadowed)
}

fn field(f: &schema::Field, owner: &str) -> Field {
    Field {
        name: f.name.clone(),
        owner: owner.to_string(),
        ty: f.ty.as_ref().map(Type::from_schema).unwrap_or(Type::Any),
        untyped: f.ty.is_none(),
        doc: f.doc.clone(),
        writable: f.flags.has(FieldFlags::WRITABLE),
        default: f.default.clone(),
    }
}

fn object_type(
    t: &schema::ObjectType,
    local: &BTreeMap<&str, &schema::ObjectType>,
    path: Vec<String>,
) -> ObjectType {
    let inherited: Vec<(&schema::Field, &str)> = t
        .ancestors
        .iter()
        .filter_map(|a| local.get(a.as_str()))
        .flat_map(|a| a.fields.iter().map(move |f| (f, a.key.as_str())))
        .collect();
    let own: Vec<(&schema::Field, &str)> = t.fields.iter().map(|f| (f, t.key.as_str())).collect();

    let mut methods: Vec<Method> = t
        .methods
        .iter()
        .filter(|m| m.name != "__ffi_init__")
        .map(|m| Method {
            name: m.name.clone(),
            is_static: m.is_static,
            doc: m.doc.clone(),
            signature: m
                .signature
                .as_ref()
                .map(|s| signature(s, !m.is_static, &m.metadata)),
        })
        .collect();
    methods.sort_by(|a, b| a.name.cmp(&b.name));

    let init_fields: Vec<(&schema::Field, &str)> = inherited
        .iter()
        .chain(&own)
        .filter(|(f, _)| !f.flags.has(FieldFlags::INIT_OFF))
        .copied()
        .collect();
    let constructor = match t.constructor {
        Some(schema::Constructor::InitMethod) => t
            .methods
            .iter()
            .find(|m| m.is_static && m.name == "__ffi_init__")
            .map(|m| init_method(m, &init_fields)),
        Some(schema::Constructor::AutoInit) => Some(auto_init(&init_fields)),
        None => None,
    };

    ObjectType {
        key: t.key.clone(),
        path,
        parent: t.parent().unwrap_or("ffi.Object").to_string(),
        parent_is_local: t.parent().is_some_and(|p| local.contains_key(p)),
        ancestors: t.ancestors.clone(),
        doc: t.doc.clone(),
        is_final: t.is_final,
        inherited_fields: inherited.iter().map(|(f, o)| field(f, o)).collect(),
        fields: own.iter().map(|(f, o)| field(f, o)).collect(),
        methods,
        constructor,
    }
}

/// Parameters with a default, from the metadata key `arg_defaults` (a JSON object keyed by
/// parameter name, or a string holding one), as the ffihub Rust extension API records them.
fn arg_defaults(meta: &schema::Metadata) -> Vec<String> {
    let Some(value) = meta.get("arg_defaults") else {
        return Vec::new();
    };
    let object = match value {
        serde_json::Value::String(text) => serde_json::from_str(text).unwrap_or_default(),
        other => other.clone(),
    };
    match object {
        serde_json::Value::Object(map) => map.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// A typed `__ffi_init__`: parameter names come from the method's `arg_names` when recorded,
/// else from the init fields when they match one to one (same count, same types), else `arg<i>`;
/// parameters listed in `arg_defaults` may be left out.
fn init_method(m: &schema::Method, init_fields: &[(&schema::Field, &str)]) -> Constructor {
    let Some(sig) = m.signature.as_ref() else {
        return Constructor {
            kind: ConstructorKind::InitMethod,
            doc: m.doc.clone(),
            params: Vec::new(),
        };
    };
    let mut params = signature(sig, false, &m.metadata).params;
    let field_types: Vec<Type> = init_fields.iter().map(|(f, o)| field(f, o).ty).collect();
    let matches_fields = field_types.len() == params.len()
        && field_types.iter().zip(&params).all(|(a, p)| *a == p.ty);
    if arg_names(&m.metadata).is_none() && matches_fields {
        for (p, (f, _)) in params.iter_mut().zip(init_fields) {
            p.name = f.name.clone();
        }
    }
    let defaults = arg_defaults(&m.metadata);
    Constructor {
        kind: ConstructorKind::InitMethod,
        doc: m.doc.clone(),
        params: params
            .into_iter()
            .map(|p| CtorParam {
                optional: defaults.contains(&p.name),
                param: p,
                kw_only: false,
            })
            .collect(),
    }
}

/// The generated `__ffi_init__`, as Apache's runtime builds it: the init fields; positionally the
/// required ones first, then those with defaults (each group in field order); keyword-only ones
/// last.
fn auto_init(init_fields: &[(&schema::Field, &str)]) -> Constructor {
    let param = |(f, o): &(&schema::Field, &str)| CtorParam {
        param: Param {
            name: f.name.clone(),
            ty: field(f, o).ty,
        },
        kw_only: f.flags.has(FieldFlags::KW_ONLY),
        optional: f.flags.has(FieldFlags::HAS_DEFAULT),
    };
    let (kw, positional): (Vec<_>, Vec<_>) = init_fields.iter().map(param).partition(|p| p.kw_only);
    let (optional, required): (Vec<_>, Vec<_>) = positional.into_iter().partition(|p| p.optional);
    Constructor {
        kind: ConstructorKind::AutoInit,
        doc: String::new(),
        params: required.into_iter().chain(optional).chain(kw).collect(),
    }
}
