//! The IR: the reflection document, normalized for code generation.
//!
//! - Types are normalized ([`Type`]): string-like origins become [`Type::String`], C++ standard
//!   containers become their TVM-FFI counterparts, missing container arguments become `Any`,
//!   wrappers that do not change the value seen by a binding (`Expected`, `ObjectRValueRef`,
//!   `UnchangedOr`) are removed.
//! - Inheritance is resolved: each type knows its parent, whether the parent is defined in the
//!   same library, and the fields it inherits from local ancestors.
//! - Constructors are resolved from `__ffi_init__` (typed method or generated from fields).
//! - Instance methods lose their `self` parameter; parameters get names (TVM-FFI records none),
//!   the first found wins: the signature overlay ([`Options::signatures`], see [`overlay`]); the
//!   metadata key `arg_names`; the docstring's parameter list ([`docstring`]) when it names as
//!   many parameters as the signature has; the field names for constructors; else `arg0`,
//!   `arg1`... Each parameter records where its name came from ([`NameSource`]).
//! - Parameters may have defaults ([`ParamDefault`]: from `arg_defaults`, fields or the overlay)
//!   and be keyword-only; the overlay may narrow parameter and return types, keeping the
//!   library's for the load-time checks ([`Param::library_ty`], [`Signature::library_ret`]).
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

pub mod docstring;
pub mod overlay;
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
    /// Harvested overlay entries left out because they do not match the library, one note
    /// each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub harvest_notes: Vec<String>,
}

/// A parameter of a function, method or constructor.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Param {
    /// Its name, as the library's authors spell it (each backend respells it).
    pub name: String,
    /// Where the name came from.
    #[serde(skip_serializing_if = "NameSource::is_positional")]
    pub name_from: NameSource,
    /// Its type, as bindings declare it.
    #[serde(rename = "type")]
    pub ty: Type,
    /// The library's type when the overlay narrowed it (what load-time checks compare).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library_ty: Option<Type>,
    /// What a caller who leaves it out gets, if it may be left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<ParamDefault>,
    /// Callers pass it by name only (after the positional parameters).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub kw_only: bool,
    /// Its documentation.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub doc: String,
}

impl Param {
    /// A required positional parameter without documentation.
    pub fn new(name: impl Into<String>, name_from: NameSource, ty: Type) -> Self {
        Param {
            name: name.into(),
            name_from,
            ty,
            library_ty: None,
            default: None,
            kw_only: false,
            doc: String::new(),
        }
    }

    /// The type the library declares.
    pub fn declared_ty(&self) -> &Type {
        self.library_ty.as_ref().unwrap_or(&self.ty)
    }
}

/// Where a parameter's name came from, the first found wins (in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NameSource {
    /// The signature overlay.
    Overlay,
    /// The metadata key `arg_names` (the Rust macros, C++ `refl::Metadata`).
    Metadata,
    /// The library's Python package (`ffihub harvest`, `generate --harvest`).
    Harvest,
    /// The parameter list of the docstring.
    Docstring,
    /// The field a constructor parameter initializes.
    Field,
    /// None: `arg<i>`.
    Positional,
}

impl NameSource {
    fn is_positional(&self) -> bool {
        *self == NameSource::Positional
    }

    /// How a report names the source.
    pub fn describe(&self) -> &'static str {
        match self {
            NameSource::Overlay => "the overlay",
            NameSource::Metadata => "arg_names",
            NameSource::Harvest => "the harvest",
            NameSource::Docstring => "docstrings",
            NameSource::Field => "fields",
            NameSource::Positional => "none (positional)",
        }
    }
}

/// A value a binding can spell in every language.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum Literal {
    /// None.
    None,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A finite float.
    Float(f64),
    /// A string.
    String(String),
    /// An empty array (or list).
    EmptyArray,
    /// An empty map (or dict).
    EmptyMap,
    /// A data type, spelled like `float32`.
    DataType(String),
    /// A device.
    Device {
        /// `DLDeviceType` value.
        device_type: i32,
        /// Device ordinal.
        device_id: i32,
    },
}

