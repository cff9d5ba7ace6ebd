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

use crate::abi::{TVMFFIAny, TVMFFIObject, TVMFFISeqCell};
use crate::tindex;
use crate::value::any::Any;
use crate::value::error::Error;
use crate::value::object::{alloc_object, ObjectRef, RustObject};
use std::ffi::c_void;
use std::sync::atomic::Ordering;

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
// C++ buffer allocation for Lists
// ---------------------------------------------------------------------------------------------

mod cxx_buffer {
    //! `::operator new(size_t, std::nothrow_t const&)` and `::operator delete(void*)`, resolved at
    //! run time: from the process's global scope first (the same resolution C++ extensions get),
    //! then from `libstdc++.so.6`, and `malloc`/`free` when no C++ runtime exists at all. The
    //! choice is made once, so every buffer we allocate is freed by its matching function.

    use std::ffi::{c_char, c_int, c_void};
    use std::sync::OnceLock;

    type NewFn = unsafe extern "C" fn(usize, *const c_void) -> *mut c_void;
    type DeleteFn = unsafe extern "C" fn(*mut c_void);

    extern "C" {
        fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
        fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
        fn malloc(size: usize) -> *mut c_void;
        fn free(ptr: *mut c_void);
    }

    const RTLD_NOW: c_int = 2;
    /// glibc's `RTLD_DEFAULT`.
    const RTLD_DEFAULT: *mut c_void = std::ptr::null_mut();

    struct Functions {
        new: Option<NewFn>,
        delete: DeleteFn,
    }

