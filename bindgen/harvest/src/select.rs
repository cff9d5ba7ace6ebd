//! From call sites to entries: per registered entry, the site that names most positions (public
//! functions before private ones, then source order), its parameters' names, defaults,
//! keyword-only flags and annotations, names from other sites where the best one has none, and
//! the clashes between sites.

use crate::annotation::{compact, source};
use crate::index::{Index, ModScope, Value};
use crate::sites::{classify, decorated, Arg, FuncScope, Site, Via};
use crate::{Entry, NameHow, Origin, Param, Report, Role};
use ruff_python_ast::{self as ast, Expr, Stmt};
use serde_json::Value as Json;
use std::collections::BTreeMap;

/// The registered entry's arity: `Some(None)` packed, `None` unknown name.
fn arity(ix: &Index<'_>, entry: &str) -> Option<Option<usize>> {
    if let Some(n) = ix.reg.functions.get(entry) {
        return Some(*n);
    }
    let (key, member) = entry.rsplit_once('.')?;
    let t = ix.reg.types.get(key)?;
    if member == "__init__" {
        return t.init_params.map(Some);
    }
    ix.reg.method(key, member).map(|(_, m)| m.params)
}

struct Row<'a> {
    site: Site<'a>,
    args: Vec<Arg>,
    usable: bool,
}

impl Row<'_> {
    /// (named positions, their strength, public caller): the best site has the most.
    fn score(&self) -> (usize, usize, bool) {
        let strength = |a: &Arg| match a {
            Arg::Param { .. } => 3,
            _ => 2,
        };
        let named: Vec<&Arg> = self.args.iter().filter(|a| a.param().is_some()).collect();
        let name = self.site.scope.def.name.as_str();
        (
            named.len(),
            named.iter().map(|a| strength(a)).sum(),
            !name.starts_with('_') || name == "__init__",
        )
    }
}

/// The entries of every site, by registered name.
pub fn entries<'a>(
    ix: &Index<'a>,
    sites: Vec<Site<'a>>,
    report: &mut Report,
) -> BTreeMap<String, Entry> {
    let mut by_entry: BTreeMap<String, Vec<Row<'a>>> = BTreeMap::new();
    for site in sites {
        let Some(n) = arity(ix, &site.entry) else {
            continue;
        };
        let args: Vec<Arg> = site.args.iter().map(|a| classify(a, &site.scope)).collect();
        let star = args.contains(&Arg::Star);
        let usable = !star && !site.keywords && n.is_none_or(|n| n == args.len());
        if let Some(n) = n.filter(|&n| !star && !site.keywords && n != args.len()) {
            report.arity_mismatches.push(format!(
                "{}: `{}` is called with {} argument(s), the library's signature has {n}",
                origin(ix, &site),
                site.entry,
                args.len()
            ));
        }
        by_entry
            .entry(site.entry.clone())
            .or_default()
            .push(Row { site, args, usable });
    }
    let mut out = BTreeMap::new();
    for (name, rows) in by_entry {
        let mut best: Option<usize> = None;
        for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.usable) {
            if best.is_none_or(|b| r.score() > rows[b].score()) {
                best = Some(i);
            }
        }
        let Some(best) = best else {
            report.unusable.push(name);
            continue;
        };
        let packed = arity(ix, &name) == Some(None);
        out.insert(name, entry(ix, &rows, best, packed));
    }
    out
}

fn origin(ix: &Index<'_>, site: &Site<'_>) -> Origin {
    Origin {
        file: ix.modules[site.scope.module].src.file.clone(),
        line: site.line,
        function: site.scope.qual.clone(),
    }
}

/// `GrammarMatcher` -> `grammar_matcher`, `IRModule` -> `ir_module`, a leading `_` dropped.
pub fn snake(name: &str) -> String {
    let chars: Vec<char> = name.trim_start_matches('_').chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                out.push('_');
            }
        }
        out.extend(c.to_lowercase());
    }
    out
}

