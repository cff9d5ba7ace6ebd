//! The harvested overlay: what `ffihub_harvest` reads from a library's Python package, turned
//! into `signatures:` entries checked against the library (types only where strictly
//! narrower, defaults only where they are values of their parameter's type), with a
//! provenance comment per entry and a report (docs/harvest.md, docs/adr/0015-harvest.md).

use crate::ir::{self, docstring, overlay, Library};
use ffihub_harvest::{Entry, Harvest, NameHow, PackageRoot, Registry, Role};
use ffihub_schema::{
    ParamEntry, RoleEntry, RoleKind, SignatureEntry, Signatures, SIGNATURES_VERSION,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The registry the harvest resolves calls against, from the IR (parameter counts without
/// receivers; typed constructors only).
pub fn registry(lib: &Library) -> Registry {
    let mut reg = Registry::default();
    for f in lib.functions.iter().filter(|f| f.module.is_none()) {
        reg.functions
            .insert(f.name.clone(), f.signature.as_ref().map(|s| s.params.len()));
    }
    for t in &lib.types {
        let info = ffihub_harvest::TypeInfo {
            ancestors: t.ancestors.clone(),
            methods: t
                .methods
                .iter()
                .map(|m| {
                    let info = ffihub_harvest::MethodInfo {
                        is_static: m.is_static,
                        params: m.signature.as_ref().map(|s| s.params.len()),
                    };
                    (m.name.clone(), info)
                })
                .collect(),
            init_params: t
                .constructor
                .as_ref()
                .filter(|c| c.kind == ir::ConstructorKind::InitMethod)
                .map(|c| c.params.len()),
        };
        reg.types.insert(t.key.clone(), info);
    }
    reg
}

/// The package folders to read: `python` when given, else the package folder of each library
/// (walking up from it while `__init__.py` exists).
pub fn roots(libs: &[PathBuf], python: &[PathBuf]) -> Result<Vec<PackageRoot>, String> {
    let dirs: Vec<PathBuf> = if python.is_empty() {
        let mut found = Vec::new();
        for lib in libs {
            let dir = ffihub_harvest::source::package_of(lib).ok_or_else(|| {
                format!(
                    "{}: no Python package around it (no __init__.py in its folder or the two \
                     above): give the package folder with --python DIR",
                    lib.display()
                )
            })?;
            if !found.contains(&dir) {
                found.push(dir);
            }
        }
        if found.is_empty() {
            return Err(
                "the harvest needs the Python package: give --python DIR (or --lib)".into(),
            );
        }
        found
    } else {
        python.to_vec()
    };
    Ok(dirs.into_iter().map(|dir| PackageRoot { dir }).collect())
}

/// One harvested overlay entry with where it came from and what was left out.
#[derive(Clone, Debug)]
pub struct Harvested {
    /// The entry.
    pub entry: SignatureEntry,
    /// The Python function it came from (`xgrammar/grammar.py:201 Grammar.from_json_schema`).
    pub origin: String,
    /// The role the Python package gives it.
    pub role: Role,
    /// Dropped defaults and types, weak names, clashes: one note each.
    pub notes: Vec<String>,
}

/// The overlay harvested from a package, and the counts of the report.
#[derive(Clone, Debug, Default)]
pub struct HarvestOverlay {
    /// Registered name -> entry.
    pub entries: BTreeMap<String, Harvested>,
    /// Report lines (counts first, then problems).
    pub report: Vec<String>,
    /// Problems worth a warning (files that do not parse, arity mismatches).
    pub warnings: Vec<String>,
}

impl HarvestOverlay {
    /// The entries as a `signatures:` overlay.
    pub fn signatures(&self) -> Signatures {
        Signatures {
            version: SIGNATURES_VERSION,
            entries: self
                .entries
                .iter()
                .map(|(k, h)| (k.clone(), h.entry.clone()))
                .collect(),
        }
    }
}

/// Per-parameter counts for the report.
#[derive(Default)]
struct Counts {
    named: usize,
    partly: usize,
    positional: usize,
    defaults: usize,
    docs: usize,
    kw_only: usize,
    types: usize,
    returns: usize,
    how: BTreeMap<&'static str, usize>,
    roles: BTreeMap<&'static str, usize>,
    dropped_defaults: usize,
    dropped_types: usize,
    weak: usize,
    clashes: usize,
    packed: usize,
}

/// Harvests `roots` for `lib` and fits the result to the library.
pub fn harvest(lib: &Library, roots: &[PackageRoot]) -> Result<HarvestOverlay, String> {
    let reg = registry(lib);
    let h = ffihub_harvest::harvest(&reg, roots)?;
    Ok(overlay_of(lib, &h))
}

/// Turns a harvest into checked overlay entries.
pub fn overlay_of(lib: &Library, h: &Harvest) -> HarvestOverlay {
    let mut out = HarvestOverlay::default();
    let mut scratch = lib.clone();
    let mut c = Counts::default();
    for (name, e) in &h.entries {
        *c.roles.entry(e.role.kind()).or_default() += 1;
        if e.packed {
            // The overlay names typed signatures only: a packed function has none. It may
            // still construct a class (TVM's `target.Target`).
            c.packed += 1;
            let role = role_entry(e).filter(|r| r.kind == RoleKind::Constructor);
            if let Some(role) = role.filter(|r| overlay::check_role(lib, name, r).is_ok()) {
                let entry = SignatureEntry {
                    role: Some(role),
                    ..SignatureEntry::default()
                };
                let origin = e.origin.to_string();
                let (role, notes) = (e.role.clone(), Vec::new());
                out.entries.insert(
                    name.clone(),
                    Harvested {
                        entry,
                        origin,
                        role,
                        notes,
                    },
                );
            }
            continue;
        }
        let (mut entry, mut notes) = entry_of(e);
        if name.ends_with(".__init__") {
            // The type's own constructor: its role is what it already is.
            entry.role = None;
        }
        if entry.params.as_ref().is_none_or(Vec::is_empty)
            && entry.returns.is_none()
            && entry.role.is_none()
        {
            continue;
        }
        match overlay::fit(&mut scratch, name, &mut entry) {
            Ok(mut fitted) => notes.append(&mut fitted),
            Err(why) => {
                out.warnings.push(format!("{name}: not harvested: {why}"));
                continue;
            }
        }
        count(&mut c, e, &entry, &notes);
        out.entries.insert(
            name.clone(),
            Harvested {
                entry,
                origin: e.origin.to_string(),
                role: e.role.clone(),
                notes,
            },
        );
    }
    // Two harvested constructors of one class with as many parameters: the first keeps its role.
    let roles: Vec<(String, ffihub_schema::RoleEntry)> = out
        .entries
        .iter()
        .filter_map(|(k, h)| h.entry.role.clone().map(|r| (k.clone(), r)))
        .collect();
    for (name, first) in overlay::same_arity_constructors(lib, roles.iter().map(|(k, r)| (k, r))) {
        if let Some(h) = out.entries.get_mut(&name) {
            h.entry.role = None;
            h.notes.push(format!(
                "dropped the role: `{first}` is a constructor of the same class with as many \
                 parameters"
            ));
        }
    }
    let r = &h.report;
    out.warnings.extend(r.parse_warnings.iter().cloned());
    out.warnings.extend(r.arity_mismatches.iter().cloned());
    if r.sites == 0 {
        out.warnings.push(format!(
            "the Python package calls no registered function ({} files read, {} FFI namespaces, \
             {} registered classes): nothing harvested",
            r.files, r.ffi_modules, r.classes
        ));
    }
    let joined = |m: &BTreeMap<&str, usize>| {
        m.iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    out.report = vec![
        format!(
            "harvest: {} Python files ({} not parsed), {} FFI namespaces, {} registered classes, \
             {} call sites of {} registered entries",
            r.files,
            r.parse_warnings.len(),
            r.ffi_modules,
            r.classes,
            r.sites,
            h.entries.len() + r.unusable.len()
        ),
        format!(
            "harvest: {} entries: {} named, {} partly, {} positional; {} with defaults, {} with \
             keyword-only parameters, {} with parameter docs, {} with narrower types, {} with \
             narrower returns; {} packed (not harvested), {} with unusable call sites only",
            out.entries.len(),
            c.named,
            c.partly,
            c.positional,
            c.defaults,
            c.kw_only,
            c.docs,
            c.types,
            c.returns,
            c.packed,
            r.unusable.len()
        ),
        format!("harvest: parameter names: {}", joined(&c.how)),
        format!("harvest: roles: {}", joined(&c.roles)),
        format!(
            "harvest: {} defaults and {} types dropped, {} weak names, {} clashes between call \
             sites, {} call sites with another arity",
            c.dropped_defaults,
            c.dropped_types,
            c.weak,
            c.clashes,
            r.arity_mismatches.len()
        ),
    ];
    out
}

fn count(c: &mut Counts, e: &Entry, entry: &SignatureEntry, notes: &[String]) {
    let params = entry.params.as_deref().unwrap_or_default();
    let named = e
        .params
        .iter()
        .filter(|p| p.how != NameHow::Positional)
        .count();
    if !params.is_empty() {
        if named == params.len() {
            c.named += 1;
        } else if named > 0 {
            c.partly += 1;
        } else {
            c.positional += 1;
        }
    }
    for p in &e.params {
        *c.how.entry(p.how.describe()).or_default() += 1;
        c.weak += usize::from(p.how.is_weak());
        c.dropped_defaults += usize::from(p.default_dropped.is_some());
        c.dropped_types += usize::from(p.ty_dropped.is_some());
    }
    c.dropped_defaults += notes.iter().filter(|n| n.contains("the default")).count();
    c.dropped_types += notes.iter().filter(|n| n.contains("dropped type")).count();
    c.clashes += e.clashes.len();
    c.defaults += usize::from(params.iter().any(|p| p.default.is_some()));
    c.kw_only += usize::from(params.iter().any(|p| p.keyword_only));
    c.docs += usize::from(params.iter().any(|p| !p.doc.is_empty()));
    c.types += usize::from(params.iter().any(|p| p.ty.is_some()));
    c.returns += usize::from(entry.returns.is_some());
}

/// The overlay entry of a harvested entry (before fitting), and its notes.
fn entry_of(e: &Entry) -> (SignatureEntry, Vec<String>) {
    let docs: BTreeMap<String, String> = docstring::params(&e.doc)
        .map(|l| l.params.into_iter().map(|p| (p.name, p.doc)).collect())
        .unwrap_or_default();
    let mut notes = Vec::new();
    let params = e
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let name = p.name.clone().unwrap_or_else(|| format!("arg{i}"));
            if p.how.is_weak() {
                notes.push(format!("`{name}`: weak name ({})", p.how.describe()));
            }
            if let Some(d) = &p.default_dropped {
                notes.push(format!("`{name}`: dropped the default {d}"));
            }
            if let Some(t) = &p.ty_dropped {
                notes.push(format!(
                    "`{name}`: dropped type `{t}` (no TVM-FFI spelling or a transformed argument)"
                ));
            }
            ParamEntry {
                doc: p
                    .python_param
                    .as_ref()
                    .and_then(|n| docs.get(n))
                    .cloned()
                    .unwrap_or_default(),
                name,
                ty: p.ty.clone(),
                default: p.default.clone(),
                keyword_only: p.keyword_only,
            }
        })
        .collect();
    notes.extend(e.clashes.iter().map(|c| format!("clash: {c}")));
    (
        SignatureEntry {
            params: Some(params),
            returns: e.returns.clone(),
            role: role_entry(e),
        },
        notes,
    )
}

/// The overlay role of a harvested entry, when its class is a registered type, with the Python
/// function's docstring as the member's doc (its parameter list left to the parameters).
fn role_entry(e: &Entry) -> Option<RoleEntry> {
    let role = &e.role;
    let (kind, name) = match role {
        Role::Plain => return None,
        Role::Constructor { .. } => (RoleKind::Constructor, None),
        Role::Method { method, .. } => (RoleKind::Method, Some(method.clone())),
        Role::Property { property, .. } => (RoleKind::Property, Some(property.clone())),
    };
    let doc = docstring::params(&e.doc).map_or_else(|| e.doc.clone(), |l| l.rest);
    Some(RoleEntry {
        kind,
        of: role.key()?.to_string(),
        name,
        doc: Some(doc).filter(|d| !d.trim().is_empty()),
    })
}

/// A YAML scalar: plain when it cannot be mistaken for anything else, else double-quoted
/// (JSON string syntax is YAML's double-quoted style).
fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'))
        && s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n" | "~"
        );
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

