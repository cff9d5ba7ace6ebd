//! The structural visitor (`ffi.StructuralVisitor`, `ffi.StructuralWalk`, `ffi.StructuralVisit`
//! and the `ffi.StructuralVisitor*` methods) and the `__s_visit__` hooks of the containers.
//!
//! A visitor object has Apache's layout, `{header, vtable*, def_region_kind}`, where the vtable's
//! first entry is `TVMFFIAny visit(visitor, AnyView value)`: native `__s_visit__` hooks compiled
//! against Apache's headers call back into our visitors through it, and ours drive theirs the
//! same way. A visit returns None to go on, a `ffi.VisitInterrupt` to stop the whole traversal,
//! or an Error (which records the nodes it crosses in a `ffi.VisitErrorContext`).

use super::error_context::attach;
use super::{for_each_field, is_ignored, kind, region, Column};
use crate::abi::{TVMFFIAny, TVMFFIObject, TVMFFITypeInfo};
use crate::containers::map::MapView;
use crate::registry::define::{def_typed, Globals};
use crate::registry::reflection::{new_reflected, Accessor};
use crate::registry::type_schema::{Ty, ANY, INT, PACKED_FUNCTION};
use crate::tindex;
use crate::value::any::{view_to_owned, Any, RAW_NONE};
use crate::value::error::Error;
use crate::value::object::{alloc_object, is_object_index, ObjectRef};
use crate::value::stack::StackGuard;
use std::cell::Cell;
use std::ffi::c_void;

use crate::registry::types::runtime_index::STRUCTURAL_VISITOR;

/// The ABI of a visit: `TVMFFIAny (*)(StructuralVisitorObj*, AnyView) noexcept`.
pub type VisitAbi = unsafe extern "C" fn(*mut TVMFFIObject, TVMFFIAny) -> TVMFFIAny;

/// Apache's `StructuralVisitorVTable`.
#[repr(C)]
pub struct VisitorVTable {
    pub visit: VisitAbi,
}

/// Offsets of Apache's `StructuralVisitorObj` fields.
const VTABLE_OFFSET: usize = 24;
const REGION_OFFSET: usize = 32;

/// The payload of our visitor objects: Apache's two fields, then the engine.
#[repr(C)]
struct VisitorPayload {
    vtable: *const VisitorVTable,
    region: Cell<i32>,
    engine: Engine,
    guard: StackGuard,
}

type Callbacks = Vec<(i32, ObjectRef)>;

enum Engine {
    /// `ffi.StructuralWalk`: callbacks see each node before (or after) its children and answer
    /// advance, skip (pre-order only) or interrupt.
    Walk {
        callbacks: Callbacks,
        with_region: Callbacks,
        post_order: bool,
    },
    /// `ffi.StructuralVisit`: a matching callback takes over the node (and descends itself by
    /// calling back into the visitor); other nodes get the default descent.
    Visit { callbacks: Callbacks },
}

static VTABLE: VisitorVTable = VisitorVTable {
    visit: engine_visit,
};

/// The result of a visit: `Ok(Some(interrupt))` stops the traversal.
pub type Outcome = Result<Option<Any>, Error>;

fn outcome_to_raw(outcome: Outcome) -> TVMFFIAny {
    match outcome {
        Ok(None) => RAW_NONE,
        Ok(Some(interrupt)) => interrupt.into_raw(),
        Err(error) => Any::object(error.into_object()).into_raw(),
    }
}

/// Decodes an owned visit result.
fn outcome_from(value: Any) -> Outcome {
    match value.type_index() {
        tindex::NONE => Ok(None),
        tindex::VISIT_INTERRUPT => Ok(Some(value)),
        tindex::ERROR => Err(Error::from_object(
            value
                .as_object()
                .cloned()
                .expect("an Error value is an object"),
        )),
        other => Err(Error::new(
            "TypeError",
            format!(
                "a structural visit must return None or ffi.VisitInterrupt, got `{}`",
                crate::registry::types::type_key_of(other)
            ),
        )),
    }
}

/// Visits `value` through the visitor's vtable (any StructuralVisitorObj, ours or foreign).
///
/// # Safety
/// `visitor` is a live StructuralVisitorObj; `value` is a valid view.
pub unsafe fn visit(visitor: *mut TVMFFIObject, value: &TVMFFIAny) -> Outcome {
    let vtable = *visitor
        .cast::<u8>()
        .add(VTABLE_OFFSET)
        .cast::<*const VisitorVTable>();
    // A visitor made by `__ffi_shallow_copy__` has no engine.
    let vtable = vtable.as_ref().ok_or_else(|| {
        Error::new(
            "TypeError",
            "this ffi.StructuralVisitor has no traversal engine",
        )
    })?;
    outcome_from(Any::from_raw((vtable.visit)(visitor, *value)))
}

