//! The helpers every area uses to define its `ffi.*` functions: a typed function checks its
//! argument count and reads its arguments through [`Call`], a packed one takes them as they
//! come; both go into a [`Globals`] table with their `type_schema` metadata.

use crate::abi::TVMFFIAny;
use crate::registry::args::{Call, Signature};
pub(crate) use crate::registry::globals::Globals;
use crate::registry::globals::{GlobalEntry, DEFAULT_FLAGS};
use crate::registry::type_schema::{function_metadata, Ty, PACKED_FUNCTION};
use crate::value::any::Any;
use crate::value::error::Error;
use std::sync::Arc;

/// Adds `function` under `name` with the metadata of its type `ty`.
pub(crate) fn insert(
    globals: &mut Globals,
    name: &str,
    ty: &Ty,
    function: crate::value::object::ObjectRef,
) {
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
    let ty = crate::registry::type_schema::function(ret.clone(), params.clone());
    let function = typed_function(Signature { name, ret, params }, imp);
    insert(globals, name, &ty, function);
}

/// A Function over `imp` that checks the argument count against `signature` first.
pub(crate) fn typed_function(
    signature: Signature,
    imp: impl Fn(&Call) -> Result<Any, Error> + Send + Sync + 'static,
) -> crate::value::object::ObjectRef {
    // SAFETY: the safe call passes its caller's arguments, valid for `n` values.
    crate::value::function::from_raw_closure(move |args, n| {
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
        crate::value::function::from_closure(imp),
    );
}
