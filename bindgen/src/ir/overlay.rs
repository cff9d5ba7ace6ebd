//! The signature overlay applied to the IR (the format: `ffihub_schema::Signatures`,
//! docs/adr/0012-signatures.md).
//!
//! Every entry is checked against the library before anything is applied; each problem names
//! the entry: a name that is no function, method or typed constructor of the library, a packed
//! function, a parameter list of another length, a repeated name, a type that does not parse,
//! names an unknown type key or is not narrower than the library's, a default that is no
//! literal or no value of the parameter's type, a positional parameter without default after
//! one with a default. `ffihub check` reports the same problems as entries that no longer match
//! the library.
//!
//! A `null` default of a nullable parameter (an object, a function, a container) is accepted and
//! makes the declared type optional; a string default of a data type is that data type
//! (docs/adr/0015-harvest.md). Harvested entries ([`apply_harvested`]) are first fitted to these
//! checks ([`fit`]) and those that still fail are left out instead of failing the build.

use super::{ConstructorKind, Library, Literal, NameSource, ParamDefault, Signature, Type};
use ffihub_schema::{ParamEntry, RoleEntry, RoleKind, SignatureEntry, Signatures, TypeSchema};
use std::collections::{BTreeMap, BTreeSet};

/// Where an entry applies: a signature of the library, and whether it is a constructor's.
enum Target<'a> {
    Callable(&'a mut Signature),
    Constructor(&'a mut Vec<super::Param>),
}

/// Checks every entry of `overlay` against `lib` and applies them; on any problem nothing is
/// applied and every problem is returned, one line each.
pub fn apply(lib: &mut Library, overlay: &Signatures) -> Result<(), Vec<String>> {
    if let Err(e) = overlay.validate() {
        return Err(vec![e]);
    }
    let (planned, problems) = plan_all(lib, overlay);
    if !problems.is_empty() {
        return Err(problems);
    }
    for (name, p) in planned {
        if let Ok(target) = resolve(lib, &name) {
            p.apply(target, NameSource::Overlay);
        }
    }
    for (name, entry) in &overlay.entries {
        set_role(lib, name, entry.role.clone());
    }
    Ok(())
}

/// Applies a harvested overlay (`ffihub_harvest`, already fitted with [`fit`]): entries that
/// still do not match are left out, each problem returned; names from `arg_names` stay (they
/// come first).
pub fn apply_harvested(lib: &mut Library, overlay: &Signatures) -> Vec<String> {
    let (planned, problems) = plan_all(lib, overlay);
    for (name, p) in planned {
        if let Ok(target) = resolve(lib, &name) {
            p.apply(target, NameSource::Harvest);
        }
    }
    for (name, entry) in &overlay.entries {
        if entry.role.is_some() && !problems.iter().any(|p| p.contains(&format!("`{name}`"))) {
            set_role(lib, name, entry.role.clone());
        }
    }
    problems
}

/// An entry that only gives a packed global a role (it has no signature to name).
fn role_only_of_packed(lib: &Library, name: &str, entry: &SignatureEntry) -> bool {
    entry.params.is_none()
        && entry.returns.is_none()
        && entry.role.is_some()
        && lib
            .functions
            .iter()
            .any(|f| f.name == name && f.signature.is_none())
}

/// Records the role of the function or method `name` (checked by [`plan_all`]).
fn set_role(lib: &mut Library, name: &str, role: Option<RoleEntry>) {
    if role.is_none() {
        return;
    }
    if let Some(f) = lib.functions.iter_mut().find(|f| f.name == name) {
        f.role = role;
        return;
    }
    let Some((key, member)) = name.rsplit_once('.') else {
        return;
    };
    if let Some(m) = lib
        .types
        .iter_mut()
        .filter(|t| t.key == key)
        .flat_map(|t| t.methods.iter_mut())
        .find(|m| m.name == member)
    {
        m.role = role;
    }
}

/// Checks a role against the function or method `name`: its class is a type of the library;
/// a method's or property's receiver is of that type or a base, a property takes nothing
/// else; a constructor returns the type, a base or any object.
pub fn check_role(lib: &Library, name: &str, role: &RoleEntry) -> Result<(), String> {
    let Some(class) = lib.types.iter().find(|t| t.key == role.of) else {
        return Err(format!(
            "role: unknown class `{}` (not a type of this library)",
            role.of
        ));
    };
    let is_base = |ty: &Type| match ty {
        Type::Any | Type::Object => true,
        Type::Class(k) => *k == class.key || class.ancestors.contains(k),
        _ => false,
    };
    // The parameters after the receiver, and the return type.
    let (params, ret): (usize, &Type) =
        if let Some(f) = lib.functions.iter().find(|f| f.name == name) {
            let Some(sig) = &f.signature else {
                // A packed global takes any arguments: it can construct, but nothing says
                // which argument is the receiver.
                return match role.kind {
                    RoleKind::Constructor => Ok(()),
                    _ => Err("role: a packed global can only be a constructor".into()),
                };
            };
            if role.kind == RoleKind::Constructor {
                (sig.params.len(), &sig.ret)
            } else {
                let Some(receiver) = sig.params.first() else {
                    return Err(
                        "role: a method or property of a global needs the receiver as its \
                            first parameter, and it has none"
                            .into(),
                    );
                };
                if !is_base(receiver.declared_ty()) {
                    return Err(format!(
                        "role: the receiver's type `{}` is not `{}` or a base of it",
                        receiver.declared_ty(),
                        role.of
                    ));
                }
                (sig.params.len() - 1, &sig.ret)
            }
        } else {
            let (key, member) = name.rsplit_once('.').unwrap_or_default();
            let Some(m) = lib
                .types
                .iter()
                .filter(|t| t.key == key)
                .flat_map(|t| &t.methods)
                .find(|m| m.name == member)
            else {
                return Err("role: only a global function or a method takes a role".into());
            };
            let Some(sig) = &m.signature else {
                return Err(packed());
            };
            if (role.kind == RoleKind::Constructor) != m.is_static {
                return Err(
                    "role: a static method can only be a constructor, an instance method \
                        only a method or property"
                        .into(),
                );
            }
            if m.is_static {
            } else if role.of != key && !class.ancestors.iter().any(|a| a == key) {
                return Err(format!(
                    "role: the method's type `{key}` is not `{}` or a base of it",
                    role.of
                ));
            }
            (sig.params.len(), &sig.ret)
        };
    if role.kind == RoleKind::Property && params != 0 {
        return Err(format!(
            "role: a property takes only the receiver; this takes {params} more parameter(s)"
        ));
    }
    let derived = |ty: &Type| match ty {
        Type::Class(k) => lib
            .types
            .iter()
            .any(|t| t.key == *k && t.ancestors.contains(&class.key)),
        _ => false,
    };
    if role.kind == RoleKind::Constructor && !is_base(ret) && !derived(ret) {
        return Err(format!(
            "role: a constructor of `{}` returns `{ret}`, no object of it",
            role.of
        ));
    }
    Ok(())
}

/// The parameter count of the constructor `name`, a global or static method.
fn arity(lib: &Library, name: &str) -> Option<usize> {
    let sig = match lib.functions.iter().find(|f| f.name == name) {
        Some(f) => f.signature.as_ref(),
        None => {
            let (key, member) = name.rsplit_once('.')?;
            lib.types
                .iter()
                .filter(|t| t.key == key)
                .flat_map(|t| &t.methods)
                .find(|m| m.name == member)?
                .signature
                .as_ref()
        }
    };
    sig.map(|s| s.params.len())
}

/// Entries whose constructor role takes the arity an earlier entry's constructor of the same
/// class has (both could not be told apart by a caller), with the entry that has it.
pub fn same_arity_constructors<'a>(
    lib: &Library,
    entries: impl Iterator<Item = (&'a String, &'a RoleEntry)>,
) -> Vec<(String, String)> {
    let mut seen: BTreeMap<(String, usize), String> = BTreeMap::new();
    let mut out = Vec::new();
    for (name, role) in entries.filter(|(_, r)| r.kind == RoleKind::Constructor) {
        let Some(n) = arity(lib, name) else { continue };
        match seen.get(&(role.of.clone(), n)) {
            Some(first) => out.push((name.clone(), first.clone())),
            None => {
                seen.insert((role.of.clone(), n), name.clone());
            }
        }
    }
    out
}

