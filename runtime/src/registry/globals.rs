//! The global function registry: name -> Function with its doc, metadata and flags.
//!
//! Created on first use from whichever library calls first (static initializers of other
//! libraries included), never freed. Lookups take a shared lock; registration an exclusive one.

use crate::abi::{TVMFFIAny, TVMFFIFieldFlagBitMask};
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

/// One registered global function.
#[derive(Debug)]
pub struct GlobalEntry {
    pub function: ObjectRef,
    pub doc: Box<[u8]>,
    pub metadata: Box<[u8]>,
    pub flags: i64,
}

/// The global-function table's contents (as the runtime starts: the built-ins).
pub(crate) type Globals = HashMap<Box<[u8]>, Arc<GlobalEntry>>;

type Table = RwLock<Globals>;

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| RwLock::new(crate::builtin_globals()))
}

/// Flags of functions registered without method info, as in Apache's runtime.
pub const DEFAULT_FLAGS: i64 = TVMFFIFieldFlagBitMask::kTVMFFIFieldFlagBitMaskIsStaticMethod as i64;

/// Registering an existing name without permission to override it.
#[derive(Debug)]
pub struct AlreadyRegistered;

/// Registers `entry` under `name`; an existing name is refused unless `allow_override`.
pub fn register(
    name: &[u8],
    entry: GlobalEntry,
    allow_override: bool,
) -> Result<(), AlreadyRegistered> {
    let mut table = table().write().unwrap_or_else(|e| e.into_inner());
    if !allow_override && table.contains_key(name) {
        return Err(AlreadyRegistered);
    }
    let previous = table.insert(name.into(), Arc::new(entry));
    drop(table);
    // The replaced function is released outside the lock: its deleter may call back in.
    drop(previous);
    Ok(())
}

/// The entry registered under `name`.
pub fn get(name: &[u8]) -> Option<Arc<GlobalEntry>> {
    table()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(name)
        .cloned()
}

/// Removes `name`; true if it was registered.
pub fn remove(name: &[u8]) -> bool {
    let removed = table()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .remove(name);
    removed.is_some()
}

/// All registered names, sorted.
pub fn names() -> Vec<Box<[u8]>> {
    let mut names: Vec<_> = table()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .keys()
        .cloned()
        .collect();
    names.sort();
    names
}

/// Calls the global `name` with `args` (for built-ins that build values through other globals).
pub(crate) fn call(name: &str, args: &[TVMFFIAny]) -> Result<Any, Error> {
    let entry = get(name.as_bytes()).ok_or_else(|| {
        Error::new(
            "RuntimeError",
            format!("Global Function is not found: {name}"),
        )
    })?;
    // SAFETY: registered functions are live Function objects and `args` are valid views.
    unsafe { crate::value::function::call(entry.function.as_ptr(), args) }
}