impl Literal {
    /// A field default of the document, when it has a spelling.
    pub fn from_field_default(d: &schema::DefaultValue) -> Option<Literal> {
        Some(match d {
            schema::DefaultValue::None => Literal::None,
            schema::DefaultValue::Bool(b) => Literal::Bool(*b),
            schema::DefaultValue::Int(i) => Literal::Int(*i),
            schema::DefaultValue::Float(f) => Literal::Float(*f),
            schema::DefaultValue::String(s) => Literal::String(s.clone()),
            schema::DefaultValue::DataType(s) => Literal::DataType(s.clone()),
            schema::DefaultValue::Device {
                device_type,
                device_id,
            } => Literal::Device {
                device_type: *device_type,
                device_id: *device_id,
            },
            schema::DefaultValue::Factory | schema::DefaultValue::Opaque(_) => return None,
        })
    }

    /// A JSON value (an `arg_defaults` entry, an overlay default), when it is one of the values
    /// a literal can be: null, a bool, an integer, a float, a string, `[]` or `{}`.
    pub fn from_json(v: &serde_json::Value) -> Option<Literal> {
        use serde_json::Value;
        Some(match v {
            Value::Null => Literal::None,
            Value::Bool(b) => Literal::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Literal::Int(i),
                None => Literal::Float(n.as_f64().filter(|f| f.is_finite())?),
            },
            Value::String(s) => Literal::String(s.clone()),
            Value::Array(a) if a.is_empty() => Literal::EmptyArray,
            Value::Object(o) if o.is_empty() => Literal::EmptyMap,
            _ => return None,
        })
    }

    /// Whether a value of type `ty` can be this literal.
    pub fn fits(&self, ty: &Type) -> bool {
        match (self, ty) {
            (_, Type::Any) => true,
            (_, Type::Optional(inner)) => *self == Literal::None || self.fits(inner),
            (_, Type::Variant(members)) => members.iter().any(|m| self.fits(m)),
            (Literal::None, t) => *t == Type::None,
            (Literal::Bool(_), t) => *t == Type::Bool,
            (Literal::Int(_), t) => matches!(t, Type::Int | Type::BigInt | Type::Float),
            (Literal::Float(_), t) => *t == Type::Float,
            (Literal::String(_), t) => *t == Type::String,
            (Literal::EmptyArray, t) => {
                matches!(t, Type::Array(_) | Type::List(_)) || *t == Type::Tuple(Vec::new())
            }
            (Literal::EmptyMap, t) => matches!(t, Type::Map(..) | Type::Dict(..)),
            (Literal::DataType(_), t) => *t == Type::DataType,
            (Literal::Device { .. }, t) => *t == Type::Device,
        }
    }
}

impl std::fmt::Display for Literal {
    /// The spelling of generated docs (Python's): `None`, `True`, `1`, `0.5`, `"s"`, `[]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Literal::None => f.write_str("None"),
            Literal::Bool(true) => f.write_str("True"),
            Literal::Bool(false) => f.write_str("False"),
            Literal::Int(i) => write!(f, "{i}"),
            Literal::Float(x) => write!(f, "{x:?}"),
            Literal::String(s) => write!(f, "{s:?}"),
            Literal::EmptyArray => f.write_str("[]"),
            Literal::EmptyMap => f.write_str("{}"),
            Literal::DataType(s) => write!(f, "dtype({s:?})"),
            Literal::Device {
                device_type,
                device_id,
            } => write!(f, "Device({device_type}, {device_id})"),
        }
    }
}

/// What a caller who leaves a parameter out gets.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamDefault {
    /// This value, which the binding passes: the library needs every argument (an overlay
    /// default).
    Binding(Literal),
    /// The library's own default, applied when the argument is left out (a trailing positional
    /// argument, a keyword of a generated `__ffi_init__`); its value when the metadata spells
    /// it (a binding may then pass it instead).
    Library(Option<Literal>),
}

