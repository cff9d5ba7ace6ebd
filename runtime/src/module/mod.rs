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
//! +32 imports_              an ffi.Array of the imported modules, as in C++
//! +40 import_lookup_cache_  an ffi.Map from names to Functions, as in C++
//! +48 Rust state (the kind's implementation, a lock for the cache)
//! ```
//!
//! Both containers are the runtime's real Array and Map, so header-only C++ code reading
//! `mod->imports()` sees the imports.
//!
//! The `ffi.Module*` globals work on ffihub modules and, as far as the data layout allows, on
//! modules created by foreign C++ code: their imports are read and written through their
//! `imports_` array (the base `ModuleObj::ImportModule`/`ClearImports` behaviour), but their
//! virtual methods (kind, function lookups...) cannot be called from Rust, so those operations
//! report a clear error instead. `ffihub.LiveObjectCount` counts a module through the two
//! containers it always owns.

mod library;
pub mod library_bin;
mod symbol_extent;

pub use library::{
    globals_add, globals_remove, load_dso, load_from_bytes, load_from_file, system_lib,
};

use crate::abi::TVMFFIObject;
use crate::any::Any;
use crate::containers::map::Map;
use crate::containers::seq::Array;
use crate::error::Error;
use crate::object::{dec_ref, inc_ref, ObjectRef, DELETE_STRONG, DELETE_WEAK, FRESH_COUNT};
use crate::tindex;
use std::collections::HashSet;
use std::ffi::c_void;
use std::sync::atomic::AtomicU64;
use std::sync::{Mutex, MutexGuard};

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

/// The Rust state of an ffihub module. The deleter releases the two containers (imported
/// modules, cached functions) before this state, so they go before the implementation, which
/// may unload a library their code lives in.
struct ModuleState {
    /// Serializes `TVMFFIEnvModLookupFromImports` cache reads and writes. The cache (the Map
    /// in the `import_lookup_cache_` slot) never loses an entry, so the borrowed handles it
    /// hands out stay valid while the module lives.
    lookup_cache: Mutex<()>,
    imp: Box<dyn ModuleImpl>,
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
        crate::object::count_free();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Serializes reads and writes of every module's `imports_` slot (a reader must take its
/// reference before a writer may release the old Array). Imports change rarely.
static IMPORTS_SLOT: Mutex<()> = Mutex::new(());

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
        imports_slot: Array::new().into_object().into_raw(),
        lookup_cache_slot: Map::new().into_object().into_raw(),
        state: ModuleState {
            lookup_cache: Mutex::new(()),
            imp: Box::new(imp),
        },
    });
    let block = Box::into_raw(block);
    crate::object::count_allocation();
    // SAFETY: the block is live and its header carries the one fresh reference.
    Module(unsafe { ObjectRef::from_raw(std::ptr::addr_of_mut!((*block).header)) })
}

