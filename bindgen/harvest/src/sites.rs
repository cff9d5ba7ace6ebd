//! Call sites: every call of a registered function, method or constructor inside a Python
//! function, with the function's scope (parameters, `self`, local imports and assignments)
//! and each argument followed back to the caller's parameters.

use crate::index::{ClassId, Index, ModId, ModScope, Scope, Value};
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

/// A Python function's scope.
pub struct FuncScope<'a> {
    /// Its module.
    pub module: ModId,
    /// Its definition.
    pub def: &'a ast::StmtFunctionDef,
    /// The class it is a method of.
    pub class: Option<ClassId>,
    parent: Option<Rc<FuncScope<'a>>>,
    /// Parameter names (positional, keyword-only, then `*args` and `**kwargs`).
    pub names: Vec<String>,
    /// The receiver's name in an instance method.
    pub self_name: Option<String>,
    cls_name: Option<String>,
    imports: HashMap<String, crate::index::Binding<'a>>,
    /// Local name -> every value assigned to it.
    pub assigns: HashMap<String, Vec<&'a Expr>>,
    /// The tests of every `if` (for `p is None` guards).
    pub if_tests: Vec<&'a Expr>,
    /// Qualified name inside the module (`Grammar.from_json_schema`).
    pub qual: String,
}

/// What a decorator list holds, by last name segment.
pub fn decorated(def: &ast::StmtFunctionDef, name: &str) -> bool {
    def.decorator_list.iter().any(|d| {
        let e = match &d.expression {
            Expr::Call(c) => &*c.func,
            e => e,
        };
        match e {
            Expr::Name(n) => n.id.as_str() == name,
            Expr::Attribute(a) => a.attr.as_str() == name,
            _ => false,
        }
    })
}

impl<'a> FuncScope<'a> {
    fn new(
        ix: &Index<'a>,
        module: ModId,
        def: &'a ast::StmtFunctionDef,
        class: Option<ClassId>,
        parent: Option<Rc<FuncScope<'a>>>,
        body: &Body<'a>,
    ) -> FuncScope<'a> {
        let p = &def.parameters;
        let mut names: Vec<String> = p
            .iter_non_variadic_params()
            .map(|q| q.name().to_string())
            .collect();
        names.extend(p.vararg.iter().map(|v| v.name.to_string()));
        names.extend(p.kwarg.iter().map(|v| v.name.to_string()));
        let first = p.posonlyargs.iter().chain(&p.args).next();
        let (mut self_name, mut cls_name) = (None, None);
        if class.is_some() && !decorated(def, "staticmethod") {
            if let Some(first) = first {
                if decorated(def, "classmethod") {
                    cls_name = Some(first.name().to_string());
                } else {
                    self_name = Some(first.name().to_string());
                }
            }
        }
        let mut imports = HashMap::new();
        local_imports(ix, module, &def.body, &mut imports);
        let qual = match (&parent, class) {
            (Some(p), _) => format!("{}.{}", p.qual, def.name),
            (None, Some(c)) => format!("{}.{}", ix.classes[c].qual, def.name),
            (None, None) => def.name.to_string(),
        };
        FuncScope {
            module,
            def,
            class,
            parent,
            names,
            self_name,
            cls_name,
            imports,
            assigns: body.assigns.clone(),
            if_tests: body.if_tests.clone(),
            qual,
        }
    }

    /// The parameter `name` with its default and whether it is keyword-only or `*args`.
    pub fn param(&self, name: &str) -> Option<ParamSpec<'a>> {
        let p = &self.def.parameters;
        for (kw, list) in [
            (false, &p.posonlyargs),
            (false, &p.args),
            (true, &p.kwonlyargs),
        ] {
            if let Some(q) = list.iter().find(|q| q.name().as_str() == name) {
                return Some(ParamSpec {
                    keyword_only: kw,
                    vararg: false,
                    default: q.default.as_deref(),
                    annotation: q.annotation(),
                });
            }
        }
        p.vararg
            .as_ref()
            .filter(|v| v.name.as_str() == name)
            .map(|v| ParamSpec {
                keyword_only: false,
                vararg: true,
                default: None,
                annotation: v.annotation(),
            })
    }

    fn is_param(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }
}

