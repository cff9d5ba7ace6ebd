//! A minimal, layout-exact `ffi.Array` builder and reader for the module code.
//!
//! The runtime's Array container (`crate::containers::seq`) is written separately; until the
//! module code switches to it, this file builds the arrays that module globals return
//! (`ffi.ModuleGetWriteFormats`) and reads the `imports_` array of modules created by foreign
//! C++ code. The layout is Apache's `ArrayObj`: the header, a `TVMFFISeqCell` at +24, and the
//! elements (`TVMFFIAny`, owned) inline right after the 56-byte object, with `data_deleter`
//! NULL. Only the cell is ever read, so arrays from any runtime work.

use crate::abi::{TVMFFIAny, TVMFFIObject, TVMFFISeqCell};
use crate::any::Any;
use crate::object::{alloc_object, tail, ObjectRef};
use crate::tindex;

#[repr(C)]
struct ArrayPayload {
    cell: TVMFFISeqCell,
}

impl Drop for ArrayPayload {
    fn drop(&mut self) {
        let data = self.cell.data.cast::<TVMFFIAny>();
        for i in 0..self.cell.size.max(0) as usize {
            // SAFETY: the first `size` elements are owned values (C++ code that moves elements
            // out of the array shrinks `size` accordingly).
            unsafe { drop(Any::from_raw(data.add(i).read())) };
        }
    }
}

/// A new Array holding `items`.
pub(crate) fn array_of(items: Vec<Any>) -> ObjectRef {
    let n = items.len();
    let obj = alloc_object(
        tindex::ARRAY,
        ArrayPayload {
            cell: TVMFFISeqCell {
                data: std::ptr::null_mut(),
                size: 0,
                capacity: 0,
                data_deleter: None,
            },
        },
        n * std::mem::size_of::<TVMFFIAny>(),
    );
    // SAFETY: the object was allocated with room for `n` values right after the payload, and
    // nobody else sees it yet; `malloc` alignment (16) suits `TVMFFIAny`.
    unsafe {
        let data = tail::<ArrayPayload>(obj.as_ptr()).cast::<TVMFFIAny>();
        for (i, item) in items.into_iter().enumerate() {
            data.add(i).write(item.into_raw());
        }
        let payload = obj
            .as_ptr()
            .cast::<crate::object::RustObject<ArrayPayload>>();
        (*payload).payload.cell = TVMFFISeqCell {
            data: data.cast(),
            size: n as i64,
            capacity: n as i64,
            data_deleter: None,
        };
    }
    obj
}

/// New references to the elements of an Array object (any runtime's).
///
/// # Safety
/// `array` is NULL or a live Array (or List) object.
pub(crate) unsafe fn array_items(array: *mut TVMFFIObject) -> Vec<Any> {
    if array.is_null() {
        return Vec::new();
    }
    let ty = (*array).type_index;
    if ty != tindex::ARRAY && ty != tindex::LIST {
        return Vec::new();
    }
    let cell = &*array.cast::<u8>().add(24).cast::<TVMFFISeqCell>();
    let data = cell.data.cast::<TVMFFIAny>();
    if data.is_null() {
        return Vec::new();
    }
    (0..cell.size.max(0) as usize)
        .filter_map(|i| crate::any::view_to_owned(&*data.add(i)).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_have_apache_layout_and_own_their_items() {
        let s = Any::string("a string longer than seven bytes");
        let obj = s.as_object().unwrap().clone();
        let before = unsafe { crate::object::strong_count(obj.as_ptr()) };
        let array = array_of(vec![Any::int(1), s.clone()]);
        drop(s);
        unsafe {
            let cell = array.cell::<TVMFFISeqCell>();
            assert_eq!(cell.size, 2);
            assert_eq!(cell.data as usize, array.as_ptr() as usize + 56);
            assert!(cell.data_deleter.is_none());
            let items = array_items(array.as_ptr());
            assert_eq!(items.len(), 2);
            assert_eq!(items[0].as_raw().value.v_int64, 1);
            drop(items);
        }
        assert_eq!(unsafe { crate::object::strong_count(obj.as_ptr()) }, before);
        drop(array);
        assert_eq!(
            unsafe { crate::object::strong_count(obj.as_ptr()) },
            before - 1
        );
        let empty = array_of(Vec::new());
        assert_eq!(unsafe { empty.cell::<TVMFFISeqCell>() }.size, 0);
    }
}
