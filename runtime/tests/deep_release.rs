//! Releasing values nested a million deep takes a bounded stack (alone in this process, so the
//! live-object count is exact).

use tvm_ffi::containers::map::{Dict, Map};
use tvm_ffi::containers::seq::{Array, List};
use tvm_ffi::value::any::Any;
use tvm_ffi::value::object::live_object_count;

const DEPTH: usize = 1_000_000;

/// Wraps `inner` in one more container of the kind chosen by `level`.
fn wrap(kinds: &[fn(Any) -> Any], level: usize, inner: Any) -> Any {
    kinds[level % kinds.len()](inner)
}

fn array(inner: Any) -> Any {
    Array::from_vec(vec![Any::int(1), inner]).into_any()
}

fn list(inner: Any) -> Any {
    List::from(vec![inner, Any::string("a string on the heap, not inline")]).into_any()
}

fn map(inner: Any) -> Any {
    Map::from_pairs([(Any::string("next"), inner)])
        .expect("string keys hash")
        .into_any()
}

fn dict(inner: Any) -> Any {
    Dict::from_pairs([(Any::int(7), inner)])
        .expect("int keys hash")
        .into_any()
}

/// Builds a `DEPTH`-deep chain of the given kinds and releases it on a thread with a small
/// stack, where a recursive release would overflow after a few thousand levels.
fn build_and_release_deep(kinds: &'static [fn(Any) -> Any]) {
    let start = live_object_count();
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let mut value = Any::int(0);
            for level in 0..DEPTH {
                value = wrap(kinds, level, value);
            }
            drop(value);
        })
        .expect("thread starts")
        .join()
        .expect("releasing a deep value does not overflow the stack");
    assert_eq!(live_object_count(), start, "every object is freed");
}

#[test]
fn releasing_million_deep_containers_takes_bounded_stack_and_frees_everything() {
    build_and_release_deep(&[array]);
    build_and_release_deep(&[list]);
    build_and_release_deep(&[map]);
    build_and_release_deep(&[dict]);
    build_and_release_deep(&[array, list, map, dict]);
}