/// The current definition region of a visitor.
///
/// # Safety
/// `visitor` is a live StructuralVisitorObj.
pub unsafe fn region_of(visitor: *mut TVMFFIObject) -> i32 {
    visitor.cast::<u8>().add(REGION_OFFSET).cast::<i32>().read()
}

/// Runs `f` with the visitor in definition region `kind` (a pattern region stays in force).
///
/// # Safety
/// `visitor` is a live StructuralVisitorObj.
pub unsafe fn with_region<T>(visitor: *mut TVMFFIObject, kind: i32, f: impl FnOnce() -> T) -> T {
    let slot = visitor.cast::<u8>().add(REGION_OFFSET).cast::<i32>();
    let saved = slot.read();
    if saved == region::PATTERN {
        return f();
    }
    slot.write(kind);
    let out = f();
    slot.write(saved);
    out
}

/// The default descent into `value`: its type's `__s_visit__` hook, else its reflected fields.
///
/// # Safety
/// `visitor` is a live StructuralVisitorObj; `value` is a valid view.
pub unsafe fn default_visit(visitor: *mut TVMFFIObject, value: &TVMFFIAny) -> Outcome {
    thread_local! {
        static COLUMN: Column = Column::new(b"__s_visit__");
    }
    let hook = COLUMN.with(|c| c.get(value.type_index));
    match hook {
        Some(hook) if hook.type_index == tindex::OPAQUE_PTR => {
            let native = std::mem::transmute::<*mut c_void, VisitAbi>(hook.value.v_ptr);
            outcome_from(Any::from_raw(native(visitor, *value)))
        }
        Some(hook) if hook.type_index == tindex::FUNCTION => {
            let this = Any::object(ObjectRef::from_borrowed(visitor));
            outcome_from(crate::value::function::call(
                hook.value.v_obj,
                &[*this.as_raw(), *value],
            )?)
        }
        Some(_) => Err(Error::new(
            "TypeError",
            "__s_visit__ must be an opaque function pointer or ffi.Function",
        )),
        None if !is_object_index(value.type_index) => Ok(None),
        None => visit_fields(visitor, &ObjectRef::from_borrowed(value.value.v_obj)),
    }
}

/// Visits the structural fields of an object (not those marked SEqHash-ignored), entering the
/// definition regions the field flags ask for.
unsafe fn visit_fields(visitor: *mut TVMFFIObject, obj: &ObjectRef) -> Outcome {
    let Some(info) = crate::registry::types::type_info(obj.type_index()) else {
        return Ok(None);
    };
    let walk = || -> Outcome {
        let mut interrupt = None;
        for_each_field(info, |field| {
            if is_ignored(field) {
                return Ok(false);
            }
            let value = crate::registry::reflection::get_field(field, obj.as_ptr())?;
            let outcome = match super::field_region(field) {
                Some(kind) => with_region(visitor, kind, || visit(visitor, value.as_raw())),
                None => visit(visitor, value.as_raw()),
            };
            interrupt = outcome?;
            Ok(interrupt.is_some())
        })?;
        Ok(interrupt)
    };
    // In a simple region a free variable is defined, but its own fields are uses.
    if region_of(visitor) == region::SIMPLE && is_free_var(info) {
        return with_region(visitor, region::NONE, walk);
    }
    walk()
}

fn is_free_var(info: &TVMFFITypeInfo) -> bool {
    // SAFETY: metadata is NULL or registry-owned.
    unsafe { info.metadata.as_ref() }.is_some_and(|m| m.structural_eq_hash_kind == kind::FREE_VAR)
}

/// Apache's `RuntimeTypeIndexMatch`: does a value of `actual` match a callback for `target`?
pub fn type_index_match(actual: i32, target: i32) -> bool {
    if actual == target || target == tindex::ANY {
        return true;
    }
    match target {
        tindex::STR => return actual == tindex::SMALL_STR,
        tindex::BYTES => return actual == tindex::SMALL_BYTES,
        tindex::OBJECT => return is_object_index(actual),
        _ => {}
    }
    if !is_object_index(actual) || !is_object_index(target) || actual < target {
        return false;
    }
    crate::registry::types::is_instance(actual, target)
}

