//! The live-object counter (alone in this process, so nothing else allocates meanwhile).

use std::sync::atomic::Ordering;
use tvm_ffi::value::object::{alloc_object, dec_ref, live_object_count, DELETE_WEAK, WEAK_ONE};

#[test]
fn live_object_count_follows_allocation_weak_references_and_frees() {
    let start = live_object_count();
    let a = alloc_object(tvm_ffi::tindex::OBJECT, [1u64; 4], 0);
    let b = tvm_ffi::value::any::Any::string("a string longer than seven bytes");
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

    // Counters are per thread: objects made on one thread and freed on another, and threads
    // that exited, still add up exactly.
    let made_elsewhere: Vec<tvm_ffi::value::any::Any> = std::thread::spawn(|| {
        (0..10)
            .map(|i| tvm_ffi::value::any::Any::string(format!("string number {i} on a worker")))
            .collect()
    })
    .join()
    .unwrap();
    assert_eq!(live_object_count(), start + 10, "the worker has exited");
    let half: Vec<_> = made_elsewhere.into_iter().take(5).collect();
    assert_eq!(live_object_count(), start + 5, "freed here");
    std::thread::spawn(move || drop(half)).join().unwrap();
    assert_eq!(live_object_count(), start, "freed on another thread");
    let workers: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                let keep = tvm_ffi::value::any::Any::string("kept alive by the main thread");
                for _ in 0..1000 {
                    drop(tvm_ffi::value::any::Any::string(
                        "made and freed on the worker",
                    ));
                }
                keep
            })
        })
        .collect();
    let kept: Vec<_> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    assert_eq!(live_object_count(), start + 4);
    drop(kept);
    assert_eq!(live_object_count(), start);
}
