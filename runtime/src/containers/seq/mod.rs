//! Array (`ffi.Array`, type 71) and List (`ffi.List`, type 75): sequences of owned `TVMFFIAny`
//! values behind a `TVMFFISeqCell {data, size, capacity, data_deleter}` at offset 24, with
//! Apache's exact layouts and mutation rules.
//!
//! Header-only C++ code in extensions reads and mutates these objects directly, and hands us
//! ones it allocated itself, so both the layout and the ownership rules are part of the ABI:
//!
//! * **Array** objects keep their elements inline right after the 56-byte object
//!   (`data == obj + 56`, `data_deleter == NULL`). Arrays are copy-on-write: a mutation happens
//!   in place only while the handle is the sole strong reference and the capacity suffices;
//!   otherwise the elements are moved (unique) or copied (shared) into a fresh Array, grown to
//!   `max(2 * capacity, size + extra)` like Apache's.
//! * **List** objects keep their elements in a separate buffer that `data_deleter(data)` frees.
//!   Lists are shared and mutated in place. Growth replaces the buffer: the elements are moved
//!   bitwise, the old buffer goes to the *old* `data_deleter`, and the new buffer (ours) comes
//!   with our deleter. Buffers are allocated with C++'s `::operator new` (and freed with
//!   `::operator delete`) because Apache's header code grows *our* Lists the same way: it
//!   allocates with `::operator new` and keeps whatever `data_deleter` it finds.
//! * The object's own deleter destroys elements `0..size` and then calls `data_deleter(data)`
//!   when it is not NULL (Apache's `~SeqBaseObj`); ours does exactly that, so an object built
//!   by us and grown by C++ (or the other way round) is freed by whoever allocated each part.
//!
//! Elements removed by a mutation are released only after the container is consistent again,
//! since releasing one may run arbitrary deleters.
//!
//! Thread safety follows Apache's: reading is safe from any thread, but a List (or an Array
//! reached through a unique handle) must not be mutated while another thread uses it.
//!
//! This module holds what both share: the payload, the element operations on a cell, Apache's
//! index errors, and the handle methods `seq_handle!` gives both; `array` and `list` hold each
//! one's construction, iteration and mutation rules, `cxx_buffer` the C++ allocation of List
//! buffers.

use crate::abi::{TVMFFIAny, TVMFFIObject, TVMFFISeqCell};
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::RustObject;

/// Size of the object header; the cell follows it.
const HEADER: usize = std::mem::size_of::<TVMFFIObject>();
/// Size of one element.
const ELEM: usize = std::mem::size_of::<TVMFFIAny>();
/// Apache's growth factor for both containers.
const GROWTH: usize = 2;
/// Capacity of a List built from values (Apache's `ListObj::kInitSize`).
const LIST_MIN_CAPACITY: usize = 4;

/// The payload of our Array and List objects: just the cell, so the object is 56 bytes.
#[repr(C)]
struct SeqPayload {
    cell: TVMFFISeqCell,
}

impl Drop for SeqPayload {
    fn drop(&mut self) {
        // SAFETY: the cell owns `size` initialized elements at `data`, and `data_deleter`, when
        // set, is the function that frees `data` (our buffer deleter, or whichever deleter
        // foreign code installed after replacing the buffer).
        unsafe {
            let data = self.cell.data.cast::<TVMFFIAny>();
            let size = usize::try_from(self.cell.size).unwrap_or(0);
            self.cell.size = 0;
            for i in 0..size {
                drop(Any::from_raw(data.add(i).read()));
            }
            if let Some(deleter) = self.cell.data_deleter {
                deleter(self.cell.data);
            }
        }
    }
}

// The object must be exactly Apache's 56-byte `SeqBaseObj`.
const _: () = assert!(std::mem::size_of::<RustObject<SeqPayload>>() == 56);

// ---------------------------------------------------------------------------------------------
// Raw cell access, shared by Array and List, ours or foreign
// ---------------------------------------------------------------------------------------------

/// Is `type_index` one of the two sequence types?
#[inline]
pub fn is_seq_index(type_index: i32) -> bool {
    type_index == tindex::ARRAY || type_index == tindex::LIST
}