/// A Python parameter.
pub struct ParamSpec<'a> {
    /// Keyword-only (after `*`).
    pub keyword_only: bool,
    /// `*args`.
    pub vararg: bool,
    /// Its default expression.
    pub default: Option<&'a Expr>,
    /// Its annotation.
    pub annotation: Option<&'a Expr>,
}

/// `Optional[X]`, `X | None`, `"X"` -> `X` (for the class an annotation names).
pub fn strip_optional(e: &Expr) -> Option<Expr> {
    match e {
        Expr::StringLiteral(s) => {
            let parsed = ruff_python_parser::parse_expression(s.value.to_str()).ok()?;
            strip_optional(&parsed.into_expr())
        }
        Expr::Subscript(s) if last_name(&s.value) == Some("Optional") => strip_optional(&s.slice),
        Expr::BinOp(b) if b.op == ast::Operator::BitOr && b.right.is_none_literal_expr() => {
            strip_optional(&b.left)
        }
        e => Some(e.clone()),
    }
}

/// The last segment of a name or attribute chain.
pub fn last_name(e: &Expr) -> Option<&str> {
    match e {
        Expr::Name(n) => Some(n.id.as_str()),
        Expr::Attribute(a) => Some(a.attr.as_str()),
        _ => None,
    }
}

impl<'a> Scope<'a> for FuncScope<'a> {
    fn lookup(&self, ix: &Index<'a>, name: &str, depth: u32) -> Option<Value> {
        if depth > 40 {
            return None;
        }
        if self.self_name.as_deref() == Some(name) {
            let c = self.class?;
            return Some(match &ix.classes[c].type_key {
                Some(k) => Value::Handle(k.clone()),
                None => Value::Instance(c),
            });
        }
        if self.cls_name.as_deref() == Some(name) {
            return self.class.map(Value::Class);
        }
        if self.is_param(name) {
            let ann = self.param(name)?.annotation?;
            let class = strip_optional(ann)?;
            return match ix.eval(&class, &ModScope(self.module), depth + 1)? {
                Value::Class(c) => Some(match &ix.classes[c].type_key {
                    Some(k) => Value::Handle(k.clone()),
                    None => Value::Instance(c),
                }),
                _ => None,
            };
        }
        if let Some(b) = self.imports.get(name) {
            return ix.binding_value(self.module, b, depth + 1);
        }
        if let Some(values) = self.assigns.get(name) {
            return match values.as_slice() {
                [one] => ix.eval(one, self, depth + 1),
                _ => None,
            };
        }
        match &self.parent {
            Some(p) => p.lookup(ix, name, depth + 1),
            None => ModScope(self.module).lookup(ix, name, depth + 1),
        }
    }
}

fn local_imports<'a>(
    ix: &Index<'a>,
    module: ModId,
    body: &'a [Stmt],
    out: &mut HashMap<String, crate::index::Binding<'a>>,
) {
    use crate::index::Binding;
    for st in body {
        match st {
            Stmt::Import(i) => {
                for a in &i.names {
                    let (bound, target) = match &a.asname {
                        Some(n) => (n.to_string(), a.name.to_string()),
                        None => {
                            let first = a.name.split('.').next().unwrap_or_default().to_string();
                            (first.clone(), first)
                        }
                    };
                    out.insert(bound, Binding::Module(target));
                }
            }
            Stmt::ImportFrom(i) => {
                let from = ix.resolve_relative(
                    module,
                    i.level,
                    i.module.as_ref().map_or("", |m| m.as_str()),
                );
                for a in i.names.iter().filter(|a| a.name.as_str() != "*") {
                    let bound = a.asname.as_ref().unwrap_or(&a.name).to_string();
                    out.insert(bound, Binding::From(from.clone(), a.name.to_string()));
                }
            }
            Stmt::If(s) => {
                local_imports(ix, module, &s.body, out);
                for c in &s.elif_else_clauses {
                    local_imports(ix, module, &c.body, out);
                }
            }
            Stmt::Try(t) => {
                local_imports(ix, module, &t.body, out);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    local_imports(ix, module, &h.body, out);
                }
            }
            Stmt::With(w) => local_imports(ix, module, &w.body, out),
            _ => {}
        }
    }
}

