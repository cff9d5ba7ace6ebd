//! Errors raised by code built with the headers of releases 0.1.0 to 0.1.7.
//!
//! 0.1.8 appended `cause_chain` and `extra_context` to `TVMFFIErrorCell`. Header code of the
//! earlier releases makes its errors as `ErrorObjFromStd`: the cell without those two fields, then
//! the `std::string`s that hold the kind, message and backtrace. Where the current cell has
//! `cause_chain` and `extra_context`, such an error has its kind string's data pointer and
//! length, which a current reader would take for object handles (and the runtime's structural
//! walks write `extra_context`). When such an error is raised, the runtime raises a copy in its
//! own layout instead (same kind, message and backtrace, no cause, no extra context).

use crate::abi::{TVMFFIErrorCell, TVMFFIObject};
use crate::tindex;
use crate::value::error::Error;
use crate::value::object::ObjectRef;

/// Whether `error` has the layout of an `ErrorObjFromStd` of the 0.1.0 to 0.1.7 headers: the
/// words after its (shorter) cell are the kind's `std::string`, whose data pointer and length
/// are the cell's `kind` (libstdc++'s layout: the data pointer, then the length).
///
/// # Safety
/// `error` is a live Error object: either of the current layout (the full cell) or an
/// `ErrorObjFromStd` of the earlier headers (the cell's first 56 bytes, then the strings).
unsafe fn has_pre_0_1_8_layout(error: *mut TVMFFIObject) -> bool {
    let cell = &*error
        .cast::<u8>()
        .add(std::mem::size_of::<TVMFFIObject>())
        .cast::<TVMFFIErrorCell>();
    !cell.kind.data.is_null()
        && cell.cause_chain.cast_const().cast() == cell.kind.data
        && cell.extra_context as usize == cell.kind.size
}

/// `obj`, or, when it is an error of the 0.1.0 to 0.1.7 layout, a copy in the current layout.
pub(crate) fn upgrade_raised(obj: ObjectRef) -> ObjectRef {
    // SAFETY: objects of the Error type index are errors of one of the two layouts.
    if obj.type_index() != tindex::ERROR || !unsafe { has_pre_0_1_8_layout(obj.as_ptr()) } {
        return obj;
    }
    // Kind, message and backtrace are the first three arrays of the cell in both layouts.
    let legacy = Error::from_object(obj);
    Error::from_parts(
        legacy.kind(),
        legacy.message(),
        legacy.backtrace(),
        None,
        None,
    )
    .into_object()
}
