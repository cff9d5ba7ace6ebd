//! Where each generated item lives and what it is called, for every backend.
//!
//! Name assignment is the same in every language: an item's namespace comes from its path,
//! each type and function claims its identifier in its namespace's scope (a collision is an
//! error naming both items), functions fall back to their registered spelling when their
//! converted one is taken, and generated internals own a reserved prefix. A backend says only
//! what differs, by implementing [`Spelling`] in its `names.rs`: how it spells namespaces,
//! types and functions, which identifiers a type takes next to its own, its reserved prefix
//! and whether a namespace's own name is taken in it. How a place is written (`::ns::Class`,
//! `exports.ns.Class`, `Module.ns.`) stays with the backend.

use crate::diagnostics::Diagnostics;
use crate::ir;
use std::collections::{BTreeMap, BTreeSet};
use std::marker::PhantomData;

/// A language's naming rules, as far as the shared naming needs them (the rest of its
/// spelling stays in its `names.rs`).
pub trait Spelling {
    /// The backend's name, for diagnostics.
    const LANG: &'static str;
    /// The prefix of generated internals; a user name that starts with it is an error.
    const RESERVED_PREFIX: &'static str;
    /// A namespace's own name is taken inside it (a Julia module binds its own name).
    const SELF_NAMED: bool = false;

    /// A namespace from a segment of a dotted name.
    fn namespace_segment(segment: &str) -> String;

    /// A type from the last segment of its key.
    fn type_ident(segment: &str) -> String;

    /// Identifiers a type of identifier `ident` takes next to its own in its namespace.
    fn type_companions(_ident: &str) -> Vec<String> {
        Vec::new()
    }

    /// A function from the last segment of its name, in the case of the language's values
    /// (functions, methods, fields, parameters).
    fn value(name: &str) -> String;

    /// A function's registered spelling made an identifier, for when its
    /// [`value`](Spelling::value) is taken (`BitwiseAnd` next to `bitwise_and`): spelled like
    /// a namespace segment.
    fn verbatim_value(segment: &str) -> String {
        Self::namespace_segment(segment)
    }

    /// Claims `ident` for `item` in `scope`; a name with the reserved prefix is an error too.
    fn claim(scope: &mut Scope, ident: &str, item: &str, diags: &mut Diagnostics) {
        if ident.starts_with(Self::RESERVED_PREFIX) {
            diags.error(
                Self::LANG,
                item,
                format!(
                    "`{ident}` uses the reserved prefix {}",
                    Self::RESERVED_PREFIX
                ),
            );
        }
        scope.claim(ident, item, Self::LANG, diags);
    }
}

/// One naming scope (a package's top level, a class's members): detects two items that end up
/// with the same identifier.
#[derive(Debug, Default)]
pub struct Scope {
    taken: BTreeMap<String, String>,
}

impl Scope {
    /// A scope where `reserved` identifiers are already used by generated code.
    pub fn with_reserved(reserved: &[&str]) -> Self {
        Scope {
            taken: reserved
                .iter()
                .map(|r| (r.to_string(), "generated code".to_string()))
                .collect(),
        }
    }

    /// `ident`, or `ident_` (repeated) if that is taken: for local names such as parameters,
    /// which can be respelled without the user noticing.
    pub fn claim_free(&mut self, ident: &str, item: &str) -> String {
        let mut ident = ident.to_string();
        while self.taken.contains_key(&ident) {
            ident.push('_');
        }
        self.taken.insert(ident.clone(), format!("`{item}`"));
        ident
    }

    /// Whether `ident` is taken.
    pub fn is_taken(&self, ident: &str) -> bool {
        self.taken.contains_key(ident)
    }

    /// Claims `ident` for `item`; reports an error naming both items if it is taken.
    pub fn claim(&mut self, ident: &str, item: &str, lang: &'static str, diags: &mut Diagnostics) {
        match self.taken.get(ident) {
            Some(other) => diags.error(
                lang,
                item,
                format!(
                    "its name `{ident}` collides with {other}; rename one of them (functions \
                     and types: `--config FILE` with `rename: {{<registered name>: \
                     <dotted name>}}`)"
                ),
            ),
            None => {
                self.taken.insert(ident.to_string(), format!("`{item}`"));
            }
        }
    }
}

