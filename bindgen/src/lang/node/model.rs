//! Node view models: names from `names.rs`; TypeScript types, JavaScript expressions and
//! literals. The load-time manifest is the IR's (`ir::manifest`); module exports keep a hash
//! of their line, checked where the module is loaded.

use super::{calls, names, signature};
use crate::diagnostics::Diagnostics;
use crate::ir::{self, Type};
use crate::lang::doc_lines;
use crate::lang::naming::{InNamespace, Scope, Spelling};
use crate::lang::params::{Layout, Offered};
use askama::Template;
use std::collections::BTreeMap;

/// `package.json`.
#[derive(Template)]
#[template(path = "node/package.json", escape = "none")]
pub struct PackageJson {
    /// Banner text, as a JSON string literal.
    pub banner: String,
    /// npm package name, as a JSON string literal.
    pub name: String,
    /// The package's version, as a JSON string literal.
    pub version: String,
    /// One line on what the package binds, as a JSON string literal.
    pub description: String,
    /// The package's license (SPDX), as a JSON string literal.
    pub license: String,
    /// The support package's name, as a JSON string literal.
    pub support: String,
    /// The versions of the support package it works with (a semver range), as a JSON string literal.
    pub support_range: String,
    /// The operating systems it installs on (npm's `os`), as JSON string literals.
    pub oses: Vec<String>,
    /// Its prebuilt packages (optional dependencies): name and version, as JSON string literals.
    pub prebuilt: Vec<(String, String)>,
}

/// `npm/<platform>/package.json`: the prebuilt package of one platform (`platform.rs`).
#[derive(Template)]
#[template(path = "node/platform-package.json", escape = "none")]
pub struct PlatformPackageJson {
    /// Banner text, as a JSON string literal.
    pub banner: String,
    /// npm package name, as a JSON string literal.
    pub name: String,
    /// The version (the main package's), as a JSON string literal.
    pub version: String,
    /// One line on what it holds, as a JSON string literal.
    pub description: String,
    /// The license (SPDX), as a JSON string literal.
    pub license: String,
    /// npm's `os`, `cpu` and (Linux) `libc`, as JSON string literals.
    pub os: String,
    /// See `os`.
    pub cpu: String,
    /// See `os`.
    pub libc: Option<String>,
}

/// `index.js` (CommonJS).
#[derive(Template)]
#[template(path = "node/index.js", escape = "none")]
pub struct IndexJs<'a> {
    /// The shared model.
    pub m: &'a Module,
}

/// `index.d.ts`.
#[derive(Template)]
#[template(path = "node/index.d.ts", escape = "none")]
pub struct IndexDts<'a> {
    /// The shared model.
    pub m: &'a Module,
}

/// What both `index.js` and `index.d.ts` print.
pub struct Module {
    /// Banner (one `//` comment line).
    pub banner: String,
    /// The support package, as a JS string literal.
    pub support: String,
    /// Metadata checksum, as a JS string literal.
    pub checksum: String,
    /// Library file names, as JS string literals.
    pub libraries: Vec<String>,
    /// The load-time check: the lines of the IR's manifest, as JS string literals.
    pub manifest: Vec<String>,
    /// The libraries loaded as modules, with the load-time check of their exports.
    pub modules: Vec<ModuleExports>,
    /// The namespace objects to create, parents first (`exports.relax`, `exports.relax.op`).
    pub namespaces: Vec<String>,
    /// Classes, parents first.
    pub classes: Vec<Class>,
    /// Global functions.
    pub functions: Vec<Function>,
    /// Classes by `.d.ts` namespace (`relax.op`, `` for the top).
    pub dts_classes: Vec<InNamespace<usize>>,
    /// Functions by `.d.ts` namespace.
    pub dts_functions: Vec<InNamespace<usize>>,
}