fn known_types(lib: &Library) -> (BTreeSet<String>, Vec<(String, Vec<String>)>) {
    let keys: BTreeSet<String> = lib.types.iter().map(|t| t.key.clone()).collect();
    let ancestry: Vec<(String, Vec<String>)> = lib
        .types
        .iter()
        .map(|t| (t.key.clone(), t.ancestors.clone()))
        .collect();
    (keys, ancestry)
}

/// Plans every entry: the plans of the entries that match, and the problems of those that do
/// not.
fn plan_all(lib: &mut Library, overlay: &Signatures) -> (Vec<(String, Plan)>, Vec<String>) {
    let mut problems = Vec::new();
    let (keys, ancestry) = known_types(lib);
    let types = KnownTypes {
        keys: &keys,
        ancestry: &ancestry,
    };
    let mut planned = Vec::new();
    for (name, entry) in &overlay.entries {
        if let Some(Err(why)) = entry.role.as_ref().map(|r| check_role(lib, name, r)) {
            problems.push(format!("signatures: `{name}`: {why}"));
            continue;
        }
        if role_only_of_packed(lib, name, entry) {
            continue;
        }
        match resolve(lib, name) {
            Err(why) => problems.push(format!("signatures: `{name}`: {why}")),
            Ok(target) => match plan(name, entry, target, &types) {
                Ok(p) => planned.push((name.clone(), p)),
                Err(mut why) => problems.append(&mut why),
            },
        }
    }
    let roles = overlay
        .entries
        .iter()
        .filter_map(|(k, e)| e.role.as_ref().map(|r| (k, r)));
    for (name, first) in same_arity_constructors(lib, roles) {
        problems.push(format!(
            "signatures: `{name}`: role: `{first}` is a constructor of the same class with as \
             many parameters"
        ));
    }
    (planned, problems)
}