/// What one pass over a function body (not into nested definitions) finds.
#[derive(Default)]
struct Body<'a> {
    assigns: HashMap<String, Vec<&'a Expr>>,
    if_tests: Vec<&'a Expr>,
    calls: Vec<&'a ast::ExprCall>,
    returned: BTreeSet<u32>,
    /// Calls whose result is discarded (an expression statement).
    discarded: BTreeSet<u32>,
    nested: Vec<&'a ast::StmtFunctionDef>,
    /// The `isinstance(p, T)` tests of the branches being visited.
    narrowing: Vec<(String, &'a Expr)>,
    /// Call start -> the narrowings of the branches around it.
    narrowed: HashMap<u32, Vec<(String, &'a Expr)>>,
}

/// `isinstance(p, T)`: (p, T).
fn isinstance_test(test: &Expr) -> Option<(String, &Expr)> {
    let Expr::Call(c) = test else { return None };
    let Expr::Name(f) = &*c.func else { return None };
    match (f.id.as_str(), &*c.arguments.args) {
        ("isinstance", [Expr::Name(p), t]) => Some((p.id.to_string(), t)),
        _ => None,
    }
}

/// The names an assignment target binds.
pub fn target_names(t: &Expr, out: &mut Vec<String>) {
    match t {
        Expr::Name(n) => out.push(n.id.to_string()),
        Expr::Tuple(x) => x.elts.iter().for_each(|e| target_names(e, out)),
        Expr::List(x) => x.elts.iter().for_each(|e| target_names(e, out)),
        Expr::Starred(s) => target_names(&s.value, out),
        _ => {}
    }
}

impl<'a> Body<'a> {
    fn assign(&mut self, target: &Expr, value: &'a Expr) {
        let mut names = Vec::new();
        target_names(target, &mut names);
        for n in names {
            self.assigns.entry(n).or_default().push(value);
        }
    }
}

fn call_start(c: &ast::ExprCall) -> u32 {
    c.range().start().to_u32()
}

impl<'a> Visitor<'a> for Body<'a> {
    fn visit_stmt(&mut self, st: &'a Stmt) {
        match st {
            Stmt::FunctionDef(f) => {
                self.nested.push(f);
                return;
            }
            Stmt::ClassDef(_) => return,
            Stmt::Assign(a) => a.targets.iter().for_each(|t| self.assign(t, &a.value)),
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.assign(&a.target, v);
                }
            }
            Stmt::AugAssign(a) => self.assign(&a.target, &a.value),
            Stmt::For(f) => self.assign(&f.target, &f.iter),
            Stmt::With(w) => {
                for item in &w.items {
                    if let Some(v) = &item.optional_vars {
                        self.assign(v, &item.context_expr);
                    }
                }
            }
            Stmt::If(i) => {
                // Each branch is visited with its `isinstance` narrowing.
                self.if_tests.push(&i.test);
                self.visit_expr(&i.test);
                let pushed = isinstance_test(&i.test).map(|n| self.narrowing.push(n));
                self.visit_body(&i.body);
                if pushed.is_some() {
                    self.narrowing.pop();
                }
                for c in &i.elif_else_clauses {
                    if let Some(t) = &c.test {
                        self.if_tests.push(t);
                        self.visit_expr(t);
                    }
                    let pushed = c
                        .test
                        .as_ref()
                        .and_then(isinstance_test)
                        .map(|n| self.narrowing.push(n));
                    self.visit_body(&c.body);
                    if pushed.is_some() {
                        self.narrowing.pop();
                    }
                }
                return;
            }
            Stmt::Expr(x) => {
                if let Expr::Call(c) = &*x.value {
                    self.discarded.insert(call_start(c));
                }
            }
            Stmt::Return(r) => {
                if let Some(Expr::Call(c)) = r.value.as_deref() {
                    self.returned.insert(call_start(c));
                    // `return Cls._create_from_handle(<call>)` returns the call's object.
                    if let (Expr::Attribute(a), Some(Expr::Call(inner))) =
                        (&*c.func, c.arguments.args.first())
                    {
                        if a.attr.as_str() == "_create_from_handle" {
                            self.returned.insert(call_start(inner));
                        }
                    }
                }
            }
            _ => {}
        }
        visitor::walk_stmt(self, st);
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        match e {
            Expr::Lambda(_) => return,
            Expr::Call(c) => {
                self.calls.push(c);
                if !self.narrowing.is_empty() {
                    self.narrowed.insert(call_start(c), self.narrowing.clone());
                }
            }
            Expr::Named(n) => self.assign(&n.target, &n.value),
            _ => {}
        }
        visitor::walk_expr(self, e);
    }
}

