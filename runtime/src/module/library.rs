//! Library modules: shared libraries opened with `dlopen` (through `libloading`) and the
//! statically linked system library, with Apache's symbol conventions:
//!
//! - `__tvm_ffi_<name>`: a safe-call function, called with `self = NULL`;
//! - `__tvm_ffi__metadata_<name>` / `__tvm_ffi__doc_<name>`: safe-call getters returning strings;
//! - `__tvm_ffi__library_ctx`: a `void*` the loader fills with the module (`ModuleObj*`) so the
//!   library can call `TVMFFIEnvModLookupFromImports`;
//! - `__tvm_ffi__library_bin`: serialized custom modules and the import tree
//!   (see [`super::library_bin`]);
//! - every name registered with `TVMFFIEnvModRegisterContextSymbol`: a `void*` the loader fills.
//!
//! Lifetimes: a Function from a library module holds the module, which holds the library handle;
//! the handle is closed when the last of them goes, but the library stays mapped for the rest of
//! the process (`RTLD_NODELETE`): closures, objects and global functions its code made hold
//! pointers into it that no module reference accounts for
//! (docs/adr/0011-libraries-stay-mapped.md). `ffi.ModuleGlobalsAdd` pins a module.

use super::library_bin::{self, Entry};
use super::{
    lock, new_module, Module, ModuleImpl, PROPERTY_BINARY_SERIALIZABLE, PROPERTY_RUNNABLE,
};
use crate::abi::{TVMFFIAny, TVMFFIFunctionCell};
use crate::tindex;
use crate::value::any::{Any, RAW_NONE};
use crate::value::error::{take_raised_or_unknown, Error};
use crate::value::function::SafeCallFn;
use crate::value::object::{alloc_object, payload, ObjectRef};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::AtomicPtr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};

const SYMBOL_PREFIX: &[u8] = b"__tvm_ffi_";
const LIBRARY_CTX: &[u8] = b"__tvm_ffi__library_ctx";
const LIBRARY_BIN: &[u8] = b"__tvm_ffi__library_bin";
const METADATA_PREFIX: &[u8] = b"__tvm_ffi__metadata_";
const DOC_PREFIX: &[u8] = b"__tvm_ffi__doc_";

/// Where a library module's symbols come from.
pub(crate) enum Library {
    /// A shared library, closed when the last module using it goes away.
    #[cfg(unix)]
    Dso {
        handle: libloading::os::unix::Library,
        path: String,
    },
    /// The symbols registered with `TVMFFIEnvModRegisterSystemLibSymbol`, seen through a prefix.
    System { prefix: Vec<u8> },
}

fn concat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

impl Library {
    /// A raw symbol (Apache's `GetSymbol`). The system library tries `prefix + name`, then
    /// `name`.
    fn symbol(&self, name: &[u8]) -> Option<*mut c_void> {
        match self {
            #[cfg(unix)]
            Library::Dso { handle, .. } => dso_symbol(handle, name),
            Library::System { prefix } => {
                crate::value::env::system_lib_symbol(&concat(&[prefix, name]))
                    .or_else(|| crate::value::env::system_lib_symbol(name))
            }
        }
    }

    /// The symbol of function `name` (Apache's `GetSymbolWithSymbolPrefix`): `__tvm_ffi_<name>`;
    /// the system library tries `__tvm_ffi_<prefix><name>`, then `__tvm_ffi_<name>`.
    fn function_symbol(&self, name: &[u8]) -> Option<*mut c_void> {
        match self {
            #[cfg(unix)]
            Library::Dso { handle, .. } => dso_symbol(handle, &concat(&[SYMBOL_PREFIX, name])),
            Library::System { prefix } => {
                crate::value::env::system_lib_symbol(&concat(&[SYMBOL_PREFIX, prefix, name]))
                    .or_else(|| {
                        crate::value::env::system_lib_symbol(&concat(&[SYMBOL_PREFIX, name]))
                    })
            }
        }
    }

    /// Names the library in messages.
    fn describe(&self) -> String {
        match self {
            #[cfg(unix)]
            Library::Dso { path, .. } => format!("`{path}`"),
            Library::System { prefix } => format!(
                "the system library (prefix `{}`)",
                String::from_utf8_lossy(prefix)
            ),
        }
    }
}

