//! Modules (`ffi.Module`, type index 73): namespaces of functions loaded from shared libraries,
//! from the statically linked system library, or made by custom loaders.
//!
//! # Object layout
//!
//! Apache's `ModuleObj` is a polymorphic C++ class: its vptr sits at C++ offset 0 and the
//! `TVMFFIObject` header at +8, so a module handle points 8 bytes into the allocation, and the
//! `ModuleObj*` that C++ code (and `__tvm_ffi__library_ctx`) sees is `handle - 8`. After the
//! header come the reflected `imports_` (`Array<Any>`, header+24) and `import_lookup_cache_`
//! (`Map<String, Function>`, header+32), 48 bytes in all. Modules made here keep exactly that
//! prefix, then their Rust state:
//!
//! ```text
//! +0  vptr                  NULL: C++ virtual calls on ffihub modules are NOT supported
//! +8  TVMFFIObject header   <- the handle
//! +32 imports_              NULL (= an empty Array; the imports live in the Rust state)
//! +40 import_lookup_cache_  NULL (= an empty Map; the cache lives in the Rust state)
//! +48 Rust state (implementation, imports, lookup cache)
//! ```
//!
//! The two container slots stay NULL because the runtime's Array/Map containers are written
//! separately; header-only C++ code that reads `mod->imports()` of an ffihub module sees no
//! imports. Everything else goes through the `ffi.Module*` globals, which work on ffihub modules
//! and, as far as the data layout allows, on modules created by foreign C++ code: their imports
//! are read from their `imports_` array, but their virtual methods (kind, lookups...) cannot be
//! called from Rust, so those operations report a clear error instead.

mod array_compat;
mod library;
pub mod library_bin;
mod symbol_extent;

pub use library::{
    globals_add, globals_remove, load_dso, load_from_bytes, load_from_file, system_lib,
};

use crate::abi::TVMFFIObject;
use crate::any::Any;
use crate::error::Error;
use crate::object::{dec_ref, inc_ref, ObjectRef, DELETE_STRONG, DELETE_WEAK, FRESH_COUNT};
use crate::tindex;
use std::collections::{HashMap, HashSet};
use std::ffi::c_void;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};

/// `Module::kBinarySerializable`: the module can be saved with `SaveToBytes`.
pub const PROPERTY_BINARY_SERIALIZABLE: i64 = 0b001;
/// `Module::kRunnable`: the module's functions can run.
pub const PROPERTY_RUNNABLE: i64 = 0b010;
/// `Module::kCompilationExportable`: the module can be exported into a compiled library.
pub const PROPERTY_COMPILATION_EXPORTABLE: i64 = 0b100;

/// The behaviour of a module kind: the Rust counterpart of the virtual methods of Apache's C++
/// `ModuleObj`, with the same defaults.
pub trait ModuleImpl: Send + Sync + 'static {
    /// The kind, such as `"library"`.
    fn kind(&self) -> &str;

    /// A mask of `PROPERTY_*` bits.
    fn property_mask(&self) -> i64 {
        0
    }

    /// The function `name` of this module alone (no imports). `module` is the module object
    /// itself, for functions that must keep it alive.
    fn get_function(&self, module: &Module, name: &[u8]) -> Result<Option<ObjectRef>, Error>;

    /// Whether this module alone has `name`.
    fn implements_function(&self, module: &Module, name: &[u8]) -> Result<bool, Error> {
        Ok(self.get_function(module, name)?.is_some())
    }

    /// The docstring of `name`, if the module has one.
    fn function_doc(&self, _name: &[u8]) -> Result<Option<Vec<u8>>, Error> {
        Ok(None)
    }

    /// The metadata JSON of `name`, if the module has it.
    fn function_metadata(&self, _name: &[u8]) -> Result<Option<Vec<u8>>, Error> {
        Ok(None)
    }

    /// Writes the module to a file.
    fn write_to_file(&self, _file: &[u8], _format: &[u8]) -> Result<(), Error> {
        Err(Error::new(
            "RuntimeError",
            format!("Module[{}] does not support WriteToFile", self.kind()),
        ))
    }

    /// The formats `write_to_file` accepts.
    fn write_formats(&self) -> Vec<Vec<u8>> {
        Vec::new()
    }

    /// Serializes the module (the inverse of `ffi.Module.load_from_bytes.<kind>`).
    fn save_to_bytes(&self) -> Result<Vec<u8>, Error> {
        Err(Error::new(
            "RuntimeError",
            format!("Module[{}] does not support SaveToBytes", self.kind()),
        ))
    }

    /// Source code of the module in `format` (empty when there is none).
    fn inspect_source(&self, _format: &[u8]) -> Result<Vec<u8>, Error> {
        Ok(Vec::new())
    }
}

