//! Globals about global functions themselves, string identities, and the live-object counter.

use crate::registry::define::{def_typed, Globals};
use crate::registry::type_schema::{Ty, BYTES, INT, OPAQUE_PTR, PACKED_FUNCTION, STRING};
use crate::value::any::Any;
use crate::value::error::Error;
use std::ffi::c_void;

pub(super) fn register(globals: &mut Globals) {
    def_typed(globals, "ffihub.LiveObjectCount", INT, vec![], |_| {
        Ok(Any::int(crate::value::object::live_object_count()))
    });
    def_typed(
        globals,
        "ffi.FunctionRemoveGlobal",
        Ty::Named("bool"),
        vec![STRING],
        |call| Ok(Any::bool(crate::registry::globals::remove(call.string(0)?))),
    );
    def_typed(
        globals,
        "ffi.FunctionListGlobalNamesFunctor",
        PACKED_FUNCTION,
        vec![],
        |_| {
            let names = crate::registry::globals::names();
            let functor = crate::value::function::from_closure(move |args| {
                let index = match args.first() {
                    // SAFETY: the tag says the payload is an integer.
                    Some(a) if a.type_index == crate::tindex::INT => unsafe { a.value.v_int64 },
                    _ => {
                        return Err(Error::new(
                            "TypeError",
                            "the name functor takes one int argument",
                        ))
                    }
                };
                if index < 0 {
                    return Ok(Any::int(names.len() as i64));
                }
                names.get(index as usize).map(Any::string).ok_or_else(|| {
                    Error::new(
                        "IndexError",
                        format!("index {index} out of range for {} names", names.len()),
                    )
                })
            });
            Ok(Any::object(functor))
        },
    );
    def_typed(globals, "ffi.String", STRING, vec![STRING], |call| {
        Ok(Any::string(call.string(0)?))
    });
    def_typed(globals, "ffi.Bytes", BYTES, vec![BYTES], |call| {
        Ok(crate::value::string::bytes_any(call.bytes(0)?))
    });
    def_typed(
        globals,
        "ffi.GetGlobalFuncMetadata",
        STRING,
        vec![STRING],
        |call| {
            let entry = registered(call.string(0)?)?;
            Ok(Any::string(&entry.metadata))
        },
    );
    // Apache's runtime keeps a global's doc (`TVMFFIMethodInfo::doc`, e.g. from
    // `GlobalDef().def(name, f, doc)`) in its table but exposes it nowhere; ffihub's returns it
    // here, for `ffihub dump`.
    def_typed(
        globals,
        "ffihub.GetGlobalFuncDoc",
        STRING,
        vec![STRING],
        |call| {
            let entry = registered(call.string(0)?)?;
            Ok(Any::string(&entry.doc))
        },
    );
    def_typed(
        globals,
        "ffi.FunctionFromExternC",
        PACKED_FUNCTION,
        vec![OPAQUE_PTR, OPAQUE_PTR, OPAQUE_PTR],
        |call| {
            let self_ = call.opaque_ptr(0)?;
            let safe_call = call.opaque_ptr(1)?;
            let deleter = call.opaque_ptr(2)?;
            if safe_call.is_null() {
                return Err(Error::new(
                    "ValueError",
                    "ffi.FunctionFromExternC needs a non-NULL safe_call",
                ));
            }
            // SAFETY: the caller passes the addresses of functions with these C signatures.
            let (safe_call, deleter) = unsafe {
                (
                    std::mem::transmute::<*mut c_void, crate::value::function::SafeCallFn>(
                        safe_call,
                    ),
                    (!deleter.is_null()).then(|| {
                        std::mem::transmute::<*mut c_void, unsafe extern "C" fn(*mut c_void)>(
                            deleter,
                        )
                    }),
                )
            };
            Ok(Any::object(crate::value::function::from_extern_c(
                self_, safe_call, deleter,
            )))
        },
    );
}

/// The registry entry of global `name`, or Apache's error for a missing one.
fn registered(name: &[u8]) -> Result<std::sync::Arc<crate::registry::globals::GlobalEntry>, Error> {
    crate::registry::globals::get(name).ok_or_else(|| {
        Error::new(
            "RuntimeError",
            format!(
                "Global Function is not found: {}",
                String::from_utf8_lossy(name)
            ),
        )
    })
}
