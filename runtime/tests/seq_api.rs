//! The Rust API of Array, List and Shape, on our own objects and on "foreign" ones built by hand
//! the way C++ header code builds them (own object deleter, own buffer and `data_deleter`).

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use tvm_ffi::abi::{TVMFFIAny, TVMFFIObject, TVMFFISeqCell};
use tvm_ffi::containers::seq::{list_buffer_deleter, seq_elements, Array, List};
use tvm_ffi::containers::shape::Shape;
use tvm_ffi::tindex;
use tvm_ffi::value::any::Any;
use tvm_ffi::value::object::{strong_count, ObjectRef, FRESH_COUNT};

fn ints(values: &[i64]) -> Vec<Any> {
    values.iter().map(|&v| Any::int(v)).collect()
}

fn int_of(value: &Any) -> i64 {
    assert_eq!(value.type_index(), tindex::INT);
    // SAFETY: checked to be an integer.
    unsafe { value.as_raw().value.v_int64 }
}

fn as_ints(values: impl IntoIterator<Item = Any>) -> Vec<i64> {
    values.into_iter().map(|v| int_of(&v)).collect()
}

fn call(name: &str, args: &[&Any]) -> Result<Any, tvm_ffi::value::error::Error> {
    let entry = tvm_ffi::registry::globals::get(name.as_bytes()).expect("registered");
    let raw: Vec<TVMFFIAny> = args.iter().map(|a| *a.as_raw()).collect();
    // SAFETY: a live Function and valid argument views.
    unsafe { tvm_ffi::value::function::call(entry.function.as_ptr(), &raw) }
}

// ---------------------------------------------------------------------------------------------
// Foreign objects
// ---------------------------------------------------------------------------------------------

extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
}

/// A C++-style ArrayObj with 4 inline slots, freed by its own deleter.
#[repr(C)]
struct ForeignArray {
    header: TVMFFIObject,
    cell: TVMFFISeqCell,
    items: [TVMFFIAny; 4],
}

static FOREIGN_ARRAYS_FREED: AtomicUsize = AtomicUsize::new(0);
static FOREIGN_ELEMENTS_AT_DELETE: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn delete_foreign_array(obj: *mut c_void, flags: i32) {
    let array = obj.cast::<ForeignArray>();
    if flags & 1 != 0 {
        let size = (*array).cell.size as usize;
        FOREIGN_ELEMENTS_AT_DELETE.fetch_add(size, Ordering::SeqCst);
        for i in 0..size {
            drop(Any::from_raw((*array).items[i]));
        }
    }
    if flags & 2 != 0 {
        drop(Box::from_raw(array));
        FOREIGN_ARRAYS_FREED.fetch_add(1, Ordering::SeqCst);
    }
}

fn foreign_array(values: Vec<Any>) -> ObjectRef {
    assert!(values.len() <= 4);
    let mut array = Box::new(ForeignArray {
        header: TVMFFIObject {
            combined_ref_count: FRESH_COUNT.into(),
            type_index: tindex::ARRAY,
            __padding: 0,
            deleter: Some(delete_foreign_array),
        },
        cell: TVMFFISeqCell {
            data: std::ptr::null_mut(),
            size: values.len() as i64,
            capacity: 4,
            data_deleter: None,
        },
        items: [*Any::none().as_raw(); 4],
    });
    for (slot, value) in array.items.iter_mut().zip(values) {
        *slot = value.into_raw();
    }
    array.cell.data = array.items.as_mut_ptr().cast();
    let raw = Box::into_raw(array);
    // SAFETY: a fresh object with one strong reference, handed to the ObjectRef.
    unsafe { ObjectRef::from_raw(raw.cast()) }
}

/// A C++-style ListObj whose buffer comes from malloc with a counting `data_deleter`.
#[repr(C)]
struct ForeignList {
    header: TVMFFIObject,
    cell: TVMFFISeqCell,
}

static FOREIGN_BUFFERS_FREED: AtomicUsize = AtomicUsize::new(0);
static FOREIGN_LISTS_FREED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn free_foreign_buffer(data: *mut c_void) {
    FOREIGN_BUFFERS_FREED.fetch_add(1, Ordering::SeqCst);
    free(data);
}