/// Makes a harvested entry acceptable to the checks: drops a type that is not strictly
/// narrower than the library's, a default that is no value of its parameter's type (after
/// the widening the checks allow), and defaults of positional parameters followed by
/// a required one (ADR 0012); renames a repeated name `arg<i>`. Returns one note per change;
/// `Err` when the entry names nothing the overlay can describe.
pub fn fit(
    lib: &mut Library,
    name: &str,
    entry: &mut SignatureEntry,
) -> Result<Vec<String>, String> {
    let (keys, ancestry) = known_types(lib);
    let types = KnownTypes {
        keys: &keys,
        ancestry: &ancestry,
    };
    let (library, ret): (Vec<Type>, Option<Type>) = match resolve(lib, name)? {
        Target::Callable(sig) => (
            sig.params.iter().map(|p| p.ty.clone()).collect(),
            Some(sig.ret.clone()),
        ),
        Target::Constructor(params) => (params.iter().map(|p| p.ty.clone()).collect(), None),
    };
    let mut notes = Vec::new();
    if let Some(Err(why)) = entry.role.as_ref().map(|r| check_role(lib, name, r)) {
        notes.push(format!("dropped the {why}"));
        entry.role = None;
    }
    if let (Some(text), Some(old)) = (&entry.returns, &ret) {
        match types.narrowed(text, old) {
            Ok(t) if t == *old => entry.returns = None,
            Ok(_) => {}
            Err(why) => {
                notes.push(format!("returns: dropped {why}"));
                entry.returns = None;
            }
        }
    } else {
        entry.returns = None;
    }
    let Some(params) = entry.params.as_mut() else {
        return Ok(notes);
    };
    if params.len() != library.len() {
        return Err(format!(
            "the library's signature has {} parameter(s), the harvest {}",
            library.len(),
            params.len()
        ));
    }
    for i in 0..params.len() {
        if params[..i].iter().any(|q| q.name == params[i].name) {
            notes.push(format!("`{}` repeated: arg{i}", params[i].name));
            params[i].name = format!("arg{i}");
        }
    }
    for (p, old) in params.iter_mut().zip(&library) {
        // A `null` default widens a nullable type to its optional (see `accepted`).
        let widened = match &p.default {
            Some(serde_json::Value::Null) if nullable(old) => Type::Optional(Box::new(old.clone())),
            _ => old.clone(),
        };
        let old = &widened;
        let mut effective = old.clone();
        if let Some(text) = p.ty.clone() {
            match types.narrowed(&text, old) {
                Ok(t) if t == *old => p.ty = None,
                Ok(t) => effective = t,
                Err(why) => {
                    notes.push(format!("`{}`: dropped {why}", p.name));
                    p.ty = None;
                }
            }
        }
        if let Some(value) = &p.default {
            let ok = Literal::from_json(value).is_some_and(|l| accepted(&l, &effective).is_some());
            if !ok {
                notes.push(format!(
                    "`{}`: dropped the default `{value}` (no value of `{effective}`)",
                    p.name
                ));
                p.default = None;
            }
        }
    }
    let last_required = params
        .iter()
        .zip(&library)
        .rposition(|(p, _)| !p.keyword_only && p.default.is_none());
    if let Some(last) = last_required {
        for p in params[..last].iter_mut().filter(|p| !p.keyword_only) {
            if let Some(v) = p.default.take() {
                notes.push(format!(
                    "`{}`: dropped the default `{v}` (a required positional parameter follows)",
                    p.name
                ));
            }
        }
    }
    Ok(notes)
}

