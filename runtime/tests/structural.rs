//! Structural equality, hashing and traversal through the `ffi.*` globals: deep inputs fail
//! cleanly instead of overflowing the stack, hook callbacks cannot outlive their traversal,
//! mismatch paths print as Apache prints them, and nothing leaks. (Cross-runtime checks, hash
//! values included, are in tests/conformance/structural.rs.)
//!
//! The tests share the live-object counter, so they run one at a time.

use std::sync::Mutex;
use tvm_ffi::abi::TVMFFIAny;
use tvm_ffi::containers::seq::Array;
use tvm_ffi::tindex;
use tvm_ffi::value::any::Any;
use tvm_ffi::value::error::Error;
use tvm_ffi::value::object::live_object_count;

static SERIAL: Mutex<()> = Mutex::new(());

fn call(name: &str, args: &[&Any]) -> Result<Any, Error> {
    let entry = tvm_ffi::registry::globals::get(name.as_bytes()).expect("registered");
    let raw: Vec<TVMFFIAny> = args.iter().map(|a| *a.as_raw()).collect();
    // SAFETY: a live Function and valid argument views.
    unsafe { tvm_ffi::value::function::call(entry.function.as_ptr(), &raw) }
}

fn int_of(value: &Any) -> i64 {
    assert!(matches!(value.type_index(), tindex::INT | tindex::BOOL));
    // SAFETY: checked to be an integer.
    unsafe { value.as_raw().value.v_int64 }
}

fn text_of(value: &Any) -> String {
    // SAFETY: an owned value.
    let bytes = unsafe { tvm_ffi::value::string::str_bytes(value.as_raw()) }.expect("a str");
    String::from_utf8_lossy(bytes).into_owned()
}

fn repr(value: &Any) -> String {
    text_of(&call("ffi.ReprPrint", &[value]).unwrap())
}

/// `depth` arrays, each holding the next; the innermost holds `leaf`.
fn nested(depth: usize, leaf: Any) -> Any {
    (0..depth).fold(leaf, |inner, _| Array::from_vec(vec![inner]).into_any())
}

/// A deeply nested array, taken apart level by level when dropped (even while a failed assertion
/// unwinds), so that releasing it does not recurse.
struct Deep(Any);

impl Drop for Deep {
    fn drop(&mut self) {
        let mut value = std::mem::take(&mut self.0);
        while value.type_index() == tindex::ARRAY {
            let obj = value.as_object().cloned().unwrap();
            drop(value);
            let mut array = Array::from_object(obj).unwrap();
            value = array.pop().unwrap_or_default();
        }
    }
}

fn assert_deep_input_error(result: Result<Any, Error>, what: &str) {
    let error = result.expect_err(what);
    assert_eq!(error.kind(), b"ValueError", "{what}");
    let message = String::from_utf8_lossy(error.message()).into_owned();
    assert!(message.contains("nested too deeply"), "{what}: {message}");
}

/// The `extra_context` of an error (a VisitErrorContext after a failed traversal).
fn error_context(error: &Error) -> Any {
    let obj = error.clone().into_object();
    // SAFETY: an Error object has its cell right after the header.
    let cell = unsafe { obj.cell::<tvm_ffi::abi::TVMFFIErrorCell>() };
    assert!(
        !cell.extra_context.is_null(),
        "the error has a visit context"
    );
    // SAFETY: the error owns a reference to its live context.
    Any::object(unsafe {
        tvm_ffi::value::object::ObjectRef::from_borrowed(cell.extra_context.cast())
    })
}

