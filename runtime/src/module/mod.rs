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
//! +0  vptr                  the C++ layer's module class: its slots call the ModuleImpl
//! +8  TVMFFIObject header   <- the handle
//! +32 imports_              an ffi.Array of the imported modules, as in C++
//! +40 import_lookup_cache_  an ffi.Map from names to Functions, as in C++
//! +48 Rust state (the kind's implementation, a lock for the cache)
//! ```
//!
//! Both containers are the runtime's real Array and Map, so header-only C++ code reading
//! `mod->imports()` sees the imports.
//!
//! Modules cross the language boundary both ways (ADR 0005): C++ code calling the virtual
//! methods of an ffihub module reaches its [`ModuleImpl`] through the vtable of the C++ layer
//! (`runtime/cxx/module.cc`), and the runtime calls the virtual methods of a module made by
//! foreign C++ code (any `ModuleObj` subclass) through that module's own vtable, with C++
//! exceptions turned into errors (`crate::module::cxx`). Imports are read through the `imports_` array
//! of every module; the base `ImportModule`/`ClearImports` edit it. `ffihub.LiveObjectCount`
//! counts a module through the two containers it always owns.

pub(crate) mod cxx;
mod library;
pub mod library_bin;
mod symbol_extent;

pub use library::{
    globals_add, globals_remove, load_dso, load_from_bytes, load_from_file, system_lib,
};