    /// The `operator new` / `operator delete` pair (or malloc/free).
    fn functions() -> &'static Functions {
        static FUNCTIONS: OnceLock<Functions> = OnceLock::new();
        FUNCTIONS.get_or_init(|| {
            // SAFETY: dlopen/dlsym are called with NUL-terminated names; the symbols, when found,
            // have the C++ ABI signatures declared above (a `const nothrow_t&` is a pointer).
            unsafe {
                let lookup = |handle: *mut c_void| {
                    let new = dlsym(handle, c"_ZnwmRKSt9nothrow_t".as_ptr());
                    let delete = dlsym(handle, c"_ZdlPv".as_ptr());
                    (!new.is_null() && !delete.is_null()).then(|| Functions {
                        new: Some(std::mem::transmute::<*mut c_void, NewFn>(new)),
                        delete: std::mem::transmute::<*mut c_void, DeleteFn>(delete),
                    })
                };
                lookup(RTLD_DEFAULT)
                    .or_else(|| {
                        let handle = dlopen(c"libstdc++.so.6".as_ptr(), RTLD_NOW);
                        (!handle.is_null()).then(|| lookup(handle)).flatten()
                    })
                    .unwrap_or(Functions {
                        new: None,
                        delete: free,
                    })
            }
        })
    }

    /// A buffer for `count` elements (NULL for 0), or `None` when the size overflows or memory
    /// is exhausted.
    pub(super) fn try_allocate(count: usize) -> Option<*mut c_void> {
        if count == 0 {
            return Some(std::ptr::null_mut());
        }
        let bytes = count
            .checked_mul(super::ELEM)
            .filter(|&b| b <= isize::MAX as usize)?;
        /// Stands in for `std::nothrow`, an empty tag object that is only passed by address.
        static NOTHROW: u8 = 0;
        let functions = functions();
        // SAFETY: both allocation functions take a byte count and return NULL on failure.
        let ptr = unsafe {
            match functions.new {
                Some(new) => new(bytes, std::ptr::addr_of!(NOTHROW).cast()),
                None => malloc(bytes),
            }
        };
        (!ptr.is_null()).then_some(ptr)
    }

    /// The `data_deleter` of List buffers we allocate (also handed to C++, which may put
    /// `::operator new` buffers under it, exactly like Apache's own `RawDataDeleter`).
    pub(super) unsafe extern "C" fn release(data: *mut c_void) {
        if !data.is_null() {
            (functions().delete)(data);
        }
    }
}

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
// Array
// ---------------------------------------------------------------------------------------------

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

    /// Wraps an Array object, or gives the object back if it is something else.
    pub fn from_object(obj: ObjectRef) -> Result<Array, ObjectRef> {
        if obj.type_index() == tindex::ARRAY {
            Ok(Array(obj))
        } else {
            Err(obj)
        }
    }

    /// A new reference to the Array in `view`, if it holds one.
    ///
    /// # Safety
    /// `view` is a valid value or argument view.
    pub unsafe fn from_view(view: &TVMFFIAny) -> Option<Array> {
        (view.type_index == tindex::ARRAY)
            .then(|| Array(ObjectRef::from_borrowed(view.value.v_obj)))
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

    fn cell(&self) -> *mut TVMFFISeqCell {
        // SAFETY: we hold a reference to an Array object.
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

    /// Number of elements the object has room for.
    pub fn capacity(&self) -> usize {
        // SAFETY: as for `len`.
        unsafe { capacity_of(self.cell()) }
    }

    /// The elements, borrowed. Sound under the copy-on-write protocol: nobody mutates a shared
    /// Array in place, and mutating this handle needs `&mut self`.
    pub fn as_slice(&self) -> &[TVMFFIAny] {
        // SAFETY: see above.
        unsafe { seq_elements(self.0.as_ptr()) }
    }

    /// Element `i`, owned.
    pub fn get(&self, i: usize) -> Option<Any> {
        self.as_slice().get(i).map(clone_element)
    }

    /// Element `i`, owned, or Apache's `IndexError` (`ffi.ArrayGetItem`).
    pub fn at(&self, i: i64) -> Result<Any, Error> {
        let slice = self.as_slice();
        check_index(i, slice.len()).map(|i| clone_element(&slice[i]))
    }

    /// The elements, owned, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Any> + '_ {
        self.as_slice().iter().map(clone_element)
    }

    /// Owned copies of all elements.
    pub fn to_vec(&self) -> Vec<Any> {
        self.iter().collect()
    }

    /// Does the Array hold a value equal to `value` under Apache's `AnyEqual` (numbers and
    /// objects bit for bit or by address, strings and bytes by content, custom `__any_equal__`
    /// hooks)? Errors come only from such hooks.
    pub fn contains(&self, value: &Any) -> Result<bool, Error> {
        // SAFETY: we hold the object; `value` is a valid owned value.
        unsafe { contains_in(self.0.as_ptr(), value.as_raw()) }
    }

    /// Is this handle the only strong reference (so in-place mutation is allowed)?
    pub fn is_unique(&self) -> bool {
        // SAFETY: we hold a reference. Acquire pairs with the releasing decrements of former
        // holders, so their last reads happen before our writes.
        let count = unsafe {
            (*self.0.as_ptr())
                .combined_ref_count
                .load(Ordering::Acquire)
        };
        count & 0xFFFF_FFFF == 1
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
    fn writable(&mut self, extra: usize) -> *mut TVMFFISeqCell {
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
        let cell = self.writable(0);
        // SAFETY: `i < size` and the handle is unique.
        let old = unsafe { replace_in_place(cell, i, value) };
        drop(old);
        Ok(())
    }

    /// Appends a value.
    pub fn push(&mut self, value: Any) {
        let cell = self.writable(1);
        let len = self.len();
        // SAFETY: there is room for one more element and the handle is unique.
        unsafe { insert_in_place(cell, len, vec![value]) };
    }

    /// Appends values.
    pub fn extend(&mut self, values: impl IntoIterator<Item = Any>) {
        let values: Vec<Any> = values.into_iter().collect();
        let len = self.len();
        let cell = self.writable(values.len());
        // SAFETY: as for `push`.
        unsafe { insert_in_place(cell, len, values) };
    }

    /// Inserts `value` before position `i` (`0..=len`; `IndexError` otherwise).
    pub fn insert(&mut self, i: i64, value: Any) -> Result<(), Error> {
        self.insert_many(i, vec![value])
    }

    /// Inserts `values` before position `i` (`0..=len`; `IndexError` otherwise).
    pub fn insert_many(&mut self, i: i64, values: Vec<Any>) -> Result<(), Error> {
        let i = check_insert_index(i, self.len())?;
        if values.is_empty() {
            return Ok(());
        }
        let cell = self.writable(values.len());
        // SAFETY: `i <= size`, there is room, and the handle is unique.
        unsafe { insert_in_place(cell, i, values) };
        Ok(())
    }

    /// Removes element `i` (`IndexError` when out of range).
    pub fn erase(&mut self, i: i64) -> Result<(), Error> {
        self.pop_at(i).map(drop)
    }

    /// Removes and returns element `i` (`IndexError` when out of range).
    pub fn pop_at(&mut self, i: i64) -> Result<Any, Error> {
        let i = check_index(i, self.len())?;
        let cell = self.writable(0);
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
        let cell = self.writable(0);
        // SAFETY: the range lies within the elements and the handle is unique.
        let removed = unsafe { remove_in_place(cell, first, last) };
        drop(removed);
        Ok(())
    }

    /// Removes and returns the last element.
    pub fn pop(&mut self) -> Option<Any> {
        let len = self.len();
        (len > 0).then(|| self.pop_at(len as i64 - 1).unwrap_or_default())
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
            let cell = self.writable(0);
            // SAFETY: the handle is unique.
            unsafe { reverse_in_place(cell) };
        }
    }

    /// Replaces the elements in `start..stop` by `values` (the range is checked as by
    /// [`Array::erase_range`], the insertion point as by [`Array::insert_many`]).
    pub fn replace_slice(&mut self, start: i64, stop: i64, values: Vec<Any>) -> Result<(), Error> {
        self.erase_range(start, stop)?;
        self.insert_many(start, values)
    }
}

