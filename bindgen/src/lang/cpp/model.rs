//! C++ view models: names from `names.rs`, C++ types and literals. The load-time manifest is
//! the IR's (`ir::manifest`), split into literals here.

use super::names;
pub use super::signature::Options;
use super::signature::Passing;
use crate::diagnostics::Diagnostics;
use crate::ir::{self, Type};
use crate::lang::naming::{InNamespace, Scope, Spelling};
use crate::lang::params::Layout;
use crate::lang::{comment_line, doc_lines};
use askama::Template;
use std::collections::BTreeMap;

/// What every header of a library shares: the models of its items, which each header prints
/// a part of.
pub struct Library {
    /// Banner (one `//` comment line).
    pub banner: String,
    /// The support header to include.
    pub support_header: &'static str,
    /// The namespace.
    pub namespace: String,
    /// The main header's file name, as a C++ string literal.
    pub file_name: String,
    /// Metadata checksum, as a C++ string literal.
    pub checksum: String,
    /// Library file names (comma-separated), as a C++ string literal.
    pub libraries: String,
    /// The command that regenerates the headers, as a C++ string literal.
    pub regenerate: String,
    /// The manifest checked at load time: C++ string literals, one per line (a line longer
    /// than a literal may be comes in several).
    pub manifest: Vec<String>,
    /// Classes, parents first.
    pub classes: Vec<Class>,
    /// Global functions.
    pub functions: Vec<Function>,
}

/// One generated header (`Header.hpp`): the library's description and class definitions when
/// it declares them, then the out-of-line members of some classes and some functions.
#[derive(Template)]
#[template(path = "cpp/Header.hpp", escape = "none")]
pub struct Header<'a> {
    /// The library.
    pub lib: &'a Library,
    /// A comment line on what the header holds (empty for none).
    pub about: String,
    /// The `#include` operands (`<ffihub/ffihub.hpp>`, `"../detail.hpp"`).
    pub includes: Vec<String>,
    /// Holds the library description and the definition of every class.
    pub declares: bool,
    /// Every class by namespace (indices into `Library::classes`), for `declares`.
    pub declared: Vec<InNamespace<usize>>,
    /// The classes whose members this header defines.
    pub defined: Vec<InNamespace<usize>>,
    /// The functions this header defines (indices into `Library::functions`).
    pub functions: Vec<InNamespace<usize>>,
}

/// A parameter.
pub struct Param {
    /// Identifier.
    pub ident: String,
    /// Declaration (`int64_t a`, `const std::string& s`).
    pub decl: String,
    /// Default argument of the declaration (` = true`, ` = std::nullopt`, ` = {}`), or empty.
    pub default: String,
}