fn entry(ix: &Index<'_>, rows: &[Row<'_>], best: usize, packed: bool) -> Entry {
    let row = &rows[best];
    let sc = &row.site.scope;
    let text = &ix.modules[sc.module].src.text;
    let mut params: Vec<Param> = Vec::new();
    let mut used: Vec<&str> = Vec::new();
    for (i, a) in row.args.iter().enumerate() {
        let mut p = Param::positional();
        match a.param() {
            Some(name) if !used.contains(&name) => {
                used.push(name);
                p.name = Some(name.to_string());
                p.python_param = Some(name.to_string());
                p.how = match a {
                    Arg::Param { .. } => NameHow::Direct,
                    Arg::Flow { .. } => NameHow::Flow,
                    _ => NameHow::Expression,
                };
                fill_from_param(ix, sc, a, &row.site.args[i], &mut p, text);
            }
            _ => {
                if *a == Arg::Receiver {
                    if let Some(c) = sc.class {
                        p.name = Some(snake(&ix.classes[c].qual));
                        p.how = NameHow::Receiver;
                    }
                }
            }
        }
        params.push(p);
    }
    if let Some(names) = overload_names(ix, sc, params.len()) {
        for (p, n) in params.iter_mut().zip(names) {
            if p.name.is_none() {
                p.name = Some(n);
                p.how = NameHow::Overload;
            }
        }
    }
    // In an `isinstance(p, T)` branch, the `@overload` whose parameter there is a `T` names it.
    for (i, a) in row.args.iter().enumerate() {
        let Some(p) = a.param() else { continue };
        let Some((_, t)) = row.site.narrowed.iter().find(|(n, _)| n == p) else {
            continue;
        };
        let Some((name, ann)) = narrowing_overload(ix, sc, p, t, text) else {
            continue;
        };
        params[i].python_param = Some(name.clone());
        params[i].name = Some(name);
        params[i].how = NameHow::Overload;
        let direct = matches!(a, Arg::Param { .. });
        let handle =
            matches!(&row.site.args[i], Expr::Attribute(x) if x.attr.as_str() == "_handle");
        if params[i].ty.is_none() && (direct || handle) {
            if let Ok(t) = compact(ann, ix, sc.module, text) {
                params[i].ty = Some(t);
                params[i].ty_dropped = None;
            }
        }
    }
    // One parameter fanned out to several locals (`names, values = f(p)`): the locals' names.
    for (i, a) in row.args.iter().enumerate() {
        if let Arg::Flow { param, local } = a {
            let fans = row.args.iter().filter(|b| b.param() == Some(param)).count();
            let taken = params.iter().any(|q| q.name.as_deref() == Some(local));
            if fans > 1 && !taken {
                let kw = sc.param(param).is_some_and(|s| s.keyword_only);
                params[i] = Param {
                    name: Some(local.clone()),
                    how: NameHow::FanOut,
                    keyword_only: kw,
                    ..Param::positional()
                };
            }
        }
    }
    // Positions the best site leaves unnamed, from other sites where nothing clashes.
    let mut clashes = Vec::new();
    for (j, other) in rows.iter().enumerate() {
        if j == best || !other.usable {
            continue;
        }
        for (i, a) in other.args.iter().enumerate().take(params.len()) {
            let Some(name) = a.param() else { continue };
            let taken = params.iter().any(|q| q.name.as_deref() == Some(name));
            match &params[i].name {
                None if !taken => {
                    params[i].name = Some(name.to_string());
                    params[i].how = NameHow::Direct;
                }
                Some(mine) if mine != name && params[i].how != NameHow::Receiver => {
                    clashes.push(format!(
                        "parameter {}: `{mine}` here, `{name}` at {}",
                        i + 1,
                        origin(ix, &other.site)
                    ));
                }
                _ => {}
            }
        }
    }
    let returns = match (row.site.returned, row.site.via, &sc.def.returns) {
        (true, Via::Call | Via::Handle | Via::Type, Some(r)) => {
            compact(r, ix, sc.module, text).ok()
        }
        _ => None,
    };
    let role = role(ix, &row.site, &row.args);
    // A class documents its constructor when `__init__` does not (NumPy's convention, TVM's).
    let doc = match (docstring(&sc.def.body), &role, sc.class) {
        (own, Role::Constructor { .. }, Some(c)) if own.is_empty() => {
            docstring(&ix.classes[c].node.body)
        }
        (own, _, _) => own,
    };
    Entry {
        origin: origin(ix, &row.site),
        role,
        packed,
        params,
        returns,
        doc,
        sites: rows.len(),
        clashes,
    }
}