/// How a call site reaches its entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// A global function called.
    Call,
    /// `__init_handle_by_constructor__(F, ...)`: F constructs the enclosing class.
    InitHandle,
    /// `self.__ffi_init__(...)` or `RegisteredType(...)`: the type's typed constructor.
    Init,
    /// A method through an instance (`self.m(...)`, `x._handle.m(...)`).
    Handle,
    /// A method through its type (`Type.m(...)`; an instance method's receiver is dropped).
    Type,
}

/// One call of a registered entry.
pub struct Site<'a> {
    /// The registered entry (`f`, `key.method`, `key.__init__`).
    pub entry: String,
    /// How.
    pub via: Via,
    /// The arguments in the library's order.
    pub args: &'a [Expr],
    /// The call passes keyword arguments.
    pub keywords: bool,
    /// The calling function.
    pub scope: Rc<FuncScope<'a>>,
    /// The 1-based line of the call.
    pub line: usize,
    /// The function returns the call's result.
    pub returned: bool,
    /// The call is a statement of its own (its result is not kept).
    pub discarded: bool,
    /// The receiver of a method call through an instance is the caller's `self`.
    pub on_self: bool,
    /// The `isinstance(p, T)` tests of the branches around the call.
    pub narrowed: Vec<(String, &'a Expr)>,
}

/// Every call site of the package, in module and source order.
pub fn collect<'a>(ix: &Index<'a>) -> Vec<Site<'a>> {
    let mut out = Vec::new();
    for (id, m) in ix.modules.iter().enumerate() {
        walk_defs(ix, id, &m.src.ast.body, None, &mut out);
    }
    out
}

fn walk_defs<'a>(
    ix: &Index<'a>,
    module: ModId,
    body: &'a [Stmt],
    class: Option<ClassId>,
    out: &mut Vec<Site<'a>>,
) {
    for st in body {
        match st {
            Stmt::FunctionDef(f) => visit_function(ix, module, f, class, None, out),
            Stmt::ClassDef(c) => {
                let id = ix
                    .classes
                    .iter()
                    .position(|ci| std::ptr::eq(ci.node, c))
                    .filter(|_| class.is_none());
                // Nested classes are no registered types: their methods are plain functions.
                walk_defs(ix, module, &c.body, id, out);
            }
            Stmt::If(i) => {
                walk_defs(ix, module, &i.body, class, out);
                for c in &i.elif_else_clauses {
                    walk_defs(ix, module, &c.body, class, out);
                }
            }
            Stmt::Try(t) => {
                walk_defs(ix, module, &t.body, class, out);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    walk_defs(ix, module, &h.body, class, out);
                }
                walk_defs(ix, module, &t.orelse, class, out);
            }
            Stmt::With(w) => walk_defs(ix, module, &w.body, class, out),
            _ => {}
        }
    }
}

