//! List (`ffi.List`, type 75): elements in a separate C++ buffer, shared and mutated in place.

use super::cxx_buffer;
use super::{
    capacity_of, cell_of, check_index, check_insert_index, check_range, clone_element, contains_in,
    fill_from_views, insert_in_place, len_of, remove_in_place, replace_in_place, reverse_in_place,
    slots, take_all, SeqPayload, GROWTH, LIST_MIN_CAPACITY,
};
use crate::abi::{TVMFFIAny, TVMFFISeqCell};
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::{alloc_object, ObjectRef};
use std::ffi::c_void;

/// An owned reference to a List object (ours or foreign). Lists are shared and mutable: every
/// handle (clones, C++ holders) sees every mutation, as with Apache's `List<Any>`.
///
/// Element access returns owned values and re-checks bounds every time, so interleaving reads
/// and writes through several handles on one thread is safe; concurrent mutation from several
/// threads is a data race, exactly as in Apache's C++ API.
#[derive(Clone, Debug)]
pub struct List(ObjectRef);

impl List {
    /// A fresh empty List with a buffer for `capacity` elements (no buffer for 0).
    pub fn with_capacity(capacity: usize) -> List {
        let data = cxx_buffer::try_allocate(capacity)
            .unwrap_or_else(|| panic!("cannot allocate a List buffer of {capacity} elements"));
        List(alloc_object(
            tindex::LIST,
            SeqPayload {
                cell: TVMFFISeqCell {
                    data,
                    size: 0,
                    capacity: capacity as i64,
                    data_deleter: Some(cxx_buffer::release),
                },
            },
            0,
        ))
    }

    /// An empty List without a buffer (Apache's `List<Any>()`).
    pub fn new() -> List {
        List::with_capacity(0)
    }

    /// A List holding `values`, with capacity `max(4, len)` (as `ffi.List` makes).
    pub fn from_vec(values: Vec<Any>) -> List {
        let list = List::with_capacity(values.len().max(LIST_MIN_CAPACITY));
        // SAFETY: the fresh list has room for every value.
        unsafe { insert_in_place(list.cell(), 0, values) };
        list
    }

    /// A List holding owned copies of argument views, with capacity `max(4, len)` (as
    /// `ffi.List(...)` makes), built in place.
    ///
    /// # Safety
    /// As for [`Array::from_views`](super::Array::from_views).
    pub unsafe fn from_views(views: &[TVMFFIAny]) -> Result<List, Error> {
        let list = List::with_capacity(views.len().max(LIST_MIN_CAPACITY));
        fill_from_views(list.cell(), views)?;
        Ok(list)
    }

    /// Do both handles refer to the same object?
    pub fn same_as(&self, other: &List) -> bool {
        self.0.as_ptr() == other.0.as_ptr()
    }