fn role(ix: &Index<'_>, site: &Site<'_>, args: &[Arg]) -> Role {
    let sc = &site.scope;
    let Some(info) = sc.class.map(|c| &ix.classes[c]) else {
        return Role::Plain;
    };
    let class = info.qual.clone();
    let key = info.type_key.clone().or_else(|| info.handle_key.clone());
    let name = sc.def.name.to_string();
    let constructs = matches!(site.via, Via::InitHandle | Via::Init);
    if constructs && name == "__init__" {
        return Role::Constructor { class, key };
    }
    if sc.self_name.is_none() || !(site.on_self || args.contains(&Arg::Receiver)) {
        return Role::Plain;
    }
    // A property is what its getter reads (it may convert it: `VocabType(...)`); a method is
    // the registered function whose result it returns or that it calls for its effect: a call
    // whose result the Python method works on further (TVM's `with_attr` copies with
    // `BaseFuncCopy` first) is not the method.
    let property = decorated(sc.def, "property") || decorated(sc.def, "cached_property");
    if !(property || site.returned || site.discarded) {
        return Role::Plain;
    }
    if property {
        Role::Property {
            class,
            key,
            property: name,
        }
    } else {
        Role::Method {
            class,
            key,
            method: name,
        }
    }
}

/// Default, keyword-only flag and annotation of the caller's parameter behind argument `a`.
fn fill_from_param(
    ix: &Index<'_>,
    sc: &FuncScope<'_>,
    a: &Arg,
    arg: &Expr,
    p: &mut Param,
    text: &str,
) {
    let Some(name) = a.param() else { return };
    let Some(spec) = sc.param(name) else { return };
    p.keyword_only = spec.keyword_only;
    let default = spec
        .default
        .map(|d| literal(d).map_err(|_| source(d, text)));
    let keep = |p: &mut Param, why: Option<&str>| match (&default, why) {
        (Some(Ok(v)), None) => p.default = Some(v.clone()),
        (Some(Ok(v)), Some(why)) => p.default_dropped = Some(format!("{v} ({why})")),
        (Some(Err(src)), _) => p.default_dropped = Some(format!("{src} (not a literal)")),
        (None, _) => {}
    };
    let none_default = matches!(default, Some(Ok(Json::Null)));
    match a {
        Arg::Param { rebound, .. } => {
            // A None default survives a rebinding without a `p is None` guard (a normalisation).
            if *rebound && (!none_default || none_guarded(sc, name, text)) {
                keep(p, Some("the parameter is reassigned before the call"));
            } else {
                keep(p, None);
            }
            match (spec.annotation, *rebound) {
                (Some(ann), true) => p.ty_dropped = Some(one_line(source(ann, text))),
                (Some(ann), false) => match compact(ann, ix, sc.module, text) {
                    Ok(t) if spec.vararg => p.ty = Some(format!("ffi.Array[{t}]")),
                    Ok(t) => p.ty = Some(t),
                    Err(src) => p.ty_dropped = Some(one_line(&src)),
                },
                (None, _) => {}
            }
        }
        _ => {
            if let Some(t) = handle_type(ix, sc, arg, text) {
                p.ty = Some(t);
                keep(
                    p,
                    (!none_default).then_some("the argument is computed from it"),
                );
            } else if none_default && none_preserving(sc, arg, name, text) {
                keep(p, None);
            } else if let Some(v) = enum_value_default(ix, sc, arg, spec.default) {
                p.default = Some(v);
            } else {
                keep(p, Some("the argument is computed from it"));
                if let Some(ann) = spec.annotation {
                    p.ty_dropped = Some(one_line(source(ann, text)));
                }
            }
        }
    }
}

/// A literal default as JSON.
pub fn literal(e: &Expr) -> Result<Json, ()> {
    Ok(match e {
        Expr::NoneLiteral(_) => Json::Null,
        Expr::BooleanLiteral(b) => Json::Bool(b.value),
        Expr::NumberLiteral(n) => number(&n.value, false)?,
        Expr::UnaryOp(u) if u.op == ast::UnaryOp::USub => match &*u.operand {
            Expr::NumberLiteral(n) => number(&n.value, true)?,
            _ => return Err(()),
        },
        Expr::StringLiteral(s) => Json::String(s.value.to_str().to_string()),
        Expr::List(l) if l.elts.is_empty() => Json::Array(Vec::new()),
        Expr::Tuple(t) if t.elts.is_empty() => Json::Array(Vec::new()),
        Expr::Dict(d) if d.items.is_empty() => Json::Object(Default::default()),
        _ => return Err(()),
    })
}

fn number(n: &ast::Number, negative: bool) -> Result<Json, ()> {
    match n {
        ast::Number::Int(i) => {
            let v = i.as_i64().ok_or(())?;
            Ok(Json::from(if negative { -v } else { v }))
        }
        ast::Number::Float(f) => {
            let v = if negative { -f } else { *f };
            serde_json::Number::from_f64(v).map(Json::Number).ok_or(())
        }
        ast::Number::Complex { .. } => Err(()),
    }
}

