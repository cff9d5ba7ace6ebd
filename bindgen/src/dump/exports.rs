//! Module exports: the `__tvm_ffi_<name>` functions a library exports as dynamic symbols.
//!
//! Their names come from the library's ELF dynamic symbol table (the runtime has no call that
//! lists a module's functions). Signatures and docs come from the runtime, which is what binding
//! code sees later: the library is loaded as a module (`ffi.ModuleLoadFromFile`) and asked for
//! `__tvm_ffi__metadata_<name>` and `__tvm_ffi__doc_<name>` (`ffi.ModuleGetFunctionMetadata`,
//! `ffi.ModuleGetFunctionDoc`). Symbols that start with `__tvm_ffi__` are reserved for such
//! companions (`__tvm_ffi__library_bin`, `__tvm_ffi__library_ctx`, `__tvm_ffi__cubin_*`) and are
//! not functions.

use super::runtime::{Arg, Runtime, Value};
use super::{function_signature, split_metadata, DumpError};
use ffihub_schema::{Function, Module};
use object::{Object, ObjectSymbol, SymbolKind};
use std::path::Path;

/// The prefix of every exported function symbol.
const EXPORT_PREFIX: &str = "__tvm_ffi_";
/// The prefix of reserved companion symbols.
const RESERVED_PREFIX: &str = "__tvm_ffi__";
/// The symbol of a library's embedded module binary.
const LIBRARY_BIN: &str = "__tvm_ffi__library_bin";

/// What a library's dynamic symbol table says about its module exports.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ExportSymbols {
    /// Export names (the symbol without `__tvm_ffi_`), sorted.
    pub names: Vec<String>,
    /// The library defines `__tvm_ffi__library_bin`.
    pub library_bin: bool,
}

/// Reads the defined dynamic symbols of the ELF file at `path`.
pub fn export_symbols(path: &Path) -> Result<ExportSymbols, DumpError> {
    let display = path.display();
    let data = std::fs::read(path)
        .map_err(|e| DumpError::Library(format!("cannot read {display}: {e}")))?;
    let file = object::File::parse(&*data).map_err(|e| {
        DumpError::Library(format!("{display} is not a readable shared library: {e}"))
    })?;
    let mut out = ExportSymbols::default();
    for symbol in file.dynamic_symbols() {
        if symbol.is_undefined() {
            continue;
        }
        let Ok(name) = symbol.name() else { continue };
        if name == LIBRARY_BIN {
            out.library_bin = true;
        } else if let Some(export) = name.strip_prefix(EXPORT_PREFIX) {
            if !name.starts_with(RESERVED_PREFIX)
                && !export.is_empty()
                && symbol.kind() == SymbolKind::Text
            {
                out.names.push(export.to_string());
            }
        }
    }
    out.names.sort();
    out.names.dedup();
    Ok(out)
}

/// The module exports of the library at `path` (already loaded into `rt`), or `None` when it
/// exports nothing.
pub fn module(rt: &Runtime, path: &Path) -> Result<Option<Module>, DumpError> {
    let symbols = export_symbols(path)?;
    if symbols.names.is_empty() && !symbols.library_bin {
        return Ok(None);
    }
    let absolute = std::fs::canonicalize(path)
        .map_err(|e| DumpError::Library(format!("{}: {e}", path.display())))?;
    let absolute = absolute.to_string_lossy();
    let what = format!("ffi.ModuleLoadFromFile({absolute})");
    let load = rt.require_global("ffi.ModuleLoadFromFile")?;
    let Value::Obj(module) = rt.call(&load, &[Arg::Str(&absolute)], &what)? else {
        return Err(DumpError::Call(format!("{what} did not return a module")));
    };
    let metadata_fn = rt.require_global("ffi.ModuleGetFunctionMetadata")?;
    let doc_fn = rt.require_global("ffi.ModuleGetFunctionDoc")?;
    let text = |f, name: &str, what: String| -> Result<String, DumpError> {
        match rt.call(
            f,
            &[Arg::Obj(&module), Arg::Str(name), Arg::Bool(false)],
            &what,
        )? {
            Value::Str(s) => Ok(s),
            Value::None => Ok(String::new()),
            _ => Err(DumpError::Call(format!("{what} did not return a string"))),
        }
    };
    let functions = symbols
        .names
        .iter()
        .map(|name| {
            let meta_text = text(
                &metadata_fn,
                name,
                format!("ffi.ModuleGetFunctionMetadata({name})"),
            )?;
            let doc = text(&doc_fn, name, format!("ffi.ModuleGetFunctionDoc({name})"))?;
            let (schema, mut metadata) = split_metadata(&meta_text);
            let signature = function_signature(schema, &mut metadata);
            Ok(Function {
                name: name.clone(),
                doc,
                signature,
                metadata,
            })
        })
        .collect::<Result<Vec<_>, DumpError>>()?;
    Ok(Some(Module {
        library: super::file_name(path),
        library_bin: symbols.library_bin,
        functions,
    }))
}
