//! The model of an object type (`Object.jl`): its fields, methods and constructor.

use super::arguments::{self, CallInfo};
use super::members::{Member, Signatures, VARARGS};
use super::names;
use super::place::Place;
use super::signature::{join_decls, Overload, Protocol};
use super::text::{docstring, literal, prose, tuple_literal};
use super::types::TypeNames;
use crate::diagnostics::Diagnostics;
use crate::ir::{self, Type};
use crate::lang::doc_lines;
use crate::lang::naming::{Scope, Spelling};
use ffihub_schema::RoleKind;
use std::collections::{BTreeMap, BTreeSet};

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

/// A property of the library's Python API that is no field: `getproperty` calls a function
/// (a method, or a global with the object first).
pub struct Property {
    /// Property name (a `Symbol` literal).
    pub symbol: String,
    /// The function it calls with the object, from anywhere in the package.
    pub function: String,
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
    /// The signature line of the docstring (optional positional parameters in brackets).
    pub doc_signature: String,
    /// The docstring's `# Arguments` list.
    pub doc_args: Vec<String>,
    /// What the last constructor method (`T(args...; kwargs...)`) calls, which throws the error
    /// of arguments no method takes; `None` where a packed member constructor takes any
    /// arguments instead (`members.rs`).
    pub fallback: Option<String>,
    /// Its `CallInfo` (used when the methods call `__ffi_init__` directly: `fast`).
    pub info: CallInfo,
    /// The dispatch key of each of `overloads` (`Rendered::dispatch_keys`).
    pub keys: Vec<Vec<String>>,
}

/// An object type (`Object.jl`).
pub struct Object {
    /// Concrete type name.
    pub ident: String,
    /// Properties that are no fields.
    pub properties: Vec<Property>,
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
    /// Own methods.
    pub methods: Vec<Method>,
    /// The constant holding the `__ffi_init__` function (`_ffi_init_<ident>`).
    pub init_handle: String,
    /// Constructor, if any.
    pub constructor: Option<Constructor>,
    /// Constructors of the Python API that call globals (ADR 0019).
    pub member_constructors: Vec<Member>,
    /// Methods of the Python API that call globals (ADR 0019).
    pub member_methods: Vec<Member>,
}