/// Whether a parameter may be nullable in TVM-FFI (an object reference, a function, a
/// container): a `null` default is then accepted and makes the declared type optional.
fn nullable(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Class(_)
            | Type::Object
            | Type::Module
            | Type::Function(_)
            | Type::Array(_)
            | Type::List(_)
            | Type::Map(..)
            | Type::Dict(..)
    )
}

/// The default and the type a binding declares for a literal default of a parameter of type
/// `ty`: the literal as is when it fits; `null` of a nullable type with the type made
/// optional; a string of a data type as that data type. `None` when it is no value of `ty`.
fn accepted(lit: &Literal, ty: &Type) -> Option<(Literal, Option<Type>)> {
    match lit {
        l if l.fits(ty) => Some((l.clone(), None)),
        Literal::None if nullable(ty) => {
            Some((Literal::None, Some(Type::Optional(Box::new(ty.clone())))))
        }
        Literal::String(s) if *ty == Type::DataType => Some((Literal::DataType(s.clone()), None)),
        _ => None,
    }
}

/// The library's type keys and each type's ancestors (for narrowing to a subclass).
struct KnownTypes<'a> {
    keys: &'a BTreeSet<String>,
    ancestry: &'a [(String, Vec<String>)],
}

impl KnownTypes<'_> {
    /// Whether `key` is `base` or derives from it.
    fn derives(&self, key: &str, base: &str) -> bool {
        key == base
            || self
                .ancestry
                .iter()
                .any(|(k, a)| k == key && a.iter().any(|x| x == base))
    }

    /// A type key that `ty` names and the library does not define.
    fn unknown_key(&self, ty: &Type) -> Option<String> {
        match ty {
            Type::Class(k) if !self.keys.contains(k) => Some(k.clone()),
            Type::Array(t) | Type::List(t) | Type::Optional(t) => self.unknown_key(t),
            Type::Map(k, v) | Type::Dict(k, v) => {
                self.unknown_key(k).or_else(|| self.unknown_key(v))
            }
            Type::Variant(ts) | Type::Tuple(ts) => ts.iter().find_map(|t| self.unknown_key(t)),
            _ => None,
        }
    }

    /// Whether every value of `new` is a value of `old` (so a binding may declare `new`).
    fn narrows(&self, new: &Type, old: &Type) -> bool {
        match (new, old) {
            (n, o) if n == o => true,
            (_, Type::Any) => true,
            (n, Type::Object) => n.is_object(),
            (Type::Class(n), Type::Class(o)) => self.derives(n, o),
            (Type::Optional(n), Type::Optional(o)) => self.narrows(n, o),
            (Type::None, Type::Optional(_)) => true,
            (n, Type::Optional(o)) => self.narrows(n, o),
            (Type::Array(n), Type::Array(o)) | (Type::List(n), Type::List(o)) => self.narrows(n, o),
            (Type::Map(nk, nv), Type::Map(ok, ov)) | (Type::Dict(nk, nv), Type::Dict(ok, ov)) => {
                self.narrows(nk, ok) && self.narrows(nv, ov)
            }
            (Type::Tuple(ns), Type::Tuple(os)) => {
                ns.len() == os.len() && ns.iter().zip(os).all(|(n, o)| self.narrows(n, o))
            }
            (Type::Variant(ns), o) => ns.iter().all(|n| self.narrows(n, o)),
            (n, Type::Variant(os)) => os.iter().any(|o| self.narrows(n, o)),
            _ => false,
        }
    }

    /// The type the compact spelling `text` names, checked against the library's `old` type.
    fn narrowed(&self, text: &str, old: &Type) -> Result<Type, String> {
        let schema = TypeSchema::from_compact(text).map_err(|e| format!("type `{text}`: {e}"))?;
        if schema.origin.is_function() {
            return Err(format!(
                "type `{text}`: function types cannot be narrowed by the overlay"
            ));
        }
        let ty = Type::from_schema(&schema);
        if let Some(key) = self.unknown_key(&ty) {
            return Err(format!(
                "type `{text}`: unknown type key `{key}` (not a type of this library)"
            ));
        }
        if !self.narrows(&ty, old) {
            return Err(format!(
                "type `{text}` is not narrower than the library's `{old}`"
            ));
        }
        Ok(ty)
    }
}