unsafe extern "C" fn delete_foreign_list(obj: *mut c_void, flags: i32) {
    let list = obj.cast::<ForeignList>();
    if flags & 1 != 0 {
        // ~SeqBaseObj: elements, then whatever data_deleter is installed now.
        let data = (*list).cell.data.cast::<TVMFFIAny>();
        for i in 0..(*list).cell.size as usize {
            drop(Any::from_raw(*data.add(i)));
        }
        if let Some(deleter) = (*list).cell.data_deleter {
            deleter((*list).cell.data);
        }
    }
    if flags & 2 != 0 {
        drop(Box::from_raw(list));
        FOREIGN_LISTS_FREED.fetch_add(1, Ordering::SeqCst);
    }
}

fn foreign_list(values: Vec<Any>, capacity: usize) -> ObjectRef {
    // SAFETY: a buffer for `capacity` values, filled below.
    let data = unsafe { malloc(capacity.max(1) * 16) }.cast::<TVMFFIAny>();
    let size = values.len();
    for (i, value) in values.into_iter().enumerate() {
        // SAFETY: `i < size <= capacity`.
        unsafe { data.add(i).write(value.into_raw()) };
    }
    let list = Box::new(ForeignList {
        header: TVMFFIObject {
            combined_ref_count: FRESH_COUNT.into(),
            type_index: tindex::LIST,
            __padding: 0,
            deleter: Some(delete_foreign_list),
        },
        cell: TVMFFISeqCell {
            data: data.cast(),
            size: size as i64,
            capacity: capacity as i64,
            data_deleter: Some(free_foreign_buffer),
        },
    });
    // SAFETY: a fresh object with one strong reference.
    unsafe { ObjectRef::from_raw(Box::into_raw(list).cast()) }
}

fn seq_cell(obj: &ObjectRef) -> TVMFFISeqCell {
    // SAFETY: Array and List objects have the cell after the header.
    unsafe { *obj.cell::<TVMFFISeqCell>() }
}

#[test]
fn foreign_array_is_read_mutated_in_place_and_moved_out() {
    let element = Any::string("an element longer than seven bytes");
    let obj = foreign_array(vec![Any::int(1), element.clone(), Any::int(3)]);
    let address = obj.as_ptr();
    let mut array = Array::from_object(obj).expect("an Array");
    assert_eq!(array.len(), 3);
    assert_eq!(array.capacity(), 4);
    assert_eq!(int_of(&array.get(2).unwrap()), 3);
    // unique and roomy: in place, in the foreign object
    array.push(Any::int(4));
    array.set(0, Any::int(10)).unwrap();
    assert_eq!(array.as_object().as_ptr(), address, "mutated in place");
    let freed_before = FOREIGN_ARRAYS_FREED.load(Ordering::SeqCst);
    let elements_before = FOREIGN_ELEMENTS_AT_DELETE.load(Ordering::SeqCst);
    // full: the elements move to an object of ours, the foreign one dies empty
    array.push(Any::int(5));
    assert_ne!(array.as_object().as_ptr(), address);
    assert_eq!(array.capacity(), 8);
    assert_eq!(
        FOREIGN_ARRAYS_FREED.load(Ordering::SeqCst),
        freed_before + 1
    );
    assert_eq!(
        FOREIGN_ELEMENTS_AT_DELETE.load(Ordering::SeqCst),
        elements_before,
        "moved elements are not released by the old object"
    );
    let cell = seq_cell(array.as_object());
    assert_eq!(cell.data as usize, array.as_object().as_ptr() as usize + 56);
    // the string element kept exactly its references: ours + the array's
    let string_obj = element.as_object().unwrap().as_ptr();
    // SAFETY: `element` keeps the string object alive.
    assert_eq!(unsafe { strong_count(string_obj) }, 2);
    drop(array);
    // SAFETY: as above.
    assert_eq!(unsafe { strong_count(string_obj) }, 1);
}

#[test]
fn shared_foreign_array_is_copied_before_mutation() {
    let obj = foreign_array(ints(&[1, 2]));
    let original = Array::from_object(obj).unwrap();
    let mut copy = original.clone();
    copy.set(1, Any::int(20)).unwrap();
    copy.reverse();
    assert_eq!(as_ints(original.iter()), [1, 2]);
    assert_eq!(as_ints(copy.iter()), [20, 1]);
    assert_eq!(copy.capacity(), 4, "a copy keeps the capacity");
    let mut cleared = original.clone();
    cleared.clear();
    assert!(cleared.is_empty());
    assert_eq!(original.len(), 2);
}

