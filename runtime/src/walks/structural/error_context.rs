//! `ffi.VisitErrorContext`: the trail of nodes an error crossed on its way out of a structural
//! traversal (innermost first), and `FindAccessPaths`, which turns that trail back into access
//! paths from a root.

use crate::abi::{TVMFFIAny, TVMFFIErrorCell, TVMFFIFieldInfo, TVMFFIObject};
use crate::containers::map::MapView;
use crate::containers::seq::List;
use crate::registry::reflection::{new_reflected, Accessor};
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::{is_object_index, ObjectRef};
use crate::walks::access_path::kind as step;

use crate::registry::types::runtime_index::VISIT_ERROR_CONTEXT;
const TOTAL_SIZE: usize = 40;
/// Layout: `reverse_visit_pattern` (List) at 24, `prev_error_context` (Optional object) at 32.
const PATTERN_OFFSET: usize = 24;
const PREV_OFFSET: usize = 32;

/// The `extra_context` slot of an Error object (ours or foreign: only the cell is used).
///
/// # Safety
/// `error` is a live Error object.
unsafe fn extra_context_slot(error: *mut TVMFFIObject) -> *mut *mut TVMFFIObject {
    let cell = error.cast::<u8>().add(24).cast::<TVMFFIErrorCell>();
    std::ptr::addr_of_mut!((*cell).extra_context).cast()
}

/// Records that `error` left the traversal of `node` (Apache's `UpdateVisitErrorContext`):
/// appended to the error's VisitErrorContext, or a new context wrapping what was there.
/// Values that are not objects leave no trace.
///
/// # Safety
/// `error` is a live Error object not shared with other threads (it is being raised).
pub unsafe fn record(error: *mut TVMFFIObject, node: &TVMFFIAny) {
    if !is_object_index(node.type_index) {
        return;
    }
    let node = Any::object(ObjectRef::from_borrowed(node.value.v_obj));
    let slot = extra_context_slot(error);
    let existing = *slot;
    if !existing.is_null() && (*existing).type_index == VISIT_ERROR_CONTEXT {
        if let Some(pattern) = Accessor::ObjectRef
            .read(existing.cast::<u8>().add(PATTERN_OFFSET))
            .as_object()
            .cloned()
        {
            if let Ok(mut list) = List::from_object(pattern) {
                list.push(node);
                return;
            }
        }
    }
    let context = new_reflected(VISIT_ERROR_CONTEXT, TOTAL_SIZE);
    let base = context.as_ptr().cast::<u8>();
    let pattern = List::from_vec(vec![node]).into_any();
    // The writes cannot fail: the values have the fields' types.
    let _ = Accessor::ObjectRef.write(base.add(PATTERN_OFFSET), pattern.as_raw());
    if !existing.is_null() {
        // The old context moves into the new one (the slot's reference is handed over).
        base.add(PREV_OFFSET)
            .cast::<*mut TVMFFIObject>()
            .write(existing);
    }
    *slot = context.into_raw();
}

/// Records `node` in the error context of a failed step of a traversal (see [`record`]).
pub fn attach<T>(outcome: Result<T, Error>, node: &TVMFFIAny) -> Result<T, Error> {
    if let Err(error) = &outcome {
        // SAFETY: the error is live and owned by the failing traversal only.
        unsafe { record(error.clone().into_object().as_ptr(), node) };
    }
    outcome
}