/// The signature or constructor an entry names: a function or module export of that name,
/// `type_key.__init__`, or `type_key.method`.
fn resolve<'a>(lib: &'a mut Library, name: &str) -> Result<Target<'a>, String> {
    if let Some(i) = lib.functions.iter().position(|f| f.name == name) {
        return match lib.functions[i].signature.as_mut() {
            Some(sig) => Ok(Target::Callable(sig)),
            None => Err(packed()),
        };
    }
    let (key, member) = name.rsplit_once('.').ok_or_else(unknown)?;
    let t = lib
        .types
        .iter_mut()
        .find(|t| t.key == key)
        .ok_or_else(unknown)?;
    if member == "__init__" {
        return match t.constructor.as_mut() {
            None => Err("the type has no constructor (no `__ffi_init__`)".into()),
            Some(c) if c.kind == ConstructorKind::AutoInit => Err(
                "the constructor is generated from the type's fields: its parameters are the \
                 fields, with their names, defaults and keyword-only flags"
                    .into(),
            ),
            Some(c) => Ok(Target::Constructor(&mut c.params)),
        };
    }
    let mut methods = t.methods.iter_mut().filter(|m| m.name == member);
    let method = methods.next().ok_or_else(unknown)?;
    if methods.next().is_some() {
        return Err("the method is overloaded (registered more than once)".into());
    }
    method
        .signature
        .as_mut()
        .map(Target::Callable)
        .ok_or_else(packed)
}

fn unknown() -> String {
    "the library has no function, module export, method (`<type key>.<method>`) or constructor \
     (`<type key>.__init__`) of this name"
        .into()
}

fn packed() -> String {
    "it is packed (registered without a type_schema): there is no signature to name".into()
}

/// What an entry changes, checked.
struct Plan {
    params: Option<Vec<ParamChange>>,
    ret: Option<Type>,
}

struct ParamChange {
    name: String,
    ty: Option<Type>,
    default: Option<Literal>,
    kw_only: bool,
    doc: String,
}

impl Plan {
    fn apply(self, target: Target<'_>, source: NameSource) {
        let (params, ret) = match target {
            Target::Callable(sig) => (&mut sig.params, Some((&mut sig.ret, &mut sig.library_ret))),
            Target::Constructor(params) => (params, None),
        };
        if let Some(changes) = self.params {
            for (p, c) in params.iter_mut().zip(changes) {
                if p.name_from > source {
                    p.name = c.name;
                    p.name_from = source;
                }
                if let Some(ty) = c.ty {
                    p.library_ty = Some(std::mem::replace(&mut p.ty, ty));
                }
                if let Some(v) = c.default {
                    p.default = Some(ParamDefault::Binding(v));
                }
                p.kw_only = c.kw_only;
                if !c.doc.is_empty() {
                    p.doc = c.doc;
                }
            }
        }
        if let (Some(new), Some((ret, library_ret))) = (self.ret, ret) {
            *library_ret = Some(std::mem::replace(ret, new));
        }
    }
}