impl ParamDefault {
    /// The default's value, when known.
    pub fn value(&self) -> Option<&Literal> {
        match self {
            ParamDefault::Binding(v) => Some(v),
            ParamDefault::Library(v) => v.as_ref(),
        }
    }
}

/// A typed signature.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Signature {
    /// The parameters.
    pub params: Vec<Param>,
    /// The return type as bindings declare it ([`Type::None`] for nothing).
    #[serde(rename = "return")]
    pub ret: Type,
    /// The library's return type when the overlay narrowed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library_ret: Option<Type>,
}

impl Signature {
    /// The return type the library declares.
    pub fn declared_ret(&self) -> &Type {
        self.library_ret.as_ref().unwrap_or(&self.ret)
    }
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

impl Library {
    /// Where parameter names came from: per source, how many functions, methods and
    /// constructors with parameters took their names from it (the first parameter's source:
    /// names are given for a whole signature).
    pub fn name_sources(&self) -> BTreeMap<NameSource, usize> {
        let signatures = self
            .functions
            .iter()
            .filter_map(|f| f.signature.as_ref())
            .chain(
                self.types
                    .iter()
                    .flat_map(|t| &t.methods)
                    .filter_map(|m| m.signature.as_ref()),
            )
            .map(|s| &s.params);
        let constructors = self
            .types
            .iter()
            .filter_map(|t| t.constructor.as_ref())
            .map(|c| &c.params);
        let mut counts = BTreeMap::new();
        for params in signatures.chain(constructors) {
            if let Some(first) = params.first() {
                *counts.entry(first.name_from).or_insert(0) += 1;
            }
        }
        counts
    }

    /// One line for `generate`: `parameter names: 3 from the overlay, 40 from arg_names, ...`.
    pub fn naming_report(&self) -> String {
        let counts = self.name_sources();
        if counts.is_empty() {
            return "parameter names: no function has parameters".into();
        }
        let parts: Vec<String> = counts
            .iter()
            .map(|(source, n)| format!("{n} from {}", source.describe()))
            .collect();
        format!(
            "parameter names (functions, methods and constructors with parameters): {}",
            parts.join(", ")
        )
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

/// A constructor.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Constructor {
    /// Which calling convention.
    pub kind: ConstructorKind,
    /// Its documentation (from the `__ffi_init__` method, when there is one).
    pub doc: String,
    /// Its parameters in calling order (the library's order for a typed `__ffi_init__`; for a
    /// generated one positional ones, required before optional, then keyword-only ones).
    pub params: Vec<Param>,
}

/// How the IR is built.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Registered name (function name or type key) -> the dotted name to bind it under instead.
    pub rename: BTreeMap<String, String>,
    /// The signature overlay (the `signatures:` section of the `--config` file).
    pub signatures: Option<schema::Signatures>,
    /// The harvested overlay (`--harvest`), applied before [`Options::signatures`]; its
    /// entries that do not match are left out ([`Library::harvest_notes`]).
    pub harvested: Option<schema::Signatures>,
}

/// Why the IR of a document could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// The document or the rename map is unusable (one line).
    Invalid(String),
    /// Entries of the signature overlay do not match the library (one line each, naming the
    /// entry).
    Overlay(Vec<String>),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Invalid(why) => f.write_str(why),
            BuildError::Overlay(problems) => f.write_str(&problems.join("\n")),
        }
    }
}

impl From<BuildError> for String {
    fn from(e: BuildError) -> String {
        e.to_string()
    }
}

/// Builds the IR of a document; fails if its inheritance is cyclic.
pub fn build(doc: &Reflection) -> Result<Library, String> {
    Ok(build_with(doc, &Options::default())?)
}