/// The cell of a sequence object.
///
/// # Safety
/// `obj` is a live Array or List object.
#[inline]
unsafe fn cell_of(obj: *mut TVMFFIObject) -> *mut TVMFFISeqCell {
    obj.cast::<u8>().add(HEADER).cast()
}

/// Number of elements.
#[inline]
unsafe fn len_of(cell: *const TVMFFISeqCell) -> usize {
    usize::try_from((*cell).size).unwrap_or(0)
}

/// Capacity in elements.
#[inline]
unsafe fn capacity_of(cell: *const TVMFFISeqCell) -> usize {
    usize::try_from((*cell).capacity).unwrap_or(0)
}

/// The first element slot.
#[inline]
unsafe fn slots(cell: *const TVMFFISeqCell) -> *mut TVMFFIAny {
    (*cell).data.cast()
}

/// The elements of any Array or List object, ours or foreign, borrowed.
///
/// # Safety
/// `obj` is a live Array or List, and it is not mutated while the slice is in use (a List can be
/// mutated by any holder: prefer [`List::get`] unless nobody else can touch it).
pub unsafe fn seq_elements<'a>(obj: *mut TVMFFIObject) -> &'a [TVMFFIAny] {
    let cell = cell_of(obj);
    let len = len_of(cell);
    if len == 0 || (*cell).data.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(slots(cell), len)
    }
}

/// An owned copy of a stored element (one more reference for objects).
#[inline]
fn clone_element(element: &TVMFFIAny) -> Any {
    // SAFETY: `Any` is a transparent `TVMFFIAny`, and stored elements are valid owned values, so
    // viewing one as an `Any` and cloning it takes a new reference.
    unsafe { (*(element as *const TVMFFIAny).cast::<Any>()).clone() }
}

/// Moves `items` into slots `idx..idx + n`, shifting the tail right.
///
/// # Safety
/// `idx <= size` and `capacity >= size + items.len()`.
unsafe fn insert_in_place(cell: *mut TVMFFISeqCell, idx: usize, items: Vec<Any>) {
    let n = items.len();
    if n == 0 {
        return;
    }
    let len = len_of(cell);
    let base = slots(cell);
    std::ptr::copy(base.add(idx), base.add(idx + n), len - idx);
    for (k, item) in items.into_iter().enumerate() {
        base.add(idx + k).write(item.into_raw());
    }
    (*cell).size = (len + n) as i64;
}

/// Appends owned copies of `views` to an empty cell with room for them, one at a time, so that
/// after a failed conversion the cell holds exactly the values made so far.
///
/// # Safety
/// The cell is empty with capacity `>= views.len()`; every view is valid.
unsafe fn fill_from_views(cell: *mut TVMFFISeqCell, views: &[TVMFFIAny]) -> Result<(), Error> {
    let base = slots(cell);
    for (i, view) in views.iter().enumerate() {
        base.add(i)
            .write(crate::value::any::view_to_owned(view)?.into_raw());
        (*cell).size = (i + 1) as i64;
    }
    Ok(())
}

/// Takes slots `first..last` out, shifting the tail left; the caller drops the result once the
/// container is consistent.
///
/// # Safety
/// `first <= last <= size`.
unsafe fn remove_in_place(cell: *mut TVMFFISeqCell, first: usize, last: usize) -> Vec<Any> {
    if first == last {
        return Vec::new();
    }
    let len = len_of(cell);
    let base = slots(cell);
    let removed = (first..last)
        .map(|i| Any::from_raw(base.add(i).read()))
        .collect();
    std::ptr::copy(base.add(last), base.add(first), len - last);
    (*cell).size = (len - (last - first)) as i64;
    removed
}

/// Stores `value` in slot `i`, returning the previous value.
///
/// # Safety
/// `i < size`.
unsafe fn replace_in_place(cell: *mut TVMFFISeqCell, i: usize, value: Any) -> Any {
    let slot = slots(cell).add(i);
    let old = Any::from_raw(slot.read());
    slot.write(value.into_raw());
    old
}

/// Reverses the elements.
///
/// # Safety
/// The cell is valid.
unsafe fn reverse_in_place(cell: *mut TVMFFISeqCell) {
    let len = len_of(cell);
    if len > 1 {
        std::slice::from_raw_parts_mut(slots(cell), len).reverse();
    }
}