/// Checks an entry against its target.
fn plan(
    name: &str,
    entry: &SignatureEntry,
    target: Target<'_>,
    types: &KnownTypes<'_>,
) -> Result<Plan, Vec<String>> {
    let mut problems = Vec::new();
    let (params, ret) = match &target {
        Target::Callable(sig) => (sig.params.as_slice(), Some(&sig.ret)),
        Target::Constructor(params) => (params.as_slice(), None),
    };
    let mut plan = Plan {
        params: None,
        ret: None,
    };
    if let Some(list) = &entry.params {
        match param_changes(list, params, types) {
            Ok(changes) => plan.params = Some(changes),
            Err(mut why) => problems.append(&mut why),
        }
    }
    match (&entry.returns, ret) {
        (Some(_), None) => problems.push("`returns` does not apply to a constructor".into()),
        (Some(text), Some(old)) => match types.narrowed(text, old) {
            Ok(ty) => plan.ret = Some(ty),
            Err(why) => problems.push(format!("returns: {why}")),
        },
        (None, _) => {}
    }
    if problems.is_empty() {
        Ok(plan)
    } else {
        Err(problems
            .into_iter()
            .map(|p| format!("signatures: `{name}`: {p}"))
            .collect())
    }
}

fn param_changes(
    list: &[ParamEntry],
    params: &[super::Param],
    types: &KnownTypes<'_>,
) -> Result<Vec<ParamChange>, Vec<String>> {
    if list.len() != params.len() {
        let library: Vec<String> = params.iter().map(|p| p.ty.to_string()).collect();
        let what = if list.len() < params.len() {
            let missing: Vec<String> = params[list.len()..]
                .iter()
                .enumerate()
                .map(|(i, p)| format!("parameter {} (`{}`)", list.len() + i + 1, p.ty))
                .collect();
            format!("it lists no {}", missing.join(", "))
        } else {
            format!("it lists {} too many", list.len() - params.len())
        };
        return Err(vec![format!(
            "the library's signature has {} parameter(s) ({}), the overlay lists {}: {what}",
            params.len(),
            library.join(", "),
            list.len()
        )]);
    }
    let mut problems = Vec::new();
    let mut changes = Vec::new();
    let mut defaulted: Option<&str> = None;
    for (i, (e, p)) in list.iter().zip(params).enumerate() {
        let what = format!("parameter `{}`", e.name);
        if list[..i].iter().any(|o| o.name == e.name) {
            problems.push(format!("{what} is listed twice"));
        }
        // With a `null` default, a nullable type may be narrowed as its optional.
        let library = match &e.default {
            Some(serde_json::Value::Null) if nullable(&p.ty) => {
                Type::Optional(Box::new(p.ty.clone()))
            }
            _ => p.ty.clone(),
        };
        let ty = match &e.ty {
            Some(text) => match types.narrowed(text, &library) {
                Ok(ty) => Some(ty),
                Err(why) => {
                    problems.push(format!("{what}: {why}"));
                    None
                }
            },
            None => None,
        };
        let mut ty = ty;
        let effective = ty.clone().unwrap_or_else(|| p.ty.clone());
        let default = match &e.default {
            None => None,
            Some(value) => match Literal::from_json(value) {
                None => {
                    problems.push(format!(
                        "{what}: the default `{value}` is not null, a bool, a number, a \
                         string, [] or {{}}"
                    ));
                    None
                }
                Some(lit) => match accepted(&lit, &effective) {
                    None => {
                        problems.push(format!(
                            "{what}: the default `{value}` is not a value of its type \
                             `{effective}`"
                        ));
                        None
                    }
                    Some((lit, widened)) => {
                        if widened.is_some() {
                            ty = widened;
                        }
                        Some(lit)
                    }
                },
            },
        };
        let has_default = e.default.is_some() || p.default.is_some();
        if !e.keyword_only {
            match (has_default, defaulted) {
                (true, None) => defaulted = Some(&e.name),
                (false, Some(before)) => problems.push(format!(
                    "{what} has no default but follows `{before}`, which has one: give it a \
                     default or make it keyword_only"
                )),
                _ => {}
            }
        }
        changes.push(ParamChange {
            name: e.name.clone(),
            ty,
            default,
            kw_only: e.keyword_only,
            doc: e.doc.clone(),
        });
    }
    if problems.is_empty() {
        Ok(changes)
    } else {
        Err(problems)
    }
}