impl Default for Array {
    fn default() -> Self {
        Array::new()
    }
}

impl FromIterator<Any> for Array {
    fn from_iter<I: IntoIterator<Item = Any>>(iter: I) -> Self {
        Array::from_vec(iter.into_iter().collect())
    }
}

impl From<Vec<Any>> for Array {
    fn from(values: Vec<Any>) -> Self {
        Array::from_vec(values)
    }
}

impl From<Array> for Any {
    fn from(array: Array) -> Any {
        array.into_any()
    }
}

// ---------------------------------------------------------------------------------------------
// List
// ---------------------------------------------------------------------------------------------

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
    /// As for [`Array::from_views`].
    pub unsafe fn from_views(views: &[TVMFFIAny]) -> Result<List, Error> {
        let list = List::with_capacity(views.len().max(LIST_MIN_CAPACITY));
        fill_from_views(list.cell(), views)?;
        Ok(list)
    }

    /// Wraps a List object, or gives the object back if it is something else.
    pub fn from_object(obj: ObjectRef) -> Result<List, ObjectRef> {
        if obj.type_index() == tindex::LIST {
            Ok(List(obj))
        } else {
            Err(obj)
        }
    }

    /// A new reference to the List in `view`, if it holds one.
    ///
    /// # Safety
    /// `view` is a valid value or argument view.
    pub unsafe fn from_view(view: &TVMFFIAny) -> Option<List> {
        (view.type_index == tindex::LIST).then(|| List(ObjectRef::from_borrowed(view.value.v_obj)))
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

    /// Do both handles refer to the same object?
    pub fn same_as(&self, other: &List) -> bool {
        self.0.as_ptr() == other.0.as_ptr()
    }

    fn cell(&self) -> *mut TVMFFISeqCell {
        // SAFETY: we hold a reference to a List object.
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

    /// Number of elements the buffer has room for.
    pub fn capacity(&self) -> usize {
        // SAFETY: as for `len`.
        unsafe { capacity_of(self.cell()) }
    }

    /// Element `i`, owned.
    pub fn get(&self, i: usize) -> Option<Any> {
        // SAFETY: the index is checked against the current size.
        (i < self.len()).then(|| unsafe { clone_element(&*slots(self.cell()).add(i)) })
    }

    /// Element `i`, owned, or Apache's `IndexError` (`ffi.ListGetItem`).
    pub fn at(&self, i: i64) -> Result<Any, Error> {
        let i = check_index(i, self.len())?;
        // SAFETY: `i < size`.
        Ok(unsafe { clone_element(&*slots(self.cell()).add(i)) })
    }

    /// The elements, owned, in order; the size is re-read at every step.
    pub fn iter(&self) -> ListIter<'_> {
        ListIter {
            list: self,
            next: 0,
        }
    }

    /// Owned copies of all elements.
    pub fn to_vec(&self) -> Vec<Any> {
        self.iter().collect()
    }

    /// Does the List hold a value equal to `value` (see [`Array::contains`])?
    pub fn contains(&self, value: &Any) -> Result<bool, Error> {
        // SAFETY: we hold the object; `value` is a valid owned value.
        unsafe { contains_in(self.0.as_ptr(), value.as_raw()) }
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
    fn ensure_room(&mut self, extra: usize) -> *mut TVMFFISeqCell {
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

    /// Appends a value.
    pub fn push(&mut self, value: Any) {
        let len = self.len();
        let cell = self.ensure_room(1);
        // SAFETY: there is room for one more element.
        unsafe { insert_in_place(cell, len, vec![value]) };
    }

    /// Appends values.
    pub fn extend(&mut self, values: impl IntoIterator<Item = Any>) {
        let values: Vec<Any> = values.into_iter().collect();
        let len = self.len();
        let cell = self.ensure_room(values.len());
        // SAFETY: there is room for every value.
        unsafe { insert_in_place(cell, len, values) };
    }

    /// Inserts `value` before position `i` (`0..=len`; `IndexError` otherwise). As in Apache,
    /// room is made before the position is checked, so a rejected insert may still grow the
    /// capacity.
    pub fn insert(&mut self, i: i64, value: Any) -> Result<(), Error> {
        self.insert_many(i, vec![value])
    }

    /// Inserts `values` before position `i` (see [`List::insert`]); nothing at all happens for
    /// an empty `values`.
    pub fn insert_many(&mut self, i: i64, values: Vec<Any>) -> Result<(), Error> {
        if values.is_empty() {
            return Ok(());
        }
        let cell = self.ensure_room(values.len());
        let i = check_insert_index(i, self.len())?;
        // SAFETY: `i <= size` and there is room.
        unsafe { insert_in_place(cell, i, values) };
        Ok(())
    }

    /// Removes element `i` (`IndexError` when out of range).
    pub fn erase(&mut self, i: i64) -> Result<(), Error> {
        self.pop_at(i).map(drop)
    }

    /// Removes and returns element `i` (`IndexError` when out of range; `ffi.ListPop`).
    pub fn pop_at(&mut self, i: i64) -> Result<Any, Error> {
        let i = check_index(i, self.len())?;
        // SAFETY: `i < size`.
        let mut removed = unsafe { remove_in_place(self.cell(), i, i + 1) };
        Ok(removed.pop().unwrap_or_default())
    }

    /// Removes the elements in `first..last` (checked as by [`Array::erase_range`]).
    pub fn erase_range(&mut self, first: i64, last: i64) -> Result<(), Error> {
        let Some((first, last)) = check_range(first, last, self.len())? else {
            return Ok(());
        };
        // SAFETY: the range lies within the elements.
        let removed = unsafe { remove_in_place(self.cell(), first, last) };
        drop(removed);
        Ok(())
    }

    /// Removes and returns the last element.
    pub fn pop(&mut self) -> Option<Any> {
        let len = self.len();
        (len > 0).then(|| self.pop_at(len as i64 - 1).unwrap_or_default())
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

    /// Replaces the elements in `start..stop` by `values`: the range is erased first (checked as
    /// by [`List::erase_range`]), then `values` are inserted at `start` (checked as by
    /// [`List::insert_many`]), as `ffi.ListReplaceSlice` does. `values` are owned already, so a
    /// List may be spliced into itself.
    pub fn replace_slice(&mut self, start: i64, stop: i64, values: Vec<Any>) -> Result<(), Error> {
        self.erase_range(start, stop)?;
        self.insert_many(start, values)
    }
}

impl Default for List {
    fn default() -> Self {
        List::new()
    }
}

impl FromIterator<Any> for List {
    fn from_iter<I: IntoIterator<Item = Any>>(iter: I) -> Self {
        List::from_vec(iter.into_iter().collect())
    }
}

impl From<Vec<Any>> for List {
    fn from(values: Vec<Any>) -> Self {
        List::from_vec(values)
    }
}

impl From<List> for Any {
    fn from(list: List) -> Any {
        list.into_any()
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(values: &[i64]) -> Vec<Any> {
        values.iter().map(|&v| Any::int(v)).collect()
    }

    fn as_ints(values: impl IntoIterator<Item = Any>) -> Vec<i64> {
        values
            .into_iter()
            // SAFETY: tests only store integers here.
            .map(|v| unsafe { v.as_raw().value.v_int64 })
            .collect()
    }

    #[test]
    fn array_layout_is_inline() {
        let array = Array::from_vec(ints(&[1, 2, 3]));
        let obj = array.as_object().as_ptr() as usize;
        // SAFETY: the array is alive.
        let cell = unsafe { &*array.cell() };
        assert_eq!(cell.data as usize, obj + 56);
        assert!(cell.data_deleter.is_none());
        assert_eq!((cell.size, cell.capacity), (3, 3));
    }

    #[test]
    fn array_copy_on_write() {
        let mut a = Array::from_vec(ints(&[1, 2]));
        let b = a.clone();
        a.push(Any::int(3));
        assert_eq!(as_ints(b.iter()), [1, 2], "the shared copy is untouched");
        assert_eq!(as_ints(a.iter()), [1, 2, 3]);
        assert_ne!(a.as_object().as_ptr(), b.as_object().as_ptr());
        // unique and roomy: in place
        a.reserve(10);
        let before = a.as_object().as_ptr();
        a.push(Any::int(4));
        a.set(0, Any::int(0)).unwrap();
        assert_eq!(a.as_object().as_ptr(), before);
        assert_eq!(as_ints(a.iter()), [0, 2, 3, 4]);
    }

    #[test]
    fn list_growth_follows_apache() {
        let mut list = List::from_vec(ints(&[1, 2, 3]));
        assert_eq!(list.capacity(), 4);
        list.push(Any::int(4));
        list.push(Any::int(5));
        assert_eq!(list.capacity(), 8);
        let mut big = List::from_vec(ints(&[1, 2, 3, 4, 5]));
        assert_eq!(big.capacity(), 5);
        big.push(Any::int(6));
        assert_eq!(big.capacity(), 10);
        assert_eq!(List::new().capacity(), 0);
    }

    #[test]
    fn errors_match_apache() {
        let mut list = List::from_vec(ints(&[1, 2, 3]));
        let e = list.at(3).unwrap_err();
        assert_eq!(e.to_string(), "IndexError: Index 3 out of bounds 3");
        let e = list.insert(5, Any::none()).unwrap_err();
        assert_eq!(e.to_string(), "IndexError: Index 5 out of bounds [0, 3]");
        let e = list.erase_range(2, 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "IndexError: Erase range [2, 1) out of bounds 3"
        );
        list.erase_range(7, 7).unwrap();
    }
}