#[cfg(unix)]
fn dso_symbol(handle: &libloading::os::unix::Library, name: &[u8]) -> Option<*mut c_void> {
    if name.contains(&0) {
        return None;
    }
    let mut c_name = Vec::with_capacity(name.len() + 1);
    c_name.extend_from_slice(name);
    c_name.push(0);
    // SAFETY: only the address is taken; nothing is read or called here.
    let symbol = unsafe { handle.get::<*mut c_void>(&c_name[..]) };
    symbol.ok().map(|s| s.into_raw()).filter(|p| !p.is_null())
}

/// Writes a pointer into a library's `void*` variable.
///
/// # Safety
/// `slot` is the address of a writable pointer-sized variable.
unsafe fn write_slot(slot: *mut c_void, value: *mut c_void) {
    let slot = slot.cast::<*mut c_void>();
    if slot.is_aligned() {
        AtomicPtr::from_ptr(slot).store(value, Ordering::Release);
    } else {
        slot.write_unaligned(value);
    }
}

/// Which live modules were written into each `__tvm_ffi__library_ctx` slot, latest last. When a
/// module goes away the slot gets the previous live one back (or NULL), so a library never sees
/// a dangling context, even when it is loaded more than once.
fn ctx_bindings() -> &'static Mutex<HashMap<usize, Vec<usize>>> {
    static BINDINGS: OnceLock<Mutex<HashMap<usize, Vec<usize>>>> = OnceLock::new();
    BINDINGS.get_or_init(|| Mutex::new(HashMap::new()))
}

fn bind_ctx(slot: *mut c_void, module: &Module) {
    let ctx = module.library_ctx();
    let mut bindings = lock(ctx_bindings());
    bindings
        .entry(slot as usize)
        .or_default()
        .push(ctx as usize);
    // SAFETY: `slot` is the library's `__tvm_ffi__library_ctx` variable; the library is loaded.
    unsafe { write_slot(slot, ctx) };
}

fn unbind_ctx(slot: usize, ctx: usize) {
    let mut bindings = lock(ctx_bindings());
    let Some(stack) = bindings.get_mut(&slot) else {
        return;
    };
    stack.retain(|&c| c != ctx);
    let current = stack.last().copied().unwrap_or(0);
    if stack.is_empty() {
        bindings.remove(&slot);
    }
    // SAFETY: the library is still loaded (the module being dropped holds it).
    unsafe { write_slot(slot as *mut c_void, current as *mut c_void) };
}

/// The module over a [`Library`] (Apache's `LibraryModuleObj`): kind `library`, runnable and
/// binary-serializable.
struct LibraryModule {
    library: Arc<Library>,
    /// `(slot, ctx)` when this module was written into the library's context variable (set
    /// right after the module object exists).
    bound_ctx: Arc<Mutex<Option<(usize, usize)>>>,
}

impl Drop for LibraryModule {
    fn drop(&mut self) {
        if let Some((slot, ctx)) = lock(&self.bound_ctx).take() {
            unbind_ctx(slot, ctx);
        }
    }
}

/// A Function over a library symbol; it holds the module so the library stays loaded.
#[repr(C)]
struct LibraryFunction {
    cell: TVMFFIFunctionCell,
    symbol: SafeCallFn,
    _module: Module,
}

unsafe extern "C" fn call_library_function(
    handle: *mut c_void,
    args: *const TVMFFIAny,
    num_args: i32,
    result: *mut TVMFFIAny,
) -> i32 {
    // SAFETY: `handle` is a LibraryFunction object (this is its safe_call); exported symbols
    // receive `self = NULL`, as with Apache's loader. Errors are raised by the callee.
    let function = payload::<LibraryFunction>(handle.cast());
    (function.symbol)(std::ptr::null_mut(), args, num_args, result)
}

/// Calls a `__tvm_ffi__metadata_*` / `__tvm_ffi__doc_*` getter, which must return a string.
///
/// # Safety
/// `symbol` is a safe-call function.
unsafe fn call_string_getter(symbol: *mut c_void) -> Result<Vec<u8>, Error> {
    let getter = std::mem::transmute::<*mut c_void, SafeCallFn>(symbol);
    let no_args = [RAW_NONE];
    let mut rv = RAW_NONE;
    let code = getter(std::ptr::null_mut(), no_args.as_ptr(), 0, &mut rv);
    if code != 0 {
        return Err(take_raised_or_unknown(code));
    }
    let rv = Any::from_raw(rv);
    match rv.type_index() {
        tindex::SMALL_STR | tindex::STR => Ok(crate::value::string::str_bytes(rv.as_raw())
            .unwrap_or_default()
            .to_vec()),
        other => Err(Error::new(
            "TypeError",
            format!(
                "Cannot convert from type `{}` to `str`",
                crate::registry::types::type_key_of(other)
            ),
        )),
    }
}