/// A step taken while searching, kept as data until a match needs the path.
enum PendingStep {
    Attr(&'static TVMFFIFieldInfo),
    Item(i64),
    Key(Any),
}

impl PendingStep {
    fn materialize(&self) -> Result<ObjectRef, Error> {
        match self {
            PendingStep::Attr(field) => {
                // SAFETY: field names point at registry-owned storage.
                let name = Any::string(unsafe { crate::value::any::byte_array_slice(&field.name) });
                crate::walks::access_path::new_step(step::ATTR, &name)
            }
            PendingStep::Item(i) => {
                crate::walks::access_path::new_step(step::ARRAY_ITEM, &Any::int(*i))
            }
            PendingStep::Key(key) => crate::walks::access_path::new_step(step::MAP_ITEM, key),
        }
    }
}

struct Finder {
    /// The trail root-first, with repeats of one node and empty entries dropped.
    records: Vec<usize>,
    allow_prefix_match: bool,
    matched: usize,
    steps: Vec<PendingStep>,
    results: Vec<Any>,
    guard: crate::value::stack::StackGuard,
}

/// `ffi.VisitErrorContext.FindAccessPaths`: every path from `root` along which the context's
/// trail of nodes is found (with `allow_prefix_match`, also paths where only a prefix is).
pub fn find_access_paths(
    root: &ObjectRef,
    context: &ObjectRef,
    allow_prefix_match: bool,
) -> Result<Any, Error> {
    // SAFETY: `context` is a live VisitErrorContext (the caller checked its type).
    let pattern =
        unsafe { Accessor::ObjectRef.read(context.as_ptr().cast::<u8>().add(PATTERN_OFFSET)) };
    let mut trail: Vec<usize> = Vec::new();
    if let Some(list) = pattern
        .as_object()
        .cloned()
        .and_then(|o| List::from_object(o).ok())
    {
        for entry in list.iter() {
            if let Some(obj) = entry.as_object() {
                let address = obj.as_ptr() as usize;
                if trail.last() != Some(&address) {
                    trail.push(address);
                }
            }
        }
    }
    trail.reverse();
    let mut finder = Finder {
        records: trail,
        allow_prefix_match,
        matched: 0,
        steps: Vec::new(),
        results: Vec::new(),
        guard: crate::value::stack::StackGuard::new(),
    };
    finder.visit_object(root)?;
    Ok(crate::containers::seq::Array::from_vec(finder.results).into_any())
}

impl Finder {
    fn path(&self) -> Result<Any, Error> {
        let steps = self
            .steps
            .iter()
            .map(PendingStep::materialize)
            .collect::<Result<Vec<_>, Error>>()?;
        crate::walks::access_path::path_from_steps(steps)
    }

    fn with_step(&mut self, step: PendingStep, value: Any) -> Result<(), Error> {
        self.steps.push(step);
        let out = self.visit_any(value);
        self.steps.pop();
        out
    }

    fn visit_any(&mut self, value: Any) -> Result<(), Error> {
        let Some(obj) = value.as_object().cloned() else {
            return Ok(());
        };
        self.guard.check("VisitErrorContext.FindAccessPaths")?;
        match obj.type_index() {
            tindex::ARRAY | tindex::LIST => {
                // SAFETY: the object is a live sequence; elements are read one at a time.
                let len = unsafe { crate::containers::seq::seq_elements(obj.as_ptr()) }.len();
                for i in 0..len {
                    let item = match unsafe { crate::containers::seq::seq_elements(obj.as_ptr()) }
                        .get(i)
                    {
                        // SAFETY: elements are valid owned values.
                        Some(item) => unsafe { crate::value::any::view_to_owned(item)? },
                        None => break,
                    };
                    if item.type_index() != tindex::NONE {
                        self.with_step(PendingStep::Item(i as i64), item)?;
                    }
                }
                Ok(())
            }
            tindex::MAP | tindex::DICT => {
                let map = MapView::new(&obj).expect("a map");
                for (key, item) in map.iter() {
                    if key.type_index() != tindex::NONE && item.type_index() != tindex::NONE {
                        self.with_step(PendingStep::Key(key), item)?;
                    }
                }
                Ok(())
            }
            _ => self.visit_object(&obj),
        }
    }

    fn visit_object(&mut self, node: &ObjectRef) -> Result<(), Error> {
        self.guard.check("VisitErrorContext.FindAccessPaths")?;
        let Some(info) = crate::registry::types::type_info(node.type_index()) else {
            return Ok(());
        };
        if info.metadata.is_null() {
            return Ok(());
        }
        let total = self.records.len();
        let matched_step =
            self.matched < total && self.records[self.matched] == node.as_ptr() as usize;
        if matched_step {
            self.matched += 1;
            if self.matched == total {
                let path = self.path()?;
                self.results.push(path);
                self.matched -= 1;
                return Ok(());
            }
        }
        let before = self.results.len();
        // SAFETY: `info` is the registered type info of `node`.
        let outcome = unsafe {
            super::for_each_field(info, |field| {
                let child = crate::registry::reflection::get_field(field, node.as_ptr())?;
                self.with_step(PendingStep::Attr(field), child)?;
                Ok(false)
            })
        };
        if outcome.is_ok()
            && self.allow_prefix_match
            && self.matched > 0
            && self.matched < total
            && !self.steps.is_empty()
            && self.results.len() == before
        {
            let path = self.path()?;
            self.results.push(path);
        }
        if matched_step {
            self.matched -= 1;
        }
        outcome.map(drop)
    }
}
