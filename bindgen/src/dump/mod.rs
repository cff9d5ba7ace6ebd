//! `ffihub dump`: load libraries into a TVM-FFI runtime and read back what they registered.
//!
//! The items of a library are what its loading added to the runtime's registries: global names
//! (`ffi.FunctionListGlobalNamesFunctor`) and type keys (`ffi.GetRegisteredTypeKeys`) are
//! snapshotted before and after loading. A library that is the runtime itself contributes
//! everything the runtime registers on its own. See docs/adr/0003-generator-metadata.md.
//!
//! Each library's module exports (`__tvm_ffi_<name>` symbols) are read too (`exports`), see
//! docs/adr/0009-module-exports.md.

mod exports;
mod locate;
mod runtime;

pub use exports::{export_symbols, ExportSymbols};

use ffihub_abi::abi::{TVMFFIAny, TVMFFIFieldInfo, TVMFFIMethodInfo, TVMFFITypeInfo};
use ffihub_abi::tindex;
use ffihub_schema::{
    Constructor, DefaultValue, Field, FieldFlags, Function, Metadata, Method, ObjectType,
    Reflection, Signature, TypeSchema,
};
use runtime::{runtime_str, Arg, Obj, Runtime, Value};
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// What to dump.
#[derive(Clone, Debug, Default)]
pub struct DumpOptions {
    /// The runtime to load; `None` searches (see `locate::open_runtime`).
    pub runtime: Option<PathBuf>,
    /// The libraries to load, in order.
    pub libs: Vec<PathBuf>,
    /// Keep only functions and types whose name starts with this.
    pub prefix: Option<String>,
}

/// Why a dump failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpError {
    /// The runtime could not be found or opened, or is not a TVM-FFI runtime.
    Runtime(String),
    /// A library could not be loaded.
    Library(String),
    /// A reflection call failed.
    Call(String),
}

impl fmt::Display for DumpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DumpError::Runtime(m) => write!(f, "runtime: {m}"),
            DumpError::Library(m) => write!(f, "library: {m}"),
            DumpError::Call(m) => write!(f, "reflection: {m}"),
        }
    }
}

impl std::error::Error for DumpError {}

/// The well-known type attribute columns whose presence the dump records.
const TYPE_ATTRS: &[&str] = &[
    "__any_equal__",
    "__any_hash__",
    "__data_from_json__",
    "__data_to_json__",
    "__ffi_compare__",
    "__ffi_convert__",
    "__ffi_enum__",
    "__ffi_eq__",
    "__ffi_hash__",
    "__ffi_init__",
    "__ffi_new__",
    "__ffi_repr__",
    "__ffi_shallow_copy__",
    "__s_equal__",
    "__s_hash__",
    "__s_maybe_inplace_mutate__",
    "__s_mutate__",
    "__s_visit__",
];

/// What [`dump`] found.
#[derive(Clone, Debug)]
pub struct Dump {
    /// The libraries' reflection (sealed).
    pub reflection: Reflection,
    /// The libraries that registered no global function or type and export no
    /// `__tvm_ffi_<name>` function (the runtime itself excepted): most likely not TVM-FFI
    /// libraries at all, or libraries that register on some later call.
    pub empty_libraries: Vec<PathBuf>,
}

/// Loads the runtime and the libraries, and returns the libraries' reflection.
///
/// A process can hold one runtime only, so this runs once per process.
pub fn dump(opts: &DumpOptions) -> Result<Dump, DumpError> {
    let rt = locate::open_runtime(opts.runtime.as_deref())?;
    let canonical_runtime = std::fs::canonicalize(&rt.path).ok();
    let is_runtime = |l: &Path| {
        canonical_runtime.is_some() && std::fs::canonicalize(l).ok() == canonical_runtime
    };
    let includes_runtime = opts.libs.iter().any(|l| is_runtime(l));

    let (names_before, keys_before) = if includes_runtime {
        (BTreeSet::new(), BTreeSet::new())
    } else {
        (global_names(&rt)?, type_keys(&rt)?)
    };
    // What each library added: registries only grow, so their sizes tell.
    let mut registered = Vec::with_capacity(opts.libs.len());
    for lib in &opts.libs {
        let sizes_before = (global_count(&rt)?, type_keys(&rt)?.len());
        rt.load_library(lib)?;
        registered.push((global_count(&rt)?, type_keys(&rt)?.len()) != sizes_before);
    }
    let keep = |name: &str| opts.prefix.as_deref().is_none_or(|p| name.starts_with(p));
    let names: Vec<String> = global_names(&rt)?
        .into_iter()
        .filter(|n| !names_before.contains(n) && keep(n))
        .collect();
    let keys: Vec<String> = type_keys(&rt)?
        .into_iter()
        .filter(|k| !keys_before.contains(k) && keep(k))
        .collect();

    let (functions, types) = read_items(&rt, &names, &keys)?;
    let exported = opts
        .libs
        .iter()
        .map(|lib| exports::module(&rt, lib))
        .collect::<Result<Vec<_>, _>>()?;
    let empty_libraries = opts
        .libs
        .iter()
        .zip(&registered)
        .zip(&exported)
        .filter(|((lib, registered), module)| !**registered && module.is_none() && !is_runtime(lib))
        .map(|((lib, _), _)| lib.clone())
        .collect();
    let libraries = opts.libs.iter().map(|l| file_name(l)).collect();
    let mut reflection = Reflection::new(libraries, opts.prefix.clone(), functions, types);
    reflection.set_modules(exported.into_iter().flatten().collect());
    Ok(Dump {
        reflection,
        empty_libraries,
    })
}

