//! Array (`ffi.Array`, type 71): elements inline after the object, copy-on-write.

use super::{
    capacity_of, cell_of, check_index, check_insert_index, check_range, clone_element, contains_in,
    fill_from_views, insert_in_place, len_of, remove_in_place, replace_in_place, reverse_in_place,
    seq_elements, slots, take_all, SeqPayload, ELEM, GROWTH,
};
use crate::abi::{TVMFFIAny, TVMFFISeqCell};
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::{alloc_object, ObjectRef};

/// An owned reference to an Array object (ours or foreign), with Apache's copy-on-write rules.
///
/// Clones share the object; a mutation through one handle never shows through another (the
/// mutating handle gets its own copy first when the object is shared).
#[derive(Clone, Debug)]
pub struct Array(ObjectRef);

impl Array {
    /// A fresh empty Array with room for `capacity` elements, inline after the object.
    pub fn with_capacity(capacity: usize) -> Array {
        let obj = alloc_object(
            tindex::ARRAY,
            SeqPayload {
                cell: TVMFFISeqCell {
                    data: std::ptr::null_mut(),
                    size: 0,
                    capacity: capacity as i64,
                    data_deleter: None,
                },
            },
            capacity
                .checked_mul(ELEM)
                .filter(|&b| b <= isize::MAX as usize / 2)
                .unwrap_or_else(|| panic!("Array capacity overflow: {capacity} elements")),
        );
        // SAFETY: nobody else sees the object yet; the tail holds `capacity` slots.
        unsafe {
            (*cell_of(obj.as_ptr())).data =
                crate::value::object::tail::<SeqPayload>(obj.as_ptr()).cast();
        }
        Array(obj)
    }

    /// An empty Array (capacity 0, as `ffi.Array()` makes).
    pub fn new() -> Array {
        Array::with_capacity(0)
    }

    /// An Array holding `values`, with capacity exactly `values.len()` (as `ffi.Array` makes).
    pub fn from_vec(values: Vec<Any>) -> Array {
        let array = Array::with_capacity(values.len());
        // SAFETY: the fresh array has room for every value.
        unsafe { insert_in_place(array.cell(), 0, values) };
        array
    }

    /// An Array holding owned copies of argument views, with capacity exactly `views.len()` (as
    /// `ffi.Array(...)` makes), built in place.
    ///
    /// # Safety
    /// Every view is valid (see [`crate::value::any::view_to_owned`]).
    pub unsafe fn from_views(views: &[TVMFFIAny]) -> Result<Array, Error> {
        let array = Array::with_capacity(views.len());
        fill_from_views(array.cell(), views)?;
        Ok(array)
    }

    /// The elements, borrowed. Sound under the copy-on-write protocol: nobody mutates a shared
    /// Array in place, and mutating this handle needs `&mut self`.
    pub fn as_slice(&self) -> &[TVMFFIAny] {
        // SAFETY: see above.
        unsafe { seq_elements(self.0.as_ptr()) }
    }

    /// The elements, owned, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Any> + '_ {
        self.as_slice().iter().map(clone_element)
    }

    /// Is this handle the only strong reference (so in-place mutation is allowed)?
    pub fn is_unique(&self) -> bool {
        self.0.is_unique()
    }

    /// Replaces the object by a fresh one of `capacity`, moving the elements when this handle
    /// is the only one and copying them otherwise (Apache's `SwitchContainer`).
    fn switch_container(&mut self, capacity: usize) {
        let fresh = Array::with_capacity(capacity.max(self.len()));
        let items = if self.is_unique() {
            // SAFETY: nobody else holds the object: its elements can be moved out; it is then
            // released with size 0, whoever's deleter runs.
            unsafe { take_all(self.cell()) }
        } else {
            self.to_vec()
        };
        // SAFETY: the fresh array has room for every element.
        unsafe { insert_in_place(fresh.cell(), 0, items) };
        self.0 = fresh.0;
    }

    /// Makes this handle unique and able to hold `extra` more elements (Apache's
    /// `CopyOnWrite(reserve_extra)`), returning the cell to mutate.
    fn make_room(&mut self, extra: usize) -> *mut TVMFFISeqCell {
        let (len, capacity) = (self.len(), self.capacity());
        if capacity >= len + extra {
            if !self.is_unique() {
                self.switch_container(capacity);
            }
        } else {
            self.switch_container(capacity.saturating_mul(GROWTH).max(len + extra));
        }
        self.cell()
    }

    /// Sets element `i` (`IndexError` when out of range).
    pub fn set(&mut self, i: i64, value: Any) -> Result<(), Error> {
        let i = check_index(i, self.len())?;
        let cell = self.make_room(0);
        // SAFETY: `i < size` and the handle is unique.
        let old = unsafe { replace_in_place(cell, i, value) };
        drop(old);
        Ok(())
    }

    /// Inserts `values` before position `i` (`0..=len`; `IndexError` otherwise).
    pub fn insert_many(&mut self, i: i64, values: Vec<Any>) -> Result<(), Error> {
        let i = check_insert_index(i, self.len())?;
        if values.is_empty() {
            return Ok(());
        }
        let cell = self.make_room(values.len());
        // SAFETY: `i <= size`, there is room, and the handle is unique.
        unsafe { insert_in_place(cell, i, values) };
        Ok(())
    }

    /// Removes and returns element `i` (`IndexError` when out of range).
    pub fn pop_at(&mut self, i: i64) -> Result<Any, Error> {
        let i = check_index(i, self.len())?;
        let cell = self.make_room(0);
        // SAFETY: `i < size` and the handle is unique.
        let mut removed = unsafe { remove_in_place(cell, i, i + 1) };
        Ok(removed.pop().unwrap_or_default())
    }

    /// Removes the elements in `first..last`; an empty range (`first == last`) is accepted
    /// unchecked, any other range must lie within `0..=len` (`IndexError` otherwise).
    pub fn erase_range(&mut self, first: i64, last: i64) -> Result<(), Error> {
        let Some((first, last)) = check_range(first, last, self.len())? else {
            return Ok(());
        };
        let cell = self.make_room(0);
        // SAFETY: the range lies within the elements and the handle is unique.
        let removed = unsafe { remove_in_place(cell, first, last) };
        drop(removed);
        Ok(())
    }

    /// Removes every element (the capacity stays).
    pub fn clear(&mut self) {
        if self.is_empty() {
            return;
        }
        if self.is_unique() {
            // SAFETY: the handle is unique.
            let removed = unsafe { take_all(self.cell()) };
            drop(removed);
        } else {
            self.0 = Array::with_capacity(self.capacity()).0;
        }
    }

    /// Makes room for at least `capacity` elements.
    pub fn reserve(&mut self, capacity: usize) {
        if capacity > self.capacity() {
            self.switch_container(capacity);
        }
    }

    /// Reverses the elements.
    pub fn reverse(&mut self) {
        if self.len() > 1 {
            let cell = self.make_room(0);
            // SAFETY: the handle is unique.
            unsafe { reverse_in_place(cell) };
        }
    }
}

seq_handle!(Array, tindex::ARRAY, "an Array");