impl ModuleImpl for LibraryModule {
    fn kind(&self) -> &str {
        "library"
    }

    fn property_mask(&self) -> i64 {
        PROPERTY_BINARY_SERIALIZABLE | PROPERTY_RUNNABLE
    }

    fn get_function(&self, module: &Module, name: &[u8]) -> Result<Option<ObjectRef>, Error> {
        let Some(symbol) = self.library.function_symbol(name) else {
            return Ok(None);
        };
        // SAFETY: `__tvm_ffi_<name>` symbols are safe-call functions by convention.
        let symbol = unsafe { std::mem::transmute::<*mut c_void, SafeCallFn>(symbol) };
        let cell = TVMFFIFunctionCell {
            safe_call: Some(call_library_function),
            cpp_call: std::ptr::null_mut(),
        };
        Ok(Some(alloc_object(
            tindex::FUNCTION,
            LibraryFunction {
                cell,
                symbol,
                _module: module.clone(),
            },
            0,
        )))
    }

    fn implements_function(&self, _module: &Module, name: &[u8]) -> Result<bool, Error> {
        Ok(self.library.function_symbol(name).is_some())
    }

    fn function_doc(&self, name: &[u8]) -> Result<Option<Vec<u8>>, Error> {
        match self.library.symbol(&concat(&[DOC_PREFIX, name])) {
            // SAFETY: doc getters are safe-call functions by convention.
            Some(symbol) => unsafe { call_string_getter(symbol) }.map(Some),
            None => Ok(None),
        }
    }

    fn function_metadata(&self, name: &[u8]) -> Result<Option<Vec<u8>>, Error> {
        match self.library.symbol(&concat(&[METADATA_PREFIX, name])) {
            // SAFETY: metadata getters are safe-call functions by convention.
            Some(symbol) => unsafe { call_string_getter(symbol) }.map(Some),
            None => Ok(None),
        }
    }
}

/// A library module over `library`, written into `ctx_slot` when given.
fn library_module(library: &Arc<Library>, ctx_slot: Option<*mut c_void>) -> Module {
    let bound_ctx = Arc::new(Mutex::new(None));
    let module = new_module(LibraryModule {
        library: library.clone(),
        bound_ctx: bound_ctx.clone(),
    });
    if let Some(slot) = ctx_slot {
        bind_ctx(slot, &module);
        *lock(&bound_ctx) = Some((slot as usize, module.library_ctx() as usize));
    }
    module
}

/// Apache's `CreateLibraryModule`: fills the context symbols, then builds the module tree from
/// `__tvm_ffi__library_bin` when the library has one, else one library module (written into
/// `__tvm_ffi__library_ctx` when the library defines it).
fn create_library_module(library: Library) -> Result<Module, Error> {
    let library = Arc::new(library);
    let bin = library.symbol(LIBRARY_BIN);
    let ctx_slot = library.symbol(LIBRARY_CTX);
    for (name, value) in crate::value::env::context_symbols() {
        if let Some(slot) = library.symbol(&name) {
            // SAFETY: a context symbol the library defines is a `void*` variable by convention.
            unsafe { write_slot(slot, value) };
        }
    }
    match bin {
        Some(bin) => process_library_bin(bin.cast_const().cast(), &library, ctx_slot),
        None => Ok(library_module(&library, ctx_slot)),
    }
}

fn malformed(library: &Library, detail: impl std::fmt::Display) -> Error {
    Error::new(
        "InternalError",
        format!(
            "Malformed __tvm_ffi__library_bin in {}: {detail}",
            library.describe()
        ),
    )
}