#[test]
fn foreign_list_growth_hands_the_old_buffer_to_its_deleter() {
    let obj = foreign_list(ints(&[1, 2, 3]), 3);
    let mut list = List::from_object(obj).expect("a List");
    let other_handle = list.clone();
    let freed_before = FOREIGN_BUFFERS_FREED.load(Ordering::SeqCst);
    list.push(Any::int(4));
    assert_eq!(list.capacity(), 6, "max(2 * 3, 4)");
    assert_eq!(
        FOREIGN_BUFFERS_FREED.load(Ordering::SeqCst),
        freed_before + 1
    );
    let cell = seq_cell(list.as_object());
    assert_eq!(
        cell.data_deleter.map(|d| d as *const c_void),
        Some(list_buffer_deleter()),
        "the new buffer is ours and carries our deleter"
    );
    assert_eq!(
        as_ints(other_handle.iter()),
        [1, 2, 3, 4],
        "shared mutation"
    );
    let lists_freed = FOREIGN_LISTS_FREED.load(Ordering::SeqCst);
    drop(list);
    drop(other_handle);
    assert_eq!(FOREIGN_LISTS_FREED.load(Ordering::SeqCst), lists_freed + 1);
    assert_eq!(
        FOREIGN_BUFFERS_FREED.load(Ordering::SeqCst),
        freed_before + 1,
        "our buffer went to our deleter"
    );
}

#[test]
fn foreign_list_without_buffer_grows() {
    let obj = foreign_list(vec![], 0);
    let mut list = List::from_object(obj).unwrap();
    list.insert(0, Any::int(7)).unwrap();
    list.extend(ints(&[8, 9]));
    assert_eq!(as_ints(list.iter()), [7, 8, 9]);
}

#[test]
fn list_api() {
    let mut list: List = ints(&[1, 2, 3]).into_iter().collect();
    assert_eq!(list.capacity(), 4);
    list.insert(1, Any::int(10)).unwrap();
    list.insert_many(4, ints(&[20, 21])).unwrap();
    assert_eq!(as_ints(list.iter()), [1, 10, 2, 3, 20, 21]);
    assert_eq!(int_of(&list.pop_at(0).unwrap()), 1);
    assert_eq!(int_of(&list.pop().unwrap()), 21);
    list.erase(0).unwrap();
    list.erase_range(1, 2).unwrap();
    assert_eq!(as_ints(list.iter()), [2, 20]);
    list.replace_slice(0, 1, ints(&[5, 6, 7])).unwrap();
    list.reverse();
    assert_eq!(as_ints(list.to_vec()), [20, 7, 6, 5]);
    assert!(list.contains(&Any::int(6)).unwrap());
    assert!(!list.contains(&Any::bool(true)).unwrap());
    list.reserve(100);
    assert_eq!(list.capacity(), 100);
    list.clear();
    assert!(list.is_empty());
    assert_eq!(list.capacity(), 100);
    assert!(list.pop().is_none());
    assert_eq!(
        list.pop_at(0).unwrap_err().to_string(),
        "IndexError: Index 0 out of bounds 0"
    );
}

#[test]
fn list_iteration_tolerates_mutation_through_another_handle() {
    let list = List::from_vec(ints(&[1, 2, 3, 4]));
    let mut other = list.clone();
    let mut seen = Vec::new();
    for value in &list {
        seen.push(int_of(&value));
        if seen.len() == 1 {
            other.clear();
            other.push(Any::int(9));
            other.push(Any::int(8));
        }
    }
    assert_eq!(seen, [1, 8]);
}

