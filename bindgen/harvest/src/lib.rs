//! `ffihub-harvest`: what a TVM-FFI library's own Python package knows about the functions it
//! registers, read statically from its source (docs/harvest.md, docs/adr/0015-harvest.md).
//!
//! The package calls its registered functions from Python functions that have parameter names,
//! defaults, keyword-only markers, annotations and docstrings. [`harvest`] parses every module
//! ([`source`]), builds a table of the modules' bindings, FFI namespaces and registered classes
//! (`index`), finds every call of a registered function, method or constructor and follows
//! each argument back to the caller's parameters (`sites`), and picks per registered entry
//! the call site that names most (`select`). The result is Python-level knowledge: names,
//! literal defaults, keyword-only flags, annotation types in the compact TVM-FFI spelling,
//! docstrings, and the role the Python API gives the entry (constructor, method, property).
//! Whether a type is narrower than the library's or a default fits is the generator's to
//! decide (it knows the library's types); this crate never runs Python.

mod annotation;
mod index;
mod select;
mod sites;
pub mod source;

use std::collections::BTreeMap;
use std::path::PathBuf;

/// What the library registered, as the harvest needs it (the generator builds it from its IR).
#[derive(Clone, Debug, Default)]
pub struct Registry {
    /// Global function name -> number of parameters (`None`: packed, any arguments).
    pub functions: BTreeMap<String, Option<usize>>,
    /// Type key -> its ancestors and members.
    pub types: BTreeMap<String, TypeInfo>,
}

/// A registered type.
#[derive(Clone, Debug, Default)]
pub struct TypeInfo {
    /// Ancestor keys, root first.
    pub ancestors: Vec<String>,
    /// Method name -> method (without `__ffi_init__`).
    pub methods: BTreeMap<String, MethodInfo>,
    /// The number of parameters of a typed `__ffi_init__` (a constructor an overlay may name).
    pub init_params: Option<usize>,
}

/// A registered method.
#[derive(Clone, Debug, Default)]
pub struct MethodInfo {
    /// Called without a receiver.
    pub is_static: bool,
    /// Number of parameters without the receiver (`None`: packed).
    pub params: Option<usize>,
}

impl Registry {
    /// The method `name` of `key` or of its nearest ancestor that has it: (owner key, method).
    pub fn method(&self, key: &str, name: &str) -> Option<(&str, &MethodInfo)> {
        let t = self.types.get(key)?;
        if let Some(m) = t.methods.get(name) {
            return Some((self.types.get_key_value(key)?.0, m));
        }
        t.ancestors.iter().rev().find_map(|a| {
            let (k, t) = self.types.get_key_value(a)?;
            t.methods.get(name).map(|m| (k.as_str(), m))
        })
    }

    /// Whether `key` is `base` or derives from it.
    pub fn derives(&self, key: &str, base: &str) -> bool {
        key == base
            || self
                .types
                .get(key)
                .is_some_and(|t| t.ancestors.iter().any(|a| a == base))
    }
}

/// A folder of Python source: a package (`…/site/tvm`) whose modules are named from its own
/// name down (`tvm.ir.expr`).
#[derive(Clone, Debug)]
pub struct PackageRoot {
    /// The package folder.
    pub dir: PathBuf,
}

/// The harvest of one library: an entry per registered name that has a usable Python caller,
/// and the report.
#[derive(Clone, Debug, Default)]
pub struct Harvest {
    /// Registered entry name (`pkg.func`, `pkg.Type.method`, `pkg.Type.__init__`) -> entry.
    pub entries: BTreeMap<String, Entry>,
    /// Counts and problems for the report.
    pub report: Report,
}

/// What the Python package says about one registered function, method or constructor.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Where the knowledge came from: the calling Python function.
    pub origin: Origin,
    /// The role the Python API gives the registered entry.
    pub role: Role,
    /// The registered entry is packed: `params` follow the call site's arity.
    pub packed: bool,
    /// One per parameter of the registered entry, in its order.
    pub params: Vec<Param>,
    /// The calling function's return annotation, in the compact spelling, when it returns the
    /// call's result directly.
    pub returns: Option<String>,
    /// The calling function's docstring; for a constructor whose `__init__` has none, its
    /// class's. It documents the member a role makes (the Python method, property or
    /// constructor); parameter docs are the generator's to extract.
    pub doc: String,
    /// How many call sites reach the entry.
    pub sites: usize,
    /// Positions where another call site passes a different parameter: one line each.
    pub clashes: Vec<String>,
}

/// A Python function, for provenance comments and reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The file, relative to the package's parent folder (`xgrammar/grammar.py`).
    pub file: String,
    /// The 1-based line of the call.
    pub line: usize,
    /// The function's qualified name inside its module (`Grammar.from_json_schema`).
    pub function: String,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{} {}", self.file, self.line, self.function)
    }
}