fn visit_function<'a>(
    ix: &Index<'a>,
    module: ModId,
    def: &'a ast::StmtFunctionDef,
    class: Option<ClassId>,
    parent: Option<Rc<FuncScope<'a>>>,
    out: &mut Vec<Site<'a>>,
) {
    let mut body = Body::default();
    body.visit_body(&def.body);
    let scope = Rc::new(FuncScope::new(ix, module, def, class, parent, &body));
    let src = ix.modules[module].src;
    for call in &body.calls {
        let returned = body.returned.contains(&call_start(call));
        let discarded = body.discarded.contains(&call_start(call));
        let line = src.line(call_start(call) as usize);
        let args: &'a [Expr] = &call.arguments.args;
        let keywords = !call.arguments.keywords.is_empty();
        let narrowed = body
            .narrowed
            .get(&call_start(call))
            .cloned()
            .unwrap_or_default();
        let site = |entry: String, via: Via, args: &'a [Expr], on_self: bool| Site {
            entry,
            via,
            args,
            keywords,
            scope: scope.clone(),
            line,
            returned,
            discarded,
            on_self,
            narrowed: narrowed.clone(),
        };
        if let Expr::Attribute(a) = &*call.func {
            match a.attr.as_str() {
                "__init_handle_by_constructor__" => {
                    if let Some((first, rest)) = args.split_first() {
                        if let Some(Value::FfiFunc(f)) = ix.eval(first, &*scope, 0) {
                            out.push(site(f, Via::InitHandle, rest, false));
                        }
                    }
                    continue;
                }
                "__ffi_init__" => {
                    let key = class.and_then(|c| ix.classes[c].type_key.clone());
                    if let Some(key) = key.filter(|k| has_init(ix, k)) {
                        out.push(site(format!("{key}.__init__"), Via::Init, args, false));
                    }
                    continue;
                }
                _ => {}
            }
        }
        let on_self = receiver_is_self(&call.func, &scope);
        match ix.eval(&call.func, &*scope, 0) {
            Some(Value::FfiFunc(f)) => out.push(site(f, Via::Call, args, false)),
            Some(Value::FfiMethod(key, name, through_instance)) => {
                let Some((_, m)) = ix.reg.method(&key, &name) else {
                    continue;
                };
                let entry = format!("{key}.{name}");
                if through_instance {
                    out.push(site(entry, Via::Handle, args, on_self));
                } else if m.is_static {
                    out.push(site(entry, Via::Type, args, false));
                } else if let Some((_, rest)) = args.split_first() {
                    out.push(site(entry, Via::Type, rest, false));
                }
            }
            Some(Value::Class(c)) => {
                let ci = &ix.classes[c];
                if let Some(key) = ci.type_key.as_ref().filter(|k| has_init(ix, k)) {
                    if !ci.methods.contains_key("__init__") {
                        out.push(site(format!("{key}.__init__"), Via::Init, args, false));
                    }
                }
            }
            _ => {}
        }
    }
    for nested in &body.nested {
        visit_function(ix, module, nested, None, Some(scope.clone()), out);
    }
}

fn has_init(ix: &Index<'_>, key: &str) -> bool {
    ix.reg
        .types
        .get(key)
        .is_some_and(|t| t.init_params.is_some())
}

/// Whether a method call's receiver is the caller's `self` (`self.m`, `self._handle.m`).
fn receiver_is_self(func: &Expr, scope: &FuncScope<'_>) -> bool {
    let Expr::Attribute(a) = func else {
        return false;
    };
    let base = match &*a.value {
        Expr::Attribute(inner) if inner.attr.as_str() == "_handle" => &*inner.value,
        e => e,
    };
    matches!(base, Expr::Name(n) if scope.self_name.as_deref() == Some(n.id.as_str()))
}

/// How an argument relates to the caller's parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// `*xs`.
    Star,
    /// The receiver `self`.
    Receiver,
    /// A parameter, unchanged; `rebound` when the function assigns it too.
    Param { name: String, rebound: bool },
    /// A local computed from one parameter.
    Flow { param: String, local: String },
    /// An expression of one parameter.
    Expression { param: String },
    /// `self.attr`.
    SelfAttr(String),
    /// Computed from several parameters or none (a local's name, when it is one).
    Computed(Option<String>),
    /// A literal.
    Constant,
}

impl Arg {
    /// The caller's parameter it names.
    pub fn param(&self) -> Option<&str> {
        match self {
            Arg::Param { name, .. } => Some(name),
            Arg::Flow { param, .. } | Arg::Expression { param } => Some(param),
            _ => None,
        }
    }
}

/// The free names an expression reads (comprehension targets and lambda parameters left out).
fn names_in(e: &Expr) -> BTreeSet<String> {
    struct Names {
        read: BTreeSet<String>,
        bound: BTreeSet<String>,
    }
    impl<'b> Visitor<'b> for Names {
        fn visit_expr(&mut self, e: &'b Expr) {
            match e {
                Expr::Name(n) => {
                    self.read.insert(n.id.to_string());
                }
                Expr::Lambda(l) => {
                    if let Some(p) = &l.parameters {
                        for q in p.iter_non_variadic_params() {
                            self.bound.insert(q.name().to_string());
                        }
                    }
                }
                _ => {}
            }
            visitor::walk_expr(self, e);
        }
        fn visit_comprehension(&mut self, c: &'b ast::Comprehension) {
            let mut names = Vec::new();
            target_names(&c.target, &mut names);
            self.bound.extend(names);
            visitor::walk_comprehension(self, c);
        }
    }
    let mut v = Names {
        read: BTreeSet::new(),
        bound: BTreeSet::new(),
    };
    v.visit_expr(e);
    v.read.difference(&v.bound).cloned().collect()
}

