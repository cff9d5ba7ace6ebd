//! Globals over whole value graphs: JSON text (`ffi.json.*`), the JSON object graph
//! (`ffi.ToJSONGraph*`, `ffi.FromJSONGraph*`), `ffi.DeepCopy` and the `ffi.Recursive*`
//! comparisons and hash.

use crate::registry::args::Call;
use crate::registry::define::{def_typed, Globals};
use crate::registry::type_schema::{Ty, ANY, BOOL, INT, STRING};
use crate::value::any::{view_to_owned, Any};
use crate::value::error::Error;

fn owned(call: &Call, i: usize) -> Result<Any, Error> {
    // SAFETY: arguments are valid views for the duration of the call.
    unsafe { view_to_owned(call.any(i)) }
}

fn compare(call: &Call, eq_only: bool) -> Result<i32, Error> {
    crate::walks::recursive::recursive_compare(&owned(call, 0)?, &owned(call, 1)?, eq_only)
}

pub(super) fn register(globals: &mut Globals) {
    def_typed(globals, "ffi.json.Parse", ANY, vec![STRING], |call| {
        crate::walks::json::parse(call.string(0)?)
    });
    def_typed(
        globals,
        "ffi.json.Stringify",
        STRING,
        vec![ANY, Ty::Generic("Optional", vec![INT])],
        |call| {
            let indent = match call.any(1).type_index {
                crate::tindex::NONE => 0,
                _ => i32::try_from(call.int(1)?)
                    .map_err(|_| Error::new("OverflowError", "indent does not fit in an int"))?,
            };
            let value = owned(call, 0)?;
            // SAFETY: an owned value is valid.
            let text = unsafe { crate::walks::json::stringify(value.as_raw(), indent)? };
            Ok(Any::string(text))
        },
    );
    def_typed(globals, "ffi.ToJSONGraph", ANY, vec![ANY, ANY], |call| {
        crate::walks::serialization::to_json_graph(&owned(call, 0)?, &owned(call, 1)?)
    });
    def_typed(
        globals,
        "ffi.ToJSONGraphString",
        STRING,
        vec![ANY, ANY],
        |call| {
            let text = crate::walks::serialization::to_json_graph_string(
                &owned(call, 0)?,
                &owned(call, 1)?,
            )?;
            Ok(Any::string(text))
        },
    );
    def_typed(globals, "ffi.FromJSONGraph", ANY, vec![ANY], |call| {
        crate::walks::serialization::from_json_graph(&owned(call, 0)?)
    });
    def_typed(
        globals,
        "ffi.FromJSONGraphString",
        ANY,
        vec![STRING],
        |call| crate::walks::serialization::from_json_graph_string(call.string(0)?),
    );
    def_typed(globals, "ffi.DeepCopy", ANY, vec![ANY], |call| {
        crate::walks::deep_copy::deep_copy(&owned(call, 0)?)
    });
    def_typed(globals, "ffi.RecursiveHash", INT, vec![ANY], |call| {
        crate::walks::recursive::recursive_hash(&owned(call, 0)?).map(Any::int)
    });
    def_typed(globals, "ffi.RecursiveEq", BOOL, vec![ANY, ANY], |call| {
        Ok(Any::bool(compare(call, true)? == 0))
    });
    def_typed(globals, "ffi.RecursiveLt", BOOL, vec![ANY, ANY], |call| {
        Ok(Any::bool(compare(call, false)? < 0))
    });
    def_typed(globals, "ffi.RecursiveLe", BOOL, vec![ANY, ANY], |call| {
        Ok(Any::bool(compare(call, false)? <= 0))
    });
    def_typed(globals, "ffi.RecursiveGt", BOOL, vec![ANY, ANY], |call| {
        Ok(Any::bool(compare(call, false)? > 0))
    });
    def_typed(globals, "ffi.RecursiveGe", BOOL, vec![ANY, ANY], |call| {
        Ok(Any::bool(compare(call, false)? >= 0))
    });
}
