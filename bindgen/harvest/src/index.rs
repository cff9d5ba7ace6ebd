//! The package's name table: what each module binds (imports, functions, classes,
//! assignments), which modules are FFI namespaces (`init_ffi_api`), which classes stand for
//! registered types (`@register_object`, a held `_handle`), and the abstract value of an
//! expression (a registered function, a method of a registered type, a class, an instance).

use crate::source::Module;
use crate::Registry;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use std::collections::{BTreeMap, HashMap};

/// Index of a module in [`Index::modules`].
pub type ModId = usize;
/// Index of a class in [`Index::classes`].
pub type ClassId = usize;

/// Recursion bound for resolution (import cycles, self-referential assignments).
const MAX_DEPTH: u32 = 40;

/// What a name is bound to.
#[derive(Clone)]
pub enum Binding<'a> {
    /// `import a.b` (binds `a`) or `import a.b as m`.
    Module(String),
    /// `from m import x`: (module, name).
    From(String, String),
    /// A `def`.
    Func,
    /// A `class`.
    Class(ClassId),
    /// An assignment, and how many assignments the name has (only a single one is followed).
    Assigned(&'a Expr, u32),
}

/// A module's table.
pub struct ModInfo<'a> {
    /// The parsed file.
    pub src: &'a Module,
    /// Top-level bindings (`if`/`try`/`with` bodies included).
    pub bindings: HashMap<String, Binding<'a>>,
    /// Modules imported with `*`.
    pub stars: Vec<String>,
    /// The FFI prefix when `init_ffi_api` binds the module (`ir` for `tvm.ir._ffi_api`).
    pub ffi_prefix: Option<String>,
    /// Attribute assignments on other names: (target, attribute, value).
    assigned_attrs: Vec<(&'a Expr, String, &'a Expr)>,
}

/// A Python class.
pub struct ClassInfo<'a> {
    /// Its module.
    pub module: ModId,
    /// Its definition.
    pub node: &'a ast::StmtClassDef,
    /// Qualified name inside the module.
    pub qual: String,
    /// The registered type it is (`@register_object("key")`).
    pub type_key: Option<String>,
    /// The registered type of the `_handle` it holds (xgrammar's wrapper classes).
    pub handle_key: Option<String>,
    /// Its methods by name.
    pub methods: HashMap<String, &'a ast::StmtFunctionDef>,
}

/// The abstract value of an expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A module of the package.
    Module(ModId),
    /// Something outside the package, by dotted name (`tvm_ffi.init_ffi_api`).
    External(String),
    /// A registered global function.
    FfiFunc(String),
    /// A method of a registered type: (owner key, method name, reached through an instance).
    FfiMethod(String, String, bool),
    /// A Python class.
    Class(ClassId),
    /// An instance of a registered type.
    Handle(String),
    /// An instance of a Python class that is no registered type.
    Instance(ClassId),
    /// A Python function (not followed further).
    PyFunc,
}

/// What a name means where it is looked up.
pub trait Scope<'a> {
    /// The value of `name`.
    fn lookup(&self, ix: &Index<'a>, name: &str, depth: u32) -> Option<Value>;
}

/// A module's top level.
pub struct ModScope(pub ModId);

impl<'a> Scope<'a> for ModScope {
    fn lookup(&self, ix: &Index<'a>, name: &str, depth: u32) -> Option<Value> {
        let m = &ix.modules[self.0];
        if let Some(b) = m.bindings.get(name) {
            return ix.binding_value(self.0, b, depth + 1);
        }
        m.stars
            .iter()
            .find_map(|s| ix.module_attr(s, name, depth + 1))
    }
}

/// Roles of names outside the package.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum External {
    InitFfiApi,
    RegisterObject,
    GetGlobalFunc,
}

fn external_role(name: &str) -> Option<External> {
    let short = name
        .strip_prefix("tvm_ffi.registry.")
        .or_else(|| name.strip_prefix("tvm_ffi."))?;
    match short {
        "init_ffi_api" => Some(External::InitFfiApi),
        "register_object" => Some(External::RegisterObject),
        "get_global_func" => Some(External::GetGlobalFunc),
        _ => None,
    }
}