/// Builds the IR of a document with options; fails if its inheritance is cyclic, a rename
/// names an unknown item or the signature overlay does not match the library.
pub fn build_with(doc: &Reflection, opts: &Options) -> Result<Library, BuildError> {
    let local: BTreeMap<&str, &schema::ObjectType> =
        doc.types.iter().map(|t| (t.key.as_str(), t)).collect();
    if let Some(cycle) = inheritance_cycle(&local) {
        return Err(BuildError::Invalid(format!(
            "cyclic inheritance: {}",
            cycle.join(" -> ")
        )));
    }
    let unknown: Vec<&str> = opts
        .rename
        .keys()
        .filter(|k| !local.contains_key(k.as_str()) && doc.functions.iter().all(|f| f.name != **k))
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        return Err(BuildError::Invalid(format!(
            "the rename map names items the library does not have: {}",
            unknown.join(", ")
        )));
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

    let mut lib = Library {
        checksum: doc.checksum(),
        libraries,
        root,
        functions,
        types,
        shadowed_exports,
        harvest_notes: Vec::new(),
    };
    if let Some(harvested) = &opts.harvested {
        lib.harvest_notes = overlay::apply_harvested(&mut lib, harvested);
    }
    if let Some(overlay) = &opts.signatures {
        overlay::apply(&mut lib, overlay).map_err(BuildError::Overlay)?;
    }
    Ok(lib)
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

/// Parameter names from the metadata key `arg_names` (a JSON list of strings, or a string
/// holding one), as the ffihub Rust extension API and C++ `refl::Metadata` record them.
fn arg_names(meta: &schema::Metadata) -> Option<Vec<String>> {
    let value = meta.get("arg_names")?;
    let list = match value {
        serde_json::Value::String(text) => serde_json::from_str(text).ok()?,
        other => other.clone(),
    };
    serde_json::from_value(list).ok()
}

/// Parameter defaults from the metadata key `arg_defaults` (a JSON object keyed by parameter
/// name, or a string holding one), as the ffihub Rust extension API records them: the library
/// applies them to trailing arguments left out.
fn arg_defaults(meta: &schema::Metadata) -> BTreeMap<String, serde_json::Value> {
    let Some(value) = meta.get("arg_defaults") else {
        return BTreeMap::new();
    };
    let object = match value {
        serde_json::Value::String(text) => serde_json::from_str(text).unwrap_or_default(),
        other => other.clone(),
    };
    match object {
        serde_json::Value::Object(map) => map.into_iter().collect(),
        _ => BTreeMap::new(),
    }
}

/// The names of `count` parameters from a list that may also name the receiver (the first of
/// `count + 1`), when every name is given.
fn names_for(names: &[String], count: usize) -> Option<&[String]> {
    let names = if names.len() == count + 1 {
        &names[1..]
    } else {
        names
    };
    (names.len() == count && names.iter().all(|n| !n.is_empty())).then_some(names)
}

/// A signature from the document: `self` removed for instance methods, names from `arg_names`
/// or the docstring's parameter list (else `arg<i>`), docs from that list, defaults from
/// `arg_defaults` (only a trailing run: the library fills arguments left out at the end).
/// When the docstring's list documents the parameters, `doc` loses it (bindings list the
/// parameters their own way).
fn signature(
    sig: &schema::Signature,
    skip_self: bool,
    meta: &schema::Metadata,
    doc: &mut String,
) -> Signature {
    let from = usize::from(skip_self && !sig.params.is_empty());
    let mut params: Vec<Param> = sig.params[from..]
        .iter()
        .enumerate()
        .map(|(i, t)| {
            Param::new(
                format!("arg{i}"),
                NameSource::Positional,
                Type::from_schema(t),
            )
        })
        .collect();
    let list = docstring::params(doc);
    let documented = list
        .as_ref()
        .map(|l| l.params.as_slice())
        .unwrap_or_default();
    let documented_names: Vec<String> = documented.iter().map(|p| p.name.clone()).collect();
    let named = arg_names(meta)
        .and_then(|n| names_for(&n, params.len()).map(|n| (n.to_vec(), NameSource::Metadata)))
        .or_else(|| {
            names_for(&documented_names, params.len()).map(|n| (n.to_vec(), NameSource::Docstring))
        });
    if let Some((names, source)) = named {
        for (p, n) in params.iter_mut().zip(names) {
            p.name = n;
            p.name_from = source;
        }
    }
    // Parameter docs from the docstring, when it documents exactly these parameters.
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    if let Some(list) = list.filter(|_| documented_names == names) {
        for (p, d) in params.iter_mut().zip(&list.params) {
            p.doc = d.doc.clone();
        }
        *doc = list.rest;
    }
    let defaults = arg_defaults(meta);
    for p in params.iter_mut().rev() {
        let Some(value) = defaults.get(&p.name) else {
            break;
        };
        p.default = Some(ParamDefault::Library(Literal::from_json(value)));
    }
    Signature {
        params,
        ret: Type::from_schema(&sig.ret),
        library_ret: None,
    }
}

fn function(f: &schema::Function, path: Vec<String>) -> Function {
    let mut doc = f.doc.clone();
    let signature = f
        .signature
        .as_ref()
        .map(|s| signature(s, false, &f.metadata, &mut doc));
    Function {
        name: f.name.clone(),
        path,
        doc,
        signature,
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
        .map(|m| {
            let mut doc = m.doc.clone();
            let signature = m
                .signature
                .as_ref()
                .map(|s| signature(s, !m.is_static, &m.metadata, &mut doc));
            Method {
                name: m.name.clone(),
                is_static: m.is_static,
                doc,
                signature,
            }
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

/// A typed `__ffi_init__`: parameter names come from the method's `arg_names` or docstring,
/// else from the init fields when they match one to one (same count, same types), else
/// `arg<i>`; parameters with `arg_defaults` may be left out.
fn init_method(m: &schema::Method, init_fields: &[(&schema::Field, &str)]) -> Constructor {
    let Some(sig) = m.signature.as_ref() else {
        return Constructor {
            kind: ConstructorKind::InitMethod,
            doc: m.doc.clone(),
            params: Vec::new(),
        };
    };
    let mut doc = m.doc.clone();
    let mut params = signature(sig, false, &m.metadata, &mut doc).params;
    let field_types: Vec<Type> = init_fields.iter().map(|(f, o)| field(f, o).ty).collect();
    let matches_fields = field_types.len() == params.len()
        && field_types.iter().zip(&params).all(|(a, p)| *a == p.ty);
    if matches_fields && params.iter().all(|p| p.name_from == NameSource::Positional) {
        for (p, (f, _)) in params.iter_mut().zip(init_fields) {
            p.name = f.name.clone();
            p.name_from = NameSource::Field;
        }
    }
    Constructor {
        kind: ConstructorKind::InitMethod,
        doc,
        params,
    }
}

/// The generated `__ffi_init__`, as Apache's runtime builds it: the init fields; positionally the
/// required ones first, then those with defaults (each group in field order); keyword-only ones
/// last.
fn auto_init(init_fields: &[(&schema::Field, &str)]) -> Constructor {
    let param = |(f, o): &(&schema::Field, &str)| Param {
        kw_only: f.flags.has(FieldFlags::KW_ONLY),
        default: f.flags.has(FieldFlags::HAS_DEFAULT).then(|| {
            ParamDefault::Library(f.default.as_ref().and_then(Literal::from_field_default))
        }),
        doc: f.doc.clone(),
        ..Param::new(f.name.clone(), NameSource::Field, field(f, o).ty)
    };
    let (kw, positional): (Vec<_>, Vec<_>) = init_fields.iter().map(param).partition(|p| p.kw_only);
    let (optional, required): (Vec<_>, Vec<_>) =
        positional.into_iter().partition(|p| p.default.is_some());
    Constructor {
        kind: ConstructorKind::AutoInit,
        doc: String::new(),
        params: required.into_iter().chain(optional).chain(kw).collect(),
    }
}