/// A global function.
pub struct Function {
    /// Identifier.
    pub ident: String,
    /// Registered name, as a C++ string literal.
    pub ffi_name: String,
    /// The lookup object's type and constructor arguments after the library reference: the
    /// global (`GlobalFunction`, name) or the module export (`ModuleFunction`, library, name,
    /// signature).
    pub lookup: (&'static str, String),
    /// Doc comment lines.
    pub doc: Vec<String>,
    /// Parameters (their defaults are given in the definition, which is the declaration).
    pub params: Vec<Param>,
    /// The call's arguments, in the library's order.
    pub args: String,
    /// The options struct of its keyword-only parameters, defined before it.
    pub options: Option<Options>,
    /// Packed (a variadic template returning `ffihub::Any`).
    pub packed: bool,
    /// C++ return type.
    pub ret: String,
}

/// A field accessor.
pub struct Field {
    /// Getter name.
    pub ident: String,
    /// Setter name, for writable fields.
    pub setter: Option<String>,
    /// Registered name, as a C++ string literal.
    pub ffi_name: String,
    /// C++ value type (getter result).
    pub ty: String,
    /// C++ parameter type (setter argument).
    pub param_ty: String,
    /// Doc comment lines.
    pub doc: Vec<String>,
}

/// A method.
pub struct Method {
    /// Identifier.
    pub ident: String,
    /// Registered name, as a C++ string literal.
    pub ffi_name: String,
    /// Static.
    pub is_static: bool,
    /// Doc comment lines.
    pub doc: Vec<String>,
    /// Parameters (declared without defaults; the out-of-line definition has them).
    pub params: Vec<Param>,
    /// The call's arguments after the receiver, in the library's order.
    pub args: String,
    /// The options struct of its keyword-only parameters (a nested struct, defined after all
    /// classes).
    pub options: Option<Options>,
    /// Packed.
    pub packed: bool,
    /// C++ return type.
    pub ret: String,
    /// For a global the Python API makes a method or property: its registered name, as a C++
    /// string literal (it is called with `*this` first).
    pub global: Option<String>,
}

/// A constructor that is a global function (the Python API's `__init__` calls it).
pub struct MemberConstructor {
    /// The global is packed: a variadic template constructor, constrained so that it never
    /// takes the place of the copy and move constructors nor of the other constructors
    /// (`ffihub::detail::enable_packed_constructor`); `params` and `args` are empty.
    pub packed: bool,
    /// For a packed one: the argument counts the class's other constructors take, which it
    /// leaves to them (the arguments of `ffihub::detail::TakenCounts`).
    pub taken_counts: String,
    /// Parameters (defaults on the definition, as for methods).
    pub params: Vec<Param>,
    /// The call's arguments, in the library's order.
    pub args: String,
    /// The global's registered name, as a C++ string literal.
    pub global: String,
    /// Doc comment lines.
    pub doc: Vec<String>,
    /// Every parameter has a default: a separate default constructor passes the first one's
    /// (as for the type's own constructor).
    pub default_ctor: Option<String>,
    /// The options struct of its keyword-only parameters (nested, named after the global).
    pub options: Option<Options>,
}

/// How a constructor argument is passed.
pub struct CtorArg {
    /// The expression passed.
    pub expr: String,
    /// The parameter's registered name, as a C++ string literal.
    pub name: String,
    /// Passed by keyword (`ffi.GetKwargsObject` protocol) rather than by position.
    pub keyword: bool,
    /// Passed only when set (a `std::optional` defaulting to `std::nullopt`).
    pub optional: bool,
}

/// A constructor.
pub struct Constructor {
    /// Parameters in C++ order: required ones, then ones with defaults, then the options.
    pub params: Vec<Param>,
    /// Doc comment lines.
    pub doc: Vec<String>,
    /// Arguments in call order.
    pub args: Vec<CtorArg>,
    /// The arguments are assembled at run time (`ffihub::detail::Kwargs`): some go by keyword
    /// or may be left out. Otherwise they are passed as a plain positional call.
    pub assembled: bool,
    /// Every parameter has a default: a separate default constructor passes the first one's
    /// (a definition may not add defaults that make a default constructor).
    pub default_ctor: Option<String>,
    /// The options struct of its keyword-only parameters (nested `Options`).
    pub options: Option<Options>,
}

/// A class.
pub struct Class {
    /// Class name.
    pub ident: String,
    /// Qualified name (`tvm::ir::IntImm`), for definitions at global scope.
    pub qualified: String,
    /// Base class.
    pub base: String,
    /// Type key, as a C++ string literal.
    pub key: String,
    /// Doc comment lines.
    pub doc: Vec<String>,
    /// Own fields.
    pub fields: Vec<Field>,
    /// Own methods.
    pub methods: Vec<Method>,
    /// The constructor, if the type has one.
    pub constructor: Option<Constructor>,
    /// Constructors from globals, as overloads.
    pub member_constructors: Vec<MemberConstructor>,
    /// Some member is defined out of line, after every class (so that member signatures may
    /// use classes declared later).
    pub has_definitions: bool,
}

/// A C++ string literal. Control characters become three-digit octal escapes, which (unlike
/// `\x`) cannot swallow a following character.
pub fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c if c.is_ascii_control() => out.push_str(&format!("\\{:03o}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The most characters of one piece of `literal_pieces`, well under the 65,536 characters a
/// string literal may hold in every conforming compiler (`-pedantic` checks it).
const MAX_PIECE: usize = 16 * 1024;

/// `s` as C++ string literals of at most `MAX_PIECE` characters each, which joined give `s`
/// (one piece unless `s` is longer, none if it is empty).
pub fn literal_pieces(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars
        .chunks(MAX_PIECE)
        .map(|piece| literal(&piece.iter().collect::<String>()))
        .collect()
}

/// Text for a line of a `/** */` comment: neither `*/` (which would end it), `/*` (which
/// `-Wcomment` rejects) nor a line break survives.
pub fn comment_text(line: &str) -> String {
    comment_line(line).replace("*/", "* /").replace("/*", "/ *")
}

fn doc(text: &str) -> Vec<String> {
    doc_lines(text).iter().map(|l| comment_text(l)).collect()
}

/// Doc lines, the `@param` lines, and a last line naming the registered item, separated by
/// blank lines.
fn doc_with_params(text: &str, params: &[String], last: String) -> Vec<String> {
    let mut lines = doc(text);
    for part in [params.to_vec(), vec![comment_text(&last)]] {
        if !lines.is_empty() && !part.is_empty() {
            lines.push(String::new());
        }
        lines.extend(part);
    }
    lines
}

/// The arguments of a plain call, joined.
fn join_exprs(args: &[super::signature::Arg]) -> String {
    args.iter()
        .map(|a| a.expr.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn signature_text(sig: Option<&ir::Signature>) -> String {
    sig.map_or_else(|| "packed".to_string(), ToString::to_string)
}

/// When every parameter has a default, takes the first one's off and returns what a separate
/// default constructor passes for it: a definition may not add defaults that turn a
/// constructor into a default constructor. An options struct is spelled with its type (`{}`
/// alone could also be the copy constructor's argument).
fn split_default_constructor(params: &mut [Param], options: Option<&Options>) -> Option<String> {
    if params.is_empty() || params.iter().any(|p| p.default.is_empty()) {
        return None;
    }
    let first = std::mem::take(&mut params[0].default);
    Some(match options {
        Some(o) if params[0].ident == names::OPTIONS_PARAM => format!("{}{{}}", o.ident),
        _ => first.trim_start_matches(" = ").to_string(),
    })
}

/// Maps local type keys to class names, and types to C++.
pub struct Types(pub BTreeMap<String, String>);

impl Types {
    /// The C++ value type of `ty` (results, getters, container elements).
    pub fn cpp(&self, ty: &Type) -> String {
        match ty {
            Type::None => "void".into(),
            other => self.nested(other),
        }
    }

    /// The C++ type of `ty` inside another type (`None` is `std::nullptr_t` there).
    fn nested(&self, ty: &Type) -> String {
        let list = |ts: &[Type]| {
            ts.iter()
                .map(|t| self.nested(t))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match ty {
            Type::None => "std::nullptr_t".into(),
            Type::Any => "ffihub::Any".into(),
            Type::Bool => "bool".into(),
            Type::Int => "int64_t".into(),
            Type::BigInt => "ffihub::BigInt".into(),
            Type::Float => "double".into(),
            Type::OpaquePtr => "void*".into(),
            Type::DataType => "DLDataType".into(),
            Type::Device => "DLDevice".into(),
            Type::String => "std::string".into(),
            Type::Bytes => "ffihub::Bytes".into(),
            Type::Tensor => "ffihub::Tensor".into(),
            Type::Shape => "ffihub::Shape".into(),
            Type::Object => "ffihub::ObjectRef".into(),
            Type::Module => "ffihub::Module".into(),
            Type::Error => "ffihub::Error".into(),
            Type::Array(t) => format!("ffihub::Array<{}>", self.nested(t)),
            Type::List(t) => format!("ffihub::List<{}>", self.nested(t)),
            Type::Map(k, v) => format!("ffihub::Map<{}, {}>", self.nested(k), self.nested(v)),
            Type::Dict(k, v) => format!("ffihub::Dict<{}, {}>", self.nested(k), self.nested(v)),
            Type::Optional(t) => format!("std::optional<{}>", self.nested(t)),
            Type::Variant(ts) => format!("std::variant<{}>", list(ts)),
            Type::Tuple(ts) => format!("std::tuple<{}>", list(ts)),
            Type::Function(None) => "ffihub::Function".into(),
            Type::Function(Some(sig)) => {
                let params: Vec<Type> = sig.params.iter().map(|p| p.ty.clone()).collect();
                format!(
                    "ffihub::TypedFunction<{}({})>",
                    self.cpp(&sig.ret),
                    list(&params)
                )
            }
            Type::Class(key) => self
                .0
                .get(key)
                .cloned()
                .unwrap_or_else(|| "ffihub::ObjectRef".into()),
        }
    }

    /// The C++ parameter type of `ty`: scalars by value, everything else by const reference.
    pub fn param(&self, ty: &Type) -> String {
        match ty {
            Type::Bool
            | Type::Int
            | Type::Float
            | Type::OpaquePtr
            | Type::DataType
            | Type::Device
            | Type::None => self.nested(ty),
            other => format!("const {}&", self.nested(other)),
        }
    }

    /// The layout of a signature's parameters with C++ identifiers (`args`, `Args` and
    /// `options` are the generated code's).
    fn layout<'a>(params: &'a [ir::Param], item: &str) -> Layout<'a> {
        Layout::new(
            params,
            &["args", "Args", names::OPTIONS_PARAM],
            names::Cpp::value,
            item,
        )
    }

    /// The model of a global function.
    pub fn function(&self, f: &ir::Function, ident: String) -> Function {
        let options_ident = names::options_struct(&ident);
        let (rendered, ret) = match &f.signature {
            Some(sig) => (
                Some(self.signature(
                    &Self::layout(&sig.params, &f.name),
                    false,
                    (&options_ident, &ident),
                )),
                self.cpp(&sig.ret),
            ),
            None => (None, "ffihub::Any".into()),
        };
        let what = match &f.module {
            Some(library) => format!("Module export `{}` of `{library}`", f.name),
            None => format!("`{}`", f.name),
        };
        let last = match &f.signature {
            Some(sig) => format!("{what}: {sig}"),
            None => format!("{what}: packed (any arguments; returns Any)"),
        };
        let ffi_name = literal(&f.name);
        let lookup = match &f.module {
            Some(library) => (
                "ModuleFunction",
                format!(
                    "{}, {ffi_name}, {}",
                    literal(library),
                    literal(&signature_text(f.signature.as_ref()))
                ),
            ),
            None => ("GlobalFunction", ffi_name.clone()),
        };
        let (params, args, options, param_doc) = match rendered {
            Some(r) => (r.params, join_exprs(&r.args), r.options, r.doc),
            None => Default::default(),
        };
        Function {
            lookup,
            ffi_name,
            doc: doc_with_params(&f.doc, &param_doc, last),
            packed: f.signature.is_none(),
            params,
            args,
            options,
            ret,
            ident,
        }
    }

    fn constructor(&self, t: &ir::ObjectType, c: &ir::Constructor) -> Constructor {
        let item = format!("{}.__ffi_init__", t.key);
        let layout = Self::layout(&c.params, &item);
        let r = self.signature(
            &layout,
            true,
            (
                names::CONSTRUCTOR_OPTIONS,
                &format!("{}.__ffi_init__", t.key),
            ),
        );
        // The generated `__ffi_init__` (auto_init) gets every argument by keyword, so the order
        // of the C++ parameters does not matter; a typed one gets them by position, leaving
        // out trailing unset optional ones.
        let keywords = c.kind == ir::ConstructorKind::AutoInit && !c.params.is_empty();
        let assembled = keywords || r.assembled();
        let mut doc_lines = if c.doc.is_empty() {
            vec![format!("Constructs a `{}`.", t.key)]
        } else {
            doc_lines(&c.doc)
        };
        if !r.doc.is_empty() {
            doc_lines.push(String::new());
            doc_lines.extend(r.doc.iter().cloned());
        }
        doc_lines.push(String::new());
        doc_lines.push(format!("`{}.__ffi_init__`", t.key));
        // Defaults are given on the out-of-line definition (a default `std::nullopt` needs the
        // complete class, which may be declared later). A definition may not add defaults that
        // turn a constructor into a default constructor: then a separate one is declared.
        let mut params = r.params;
        let default_ctor = split_default_constructor(&mut params, r.options.as_ref());
        let args = r
            .args
            .into_iter()
            .map(|a| CtorArg {
                expr: a.expr,
                name: a.name,
                keyword: keywords,
                optional: a.passing == Passing::WhenSet,
            })
            .collect();
        Constructor {
            params,
            doc: doc_lines.iter().map(|l| comment_text(l)).collect(),
            args,
            assembled,
            default_ctor,
            options: r.options,
        }
    }

    /// The model of a class.
    pub fn class(
        &self,
        lib: &ir::Library,
        t: &ir::ObjectType,
        ident: String,
        diags: &mut Diagnostics,
    ) -> Class {
        let class_ident = ident.clone();
        // Without the leading `::`: after a return type `T ::a::B` would read as `T::a::B`.
        let qualified = self
            .0
            .get(&t.key)
            .map(|q| q.trim_start_matches("::").to_string())
            .unwrap_or_default();
        let mut members = Scope::with_reserved(&[
            ident.as_str(),
            "get",
            "type_key",
            "as",
            "downcast",
            "defined",
            "same_as",
            "type_index",
            "runtime_type_key",
            "use_count",
            "swap",
        ]);
        for f in &t.inherited_fields {
            let getter = names::Cpp::value(&f.name);
            members.claim(
                &getter,
                &format!("{}.{}", f.owner, f.name),
                super::LANG,
                diags,
            );
            if f.writable {
                members.claim(
                    &names::setter(&getter),
                    &format!("{}.{}", f.owner, f.name),
                    super::LANG,
                    diags,
                );
            }
        }
        let fields: Vec<Field> = t
            .fields
            .iter()
            .map(|f| {
                let item = format!("{}.{}", t.key, f.name);
                let ident = names::Cpp::value(&f.name);
                names::Cpp::claim(&mut members, &ident, &item, diags);
                let setter = f.writable.then(|| names::setter(&ident));
                if let Some(s) = &setter {
                    names::Cpp::claim(&mut members, s, &item, diags);
                }
                Field {
                    ident,
                    setter,
                    ffi_name: literal(&f.name),
                    ty: self.cpp(&f.value_type()),
                    param_ty: self.param(&f.value_type()),
                    doc: doc(&f.doc),
                }
            })
            .collect();
        let mut seen = std::collections::BTreeSet::new();
        let mut methods: Vec<Method> = t
            .methods
            .iter()
            .filter(|m| seen.insert(m.name.clone()))
            .map(|m| {
                let item = format!("{}.{}", t.key, m.name);
                let ident = names::Cpp::value(&m.name);
                names::Cpp::claim(&mut members, &ident, &item, diags);
                let options_ident = names::options_struct(&ident);
                let (rendered, ret) = match &m.signature {
                    Some(sig) => (
                        Some(self.signature(
                            &Self::layout(&sig.params, &item),
                            false,
                            (&options_ident, &format!("{}::{ident}", class_ident)),
                        )),
                        self.cpp(&sig.ret),
                    ),
                    None => (None, "ffihub::Any".into()),
                };
                if rendered.as_ref().is_some_and(|r| r.options.is_some()) {
                    names::Cpp::claim(&mut members, &options_ident, &item, diags);
                }
                let kind = if m.is_static {
                    "static method"
                } else {
                    "method"
                };
                let last = match &m.signature {
                    Some(sig) => format!("{kind} `{}`: {sig}", m.name),
                    None => format!("{kind} `{}`: packed (any arguments; returns Any)", m.name),
                };
                let (params, args, options, param_doc) = match rendered {
                    Some(r) => (r.params, join_exprs(&r.args), r.options, r.doc),
                    None => Default::default(),
                };
                Method {
                    ident,
                    ffi_name: literal(&m.name),
                    is_static: m.is_static,
                    doc: doc_with_params(m.api_doc(), &param_doc, last),
                    packed: m.signature.is_none(),
                    params,
                    args,
                    options,
                    ret,
                    global: None,
                }
            })
            .collect();
        let mut constructor = t.constructor.as_ref().map(|c| self.constructor(t, c));
        let mut member_constructors: Vec<MemberConstructor> = Vec::new();
        // The parameter types of each constructor: an overload with the same ones would be a
        // redefinition.
        let types_of = |params: &[Param]| -> Vec<String> {
            params
                .iter()
                .map(|p| {
                    p.decl
                        .rsplit_once(' ')
                        .map_or(p.decl.clone(), |(t, _)| t.to_string())
                })
                .collect()
        };
        let mut overloads: Vec<Vec<String>> =
            constructor.iter().map(|c| types_of(&c.params)).collect();
        // A packed constructor is rendered last: it leaves the argument counts of the others
        // to them.
        let mut packed_constructor = None;
        for m in crate::lang::naming::members(lib, t) {
            let Some(sig) = &m.signature else {
                if m.kind == ffihub_schema::RoleKind::Constructor {
                    packed_constructor.get_or_insert(m);
                }
                continue;
            };
            let constructs = m.kind == ffihub_schema::RoleKind::Constructor;
            let ident = if constructs {
                class_ident.clone()
            } else {
                names::Cpp::value(&m.name)
            };
            // A constructor's options struct is named after its global (a class may have
            // several), a method's after the method.
            let options_ident = names::options_struct(if constructs {
                m.function.rsplit('.').next().unwrap_or(&m.function)
            } else {
                &ident
            });
            let owner = if constructs {
                m.function.clone()
            } else {
                format!("{class_ident}::{ident}")
            };
            let r = self.signature(
                &Self::layout(&sig.params, &m.function),
                false,
                (&options_ident, &owner),
            );
            let last = format!("global `{}`: {sig}", m.function);
            let doc = doc_with_params(&crate::lang::naming::member_doc(m), &r.doc, last);
            if constructs {
                let mut params = r.params;
                let types = types_of(&params);
                if overloads.contains(&types) {
                    // The constructor with these parameter types stays (the type's own, in
                    // every statically dispatched language); its doc names the global.
                    if let Some(c) = constructor
                        .as_mut()
                        .filter(|c| types_of(&c.params) == types)
                    {
                        c.doc.push(comment_text(""));
                        c.doc.push(comment_text(&format!(
                            "The Python API constructs it through the global `{}`, which \
                             takes the same parameter types (bound as a function too).",
                            m.function
                        )));
                    }
                    continue;
                }
                // A harvested member whose name is taken is left out (it stays a global).
                if r.options.is_some() {
                    if members.is_taken(&options_ident) {
                        continue;
                    }
                    names::Cpp::claim(&mut members, &options_ident, &m.function, diags);
                }
                overloads.push(types);
                // The separate default constructor only where no other takes no arguments (the
                // first default is taken off either way: all defaulted, it would be one).
                let default_ctor = split_default_constructor(&mut params, r.options.as_ref())
                    .filter(|_| overloads.iter().all(|o| !o.is_empty()));
                if default_ctor.is_some() {
                    overloads.push(Vec::new());
                }
                member_constructors.push(MemberConstructor {
                    packed: false,
                    taken_counts: String::new(),
                    args: join_exprs(&r.args),
                    params,
                    global: literal(&m.function),
                    doc,
                    default_ctor,
                    options: r.options,
                });
                continue;
            }
            if members.is_taken(&ident) || r.options.is_some() && members.is_taken(&options_ident) {
                continue;
            }
            names::Cpp::claim(&mut members, &ident, &m.function, diags);
            if r.options.is_some() {
                names::Cpp::claim(&mut members, &options_ident, &m.function, diags);
            }
            methods.push(Method {
                ident,
                ffi_name: literal(&m.function),
                is_static: false,
                doc,
                packed: false,
                args: join_exprs(&r.args),
                params: r.params,
                options: r.options,
                ret: self.cpp(&sig.ret),
                global: Some(literal(&m.function)),
            });
        }
        if constructor.as_ref().is_some_and(|c| c.options.is_some()) {
            names::Cpp::claim(
                &mut members,
                names::CONSTRUCTOR_OPTIONS,
                &format!("{}.__ffi_init__", t.key),
                diags,
            );
        }
        // The Python API constructs through the globals: the type's own constructor then takes
        // every argument, so a call that leaves some out is never ambiguous.
        let has_members = !member_constructors.is_empty() || packed_constructor.is_some();
        if let Some(c) = constructor.as_mut().filter(|_| has_members) {
            for p in &mut c.params {
                p.default.clear();
            }
            c.default_ctor = None;
        }
        if let Some(m) = packed_constructor {
            let typed = constructor
                .iter()
                .map(|c| &c.params)
                .chain(member_constructors.iter().map(|c| &c.params));
            let mut taken: Vec<usize> = typed
                .flat_map(|params| {
                    params.iter().filter(|p| p.default.is_empty()).count()..=params.len()
                })
                .collect();
            if member_constructors.iter().any(|c| c.default_ctor.is_some()) {
                taken.push(0);
            }
            taken.sort_unstable();
            taken.dedup();
            member_constructors.push(MemberConstructor {
                packed: true,
                taken_counts: taken
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                params: Vec::new(),
                args: String::new(),
                global: literal(&m.function),
                doc: doc_with_params(
                    &crate::lang::naming::member_doc(m),
                    &[],
                    format!("global `{}`: packed (any arguments)", m.function),
                ),
                default_ctor: None,
                options: None,
            });
        }
        let base = self
            .0
            .get(&t.parent)
            .cloned()
            .unwrap_or_else(|| "ffihub::ObjectRef".into());
        // Nested options structs are defined after every class, by qualified name.
        let nested = constructor
            .iter_mut()
            .filter_map(|c| c.options.as_mut())
            .chain(
                member_constructors
                    .iter_mut()
                    .filter_map(|c| c.options.as_mut()),
            )
            .chain(methods.iter_mut().filter_map(|m| m.options.as_mut()));
        for o in nested {
            o.definition = format!("{qualified}::{}", o.ident);
        }
        Class {
            has_definitions: constructor.is_some()
                || member_constructors.iter().any(|c| !c.packed)
                || !fields.is_empty()
                || methods.iter().any(|m| !m.packed),
            base,
            key: literal(&t.key),
            doc: doc_with_params(&t.doc, &[], format!("Type key `{}`.", t.key)),
            fields,
            methods,
            constructor,
            member_constructors,
            ident,
            qualified,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_becomes_pieces_that_join_to_it() {
        let line = format!("{}\"é\n", "f".repeat(2 * MAX_PIECE));
        let pieces = literal_pieces(&line);
        assert_eq!(pieces.len(), 3);
        assert_eq!(pieces[0], literal(&"f".repeat(MAX_PIECE)));
        assert_eq!(pieces[2], literal("\"é\n"));
        assert_eq!(literal_pieces("f x\n"), vec![literal("f x\n")]);
    }
}