/// Is `obj` (a module) made by this runtime?
fn is_ffihub_module(obj: *mut TVMFFIObject) -> bool {
    // SAFETY: the caller holds a reference, so the header is readable.
    let deleter = unsafe { (*obj).deleter };
    deleter.map(|d| d as usize) == Some(delete_module as *const () as usize)
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

    /// The address of the `imports_` slot (header+24 in every C++ `ModuleObj`).
    fn imports_slot(&self) -> *mut *mut TVMFFIObject {
        self.0
            .as_ptr()
            .cast::<u8>()
            .wrapping_add(24)
            .cast::<*mut TVMFFIObject>()
    }

    /// A new reference to the `imports_` Array (None when the slot holds no Array).
    fn imports_array(&self) -> Option<Array> {
        let _guard = lock(&IMPORTS_SLOT);
        // SAFETY: every module keeps `imports_` at header+24 and we hold the module; under the
        // lock nobody releases the Array between the read and the new reference.
        unsafe {
            let array = *self.imports_slot();
            if array.is_null() || (*array).type_index != tindex::ARRAY {
                return None;
            }
            Array::from_object(ObjectRef::from_borrowed(array)).ok()
        }
    }

    /// Changes the `imports_` Array with `edit` (copy-on-write: the slot gets the edited
    /// Array). The replaced Array is released after the lock, since releasing modules may run
    /// arbitrary deleters.
    fn edit_imports(&self, edit: impl FnOnce(&mut Array)) {
        let replaced = {
            let _guard = lock(&IMPORTS_SLOT);
            let slot = self.imports_slot();
            // SAFETY: as in `imports_array`; the slot owns one reference, which moves into
            // `old` and is released below.
            unsafe {
                let old = std::ptr::replace(slot, std::ptr::null_mut());
                let old = (!old.is_null()).then(|| ObjectRef::from_raw(old));
                let mut array = old
                    .as_ref()
                    .filter(|o| o.type_index() == tindex::ARRAY)
                    .and_then(|o| Array::from_object(o.clone()).ok())
                    .unwrap_or_default();
                edit(&mut array);
                *slot = array.into_object().into_raw();
                old
            }
        };
        drop(replaced);
    }

    /// The modules this one imports, in order (read from the `imports_` Array, so foreign
    /// modules work too).
    pub fn imports(&self) -> Vec<Module> {
        self.imports_array()
            .map(|array| {
                array
                    .iter()
                    .filter_map(|a| Module::from_any(a).ok())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Adds `other` to the imports, refusing to create a cycle
    /// (`RuntimeError: Cyclic dependency detected during import`). On a foreign module this
    /// applies the base `ModuleObj::ImportModule` (an override in its C++ class is bypassed).
    pub fn import_module(&self, other: &Module) -> Result<(), Error> {
        let me = self.0.as_ptr() as usize;
        let reaches_me = other.search(true, |m| Ok((m.0.as_ptr() as usize == me).then_some(())))?;
        if reaches_me.is_some() {
            return Err(Error::new(
                "RuntimeError",
                "Cyclic dependency detected during import",
            ));
        }
        let other = Any::object(other.0.clone());
        self.edit_imports(|array| array.push(other));
        Ok(())
    }

    /// Removes every import (the lookup cache is kept, as in Apache's runtime). On a foreign
    /// module this applies the base `ModuleObj::ClearImports`.
    pub fn clear_imports(&self) -> Result<(), Error> {
        self.edit_imports(|array| *array = Array::new());
        Ok(())
    }

    /// `TVMFFIEnvModLookupFromImports` for this module: `name` from the imports (depth-first),
    /// else from the global registry. The result is cached in the module and returned
    /// **borrowed**: it stays valid as long as the module lives.
    pub fn lookup_from_imports(&self, name: &[u8]) -> Result<*mut TVMFFIObject, Error> {
        let state = self.ours("TVMFFIEnvModLookupFromImports")?;
        let key = Any::string(name);
        if let Some(cached) = self.cached_lookup(state, &key)? {
            return Ok(cached);
        }
        let mut found = None;
        for import in &self.imports() {
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
        let _guard = lock(&state.lookup_cache);
        // A racing lookup may have cached one already: keep the first, which may be handed out.
        // SAFETY: ffihub modules keep a Map in the slot (this function is the only writer, under
        // the lock); the slot owns one reference, moved out and back.
        unsafe {
            let slot = self.lookup_cache_slot();
            let mut cache = Map::from_object(ObjectRef::from_raw(*slot)).map_err(|other| {
                // Not ours to release: the slot keeps its reference.
                let _ = other.into_raw();
                Error::new("InternalError", "module lookup cache is not a Map")
            })?;
            let result = match cache.get(&key) {
                Ok(Some(existing)) => Ok(existing),
                Ok(None) => {
                    let value = Any::object(found);
                    let kept = value.clone();
                    cache.set(key, value).map(|()| kept)
                }
                Err(e) => Err(e),
            };
            *slot = cache.into_object().into_raw();
            // The Map holds the function, so the pointer outlives this clone.
            let kept = result?;
            Ok(kept
                .as_object()
                .map_or(std::ptr::null_mut(), |f| f.as_ptr()))
        }
    }

    /// The `import_lookup_cache_` slot (header+32).
    fn lookup_cache_slot(&self) -> *mut *mut TVMFFIObject {
        self.0
            .as_ptr()
            .cast::<u8>()
            .wrapping_add(32)
            .cast::<*mut TVMFFIObject>()
    }

    /// The cached function for `key`, borrowed from the cache.
    fn cached_lookup(
        &self,
        state: &ModuleState,
        key: &Any,
    ) -> Result<Option<*mut TVMFFIObject>, Error> {
        let _guard = lock(&state.lookup_cache);
        // SAFETY: ffihub modules keep a Map in the slot, replaced only under the lock.
        let cache = unsafe { ObjectRef::from_borrowed(*self.lookup_cache_slot()) };
        let cache = Map::from_object(cache)
            .map_err(|_| Error::new("InternalError", "module lookup cache is not a Map"))?;
        // The Map keeps holding the function after this owned copy is dropped.
        Ok(cache
            .get(key)?
            .and_then(|f| f.as_object().map(|f| f.as_ptr())))
    }
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