#[test]
fn array_api() {
    let mut array = Array::new();
    assert_eq!(array.capacity(), 0);
    array.push(Any::int(1));
    assert_eq!(array.capacity(), 1);
    array.extend(ints(&[2, 3]));
    array.insert(0, Any::int(0)).unwrap();
    assert_eq!(as_ints(array.to_vec()), [0, 1, 2, 3]);
    array.erase_range(1, 3).unwrap();
    assert_eq!(as_ints(array.iter()), [0, 3]);
    array.replace_slice(0, 1, ints(&[7, 8])).unwrap();
    assert_eq!(as_ints(array.iter()), [7, 8, 3]);
    assert_eq!(int_of(&array.at(2).unwrap()), 3);
    assert_eq!(
        array.at(3).unwrap_err().to_string(),
        "IndexError: Index 3 out of bounds 3"
    );
    assert_eq!(
        array.insert(9, Any::none()).unwrap_err().to_string(),
        "IndexError: Index 9 out of bounds [0, 3]"
    );
    assert!(array.contains(&Any::string("x")).is_ok_and(|found| !found));
    array.push(Any::string("a long string, on the heap"));
    assert!(array
        .contains(&Any::string("a long string, on the heap"))
        .unwrap());
    assert_eq!(int_of(&array.pop_at(0).unwrap()), 7);
    // The elements as a slice of raw values, and any seq object through seq_elements.
    assert_eq!(array.as_slice().len(), 3);
    // SAFETY: the array is alive and not mutated while the slice is used.
    let raw = unsafe { seq_elements(array.as_object().as_ptr()) };
    assert_eq!(raw.len(), 3);
}

#[test]
fn elements_are_owned_references() {
    let element = Any::string("a string long enough for the heap");
    let obj = element.as_object().unwrap().as_ptr();
    // SAFETY: `element` keeps the string object alive throughout.
    let count = || unsafe { strong_count(obj) };
    let mut list = List::from_vec(vec![element.clone(), element.clone()]);
    assert_eq!(count(), 3);
    let got = list.get(0).unwrap();
    assert_eq!(count(), 4);
    drop(got);
    list.set(0, Any::none()).unwrap();
    assert_eq!(count(), 2);
    let array = Array::from_vec(list.to_vec());
    assert_eq!(count(), 3);
    list.clear();
    assert_eq!(count(), 2);
    drop(array);
    assert_eq!(count(), 1);
}

#[test]
fn shape_api() {
    let shape = Shape::new(&[2, -1, 5]);
    assert_eq!(shape.as_slice(), &[2, -1, 5]);
    assert_eq!(shape.len(), 3);
    assert_eq!(shape.get(1), Some(-1));
    assert_eq!(shape.product().unwrap(), -10);
    let any = shape.clone().into_any();
    assert_eq!(any.type_index(), tindex::SHAPE);
    // SAFETY: an owned value is a valid view.
    let back = unsafe { Shape::from_view(any.as_raw()) }.unwrap();
    assert_eq!(back.as_slice(), shape.as_slice());
    assert!(Shape::from_object(Array::new().into_object()).is_err());
}

#[test]
fn find_first_non_cpu_device_survives_a_self_containing_list() {
    let mut list = List::from_vec(ints(&[1]));
    list.push(list.clone().into_any());
    let arg = list.clone().into_any();
    let device = call("ffi.ContainerFindFirstNonCPUDevice", &[&arg]).unwrap();
    assert_eq!(device.type_index(), tindex::DEVICE);
    // SAFETY: a Device value.
    let device = unsafe { device.as_raw().value.v_device };
    assert_eq!((device.device_type, device.device_id), (1, 0));
    list.clear(); // break the cycle
}

#[test]
fn list_globals_mutate_shared_lists_and_copy_arrays() {
    let list = List::from_vec(ints(&[1, 2]));
    let arg = list.clone().into_any();
    call("ffi.ListAppend", &[&arg, &Any::int(3)]).unwrap();
    assert_eq!(as_ints(list.iter()), [1, 2, 3]);
    call(
        "ffi.ListReplaceSlice",
        &[&arg, &Any::int(0), &Any::int(1), &arg],
    )
    .unwrap();
    assert_eq!(as_ints(list.iter()), [1, 2, 3, 2, 3]);
    let array = Array::from_vec(ints(&[1]));
    let array_arg = array.clone().into_any();
    call("ffi.ListAppend", &[&array_arg, &Any::int(2)]).unwrap();
    assert_eq!(
        array.len(),
        1,
        "List<Any> parameters take an Array as a copy"
    );
    let err = call("ffi.ListAppend", &[&Any::int(1), &Any::int(2)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "TypeError: Mismatched type on argument #0 when calling: \
         `ffi.ListAppend(0: List<Any>, 1: Any) -> void`. Expected `List<Any>` but got `int`"
    );
}
