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

use super::{ConstructorKind, Library, Literal, NameSource, ParamDefault, Signature, Type};
use ffihub_schema::{ParamEntry, SignatureEntry, Signatures, TypeSchema};
use std::collections::BTreeSet;

/// Where an entry applies: a signature of the library, and whether it is a constructor's.
enum Target<'a> {
    Callable(&'a mut Signature),
    Constructor(&'a mut Vec<super::Param>),
}

/// Checks every entry of `overlay` against `lib` and applies them; on any problem nothing is
/// applied and every problem is returned, one line each.
pub fn apply(lib: &mut Library, overlay: &Signatures) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    if let Err(e) = overlay.validate() {
        return Err(vec![e]);
    }
    let keys: BTreeSet<String> = lib.types.iter().map(|t| t.key.clone()).collect();
    let ancestry: Vec<(String, Vec<String>)> = lib
        .types
        .iter()
        .map(|t| (t.key.clone(), t.ancestors.clone()))
        .collect();
    let types = KnownTypes {
        keys: &keys,
        ancestry: &ancestry,
    };
    let mut planned = Vec::new();
    for (name, entry) in &overlay.entries {
        match resolve(lib, name) {
            Err(why) => problems.push(format!("signatures: `{name}`: {why}")),
            Ok(target) => match plan(name, entry, target, &types) {
                Ok(p) => planned.push((name.clone(), p)),
                Err(mut why) => problems.append(&mut why),
            },
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    for (name, p) in planned {
        if let Ok(target) = resolve(lib, &name) {
            p.apply(target);
        }
    }
    Ok(())
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
    fn apply(self, target: Target<'_>) {
        let (params, ret) = match target {
            Target::Callable(sig) => (&mut sig.params, Some((&mut sig.ret, &mut sig.library_ret))),
            Target::Constructor(params) => (params, None),
        };
        if let Some(changes) = self.params {
            for (p, c) in params.iter_mut().zip(changes) {
                p.name = c.name;
                p.name_from = NameSource::Overlay;
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
        let ty = match &e.ty {
            Some(text) => match types.narrowed(text, &p.ty) {
                Ok(ty) => Some(ty),
                Err(why) => {
                    problems.push(format!("{what}: {why}"));
                    None
                }
            },
            None => None,
        };
        let effective = ty.as_ref().unwrap_or(&p.ty);
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
                Some(lit) if !lit.fits(effective) => {
                    problems.push(format!(
                        "{what}: the default `{value}` is not a value of its type `{effective}`"
                    ));
                    None
                }
                Some(lit) => Some(lit),
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
