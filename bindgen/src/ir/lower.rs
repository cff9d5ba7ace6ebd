//! Lowering: the reflection document to the IR model ([`super::model`]).

use super::model::*;
use super::{docstring, overlay, Type};
use ffihub_schema::{self as schema, FieldFlags, Reflection};
use std::collections::BTreeMap;

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
    members(&mut lib);
    Ok(lib)
}

/// The members of each type from the globals whose role names it (checked by the overlay):
/// a method or property loses its receiver.
fn members(lib: &mut Library) {
    let mut found: BTreeMap<String, Vec<Member>> = BTreeMap::new();
    for f in &lib.functions {
        let Some(role) = &f.role else {
            continue;
        };
        let Some(t) = lib.types.iter().find(|t| t.key == role.of) else {
            continue;
        };
        let mut signature = f.signature.clone();
        let receiver = role.kind != schema::RoleKind::Constructor;
        if let Some(sig) = signature.as_mut().filter(|_| receiver) {
            sig.params.remove(0);
        }
        found.entry(role.of.clone()).or_default().push(Member {
            kind: role.kind,
            name: role
                .name
                .clone()
                .or_else(|| t.path.last().cloned())
                .unwrap_or_default(),
            function: f.name.clone(),
            doc: super::api_doc(Some(role), &f.doc).to_string(),
            signature,
        });
    }
    for t in &mut lib.types {
        if let Some(mut members) = found.remove(&t.key) {
            members.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
            t.members = members;
        }
    }
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
        role: None,
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
                role: None,
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
        members: Vec::new(),
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