/// The members of a type that its bindings render, the same in every language (ADR 0019):
/// every constructor; then properties, then methods, each under its Python name unless a
/// field, a registered method of the type or an earlier member has it (a property named like
/// a method wins; the library's own field or method wins over both). What is left out stays
/// reachable as the global function, under its own name, like every global that is a member.
///
/// A name that a base type's method or member has is left out too: it would override that
/// member with another signature (TypeScript refuses it; C++ would hide the base's overloads).
pub fn members<'a>(lib: &'a ir::Library, t: &'a ir::ObjectType) -> Vec<&'a ir::Member> {
    use ffihub_schema::RoleKind;
    let bases = lib.types.iter().filter(|b| t.ancestors.contains(&b.key));
    let mut taken: BTreeSet<&str> = t
        .all_fields()
        .map(|f| f.name.as_str())
        .chain(t.methods.iter().map(|m| m.name.as_str()))
        .chain(bases.flat_map(|b| {
            b.methods.iter().map(|m| m.name.as_str()).chain(
                b.members
                    .iter()
                    .filter(|m| m.kind != RoleKind::Constructor)
                    .map(|m| m.name.as_str()),
            )
        }))
        .collect();
    let mut out: Vec<&ir::Member> = t
        .members
        .iter()
        .filter(|m| m.kind == RoleKind::Constructor)
        .collect();
    for kind in [RoleKind::Property, RoleKind::Method] {
        for m in t.members.iter().filter(|m| m.kind == kind) {
            if taken.insert(m.name.as_str()) {
                out.push(m);
            }
        }
    }
    out
}

/// A member's documentation in every language: the docstring of the Python function that
/// defines it (else the global's, [`ir::api_doc`]), then which global it calls (the global stays
/// bound under its own name).
pub fn member_doc(m: &ir::Member) -> String {
    let note = format!(
        "Calls the global function `{}`, which is also bound under its own name.",
        m.function
    );
    if m.doc.is_empty() {
        note
    } else {
        format!("{}\n\n{note}", m.doc)
    }
}

/// The namespace of an item path (every segment but the last).
pub fn namespace_of(path: &[String]) -> &[String] {
    &path[..path.len().saturating_sub(1)]
}

/// Naming scopes by namespace: the package root is `[]`. A namespace's name is claimed in its
/// parent's scope (as `namespace a.b`) when first used, so a namespace and an item of the same
/// name in one scope are reported like any other collision.
#[derive(Debug)]
struct Namespaces {
    reserved: Vec<String>,
    self_named: bool,
    scopes: BTreeMap<Vec<String>, Scope>,
}

impl Namespaces {
    /// The scope of namespace `ns` (identifiers), creating it and its parents.
    fn scope(&mut self, ns: &[String], lang: &'static str, diags: &mut Diagnostics) -> &mut Scope {
        if !self.scopes.contains_key(ns) {
            if let Some((last, parent)) = ns.split_last() {
                let item = format!("namespace {}", ns.join("."));
                self.scope(parent, lang, diags)
                    .claim(last, &item, lang, diags);
            }
            let mut reserved: Vec<&str> = self.reserved.iter().map(String::as_str).collect();
            if let Some(own) = ns.last().filter(|_| self.self_named) {
                reserved.push(own);
            }
            self.scopes
                .insert(ns.to_vec(), Scope::with_reserved(&reserved));
        }
        self.scopes.get_mut(ns).expect("inserted above")
    }
}

/// Where an item lives: its namespace (segments as the language spells them; the package root
/// is empty) and its identifier there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The namespace's segments.
    pub ns: Vec<String>,
    /// The item's identifier in it.
    pub ident: String,
}

/// The namespace scopes of one generated package, spelled by `S`.
#[derive(Debug)]
pub struct Naming<S> {
    scopes: Namespaces,
    spelling: PhantomData<S>,
}

impl<S: Spelling> Naming<S> {
    /// Scopes where `reserved` identifiers are taken in every namespace (by generated code).
    pub fn new(reserved: &[&str]) -> Self {
        Naming {
            scopes: Namespaces {
                reserved: reserved.iter().map(|r| r.to_string()).collect(),
                self_named: S::SELF_NAMED,
                scopes: BTreeMap::new(),
            },
            spelling: PhantomData,
        }
    }

    /// The namespace of an item path, spelled.
    pub fn namespace(path: &[String]) -> Vec<String> {
        namespace_of(path)
            .iter()
            .map(|s| S::namespace_segment(s))
            .collect()
    }

    /// Whether an item or a namespace already has `ident` in namespace `ns` (spelled).
    pub fn is_taken(&self, ns: &[String], ident: &str) -> bool {
        self.scopes
            .scopes
            .get(ns)
            .is_some_and(|scope| scope.is_taken(ident))
    }

