//! The live-object counter (alone in this process, so nothing else allocates meanwhile).

use std::sync::atomic::Ordering;
use tvm_ffi::object::{alloc_object, dec_ref, live_object_count, DELETE_WEAK, WEAK_ONE};

#[test]
fn live_object_count_follows_allocation_weak_references_and_frees() {
    let start = live_object_count();
    let a = alloc_object(tvm_ffi::tindex::OBJECT, [1u64; 4], 0);
    let b = tvm_ffi::any::Any::string("a string longer than seven bytes");
    assert_eq!(live_object_count(), start + 2);
    drop(b);
    assert_eq!(live_object_count(), start + 1);
    let raw = a.into_raw();
    unsafe {
        (*raw)
            .combined_ref_count
            .fetch_add(WEAK_ONE, Ordering::Relaxed);
        dec_ref(raw);
        assert_eq!(
            live_object_count(),
            start + 1,
            "a weak reference keeps the memory"
        );
        if (*raw)
            .combined_ref_count
            .fetch_sub(WEAK_ONE, Ordering::Release)
            == WEAK_ONE
        {
            (*raw).deleter.unwrap()(raw.cast(), DELETE_WEAK);
        }
    }
    assert_eq!(live_object_count(), start);
}