use crate::abi::TVMFFIObject;
use crate::containers::map::Map;
use crate::containers::seq::Array;
use crate::module::cxx::virtual_call;
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::{dec_ref, ObjectRef, DELETE_STRONG, DELETE_WEAK, FRESH_COUNT};
use std::collections::HashSet;
use std::ffi::{c_char, c_void, CStr, CString};
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
    /// The kind, NUL-terminated for C++ callers of `ModuleObj::kind()`.
    kind: CString,
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
        crate::value::object::count_free(obj.cast());
        std::alloc::dealloc(block.cast(), std::alloc::Layout::new::<ModuleBlock>());
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
    let kind = CString::new(imp.kind().replace('\0', "")).unwrap_or_default();
    let block = Box::new(ModuleBlock {
        vptr: crate::module::cxx::module_vptr(),
        header: TVMFFIObject {
            combined_ref_count: AtomicU64::new(FRESH_COUNT),
            type_index: tindex::MODULE,
            __padding: 0,
            deleter: Some(delete_module),
        },
        imports_slot: Array::new().into_object().into_raw(),
        lookup_cache_slot: Map::new().into_object().into_raw(),
        state: ModuleState {
            kind,
            imp: Box::new(imp),
        },
    });
    let block = Box::into_raw(block);
    // SAFETY: the block is live, only ours, and its header carries the one fresh reference.
    unsafe {
        let header = std::ptr::addr_of_mut!((*block).header);
        crate::value::object::count_allocation(header);
        Module(ObjectRef::from_raw(header))
    }
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
                    crate::registry::types::type_key_of(obj.type_index())
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
                    crate::registry::types::type_key_of(value.type_index())
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

    /// The module's kind.
    pub fn kind(&self) -> Result<String, Error> {
        match self.state() {
            Some(state) => Ok(state.imp.kind().to_string()),
            None => virtual_call::kind(self),
        }
    }

    /// `kind()` of an ffihub module, NUL-terminated, valid while the module lives.
    pub(crate) fn own_kind_c_str(&self) -> Result<*const c_char, Error> {
        self.state()
            .map(|state| state.kind.as_ptr())
            .ok_or_else(|| Error::new("InternalError", "not a module of the ffihub runtime"))
    }

    /// The module's `PROPERTY_*` mask.
    pub fn property_mask(&self) -> Result<i64, Error> {
        match self.state() {
            Some(state) => Ok(state.imp.property_mask()),
            None => virtual_call::property_mask(self),
        }
    }

    /// Visits this module and (when `query_imports`) its imports depth-first, in import order,
    /// until `f` returns something. Each module is visited once, so a foreign cycle cannot loop.
    fn search<T>(
        &self,
        query_imports: bool,
        mut f: impl FnMut(&Module) -> Result<Option<T>, Error>,
    ) -> Result<Option<T>, Error> {
        // The module itself first, without the bookkeeping of the search through the imports.
        if let Some(found) = f(self)? {
            return Ok(Some(found));
        }
        if !query_imports {
            return Ok(None);
        }
        let mut stack: Vec<Module> = self.imports().into_iter().rev().collect();
        if stack.is_empty() {
            return Ok(None);
        }
        let mut seen = HashSet::from([self.0.as_ptr() as usize]);
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
        self.search(query_imports, |m| match m.state() {
            Some(state) => state.imp.get_function(m, name),
            None => virtual_call::get_function(m, name),
        })
    }

    /// Whether the module (or its imports, when `query_imports`) has `name`.
    pub fn implements_function(&self, name: &[u8], query_imports: bool) -> Result<bool, Error> {
        let found = self.search(query_imports, |m| {
            let found = match m.state() {
                Some(state) => state.imp.implements_function(m, name)?,
                None => virtual_call::implements_function(m, name)?,
            };
            Ok(found.then_some(()))
        })?;
        Ok(found.is_some())
    }

    /// The docstring of `name`.
    pub fn function_doc(&self, name: &[u8], query_imports: bool) -> Result<Option<Vec<u8>>, Error> {
        self.search(query_imports, |m| match m.state() {
            Some(state) => state.imp.function_doc(name),
            None => virtual_call::function_doc(m, name),
        })
    }

    /// The metadata JSON of `name`.
    pub fn function_metadata(
        &self,
        name: &[u8],
        query_imports: bool,
    ) -> Result<Option<Vec<u8>>, Error> {
        self.search(query_imports, |m| match m.state() {
            Some(state) => state.imp.function_metadata(name),
            None => virtual_call::function_metadata(m, name),
        })
    }

    /// Writes the module to `file` in `format`.
    pub fn write_to_file(&self, file: &[u8], format: &[u8]) -> Result<(), Error> {
        match self.state() {
            Some(state) => state.imp.write_to_file(file, format),
            None => virtual_call::write_to_file(self, file, format),
        }
    }

    /// The formats `write_to_file` accepts.
    pub fn write_formats(&self) -> Result<Vec<Vec<u8>>, Error> {
        match self.state() {
            Some(state) => Ok(state.imp.write_formats()),
            None => virtual_call::write_formats(self),
        }
    }

    /// Serializes the module.
    pub fn save_to_bytes(&self) -> Result<Vec<u8>, Error> {
        match self.state() {
            Some(state) => state.imp.save_to_bytes(),
            None => virtual_call::save_to_bytes(self),
        }
    }

    /// The module's source in `format`.
    pub fn inspect_source(&self, format: &[u8]) -> Result<Vec<u8>, Error> {
        match self.state() {
            Some(state) => state.imp.inspect_source(format),
            None => virtual_call::inspect_source(self, format),
        }
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

    /// `ImportModule`: the base behaviour on ffihub modules, the virtual method (which may be
    /// overridden) on foreign ones.
    pub fn import_module(&self, other: &Module) -> Result<(), Error> {
        match self.state() {
            Some(_) => self.import_module_base(other),
            None => virtual_call::import_module(self, other),
        }
    }

    /// `ClearImports`: the base behaviour on ffihub modules, the virtual method on foreign ones.
    pub fn clear_imports(&self) -> Result<(), Error> {
        match self.state() {
            Some(_) => {
                self.clear_imports_base();
                Ok(())
            }
            None => virtual_call::clear_imports(self),
        }
    }

    /// The base `ModuleObj::ImportModule`: adds `other` to the imports, refusing to create a
    /// cycle (`RuntimeError: Cyclic dependency detected during import`).
    pub(crate) fn import_module_base(&self, other: &Module) -> Result<(), Error> {
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

    /// The base `ModuleObj::ClearImports`: removes every import (the lookup cache is kept, as
    /// in Apache's runtime).
    pub(crate) fn clear_imports_base(&self) {
        self.edit_imports(|array| *array = Array::new());
    }

    /// `TVMFFIEnvModLookupFromImports` for this module: `name` from the imports (depth-first),
    /// else from the global registry, cached in the module's `import_lookup_cache_` Map and
    /// returned **borrowed** (the cache never loses an entry, so the handle stays valid while
    /// the module lives). The caller holds the process-wide lock of
    /// `ModuleObj::InternalUnsafe::GetFunctionFromImports`, which serializes every cache access.
    pub(crate) fn lookup_from_imports_locked(
        &self,
        name: &[u8],
    ) -> Result<*mut TVMFFIObject, Error> {
        let key = Any::string(name);
        if let Some(cached) = self.cache().get(&key)? {
            // The Map keeps holding the function after this owned copy is dropped.
            return Ok(cached
                .as_object()
                .map_or(std::ptr::null_mut(), |f| f.as_ptr()));
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
            None => crate::registry::globals::get(name)
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
        let function = found.as_ptr();
        // The slot's own reference moves into `cache` (so the Map is usually edited in place)
        // and back.
        // SAFETY: the slot holds a reference to a Map or NULL, changed only under the lock.
        let mut cache = unsafe {
            let owned = std::ptr::replace(self.lookup_cache_slot(), std::ptr::null_mut());
            if owned.is_null() {
                Map::new()
            } else {
                Map::from_object(ObjectRef::from_raw(owned)).unwrap_or_default()
            }
        };
        let result = cache.set(key, Any::object(found));
        // SAFETY: as above; the slot is empty.
        unsafe { *self.lookup_cache_slot() = cache.into_object().into_raw() };
        result.map(|()| function)
    }

    /// The `import_lookup_cache_` slot (header+32).
    fn lookup_cache_slot(&self) -> *mut *mut TVMFFIObject {
        self.0
            .as_ptr()
            .cast::<u8>()
            .wrapping_add(32)
            .cast::<*mut TVMFFIObject>()
    }

    /// A new reference to the lookup cache (an empty Map when the slot holds none).
    fn cache(&self) -> Map {
        // SAFETY: every module keeps `import_lookup_cache_` at header+32, written only under the
        // lookup lock the caller holds.
        let slot = unsafe { *self.lookup_cache_slot() };
        if slot.is_null() {
            return Map::new();
        }
        // SAFETY: a live object the slot holds a reference to.
        Map::from_object(unsafe { ObjectRef::from_borrowed(slot) }).unwrap_or_default()
    }
}

/// `TVMFFIEnvModLookupFromImports(library_ctx, name, &out)`: `library_ctx` is the value the
/// loader wrote into the library's `__tvm_ffi__library_ctx` (`ModuleObj*`, i.e. the module handle
/// minus 8). Returns a borrowed Function handle owned by the module's lookup cache.
pub fn lookup_from_imports(
    library_ctx: *mut c_void,
    name: &CStr,
) -> Result<*mut TVMFFIObject, Error> {
    if library_ctx.is_null() {
        return Err(Error::new(
            "RuntimeError",
            format!(
                "Cannot look up {}: the library context is NULL (the library was not loaded as a \
                 module, or its module was released)",
                name.to_string_lossy()
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
    let module = unsafe {
        if (*header).type_index != tindex::MODULE {
            return Err(Error::new(
                "RuntimeError",
                "TVMFFIEnvModLookupFromImports: library_ctx is not a module",
            ));
        }
        Module(ObjectRef::from_borrowed(header))
    };
    virtual_call::lookup_from_imports(&module, name)
}

#[cfg(test)]
mod tests;
