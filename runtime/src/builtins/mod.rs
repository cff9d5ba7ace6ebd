//! What the runtime registers by itself: the builtin types and the `ffi.*` (and `ffihub.*`)
//! global functions, with the same names and `type_schema` metadata as Apache's runtime.

mod compat;
mod containers;
mod convert;
mod data;
mod dyn_types;
mod functions;
mod maps;
mod module;
mod reflection;
mod static_types;
mod structural;
mod tensor;

pub(crate) use static_types::register_types;

use crate::registry::define::Globals;

/// The builtin global functions.
pub(crate) fn global_functions() -> Globals {
    // Objects the runtime keeps for the whole process are made now, before anyone can read
    // `ffihub.LiveObjectCount` (which counts from its first read), so that it never counts them.
    crate::registry::types::type_info(crate::tindex::OBJECT);
    crate::registry::reflection::missing_object();
    crate::registry::reflection::kwargs_object();
    let mut globals = Globals::new();
    functions::register(&mut globals);
    containers::register(&mut globals);
    data::register(&mut globals);
    maps::register(&mut globals);
    tensor::register(&mut globals);
    module::register(&mut globals);
    reflection::register(&mut globals);
    structural::register(&mut globals);
    compat::register(&mut globals);
    globals
}
