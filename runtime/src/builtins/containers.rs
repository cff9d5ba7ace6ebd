//! The Array, List and Shape globals (`ffi.Array*`, `ffi.List*`, `ffi.Shape`) and
//! `ffi.ContainerFindFirstNonCPUDevice`, with Apache's names, `type_schema` metadata, argument
//! conversions and error messages.
//!
//! Two argument kinds exist, as in Apache's C++ registrations:
//! * `ffi.Array` / `ffi.List` (a `const ArrayObj*` / `const ListObj*` parameter): exactly that
//!   type, anything else is a TypeError;
//! * `ffi.List[Any]` (a `List<Any>` parameter): a List is used as is (mutations show), an Array
//!   is converted into a temporary List copy (so e.g. `ffi.ListAppend(array, x)` succeeds and
//!   changes nothing, as in Apache), anything else is a TypeError.

use crate::abi::{TVMFFIAny, TVMFFIObject};
use crate::containers::map::MapView;
use crate::containers::seq::{seq_elements, Array, List};
use crate::containers::shape::Shape;
use crate::dlpack::{DLDevice, DLTensor};
use crate::registry::args::{Borrowed, Call};
use crate::registry::define::{def_typed, Globals};
use crate::registry::type_schema::{Ty, ANY, BOOL, DEVICE, INT, NONE};
use crate::tindex;
use crate::value::any::{view_to_owned, Any};
use crate::value::error::Error;
use crate::value::object::ObjectRef;
use std::collections::HashSet;

const ARRAY: Ty = Ty::Named("ffi.Array");
const LIST: Ty = Ty::Named("ffi.List");

/// `ffi.List[Any]`, a `List<Any>` parameter.
fn list_of_any() -> Ty {
    Ty::Generic("ffi.List", vec![ANY])
}

/// Argument `i` of a `const ArrayObj*` parameter, borrowed for the call.
#[inline]
fn array_arg<'a>(call: &Call<'a>, i: usize) -> Result<Borrowed<'a, Array>, Error> {
    call.object_view(i, tindex::ARRAY)?
        .try_map(Array::from_object)
        .map_err(|_| Error::new("InternalError", "ffi.Array subtype"))
}

/// Argument `i` of a `const ListObj*` parameter, borrowed for the call.
#[inline]
fn list_arg<'a>(call: &Call<'a>, i: usize) -> Result<Borrowed<'a, List>, Error> {
    call.object_view(i, tindex::LIST)?
        .try_map(List::from_object)
        .map_err(|_| Error::new("InternalError", "ffi.List subtype"))
}

/// Argument `i` of a `List<Any>` parameter: the List itself (a new reference: callers mutate
/// it), or a List copy of an Array.
fn list_any_arg(call: &Call, i: usize) -> Result<List, Error> {
    // SAFETY: arguments are valid views for the duration of the call.
    if let Some(array) = unsafe { Array::from_view(call.any(i)) } {
        return Ok(List::from_vec(array.to_vec()));
    }
    List::from_object(call.object(i, tindex::LIST)?)
        .map_err(|_| Error::new("InternalError", "ffi.List subtype"))
}

/// Argument `i` as an owned value (raw strings become String, as for a `const Any&`).
fn value_arg(call: &Call, i: usize) -> Result<Any, Error> {
    // SAFETY: arguments are valid views for the duration of the call.
    unsafe { view_to_owned(call.any(i)) }
}

fn none(_: ()) -> Any {
    Any::none()
}

