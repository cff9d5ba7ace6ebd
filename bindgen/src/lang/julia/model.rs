//! Julia view models: everything the templates print, computed here (names from `names.rs`,
//! type annotations, conversions, escaped literals, docstrings). Templates only loop and
//! interpolate.
//!
//! How a TVM-FFI type appears in Julia ([`TypeNames`]):
//! - `accepts`: the annotation of a parameter (what callers may pass), e.g. `Integer`,
//!   `AbstractString`, `TVMFFI.SequenceLike`, or nothing for `Any`;
//! - `descriptor`: the type given to `TVMFFI.to_ffi` to convert an argument by its declared type
//!   (`TVMFFI.ArrayOf{Float64}`: an `ffi.Array`, not a tensor, with floats);
//! - `returns`: the Julia type of a result, given to `TVMFFI.call_typed` / `TVMFFI.get_field`
//!   (scalars are then read without allocating).

pub use super::signature::Overload;
use super::signature::{join_decls, Protocol};
use super::{arguments, names};
use crate::diagnostics::Diagnostics;
use crate::ir::{self, Type};
use crate::lang::naming::{Scope, Spelling};
use crate::lang::params::Layout;
use crate::lang::{comment_line, doc_lines};
use askama::Template;
use std::collections::BTreeMap;

/// `Project.toml`.
#[derive(Template)]
#[template(path = "julia/Project.toml", escape = "none")]
pub struct Project {
    /// Banner (one comment line).
    pub banner: String,
    /// Module name.
    pub module: String,
    /// The package UUID (stable for a name).
    pub uuid: String,
    /// UUID of the TVMFFI support package.
    pub tvmffi_uuid: &'static str,
    /// The package's version.
    pub version: String,
}

/// `test/runtests.jl`: a smoke test of the package (`Pkg.test`): it loads, its functions have
/// methods and are registered in the runtime, its types are object types.
#[derive(Template)]
#[template(path = "julia/runtests.jl", escape = "none")]
pub struct Smoke {
    /// Banner (one comment line).
    pub banner: String,
    /// Module name.
    pub module: String,
    /// Per function: its Julia name qualified from the test file (`Demo.add_one`), and its
    /// registered name as a Julia string literal.
    pub functions: Vec<(String, String)>,
    /// Per type: its concrete and abstract Julia names qualified from the test file.
    pub types: Vec<(String, String)>,
    /// Per module export: its Julia name qualified from the test file.
    pub exports: Vec<String>,
}

/// `src/<Module>.jl`: the module with every type and function.
#[derive(Template)]
#[template(path = "julia/Package.jl", escape = "none")]
pub struct Package {
    /// Banner (one comment line).
    pub banner: String,
    /// Module name.
    pub module: String,
    /// Module name as a Julia string literal.
    pub module_literal: String,
    /// Docstring lines of the module.
    pub doc: Vec<String>,
    /// Metadata checksum, as a Julia string literal.
    pub checksum: String,
    /// Library file names, as Julia string literals.
    pub libraries: Vec<String>,
    /// The regenerate command without its `--out` folder, as a Julia string literal.
    pub regenerate: String,
    /// Object types, parents first.
    pub types: Vec<Object>,
    /// Global functions.
    pub functions: Vec<Function>,
    /// Exported names (of the package root).
    pub exports: Vec<String>,
    /// The submodules of the namespaces, as blocks to print in order.
    pub blocks: Vec<Block>,
    /// What the load-time check compares: functions (`name`, normalized signature).
    pub check_functions: Vec<(String, String)>,
    /// What the load-time check compares: types (`key`, declared members).
    pub check_types: Vec<(String, Vec<String>)>,
    /// The libraries loaded as modules (for their exports), in order.
    pub modules: Vec<ModuleCheck>,
}

/// A library loaded as a module, and the exports the load-time check expects of it.
pub struct ModuleCheck {
    /// The library's position in `Package::libraries`, 1-based.
    pub library: usize,
    /// Export names and normalized signatures (`""` when untyped), as Julia string literals.
    pub exports: Vec<(String, String)>,
}

/// One step of printing the submodules (see `namespace_blocks` in `mod.rs`).
#[derive(Default)]
pub struct Block {
    /// Opens a module.
    pub open: Option<ModuleOpen>,
    /// Indices (into `Package::types`) of the module's own types.
    pub types: Vec<usize>,
    /// The module's functions, declared here (with their docstrings) and defined at the end.
    pub stubs: Vec<Stub>,
    /// The module's exported names.
    pub exports: Vec<String>,
    /// Closes the module of this name.
    pub close: Option<String>,
}

/// The start of a submodule.
pub struct ModuleOpen {
    /// Its name.
    pub name: String,
    /// The relative import of the package root (`..Tvm`), which qualified names start from.
    pub root_import: String,
}

/// A function declared without methods (`function add end`), with its docstring.
pub struct Stub {
    /// Identifier.
    pub ident: String,
    /// Docstring lines; empty for none.
    pub doc: Vec<String>,
}