/// Whether `text` contains `word` not inside a longer identifier.
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back().is_none_or(|c| !ident(c));
        let after = text[i + word.len()..]
            .chars()
            .next()
            .is_none_or(|c| !ident(c));
        before && after
    })
}

/// An `if p is None` (or `not p`, `p == None`) guard: the function replaces a None.
fn none_guarded(sc: &FuncScope<'_>, p: &str, text: &str) -> bool {
    sc.if_tests.iter().any(|t| {
        let t = source(t, text);
        has_word(t, &format!("{p} is None"))
            || has_word(t, &format!("not {p}"))
            || has_word(t, &format!("{p} == None"))
    })
}

/// The argument's expression, or the value of the single local it names.
fn through_local<'e>(sc: &'e FuncScope<'_>, arg: &'e Expr) -> &'e Expr {
    if let Expr::Name(n) = arg {
        if let Some([one]) = sc.assigns.get(n.id.as_str()).map(Vec::as_slice) {
            return one;
        }
    }
    arg
}

/// `None if p is None else f(p)` (directly or through one local) keeps a None default.
fn none_preserving(sc: &FuncScope<'_>, arg: &Expr, p: &str, text: &str) -> bool {
    let Expr::If(e) = through_local(sc, arg) else {
        return false;
    };
    let test = source(&e.test, text);
    (e.body.is_none_literal_expr() && test == format!("{p} is None"))
        || (e.orelse.is_none_literal_expr() && test == format!("{p} is not None"))
}

/// The registered type behind `p._handle`, `None if p is None else p._handle`, or
/// `[x._handle for x in ps]`, from `p`'s annotation.
fn handle_type(ix: &Index<'_>, sc: &FuncScope<'_>, arg: &Expr, text: &str) -> Option<String> {
    let mut e = through_local(sc, arg);
    let mut optional = false;
    if let Expr::If(i) = e {
        if i.body.is_none_literal_expr() {
            e = &i.orelse;
            optional = true;
        } else if i.orelse.is_none_literal_expr() {
            e = &i.body;
            optional = true;
        }
    }
    let annotated = |p: &str, element: bool| -> Option<String> {
        let spec = sc.param(p)?;
        let t = compact(spec.annotation?, ix, sc.module, text).ok()?;
        if !element || spec.vararg {
            return Some(t);
        }
        let inner = t
            .strip_prefix("Optional[")
            .and_then(|s| s.strip_suffix(']'));
        let t = inner.unwrap_or(&t);
        t.strip_prefix("ffi.Array[")
            .and_then(|s| s.strip_suffix(']'))
            .map(str::to_string)
    };
    match e {
        Expr::Attribute(a) if a.attr.as_str() == "_handle" => {
            let Expr::Name(n) = &*a.value else {
                return None;
            };
            let t = annotated(n.id.as_str(), false)?;
            Some(if optional && !t.starts_with("Optional[") {
                format!("Optional[{t}]")
            } else {
                t
            })
        }
        Expr::ListComp(l) => {
            let Expr::Attribute(a) = &*l.elt else {
                return None;
            };
            if a.attr.as_str() != "_handle" {
                return None;
            }
            let Expr::Name(n) = &l.generators.first()?.iter else {
                return None;
            };
            Some(format!("ffi.Array[{}]", annotated(n.id.as_str(), true)?))
        }
        _ => None,
    }
}

/// `p.value` where `p` defaults to `E.M` and class `E` says `M = <literal>`.
fn enum_value_default(
    ix: &Index<'_>,
    sc: &FuncScope<'_>,
    arg: &Expr,
    default: Option<&Expr>,
) -> Option<Json> {
    let Expr::Attribute(a) = arg else { return None };
    if a.attr.as_str() != "value" {
        return None;
    }
    let Expr::Attribute(d) = default? else {
        return None;
    };
    let Some(Value::Class(c)) = ix.eval(&d.value, &ModScope(sc.module), 0) else {
        return None;
    };
    ix.classes[c].node.body.iter().find_map(|st| match st {
        Stmt::Assign(s)
            if s.targets
                .iter()
                .any(|t| matches!(t, Expr::Name(n) if n.id.as_str() == d.attr.as_str())) =>
        {
            literal(&s.value).ok()
        }
        _ => None,
    })
}