/// The Rust state of an ffihub module. Fields drop in order: imports and cached functions are
/// released before the implementation (which may unload a library their code lives in), and
/// the keep-alive guards last.
struct ModuleState {
    imports: Mutex<Vec<Module>>,
    /// `TVMFFIEnvModLookupFromImports` results; entries are never removed, so the borrowed
    /// handles it returns stay valid while the module lives.
    lookup_cache: Mutex<HashMap<Box<[u8]>, ObjectRef>>,
    imp: Box<dyn ModuleImpl>,
    /// Resources that must outlive the module (the library a custom module was loaded from).
    keep_alive: Mutex<Vec<Arc<dyn Send + Sync>>>,
    /// An object from `alloc_object`, so that `ffihub.LiveObjectCount` counts modules too.
    _counted: ObjectRef,
}

/// The allocation of an ffihub module (see the module docs for the layout).
#[repr(C)]
struct ModuleBlock {
    vptr: *const c_void,
    header: TVMFFIObject,
    imports_slot: *mut TVMFFIObject,
    lookup_cache_slot: *mut TVMFFIObject,
    state: ModuleState,
}

const _: () = {
    assert!(std::mem::offset_of!(ModuleBlock, header) == 8);
    assert!(std::mem::offset_of!(ModuleBlock, imports_slot) == 8 + 24);
    assert!(std::mem::offset_of!(ModuleBlock, lookup_cache_slot) == 8 + 32);
    assert!(std::mem::offset_of!(ModuleBlock, state) == 48);
};

/// Offset of the header in a C++ `ModuleObj` (its vptr comes first).
const HEADER_OFFSET: usize = 8;