/// Reads the reflection of the global functions `names` and the types `keys`.
fn read_items(
    rt: &Runtime,
    names: &[String],
    keys: &[String],
) -> Result<(Vec<Function>, Vec<ObjectType>), DumpError> {
    let reader = Reader::new(rt)?;
    let functions = names
        .iter()
        .map(|n| reader.function(n))
        .collect::<Result<Vec<_>, _>>()?;
    let types = keys
        .iter()
        .map(|k| reader.object_type(k))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((functions, types))
}

/// The reflection of what is registered now in the runtime of this process, whoever registered
/// it (libraries, and bindings that define types and functions at run time, such as Julia's
/// `@ffi_object` and Node's `ffi.defineClass`): every global function and type whose name starts
/// with `prefix` (everything, the runtime's built-ins included, when it is empty). Called from
/// inside a process, through `ffihub.DumpReflection` (the `ffihub-dump` library).
pub fn dump_registered(prefix: &str) -> Result<Reflection, DumpError> {
    let rt = Runtime::loaded()?;
    let names: Vec<String> = global_names(&rt)?
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .collect();
    let keys: Vec<String> = type_keys(&rt)?
        .into_iter()
        .filter(|k| k.starts_with(prefix))
        .collect();
    let (functions, types) = read_items(&rt, &names, &keys)?;
    let prefix = (!prefix.is_empty()).then(|| prefix.to_string());
    Ok(Reflection::new(Vec::new(), prefix, functions, types))
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

const LIST_GLOBALS: &str = "ffi.FunctionListGlobalNamesFunctor";

/// The functor listing the global names, and how many there are.
fn globals_functor(rt: &Runtime) -> Result<(Obj<'_>, i64), DumpError> {
    let what = LIST_GLOBALS;
    let lister = rt.require_global(what)?;
    let Value::Obj(functor) = rt.call(&lister, &[], what)? else {
        return Err(DumpError::Call(format!("{what} did not return a function")));
    };
    let Value::Int(count) = rt.call(&functor, &[Arg::Int(-1)], what)? else {
        return Err(DumpError::Call(format!(
            "{what}(-1) did not return a count"
        )));
    };
    Ok((functor, count))
}

fn global_count(rt: &Runtime) -> Result<i64, DumpError> {
    Ok(globals_functor(rt)?.1)
}

fn global_names(rt: &Runtime) -> Result<BTreeSet<String>, DumpError> {
    let what = LIST_GLOBALS;
    let (functor, count) = globals_functor(rt)?;
    (0..count)
        .map(|i| match rt.call(&functor, &[Arg::Int(i)], what)? {
            Value::Str(s) => Ok(s),
            _ => Err(DumpError::Call(format!(
                "{what}({i}) did not return a name"
            ))),
        })
        .collect()
}

fn type_keys(rt: &Runtime) -> Result<BTreeSet<String>, DumpError> {
    let what = "ffi.GetRegisteredTypeKeys";
    let f = rt.require_global(what)?;
    match rt.call(&f, &[], what)? {
        Value::Obj(arr) => Ok(rt.string_array(&arr, what)?.into_iter().collect()),
        _ => Err(DumpError::Call(format!("{what} did not return an array"))),
    }
}

/// Splits a metadata JSON text into the parsed `type_schema` (if it parses) and the other keys.
/// A `type_schema` that does not parse stays in the metadata verbatim; text that is not a JSON
/// object is kept under the key `unparsed`.
fn split_metadata(text: &str) -> (Option<TypeSchema>, Metadata) {
    let mut meta = Metadata::new();
    if text.trim().is_empty() {
        return (None, meta);
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(obj)) => {
            meta.extend(obj);
            let parsed = meta
                .get("type_schema")
                .and_then(|v| v.as_str())
                .and_then(|s| TypeSchema::from_json_str(s).ok());
            if parsed.is_some() {
                meta.remove("type_schema");
            }
            (parsed, meta)
        }
        _ => {
            meta.insert("unparsed".into(), serde_json::Value::String(text.into()));
            (None, meta)
        }
    }
}