impl TypeNames {
    /// The model of an object type. `method_names` collects the method identifiers (for the
    /// collision check against global functions and for the exports).
    pub fn object(
        &self,
        t: &ir::ObjectType,
        method_names: &mut BTreeMap<String, String>,
        inherited_methods: &BTreeSet<&str>,
        (lib, globals): (&ir::Library, &BTreeMap<String, String>),
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

        // Properties of the Python API (ADR 0019): registered methods it reads as properties,
        // then globals it makes properties (`lang::naming::members`); a field's name wins.
        // Each is listed in the type's docstring with the doc of the Python function that
        // defines it.
        let mut properties = Vec::new();
        let mut property_docs = Vec::new();
        let mut property = |name: &str, function: String, doc: &str| {
            let prop = names::value_name(name);
            if !members.is_taken(&prop) {
                members.claim_free(&prop, name);
                properties.push(Property {
                    symbol: names::symbol_literal(&prop),
                    function,
                });
                let mut lines = doc_lines(doc).into_iter();
                let first = lines.next().unwrap_or_default();
                property_docs.push(format!("- `{prop}` (property): {first}").trim_end().into());
                property_docs
                    .extend(lines.map(|l| if l.is_empty() { l } else { format!("  {l}") }));
            }
        };
        for m in &t.methods {
            let Some(role) = m.role.as_ref() else {
                continue;
            };
            let no_params = m.signature.as_ref().is_some_and(|s| s.params.is_empty());
            let symbol = names::symbol_literal(&m.name);
            let bound = methods.iter().find(|jm| jm.ffi_symbol == symbol);
            if let Some(jm) = bound.filter(|_| role.kind == RoleKind::Property && no_params) {
                let name = role.name.as_deref().unwrap_or(&m.name);
                property(name, jm.def_name.clone(), m.api_doc());
            }
        }
        for m in crate::lang::naming::members(lib, t) {
            if m.kind == RoleKind::Property {
                if let Some(f) = globals.get(&m.function) {
                    property(&m.name, f.clone(), &crate::lang::naming::member_doc(m));
                }
            }
        }
        let init_handle = format!("{}init_{}{ident}", names::RESERVED_PREFIX, place.infix);
        let mut constructor = t
            .constructor
            .as_ref()
            .and_then(|c| self.constructor(t, &ident, &init_handle, c, diags));
        let def_name = format!("{}{ident}", place.prefix);
        let member_constructors =
            self.member_constructors(lib, t, (&ident, &def_name), &mut constructor, globals);
        let receiver = format!("{}{abstract_ident}", place.prefix);
        let mut member_idents: BTreeSet<String> = BTreeSet::new();
        let member_methods: Vec<Member> = crate::lang::naming::members(lib, t)
            .into_iter()
            .filter(|m| m.kind == RoleKind::Method)
            .filter_map(|m| {
                let ident = names::value_name(&m.name);
                // A registered method's identifier, or an earlier member's (another Python
                // name spelled the same), would be the same Julia method.
                if seen.is_taken(&ident) || !member_idents.insert(ident.clone()) {
                    return None;
                }
                let def_name =
                    names::method_definition(&ident, if place.nested { &place.prefix } else { "" });
                let global = globals.get(&m.function)?;
                self.member_method(m, (&ident, &def_name), &receiver, global, true)
            })
            .collect();
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
        signature.extend(member_constructors.iter().map(|c| c.doc_signature.clone()));
        let about = format!(
            "The Julia type of the TVM-FFI type `{}`{}.",
            t.key,
            if fields.is_empty() {
                ""
            } else {
                "; its fields are properties"
            }
        );
        let property_list: Vec<&str> = fields
            .iter()
            .map(|f| f.symbol.as_str())
            .chain(properties.iter().map(|p| p.symbol.as_str()))
            .collect();
        Object {
            doc: docstring(
                &signature,
                &[
                    doc_lines(&t.doc),
                    ctor_doc,
                    ctor_args,
                    prose(&about),
                    field_docs,
                    property_docs,
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
            def_name,
            nested: place.nested,
            fields_ref: format!("{}{fields_handle}", place.prefix),
            fields_handle,
            field_symbols: format!("[{}]", field_symbols.join(", ")),
            property_names: tuple_literal(&property_list),
            fields,
            properties,
            methods,
            init_handle,
            constructor,
            member_constructors,
            member_methods,
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

    /// The member constructors of `t` (`ident`, defined as `def_name`), and which methods of
    /// its own constructor stay. As in C++ (ADR 0019), the own constructor's method that takes
    /// every argument comes first; then a packed member (`T(args...)`, which takes the place
    /// of the own constructor's fallback: `Target("llvm")`); then the typed members' methods;
    /// then the own constructor's methods that leave arguments out, where no member has their
    /// signature. A method whose signature an earlier one has is left out; so are those the
    /// wrapper constructor `T(::Ptr{Cvoid})` would take. The fallback is the own
    /// constructor's, else the first typed member's, where no packed member took its place.
    fn member_constructors(
        &self,
        lib: &ir::Library,
        t: &ir::ObjectType,
        (ident, def_name): (&str, &str),
        own: &mut Option<Constructor>,
        globals: &BTreeMap<String, String>,
    ) -> Vec<Member> {
        let mut taken = Signatures::default();
        taken.claim(&["Ptr{Cvoid}".to_string()]);
        taken.claim(&["Ptr".to_string()]);
        if let Some(full) = own.as_ref().and_then(|c| c.keys.last()) {
            taken.claim(full);
        }
        let constructors: Vec<&ir::Member> = crate::lang::naming::members(lib, t)
            .into_iter()
            .filter(|m| m.kind == RoleKind::Constructor)
            .collect();
        let render = |m: &&ir::Member, taken: &mut Signatures| {
            let global = globals.get(&m.function)?;
            self.member_constructor(m, (ident, def_name), global, taken)
        };
        let mut out: Vec<Member> = constructors
            .iter()
            .filter(|m| m.signature.is_none())
            .filter_map(|m| render(m, &mut taken))
            .collect();
        if let Some(c) = own.as_mut() {
            if !taken.claim(&[VARARGS.to_string()]) {
                c.fallback = None;
            }
        }
        out.extend(
            constructors
                .iter()
                .filter(|m| m.signature.is_some())
                .filter_map(|m| render(m, &mut taken)),
        );
        if let Some(c) = own.as_mut() {
            let full = c.keys.len() - 1;
            let overloads = std::mem::take(&mut c.overloads);
            let keys = std::mem::take(&mut c.keys);
            for (i, (o, key)) in overloads.into_iter().zip(keys).enumerate() {
                if i == full || taken.claim(&key) {
                    c.overloads.push(o);
                    c.keys.push(key);
                }
            }
        }
        out
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
            keys: r.dispatch_keys(None),
            fallback: Some(arguments::fallback(ident, None, &r)),
            info: CallInfo::new(init_handle, info),
            overloads: r.overloads,
            fast: r.fast,
            doc_signature: format!("{ident}({})", r.doc_params),
            // A generated constructor's parameters are the fields, listed with the type.
            doc_args: match protocol {
                Protocol::Positional => r.doc_args,
                Protocol::Kwargs => Vec::new(),
            },
        })
    }
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