/// The bytes of a `__tvm_ffi__library_bin` symbol: its header and the bytes the header declares,
/// checked against what the dynamic linker says can be read there.
///
/// # Safety
/// `addr` is the address of the library's `__tvm_ffi__library_bin` symbol, loaded while the
/// result is used.
unsafe fn blob_at<'a>(addr: *const u8, library: &Library) -> Result<&'a [u8], Error> {
    let extent = super::symbol_extent::readable_extent(addr.cast());
    if let Some(extent) = extent {
        if extent < 8 {
            return Err(malformed(
                library,
                format!("the symbol holds {extent} bytes, fewer than its 8-byte size header"),
            ));
        }
    }
    let declared = library_bin::declared_size(std::slice::from_raw_parts(addr, 8))
        .map_err(|e| malformed(library, e))?;
    let limit = match extent {
        Some(extent) => (extent - 8) as u64,
        // Unknown extent (memory outside every loaded object): the header is trusted, as in
        // Apache's runtime, up to what a slice can describe.
        None => (isize::MAX as u64) - 8,
    };
    if declared > limit {
        return Err(malformed(
            library,
            format!(
                "the header declares {declared} bytes but the symbol holds only {limit} after it"
            ),
        ));
    }
    Ok(std::slice::from_raw_parts(addr, 8 + declared as usize))
}

/// Apache's `ProcessLibraryBin`: loads each module of the blob (`_lib` = the library itself,
/// others through `ffi.Module.load_from_bytes.<kind>`), wires the imports, returns module 0.
fn process_library_bin(
    addr: *const u8,
    library: &Arc<Library>,
    ctx_slot: Option<*mut c_void>,
) -> Result<Module, Error> {
    // SAFETY: `addr` is the blob symbol of `library`, which stays loaded during this call.
    let blob = unsafe { blob_at(addr, library)? };
    let parsed = library_bin::parse(blob).map_err(|e| malformed(library, e))?;
    let mut modules = Vec::with_capacity(parsed.modules.len());
    for entry in &parsed.modules {
        let module = match entry {
            Entry::Lib => library_module(library, ctx_slot),
            Entry::Custom { kind, payload } => load_from_bytes(kind, payload)?,
        };
        modules.push(module);
    }
    for (parent, children) in parsed.imports.iter().enumerate() {
        for &child in children {
            // The tree is acyclic by index, but two entries may be the same object (a loader
            // returning a singleton): the cycle check of import_module catches that.
            modules[parent].import_module(&modules[child])?;
        }
    }
    Ok(modules.swap_remove(0))
}

// Modules are shared across threads: libloading's Library is Send + Sync and the system
// variant holds only bytes, so Library is too (checked at compile time).
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Library>();
};

/// `ffi.Module.load_from_file.so`: opens a shared library (`RTLD_LAZY | RTLD_LOCAL`) and makes
/// its module tree.
#[cfg(unix)]
pub fn load_dso(path: &[u8]) -> Result<Module, Error> {
    use libloading::os::unix::{Library as Dl, RTLD_LAZY, RTLD_LOCAL};
    use std::os::unix::ffi::OsStrExt;
    let display = String::from_utf8_lossy(path).into_owned();
    let os_path = std::ffi::OsStr::from_bytes(path);
    // An error the library's initializers raise fails the load (an extension refusing to be
    // loaded twice from two paths does that); one raised earlier is no longer anyone's.
    drop(crate::value::error::take_raised());
    // SAFETY: opening runs the library's initializers; loading this library is what the
    // caller asked for. RTLD_NODELETE: the library is never unmapped, since what its code made
    // (closures, objects and their deleters, global functions) may outlive every module of it
    // (docs/adr/0011-libraries-stay-mapped.md).
    let handle = unsafe { Dl::open(Some(os_path), RTLD_LAZY | RTLD_LOCAL | libc::RTLD_NODELETE) }
        .map_err(|e| {
        // The loader's own message (dlerror()); libloading's Display only says "dlopen failed".
        let reason = std::error::Error::source(&e)
            .map_or_else(|| e.to_string(), |source| source.to_string());
        Error::new(
            "InternalError",
            format!("Failed to load dynamic shared library {display} {reason}"),
        )
    })?;
    if let Some(error) = crate::value::error::take_raised() {
        return Err(Error::from_object(error));
    }
    create_library_module(Library::Dso {
        handle,
        path: display,
    })
}

/// `ffi.Module.load_from_file.so` (not available on this platform).
#[cfg(not(unix))]
pub fn load_dso(path: &[u8]) -> Result<Module, Error> {
    Err(Error::new(
        "RuntimeError",
        format!(
            "Failed to load dynamic shared library {}: not supported on this platform",
            String::from_utf8_lossy(path)
        ),
    ))
}