/// A parameter.
pub struct Param {
    /// Identifier.
    pub ident: String,
    /// Type annotation including `::`, or empty.
    pub annot: String,
    /// ` = <default>`, or empty.
    pub default: String,
    /// The expression passed to the call (the identifier, or its conversion).
    pub arg: String,
}

impl Param {
    /// `ident::Annot = default`, as in a method definition.
    pub fn decl(&self) -> String {
        format!("{}{}{}", self.ident, self.annot, self.default)
    }
}

/// The constant holding a typed callable's `TVMFFI.CallInfo` (`arguments::call_info`), which it
/// passes to `TVMFFI.call_typed` so that the library's TypeErrors about its arguments are in the
/// caller's words.
pub struct CallInfo {
    /// The constant's name (`_ffi_info_fn_add_one`).
    pub name: String,
    /// Its value.
    pub value: String,
}

impl CallInfo {
    /// The `CallInfo` constant of the callable whose handle constant is `handle`.
    fn new(handle: &str, value: String) -> CallInfo {
        let base = handle
            .strip_prefix(names::RESERVED_PREFIX)
            .unwrap_or(handle);
        CallInfo {
            name: format!("{}info_{base}", names::RESERVED_PREFIX),
            value,
        }
    }
}

/// A global function (`Function.jl`).
pub struct Function {
    /// Identifier.
    pub ident: String,
    /// The name its methods are defined under from the package root (`ident`, or
    /// `Tvm.relax.op.add` for a function of a namespace, declared there by a stub).
    pub def_name: String,
    /// Defined in a namespace: the docstring goes on the stub in the submodule.
    pub nested: bool,
    /// The constant holding its `TVMFFI.FFIFunction` (`_ffi_fn_<ident>`).
    pub handle: String,
    /// Registered name, as a Julia string literal.
    pub ffi_name: String,
    /// The expression that returns the bound `TVMFFI.FFIFunction`: the global of that name, or
    /// the export of a module of the package (bound on first call).
    pub lookup: String,
    /// A module export (not a global).
    pub is_export: bool,
    /// Docstring lines (escaped), starting with the signature line.
    pub doc: Vec<String>,
    /// The methods, one per number of optional positional arguments given (none when packed).
    pub overloads: Vec<Overload>,
    /// Packed: takes `args...` and returns Any.
    pub packed: bool,
    /// The Julia type of the result (for `TVMFFI.call_typed`).
    pub ret: String,
    /// Typed functions: what their last method (`f(args...; kwargs...)`) calls, which throws
    /// the error of arguments no method takes.
    pub fallback: Option<String>,
    /// Typed functions: their `CallInfo`.
    pub info: Option<CallInfo>,
}

/// A field (a property).
pub struct Field {
    /// Property name.
    pub ident: String,
    /// Property name (a `Symbol` literal of the identifier).
    pub symbol: String,
    /// Registered name, as a `Symbol` literal.
    pub ffi_symbol: String,
    /// 1-based index in the type's field table.
    pub index: usize,
    /// The Julia type of its value.
    pub ret: String,
    /// For writable fields: the expression of `value` converted for the setter.
    pub setter: Option<String>,
}

/// A method (`Method.jl`).
pub struct Method {
    /// Identifier.
    pub ident: String,
    /// The name it is defined under (`norm`, or `Base.sum` for names Base exports).
    pub def_name: String,
    /// Defined under `TVMFFI.@extend_base`: Base's function where the loading Julia has it
    /// (`names::extends_base_on_load`).
    pub extend_base: bool,
    /// The constant holding its `TVMFFI.FFIFunction`.
    pub handle: String,
    /// Registered name, as a `Symbol` literal.
    pub ffi_symbol: String,
    /// Docstring lines (escaped), starting with the signature line.
    pub doc: Vec<String>,
    /// The methods, one per number of optional positional arguments given: declarations with
    /// the receiver first (`self::AbstractX` or `::Type{<:AbstractX}`), call arguments after the
    /// handle (`, self, x`). A packed method has one, taking `args::Vararg{Any,N}`.
    pub overloads: Vec<Overload>,
    /// Packed: takes `args...` after the receiver and returns Any.
    pub packed: bool,
    /// The Julia type of the result.
    pub ret: String,
    /// For the method that gives the object's text (`lang::string_method`): the receiver's
    /// abstract type, for which `Base.print` (and so `string`) writes that text.
    pub prints: Option<String>,
    /// Typed methods that override none and extend no function of `Base`: the receiver's
    /// declaration, and what their last method (`m(receiver, args...; kwargs...)`) calls, which
    /// throws the error of arguments no method takes. (Julia would find calls ambiguous between
    /// an override's and its parent's typed method, or Base's methods and a Base function's.)
    pub fallback: Option<(String, String)>,
    /// Typed methods: their `CallInfo`.
    pub info: Option<CallInfo>,
}