/// One export in the load-time check of a module.
pub struct ManifestEntry {
    /// The export's name, as a JS string literal.
    pub key: String,
    /// The hash of the item's line, as a JS string literal.
    pub hash: String,
}

/// A library loaded as a module: its file name (a JS string literal) and one manifest entry
/// per export (keyed by the export name).
pub struct ModuleExports {
    /// The library's file name, as a JS string literal.
    pub library: String,
    /// The exports' entries.
    pub exports: Vec<ManifestEntry>,
}

/// A parameter of a generated constructor.
pub struct Param {
    /// Identifier.
    pub ident: String,
    /// TypeScript declaration (`a: number`, `b?: string | null`).
    pub decl: String,
}

/// The parameters of a function or method, and its library call.
pub struct Call {
    /// JavaScript parameter identifiers (an options object last).
    pub js_params: String,
    /// TypeScript parameter declarations, joined.
    pub dts_params: String,
    /// A statement checking the options object, or empty.
    pub prologue: String,
    /// The library call's arguments, joined.
    pub args: String,
    /// JSDoc `@param` lines.
    pub jsdoc: Vec<String>,
    /// How it words its errors (`calls.rs`; empty for packed ones).
    pub errors: calls::Errors,
    /// What comes before and after the library call in the `return` statement
    /// (`__ffi.intResult(`, `, 'addOne')`; ` ?? null`).
    pub result: (String, String),
}

impl Call {
    /// The call of rendered parameters; `receiver` (`this`) is the first argument of an
    /// instance method's call.
    fn new(
        r: signature::Rendered,
        receiver: Option<&str>,
        errors: calls::Errors,
        result: (String, String),
    ) -> Call {
        let args: Vec<String> = receiver
            .map(str::to_string)
            .into_iter()
            .chain(r.args)
            .collect();
        Call {
            js_params: r.js_params.join(", "),
            dts_params: r.dts_params.join(", "),
            prologue: r.prologue,
            args: args.join(", "),
            jsdoc: r.jsdoc,
            errors,
            result,
        }
    }
}

/// A global function.
pub struct Function {
    /// Where `index.js` exports it (`exports.relax.op.add`).
    pub path: String,
    /// The `.d.ts` declaration keyword(s): `export declare ` at the top, `export ` in a namespace.
    pub decl: &'static str,
    /// Identifier.
    pub ident: String,
    /// The handle's constant name (`__ffiFn_<ident>`).
    pub handle: String,
    /// Registered name, as a JS string literal.
    pub ffi_name: String,
    /// The expression that looks the function up: the global, or the export of a module.
    pub lookup: String,
    /// What follows the lookup among `generatedFunction`'s arguments: `, <mask>` with a bit per
    /// parameter among the first four that may be a wrapped object (whose cell the call then
    /// passes through the addon's scratch, `withCells` in bindings/node/lib/object.js), else
    /// nothing.
    pub object_args: String,
    /// JSDoc lines.
    pub doc: Vec<String>,
    /// Parameters and call (packed functions take `...args`).
    pub call: Call,
    /// Packed.
    pub packed: bool,
    /// TypeScript return type.
    pub ret: String,
}

/// A field accessor.
pub struct Field {
    /// Property name.
    pub ident: String,
    /// Registered name, as a JS string literal.
    pub ffi_name: String,
    /// JSDoc lines.
    pub doc: Vec<String>,
    /// TypeScript type of the value read.
    pub ty: String,
    /// TypeScript type of the value written (writable fields).
    pub input_ty: String,
    /// The value passed to `setField` (`value`, or a coercion of it).
    pub set_arg: String,
    /// Has a setter.
    pub writable: bool,
    /// `Class.field`, as a JS string literal (errors of the setter).
    pub name: String,
    /// What the setter takes, in JavaScript's terms, as a JS string literal.
    pub expected: String,
    /// What comes before and after the read in the getter's `return` statement.
    pub result: (String, String),
}