    /// Claims `ident` for `item` in namespace `ns` (see [`Spelling::claim`]).
    pub fn claim(&mut self, ns: &[String], ident: &str, item: &str, diags: &mut Diagnostics) {
        S::claim(self.scopes.scope(ns, S::LANG, diags), ident, item, diags);
    }

    /// The place of each type of `lib`, in order, each claiming its identifier and then its
    /// [companions](Spelling::type_companions).
    pub fn place_types(&mut self, lib: &ir::Library, diags: &mut Diagnostics) -> Vec<Place> {
        lib.types
            .iter()
            .map(|t| {
                let place = Place {
                    ns: Self::namespace(&t.path),
                    ident: S::type_ident(last(&t.path)),
                };
                for ident in
                    std::iter::once(place.ident.clone()).chain(S::type_companions(&place.ident))
                {
                    self.claim(&place.ns, &ident, &t.key, diags);
                }
                place
            })
            .collect()
    }

    /// The place of each function of `lib`, in order (identifiers from [`function_idents`]),
    /// each claiming its identifier. Call after [`place_types`](Self::place_types).
    pub fn place_functions(&mut self, lib: &ir::Library, diags: &mut Diagnostics) -> Vec<Place> {
        self.place_functions_with(lib, diags, |_, _| None)
    }

    /// [`place_functions`](Self::place_functions), where `also(i, place)` gives an identifier
    /// that function `i` takes next to its own (C++: its options struct), claimed right after.
    pub fn place_functions_with(
        &mut self,
        lib: &ir::Library,
        diags: &mut Diagnostics,
        mut also: impl FnMut(usize, &Place) -> Option<String>,
    ) -> Vec<Place> {
        function_idents::<S>(lib)
            .into_iter()
            .zip(&lib.functions)
            .enumerate()
            .map(|(i, (ident, f))| {
                let place = Place {
                    ns: Self::namespace(&f.path),
                    ident,
                };
                self.claim(&place.ns, &place.ident, &f.name, diags);
                if let Some(ident) = also(i, &place) {
                    self.claim(&place.ns, &ident, &f.name, diags);
                }
                place
            })
            .collect()
    }
}

/// The last segment of an item path.
fn last(path: &[String]) -> &str {
    path.last().map_or("", String::as_str)
}

/// The identifiers of `lib`'s functions (in order), free of collisions by construction. In each
/// namespace, the names of child namespaces and of types (with their companions) are taken
/// first; then each function gets its [`value`](Spelling::value) if that is
/// free, else its [`verbatim_value`](Spelling::verbatim_value), else that with
/// `_` appended until free (with [`SELF_NAMED`](Spelling::SELF_NAMED), a namespace's own name
/// is taken in it too). Functions whose registered spelling already is their converted one
/// choose first: `prim.bitwise_and` keeps `bitwise_and`, `prim.BitwiseAnd` gets `BitwiseAnd`.
pub fn function_idents<S: Spelling>(lib: &ir::Library) -> Vec<String> {
    let mut taken: BTreeSet<(Vec<String>, String)> = Default::default();
    for path in lib
        .functions
        .iter()
        .map(|f| &f.path)
        .chain(lib.types.iter().map(|t| &t.path))
    {
        let ns = namespace_of(path);
        for i in 0..ns.len() {
            taken.insert((ns[..i].to_vec(), S::namespace_segment(&ns[i])));
            if S::SELF_NAMED {
                taken.insert((ns[..=i].to_vec(), S::namespace_segment(&ns[i])));
            }
        }
    }
    for t in &lib.types {
        let ident = S::type_ident(last(&t.path));
        for ident in S::type_companions(&ident).into_iter().chain([ident]) {
            taken.insert((namespace_of(&t.path).to_vec(), ident));
        }
    }
    let mut idents = vec![String::new(); lib.functions.len()];
    let natural = |f: &ir::Function| S::value(last(&f.path)) == S::verbatim_value(last(&f.path));
    let order = (0..lib.functions.len())
        .filter(|&i| natural(&lib.functions[i]))
        .chain((0..lib.functions.len()).filter(|&i| !natural(&lib.functions[i])));
    for i in order {
        let f = &lib.functions[i];
        let ns = namespace_of(&f.path).to_vec();
        let mut ident = S::value(last(&f.path));
        if taken.contains(&(ns.clone(), ident.clone())) {
            ident = S::verbatim_value(last(&f.path));
            while taken.contains(&(ns.clone(), ident.clone())) {
                ident.push('_');
            }
        }
        taken.insert((ns, ident.clone()));
        idents[i] = ident;
    }
    idents
}