/// A constructor: one Julia method per number of optional positional arguments given.
pub struct Constructor {
    /// The methods, fewest arguments first.
    pub overloads: Vec<Overload>,
    /// Every keyword argument has a spelled default or none: the methods call the cached
    /// `__ffi_init__` directly; otherwise `TVMFFI.construct` is called so that omitted keyword
    /// arguments (`TVMFFI.OMITTED`) are dropped.
    pub fast: bool,
    /// How `__init__` obtains the `__ffi_init__` function.
    pub init_expr: String,
    /// The signature line of the docstring (optional positional parameters in brackets).
    pub doc_signature: String,
    /// The docstring's `# Arguments` list.
    pub doc_args: Vec<String>,
    /// What the last constructor method (`T(args...; kwargs...)`) calls, which throws the error
    /// of arguments no method takes.
    pub fallback: String,
    /// Its `CallInfo` (used when the methods call `__ffi_init__` directly: `fast`).
    pub info: CallInfo,
}

/// An object type (`Object.jl`).
pub struct Object {
    /// Concrete type name.
    pub ident: String,
    /// The type's name from anywhere in the package (`Point`, or `Tvm.ir.IntImm`).
    pub def_name: String,
    /// The field table from anywhere in the package.
    pub fields_ref: String,
    /// Defined in a submodule (its constructor and methods are defined after all modules).
    pub nested: bool,
    /// Abstract type standing for it and its subtypes.
    pub abstract_ident: String,
    /// Supertype of the abstract type.
    pub parent_abstract: String,
    /// Type key, as a Julia string literal.
    pub key: String,
    /// Docstring lines of the concrete type (escaped).
    pub doc: Vec<String>,
    /// Docstring lines of the abstract type (escaped).
    pub abstract_doc: Vec<String>,
    /// The constant holding the field table (`_ffi_fields_<ident>`).
    pub fields_handle: String,

    /// The field names as a vector of `Symbol` literals (for `TVMFFI.field_info`).
    pub field_symbols: String,
    /// The property names as a tuple literal.
    pub property_names: String,
    /// Own and inherited fields.
    pub fields: Vec<Field>,
    /// Some field is writable.
    pub has_setters: bool,
    /// Own methods.
    pub methods: Vec<Method>,
    /// The constant holding the `__ffi_init__` function (`_ffi_init_<ident>`).
    pub init_handle: String,
    /// Constructor, if any.
    pub constructor: Option<Constructor>,
}

/// Escapes text for a `"""` docstring (no interpolation, no early end, no line breaks).
pub fn doc_escape(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .map(|l| {
            comment_line(&l)
                .replace('\\', "\\\\")
                .replace('$', "\\$")
                .replace("\"\"\"", "\\\"\\\"\\\"")
        })
        .collect()
}