/// A method (instance or static).
pub struct Method {
    /// Identifier.
    pub ident: String,
    /// Registered name, as a JS string literal.
    pub ffi_name: String,
    /// Static.
    pub is_static: bool,
    /// JSDoc lines.
    pub doc: Vec<String>,
    /// Parameters and call; the call's arguments start with `this` for instance methods.
    pub call: Call,
    /// Packed.
    pub packed: bool,
    /// TypeScript return type.
    pub ret: String,
    /// A getter (a property of the library's Python API).
    pub property: bool,
    /// For a global the Python API makes a method or property: the global's binding, which it
    /// calls with the receiver first (`exports.ir.baseFuncWithAttr`).
    pub global: Option<String>,
}

/// A constructor that is a global function (the Python API's `__init__` calls it).
pub struct MemberConstructor {
    /// Fewest and most arguments it takes (a call with a count in between is its).
    pub min: usize,
    /// See `min` (`Infinity` for a packed one).
    pub max: String,
    /// The global's binding (`exports.ir.var_`).
    pub global: String,
    /// TypeScript parameter declarations.
    pub dts_params: String,
    /// JSDoc lines.
    pub doc: Vec<String>,
}

/// A constructor.
pub struct Constructor {
    /// Positional parameters.
    pub positional: Vec<Param>,
    /// Keyword-only parameters, passed in one options object.
    pub keyword: Vec<Param>,
    /// The options object may be left out (no required keyword parameter).
    pub options_optional: bool,
    /// The coercions of the positional parameters, a JS array literal (`[null, __ffi.toDevice]`).
    pub coercions: String,
    /// The options object's keys mapped to field names, a JS object literal (`null` if none).
    pub keywords: String,
    /// For a typed `__ffi_init__` that takes every argument by position while callers give
    /// some by name or leave defaults out: the function making the library's arguments from
    /// the caller's (`__ffi.constructArranged`); `None` for the plain path.
    pub arrange: Option<Call>,
    /// JSDoc `@param` lines.
    pub jsdoc: Vec<String>,
    /// Its description for its errors, a JS literal (the `CallInfo` of `wrappers.js`).
    pub call_info: String,
}

/// A class.
pub struct Class {
    /// Where `index.js` exports it (`exports.ir.IntImm`).
    pub path: String,
    /// The base class in `index.js` (`__ffi.Object`, `exports.ir.PrimExpr`).
    pub js_base: String,
    /// The `.d.ts` declaration keyword(s): `export declare ` at the top, `export ` in a namespace.
    pub decl: &'static str,
    /// Class name.
    pub ident: String,
    /// The constant holding the type's methods (`__ffi<Class>`).
    pub binding: String,
    /// The base class expression (`__ffi.Object` or a local class).
    pub base: String,
    /// Type key, as a JS string literal.
    pub key: String,
    /// JSDoc lines.
    pub doc: Vec<String>,
    /// Own fields (inherited ones come from the base class).
    pub fields: Vec<Field>,
    /// Own methods.
    pub methods: Vec<Method>,
    /// Constructor, if any.
    pub constructor: Option<Constructor>,
    /// Constructors from globals, tried by argument count before `constructor`.
    pub member_constructors: Vec<MemberConstructor>,
}

/// A JS string literal (single quotes).
pub fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn jsdoc(doc: &str) -> Vec<String> {
    doc_lines(doc)
        .into_iter()
        .map(|l| l.replace("*/", "*\\/"))
        .collect()
}

/// 32-bit FNV-1a of `text`'s UTF-8 bytes, as 8 hex digits (the support package's `lineHash`).
pub fn line_hash(text: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    format!("{h:08x}")
}

fn callable(sig: Option<&ir::Signature>) -> String {
    sig.map_or_else(|| "packed".to_string(), ToString::to_string)
}