/// Takes every element out (size becomes 0).
///
/// # Safety
/// The cell is valid.
unsafe fn take_all(cell: *mut TVMFFISeqCell) -> Vec<Any> {
    let len = len_of(cell);
    remove_in_place(cell, 0, len)
}

// ---------------------------------------------------------------------------------------------
// Apache's errors
// ---------------------------------------------------------------------------------------------

/// `IndexError: Index <i> out of bounds <size>` (element access, set, erase, pop).
pub fn index_error(index: i64, size: usize) -> Error {
    Error::new("IndexError", format!("Index {index} out of bounds {size}"))
}

/// `IndexError: Index <i> out of bounds [0, <size>]` (insertion).
fn insert_index_error(index: i64, size: usize) -> Error {
    Error::new(
        "IndexError",
        format!("Index {index} out of bounds [0, {size}]"),
    )
}

/// `IndexError: Erase range [<first>, <last>) out of bounds <size>`.
fn range_error(first: i64, last: i64, size: usize) -> Error {
    Error::new(
        "IndexError",
        format!("Erase range [{first}, {last}) out of bounds {size}"),
    )
}

/// `index` as a valid element position, or Apache's error.
fn check_index(index: i64, size: usize) -> Result<usize, Error> {
    usize::try_from(index)
        .ok()
        .filter(|&i| i < size)
        .ok_or_else(|| index_error(index, size))
}

/// `index` as a valid insertion position (`0..=size`), or Apache's error.
fn check_insert_index(index: i64, size: usize) -> Result<usize, Error> {
    usize::try_from(index)
        .ok()
        .filter(|&i| i <= size)
        .ok_or_else(|| insert_index_error(index, size))
}

/// `first..last` as a valid non-empty erase range, `None` for an empty one (`first == last`,
/// never checked, as in Apache), or Apache's error.
fn check_range(first: i64, last: i64, size: usize) -> Result<Option<(usize, usize)>, Error> {
    if first == last {
        return Ok(None);
    }
    if first < 0 || last > size as i64 || first >= last {
        return Err(range_error(first, last, size));
    }
    Ok(Some((first as usize, last as usize)))
}

/// Does the sequence contain a value equal to `value` (Apache's `AnyEqual`, element first)?
///
/// # Safety
/// `obj` is a live Array or List and `value` a valid value or argument view.
unsafe fn contains_in(obj: *mut TVMFFIObject, value: &TVMFFIAny) -> Result<bool, Error> {
    // Index by index, re-reading the size: an equality hook may run arbitrary code.
    let cell = cell_of(obj);
    let mut i = 0;
    while i < len_of(cell) {
        let element = clone_element(&*slots(cell).add(i));
        if crate::containers::any_hash::any_equal(element.as_raw(), value)? {
            return Ok(true);
        }
        i += 1;
    }
    Ok(false)
}

// ---------------------------------------------------------------------------------------------
// What both handles share
// ---------------------------------------------------------------------------------------------