/// The deleter of ffihub modules.
unsafe extern "C" fn delete_module(obj: *mut c_void, flags: i32) {
    let block = obj.cast::<u8>().sub(HEADER_OFFSET).cast::<ModuleBlock>();
    if flags & DELETE_STRONG != 0 {
        // SAFETY: the strong count reached zero: nobody uses the state any more. A panicking
        // destructor aborts here (extern "C"), it cannot unwind into C.
        dec_ref((*block).imports_slot);
        dec_ref((*block).lookup_cache_slot);
        std::ptr::drop_in_place(std::ptr::addr_of_mut!((*block).state));
    }
    if flags & DELETE_WEAK != 0 {
        // SAFETY: the block came from `Box::new` in `new_module`, whose layout is this one.
        std::alloc::dealloc(block.cast(), std::alloc::Layout::new::<ModuleBlock>());
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Creates a module of a Rust-implemented kind.
pub fn new_module(imp: impl ModuleImpl) -> Module {
    let block = Box::new(ModuleBlock {
        vptr: std::ptr::null(),
        header: TVMFFIObject {
            combined_ref_count: AtomicU64::new(FRESH_COUNT),
            type_index: tindex::MODULE,
            __padding: 0,
            deleter: Some(delete_module),
        },
        imports_slot: std::ptr::null_mut(),
        lookup_cache_slot: std::ptr::null_mut(),
        state: ModuleState {
            imports: Mutex::new(Vec::new()),
            lookup_cache: Mutex::new(HashMap::new()),
            imp: Box::new(imp),
            keep_alive: Mutex::new(Vec::new()),
            _counted: crate::object::alloc_object(tindex::OBJECT, (), 0),
        },
    });
    let block = Box::into_raw(block);
    // SAFETY: the block is live and its header carries the one fresh reference.
    Module(unsafe { ObjectRef::from_raw(std::ptr::addr_of_mut!((*block).header)) })
}

/// Is `obj` (a module) made by this runtime?
fn is_ffihub_module(obj: *mut TVMFFIObject) -> bool {
    // SAFETY: the caller holds a reference, so the header is readable.
    let deleter = unsafe { (*obj).deleter };
    deleter.map(|d| d as usize) == Some(delete_module as usize)
}

/// A reference to a module object (ffihub's or foreign).
#[derive(Clone, Debug)]
pub struct Module(ObjectRef);

impl Module {
    /// Wraps an object, checking that it is a module.
    pub fn from_object(obj: ObjectRef) -> Result<Module, Error> {
        if obj.type_index() == tindex::MODULE {
            Ok(Module(obj))
        } else {
            Err(Error::new(
                "TypeError",
                format!(
                    "Cannot convert from type `{}` to `ffi.Module`",
                    crate::builtins::type_key_of(obj.type_index())
                ),
            ))
        }
    }

    /// Takes a module out of a value, as Apache's `cast<Module>()` does.
    pub fn from_any(value: Any) -> Result<Module, Error> {
        match value.as_object() {
            Some(obj) => Module::from_object(obj.clone()),
            None => Err(Error::new(
                "TypeError",
                format!(
                    "Cannot convert from type `{}` to `ffi.Module`",
                    crate::builtins::type_key_of(value.type_index())
                ),
            )),
        }
    }

    /// The module object.
    pub fn as_object(&self) -> &ObjectRef {
        &self.0
    }

    /// Gives up the wrapper, keeping the reference.
    pub fn into_object(self) -> ObjectRef {
        self.0
    }

    /// The address C++ code knows the module by (`ModuleObj*`, 8 bytes before the header): the
    /// value written into a library's `__tvm_ffi__library_ctx`.
    pub fn library_ctx(&self) -> *mut c_void {
        self.0
            .as_ptr()
            .cast::<u8>()
            .wrapping_sub(HEADER_OFFSET)
            .cast()
    }

    /// Whether this runtime created the module (as opposed to foreign C++ code).
    pub fn is_ffihub(&self) -> bool {
        is_ffihub_module(self.0.as_ptr())
    }

    fn state(&self) -> Option<&ModuleState> {
        if self.is_ffihub() {
            // SAFETY: ffihub modules are `ModuleBlock`s, alive while we hold the reference.
            Some(unsafe {
                &(*self
                    .0
                    .as_ptr()
                    .cast::<u8>()
                    .sub(HEADER_OFFSET)
                    .cast::<ModuleBlock>())
                .state
            })
        } else {
            None
        }
    }

    /// The state, or the error for operations that need a foreign module's virtual methods.
    fn ours(&self, operation: &str) -> Result<&ModuleState, Error> {
        self.state().ok_or_else(|| {
            Error::new(
                "RuntimeError",
                format!(
                    "{operation}: the module at {:p} was created by foreign C++ code; the ffihub \
                     runtime cannot call the virtual methods of a C++ ModuleObj",
                    self.0.as_ptr()
                ),
            )
        })
    }

    /// The module's kind.
    pub fn kind(&self) -> Result<String, Error> {
        Ok(self.ours("Module::kind")?.imp.kind().to_string())
    }

    /// The module's `PROPERTY_*` mask.
    pub fn property_mask(&self) -> Result<i64, Error> {
        Ok(self.ours("Module::GetPropertyMask")?.imp.property_mask())
    }

    /// Visits this module and (when `query_imports`) its imports depth-first, in import order,
    /// until `f` returns something. Each module is visited once, so a foreign cycle cannot loop.
    fn search<T>(
        &self,
        query_imports: bool,
        mut f: impl FnMut(&Module) -> Result<Option<T>, Error>,
    ) -> Result<Option<T>, Error> {
        if !query_imports {
            return f(self);
        }
        let mut seen = HashSet::new();
        let mut stack = vec![self.clone()];
        while let Some(module) = stack.pop() {
            if !seen.insert(module.0.as_ptr() as usize) {
                continue;
            }
            if let Some(found) = f(&module)? {
                return Ok(Some(found));
            }
            stack.extend(module.imports().into_iter().rev());
        }
        Ok(None)
    }

    /// Function `name` of the module, or of its imports (depth-first) when `query_imports`.
    pub fn get_function(
        &self,
        name: &[u8],
        query_imports: bool,
    ) -> Result<Option<ObjectRef>, Error> {
        self.search(query_imports, |m| {
            m.ours("Module::GetFunction")?.imp.get_function(m, name)
        })
    }

    /// Whether the module (or its imports, when `query_imports`) has `name`.
    pub fn implements_function(&self, name: &[u8], query_imports: bool) -> Result<bool, Error> {
        let found = self.search(query_imports, |m| {
            let state = m.ours("Module::ImplementsFunction")?;
            Ok(state.imp.implements_function(m, name)?.then_some(()))
        })?;
        Ok(found.is_some())
    }

    /// The docstring of `name`.
    pub fn function_doc(&self, name: &[u8], query_imports: bool) -> Result<Option<Vec<u8>>, Error> {
        self.search(query_imports, |m| {
            m.ours("Module::GetFunctionDoc")?.imp.function_doc(name)
        })
    }

    /// The metadata JSON of `name`.
    pub fn function_metadata(
        &self,
        name: &[u8],
        query_imports: bool,
    ) -> Result<Option<Vec<u8>>, Error> {
        self.search(query_imports, |m| {
            m.ours("Module::GetFunctionMetadata")?
                .imp
                .function_metadata(name)
        })
    }

    /// Writes the module to `file` in `format`.
    pub fn write_to_file(&self, file: &[u8], format: &[u8]) -> Result<(), Error> {
        self.ours("Module::WriteToFile")?
            .imp
            .write_to_file(file, format)
    }

    /// The formats `write_to_file` accepts.
    pub fn write_formats(&self) -> Result<Vec<Vec<u8>>, Error> {
        Ok(self.ours("Module::GetWriteFormats")?.imp.write_formats())
    }

    /// Serializes the module.
    pub fn save_to_bytes(&self) -> Result<Vec<u8>, Error> {
        self.ours("Module::SaveToBytes")?.imp.save_to_bytes()
    }

    /// The module's source in `format`.
    pub fn inspect_source(&self, format: &[u8]) -> Result<Vec<u8>, Error> {
        self.ours("Module::InspectSource")?
            .imp
            .inspect_source(format)
    }

    /// The modules this one imports, in order. Foreign modules' imports are read from their
    /// `imports_` array.
    pub fn imports(&self) -> Vec<Module> {
        match self.state() {
            Some(state) => lock(&state.imports).clone(),
            None => {
                // SAFETY: a C++ ModuleObj keeps `Array<Any> imports_` at header+24, and we hold
                // a reference to the module so the array is alive.
                let items = unsafe {
                    let slot = self
                        .0
                        .as_ptr()
                        .cast::<u8>()
                        .add(24)
                        .cast::<*mut TVMFFIObject>();
                    array_compat::array_items(*slot)
                };
                items
                    .into_iter()
                    .filter_map(|a| Module::from_any(a).ok())
                    .collect()
            }
        }
    }

    /// Adds `other` to the imports, refusing to create a cycle
    /// (`RuntimeError: Cyclic dependency detected during import`).
    pub fn import_module(&self, other: &Module) -> Result<(), Error> {
        let state = self.ours("Module::ImportModule")?;
        let me = self.0.as_ptr() as usize;
        let reaches_me = other.search(true, |m| Ok((m.0.as_ptr() as usize == me).then_some(())))?;
        if reaches_me.is_some() {
            return Err(Error::new(
                "RuntimeError",
                "Cyclic dependency detected during import",
            ));
        }
        lock(&state.imports).push(other.clone());
        Ok(())
    }

    /// Removes every import (the lookup cache is kept, as in Apache's runtime).
    pub fn clear_imports(&self) -> Result<(), Error> {
        let state = self.ours("Module::ClearImports")?;
        let old = std::mem::take(&mut *lock(&state.imports));
        // Released outside the lock: a module's destructor may unload a library.
        drop(old);
        Ok(())
    }

    /// `TVMFFIEnvModLookupFromImports` for this module: `name` from the imports (depth-first),
    /// else from the global registry. The result is cached in the module and returned
    /// **borrowed**: it stays valid as long as the module lives.
    pub fn lookup_from_imports(&self, name: &[u8]) -> Result<*mut TVMFFIObject, Error> {
        let state = self.ours("TVMFFIEnvModLookupFromImports")?;
        if let Some(cached) = lock(&state.lookup_cache).get(name) {
            return Ok(cached.as_ptr());
        }
        let imports = lock(&state.imports).clone();
        let mut found = None;
        for import in &imports {
            if let Some(function) = import.get_function(name, true)? {
                found = Some(function);
                break;
            }
        }
        let found = match found {
            Some(function) => function,
            None => crate::registry::get(name)
                .map(|entry| entry.function.clone())
                .ok_or_else(|| {
                    Error::new(
                        "RuntimeError",
                        format!(
                            "Cannot find function {} in the imported modules or global registry.",
                            String::from_utf8_lossy(name)
                        ),
                    )
                })?,
        };
        let mut cache = lock(&state.lookup_cache);
        // A racing lookup may have cached one already: keep the first, which may be handed out.
        let kept = cache.entry(name.into()).or_insert(found).as_ptr();
        Ok(kept)
    }

    /// Keeps `guard` alive as long as the module.
    fn keep_alive(&self, guard: Arc<dyn Send + Sync>) {
        if let Some(state) = self.state() {
            lock(&state.keep_alive).push(guard);
        }
    }
}

/// A new `ffi.Array` of `items` (strings, for `ffi.ModuleGetWriteFormats`).
pub(crate) fn string_array(items: Vec<Any>) -> ObjectRef {
    array_compat::array_of(items)
}

/// `TVMFFIEnvModLookupFromImports(library_ctx, name, &out)`: `library_ctx` is the value the
/// loader wrote into the library's `__tvm_ffi__library_ctx` (`ModuleObj*`, i.e. the module handle
/// minus 8). Returns a borrowed Function handle owned by the module's lookup cache.
pub fn lookup_from_imports(
    library_ctx: *mut c_void,
    name: &[u8],
) -> Result<*mut TVMFFIObject, Error> {
    if library_ctx.is_null() {
        return Err(Error::new(
            "RuntimeError",
            format!(
                "Cannot look up {}: the library context is NULL (the library was not loaded as a \
                 module, or its module was released)",
                String::from_utf8_lossy(name)
            ),
        ));
    }
    let header = library_ctx
        .cast::<u8>()
        .wrapping_add(HEADER_OFFSET)
        .cast::<TVMFFIObject>();
    // SAFETY: a non-NULL library context is a module pointer written by the loader; the
    // module is alive while code of its library runs (the loader clears the context when the
    // module goes away).
    unsafe {
        if (*header).type_index != tindex::MODULE || !is_ffihub_module(header) {
            return Err(Error::new(
                "RuntimeError",
                "TVMFFIEnvModLookupFromImports: library_ctx is not a module created by the \
                 ffihub runtime",
            ));
        }
        inc_ref(header);
        Module(ObjectRef::from_raw(header)).lookup_from_imports(name)
    }
}

#[cfg(test)]
mod tests;