/// The module exports of a library and their load-time check; the line of an export is what
/// the support package's `loadModules` computes from the live metadata.
pub fn module_exports(lib: &ir::Library) -> Vec<ModuleExports> {
    lib.module_libraries()
        .into_iter()
        .map(|library| ModuleExports {
            library: literal(library),
            exports: lib
                .functions
                .iter()
                .filter(|f| f.module.as_deref() == Some(library))
                .map(|f| {
                    let line = format!("export {} {}", f.name, callable(f.signature.as_ref()));
                    ManifestEntry {
                        key: literal(&f.name),
                        hash: literal(&line_hash(&line)),
                    }
                })
                .collect(),
        })
        .collect()
}

/// The support package's coercion function for a parameter type (generated code applies it to
/// arguments, so that e.g. `"cuda:0"` reaches a `Device` parameter as a device).
pub fn coercion(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Tensor => Some("__ffi.toTensor"),
        Type::Shape => Some("__ffi.toShape"),
        Type::Device => Some("__ffi.toDevice"),
        Type::DataType => Some("__ffi.toDataType"),
        Type::List(_) => Some("__ffi.toList"),
        Type::Dict(_, _) => Some("__ffi.toDict"),
        Type::Optional(t) => coercion(t),
        _ => None,
    }
}

/// A function type in parentheses (so that `| null` applies to the whole type).
pub fn paren_fn(ts: String) -> String {
    if ts.contains("=>") && !(ts.starts_with('(') && ts.ends_with(')')) {
        format!("({ts})")
    } else {
        ts
    }
}

/// Maps local type keys to class names, and types to TypeScript.
pub struct Types(pub BTreeMap<String, String>);

impl Types {
    /// The TypeScript type of `ty`: `input` for what JavaScript passes in (parameters, values
    /// written to fields, callback results), else for what comes out.
    pub fn ts(&self, ty: &Type, input: bool) -> String {
        let join = |ts: &[Type], sep: &str| {
            ts.iter()
                .map(|t| paren_fn(self.ts(t, input)))
                .collect::<Vec<_>>()
                .join(sep)
        };
        match ty {
            Type::None => "null".into(),
            Type::Any => "unknown".into(),
            Type::Bool => "boolean".into(),
            Type::Int if input => "number | bigint".into(),
            Type::BigInt if input => "bigint | number".into(),
            // Wrappers return integers as numbers (`calls::result`); elsewhere (container
            // elements, callback arguments) one beyond ±2^53 comes as a bigint.
            Type::Int | Type::Float => "number".into(),
            Type::BigInt => "number | bigint".into(),
            Type::OpaquePtr => "__ffi.OpaquePtr".into(),
            Type::DataType if input => "__ffi.DataTypeLike".into(),
            Type::DataType => "__ffi.DataType".into(),
            Type::Device if input => "__ffi.DeviceLike".into(),
            Type::Device => "__ffi.Device".into(),
            Type::String => "string".into(),
            Type::Bytes if input => "__ffi.BytesLike".into(),
            Type::Bytes => "Uint8Array".into(),
            Type::Tensor if input => "__ffi.TensorLike".into(),
            Type::Tensor => "__ffi.Tensor".into(),
            Type::Shape if input => "__ffi.ShapeLike".into(),
            Type::Shape => "__ffi.Shape".into(),
            Type::Object => "__ffi.Object".into(),
            Type::Module => "__ffi.Module".into(),
            Type::Error if input => "Error".into(),
            Type::Error => "__ffi.FFIError".into(),
            Type::Array(t) | Type::List(t) if input => {
                format!("__ffi.ArrayLike<{}>", self.ts(t, true))
            }
            Type::Array(t) => format!("__ffi.Array<{}>", self.ts(t, false)),
            Type::List(t) => format!("__ffi.List<{}>", self.ts(t, false)),
            Type::Map(k, v) | Type::Dict(k, v) if input => {
                format!("__ffi.MapLike<{}, {}>", self.ts(k, true), self.ts(v, true))
            }
            Type::Map(k, v) => format!("__ffi.Map<{}, {}>", self.ts(k, false), self.ts(v, false)),
            Type::Dict(k, v) => format!("__ffi.Dict<{}, {}>", self.ts(k, false), self.ts(v, false)),
            Type::Optional(t) if input => {
                format!("{} | null | undefined", paren_fn(self.ts(t, true)))
            }
            Type::Optional(t) => format!("{} | null", paren_fn(self.ts(t, false))),
            Type::Variant(ts) => join(ts, " | "),
            Type::Tuple(ts) if input => format!("readonly [{}]", join(ts, ", ")),
            Type::Tuple(ts) if ts.is_empty() => "__ffi.Array<never>".into(),
            Type::Tuple(ts) => format!("__ffi.Array<{}>", join(ts, " | ")),
            Type::Function(None) if input => "__ffi.AnyFunction".into(),
            Type::Function(None) => "__ffi.Function".into(),
            Type::Function(Some(sig)) => {
                // A callback JavaScript passes in receives values that come out and returns one
                // that goes in; a function that comes out is the other way round.
                let params: Vec<String> = sig
                    .params
                    .iter()
                    .map(|p| {
                        format!(
                            "{}: {}",
                            names::Node::value(&p.name),
                            self.ts(&p.ty, !input)
                        )
                    })
                    .collect();
                let arrow = format!("({}) => {}", params.join(", "), self.ret(&sig.ret, input));
                if input {
                    format!("({arrow})")
                } else {
                    format!("__ffi.Function<{arrow}>")
                }
            }
            Type::Class(key) => self
                .0
                .get(key)
                .cloned()
                .unwrap_or_else(|| "__ffi.Object".into()),
        }
    }