/// The role the Python package gives a registered entry (what its call site's function is).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// Called from a free function (or a static method), or a method that passes no receiver.
    Plain,
    /// Called to construct an instance of the Python class (`__init__` with
    /// `__init_handle_by_constructor__`, `_init_handle(...)` or a typed `__ffi_init__`).
    Constructor {
        /// The class's qualified name.
        class: String,
        /// The registered type the class is or wraps (`@register_object`, `_handle`).
        key: Option<String>,
    },
    /// Called from method `method` of a class, with the receiver as an argument.
    Method {
        /// The class's qualified name.
        class: String,
        /// The registered type the class is or wraps.
        key: Option<String>,
        /// The Python method's name.
        method: String,
    },
    /// Called from a `@property` of a class, with the receiver.
    Property {
        /// The class's qualified name.
        class: String,
        /// The registered type the class is or wraps.
        key: Option<String>,
        /// The property's name.
        property: String,
    },
}

impl Role {
    /// `plain`, `constructor`, `method` or `property` (report keys).
    pub fn kind(&self) -> &'static str {
        match self {
            Role::Plain => "plain",
            Role::Constructor { .. } => "constructor",
            Role::Method { .. } => "method",
            Role::Property { .. } => "property",
        }
    }

    /// The registered type of the class, for a constructor, method or property.
    pub fn key(&self) -> Option<&str> {
        match self {
            Role::Plain => None,
            Role::Constructor { key, .. }
            | Role::Method { key, .. }
            | Role::Property { key, .. } => key.as_deref(),
        }
    }
}

/// One parameter as the Python caller knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The name, when the caller gives one.
    pub name: Option<String>,
    /// How the name was found.
    pub how: NameHow,
    /// The Python parameter behind it (its docstring entry, its default).
    pub python_param: Option<String>,
    /// A literal default, as JSON (`null`, a bool, a number, a string, `[]`, `{}`).
    pub default: Option<serde_json::Value>,
    /// Why the Python default was not kept, when there was one.
    pub default_dropped: Option<String>,
    /// Python keyword-only parameter.
    pub keyword_only: bool,
    /// The annotation in the compact TVM-FFI spelling, when it maps to one.
    pub ty: Option<String>,
    /// The annotation's source, when it does not map or does not apply (a transformed value).
    pub ty_dropped: Option<String>,
}

impl Param {
    fn positional() -> Param {
        Param {
            name: None,
            how: NameHow::Positional,
            python_param: None,
            default: None,
            default_dropped: None,
            keyword_only: false,
            ty: None,
            ty_dropped: None,
        }
    }
}

/// How a parameter's name was found, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum NameHow {
    /// The argument is a parameter of the caller, passed unchanged.
    Direct,
    /// A local assigned from one parameter (`schema_str = convert(schema)`).
    Flow,
    /// An expression of one parameter (`x._handle`, `vocab_type.value`).
    Expression,
    /// From the `@overload` of the caller with this arity.
    Overload,
    /// One of several locals computed from one parameter (weak: `names, values = f(p)`).
    FanOut,
    /// The receiver `self`, named after its class (snake case).
    Receiver,
    /// Nothing: the generator writes `arg<i>`.
    Positional,
}

impl NameHow {
    /// Report key.
    pub fn describe(&self) -> &'static str {
        match self {
            NameHow::Direct => "direct",
            NameHow::Flow => "local",
            NameHow::Expression => "expression",
            NameHow::Overload => "overload",
            NameHow::FanOut => "fan-out",
            NameHow::Receiver => "receiver",
            NameHow::Positional => "positional",
        }
    }

    /// Names the generator should flag for review.
    pub fn is_weak(&self) -> bool {
        matches!(self, NameHow::FanOut | NameHow::Receiver)
    }
}

/// The harvest's counts and problems (the generator prints them).
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Python files read.
    pub files: usize,
    /// Files that do not parse: `file:line: message`, one each (warnings).
    pub parse_warnings: Vec<String>,
    /// Modules bound to an FFI namespace.
    pub ffi_modules: usize,
    /// Python classes bound to a registered type (decorator or handle).
    pub classes: usize,
    /// Call sites that reach a registered entry.
    pub sites: usize,
    /// Call sites whose argument count differs from the registered signature: one line each.
    pub arity_mismatches: Vec<String>,
    /// Registered entries with Python call sites, but none usable (arity, `*args`).
    pub unusable: Vec<String>,
}

/// Harvests `roots` for the entries of `registry`. Errors only for unusable input (a root that
/// is no folder); files that do not parse are warnings in the report.
pub fn harvest(registry: &Registry, roots: &[PackageRoot]) -> Result<Harvest, String> {
    let files = source::read(roots)?;
    let mut report = Report {
        files: files.modules.len() + files.warnings.len(),
        parse_warnings: files.warnings.clone(),
        ..Report::default()
    };
    let index = index::Index::new(&files.modules, registry);
    report.ffi_modules = index.ffi_module_count();
    report.classes = index.registered_class_count();
    let found = sites::collect(&index);
    report.sites = found.len();
    let entries = select::entries(&index, found, &mut report);
    Ok(Harvest { entries, report })
}
