//! The structural globals: equality, hashing, first mismatch, structural keys, the structural
//! visitor and the visit-error access-path finder (logic in `crate::walks::structural`).

use crate::registry::define::{def_typed, Globals};
use crate::registry::type_schema::{Ty, ANY, BOOL, INT, OBJECT, PACKED_FUNCTION};
use crate::value::any::{view_to_owned, Any};
use crate::walks::structural::equal::{first_mismatch, structural_equal, Options};
use crate::walks::structural::hash::structural_hash;
use crate::walks::structural::{error_context, key, mutate, visit};

fn optional(ty: Ty) -> Ty {
    Ty::Generic("Optional", vec![ty])
}

fn callbacks(with_flag: bool) -> Ty {
    let mut entry = vec![INT, PACKED_FUNCTION];
    if with_flag {
        entry.push(BOOL);
    }
    Ty::Generic("ffi.Array", vec![Ty::Generic("Tuple", entry)])
}

const PATH: Ty = Ty::Named("ffi.reflection.AccessPath");
const VISITOR: Ty = Ty::Named("ffi.StructuralVisitor");
const INTERRUPT: Ty = Ty::Named("ffi.VisitInterrupt");

pub(super) fn register(globals: &mut Globals) {
    def_typed(
        globals,
        "ffi.StructuralEqual",
        BOOL,
        vec![ANY, ANY, BOOL, BOOL],
        |call| {
            let options = Options {
                map_free_vars: call.bool(2)?,
                skip_tensor_content: call.bool(3)?,
            };
            // SAFETY: arguments are valid views for the call.
            let (lhs, rhs) = unsafe { (view_to_owned(call.any(0))?, view_to_owned(call.any(1))?) };
            Ok(Any::bool(structural_equal(&lhs, &rhs, options)?))
        },
    );
    def_typed(
        globals,
        "ffi.GetFirstStructuralMismatch",
        optional(Ty::Generic("Tuple", vec![PATH, PATH])),
        vec![ANY, ANY, BOOL, BOOL],
        |call| {
            let options = Options {
                map_free_vars: call.bool(2)?,
                skip_tensor_content: call.bool(3)?,
            };
            // SAFETY: arguments are valid views for the call.
            let (lhs, rhs) = unsafe { (view_to_owned(call.any(0))?, view_to_owned(call.any(1))?) };
            match first_mismatch(&lhs, &rhs, options)? {
                None => Ok(Any::none()),
                Some((l, r)) => Ok(crate::containers::seq::Array::from_vec(vec![l, r]).into_any()),
            }
        },
    );
    def_typed(
        globals,
        "ffi.StructuralHash",
        INT,
        vec![ANY, BOOL, BOOL],
        |call| {
            let options = Options {
                map_free_vars: call.bool(1)?,
                skip_tensor_content: call.bool(2)?,
            };
            // SAFETY: the argument is a valid view for the call.
            let value = unsafe { view_to_owned(call.any(0))? };
            // The bits of the unsigned hash, as a (possibly negative) int.
            Ok(Any::int(structural_hash(&value, options)? as i64))
        },
    );
    def_typed(
        globals,
        "ffi.StructuralKey",
        Ty::Named("ffi.StructuralKey"),
        vec![ANY],
        // SAFETY: the argument is a valid view for the call.
        |call| key::new_key(unsafe { view_to_owned(call.any(0))? }),
    );
    def_typed(
        globals,
        "ffi.StructuralKeyEqual",
        BOOL,
        vec![ANY, ANY],
        |call| Ok(Any::bool(key::key_equal(call.any(0), call.any(1))?)),
    );
    visit::register(globals, &callbacks(false), VISITOR, INTERRUPT);
    def_typed(
        globals,
        "ffi.VisitErrorContext.FindAccessPaths",
        Ty::Generic("ffi.Array", vec![PATH]),
        vec![OBJECT, Ty::Named("ffi.VisitErrorContext"), BOOL],
        |call| {
            let root = call.object(0, crate::tindex::OBJECT)?;
            let context = call.object(
                1,
                crate::registry::types::runtime_index::VISIT_ERROR_CONTEXT,
            )?;
            error_context::find_access_paths(&root, &context, call.bool(2)?)
        },
    );
    mutate::register(globals, &callbacks(false), &callbacks(true));
}