/// The package's table.
pub struct Index<'a> {
    /// What the library registered.
    pub reg: &'a Registry,
    /// Every module, by [`ModId`].
    pub modules: Vec<ModInfo<'a>>,
    by_name: HashMap<String, ModId>,
    /// Every top-level class, by [`ClassId`].
    pub classes: Vec<ClassInfo<'a>>,
    /// Attributes assigned on modules from elsewhere (`_core.testing = _testing_ffi`):
    /// module -> attribute -> (the assigning module, the value).
    overrides: HashMap<ModId, HashMap<String, (ModId, &'a Expr)>>,
}

/// A string literal's value.
pub fn string_literal(e: &Expr) -> Option<&str> {
    match e {
        Expr::StringLiteral(s) => Some(s.value.to_str()),
        _ => None,
    }
}

/// Every call expression below a statement list (nested functions and classes included).
pub fn calls(body: &[Stmt]) -> Vec<&ast::ExprCall> {
    struct Calls<'a>(Vec<&'a ast::ExprCall>);
    impl<'a> Visitor<'a> for Calls<'a> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Call(c) = e {
                self.0.push(c);
            }
            visitor::walk_expr(self, e);
        }
    }
    let mut v = Calls(Vec::new());
    v.visit_body(body);
    v.0
}