    /// A return type: `void` for None.
    fn ret(&self, ty: &Type, input: bool) -> String {
        match ty {
            Type::None if !input => "void".into(),
            Type::None => "void | null | undefined".into(),
            t => self.ts(t, input),
        }
    }

    /// The layout of a signature's parameters with JavaScript identifiers (`args` and
    /// `options` are the generated code's).
    fn layout<'a>(params: &'a [ir::Param], item: &str) -> Layout<'a> {
        Layout::new(
            params,
            &["args", "ffi", names::OPTIONS_PARAM],
            names::Node::value,
            item,
        )
    }

    /// The call of a callable registered as `item` (which its runtime errors name) and named
    /// `spelled` as the caller spells it (`addOne`, `Point.translate`), and its TypeScript
    /// return type; `receiver`: `this` for instance methods; `none_as_undefined`: the library
    /// call gives `undefined` for None (the wrapper returns `null`).
    fn call(
        &self,
        sig: Option<&ir::Signature>,
        item: &str,
        spelled: &str,
        receiver: Option<&str>,
        none_as_undefined: bool,
    ) -> (Call, String) {
        let Some(sig) = sig else {
            let mut args: Vec<&str> = receiver.into_iter().collect();
            args.push("...args");
            let call = Call {
                js_params: "...args".into(),
                dts_params: "...args: unknown[]".into(),
                prologue: String::new(),
                args: args.join(", "),
                jsdoc: Vec::new(),
                errors: calls::Errors::default(),
                result: Default::default(),
            };
            return (call, "unknown".into());
        };
        let layout = Self::layout(&sig.params, item);
        let r = self.signature(&layout, spelled);
        let errors = calls::errors(
            self,
            spelled,
            item,
            usize::from(receiver.is_some()),
            &layout,
            r.required,
        );
        let result = calls::result(&sig.ret, spelled, none_as_undefined);
        let ret = match &sig.ret {
            Type::None => "void".into(),
            ret => calls::declared_result(self, ret),
        };
        (Call::new(r, receiver, errors, result), ret)
    }

    /// The model of a global function, or of a module export (`module_index`: its library's
    /// position among the package's modules).
    pub fn function(
        &self,
        f: &ir::Function,
        ident: String,
        place: (String, &'static str, usize),
        module_index: Option<usize>,
    ) -> Function {
        let (path, decl, index) = place;
        // The caller spells it from the package: `addOne`, `ir.getOp`.
        let spelled = path
            .strip_prefix(&format!("{}.", super::JS_ROOT))
            .unwrap_or(&path)
            .to_string();
        let (call, ret) = self.call(f.signature.as_ref(), &f.name, &spelled, None, true);
        let ffi_name = literal(&f.name);
        let (lookup, doc) = match (module_index, &f.module) {
            (Some(i), Some(library)) => {
                let mut doc = jsdoc(&f.doc);
                if !doc.is_empty() {
                    doc.push(String::new());
                }
                doc.extend(jsdoc(&format!(
                    "The function `{}` exported by `{library}`.",
                    f.name
                )));
                (
                    format!("{}Modules[{i}].get({ffi_name})", names::RESERVED_PREFIX),
                    doc,
                )
            }
            _ => (format!("__ffi.requireGlobal({ffi_name})"), jsdoc(&f.doc)),
        };
        let mask = f.signature.as_ref().map_or(0, |sig| {
            sig.params
                .iter()
                .take(4)
                .enumerate()
                .filter(|(_, p)| may_be_wrapped_object(&p.ty))
                .fold(0u32, |mask, (i, _)| mask | 1 << i)
        });
        Function {
            path,
            decl,
            handle: format!("{}Fn{index}", names::RESERVED_PREFIX),
            ffi_name,
            lookup,
            object_args: if mask == 0 {
                String::new()
            } else {
                format!(", {mask}")
            },
            doc: with_params(doc, &call.jsdoc),
            packed: f.signature.is_none(),
            call,
            ret,
            ident,
        }
    }

    /// The model of a class.
    pub fn class(
        &self,
        t: &ir::ObjectType,
        ident: String,
        place: (&'static str, usize),
        (lib, globals): (&ir::Library, &BTreeMap<String, String>),
        diags: &mut Diagnostics,
    ) -> Class {
        let path = self.0.get(&t.key).cloned().unwrap_or_default();
        let (decl, index) = place;
        let class_name = ident.clone();
        // Inherited accessors and the base class's members are reserved so an own member
        // cannot shadow them.
        let mut members = Scope::with_reserved(&["dispose", "same", "typeKey", "typeIndex"]);
        for f in &t.inherited_fields {
            members.claim(
                &names::member(&f.name),
                &format!("{}.{}", f.owner, f.name),
                super::LANG,
                diags,
            );
        }
        let mut statics = Scope::default();
        let fields = t
            .fields
            .iter()
            .map(|f| {
                let ident = names::member(&f.name);
                names::Node::claim(
                    &mut members,
                    &ident,
                    &format!("{}.{}", t.key, f.name),
                    diags,
                );
                let spelled = format!("{class_name}.{ident}");
                Field {
                    name: literal(&spelled),
                    expected: literal(&calls::expected(self, &f.value_type())),
                    result: calls::result(&f.ty, &spelled, false),
                    ident,
                    ffi_name: literal(&f.name),
                    doc: jsdoc(&f.doc),
                    ty: calls::declared_result(self, &f.value_type()),
                    input_ty: self.ts(&f.value_type(), true),
                    set_arg: match coercion(&f.ty) {
                        Some(c) => format!("{c}(value)"),
                        None => "value".into(),
                    },
                    writable: f.writable,
                }
            })
            .collect();
        let mut seen = std::collections::BTreeSet::new();
        let string_method = crate::lang::string_method(t).map(|m| m.name.as_str());
        let methods = t
            .methods
            .iter()
            .filter(|m| seen.insert((m.name.clone(), m.is_static)))
            .map(|m| {
                let item = format!("{}.{}", t.key, m.name);
                let ident = if !m.is_static && string_method == Some(m.name.as_str()) {
                    // Replaces `Object.prototype.toString` (what `String(x)` and template
                    // literals call), with the same type.
                    names::Node::claim(&mut members, names::TO_STRING, &item, diags);
                    names::TO_STRING.to_string()
                } else if m.is_static {
                    let ident = names::static_member(&m.name);
                    names::Node::claim(&mut statics, &ident, &item, diags);
                    ident
                } else {
                    let ident = names::member(&m.name);
                    names::Node::claim(&mut members, &ident, &item, diags);
                    ident
                };
                let receiver = (!m.is_static).then_some("this");
                let spelled = format!("{class_name}.{ident}");
                let (call, ret) = self.call(m.signature.as_ref(), &item, &spelled, receiver, false);
                Method {
                    ident,
                    ffi_name: literal(&m.name),
                    is_static: m.is_static,
                    doc: with_params(jsdoc(m.api_doc()), &call.jsdoc),
                    property: property_role(m),
                    packed: m.signature.is_none(),
                    call,
                    ret,
                    global: None,
                }
            })
            .collect();
        let mut methods: Vec<Method> = methods;
        let mut member_constructors = Vec::new();
        for m in crate::lang::naming::members(lib, t) {
            let Some(global) = globals.get(&m.function) else {
                continue;
            };
            let spelled = format!("{class_name}.{}", names::member(&m.name));
            let sig = m.signature.as_ref();
            let (call, ret) = self.call(sig, &m.function, &spelled, None, false);
            let doc = with_params(jsdoc(&crate::lang::naming::member_doc(m)), &call.jsdoc);
            if m.kind == ffihub_schema::RoleKind::Constructor {
                // A packed constructor takes any number of arguments.
                let (min, max) = match sig.map(|s| &s.params) {
                    Some(params) => (
                        params
                            .iter()
                            .filter(|p| p.default.is_none() && !p.kw_only)
                            .count(),
                        params.len().to_string(),
                    ),
                    None => (0, "Infinity".to_string()),
                };
                member_constructors.push(MemberConstructor {
                    min,
                    max,
                    global: global.clone(),
                    dts_params: call.dts_params,
                    doc,
                });
                continue;
            }
            let ident = names::member(&m.name);
            if members.is_taken(&ident) {
                continue;
            }
            names::Node::claim(&mut members, &ident, &m.function, diags);
            methods.push(Method {
                ident,
                ffi_name: literal(&m.function),
                is_static: false,
                doc,
                property: m.kind == ffihub_schema::RoleKind::Property,
                packed: false,
                call,
                ret,
                global: Some(global.clone()),
            });
        }
        let constructor = t
            .constructor
            .as_ref()
            .map(|c| self.constructor(t, c, &class_name));
        let base = match self.0.get(&t.parent) {
            Some(parent) => parent.clone(),
            None => "__ffi.Object".into(),
        };
        Class {
            path: super::js_path(&path),
            js_base: super::js_path(&base),
            decl,
            binding: format!("{}T{index}", names::RESERVED_PREFIX),
            base,
            key: literal(&t.key),
            doc: jsdoc(&t.doc),
            fields,
            methods,
            constructor,
            member_constructors,
            ident,
        }
    }

    fn constructor(&self, t: &ir::ObjectType, c: &ir::Constructor, class: &str) -> Constructor {
        let item = format!("{}.__ffi_init__", t.key);
        let layout = Layout::new(
            &c.params,
            &[names::OPTIONS_PARAM, "args"],
            names::Node::value,
            &item,
        );
        let options_optional = !layout.has_required_keyword();
        let positional: Vec<&Offered<'_>> =
            layout.required.iter().chain(&layout.optional).collect();
        let decl = |o: &Offered<'_>| Param {
            decl: self.ctor_param_decl(o, !options_optional),
            ident: o.ident.clone(),
        };
        let mut jsdoc: Vec<String> = positional
            .iter()
            .filter(|_| layout.worth_listing())
            .map(|o| signature::param_doc(&o.ident, o))
            .collect();
        jsdoc.extend(
            layout
                .keyword
                .iter()
                .filter(|_| layout.worth_listing())
                .map(|k| signature::param_doc(&format!("{}.{}", names::OPTIONS_PARAM, k.ident), k)),
        );
        // A typed `__ffi_init__` takes every argument by position: when callers give some by
        // name, or leave out defaults only the binding knows, the arguments are arranged.
        let arranged = c.kind == ir::ConstructorKind::InitMethod
            && c.params
                .iter()
                .any(|p| p.kw_only || matches!(p.default, Some(ir::ParamDefault::Binding(_))));
        let spelled = format!("new {class}");
        let rendered = self.signature(&layout, &spelled);
        // Without arranging, trailing arguments left out are left out of the library call too:
        // only the parameters with a default may be.
        let required = if arranged {
            rendered.required
        } else {
            layout.required.len()
        };
        let errors = calls::errors(self, &spelled, &format!("{}.", t.key), 0, &layout, required);
        let call_info = errors.info.clone();
        let arrange = arranged.then(|| Call::new(rendered, None, errors, Default::default()));
        let coercions: Vec<String> = positional
            .iter()
            .map(|o| coercion(&o.param.ty).unwrap_or("null").to_string())
            .collect();
        let keywords: Vec<String> = layout
            .keyword
            .iter()
            .map(|k| format!("{}: {}", k.ident, literal(&k.param.name)))
            .collect();
        Constructor {
            call_info,
            options_optional,
            coercions: format!("[{}]", coercions.join(", ")),
            keywords: if keywords.is_empty() {
                "null".into()
            } else {
                format!("{{ {} }}", keywords.join(", "))
            },
            positional: positional.into_iter().map(decl).collect(),
            keyword: layout.keyword.iter().map(decl).collect(),
            arrange,
            jsdoc,
        }
    }
}