/// The signature of a function-typed schema: `Some(Some(sig))` typed, `Some(None)` packed, and
/// `None` if the schema is not a function (it then stays in the metadata).
fn function_signature(schema: Option<TypeSchema>, meta: &mut Metadata) -> Option<Signature> {
    match schema {
        Some(s) if s.origin.is_function() => s.signature.map(|b| *b),
        Some(s) => {
            meta.insert(
                "type_schema".into(),
                serde_json::Value::String(s.to_json_string()),
            );
            None
        }
        None => None,
    }
}

/// Reads reflection records into the document model.
struct Reader<'rt> {
    rt: &'rt Runtime,
    metadata_fn: runtime::Obj<'rt>,
    /// `ffihub.GetGlobalFuncDoc`: a global's `TVMFFIMethodInfo::doc`, which ffihub's runtime
    /// returns and Apache's keeps to itself.
    doc_fn: Option<runtime::Obj<'rt>>,
}

impl<'rt> Reader<'rt> {
    fn new(rt: &'rt Runtime) -> Result<Self, DumpError> {
        Ok(Reader {
            rt,
            metadata_fn: rt.require_global("ffi.GetGlobalFuncMetadata")?,
            doc_fn: rt.global("ffihub.GetGlobalFuncDoc")?,
        })
    }

    /// A global's doc: the metadata's `doc` entry (the Rust macros put the doc comment there;
    /// C++ authors can with `refl::Metadata({{"doc", ...}})`), else the doc the runtime
    /// returns. Apache's runtime keeps the doc of `GlobalDef().def(name, f, doc)` to itself.
    fn function_doc(&self, name: &str, metadata: &mut Metadata) -> Result<String, DumpError> {
        if let Some(serde_json::Value::String(doc)) = metadata.get("doc") {
            let doc = doc.clone();
            metadata.remove("doc");
            return Ok(doc);
        }
        let Some(doc_fn) = &self.doc_fn else {
            return Ok(String::new());
        };
        let what = format!("ffihub.GetGlobalFuncDoc({name})");
        match self.rt.call(doc_fn, &[Arg::Str(name)], &what)? {
            Value::Str(s) => Ok(s),
            Value::None => Ok(String::new()),
            _ => Err(DumpError::Call(format!("{what} did not return a string"))),
        }
    }

    fn function(&self, name: &str) -> Result<Function, DumpError> {
        let what = format!("ffi.GetGlobalFuncMetadata({name})");
        let text = match self.rt.call(&self.metadata_fn, &[Arg::Str(name)], &what)? {
            Value::Str(s) => s,
            Value::None => String::new(),
            _ => return Err(DumpError::Call(format!("{what} did not return a string"))),
        };
        let (schema, mut metadata) = split_metadata(&text);
        let signature = function_signature(schema, &mut metadata);
        let doc = self.function_doc(name, &mut metadata)?;
        Ok(Function {
            name: name.to_string(),
            doc,
            signature,
            metadata,
        })
    }

