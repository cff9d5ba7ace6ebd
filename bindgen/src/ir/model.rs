//! The IR model: the types the backends read (built by [`super::lower`]).

use super::Type;
use ffihub_schema as schema;
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
    /// What the library's Python API makes of it (the overlay's `role`): it is then also a
    /// member of that type ([`ObjectType::members`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<schema::RoleEntry>,
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
    /// Global functions the library's Python API uses as its constructors, methods and
    /// properties (their `role`), by kind then name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<Member>,
}

/// A global function (or static method) that is a member of a type in the library's Python API.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Member {
    /// Constructor, method or property.
    pub kind: schema::RoleKind,
    /// Its Python name (a method's or property's; the type's own for a constructor).
    pub name: String,
    /// The registered global it calls (`ir.BaseFuncWithAttr`).
    pub function: String,
    /// Documentation: the Python function's that defines it (the role's `doc`), else the
    /// global's ([`api_doc`]).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub doc: String,
    /// The signature without the receiver (a method's or property's first parameter); `None`
    /// for a packed constructor.
    pub signature: Option<Signature>,
}

/// The documentation bindings show for a function or method that has `role`: the docstring of
/// the Python function that defines the member (the role's `doc`), else the library's `own`.
pub fn api_doc<'a>(role: Option<&'a schema::RoleEntry>, own: &'a str) -> &'a str {
    role.and_then(|r| r.doc.as_deref())
        .filter(|d| !d.is_empty())
        .unwrap_or(own)
}

impl Method {
    /// Its documentation in the bindings: [`api_doc`] of its role.
    pub fn api_doc(&self) -> &str {
        api_doc(self.role.as_ref(), &self.doc)
    }
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
    /// What the library's Python API makes of it (the overlay's `role`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<schema::RoleEntry>,
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