fn find(callbacks: &Callbacks, type_index: i32) -> Option<&ObjectRef> {
    callbacks
        .iter()
        .find(|(target, _)| type_index_match(type_index, *target))
        .map(|(_, f)| f)
}

/// What a walk callback answered.
enum Step {
    Advance,
    Skip,
    Interrupt(Any),
}

fn walk_step(result: Any) -> Result<Step, Error> {
    match result.type_index() {
        tindex::NONE => Ok(Step::Advance),
        // SAFETY: the tag says the payload is an integer.
        tindex::INT | tindex::BOOL => match unsafe { result.as_raw().value.v_int64 } {
            0 => Ok(Step::Advance),
            1 => Ok(Step::Skip),
            other => Err(Error::new(
                "ValueError",
                format!("a structural walk callback returned {other}, which is not a WalkResult"),
            )),
        },
        tindex::VISIT_INTERRUPT => Ok(Step::Interrupt(result)),
        tindex::ERROR => Err(Error::from_object(
            result
                .as_object()
                .cloned()
                .expect("an Error value is an object"),
        )),
        other => Err(Error::new(
            "TypeError",
            format!(
                "a structural walk callback must return a WalkResult, got `{}`",
                crate::registry::types::type_key_of(other)
            ),
        )),
    }
}

impl VisitorPayload {
    /// Calls the walk callback for `value`, if one matches.
    unsafe fn walk_callback(
        &self,
        callbacks: &Callbacks,
        with_region: &Callbacks,
        value: &TVMFFIAny,
    ) -> Result<Step, Error> {
        if let Some(f) = find(callbacks, value.type_index) {
            return walk_step(crate::value::function::call(f.as_ptr(), &[*value])?);
        }
        if let Some(f) = find(with_region, value.type_index) {
            let kind = Any::int(self.region.get() as i64);
            return walk_step(crate::value::function::call(
                f.as_ptr(),
                &[*value, *kind.as_raw()],
            )?);
        }
        Ok(Step::Advance)
    }

    unsafe fn visit_impl(&self, this: *mut TVMFFIObject, value: &TVMFFIAny) -> Outcome {
        if value.type_index == tindex::NONE {
            return Ok(None);
        }
        self.guard.check("StructuralVisit")?;
        match &self.engine {
            Engine::Walk {
                callbacks,
                with_region,
                post_order,
            } => {
                if !post_order {
                    match attach(self.walk_callback(callbacks, with_region, value), value)? {
                        Step::Interrupt(interrupt) => return Ok(Some(interrupt)),
                        Step::Skip => return Ok(None),
                        Step::Advance => {}
                    }
                }
                if let Some(interrupt) = attach(default_visit(this, value), value)? {
                    return Ok(Some(interrupt));
                }
                if *post_order {
                    // Skipping is meaningless after the children: only an interrupt counts.
                    if let Step::Interrupt(interrupt) =
                        attach(self.walk_callback(callbacks, with_region, value), value)?
                    {
                        return Ok(Some(interrupt));
                    }
                }
                Ok(None)
            }
            Engine::Visit { callbacks } => {
                let outcome = match find(callbacks, value.type_index) {
                    Some(f) => {
                        let visitor = Any::object(ObjectRef::from_borrowed(this));
                        crate::value::function::call(f.as_ptr(), &[*value, *visitor.as_raw()])
                            .and_then(outcome_from)
                    }
                    None => default_visit(this, value),
                };
                attach(outcome, value)
            }
        }
    }
}

/// The vtable entry of our visitors.
unsafe extern "C" fn engine_visit(visitor: *mut TVMFFIObject, value: TVMFFIAny) -> TVMFFIAny {
    let outcome = std::panic::catch_unwind(|| {
        let payload = crate::value::object::payload::<VisitorPayload>(visitor);
        payload.visit_impl(visitor, &value)
    });
    outcome_to_raw(outcome.unwrap_or_else(|p| Err(crate::value::function::panic_error(p))))
}

fn new_visitor(engine: Engine) -> ObjectRef {
    alloc_object(
        STRUCTURAL_VISITOR,
        VisitorPayload {
            vtable: &VTABLE,
            region: Cell::new(region::NONE),
            engine,
            guard: StackGuard::new(),
        },
        0,
    )
}