/// The `--config` file `ffihub harvest` writes: deterministic (sorted entries, fixed layout),
/// each entry under a comment naming the Python function it came from.
pub fn to_yaml(h: &HarvestOverlay, command: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Harvested by `{command}`.");
    let _ = writeln!(
        s,
        "# Each entry names the Python function it came from; hand-written entries of a --config\n\
         # file win over harvested ones, entry by entry (docs/harvest.md)."
    );
    let _ = write!(
        s,
        "signatures:\n  version: {SIGNATURES_VERSION}\n  entries:\n"
    );
    if h.entries.is_empty() {
        s.truncate(s.len() - 1);
        s.push_str(" {}\n");
    }
    for (name, e) in &h.entries {
        let role = match &e.role {
            Role::Plain => String::new(),
            Role::Constructor { class, .. } => format!(" (constructor of {class})"),
            Role::Method { class, method, .. } => format!(" (method {class}.{method})"),
            Role::Property {
                class, property, ..
            } => format!(" (property {class}.{property})"),
        };
        let _ = writeln!(s, "    # {}{role}", e.origin);
        for n in &e.notes {
            let _ = writeln!(s, "    # {}", n.replace('\n', " "));
        }
        let _ = writeln!(s, "    {}:", scalar(name));
        if let Some(params) = &e.entry.params {
            if params.is_empty() {
                s.push_str("      params: []\n");
            } else {
                s.push_str("      params:\n");
            }
            for p in params {
                let plain =
                    p.ty.is_none() && p.default.is_none() && !p.keyword_only && p.doc.is_empty();
                if plain {
                    let _ = writeln!(s, "        - {}", p.name);
                    continue;
                }
                let _ = writeln!(s, "        - name: {}", p.name);
                if let Some(t) = &p.ty {
                    let _ = writeln!(
                        s,
                        "          type: {}",
                        serde_json::to_string(t).unwrap_or_default()
                    );
                }
                if let Some(d) = &p.default {
                    let _ = writeln!(s, "          default: {d}");
                }
                if p.keyword_only {
                    s.push_str("          keyword_only: true\n");
                }
                if !p.doc.is_empty() {
                    let _ = writeln!(
                        s,
                        "          doc: {}",
                        serde_json::to_string(&p.doc).unwrap_or_default()
                    );
                }
            }
        }
        if let Some(r) = &e.entry.returns {
            let _ = writeln!(
                s,
                "      returns: {}",
                serde_json::to_string(r).unwrap_or_default()
            );
        }
        if let Some(r) = &e.entry.role {
            let kind = match r.kind {
                RoleKind::Constructor => "constructor",
                RoleKind::Method => "method",
                RoleKind::Property => "property",
            };
            let name = r
                .name
                .as_ref()
                .map(|n| format!(", name: {n}"))
                .unwrap_or_default();
            let doc = r
                .doc
                .as_ref()
                .map(|d| format!(", doc: {}", serde_json::to_string(d).unwrap_or_default()))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "      role: {{ kind: {kind}, of: {}{name}{doc} }}",
                scalar(&r.of)
            );
        }
    }
    s
}

/// The harvested overlay without the entries a hand-written overlay has (those win whole).
pub fn without(harvested: Signatures, hand: Option<&Signatures>) -> Signatures {
    let mut out = harvested;
    if let Some(hand) = hand {
        out.entries.retain(|k, _| !hand.entries.contains_key(k));
    }
    out
}