/// Whether a registered method is a property of the library's Python API (it takes only the
/// receiver).
fn property_role(m: &ir::Method) -> bool {
    m.role
        .as_ref()
        .is_some_and(|r| r.kind == ffihub_schema::RoleKind::Property)
        && m.signature.as_ref().is_some_and(|s| s.params.is_empty())
}

/// JSDoc lines followed by `@param` lines (a blank line between when both are present).
fn with_params(mut doc: Vec<String>, params: &[String]) -> Vec<String> {
    if !doc.is_empty() && !params.is_empty() {
        doc.push(String::new());
    }
    doc.extend(params.iter().cloned());
    doc
}

/// Whether an argument of type `ty` may be a wrapped object passed as it is (not a scalar, not
/// a value JavaScript converts, not a tensor, which the addon checks on its general path).
fn may_be_wrapped_object(ty: &Type) -> bool {
    match ty {
        Type::Optional(inner) => may_be_wrapped_object(inner),
        Type::None
        | Type::Bool
        | Type::Int
        | Type::BigInt
        | Type::Float
        | Type::OpaquePtr
        | Type::DataType
        | Type::Device
        | Type::String
        | Type::Bytes
        | Type::Tensor
        | Type::Function(_) => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The support package's `lineHash` (bindings/node/lib/metadata.js) gives the same values.
    #[test]
    fn line_hash_is_fnv1a_32() {
        assert_eq!(line_hash(""), "811c9dc5");
        assert_eq!(line_hash("a"), "e40c292c");
        assert_eq!(
            line_hash("fn demo.add_one (int) -> int"),
            line_hash("fn demo.add_one (int) -> int")
        );
    }

    #[test]
    fn literals_escape_quotes_and_line_breaks() {
        assert_eq!(literal("it's\\n"), "'it\\'s\\\\n'");
        assert_eq!(literal("a\nb"), "'a\\nb'");
    }
}