/// An item in a namespace; runs of items in the same namespace share one block (a C++
/// `namespace {}`, a `.d.ts` `namespace`).
pub struct InNamespace<T> {
    /// The namespace as the file spells it (`tvm::ir`, `ir.relax`).
    pub ns: String,
    /// The first of its run: open the namespace before it.
    pub open: bool,
    /// The last of its run: close the namespace after it.
    pub close: bool,
    /// The item.
    pub item: T,
}

/// Marks the runs of items in the same namespace.
pub fn grouped<T>(items: Vec<(String, T)>) -> Vec<InNamespace<T>> {
    let namespaces: Vec<String> = items.iter().map(|(ns, _)| ns.clone()).collect();
    items
        .into_iter()
        .enumerate()
        .map(|(i, (ns, item))| InNamespace {
            open: i == 0 || namespaces[i - 1] != ns,
            close: namespaces.get(i + 1) != Some(&ns),
            ns,
            item,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ffihub_schema::Reflection;

    /// A language whose functions are lower case, whose types take a companion `AbstractT`,
    /// whose internals start with `zz_`, and whose modules bind their own names.
    struct Test;

    impl Spelling for Test {
        const LANG: &'static str = "test";
        const RESERVED_PREFIX: &'static str = "zz_";
        const SELF_NAMED: bool = true;

        fn namespace_segment(segment: &str) -> String {
            segment.to_string()
        }

        fn type_ident(segment: &str) -> String {
            let mut chars = segment.chars();
            chars.next().map_or(String::new(), |c| {
                c.to_ascii_uppercase().to_string() + chars.as_str()
            })
        }

        fn type_companions(ident: &str) -> Vec<String> {
            vec![format!("Abstract{ident}")]
        }

        fn value(name: &str) -> String {
            name.to_ascii_lowercase()
        }
    }

    fn library() -> ir::Library {
        let fn_item = |name: &str| {
            format!("- name: kinds.{name}\n  signature: {{params: [], return: {{type: None}}}}\n")
        };
        let type_item = |key: &str| format!("- key: kinds.{key}\n  ancestors: [ffi.Object]\n");
        let yaml = format!(
            "format_version: 1\nlibraries: [libkinds.so]\nfunctions:\n{}types:\n{}",
            [
                "ir",
                "ir.AbstractSpan",
                "ir.FOO_BAR",
                "ir.abstractspan",
                "ir.foo_bar",
                "ir.ir",
                "ir.zz_x",
            ]
            .map(fn_item)
            .concat(),
            ["Root", "ir.Span", "ir.span"].map(type_item).concat(),
        );
        crate::ir::build(&Reflection::from_yaml_str(&yaml).unwrap()).unwrap()
    }

    fn place(ns: &[&str], ident: &str) -> Place {
        Place {
            ns: ns.iter().map(|s| s.to_string()).collect(),
            ident: ident.into(),
        }
    }

    #[test]
    fn places_claim_in_order_and_functions_fall_back_to_their_registered_spelling() {
        let lib = library();
        let mut naming = Naming::<Test>::new(&[]);
        let mut diags = Diagnostics::default();
        let types = naming.place_types(&lib, &mut diags);
        assert_eq!(
            types,
            [
                place(&[], "Root"),
                place(&["ir"], "Span"),
                place(&["ir"], "Span")
            ]
        );
        let functions = naming.place_functions(&lib, &mut diags);
        assert_eq!(
            functions,
            [
                // The namespace `ir` is taken at the root.
                place(&[], "ir_"),
                // `abstractspan` is taken, and so is `AbstractSpan` (by `Span`'s companion).
                place(&["ir"], "AbstractSpan_"),
                // Natural spellings choose first; the other one keeps its registered case.
                place(&["ir"], "FOO_BAR"),
                place(&["ir"], "abstractspan"),
                place(&["ir"], "foo_bar"),
                // A module binds its own name.
                place(&["ir"], "ir_"),
                place(&["ir"], "zz_x"),
            ]
        );
        let collision = |ident: &str| {
            format!(
                "test: error: kinds.ir.span: its name `{ident}` collides with `kinds.ir.Span`; \
                 rename one of them (functions and types: `--config FILE` with `rename: \
                 {{<registered name>: <dotted name>}}`)"
            )
        };
        let messages: Vec<String> = diags.sorted().iter().map(|d| d.to_string()).collect();
        assert_eq!(
            messages,
            [
                collision("AbstractSpan"),
                collision("Span"),
                "test: error: kinds.ir.zz_x: `zz_x` uses the reserved prefix zz_".to_string(),
            ]
        );
    }
}
