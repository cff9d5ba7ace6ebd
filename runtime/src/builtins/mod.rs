//! What the runtime registers by itself: the builtin types and the `ffi.*` (and `ffihub.*`)
//! global functions, with the same names and `type_schema` metadata as Apache's runtime.

mod args;
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

pub use args::{Borrowed, Call, Signature};
pub(crate) use dyn_types::new_enum_state;
pub(crate) use reflection::{
    field_getter, make_init, object_size, register_allocator, register_attr, type_info_of,
};
pub(crate) use static_types::register_types;

use crate::abi::TVMFFIAny;
use crate::any::Any;
use crate::error::Error;
pub(crate) use crate::registry::Globals;
use crate::registry::{GlobalEntry, DEFAULT_FLAGS};
use crate::type_schema::{function_metadata, Ty, PACKED_FUNCTION};
use std::sync::Arc;

fn insert(globals: &mut Globals, name: &str, ty: &Ty, function: crate::object::ObjectRef) {
    let entry = GlobalEntry {
        function,
        doc: Box::default(),
        metadata: function_metadata(ty).into_bytes().into_boxed_slice(),
        flags: DEFAULT_FLAGS,
    };
    globals.insert(name.as_bytes().into(), Arc::new(entry));
}

/// Registers a typed builtin: the argument count is checked before `imp` runs, and `imp` reads
/// its arguments through [`Call`], which reports type mismatches the way Apache does.
pub(crate) fn def_typed(
    globals: &mut Globals,
    name: &'static str,
    ret: Ty,
    params: Vec<Ty>,
    imp: impl Fn(&Call) -> Result<Any, Error> + Send + Sync + 'static,
) {
    let ty = crate::type_schema::function(ret.clone(), params.clone());
    let function = typed_function(Signature { name, ret, params }, imp);
    insert(globals, name, &ty, function);
}

/// A Function over `imp` that checks the argument count against `signature` first.
pub(crate) fn typed_function(
    signature: Signature,
    imp: impl Fn(&Call) -> Result<Any, Error> + Send + Sync + 'static,
) -> crate::object::ObjectRef {
    // SAFETY: the safe call passes its caller's arguments, valid for `n` values.
    crate::function::from_raw_closure(move |args, n| {
        imp(&unsafe { Call::new(&signature, args, n) }?)
    })
}

/// Registers a packed (variadic, untyped) builtin.
pub(crate) fn def_packed(
    globals: &mut Globals,
    name: &'static str,
    imp: impl Fn(&[TVMFFIAny]) -> Result<Any, Error> + Send + Sync + 'static,
) {
    insert(
        globals,
        name,
        &PACKED_FUNCTION,
        crate::function::from_closure(imp),
    );
}

/// The builtin global functions.
pub(crate) fn global_functions() -> Globals {
    // Objects the runtime keeps for the whole process are made now, before anyone can read
    // `ffihub.LiveObjectCount` (which counts from its first read), so that it never counts them.
    crate::types::type_info(crate::tindex::OBJECT);
    crate::reflection::missing_object();
    crate::reflection::kwargs_object();
    let mut globals = Globals::new();
    functions::register(&mut globals);
    containers::register(&mut globals);
    data::register(&mut globals);
    maps::register(&mut globals);
    tensor::register(&mut globals);
    module::register(&mut globals);
    reflection::register(&mut globals);
    structural::register(&mut globals);
    crate::compat::register_globals(&mut globals);
    globals
}