/// `ffi.ModuleLoadFromFile`: picks the loader from the file extension (the text after the last
/// `.`; `dll`, `dylib` and `dso` count as `so`) and calls global
/// `ffi.Module.load_from_file.<ext>(path, ext)`. The module is not pinned (Python's
/// `load_module` pins it with `ffi.ModuleGlobalsAdd`).
pub fn load_from_file(path: &[u8]) -> Result<Module, Error> {
    let display = String::from_utf8_lossy(path);
    let Some(dot) = path.iter().rposition(|&c| c == b'.') else {
        return Err(Error::new(
            "RuntimeError",
            format!("Failed to get file format from {display}"),
        ));
    };
    let mut format = &path[dot + 1..];
    if matches!(format, b"dll" | b"dylib" | b"dso") {
        format = b"so";
    }
    let loader_name = concat(&[b"ffi.Module.load_from_file.", format]);
    let Some(loader) = crate::registry::globals::get(&loader_name) else {
        // Apache's message, spacing included.
        return Err(Error::new(
            "RuntimeError",
            format!(
                "Loader for `.{}` files is not registered, resolved to ({}) in the global \
                 registry.Ensure that you have loaded the correct runtime code, andthat you are on \
                 the correct hardware architecture.",
                String::from_utf8_lossy(format),
                String::from_utf8_lossy(&loader_name)
            ),
        ));
    };
    let args = [Any::string(path), Any::string(format)];
    let raw = [*args[0].as_raw(), *args[1].as_raw()];
    // SAFETY: registry entries hold live Function objects; the arguments are owned above.
    let result = unsafe { crate::value::function::call(loader.function.as_ptr(), &raw)? };
    Module::from_any(result)
}

/// Turns serialized bytes back into a module with global `ffi.Module.load_from_bytes.<kind>`.
pub fn load_from_bytes(kind: &[u8], bytes: &[u8]) -> Result<Module, Error> {
    let loader_name = concat(&[b"ffi.Module.load_from_bytes.", kind]);
    let Some(loader) = crate::registry::globals::get(&loader_name) else {
        return Err(Error::new(
            "RuntimeError",
            format!(
                "Library binary was created using {{{}}} but a loader of that name is not \
                 registered. Make sure to have runtime that registers {}",
                String::from_utf8_lossy(kind),
                String::from_utf8_lossy(&loader_name)
            ),
        ));
    };
    let arg = crate::value::string::bytes_any(bytes);
    // SAFETY: registry entries hold live Function objects; the argument is owned above.
    let result =
        unsafe { crate::value::function::call(loader.function.as_ptr(), &[*arg.as_raw()])? };
    Module::from_any(result)
}

/// `ffi.SystemLib(prefix)`: the system-library module for `prefix`, one per prefix for the
/// whole process.
pub fn system_lib(prefix: &[u8]) -> Result<Module, Error> {
    static SYSTEM_LIBS: OnceLock<Mutex<HashMap<Vec<u8>, Module>>> = OnceLock::new();
    let libs = SYSTEM_LIBS.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(module) = lock(libs).get(prefix) {
        return Ok(module.clone());
    }
    // Made outside the lock: custom loaders in a library_bin may call ffi.SystemLib.
    let made = create_library_module(Library::System {
        prefix: prefix.to_vec(),
    })?;
    let mut libs = lock(libs);
    let kept = libs.entry(prefix.to_vec()).or_insert(made.clone()).clone();
    drop(libs);
    // If another thread won the race, `made` is released here, outside the lock.
    drop(made);
    Ok(kept)
}

fn pinned() -> &'static Mutex<HashMap<usize, Module>> {
    static PINNED: OnceLock<Mutex<HashMap<usize, Module>>> = OnceLock::new();
    PINNED.get_or_init(|| Mutex::new(HashMap::new()))
}

/// `ffi.ModuleGlobalsAdd`: keeps `module` (and its library) alive for the rest of the process.
pub fn globals_add(module: &Module) {
    lock(pinned()).insert(module.as_object().as_ptr() as usize, module.clone());
}

/// `ffi.ModuleGlobalsRemove`: undoes `globals_add` (no-op for a module that is not pinned).
pub fn globals_remove(module: &Module) {
    let removed = lock(pinned()).remove(&(module.as_object().as_ptr() as usize));
    // Released outside the lock: this may close a library.
    drop(removed);
}