fn deep_inputs_fail_cleanly(check_moderate_depth: bool) {
    let (f, t) = (Any::bool(false), Any::bool(true));
    let (deep_a, deep_b) = (
        Deep(nested(100_000, Any::int(1))),
        Deep(nested(100_000, Any::int(2))),
    );
    let (a, b) = (&deep_a.0, &deep_b.0);
    assert_deep_input_error(call("ffi.StructuralHash", &[a, &f, &f]), "hash");
    assert_deep_input_error(call("ffi.StructuralEqual", &[a, b, &t, &f]), "equal");
    assert_deep_input_error(
        call("ffi.GetFirstStructuralMismatch", &[a, b, &f, &f]),
        "mismatch",
    );
    assert_deep_input_error(call("ffi.StructuralKey", &[a]), "key");
    let no_callbacks = Array::new().into_any();
    let walk = call(
        "ffi.StructuralWalk",
        &[a, &no_callbacks, &no_callbacks, &Any::int(0)],
    );
    // The walk's error lists the arrays it crossed; mapping them back to paths is deep too.
    let walk_error = walk.expect_err("walk");
    let context = error_context(&walk_error);
    // A reflected root (arrays have no type metadata, so the search would stop at an array root).
    let root = call("ffi.VisitInterrupt", &[a]).unwrap();
    let find = call(
        "ffi.VisitErrorContext.FindAccessPaths",
        &[&root, &context, &Any::bool(true)],
    );
    assert_deep_input_error(Err(walk_error), "walk");
    assert_deep_input_error(find, "find access paths");
    assert_deep_input_error(
        call(
            "ffi.StructuralMap",
            &[a, &no_callbacks, &no_callbacks, &Any::int(1)],
        ),
        "map",
    );
    assert_deep_input_error(call("ffi.StructuralMutate", &[a, &no_callbacks]), "mutate");
    assert_deep_input_error(call("ffi.StructuralVisit", &[a, &no_callbacks]), "visit");
    if !check_moderate_depth {
        return;
    }
    // Moderately deep values still work.
    let (c, d) = (
        Deep(nested(200, Any::int(1))),
        Deep(nested(200, Any::int(1))),
    );
    let equal = call("ffi.StructuralEqual", &[&c.0, &d.0, &f, &f]).unwrap();
    assert_eq!(int_of(&equal), 1);
}

