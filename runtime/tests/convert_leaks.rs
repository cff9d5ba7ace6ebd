//! The `__ffi_convert__` type attributes neither leak nor over-release (alone in this process,
//! so the live-object counter sees only these conversions).

use tvm_ffi::containers::map::{Dict, Map};
use tvm_ffi::containers::seq::{Array, List};
use tvm_ffi::tindex;
use tvm_ffi::value::any::Any;
use tvm_ffi::value::object::live_object_count;

fn convert_to(index: i32, value: &Any) -> Result<Any, tvm_ffi::value::error::Error> {
    let converter =
        tvm_ffi::registry::types::attr_value(b"__ffi_convert__", index).expect("a converter");
    let function = converter.as_object().expect("a Function").as_ptr();
    // SAFETY: the converter is a live Function; the argument is a valid view.
    unsafe { tvm_ffi::value::function::call(function, std::slice::from_ref(value.as_raw())) }
}

#[test]
fn conversions_release_everything_they_make() {
    let long = "a string too long to be small";
    let values = [
        Any::none(),
        Any::int(7),
        Any::string(long),
        Any::object(List::from_vec(vec![Any::int(1), Any::string(long)]).into_object()),
        Any::object(Array::from_vec(vec![Any::int(2), Any::bool(true)]).into_object()),
        Any::object(
            Map::from_pairs([(Any::string(long), Any::int(1))])
                .unwrap()
                .into_object(),
        ),
        Any::object(
            Dict::from_pairs([(Any::int(1), Any::string(long))])
                .unwrap()
                .into_object(),
        ),
    ];
    let targets = [
        tindex::OBJECT,
        tindex::STR,
        tindex::BYTES,
        tindex::FUNCTION,
        tindex::SHAPE,
        tindex::ARRAY,
        tindex::LIST,
        tindex::MAP,
        tindex::DICT,
    ];
    // The first round creates what the runtime keeps (interned type keys in messages, etc.).
    let run = || {
        let mut converted = 0;
        for target in targets {
            for value in &values {
                converted += convert_to(target, value).is_ok() as usize;
            }
        }
        converted
    };
    let first = run();
    let baseline = live_object_count();
    for _ in 0..20 {
        assert_eq!(run(), first);
    }
    assert_eq!(
        live_object_count(),
        baseline,
        "objects leaked or freed twice"
    );
    assert!(first >= 15, "only {first} conversions succeeded");
}