    /// The elements, owned, in order; the size is re-read at every step.
    pub fn iter(&self) -> ListIter<'_> {
        ListIter {
            list: self,
            next: 0,
        }
    }

    /// Moves the elements to a new buffer of exactly `capacity` slots if that is more than the
    /// current capacity (Apache's `ListObj::Reserve`). The old buffer goes to the old
    /// `data_deleter`; the new one is ours, so our deleter is installed with it.
    ///
    /// # Panics
    /// When the buffer cannot be allocated (see [`List::try_reserve`]).
    pub fn reserve(&mut self, capacity: usize) {
        if let Err(e) = self.try_reserve(capacity) {
            panic!("cannot allocate a List buffer of {capacity} elements: {e}");
        }
    }

    /// [`List::reserve`], failing with Apache's `InternalError: std::bad_alloc` (what
    /// `ffi.ListReserve` raises there) when the buffer cannot be allocated; the List is then
    /// unchanged.
    pub fn try_reserve(&mut self, capacity: usize) -> Result<(), Error> {
        let cell = self.cell();
        // SAFETY: the cell is valid; elements are moved bitwise (values are trivially
        // relocatable), then the old buffer is released by the deleter that belongs to it.
        unsafe {
            if capacity <= capacity_of(cell) {
                return Ok(());
            }
            let len = len_of(cell);
            let fresh = cxx_buffer::try_allocate(capacity)
                .ok_or_else(|| Error::new("InternalError", "std::bad_alloc"))?;
            if len > 0 {
                std::ptr::copy_nonoverlapping(slots(cell), fresh.cast::<TVMFFIAny>(), len);
            }
            let (old, old_deleter) = ((*cell).data, (*cell).data_deleter);
            (*cell).data = fresh;
            (*cell).capacity = capacity as i64;
            (*cell).data_deleter = Some(cxx_buffer::release);
            if let (false, Some(deleter)) = (old.is_null(), old_deleter) {
                deleter(old);
            }
        }
        Ok(())
    }

    /// Room for `extra` more elements, growing to `max(2 * capacity, size + extra)`.
    fn make_room(&mut self, extra: usize) -> *mut TVMFFISeqCell {
        let (len, capacity) = (self.len(), self.capacity());
        if capacity < len + extra {
            self.reserve(capacity.saturating_mul(GROWTH).max(len + extra));
        }
        self.cell()
    }

    /// Sets element `i` (`IndexError` when out of range).
    pub fn set(&mut self, i: i64, value: Any) -> Result<(), Error> {
        let i = check_index(i, self.len())?;
        // SAFETY: `i < size`.
        let old = unsafe { replace_in_place(self.cell(), i, value) };
        drop(old);
        Ok(())
    }

    /// Inserts `values` before position `i` (`0..=len`; `IndexError` otherwise); nothing at all
    /// happens for an empty `values`. As in Apache, room is made before the position is checked,
    /// so a rejected insert may still grow the capacity.
    pub fn insert_many(&mut self, i: i64, values: Vec<Any>) -> Result<(), Error> {
        if values.is_empty() {
            return Ok(());
        }
        let cell = self.make_room(values.len());
        let i = check_insert_index(i, self.len())?;
        // SAFETY: `i <= size` and there is room.
        unsafe { insert_in_place(cell, i, values) };
        Ok(())
    }

    /// Removes and returns element `i` (`IndexError` when out of range; `ffi.ListPop`).
    pub fn pop_at(&mut self, i: i64) -> Result<Any, Error> {
        let i = check_index(i, self.len())?;
        // SAFETY: `i < size`.
        let mut removed = unsafe { remove_in_place(self.cell(), i, i + 1) };
        Ok(removed.pop().unwrap_or_default())
    }

    /// Removes the elements in `first..last` (checked as by [`Array::erase_range`](super::Array::erase_range)).
    pub fn erase_range(&mut self, first: i64, last: i64) -> Result<(), Error> {
        let Some((first, last)) = check_range(first, last, self.len())? else {
            return Ok(());
        };
        // SAFETY: the range lies within the elements.
        let removed = unsafe { remove_in_place(self.cell(), first, last) };
        drop(removed);
        Ok(())
    }

    /// Removes every element (the buffer stays).
    pub fn clear(&mut self) {
        // SAFETY: the cell is valid.
        let removed = unsafe { take_all(self.cell()) };
        drop(removed);
    }

    /// Reverses the elements in place.
    pub fn reverse(&mut self) {
        // SAFETY: the cell is valid.
        unsafe { reverse_in_place(self.cell()) };
    }
}

seq_handle!(List, tindex::LIST, "a List");

/// Iterator over a List's elements (owned), robust against mutation between steps.
pub struct ListIter<'a> {
    list: &'a List,
    next: usize,
}

impl Iterator for ListIter<'_> {
    type Item = Any;

    fn next(&mut self) -> Option<Any> {
        let item = self.list.get(self.next)?;
        self.next += 1;
        Some(item)
    }
}

impl<'a> IntoIterator for &'a List {
    type Item = Any;
    type IntoIter = ListIter<'a>;

    fn into_iter(self) -> ListIter<'a> {
        self.iter()
    }
}

/// A void pointer to the buffer-release function of our Lists (for tests that check which
/// deleter owns a buffer).
pub fn list_buffer_deleter() -> *const c_void {
    cxx_buffer::release as *const c_void
}