impl<'a> Index<'a> {
    /// Builds the table of `modules` against `reg`.
    pub fn new(modules: &'a [Module], reg: &'a Registry) -> Index<'a> {
        let mut ix = Index {
            reg,
            modules: Vec::new(),
            by_name: HashMap::new(),
            classes: Vec::new(),
            overrides: HashMap::new(),
        };
        for (id, src) in modules.iter().enumerate() {
            ix.by_name.insert(src.name.clone(), id);
            ix.modules.push(ModInfo {
                src,
                bindings: HashMap::new(),
                stars: Vec::new(),
                ffi_prefix: None,
                assigned_attrs: Vec::new(),
            });
        }
        for id in 0..ix.modules.len() {
            let mut bindings = HashMap::new();
            let mut stars = Vec::new();
            let mut attrs = Vec::new();
            let body = &ix.modules[id].src.ast.body;
            ix.collect(id, body, &mut bindings, &mut stars, Some(&mut attrs));
            let m = &mut ix.modules[id];
            m.bindings = bindings;
            m.stars = stars;
            m.assigned_attrs = attrs;
        }
        ix.find_ffi_namespaces();
        // Chains such as `_core.testing.grammar_functor = ...` need the previous round.
        for _ in 0..3 {
            ix.overrides = ix.compute_overrides();
        }
        ix.find_registered_classes();
        ix
    }

    /// Modules bound to an FFI namespace.
    pub fn ffi_module_count(&self) -> usize {
        self.modules
            .iter()
            .filter(|m| m.ffi_prefix.is_some())
            .count()
    }

    /// Classes bound to a registered type.
    pub fn registered_class_count(&self) -> usize {
        self.classes
            .iter()
            .filter(|c| c.type_key.is_some() || c.handle_key.is_some())
            .count()
    }

    pub fn resolve_relative(&self, module: ModId, level: u32, name: &str) -> String {
        if level == 0 {
            return name.to_string();
        }
        let mut base: Vec<&str> = self.modules[module].src.package().split('.').collect();
        base.truncate(base.len().saturating_sub(level as usize - 1));
        let base = base.join(".");
        if name.is_empty() {
            base
        } else {
            format!("{base}.{name}")
        }
    }

    /// The bindings of a statement list, recursing into `if`/`try`/`with` (and loops inside
    /// functions), not into definitions. `attrs` collects attribute assignments (top level).
    pub fn collect(
        &mut self,
        module: ModId,
        body: &'a [Stmt],
        bindings: &mut HashMap<String, Binding<'a>>,
        stars: &mut Vec<String>,
        mut attrs: Option<&mut Vec<(&'a Expr, String, &'a Expr)>>,
    ) {
        let top = attrs.is_some();
        for st in body {
            match st {
                Stmt::Import(i) => {
                    for a in &i.names {
                        match &a.asname {
                            Some(asname) => {
                                bindings.insert(
                                    asname.to_string(),
                                    Binding::Module(a.name.to_string()),
                                );
                            }
                            None => {
                                let first = a.name.split('.').next().unwrap_or_default();
                                bindings
                                    .insert(first.to_string(), Binding::Module(first.to_string()));
                            }
                        }
                    }
                }
                Stmt::ImportFrom(i) => {
                    let from = self.resolve_relative(
                        module,
                        i.level,
                        i.module.as_ref().map_or("", |m| m.as_str()),
                    );
                    for a in &i.names {
                        if a.name.as_str() == "*" {
                            stars.push(from.clone());
                        } else {
                            let bound = a.asname.as_ref().unwrap_or(&a.name).to_string();
                            bindings.insert(bound, Binding::From(from.clone(), a.name.to_string()));
                        }
                    }
                }
                Stmt::FunctionDef(f) => {
                    bindings.insert(f.name.to_string(), Binding::Func);
                }
                Stmt::ClassDef(c) if top => {
                    let id = self.add_class(module, c);
                    bindings.insert(c.name.to_string(), Binding::Class(id));
                }
                Stmt::Assign(a) => {
                    for t in &a.targets {
                        match t {
                            Expr::Name(n) => assign(bindings, n.id.as_str(), &a.value),
                            Expr::Attribute(at) if top => {
                                if let Some(v) = attrs.as_deref_mut() {
                                    v.push((&at.value, at.attr.to_string(), &a.value));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                Stmt::AnnAssign(a) => {
                    if let (Expr::Name(n), Some(v)) = (&*a.target, &a.value) {
                        if !bindings.contains_key(n.id.as_str()) {
                            bindings.insert(n.id.to_string(), Binding::Assigned(v, 1));
                        }
                    }
                }
                Stmt::If(i) => {
                    self.collect(module, &i.body, bindings, stars, attrs.as_deref_mut());
                    for c in &i.elif_else_clauses {
                        self.collect(module, &c.body, bindings, stars, attrs.as_deref_mut());
                    }
                }
                Stmt::Try(t) => {
                    self.collect(module, &t.body, bindings, stars, attrs.as_deref_mut());
                    for h in &t.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = h;
                        self.collect(module, &h.body, bindings, stars, attrs.as_deref_mut());
                    }
                    self.collect(module, &t.orelse, bindings, stars, attrs.as_deref_mut());
                    self.collect(module, &t.finalbody, bindings, stars, attrs.as_deref_mut());
                }
                Stmt::With(w) => {
                    self.collect(module, &w.body, bindings, stars, attrs.as_deref_mut())
                }
                Stmt::For(f) if !top => self.collect(module, &f.body, bindings, stars, None),
                Stmt::While(w) if !top => self.collect(module, &w.body, bindings, stars, None),
                _ => {}
            }
        }
    }

    fn add_class(&mut self, module: ModId, c: &'a ast::StmtClassDef) -> ClassId {
        let methods = c
            .body
            .iter()
            .filter_map(|s| match s {
                Stmt::FunctionDef(f) => Some((f.name.to_string(), f)),
                _ => None,
            })
            .collect();
        self.classes.push(ClassInfo {
            module,
            node: c,
            qual: c.name.to_string(),
            type_key: None,
            handle_key: None,
            methods,
        });
        self.classes.len() - 1
    }

    fn module_value(&self, name: &str) -> Value {
        match self.by_name.get(name) {
            Some(&id) => Value::Module(id),
            None => Value::External(name.to_string()),
        }
    }

    /// `module.attr`, for a module given by name (inside the package or not).
    pub fn module_attr(&self, module: &str, attr: &str, depth: u32) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        let sub = format!("{module}.{attr}");
        let Some(&id) = self.by_name.get(module) else {
            return Some(self.module_value(&sub));
        };
        let m = &self.modules[id];
        if let Some(prefix) = &m.ffi_prefix {
            let name = format!("{prefix}.{attr}");
            if self.reg.functions.contains_key(&name) {
                return Some(Value::FfiFunc(name));
            }
        }
        if let Some(b) = m.bindings.get(attr) {
            return self.binding_value(id, b, depth + 1);
        }
        for s in &m.stars {
            if let Some(v) = self.module_attr(s, attr, depth + 1) {
                // A star import from a package module that does not have it is no answer.
                if !(matches!(v, Value::External(_)) && self.by_name.contains_key(s)) {
                    return Some(v);
                }
            }
        }
        self.by_name.get(&sub).map(|&s| Value::Module(s))
    }

    /// The value a binding gives its name.
    pub fn binding_value(&self, module: ModId, b: &Binding<'a>, depth: u32) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        match b {
            Binding::Module(name) => Some(self.module_value(name)),
            Binding::From(from, name) => {
                let sub = format!("{from}.{name}");
                if let Some(&id) = self.by_name.get(&sub) {
                    return Some(Value::Module(id));
                }
                if self.by_name.contains_key(from) {
                    return self.module_attr(from, name, depth + 1);
                }
                Some(Value::External(sub))
            }
            Binding::Func => Some(Value::PyFunc),
            Binding::Class(c) => Some(Value::Class(*c)),
            Binding::Assigned(e, 1) => self.eval(e, &ModScope(module), depth + 1),
            Binding::Assigned(..) => None,
        }
    }

    /// `value.attr`.
    pub fn attr(&self, v: Option<Value>, attr: &str, depth: u32) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        match v? {
            Value::Module(id) => {
                if let Some((from, e)) = self.overrides.get(&id).and_then(|o| o.get(attr)) {
                    return self.eval(e, &ModScope(*from), depth + 1);
                }
                self.module_attr(&self.modules[id].src.name, attr, depth + 1)
            }
            Value::External(name) => Some(Value::External(format!("{name}.{attr}"))),
            Value::Class(c) => {
                let ci = &self.classes[c];
                if ci.methods.contains_key(attr) {
                    return Some(Value::PyFunc);
                }
                let key = ci.type_key.as_deref()?;
                let (owner, _) = self.reg.method(key, attr)?;
                Some(Value::FfiMethod(owner.to_string(), attr.to_string(), false))
            }
            Value::Handle(key) => {
                let (owner, _) = self.reg.method(&key, attr)?;
                Some(Value::FfiMethod(owner.to_string(), attr.to_string(), true))
            }
            Value::Instance(c) => {
                let ci = &self.classes[c];
                if attr == "_handle" {
                    return ci.handle_key.clone().map(Value::Handle);
                }
                None
            }
            Value::FfiFunc(_) | Value::FfiMethod(..) | Value::PyFunc => None,
        }
    }

    /// The abstract value of `e` in `scope`.
    pub fn eval(&self, e: &Expr, scope: &dyn Scope<'a>, depth: u32) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        match e {
            Expr::Name(n) => scope.lookup(self, n.id.as_str(), depth + 1),
            Expr::Attribute(a) => {
                let base = self.eval(&a.value, scope, depth + 1);
                self.attr(base, a.attr.as_str(), depth + 1)
            }
            Expr::Call(c) => match self.eval(&c.func, scope, depth + 1)? {
                Value::External(f) if external_role(&f) == Some(External::GetGlobalFunc) => {
                    let name = string_literal(c.arguments.args.first()?)?;
                    self.reg
                        .functions
                        .contains_key(name)
                        .then(|| Value::FfiFunc(name.to_string()))
                }
                Value::Class(id) => Some(match &self.classes[id].type_key {
                    Some(key) => Value::Handle(key.clone()),
                    None => Value::Instance(id),
                }),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether `e` names an external function with this role.
    pub fn is_external(&self, e: &Expr, scope: &dyn Scope<'a>, role: External) -> bool {
        matches!(self.eval(e, scope, 0), Some(Value::External(n)) if external_role(&n) == Some(role))
    }

    fn find_ffi_namespaces(&mut self) {
        let mut found: Vec<(ModId, String)> = Vec::new();
        for (id, m) in self.modules.iter().enumerate() {
            for call in calls(&m.src.ast.body) {
                if !self.is_external(&call.func, &ModScope(id), External::InitFfiApi) {
                    continue;
                }
                let args = &call.arguments.args;
                let Some(ns) = args.first().and_then(string_literal) else {
                    continue;
                };
                let target = match args.get(1) {
                    Some(Expr::Name(n)) if n.id.as_str() == "__name__" => m.src.name.clone(),
                    Some(e) => match string_literal(e) {
                        Some(s) => s.to_string(),
                        None => continue,
                    },
                    None => ns.to_string(),
                };
                let prefix = ns.strip_prefix("tvm.").unwrap_or(ns).to_string();
                if let Some(&t) = self.by_name.get(&target) {
                    found.push((t, prefix));
                }
            }
        }
        for (t, prefix) in found {
            self.modules[t].ffi_prefix = Some(prefix);
        }
    }

    fn compute_overrides(&self) -> HashMap<ModId, HashMap<String, (ModId, &'a Expr)>> {
        let mut out: HashMap<ModId, HashMap<String, (ModId, &'a Expr)>> = HashMap::new();
        for (id, m) in self.modules.iter().enumerate() {
            for (target, attr, value) in &m.assigned_attrs {
                if let Some(Value::Module(t)) = self.eval(target, &ModScope(id), 10) {
                    out.entry(t).or_default().insert(attr.clone(), (id, value));
                }
            }
        }
        out
    }

    fn find_registered_classes(&mut self) {
        let mut keys: Vec<(ClassId, String)> = Vec::new();
        for (id, c) in self.classes.iter().enumerate() {
            for d in &c.node.decorator_list {
                let (func, args) = match &d.expression {
                    Expr::Call(call) => (&*call.func, Some(&call.arguments.args)),
                    e => (e, None),
                };
                if self.is_external(func, &ModScope(c.module), External::RegisterObject) {
                    let key = args
                        .and_then(|a| a.first())
                        .and_then(string_literal)
                        .map_or_else(|| c.qual.clone(), str::to_string);
                    keys.push((id, key));
                }
            }
        }
        for (id, key) in keys {
            self.classes[id].type_key = Some(key);
        }
        // Wrapper classes: `self._init_handle(<a registered constructor call>)`, else a
        // registered type with the class's name when the class uses `_handle`.
        let mut by_short: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for k in self.reg.types.keys() {
            by_short
                .entry(k.rsplit('.').next().unwrap_or(k))
                .or_default()
                .push(k);
        }
        let mut handles: Vec<(ClassId, String)> = Vec::new();
        for (id, c) in self.classes.iter().enumerate() {
            if c.type_key.is_some() {
                continue;
            }
            let mut key = None;
            let mut uses_handle = false;
            for call in calls(&c.node.body) {
                if let Expr::Attribute(a) = &*call.func {
                    if a.attr.as_str() == "_init_handle" {
                        if let Some(Value::Handle(k)) = call
                            .arguments
                            .args
                            .first()
                            .and_then(|e| self.eval(e, &ModScope(c.module), 0))
                        {
                            key = Some(k);
                        }
                    }
                }
            }
            if key.is_none() {
                struct Uses(bool);
                impl<'b> Visitor<'b> for Uses {
                    fn visit_expr(&mut self, e: &'b Expr) {
                        if let Expr::Attribute(a) = e {
                            self.0 |= a.attr.as_str() == "_handle";
                        }
                        visitor::walk_expr(self, e);
                    }
                }
                let mut u = Uses(false);
                u.visit_body(&c.node.body);
                uses_handle = u.0;
            }
            if key.is_none() && uses_handle {
                if let Some([only]) = by_short.get(c.qual.as_str()).map(Vec::as_slice) {
                    key = Some(only.to_string());
                }
            }
            if let Some(k) = key {
                handles.push((id, k));
            }
        }
        for (id, k) in handles {
            self.classes[id].handle_key = Some(k);
        }
    }
}

/// Records an assignment to a name: a second assignment makes it unknown, but an import or a
/// definition stays (`else: _core = None` fallbacks).
fn assign<'a>(bindings: &mut HashMap<String, Binding<'a>>, name: &str, value: &'a Expr) {
    match bindings.get_mut(name) {
        Some(Binding::Assigned(_, n)) => *n += 1,
        Some(_) => {}
        None => {
            bindings.insert(name.to_string(), Binding::Assigned(value, 1));
        }
    }
}