pub(super) fn register(globals: &mut Globals) {
    crate::registry::define::def_packed(globals, "ffi.Array", |args| {
        // SAFETY: arguments are valid views for the duration of the call.
        Ok(unsafe { Array::from_views(args) }?.into_any())
    });
    def_typed(globals, "ffi.ArrayGetItem", ANY, vec![ARRAY, INT], |call| {
        array_arg(call, 0)?.at(call.int(1)?)
    });
    def_typed(globals, "ffi.ArraySize", INT, vec![ARRAY], |call| {
        Ok(Any::int(array_arg(call, 0)?.len() as i64))
    });
    def_typed(
        globals,
        "ffi.ArrayContains",
        BOOL,
        vec![ARRAY, ANY],
        |call| {
            let array = array_arg(call, 0)?;
            Ok(Any::bool(array.contains(&value_arg(call, 1)?)?))
        },
    );

    crate::registry::define::def_packed(globals, "ffi.List", |args| {
        // SAFETY: as for `ffi.Array`.
        Ok(unsafe { List::from_views(args) }?.into_any())
    });
    def_typed(
        globals,
        "ffi.ListAppend",
        NONE,
        vec![list_of_any(), ANY],
        |call| {
            let mut list = list_any_arg(call, 0)?;
            list.push(value_arg(call, 1)?);
            Ok(Any::none())
        },
    );
    def_typed(
        globals,
        "ffi.ListClear",
        NONE,
        vec![list_of_any()],
        |call| {
            list_any_arg(call, 0)?.clear();
            Ok(Any::none())
        },
    );
    def_typed(globals, "ffi.ListContains", BOOL, vec![LIST, ANY], |call| {
        let list = list_arg(call, 0)?;
        Ok(Any::bool(list.contains(&value_arg(call, 1)?)?))
    });
    def_typed(
        globals,
        "ffi.ListErase",
        NONE,
        vec![list_of_any(), INT],
        |call| {
            let mut list = list_any_arg(call, 0)?;
            list.erase(call.int(1)?).map(none)
        },
    );
    def_typed(
        globals,
        "ffi.ListEraseRange",
        NONE,
        vec![list_of_any(), INT, INT],
        |call| {
            let mut list = list_any_arg(call, 0)?;
            list.erase_range(call.int(1)?, call.int(2)?).map(none)
        },
    );
    def_typed(globals, "ffi.ListGetItem", ANY, vec![LIST, INT], |call| {
        list_arg(call, 0)?.at(call.int(1)?)
    });
    def_typed(
        globals,
        "ffi.ListInsert",
        NONE,
        vec![list_of_any(), INT, ANY],
        |call| {
            let mut list = list_any_arg(call, 0)?;
            let (index, value) = (call.int(1)?, value_arg(call, 2)?);
            list.insert(index, value).map(none)
        },
    );
    def_typed(
        globals,
        "ffi.ListPop",
        ANY,
        vec![list_of_any(), INT],
        |call| {
            let mut list = list_any_arg(call, 0)?;
            list.pop_at(call.int(1)?)
        },
    );
    def_typed(
        globals,
        "ffi.ListReplaceSlice",
        NONE,
        vec![list_of_any(), INT, INT, list_of_any()],
        |call| {
            let mut list = list_any_arg(call, 0)?;
            let (start, stop) = (call.int(1)?, call.int(2)?);
            // A snapshot of the replacement, so a List can be spliced into itself.
            let replacement = list_any_arg(call, 3)?.to_vec();
            list.replace_slice(start, stop, replacement).map(none)
        },
    );
    def_typed(
        globals,
        "ffi.ListReserve",
        NONE,
        vec![list_of_any(), INT],
        |call| {
            let mut list = list_any_arg(call, 0)?;
            let capacity = call.int(1)?;
            // A negative capacity is never more than the current one: nothing to do.
            if let Ok(capacity) = usize::try_from(capacity) {
                list.try_reserve(capacity)?;
            }
            Ok(Any::none())
        },
    );
    def_typed(
        globals,
        "ffi.ListReverse",
        NONE,
        vec![list_of_any()],
        |call| {
            list_any_arg(call, 0)?.reverse();
            Ok(Any::none())
        },
    );
    def_typed(
        globals,
        "ffi.ListSetItem",
        NONE,
        vec![list_of_any(), INT, ANY],
        |call| {
            let mut list = list_any_arg(call, 0)?;
            let (index, value) = (call.int(1)?, value_arg(call, 2)?);
            list.set(index, value).map(none)
        },
    );
    def_typed(globals, "ffi.ListSize", INT, vec![LIST], |call| {
        Ok(Any::int(list_arg(call, 0)?.len() as i64))
    });

    crate::registry::define::def_packed(globals, "ffi.Shape", |args| {
        let dims = args
            .iter()
            .map(|a| match a.type_index {
                // SAFETY: the tag says the payload is an integer.
                tindex::INT | tindex::BOOL => Ok(unsafe { a.value.v_int64 }),
                _ => Err(Error::new(
                    "ValueError",
                    "Expect shape to take list of int arguments",
                )),
            })
            .collect::<Result<Vec<i64>, Error>>()?;
        Ok(Shape::new(&dims).into_any())
    });

    def_typed(
        globals,
        "ffi.ContainerFindFirstNonCPUDevice",
        DEVICE,
        vec![ANY],
        |call| {
            // SAFETY: the argument is a valid view for the duration of the call.
            let device = unsafe { find_first_non_cpu_device(call.any(0)) };
            Ok(Any::device(device.unwrap_or(CPU)))
        },
    );
}

/// `kDLCPU:0`, the answer when no tensor lives elsewhere.
const CPU: DLDevice = DLDevice {
    device_type: 1,
    device_id: 0,
};

/// The device of the first non-CPU tensor found depth-first in `root` (a Tensor, or an Array,
/// List, Map or Dict nesting them; Map/Dict values in iteration order), as Apache's
/// `FindFirstNonCPUDevice`. Containers seen before are skipped, so a container that holds itself
/// ends the walk instead of the stack.
///
/// # Safety
/// `root` is a valid value or argument view.
unsafe fn find_first_non_cpu_device(root: &TVMFFIAny) -> Option<DLDevice> {
    // Owned references keep every visited container alive while its elements are read.
    let mut visited: HashSet<usize> = HashSet::new();
    // A stack of (container, elements to visit, next position).
    let mut stack: Vec<(ObjectRef, Vec<Any>, usize)> = Vec::new();
    let mut pending = Some(view_to_owned(root).ok()?);
    loop {
        if let Some(value) = pending.take() {
            match value.type_index() {
                tindex::TENSOR => {
                    let obj = value.as_object()?.as_ptr();
                    let tensor = &*obj
                        .cast::<u8>()
                        .add(std::mem::size_of::<TVMFFIObject>())
                        .cast::<DLTensor>();
                    if tensor.device.device_type != CPU.device_type {
                        return Some(tensor.device);
                    }
                }
                t @ (tindex::ARRAY | tindex::LIST | tindex::MAP | tindex::DICT) => {
                    let obj = value.as_object()?.clone();
                    if visited.insert(obj.as_ptr() as usize) {
                        let children = if t == tindex::ARRAY || t == tindex::LIST {
                            seq_elements(obj.as_ptr())
                                .iter()
                                .map(|e| (*(e as *const TVMFFIAny).cast::<Any>()).clone())
                                .collect()
                        } else {
                            MapView::new(&obj)
                                .map(|m| m.iter().map(|(_, v)| v).collect())
                                .unwrap_or_default()
                        };
                        stack.push((obj, children, 0));
                    }
                }
                _ => {}
            }
        }
        let (_, children, next) = stack.last_mut()?;
        if *next < children.len() {
            pending = Some(std::mem::take(&mut children[*next]));
            *next += 1;
        } else {
            stack.pop();
        }
    }
}