/// The caller's parameters an expression depends on (through locals, a few levels deep).
fn param_refs(
    e: &Expr,
    sc: &FuncScope<'_>,
    depth: u32,
    seen: &mut BTreeSet<String>,
) -> BTreeSet<String> {
    let mut refs = BTreeSet::new();
    for n in names_in(e) {
        if sc.is_param(&n) {
            refs.insert(n);
        } else if depth < 6 && seen.insert(n.clone()) {
            if let Some(values) = sc.assigns.get(&n) {
                for v in values {
                    refs.extend(param_refs(v, sc, depth + 1, seen));
                }
            }
        }
    }
    refs
}

/// An expression that is the receiver or a copy of it: `self._move()`, `a if a is self else
/// a._move()`, a local every assignment of which is a call on such a value (TVM's `with_attr`:
/// `new_value = _ffi_api.BaseFuncCopy(self)`, then updated in a loop). `seen`: the locals being
/// followed (a local updated from itself stays a copy).
fn receiver_like<'e>(e: &'e Expr, sc: &'e FuncScope<'_>, seen: &mut Vec<&'e str>) -> bool {
    match e {
        Expr::Name(n) if sc.self_name.as_deref() == Some(n.id.as_str()) => true,
        Expr::Name(n) if seen.contains(&n.id.as_str()) => true,
        Expr::Name(n) => {
            let Some(values) = sc.assigns.get(n.id.as_str()) else {
                return false;
            };
            seen.push(n.id.as_str());
            let copy = values.iter().all(|v| match v {
                Expr::Call(c) => c
                    .arguments
                    .args
                    .first()
                    .is_some_and(|a| receiver_like(a, sc, seen)),
                _ => false,
            });
            seen.pop();
            copy
        }
        Expr::Call(c) if c.arguments.is_empty() => match &*c.func {
            Expr::Attribute(a) if a.attr.as_str() == "_move" => receiver_like(&a.value, sc, seen),
            _ => false,
        },
        Expr::If(i) => receiver_like(&i.body, sc, seen) && receiver_like(&i.orelse, sc, seen),
        _ => false,
    }
}

/// Classifies one argument.
pub fn classify(e: &Expr, sc: &FuncScope<'_>) -> Arg {
    let is_self = |n: &str| sc.self_name.as_deref() == Some(n);
    match e {
        Expr::Starred(_) => return Arg::Star,
        Expr::Name(n) => {
            let id = n.id.as_str();
            if is_self(id) {
                return Arg::Receiver;
            }
            if sc.is_param(id) {
                return Arg::Param {
                    name: id.to_string(),
                    rebound: sc.assigns.contains_key(id),
                };
            }
            if sc.assigns.contains_key(id) {
                let mut refs = param_refs(e, sc, 0, &mut BTreeSet::new());
                if let Some(s) = &sc.self_name {
                    refs.remove(s);
                }
                return match refs.len() {
                    1 => Arg::Flow {
                        param: refs.into_iter().next().unwrap_or_default(),
                        local: id.to_string(),
                    },
                    _ => Arg::Computed(Some(id.to_string())),
                };
            }
            return Arg::Computed(None);
        }
        e if e.is_literal_expr() => return Arg::Constant,
        Expr::UnaryOp(u) if u.operand.is_literal_expr() => return Arg::Constant,
        e if receiver_like(e, sc, &mut Vec::new()) => return Arg::Receiver,
        _ => {}
    }
    let mut refs = param_refs(e, sc, 0, &mut BTreeSet::new());
    if let (Some(s), Expr::Attribute(a)) = (&sc.self_name, e) {
        if refs.len() == 1 && refs.contains(s) {
            if let Expr::Name(n) = &*a.value {
                if n.id.as_str() == s {
                    return Arg::SelfAttr(a.attr.to_string());
                }
            }
        }
    }
    if let Some(s) = &sc.self_name {
        refs.remove(s);
    }
    match refs.len() {
        1 => Arg::Expression {
            param: refs.into_iter().next().unwrap_or_default(),
        },
        _ => Arg::Computed(None),
    }
}