    fn object_type(&self, key: &str) -> Result<ObjectType, DumpError> {
        let index = self.rt.type_index(key)?;
        let info = self.rt.type_info(index)?;
        let ancestors = (0..info.type_depth.max(0) as usize)
            .map(|i| {
                // SAFETY: a type has `type_depth` ancestors, each a live record.
                let a = unsafe { (*info.type_ancestors.add(i)).as_ref() };
                a.map(|a| unsafe { runtime_str(&a.type_key) })
                    .ok_or_else(|| DumpError::Call(format!("{key}: null ancestor {i}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        // SAFETY: the metadata pointer is NULL or a live record.
        let meta = unsafe { info.metadata.as_ref() };
        let fields = self.fields(info)?;
        let methods = self.methods(info);
        let type_attrs: Vec<String> = TYPE_ATTRS
            .iter()
            .filter(|name| self.rt.type_attr(name, index).is_some())
            .map(|s| s.to_string())
            .collect();
        let is_final = self
            .rt
            .type_attr("__ffi_type_final__", index)
            // SAFETY: a bool Any carries its value in v_int64.
            .is_some_and(|v| v.type_index == tindex::BOOL && unsafe { v.value.v_int64 } != 0);
        let constructor = if methods
            .iter()
            .any(|m| m.is_static && m.name == "__ffi_init__")
        {
            Some(Constructor::InitMethod)
        } else if type_attrs.iter().any(|a| a == "__ffi_init__") {
            Some(Constructor::AutoInit)
        } else {
            None
        };
        Ok(ObjectType {
            key: key.to_string(),
            ancestors,
            // SAFETY: metadata strings are runtime-owned.
            doc: meta
                .map(|m| unsafe { runtime_str(&m.doc) })
                .unwrap_or_default(),
            total_size: meta
                .map(|m| i64::from(m.total_size))
                .filter(|size| *size > 0),
            is_final,
            constructor,
            fields,
            methods,
            type_attrs,
        })
    }

    fn fields(&self, info: &TVMFFITypeInfo) -> Result<Vec<Field>, DumpError> {
        let records: &[TVMFFIFieldInfo] = if info.num_fields > 0 && !info.fields.is_null() {
            // SAFETY: `fields` holds `num_fields` records.
            unsafe { std::slice::from_raw_parts(info.fields, info.num_fields as usize) }
        } else {
            &[]
        };
        records
            .iter()
            .map(|f| {
                // SAFETY: reflection strings are runtime-owned.
                let (name, doc, meta_text) = unsafe {
                    (
                        runtime_str(&f.name),
                        runtime_str(&f.doc),
                        runtime_str(&f.metadata),
                    )
                };
                let (ty, metadata) = split_metadata(&meta_text);
                let flags = FieldFlags(f.flags);
                let default = if flags.has(FieldFlags::DEFAULT_FROM_FACTORY) {
                    Some(DefaultValue::Factory)
                } else if flags.has(FieldFlags::HAS_DEFAULT) {
                    Some(self.default_value(&f.default_value_or_factory)?)
                } else {
                    None
                };
                Ok(Field {
                    name,
                    ty,
                    doc,
                    flags,
                    default,
                    offset: Some(f.offset),
                    size: Some(f.size),
                    alignment: Some(f.alignment),
                    metadata,
                })
            })
            .collect()
    }

    fn methods(&self, info: &TVMFFITypeInfo) -> Vec<Method> {
        let records: &[TVMFFIMethodInfo] = if info.num_methods > 0 && !info.methods.is_null() {
            // SAFETY: `methods` holds `num_methods` records.
            unsafe { std::slice::from_raw_parts(info.methods, info.num_methods as usize) }
        } else {
            &[]
        };
        records
            .iter()
            .map(|m| {
                // SAFETY: reflection strings are runtime-owned.
                let (name, doc, meta_text) = unsafe {
                    (
                        runtime_str(&m.name),
                        runtime_str(&m.doc),
                        runtime_str(&m.metadata),
                    )
                };
                let (schema, mut metadata) = split_metadata(&meta_text);
                let signature = function_signature(schema, &mut metadata);
                Method {
                    name,
                    is_static: m.flags & 4 != 0,
                    doc,
                    signature,
                    metadata,
                }
            })
            .collect()
    }

    /// Spells a default value (a borrowed Any owned by the type record).
    fn default_value(&self, v: &TVMFFIAny) -> Result<DefaultValue, DumpError> {
        // SAFETY: every arm reads the payload its tag announces.
        Ok(unsafe {
            match v.type_index {
                tindex::NONE => DefaultValue::None,
                tindex::INT => DefaultValue::Int(v.value.v_int64),
                tindex::BOOL => DefaultValue::Bool(v.value.v_int64 != 0),
                tindex::FLOAT if v.value.v_float64.is_finite() => {
                    DefaultValue::Float(v.value.v_float64)
                }
                tindex::DATA_TYPE => {
                    DefaultValue::DataType(self.rt.dtype_string(&v.value.v_dtype)?)
                }
                tindex::DEVICE => DefaultValue::Device {
                    device_type: v.value.v_device.device_type,
                    device_id: v.value.v_device.device_id,
                },
                tindex::SMALL_STR | tindex::STR => {
                    DefaultValue::String(self.rt.view_string(v).unwrap_or_default())
                }
                tindex::FUNCTION => DefaultValue::Factory,
                t => DefaultValue::Opaque(self.type_name(t)),
            }
        })
    }

    fn type_name(&self, index: i32) -> String {
        match index {
            tindex::FLOAT => "float".into(),
            t if t >= tindex::OBJECT => self
                .rt
                .type_info(t)
                // SAFETY: type keys are runtime-owned.
                .map(|i| unsafe { runtime_str(&i.type_key) })
                .unwrap_or_else(|_| "ffi.Object".into()),
            t => format!("type index {t}"),
        }
    }
}
