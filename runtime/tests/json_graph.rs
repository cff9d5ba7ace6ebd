//! `ffi.json.*`, the JSON object graph, `ffi.DeepCopy` and `ffi.Recursive*` through the registered
//! globals: values, sharing and cycles, hooks, errors, and nothing leaked.

use tvm_ffi::abi::TVMFFIAny;
use tvm_ffi::containers::map::{Dict, Map};
use tvm_ffi::containers::seq::{Array, List};
use tvm_ffi::tindex;
use tvm_ffi::value::any::Any;
use tvm_ffi::value::error::Error;
use tvm_ffi::value::object::live_object_count;

/// Serializes the tests of this file: the live-object count is process-wide.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The live-object count once the runtime's own long-lived objects exist.
fn baseline() -> i64 {
    tvm_ffi::registry::globals::get(b"ffi.DeepCopy").expect("registered");
    live_object_count()
}

fn call(name: &str, args: &[&Any]) -> Result<Any, Error> {
    let entry = tvm_ffi::registry::globals::get(name.as_bytes()).expect("registered");
    let raw: Vec<TVMFFIAny> = args.iter().map(|a| *a.as_raw()).collect();
    // SAFETY: a live Function and valid argument views.
    unsafe { tvm_ffi::value::function::call(entry.function.as_ptr(), &raw) }
}

