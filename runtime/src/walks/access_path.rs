//! The `ffi.reflection.AccessStep` and `ffi.reflection.AccessPath` objects: a path from a root
//! value through attributes, array items and map items, as structural equality, error contexts
//! and `ffi.ReprPrint` report them (the globals that expose them are in `builtins::dyn_types`).
//!
//! Both are reflected objects of the runtime's own types, laid out as Apache's: a step holds its
//! kind (int32 at 24) and key (Any at 32); a path its parent (at 24), last step (at 32) and depth
//! (int32 at 40). The root has no parent and no step.

use crate::registry::reflection::{init_field, new_reflected, read_field, Accessor};
use crate::registry::types::runtime_index::{ACCESS_PATH, ACCESS_STEP};
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::ObjectRef;

/// `AccessKind`: what an AccessStep steps into.
pub(crate) mod kind {
    pub const ATTR: i64 = 0;
    pub const ARRAY_ITEM: i64 = 1;
    pub const MAP_ITEM: i64 = 2;
    pub const ATTR_MISSING: i64 = 3;
    pub const ARRAY_ITEM_MISSING: i64 = 4;
    pub const MAP_ITEM_MISSING: i64 = 5;
}

/// A new AccessStep of `kind` (one of [`kind`]) into `key`.
pub(crate) fn new_step(kind: i64, key: &Any) -> Result<ObjectRef, Error> {
    let step = new_reflected(ACCESS_STEP, 48);
    init_field(&step, 24, Accessor::I32, &Any::int(kind))?;
    init_field(&step, 32, Accessor::Any, key)?;
    Ok(step)
}

/// A new AccessPath: `step` taken from `parent` (both None for the root), `depth` steps deep.
pub(crate) fn new_path(
    parent: Option<&ObjectRef>,
    step: Option<&ObjectRef>,
    depth: i64,
) -> Result<Any, Error> {
    let path = new_reflected(ACCESS_PATH, 48);
    let as_any = |o: Option<&ObjectRef>| o.map_or_else(Any::none, |o| Any::object(o.clone()));
    init_field(&path, 24, Accessor::ObjectRef, &as_any(parent))?;
    init_field(&path, 32, Accessor::ObjectRef, &as_any(step))?;
    init_field(&path, 40, Accessor::I32, &Any::int(depth))?;
    Ok(Any::object(path))
}

pub(crate) fn path_depth(path: &ObjectRef) -> i64 {
    // SAFETY: the depth of an AccessPath is an int32 read as an Int.
    unsafe {
        read_field(path.as_ptr(), 40, Accessor::I32)
            .as_raw()
            .value
            .v_int64
    }
}

pub(crate) fn path_parent(path: &ObjectRef) -> Option<ObjectRef> {
    read_field(path.as_ptr(), 24, Accessor::ObjectRef)
        .as_object()
        .cloned()
}

pub(crate) fn path_step(path: &ObjectRef) -> Option<ObjectRef> {
    read_field(path.as_ptr(), 32, Accessor::ObjectRef)
        .as_object()
        .cloned()
}

pub(crate) fn extend(path: &ObjectRef, step: &ObjectRef) -> Result<Any, Error> {
    new_path(Some(path), Some(step), path_depth(path) + 1)
}

/// The AccessPath from the root through `steps` (AccessStep objects), in order.
pub(crate) fn path_from_steps(steps: impl IntoIterator<Item = ObjectRef>) -> Result<Any, Error> {
    let mut path = new_path(None, None, 0)?;
    for step in steps {
        let parent = path
            .as_object()
            .cloned()
            .expect("an AccessPath is an object");
        path = extend(&parent, &step)?;
    }
    Ok(path)
}

/// The steps of an AccessPath from the root, and the kind and key of each.
pub(crate) fn path_steps(path: &ObjectRef) -> Result<Vec<ObjectRef>, Error> {
    let mut steps = Vec::new();
    let mut current = path.clone();
    while let Some(parent) = path_parent(&current) {
        steps.push(path_step(&current).ok_or_else(|| {
            Error::new("InternalError", "an AccessPath with a parent has no step")
        })?);
        current = parent;
    }
    steps.reverse();
    Ok(steps)
}

/// The kind and key of an AccessStep.
pub(crate) fn step_parts(step: &ObjectRef) -> (i64, Any) {
    let kind = read_field(step.as_ptr(), 24, Accessor::I32);
    // SAFETY: the kind is an int32 read as an Int.
    (
        unsafe { kind.as_raw().value.v_int64 },
        read_field(step.as_ptr(), 32, Accessor::Any),
    )
}

fn steps_equal(a: &ObjectRef, b: &ObjectRef) -> Result<bool, Error> {
    let kind = |s: &ObjectRef| read_field(s.as_ptr(), 24, Accessor::I32);
    let key = |s: &ObjectRef| read_field(s.as_ptr(), 32, Accessor::Any);
    // SAFETY: kinds are Ints.
    if unsafe { kind(a).as_raw().value.v_int64 != kind(b).as_raw().value.v_int64 } {
        return Ok(false);
    }
    crate::containers::any_hash::equal_of(&key(a), &key(b))
}

pub(crate) fn paths_equal(a: &ObjectRef, b: &ObjectRef) -> Result<bool, Error> {
    if path_depth(a) != path_depth(b) {
        return Ok(false);
    }
    let (mut a, mut b) = (a.clone(), b.clone());
    loop {
        if a.as_ptr() == b.as_ptr() {
            return Ok(true);
        }
        let (Some(pa), Some(pb)) = (path_parent(&a), path_parent(&b)) else {
            return Ok(true);
        };
        let (Some(sa), Some(sb)) = (path_step(&a), path_step(&b)) else {
            return Err(Error::new(
                "InternalError",
                "an AccessPath with a parent has no step",
            ));
        };
        if !steps_equal(&sa, &sb)? {
            return Ok(false);
        }
        (a, b) = (pa, pb);
    }
}
