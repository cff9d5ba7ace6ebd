//! The model of a global function or a module export (`Function.jl`).

use super::arguments::{self, CallInfo};
use super::names;
use super::place::Place;
use super::signature::{Overload, Protocol};
use super::text::{docstring, literal, prose};
use super::types::TypeNames;
use crate::ir;
use crate::lang::doc_lines;

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
    /// The dispatch key of each method, the fallback's too (`Rendered::dispatch_keys`): for
    /// the members of the same name, which must not repeat one.
    pub keys: Vec<Vec<String>>,
}

impl TypeNames {
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
        let mut keys = rendered
            .as_ref()
            .map(|r| r.dispatch_keys(None))
            .unwrap_or_default();
        keys.push(vec![super::members::VARARGS.to_string()]);
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
            keys,
            ret,
            ident,
        }
    }
}