/// A `def f(*args, **kwargs)` implementation with `@overload` siblings: the parameter names of
/// the non-deprecated overload with `n` parameters.
fn overload_names(ix: &Index<'_>, sc: &FuncScope<'_>, n: usize) -> Option<Vec<String>> {
    sc.def.parameters.vararg.as_ref()?;
    let body: &[Stmt] = match sc.class {
        Some(c) => &ix.classes[c].node.body,
        None => &ix.modules[sc.module].src.ast.body,
    };
    body.iter().find_map(|st| {
        let Stmt::FunctionDef(f) = st else {
            return None;
        };
        if f.name.as_str() != sc.def.name.as_str()
            || std::ptr::eq(f, sc.def)
            || !decorated(f, "overload")
            || decorated(f, "deprecated")
        {
            return None;
        }
        let mut names: Vec<String> = f
            .parameters
            .iter_non_variadic_params()
            .map(|q| q.name().to_string())
            .collect();
        if sc.class.is_some() && !decorated(f, "staticmethod") && !names.is_empty() {
            names.remove(0);
        }
        (names.len() == n).then_some(names)
    })
}

/// The `@overload` sibling of the caller whose parameter at `p`'s position is annotated like
/// `t` (the class of an `isinstance(p, t)` branch): that parameter's name and annotation.
fn narrowing_overload<'a>(
    ix: &Index<'a>,
    sc: &FuncScope<'a>,
    p: &str,
    t: &Expr,
    text: &str,
) -> Option<(String, &'a Expr)> {
    let index = sc
        .def
        .parameters
        .posonlyargs
        .iter()
        .chain(&sc.def.parameters.args)
        .position(|q| q.name().as_str() == p)?;
    let wanted = source(t, text);
    let body: &[Stmt] = match sc.class {
        Some(c) => &ix.classes[c].node.body,
        None => &ix.modules[sc.module].src.ast.body,
    };
    body.iter().find_map(|st| {
        let Stmt::FunctionDef(f) = st else {
            return None;
        };
        if f.name.as_str() != sc.def.name.as_str() || !decorated(f, "overload") {
            return None;
        }
        let q = f
            .parameters
            .posonlyargs
            .iter()
            .chain(&f.parameters.args)
            .nth(index)?;
        let ann = q.annotation()?;
        (source(ann, text) == wanted).then(|| (q.name().to_string(), ann))
    })
}

/// A function's docstring, cleaned like Python's `inspect.cleandoc`.
fn docstring(body: &[Stmt]) -> String {
    let Some(Stmt::Expr(e)) = body.first() else {
        return String::new();
    };
    let Expr::StringLiteral(s) = &*e.value else {
        return String::new();
    };
    let raw = s.value.to_str().replace('\t', "        ");
    let lines: Vec<&str> = raw.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.trim().to_string()
            } else {
                l.get(indent..).unwrap_or("").trim_end().to_string()
            }
        })
        .collect();
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// Source text on one line (annotations may span several).
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receivers_are_named_after_their_class_in_snake_case() {
        assert_eq!(snake("GrammarMatcher"), "grammar_matcher");
        assert_eq!(snake("IRModule"), "ir_module");
        assert_eq!(snake("_Schedule"), "schedule");
        assert_eq!(snake("Float32x4"), "float32x4");
    }

    #[test]
    fn only_literals_are_defaults() {
        let value = |src: &str| {
            let parsed = ruff_python_parser::parse_expression(src).unwrap();
            literal(parsed.expr()).ok()
        };
        assert_eq!(value("None"), Some(Json::Null));
        assert_eq!(value("-3"), Some(Json::from(-3)));
        assert_eq!(value("0.5"), Some(Json::from(0.5)));
        assert_eq!(value("'root'"), Some(Json::from("root")));
        assert_eq!(value("()"), Some(Json::Array(Vec::new())));
        assert_eq!(value("{}"), Some(Json::Object(Default::default())));
        assert_eq!(value("[1]"), None);
        assert_eq!(value("VocabType.RAW"), None);
        assert_eq!(value("2 ** 70"), None);
    }

    #[test]
    fn docstrings_are_cleaned_like_inspect_cleandoc() {
        let module = ruff_python_parser::parse_module(
            "def f():\n    \"\"\"Summary.\n\n        Parameters\n        ----------\n        x : int\n            The x.\n    \"\"\"\n",
        )
        .unwrap()
        .into_syntax();
        let Stmt::FunctionDef(f) = &module.body[0] else {
            unreachable!()
        };
        assert_eq!(
            docstring(&f.body),
            "Summary.\n\nParameters\n----------\nx : int\n    The x."
        );
    }
}