/// The `__s_visit__` hook of Array and List: visits the elements in order.
unsafe extern "C" fn visit_seq(visitor: *mut TVMFFIObject, value: TVMFFIAny) -> TVMFFIAny {
    let outcome = std::panic::catch_unwind(|| -> Outcome {
        let obj = ObjectRef::from_borrowed(value.value.v_obj);
        let mut i = 0;
        // Elements are read one at a time: a List can change under a callback.
        while let Some(item) = crate::containers::seq::seq_elements(obj.as_ptr()).get(i) {
            let item = view_to_owned(item)?;
            if let Some(interrupt) = visit(visitor, item.as_raw())? {
                return Ok(Some(interrupt));
            }
            i += 1;
        }
        Ok(None)
    });
    outcome_to_raw(outcome.unwrap_or_else(|p| Err(crate::value::function::panic_error(p))))
}

/// The `__s_visit__` hook of Map and Dict: visits the values (keys are anchors, not children).
unsafe extern "C" fn visit_map(visitor: *mut TVMFFIObject, value: TVMFFIAny) -> TVMFFIAny {
    let outcome = std::panic::catch_unwind(|| -> Outcome {
        let obj = ObjectRef::from_borrowed(value.value.v_obj);
        let map = MapView::new(&obj).expect("a map");
        for (_, item) in map.iter() {
            if let Some(interrupt) = visit(visitor, item.as_raw())? {
                return Ok(Some(interrupt));
            }
        }
        Ok(None)
    });
    outcome_to_raw(outcome.unwrap_or_else(|p| Err(crate::value::function::panic_error(p))))
}

/// The `(type index, column, value)` type attributes of the visitor: native `__s_visit__` hooks
/// of the containers, as Apache registers them.
pub fn type_attrs() -> Vec<(i32, &'static [u8], Any)> {
    let seq = Any::opaque_ptr(visit_seq as VisitAbi as *mut c_void);
    let map = Any::opaque_ptr(visit_map as VisitAbi as *mut c_void);
    vec![
        (tindex::ARRAY, b"__s_visit__", seq.clone()),
        (tindex::LIST, b"__s_visit__", seq),
        (tindex::MAP, b"__s_visit__", map.clone()),
        (tindex::DICT, b"__s_visit__", map),
    ]
}

/// Reads `ffi.Array[Tuple[int, ffi.Function]]` callback entries (and the optional trailing bool
/// of `ffi.StructuralMutate`'s entries).
pub(crate) fn read_entries(
    value: &TVMFFIAny,
    what: &str,
) -> Result<Vec<(i32, ObjectRef, bool)>, Error> {
    let bad = || {
        Error::new(
            "TypeError",
            format!("{what} must be an ffi.Array of (type_index, ffi.Function) tuples"),
        )
    };
    if value.type_index != tindex::ARRAY {
        return Err(bad());
    }
    // SAFETY: the tag says the payload is a live Array; its elements are valid values.
    let entries = unsafe { crate::containers::seq::seq_elements(value.value.v_obj) };
    entries
        .iter()
        .map(|entry| {
            if entry.type_index != tindex::ARRAY {
                return Err(bad());
            }
            // SAFETY: as above.
            let parts = unsafe { crate::containers::seq::seq_elements(entry.value.v_obj) };
            let (index, function, flag) = match parts {
                [index, function] => (index, function, None),
                [index, function, flag] => (index, function, Some(flag)),
                _ => return Err(bad()),
            };
            let flag = match flag {
                None => false,
                // SAFETY: the tag says the payload is an integer.
                Some(f) if matches!(f.type_index, tindex::BOOL | tindex::INT) => unsafe {
                    f.value.v_int64 != 0
                },
                Some(_) => return Err(bad()),
            };
            if index.type_index != tindex::INT || function.type_index != tindex::FUNCTION {
                return Err(bad());
            }
            // SAFETY: the tags say which payloads are set.
            unsafe {
                Ok((
                    index.value.v_int64 as i32,
                    ObjectRef::from_borrowed(function.value.v_obj),
                    flag,
                ))
            }
        })
        .collect()
}

fn read_callbacks(value: &TVMFFIAny, what: &str) -> Result<Callbacks, Error> {
    Ok(read_entries(value, what)?
        .into_iter()
        .map(|(index, function, _)| (index, function))
        .collect())
}

/// The result of a traversal global: the interrupt, None, or the error raised.
fn finish(outcome: Outcome) -> Result<Any, Error> {
    outcome.map(Option::unwrap_or_default)
}

