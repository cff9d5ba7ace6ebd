//! One copy of an extension per process. The same extension loaded a second time from another
//! path (a copy of its library elsewhere) finds its types and functions already registered by
//! the first copy: the runtime keeps the first copy's, and the second copy's methods and
//! constructors would be attached to types whose objects it cannot read (the errors that follow
//! name the same type twice: "Expected `demo.Point` but got `demo.Point`").
//!
//! So the first registration of a library that finds its item registered by a library at
//! another path refuses: from then on the library registers nothing (its other items are the
//! first copy's too), and the load fails with a `RuntimeError` naming both paths. The error is
//! the thread's raised error when the library's initializers return; the loaders of the
//! bindings (and the runtime's `ffi.ModuleLoadFromFile`) clear it before `dlopen` and report it
//! after. It is printed as well, for hosts that do not look.

use crate::error::Error;
use std::ffi::c_void;
use std::sync::OnceLock;

/// The refusal of this library, once it happened.
static REFUSED: OnceLock<std::string::String> = OnceLock::new();

/// Whether this library refused to register (see the module documentation).
pub(crate) fn refused() -> bool {
    REFUSED.get().is_some()
}

fn library_of(address: *const c_void) -> Option<std::string::String> {
    #[cfg(any(target_os = "linux", target_vendor = "apple"))]
    return crate::nodelete::library_of(address).map(|name| name.to_string_lossy().into_owned());
    #[cfg(not(any(target_os = "linux", target_vendor = "apple")))]
    {
        let _ = address;
        None
    }
}

/// Called when `item` (`global function \`demo.add_one\``) is already registered, with an
/// address inside the code that registered it (`theirs`: its function's safe call, a field
/// getter), when known. Returns true when this library refuses: the item comes from a library
/// at another path. An item registered twice by this very library is not a refusal.
pub(crate) fn refuse_if_registered_elsewhere(item: &str, theirs: Option<*const c_void>) -> bool {
    let ours = library_of(refuse_if_registered_elsewhere as fn(_, _) -> bool as *const c_void);
    let theirs = theirs.and_then(library_of);
    if ours.is_some() && theirs == ours {
        return false;
    }
    let ours = ours.unwrap_or_else(|| "this library".into());
    let theirs = theirs.unwrap_or_else(|| "another library".into());
    let message = REFUSED.get_or_init(|| {
        let message = format!(
            "{ours} cannot be loaded: {item} is already registered by {theirs}; is one \
             extension loaded from two paths? Load it from one path only ({ours} registers \
             nothing)"
        );
        eprintln!("ffihub: {message}");
        message
    });
    Error::new("RuntimeError", message.clone()).raise();
    true
}