#[test]
fn deep_nesting_is_a_value_error_not_a_crash() {
    let _serial = SERIAL.lock().unwrap();
    deep_inputs_fail_cleanly(true);
    // Threads with small stacks get the same clean error.
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(|| deep_inputs_fail_cleanly(false))
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn mismatch_paths_print_like_apache() {
    let _serial = SERIAL.lock().unwrap();
    let before = live_object_count();
    {
        let f = Any::bool(false);
        let lhs = Array::from_vec(vec![
            Any::int(1),
            Array::from_vec(vec![Any::string("a")]).into_any(),
        ])
        .into_any();
        let rhs = Array::from_vec(vec![Any::int(1)]).into_any();
        let other = Array::from_vec(vec![
            Any::int(1),
            Array::from_vec(vec![Any::string("b")]).into_any(),
        ])
        .into_any();
        let pair = call("ffi.GetFirstStructuralMismatch", &[&lhs, &rhs, &f, &f]).unwrap();
        assert_eq!(repr(&pair), "(<root>[1], <root>[<missing:1>])");
        let pair = call("ffi.GetFirstStructuralMismatch", &[&lhs, &other, &f, &f]).unwrap();
        assert_eq!(repr(&pair), "(<root>[1][0], <root>[1][0])");
        let none = call("ffi.GetFirstStructuralMismatch", &[&lhs, &lhs, &f, &f]).unwrap();
        assert_eq!(none.type_index(), tindex::NONE);
        // Equal values hash alike; the key caches the hash.
        let h1 = int_of(&call("ffi.StructuralHash", &[&lhs, &f, &f]).unwrap());
        let copy = Array::from_vec(vec![
            Any::int(1),
            Array::from_vec(vec![Any::string("a")]).into_any(),
        ])
        .into_any();
        let h2 = int_of(&call("ffi.StructuralHash", &[&copy, &f, &f]).unwrap());
        assert_eq!(h1, h2);
        let (k1, k2) = (
            call("ffi.StructuralKey", &[&lhs]).unwrap(),
            call("ffi.StructuralKey", &[&copy]).unwrap(),
        );
        assert_eq!(
            int_of(&call("ffi.StructuralKeyEqual", &[&k1, &k2]).unwrap()),
            1
        );
        let k3 = call("ffi.StructuralKey", &[&other]).unwrap();
        assert_eq!(
            int_of(&call("ffi.StructuralKeyEqual", &[&k1, &k3]).unwrap()),
            0
        );
        let error = call("ffi.StructuralKeyEqual", &[&lhs, &k1]).unwrap_err();
        assert_eq!(error.kind(), b"InternalError");
    }
    assert_eq!(live_object_count(), before, "objects leaked");
}

#[test]
fn walk_interrupts_skips_and_records_errors() {
    let _serial = SERIAL.lock().unwrap();
    let before = live_object_count();
    {
        let seen = std::sync::Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let callback = tvm_ffi::value::function::from_closure(move |args| {
            let value = unsafe { tvm_ffi::value::any::view_to_owned(&args[0])? };
            if value.type_index() == tindex::INT {
                let v = int_of(&value);
                log.lock().unwrap().push(v);
                if v == 3 {
                    return call("ffi.VisitInterrupt", &[&Any::int(v)]);
                }
                if v == 5 {
                    return Err(Error::new("ValueError", "five"));
                }
            }
            Ok(Any::int(0))
        });
        let entry = Array::from_vec(vec![Any::int(-1), Any::object(callback)]).into_any();
        let callbacks = Array::from_vec(vec![entry]).into_any();
        let none = Array::new().into_any();
        let tree = Array::from_vec(vec![
            Any::int(1),
            Array::from_vec(vec![Any::int(2), Any::int(3)]).into_any(),
            Any::int(4),
        ])
        .into_any();
        let out = call(
            "ffi.StructuralWalk",
            &[&tree, &callbacks, &none, &Any::int(0)],
        )
        .unwrap();
        assert_eq!(out.type_index(), tindex::VISIT_INTERRUPT);
        assert_eq!(*seen.lock().unwrap(), vec![1, 2, 3]);
        let failing = Array::from_vec(vec![Any::int(5)]).into_any();
        let error = call(
            "ffi.StructuralWalk",
            &[&failing, &callbacks, &none, &Any::int(1)],
        )
        .unwrap_err();
        assert_eq!(error.message(), b"five");
        let bad_order = call(
            "ffi.StructuralWalk",
            &[&tree, &callbacks, &none, &Any::int(7)],
        );
        assert_eq!(bad_order.unwrap_err().kind(), b"ValueError");
        let bad_callbacks = call(
            "ffi.StructuralWalk",
            &[&tree, &Any::int(1), &none, &Any::int(0)],
        );
        assert_eq!(bad_callbacks.unwrap_err().kind(), b"TypeError");
    }
    assert_eq!(live_object_count(), before, "objects leaked");
}

#[test]
fn visitor_and_mutator_methods_check_their_arguments() {
    let _serial = SERIAL.lock().unwrap();
    let before = live_object_count();
    {
        // Capture the mutator a StructuralMutate callback receives, then drive its methods.
        let probe = tvm_ffi::value::function::from_closure(|args| {
            let mutator = unsafe { tvm_ffi::value::any::view_to_owned(&args[1])? };
            let kind = |m: &Any| int_of(&call("ffi.StructuralMutatorDefRegionKind", &[m]).unwrap());
            assert_eq!(kind(&mutator), 0);
            // A pattern region stays in force inside: entering a simple one has no effect.
            let inner = tvm_ffi::value::function::from_closure({
                let mutator = mutator.clone();
                move |_| {
                    let nested = tvm_ffi::value::function::from_closure({
                        let mutator = mutator.clone();
                        move |_| call("ffi.StructuralMutatorDefRegionKind", &[&mutator])
                    });
                    call(
                        "ffi.StructuralMutatorWithDefRegionKind",
                        &[&mutator, &Any::int(2), &Any::object(nested)],
                    )
                }
            });
            let seen = call(
                "ffi.StructuralMutatorWithDefRegionKind",
                &[&mutator, &Any::int(1), &Any::object(inner)],
            )
            .unwrap();
            assert_eq!(int_of(&seen), 1, "pattern region propagates");
            assert_eq!(kind(&mutator), 0, "region restored");
            let bad_kind = call(
                "ffi.StructuralMutatorWithDefRegionKind",
                &[
                    &mutator,
                    &Any::int(9),
                    &Any::object(tvm_ffi::value::function::from_closure(|_| Ok(Any::none()))),
                ],
            );
            assert_eq!(bad_kind.unwrap_err().kind(), b"ValueError");
            let bad_key = call(
                "ffi.StructuralMutatorVarRemapGet",
                &[&mutator, &Any::int(1)],
            );
            assert_eq!(bad_key.unwrap_err().kind(), b"TypeError");
            let key = Array::new().into_any();
            call(
                "ffi.StructuralMutatorVarRemapSet",
                &[&mutator, &key, &Any::int(7)],
            )
            .unwrap();
            let got = call("ffi.StructuralMutatorVarRemapGet", &[&mutator, &key]).unwrap();
            assert_eq!(int_of(&got), 7);
            // A string is an immutable leaf: mutating it gives it back.
            let text = Any::string("a string on the heap");
            let same = call("ffi.StructuralMutatorMutate", &[&mutator, &text]).unwrap();
            assert_eq!(text_of(&same), "a string on the heap");
            Ok(Any::int(100))
        });
        let entry = Array::from_vec(vec![
            Any::int(tindex::INT as i64),
            Any::object(probe),
            Any::bool(false),
        ])
        .into_any();
        let callbacks = Array::from_vec(vec![entry]).into_any();
        let root = Array::from_vec(vec![Any::int(1)]).into_any();
        let out = call("ffi.StructuralMutate", &[&root, &callbacks]).unwrap();
        assert_eq!(repr(&out), "(100,)");
        assert_eq!(repr(&root), "(1,)", "the input is not changed");
    }
    assert_eq!(live_object_count(), before, "objects leaked");
}

#[test]
fn copied_visitors_and_mutators_fail_cleanly() {
    let _serial = SERIAL.lock().unwrap();
    // `__ffi_shallow_copy__` of a visitor or mutator (as Python's copy.copy would call it) gives
    // an object without a traversal engine: using it is a TypeError, not a crash.
    for (key, method) in [
        ("ffi.StructuralVisitor", "ffi.StructuralVisitorVisit"),
        ("ffi.StructuralMutator", "ffi.StructuralMutatorMutate"),
    ] {
        let index = tvm_ffi::registry::types::key_to_index(key.as_bytes()).unwrap();
        let captured = std::sync::Arc::new(Mutex::new(None));
        let sink = captured.clone();
        let callback = tvm_ffi::value::function::from_closure(move |args| {
            *sink.lock().unwrap() = Some(unsafe { tvm_ffi::value::any::view_to_owned(&args[1])? });
            Ok(Any::none())
        });
        let entry =
            Array::from_vec(vec![Any::int(tindex::INT as i64), Any::object(callback)]).into_any();
        let callbacks = Array::from_vec(vec![entry]).into_any();
        let root = Any::int(1);
        if key == "ffi.StructuralVisitor" {
            call("ffi.StructuralVisit", &[&root, &callbacks]).unwrap();
        } else {
            call("ffi.StructuralMutate", &[&root, &callbacks]).unwrap();
        }
        let original = captured.lock().unwrap().take().expect("the callback ran");
        assert_eq!(original.type_index(), index);
        let copy_fn = tvm_ffi::registry::types::attr_value(b"__ffi_shallow_copy__", index).unwrap();
        let copy = unsafe {
            tvm_ffi::value::function::call(copy_fn.as_raw().value.v_obj, &[*original.as_raw()])
        }
        .unwrap();
        let error = call(method, &[&copy, &Any::int(2)]).unwrap_err();
        assert_eq!(error.kind(), b"TypeError", "{key}");
    }
}