/// The methods and conversions that are the same for both handles: wrapping and unwrapping the
/// object, sizes, element reads by index, search, and the mutations defined by others (`insert`
/// by `insert_many`, `push` and `extend` by the handle's `make_room`, `erase` and `pop` by
/// `pop_at`, `replace_slice` by `erase_range` and
/// `insert_many`). Each handle adds its construction, iteration and mutation rules.
macro_rules! seq_handle {
    ($name:ident, $index:expr, $what:literal) => {
        impl $name {
            #[doc = concat!("Wraps ", $what, " object, or gives the object back if it is something else.")]
            pub fn from_object(obj: ObjectRef) -> Result<$name, ObjectRef> {
                if obj.type_index() == $index {
                    Ok($name(obj))
                } else {
                    Err(obj)
                }
            }

            #[doc = concat!("A new reference to the ", stringify!($name), " in `view`, if it holds one.")]
            ///
            /// # Safety
            /// `view` is a valid value or argument view.
            pub unsafe fn from_view(view: &TVMFFIAny) -> Option<$name> {
                (view.type_index == $index)
                    .then(|| $name(ObjectRef::from_borrowed(view.value.v_obj)))
            }

            /// The object.
            pub fn as_object(&self) -> &ObjectRef {
                &self.0
            }

            /// Gives up the handle as an object reference.
            pub fn into_object(self) -> ObjectRef {
                self.0
            }

            /// Gives up the handle as an owned value.
            pub fn into_any(self) -> Any {
                Any::object(self.0)
            }

            pub(super) fn cell(&self) -> *mut TVMFFISeqCell {
                // SAFETY: the handle holds a reference to an object of this type.
                unsafe { cell_of(self.0.as_ptr()) }
            }

            /// Number of elements.
            pub fn len(&self) -> usize {
                // SAFETY: the cell is alive while we hold the reference.
                unsafe { len_of(self.cell()) }
            }

            /// True when there are no elements.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            /// Number of elements there is room for without growing.
            pub fn capacity(&self) -> usize {
                // SAFETY: as for `len`.
                unsafe { capacity_of(self.cell()) }
            }

            /// Element `i`, owned.
            pub fn get(&self, i: usize) -> Option<Any> {
                // SAFETY: the index is checked against the current size.
                (i < self.len()).then(|| unsafe { clone_element(&*slots(self.cell()).add(i)) })
            }

            #[doc = concat!("Element `i`, owned, or Apache's `IndexError` (`ffi.", stringify!($name), "GetItem`).")]
            pub fn at(&self, i: i64) -> Result<Any, Error> {
                let i = check_index(i, self.len())?;
                // SAFETY: `i < size`.
                Ok(unsafe { clone_element(&*slots(self.cell()).add(i)) })
            }

            /// Owned copies of all elements.
            pub fn to_vec(&self) -> Vec<Any> {
                self.iter().collect()
            }

            #[doc = concat!("Does the ", stringify!($name), " hold a value equal to `value` under Apache's `AnyEqual`")]
            /// (numbers and objects bit for bit or by address, strings and bytes by content,
            /// custom `__any_equal__` hooks)? Errors come only from such hooks.
            pub fn contains(&self, value: &Any) -> Result<bool, Error> {
                // SAFETY: we hold the object; `value` is a valid owned value.
                unsafe { contains_in(self.0.as_ptr(), value.as_raw()) }
            }

            /// Appends a value.
            pub fn push(&mut self, value: Any) {
                self.extend([value])
            }

            /// Appends values.
            pub fn extend(&mut self, values: impl IntoIterator<Item = Any>) {
                let values: Vec<Any> = values.into_iter().collect();
                let len = self.len();
                let cell = self.make_room(values.len());
                // SAFETY: `make_room` leaves room for every value (and an Array handle unique).
                unsafe { insert_in_place(cell, len, values) };
            }

            /// Inserts `value` before position `i` (as [`Self::insert_many`] does).
            pub fn insert(&mut self, i: i64, value: Any) -> Result<(), Error> {
                self.insert_many(i, vec![value])
            }

            /// Removes element `i` (`IndexError` when out of range).
            pub fn erase(&mut self, i: i64) -> Result<(), Error> {
                self.pop_at(i).map(drop)
            }

            /// Removes and returns the last element.
            pub fn pop(&mut self) -> Option<Any> {
                let len = self.len();
                (len > 0).then(|| self.pop_at(len as i64 - 1).unwrap_or_default())
            }

            /// Replaces the elements in `start..stop` by `values`: the range is erased first
            /// (checked as by [`Self::erase_range`]), then `values` are inserted at `start`
            /// (checked as by [`Self::insert_many`]), as `ffi.ListReplaceSlice` does. `values`
            /// are owned already, so a sequence may be spliced into itself.
            pub fn replace_slice(
                &mut self,
                start: i64,
                stop: i64,
                values: Vec<Any>,
            ) -> Result<(), Error> {
                self.erase_range(start, stop)?;
                self.insert_many(start, values)
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::new()
            }
        }

        impl FromIterator<Any> for $name {
            fn from_iter<I: IntoIterator<Item = Any>>(iter: I) -> Self {
                $name::from_vec(iter.into_iter().collect())
            }
        }

        impl From<Vec<Any>> for $name {
            fn from(values: Vec<Any>) -> Self {
                $name::from_vec(values)
            }
        }

        impl From<$name> for Any {
            fn from(value: $name) -> Any {
                value.into_any()
            }
        }
    };
}

mod array;
mod cxx_buffer;
mod list;

pub use array::Array;
pub use list::{list_buffer_deleter, List, ListIter};

#[cfg(test)]
mod tests;