fn text_of(value: &Any) -> String {
    // SAFETY: an owned value is valid.
    let bytes = unsafe { tvm_ffi::value::string::str_bytes(value.as_raw()) }.expect("a string");
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

fn int_of(value: &Any) -> i64 {
    assert_eq!(value.type_index(), tindex::INT, "{value:?}");
    // SAFETY: checked to be an integer.
    unsafe { value.as_raw().value.v_int64 }
}

fn bool_of(value: &Any) -> bool {
    assert_eq!(value.type_index(), tindex::BOOL, "{value:?}");
    // SAFETY: checked to be a bool.
    unsafe { value.as_raw().value.v_int64 != 0 }
}

fn ptr(value: &Any) -> usize {
    value.as_object().expect("an object").as_ptr() as usize
}

fn s(text: &str) -> Any {
    Any::string(text)
}

fn parse(doc: &str) -> Result<Any, Error> {
    call("ffi.json.Parse", &[&s(doc)])
}

fn stringify(value: &Any, indent: Option<i64>) -> String {
    let indent = indent.map_or(Any::none(), Any::int);
    text_of(&call("ffi.json.Stringify", &[value, &indent]).expect("stringify"))
}

fn error_text(error: Error) -> String {
    format!(
        "{}: {}",
        String::from_utf8_lossy(error.kind()),
        String::from_utf8_lossy(error.message())
    )
}

#[test]
fn json_round_trips_keep_types() {
    let _serial = serial();
    for (doc, expected) in [
        (
            "[1, 2.0, -0.0, 1e-7, true, null, \"x\"]",
            "[1,2.0,-0.0,9.9999999999999995e-08,true,null,\"x\"]",
        ),
        ("9223372036854775807", "9223372036854775807"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("[NaN, Infinity, -Infinity]", "[NaN,Infinity,-Infinity]"),
        (
            "{\"b\": {\"a\": []}, \"a\": 1}",
            "{\"b\":{\"a\":[]},\"a\":1}",
        ),
        ("\"\\u00e9\\ud83d\\ude00 \\/\"", "\"\u{e9}\u{1f600} \\/\""),
    ] {
        let value = parse(doc).expect(doc);
        assert_eq!(stringify(&value, None), expected, "{doc}");
        let again = parse(expected).expect(expected);
        assert_eq!(stringify(&again, None), expected);
    }
    let big = parse("12345678901234567").unwrap();
    assert_eq!(int_of(&big), 12345678901234567, "integers stay exact");
    assert_eq!(
        stringify(&parse("{\"a\": [1]}").unwrap(), Some(2)),
        "{\n  \"a\": [\n    1\n  ]\n}"
    );
}

#[test]
fn json_errors_are_value_errors_with_positions() {
    let _serial = serial();
    for (doc, message) in [
        ("", "ValueError: Expecting value: line 1 column 1 (char 0)"),
        (
            "[1,\n 2",
            "ValueError: Expecting ',' delimiter: line 2 column 3 (char 6)",
        ),
        (
            "{\"a\" 1}",
            "ValueError: Expecting ':' delimiter: line 1 column 6 (char 5)",
        ),
        (
            "\"abc",
            "ValueError: Unterminated string starting at: line 1 column 1 (char 0)",
        ),
        ("[1] x", "ValueError: Extra data: line 1 column 5 (char 4)"),
        (
            "1e999",
            "ValueError: Expecting value: line 1 column 1 (char 0)",
        ),
    ] {
        assert_eq!(error_text(parse(doc).unwrap_err()), message, "{doc:?}");
    }
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    let error = error_text(parse(&deep).unwrap_err());
    assert!(
        error.starts_with("ValueError: Nesting deeper than 1000 levels"),
        "{error}"
    );
    let ok = "[".repeat(1000) + &"]".repeat(1000);
    parse(&ok).expect("1000 levels are fine");
}

#[test]
fn stringify_rejects_what_json_cannot_hold() {
    let _serial = serial();
    let cyclic = List::new();
    let mut handle = cyclic.clone();
    handle.push(cyclic.clone().into_any());
    let error = call(
        "ffi.json.Stringify",
        &[&cyclic.clone().into_any(), &Any::none()],
    )
    .unwrap_err();
    assert_eq!(
        error_text(error),
        "ValueError: Cycle detected: List contains itself"
    );
    handle.clear();
    let dict = Dict::new().into_any();
    let error = call("ffi.json.Stringify", &[&dict, &Any::none()]).unwrap_err();
    assert_eq!(
        error_text(error),
        "ValueError: Unsupported type: `ffi.Dict`"
    );
    let int_keys = Map::from_pairs([(Any::int(1), Any::int(2))])
        .unwrap()
        .into_any();
    let error = call("ffi.json.Stringify", &[&int_keys, &Any::none()]).unwrap_err();
    assert_eq!(
        error_text(error),
        "ValueError: Expect key to be string, got `int`"
    );
}

fn graph_round_trip(value: &Any) -> Any {
    let text = call("ffi.ToJSONGraphString", &[value, &Any::none()]).expect("to graph");
    call("ffi.FromJSONGraphString", &[&text]).expect("from graph")
}

#[test]
fn json_graph_of_a_value_100000_deep_round_trips_on_a_small_stack() {
    let _serial = serial();
    let before = baseline();
    // 256 KiB of stack: writing, reading, comparing and releasing must not recurse.
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(|| {
            let mut deep = Any::int(7);
            for _ in 0..100_000 {
                deep = Array::from_vec(vec![deep]).into_any();
            }
            let back = graph_round_trip(&deep);
            assert!(bool_of(&call("ffi.RecursiveEq", &[&deep, &back]).unwrap()));
        })
        .unwrap()
        .join()
        .expect("the deep round trip did not crash");
    assert_eq!(live_object_count(), before);
}

#[test]
fn json_graph_keeps_sharing_and_values() {
    let _serial = serial();
    let before = baseline();
    {
        let shared = Array::from_vec(vec![s("shared string value"), Any::int(3)]).into_any();
        let list = List::from_vec(vec![shared.clone(), Any::float(0.5)]).into_any();
        let dict = Dict::from_pairs([(s("k"), shared.clone())])
            .unwrap()
            .into_any();
        let bytes = tvm_ffi::value::string::bytes_any(b"\x00\xffbytes");
        let big = tvm_ffi::value::string::bigint_any(&[0, 0, 1]);
        let root = Array::from_vec(vec![
            shared.clone(),
            list,
            dict,
            bytes,
            big,
            shared,
            Any::none(),
        ])
        .into_any();
        let back = graph_round_trip(&root);
        let items = Array::from_object(back.as_object().unwrap().clone()).unwrap();
        assert_eq!(
            ptr(&items.get(0).unwrap()),
            ptr(&items.get(5).unwrap()),
            "sharing kept"
        );
        let list = List::from_object(items.get(1).unwrap().as_object().unwrap().clone()).unwrap();
        assert_eq!(ptr(&list.get(0).unwrap()), ptr(&items.get(0).unwrap()));
        assert!(bool_of(&call("ffi.RecursiveEq", &[&root, &back]).unwrap()));
        assert_eq!(items.get(4).unwrap().type_index(), tindex::BIG_INT);
        // The value form writes the same text.
        let graph = call("ffi.ToJSONGraph", &[&root, &s("meta")]).unwrap();
        let text = call("ffi.ToJSONGraphString", &[&root, &s("meta")]).unwrap();
        assert_eq!(stringify(&graph, None), text_of(&text));
        let from_value = call("ffi.FromJSONGraph", &[&graph]).unwrap();
        assert!(bool_of(
            &call("ffi.RecursiveEq", &[&root, &from_value]).unwrap()
        ));
    }
    assert_eq!(live_object_count(), before, "nothing leaked");
}

#[test]
fn json_graph_refuses_cycles() {
    let _serial = serial();
    let cyclic = List::new();
    let mut handle = cyclic.clone();
    handle.push(cyclic.clone().into_any());
    let error = call(
        "ffi.ToJSONGraphString",
        &[&cyclic.clone().into_any(), &Any::none()],
    )
    .unwrap_err();
    assert_eq!(
        error_text(error),
        "ValueError: Cycle detected during serialization: a List contains itself"
    );
    handle.clear();
}

#[test]
fn deep_copy_keeps_sharing_and_cycles() {
    let _serial = serial();
    let before = baseline();
    {
        let shared = Array::from_vec(vec![Any::int(1)]).into_any();
        let list = List::new();
        let mut handle = list.clone();
        handle.push(shared.clone());
        handle.push(shared.clone());
        handle.push(list.clone().into_any());
        let copy = call("ffi.DeepCopy", &[&list.clone().into_any()]).unwrap();
        let copied = List::from_object(copy.as_object().unwrap().clone()).unwrap();
        assert_ne!(ptr(&copy), list.as_object().as_ptr() as usize, "a new list");
        let (a, b) = (copied.get(0).unwrap(), copied.get(1).unwrap());
        assert_eq!(ptr(&a), ptr(&b), "shared elements stay shared");
        assert_ne!(ptr(&a), ptr(&shared), "elements are copied");
        assert_eq!(
            ptr(&copied.get(2).unwrap()),
            ptr(&copy),
            "the cycle points at the copy"
        );
        assert!(bool_of(
            &call("ffi.RecursiveEq", &[&list.clone().into_any(), &copy]).unwrap()
        ));
        // Break both cycles so the lists can be freed.
        handle.clear();
        let mut copied = copied;
        copied.clear();
        // Strings and POD values are returned as they are.
        let text = s("a heap string that is long");
        assert_eq!(ptr(&call("ffi.DeepCopy", &[&text]).unwrap()), ptr(&text));
        assert_eq!(int_of(&call("ffi.DeepCopy", &[&Any::int(9)]).unwrap()), 9);
    }
    assert_eq!(live_object_count(), before, "nothing leaked");
}

#[test]
fn recursive_comparison_follows_the_reference() {
    let _serial = serial();
    let array = |items: Vec<Any>| Array::from_vec(items).into_any();
    let cmp = |name: &str, a: &Any, b: &Any| call(name, &[a, b]);
    let (a, b) = (
        array(vec![Any::int(1), Any::int(2)]),
        array(vec![Any::int(1), Any::int(3)]),
    );
    assert!(bool_of(&cmp("ffi.RecursiveLt", &a, &b).unwrap()));
    assert!(bool_of(&cmp("ffi.RecursiveGe", &b, &a).unwrap()));
    assert!(!bool_of(&cmp("ffi.RecursiveEq", &a, &b).unwrap()));
    let prefix = array(vec![Any::int(1)]);
    assert!(
        bool_of(&cmp("ffi.RecursiveLt", &prefix, &a).unwrap()),
        "shorter first"
    );
    // Different kinds: unequal, and not orderable.
    assert!(!bool_of(
        &cmp("ffi.RecursiveEq", &Any::int(1), &s("1")).unwrap()
    ));
    let error = cmp("ffi.RecursiveLt", &Any::int(1), &s("1")).unwrap_err();
    assert_eq!(
        error_text(error),
        "TypeError: Cannot compare values of different types: int vs ffi.SmallStr"
    );
    // NaN equals NaN, but is not ordered.
    let nan = Any::float(f64::NAN);
    assert!(bool_of(&cmp("ffi.RecursiveEq", &nan, &nan).unwrap()));
    assert_eq!(
        error_text(cmp("ffi.RecursiveLe", &nan, &nan).unwrap_err()),
        "TypeError: Cannot order NaN values"
    );
    // Maps compare by key, and cannot be ordered.
    let m1 = Map::from_pairs([(s("x"), Any::int(1)), (s("y"), Any::int(2))])
        .unwrap()
        .into_any();
    let m2 = Map::from_pairs([(s("y"), Any::int(2)), (s("x"), Any::int(1))])
        .unwrap()
        .into_any();
    assert!(bool_of(&cmp("ffi.RecursiveEq", &m1, &m2).unwrap()));
    let m3 = Map::from_pairs([(s("y"), Any::int(3)), (s("x"), Any::int(1))])
        .unwrap()
        .into_any();
    assert_eq!(
        error_text(cmp("ffi.RecursiveLt", &m1, &m3).unwrap_err()),
        "TypeError: Cannot order Map/Dict values"
    );
    // Int against BigInt orders by value.
    let big = tvm_ffi::value::string::bigint_any(&[0, 1]);
    assert!(bool_of(
        &cmp("ffi.RecursiveLt", &Any::int(i64::MAX), &big).unwrap()
    ));
    assert!(!bool_of(
        &cmp("ffi.RecursiveEq", &Any::int(5), &big).unwrap()
    ));
    // Deep nesting works (the walk does not recurse).
    let mut deep = Any::int(0);
    let mut deep2 = Any::int(0);
    for _ in 0..5000 {
        deep = array(vec![deep]);
        deep2 = array(vec![deep2]);
    }
    assert!(bool_of(&cmp("ffi.RecursiveEq", &deep, &deep2).unwrap()));
    let (h1, h2) = (
        call("ffi.RecursiveHash", &[&deep]).unwrap(),
        call("ffi.RecursiveHash", &[&deep2]).unwrap(),
    );
    assert_eq!(int_of(&h1), int_of(&h2));
    // Unwind the deep values one level at a time (dropping them whole would recurse).
    for mut value in [deep, deep2] {
        while let Some(obj) = value.as_object().cloned() {
            let inner = Array::from_object(obj).unwrap().get(0).unwrap();
            value = inner;
        }
    }
}

#[test]
fn recursive_hash_is_consistent_with_equality() {
    let _serial = serial();
    let hash = |v: &Any| int_of(&call("ffi.RecursiveHash", &[v]).unwrap());
    let heap = Any::object(tvm_ffi::value::string::new_bytes_object(
        tindex::STR,
        b"abc",
    ));
    assert_eq!(
        hash(&s("abc")),
        hash(&heap),
        "small and heap strings hash alike"
    );
    assert_eq!(hash(&Any::float(0.0)), hash(&Any::float(-0.0)));
    assert_eq!(hash(&Any::float(f64::NAN)), hash(&Any::float(-f64::NAN)));
    let m1 = Map::from_pairs([(s("x"), Any::int(1)), (s("y"), Any::int(2))])
        .unwrap()
        .into_any();
    let m2 = Map::from_pairs([(s("y"), Any::int(2)), (s("x"), Any::int(1))])
        .unwrap()
        .into_any();
    assert_eq!(hash(&m1), hash(&m2), "map hashing ignores order");
    let a = Array::from_vec(vec![Any::int(1), Any::int(2)]).into_any();
    let b = Array::from_vec(vec![Any::int(2), Any::int(1)]).into_any();
    assert_ne!(hash(&a), hash(&b), "sequence hashing follows order");
    // A BigInt hashes through its __ffi_hash__ attribute: equal values, equal hashes.
    let big1 = tvm_ffi::value::string::bigint_any(&[7, 3]);
    let big2 = tvm_ffi::value::string::bigint_any(&[7, 3]);
    assert_eq!(hash(&big1), hash(&big2));
    // Cycles hash without looping.
    let cyclic = List::new();
    let mut handle = cyclic.clone();
    handle.push(cyclic.clone().into_any());
    hash(&cyclic.clone().into_any());
    assert!(bool_of(
        &call(
            "ffi.RecursiveEq",
            &[&cyclic.clone().into_any(), &cyclic.clone().into_any()]
        )
        .unwrap()
    ));
    handle.clear();
}

#[test]
fn bigint_type_attributes_are_registered() {
    let _serial = serial();
    let get = |column: &[u8]| tvm_ffi::registry::types::attr_value(column, tindex::BIG_INT);
    for column in [
        &b"__ffi_hash__"[..],
        b"__ffi_eq__",
        b"__ffi_compare__",
        b"__data_to_json__",
        b"__data_from_json__",
    ] {
        let hook = get(column).unwrap_or_else(|| panic!("{}", String::from_utf8_lossy(column)));
        assert_eq!(hook.type_index(), tindex::FUNCTION);
    }
    let to_json = get(b"__data_to_json__").unwrap();
    let big = tvm_ffi::value::string::bigint_any(&[0, -1]);
    // SAFETY: a live Function and a valid argument.
    let decimal = unsafe {
        tvm_ffi::value::function::call(to_json.as_object().unwrap().as_ptr(), &[*big.as_raw()])
    }
    .unwrap();
    assert_eq!(text_of(&decimal), "-18446744073709551616");
    let from_json = get(b"__data_from_json__").unwrap();
    // SAFETY: as above.
    let error = unsafe {
        tvm_ffi::value::function::call(
            from_json.as_object().unwrap().as_ptr(),
            &[*s("12 ").as_raw()],
        )
    }
    .unwrap_err();
    assert_eq!(
        error_text(error),
        "ValueError: Invalid decimal string for ffi.BigInt"
    );
}

#[test]
fn from_json_graph_takes_json_values_only() {
    let _serial = serial();
    let node = Map::from_pairs([(s("type"), s("int")), (s("data"), Any::int(7))]).unwrap();
    let graph = |nodes: Vec<Any>| {
        Map::from_pairs([
            (s("root_index"), Any::int(0)),
            (s("nodes"), Array::from_vec(nodes).into_any()),
        ])
        .unwrap()
        .into_any()
    };
    let ok = call("ffi.FromJSONGraph", &[&graph(vec![node.into_any()])]).unwrap();
    assert_eq!(int_of(&ok), 7);
    // A value JSON cannot hold, anywhere in the document, is a ValueError.
    let function = tvm_ffi::registry::globals::get(b"ffi.Array")
        .unwrap()
        .function
        .clone();
    let bad = Map::from_pairs([(s("type"), s("int")), (s("data"), Any::object(function))])
        .unwrap()
        .into_any();
    let error = call("ffi.FromJSONGraph", &[&graph(vec![bad])]).unwrap_err();
    assert_eq!(
        error_text(error),
        "ValueError: Invalid JSON Object Graph: `ffi.Function` is not a JSON value"
    );
    let error = call("ffi.FromJSONGraph", &[&Any::int(3)]).unwrap_err();
    assert_eq!(
        error_text(error),
        "ValueError: Invalid JSON Object Graph, expected an object"
    );
}