/// A new `ffi.VisitInterrupt` carrying `value`.
pub fn new_interrupt(value: &Any) -> Result<Any, Error> {
    let obj = new_reflected(tindex::VISIT_INTERRUPT, 40);
    // SAFETY: offset 24 is the Any field `value` of a VisitInterrupt.
    unsafe { Accessor::Any.write(obj.as_ptr().cast::<u8>().add(24), value.as_raw())? };
    Ok(Any::object(obj))
}

/// Registers the visitor globals.
pub(crate) fn register(globals: &mut Globals, callbacks: &Ty, visitor_ty: Ty, interrupt_ty: Ty) {
    let optional_interrupt = Ty::Generic("Optional", vec![interrupt_ty.clone()]);
    def_typed(
        globals,
        "ffi.VisitInterrupt",
        interrupt_ty,
        vec![ANY],
        |call| {
            // SAFETY: the argument is a valid view for the call.
            new_interrupt(&unsafe { view_to_owned(call.any(0))? })
        },
    );
    def_typed(
        globals,
        "ffi.StructuralVisitorVisit",
        optional_interrupt.clone(),
        vec![visitor_ty.clone(), ANY],
        |call| {
            let visitor = call.object(0, STRUCTURAL_VISITOR)?;
            // SAFETY: a live visitor and a valid view.
            finish(unsafe { visit(visitor.as_ptr(), call.any(1)) })
        },
    );
    def_typed(
        globals,
        "ffi.StructuralVisitorDefaultVisit",
        optional_interrupt.clone(),
        vec![visitor_ty.clone(), ANY],
        |call| {
            let visitor = call.object(0, STRUCTURAL_VISITOR)?;
            // SAFETY: a live visitor and a valid view.
            finish(unsafe { default_visit(visitor.as_ptr(), call.any(1)) })
        },
    );
    def_typed(
        globals,
        "ffi.StructuralVisitorDefRegionKind",
        INT,
        vec![visitor_ty.clone()],
        |call| {
            let visitor = call.object(0, STRUCTURAL_VISITOR)?;
            // SAFETY: a live visitor.
            Ok(Any::int(unsafe { region_of(visitor.as_ptr()) } as i64))
        },
    );
    def_typed(
        globals,
        "ffi.StructuralVisitorWithDefRegionKind",
        ANY,
        vec![visitor_ty, INT, PACKED_FUNCTION],
        |call| {
            let visitor = call.object(0, STRUCTURAL_VISITOR)?;
            let kind = checked_region(call.int(1)?)?;
            let callback = call.object(2, tindex::FUNCTION)?;
            // SAFETY: a live visitor and a live Function.
            unsafe {
                with_region(visitor.as_ptr(), kind, || {
                    crate::value::function::call(callback.as_ptr(), &[])
                })
            }
        },
    );
    def_typed(
        globals,
        "ffi.StructuralWalk",
        optional_interrupt.clone(),
        vec![ANY, callbacks.clone(), callbacks.clone(), INT],
        |call| {
            let engine = Engine::Walk {
                callbacks: read_callbacks(call.any(1), "callbacks")?,
                with_region: read_callbacks(call.any(2), "callbacks_with_def_region_kind")?,
                post_order: is_post_order(call.int(3)?)?,
            };
            let visitor = new_visitor(engine);
            // SAFETY: a live visitor and a valid view.
            finish(unsafe { visit(visitor.as_ptr(), call.any(0)) })
        },
    );
    def_typed(
        globals,
        "ffi.StructuralVisit",
        optional_interrupt,
        vec![ANY, callbacks.clone()],
        |call| {
            let engine = Engine::Visit {
                callbacks: read_callbacks(call.any(1), "callbacks")?,
            };
            let visitor = new_visitor(engine);
            // SAFETY: a live visitor and a valid view.
            finish(unsafe { visit(visitor.as_ptr(), call.any(0)) })
        },
    );
}

/// A `WalkOrder` argument: false for pre-order (0), true for post-order (1).
pub fn is_post_order(order: i64) -> Result<bool, Error> {
    match order {
        0 => Ok(false),
        1 => Ok(true),
        other => Err(Error::new(
            "ValueError",
            format!("walk order must be 0 (pre-order) or 1 (post-order), got {other}"),
        )),
    }
}

/// A definition-region kind from an int argument.
pub fn checked_region(kind: i64) -> Result<i32, Error> {
    match kind {
        0..=2 => Ok(kind as i32),
        other => Err(Error::new(
            "ValueError",
            format!("invalid definition region kind {other} (expected 0, 1 or 2)"),
        )),
    }
}