/// A Julia string literal. Control characters become `\u` escapes with all four digits (so a
/// following hex digit is not taken in).
pub fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '$' => out.push_str("\\$"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A docstring: the signature lines (indented four spaces), then the paragraphs that are not
/// empty, separated by blank lines.
pub fn docstring(signature: &[String], paragraphs: &[Vec<String>]) -> Vec<String> {
    let mut out: Vec<String> = signature.iter().map(|s| format!("    {s}")).collect();
    for p in paragraphs.iter().filter(|p| !p.is_empty()) {
        out.push(String::new());
        out.extend(p.iter().cloned());
    }
    doc_escape(out)
}

/// Generated prose, wrapped at spaces into lines of at most 96 characters.
pub fn prose(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > 96 {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}

/// Where an item of the package is defined: its identifier and the qualification that names
/// it from anywhere in the package (`""` in a package without namespaces, else `Tvm.ir.`).
#[derive(Clone, Debug, Default)]
pub struct Place {
    /// The identifier in its module.
    pub ident: String,
    /// `Root.ns.` (with the trailing dot), or empty.
    pub prefix: String,
    /// The item is in a namespace below the package root (defined in a submodule).
    pub nested: bool,
    /// A prefix for the package-level constants of this item (`_ffi_init_<infix><ident>`).
    pub infix: String,
}

/// Maps type keys of this library to Julia type names, and TVM-FFI types to Julia's.
pub struct TypeNames(pub BTreeMap<String, Place>);

impl TypeNames {
    fn abstract_of(&self, key: &str) -> String {
        match self.0.get(key) {
            Some(p) => format!("{}{}", p.prefix, names::abstract_type_name(&p.ident)),
            None => "TVMFFI.FFIObject".into(),
        }
    }

    /// The annotation of a parameter of type `ty` (what it accepts); `None` for anything.
    pub fn accepts(&self, ty: &Type) -> Option<String> {
        Some(match ty {
            Type::None => "Nothing".into(),
            Type::Bool => "Bool".into(),
            Type::Int | Type::BigInt => "Integer".into(),
            Type::Float => "Real".into(),
            Type::OpaquePtr => "Ptr".into(),
            Type::DataType => "TVMFFI.DataTypeLike".into(),
            Type::Device => "TVMFFI.DeviceLike".into(),
            Type::String => "AbstractString".into(),
            Type::Bytes => "AbstractVector{UInt8}".into(),
            Type::Tensor => "TVMFFI.TensorLike".into(),
            Type::Shape => "TVMFFI.ShapeLike".into(),
            Type::Module => "TVMFFI.FFIModule".into(),
            Type::Error => "TVMFFI.FFIError".into(),
            Type::Array(_) | Type::List(_) | Type::Tuple(_) => "TVMFFI.SequenceLike".into(),
            Type::Map(..) | Type::Dict(..) => "AbstractDict".into(),
            Type::Class(key) => self.abstract_of(key),
            Type::Optional(inner) => format!("Union{{Nothing, {}}}", self.accepts(inner)?),
            Type::Any | Type::Object | Type::Variant(_) | Type::Function(_) => return None,
        })
    }

    /// What a parameter of type `ty` takes, as a Julia type (`AbstractVector{<:Integer}`), for
    /// error messages: `accepts` with the element types of containers.
    pub fn expected(&self, ty: &Type) -> String {
        let list = |ts: &[Type]| {
            ts.iter()
                .map(|t| self.expected(t))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match ty {
            Type::Array(t) | Type::List(t) => format!("AbstractVector{{<:{}}}", self.expected(t)),
            Type::Map(k, v) | Type::Dict(k, v) => format!(
                "AbstractDict{{<:{}, <:{}}}",
                self.expected(k),
                self.expected(v)
            ),
            Type::Tuple(ts) => format!("Tuple{{{}}}", list(ts)),
            Type::Variant(ts) => format!("Union{{{}}}", list(ts)),
            Type::Optional(t) => format!("Union{{Nothing, {}}}", self.expected(t)),
            Type::Function(_) => "Function".into(),
            other => self.accepts(other).unwrap_or_else(|| "Any".into()),
        }
    }

    /// The `TVMFFI.to_ffi` descriptor of `ty`.
    pub fn descriptor(&self, ty: &Type) -> String {
        let list = |ts: &[Type]| {
            ts.iter()
                .map(|t| self.descriptor(t))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match ty {
            Type::None => "Nothing".into(),
            Type::Any => "Any".into(),
            Type::Bool => "Bool".into(),
            Type::Int => "Int64".into(),
            Type::BigInt => "Integer".into(),
            Type::Float => "Float64".into(),
            Type::OpaquePtr => "Ptr{Cvoid}".into(),
            Type::DataType => "TVMFFI.DLDataType".into(),
            Type::Device => "TVMFFI.DLDevice".into(),
            Type::String => "String".into(),
            Type::Bytes => "Vector{UInt8}".into(),
            Type::Tensor => "TVMFFI.FFITensor".into(),
            Type::Shape => "TVMFFI.FFIShape".into(),
            Type::Object => "TVMFFI.FFIObject".into(),
            Type::Module => "TVMFFI.FFIModule".into(),
            Type::Error => "TVMFFI.FFIError".into(),
            Type::Array(t) => format!("TVMFFI.ArrayOf{{{}}}", self.descriptor(t)),
            Type::List(t) => format!("TVMFFI.ListOf{{{}}}", self.descriptor(t)),
            Type::Map(k, v) => format!(
                "TVMFFI.MapOf{{{}, {}}}",
                self.descriptor(k),
                self.descriptor(v)
            ),
            Type::Dict(k, v) => format!(
                "TVMFFI.DictOf{{{}, {}}}",
                self.descriptor(k),
                self.descriptor(v)
            ),
            Type::Optional(t) => format!("Union{{Nothing, {}}}", self.descriptor(t)),
            Type::Variant(ts) => format!("TVMFFI.VariantOf{{Tuple{{{}}}}}", list(ts)),
            Type::Tuple(ts) => format!("TVMFFI.TupleOf{{Tuple{{{}}}}}", list(ts)),
            Type::Function(_) => "TVMFFI.FFIFunction".into(),
            Type::Class(key) => self.abstract_of(key),
        }
    }

    /// Whether a value of type `ty` must be converted by its declared type before the call.
    fn needs_conversion(ty: &Type) -> bool {
        match ty {
            Type::Optional(t) => Self::needs_conversion(t),
            Type::Float
            | Type::Bytes
            | Type::DataType
            | Type::Device
            | Type::Tensor
            | Type::Shape
            | Type::Array(_)
            | Type::List(_)
            | Type::Map(..)
            | Type::Dict(..)
            | Type::Tuple(_)
            | Type::Variant(_)
            | Type::Function(_) => true,
            _ => false,
        }
    }

    /// The expression that passes `ident` as a value of type `ty`.
    pub fn convert(&self, ty: &Type, ident: &str) -> String {
        match ty {
            Type::Float => format!("Float64({ident})"),
            t if Self::needs_conversion(t) => {
                format!("TVMFFI.to_ffi({}, {ident})", self.descriptor(t))
            }
            _ => ident.to_string(),
        }
    }

    /// The Julia type of a result of type `ty` (`Any` when nothing more precise is known).
    pub fn returns(&self, ty: &Type) -> String {
        match ty {
            Type::None => "Nothing".into(),
            Type::Any | Type::Object => "Any".into(),
            Type::Bool => "Bool".into(),
            Type::Int => "Int64".into(),
            Type::BigInt => "Integer".into(),
            Type::Float => "Float64".into(),
            Type::OpaquePtr => "Ptr{Cvoid}".into(),
            Type::DataType => "TVMFFI.DLDataType".into(),
            Type::Device => "TVMFFI.DLDevice".into(),
            Type::String => "String".into(),
            Type::Bytes => "Vector{UInt8}".into(),
            Type::Tensor => "TVMFFI.TensorLike".into(),
            Type::Shape => "TVMFFI.FFIShape".into(),
            Type::Module => "TVMFFI.FFIModule".into(),
            Type::Error => "TVMFFI.FFIError".into(),
            // Containers carry the element types they declare: `Array[int]` is an
            // `FFIArray{Int64}` (its elements read as `Int64`, `collect` gives a `Vector{Int64}`).
            Type::Array(t) => format!("TVMFFI.FFIArray{{{}}}", self.returns(t)),
            Type::Tuple(ts) => format!("TVMFFI.FFIArray{{{}}}", self.union(ts)),
            Type::List(t) => format!("TVMFFI.FFIList{{{}}}", self.returns(t)),
            Type::Map(k, v) => format!("TVMFFI.FFIMap{{{}, {}}}", self.returns(k), self.returns(v)),
            Type::Dict(k, v) => {
                format!("TVMFFI.FFIDict{{{}, {}}}", self.returns(k), self.returns(v))
            }
            Type::Function(_) => "TVMFFI.FFIFunction".into(),
            Type::Class(key) => self.abstract_of(key),
            Type::Optional(inner) => match self.returns(inner) {
                any if any == "Any" => any,
                r => format!("Union{{Nothing, {r}}}"),
            },
            Type::Variant(ts) => self.union(ts),
        }
    }

    /// The Julia type of a value of one of `ts` (`Any` if one of them is, or for none).
    fn union(&self, ts: &[Type]) -> String {
        let mut members: Vec<String> = Vec::new();
        for t in ts {
            let r = self.returns(t);
            if r == "Any" {
                return r;
            }
            if !members.contains(&r) {
                members.push(r);
            }
        }
        match members.as_slice() {
            [] => "Any".into(),
            [one] => one.clone(),
            _ => format!("Union{{{}}}", members.join(", ")),
        }
    }

    /// `-> R` for a docstring's signature line (nothing for `Any`).
    fn arrow(ret: &str) -> String {
        if ret == "Any" {
            String::new()
        } else {
            format!(" -> {ret}")
        }
    }

    /// The layout of a signature's parameters with Julia identifiers (`self` is the receiver's).
    fn layout<'a>(params: &'a [ir::Param], item: &str) -> Layout<'a> {
        Layout::new(params, &["self"], names::param_name, item)
    }

    /// The model of a global function, or of a module export (`module_index`: its library's
    /// position among the package's modules).
    pub fn function(
        &self,
        f: &ir::Function,
        place: Place,
        module_index: Option<usize>,
    ) -> Function {
        let ident = place.ident.clone();
        let handle = format!("{}fn_{}{ident}", names::RESERVED_PREFIX, place.infix);
        let (rendered, ret, what, info) = match &f.signature {
            Some(sig) => {
                let layout = Self::layout(&sig.params, &f.name);
                let rendered = self.signature(&layout, Protocol::Positional);
                let info = arguments::call_info(
                    self,
                    &arguments::signature(&ident, None, &rendered),
                    &f.name,
                    &layout,
                    0,
                    Protocol::Positional,
                );
                (
                    Some(rendered),
                    self.returns(&sig.ret),
                    format!("`{}`: `{sig}`.", f.name),
                    Some(CallInfo::new(&handle, info)),
                )
            }
            None => (
                None,
                "Any".to_string(),
                format!("`{}` (packed: any arguments, any result).", f.name),
                None,
            ),
        };
        let decls = rendered
            .as_ref()
            .map_or_else(|| "args...".to_string(), |r| r.doc_params.clone());
        let signature = format!("{ident}({decls}){}", Self::arrow(&ret));
        let unexported = if names::is_base_export(&ident) {
            prose(&format!(
                "Not exported (Julia's `Base` has a `{ident}`): call it with the module's name."
            ))
        } else {
            Vec::new()
        };
        let ffi_name = literal(&f.name);
        let (lookup, calls) = match (module_index, &f.module) {
            (Some(i), Some(library)) => (
                format!(
                    "TVMFFI.module_function!({handle}, {}modules, {}, {ffi_name})",
                    names::RESERVED_PREFIX,
                    i + 1
                ),
                format!("Calls the function `{}` exported by `{library}`: ", f.name),
            ),
            _ => (
                format!("TVMFFI.global_function!({handle}, {ffi_name})"),
                "Calls the TVM-FFI global function ".to_string(),
            ),
        };
        let what = match what.strip_prefix(&format!("`{}`: ", f.name)) {
            Some(sig) if f.module.is_some() => sig.to_string(),
            _ if f.module.is_some() => "packed (any arguments, any result).".to_string(),
            _ => what,
        };
        let fallback = rendered
            .as_ref()
            .map(|r| arguments::fallback(&ident, None, r));
        let (overloads, doc_args) =
            rendered.map_or_else(Default::default, |r| (r.overloads, r.doc_args));
        Function {
            // Functions of the root are defined in place; those of a namespace by their
            // qualified name (declared in their module by a stub).
            def_name: if place.nested {
                format!("{}{ident}", place.prefix)
            } else {
                ident.clone()
            },
            nested: place.nested,
            handle,
            ffi_name,
            lookup,
            is_export: f.module.is_some(),
            doc: docstring(
                &[signature],
                &[
                    doc_lines(&f.doc),
                    doc_args,
                    prose(&format!("{calls}{what}")),
                    unexported,
                ],
            ),
            packed: f.signature.is_none(),
            overloads,
            fallback,
            info,
            ret,
            ident,
        }
    }

    /// The model of an object type. `method_names` collects the method identifiers (for the
    /// collision check against global functions and for the exports).
    pub fn object(
        &self,
        t: &ir::ObjectType,
        method_names: &mut BTreeMap<String, String>,
        inherited_methods: &std::collections::BTreeSet<&str>,
        diags: &mut Diagnostics,
    ) -> Object {
        let place = self.0.get(&t.key).cloned().unwrap_or_default();
        let ident = place.ident.clone();
        let abstract_ident = names::abstract_type_name(&ident);
        let mut members = Scope::default();
        let fields: Vec<Field> = t
            .all_fields()
            .enumerate()
            .map(|(i, f)| {
                let prop = names::value_name(&f.name);
                names::Julia::claim(
                    &mut members,
                    &prop,
                    &format!("{}.{}", f.owner, f.name),
                    diags,
                );
                Field {
                    symbol: names::symbol_literal(&prop),
                    ident: prop,
                    ffi_symbol: names::symbol_literal(&f.name),
                    index: i + 1,
                    ret: self.returns(&f.value_type()),
                    setter: f.writable.then(|| self.convert(&f.value_type(), "value")),
                }
            })
            .collect();
        let property_list: Vec<&str> = fields.iter().map(|f| f.symbol.as_str()).collect();
        let field_symbols: Vec<&str> = fields.iter().map(|f| f.ffi_symbol.as_str()).collect();

        let mut seen = Scope::default();
        let mut methods = Vec::new();
        for m in &t.methods {
            let item = format!("{}.{}", t.key, m.name);
            let method_ident = names::value_name(&m.name);
            if t.methods
                .iter()
                .take_while(|o| !std::ptr::eq(*o, m))
                .any(|o| o.name == m.name)
            {
                diags.unsupported(
                    super::LANG,
                    &item,
                    "overloaded methods (a second method with the same name) are not supported",
                );
                continue;
            }
            names::Julia::claim(&mut seen, &method_ident, &item, diags);
            method_names
                .entry(method_ident.clone())
                .or_insert_with(|| item.clone());
            let overrides = inherited_methods.contains(m.name.as_str());
            methods.push(self.method(t, &place, m, method_ident, overrides));
        }

        let init_handle = format!("{}init_{}{ident}", names::RESERVED_PREFIX, place.infix);
        let constructor = t
            .constructor
            .as_ref()
            .and_then(|c| self.constructor(t, &ident, &init_handle, c, diags));
        let fields_handle = format!("{}fields_{ident}", names::RESERVED_PREFIX);
        let field_docs: Vec<String> = t
            .all_fields()
            .zip(&fields)
            .map(|(f, m)| {
                let access = if f.writable { "" } else { " (read-only)" };
                let doc = doc_lines(&f.doc).join(" ");
                let sep = if doc.is_empty() { "" } else { ": " };
                format!("- `{}::{}`{access}{sep}{doc}", m.ident, m.ret)
            })
            .collect();
        let mut signature = vec![format!("{ident} <: {abstract_ident}")];
        let (mut ctor_doc, mut ctor_args) = (Vec::new(), Vec::new());
        if let (Some(c), Some(ir_c)) = (&constructor, &t.constructor) {
            signature.push(c.doc_signature.clone());
            ctor_doc = doc_lines(&ir_c.doc);
            ctor_args = c.doc_args.clone();
        }
        let about = format!(
            "The Julia type of the TVM-FFI type `{}`{}.",
            t.key,
            if fields.is_empty() {
                ""
            } else {
                "; its fields are properties"
            }
        );
        Object {
            doc: docstring(
                &signature,
                &[
                    doc_lines(&t.doc),
                    ctor_doc,
                    ctor_args,
                    prose(&about),
                    field_docs,
                ],
            ),
            abstract_doc: docstring(
                std::slice::from_ref(&abstract_ident),
                &[prose(&format!(
                    "Supertype of [`{ident}`](@ref) and of the Julia types of the TVM-FFI types \
                     derived from `{}`: the methods of `{ident}` accept them all.",
                    t.key
                ))],
            ),
            parent_abstract: self.abstract_of(&t.parent),
            key: literal(&t.key),
            def_name: format!("{}{ident}", place.prefix),
            nested: place.nested,
            fields_ref: format!("{}{fields_handle}", place.prefix),
            fields_handle,
            field_symbols: format!("[{}]", field_symbols.join(", ")),
            property_names: tuple_literal(&property_list),
            has_setters: fields.iter().any(|f| f.setter.is_some()),
            fields,
            methods,
            init_handle,
            constructor,
            abstract_ident,
            ident,
        }
    }

    fn method(
        &self,
        t: &ir::ObjectType,
        place: &Place,
        m: &ir::Method,
        ident: String,
        overrides: bool,
    ) -> Method {
        let item = format!("{}.{}", t.key, m.name);
        let type_ident = &place.ident;
        let abstract_ident = format!("{}{}", place.prefix, names::abstract_type_name(type_ident));
        let receiver = if m.is_static {
            format!("::Type{{<:{abstract_ident}}}")
        } else {
            format!("self::{abstract_ident}")
        };
        let self_arg = if m.is_static { "" } else { ", self" };
        let handle = format!(
            "{}method_{}{type_ident}_{ident}",
            names::RESERVED_PREFIX,
            place.infix
        );
        let spelled_receiver = if m.is_static { type_ident } else { "self" };
        let (mut fallback, mut info) = (None, None);
        let (overloads, ret, doc_decls, doc_args, what) = match &m.signature {
            Some(sig) => {
                let layout = Self::layout(&sig.params, &item);
                let r = self.signature(&layout, Protocol::Positional);
                // An override leaves it out: with its parent's typed method, Julia would find
                // calls ambiguous. So does a method of a function of `Base`: Base's own methods
                // that take any value first (`fill(v, dims...)`) would become ambiguous for these
                // objects.
                if !overrides && !names::is_base_export(&ident) {
                    fallback = Some((
                        receiver.clone(),
                        arguments::fallback(&ident, Some(spelled_receiver), &r),
                    ));
                }
                info = Some(CallInfo::new(
                    &handle,
                    arguments::call_info(
                        self,
                        &arguments::signature(&ident, Some(spelled_receiver), &r),
                        &item,
                        &layout,
                        usize::from(!m.is_static),
                        Protocol::Positional,
                    ),
                ));
                let overloads = r
                    .overloads
                    .into_iter()
                    .map(|o| Overload {
                        params: join_decls(Some(&receiver), &o.params),
                        args: format!("{self_arg}{}", o.args),
                        construct_args: String::new(),
                    })
                    .collect();
                (
                    overloads,
                    self.returns(&sig.ret),
                    join_decls(Some(&receiver), &r.doc_params),
                    r.doc_args,
                    format!("`{sig}`"),
                )
            }
            None => (
                vec![Overload {
                    params: format!("{receiver}, args::Vararg{{Any,N}}"),
                    args: self_arg.to_string(),
                    construct_args: String::new(),
                }],
                "Any".to_string(),
                format!("{receiver}, args..."),
                Vec::new(),
                "packed".to_string(),
            ),
        };
        let kind = if m.is_static {
            "Static method"
        } else {
            "Method"
        };
        let signature = format!("{ident}({doc_decls}){}", Self::arrow(&ret));
        Method {
            def_name: names::method_definition(
                &ident,
                if place.nested { &place.prefix } else { "" },
            ),
            extend_base: names::extends_base_on_load(&ident),
            ident: ident.clone(),
            handle,
            ffi_symbol: names::symbol_literal(&m.name),
            doc: docstring(
                &[signature],
                &[
                    doc_lines(&m.doc),
                    doc_args,
                    prose(&format!(
                        "{kind} `{}` of the TVM-FFI type `{}`: {what}.",
                        m.name, t.key
                    )),
                ],
            ),
            overloads,
            packed: m.signature.is_none(),
            ret,
            prints: crate::lang::string_method(t)
                .is_some_and(|s| std::ptr::eq(s, m))
                .then_some(abstract_ident),
            fallback,
            info,
        }
    }

    fn constructor(
        &self,
        t: &ir::ObjectType,
        ident: &str,
        init_handle: &str,
        c: &ir::Constructor,
        diags: &mut Diagnostics,
    ) -> Option<Constructor> {
        let item = format!("{}.__ffi_init__", t.key);
        if let [p] = c.params.as_slice() {
            if p.ty == Type::OpaquePtr {
                diags.unsupported(
                    super::LANG,
                    &item,
                    "a constructor whose only parameter is an opaque pointer would replace the \
                     wrapper constructor `T(::Ptr{Cvoid})`",
                );
                return None;
            }
        }
        let protocol = match c.kind {
            ir::ConstructorKind::AutoInit => Protocol::Kwargs,
            ir::ConstructorKind::InitMethod => Protocol::Positional,
        };
        let layout = Self::layout(&c.params, &item);
        let r = self.signature(&layout, protocol);
        let info = arguments::call_info(
            self,
            &arguments::signature(ident, None, &r),
            &format!("{}.", t.key),
            &layout,
            0,
            protocol,
        );
        Some(Constructor {
            fallback: arguments::fallback(ident, None, &r),
            info: CallInfo::new(init_handle, info),
            overloads: r.overloads,
            fast: r.fast,
            init_expr: format!("TVMFFI.init_function({})", literal(&t.key)),
            doc_signature: format!("{ident}({})", r.doc_params),
            // A generated constructor's parameters are the fields, listed with the type.
            doc_args: match protocol {
                Protocol::Positional => r.doc_args,
                Protocol::Kwargs => Vec::new(),
            },
        })
    }
}

/// A Julia tuple literal of already spelled items (`(:a, :b)`, `(:a,)`, `()`).
pub fn tuple_literal(items: &[&str]) -> String {
    match items {
        [] => "()".into(),
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}

/// What the load-time check compares for a type: what it declares itself, one line each
/// (`TVMFFI.check_package` spells the live library the same way).
pub fn check_members(t: &ir::ObjectType) -> Vec<String> {
    let mut out: Vec<String> = t
        .fields
        .iter()
        .map(|f| {
            let access = if f.writable { " (writable)" } else { "" };
            if f.untyped {
                format!("field {}: ?{access}", f.name)
            } else {
                format!("field {}: {}{access}", f.name, f.ty)
            }
        })
        .collect();
    out.extend(t.methods.iter().map(|m| {
        let kind = if m.is_static { "static" } else { "method" };
        let sig = m
            .signature
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default();
        format!("{kind} {}: {sig}", m.name)
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Config;
    use ffihub_schema::DefaultValue;

    fn field(name: &str, ty: Type, default: Option<DefaultValue>) -> ir::Field {
        ir::Field {
            name: name.into(),
            owner: "t.Bag".into(),
            ty,
            untyped: false,
            doc: String::new(),
            writable: true,
            default,
        }
    }

    fn param(name: &str, ty: Type, kw_only: bool, default: Option<ir::Literal>) -> ir::Param {
        ir::Param {
            kw_only,
            default: default.map(|d| ir::ParamDefault::Library(Some(d))),
            ..ir::Param::new(name, ir::NameSource::Field, ty)
        }
    }

    /// A keyword argument whose default the library computes (a factory) defaults to
    /// `TVMFFI.OMITTED` and goes through `TVMFFI.construct`, which leaves it out.
    #[test]
    fn factory_defaults_are_omitted_arguments() {
        let items = Type::Array(Box::new(Type::Int));
        let bag = ir::ObjectType {
            key: "t.Bag".into(),
            path: vec!["Bag".into()],
            parent: "ffi.Object".into(),
            parent_is_local: false,
            ancestors: vec!["ffi.Object".into()],
            doc: String::new(),
            is_final: true,
            inherited_fields: Vec::new(),
            fields: vec![
                field("size", Type::Int, None),
                field("items", items.clone(), Some(DefaultValue::Factory)),
                field("end", Type::Float, Some(DefaultValue::Float(0.5))),
            ],
            methods: Vec::new(),
            constructor: Some(ir::Constructor {
                kind: ir::ConstructorKind::AutoInit,
                doc: String::new(),
                params: vec![
                    param("size", Type::Int, false, None),
                    ir::Param {
                        default: Some(ir::ParamDefault::Library(None)),
                        ..param("items", items, true, None)
                    },
                    param("end", Type::Float, true, Some(ir::Literal::Float(0.5))),
                ],
            }),
            members: Vec::new(),
        };
        let lib = ir::Library {
            checksum: "fnv1a64:0".into(),
            libraries: vec!["libt.so".into()],
            root: vec!["t".into()],
            functions: Vec::new(),
            types: vec![bag],
            shadowed_exports: Vec::new(),
            harvest_notes: Vec::new(),
        };
        let cfg = Config {
            name: "t".into(),
            allow_unsupported: Vec::new(),
            ..Default::default()
        };
        let files = super::super::generate(&lib, &cfg).unwrap();
        let text = &files[std::path::Path::new("src/T.jl")];
        assert!(
            text.contains(
                "function Bag(size::Integer; items = TVMFFI.OMITTED, end_::Real = 0.5)\n    \
                 return TVMFFI.construct(\"t.Bag\", size; :items => items === TVMFFI.OMITTED ? \
                 items : TVMFFI.to_ffi(TVMFFI.ArrayOf{Int64}, items), Symbol(\"end\") => \
                 Float64(end_))::Bag\nend"
            ),
            "{text}"
        );
    }
}
