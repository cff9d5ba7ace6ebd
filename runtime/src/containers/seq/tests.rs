//! Layouts, copy-on-write, growth and errors of both handles.

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
