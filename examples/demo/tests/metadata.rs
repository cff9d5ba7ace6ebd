//! The reflection metadata the demo registers has Apache's form: each function's `type_schema`
//! is the string Apache's C++ registration produces for the same signature (expectations below,
//! written from the `type_schema` strings of Apache's own C++ registrations and cross-checked against the functions of
//! Apache's `libtvm_ffi_testing.so` with equivalent signatures), and the types' fields and
//! methods are recorded as Apache's `ObjectDef` records them. Checked on both runtimes.

mod common;

use common::{apache_root, global};
use ffihub::reflection::TypeInfo;
use ffihub::{Function, Module};
use serde_json::Value;

/// The expected `type_schema` of every global function of the demo.
const EXPECTED: &[(&str, &str)] = &[
    (
        "demo.add_one",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"int"}]}}"#,
    ),
    (
        "demo.echo_int",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"int"}]}}"#,
    ),
    (
        "demo.echo_float",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"float"}],"params":[{"type":"float"}]}}"#,
    ),
    (
        "demo.echo_bool",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"bool"}],"params":[{"type":"bool"}]}}"#,
    ),
    (
        "demo.echo_string",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.String"}],"params":[{"type":"ffi.String"}]}}"#,
    ),
    (
        "demo.echo_bytes",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Bytes"}],"params":[{"type":"ffi.Bytes"}]}}"#,
    ),
    (
        "demo.echo_dtype",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"DataType"}],"params":[{"type":"DataType"}]}}"#,
    ),
    (
        "demo.echo_device",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"Device"}],"params":[{"type":"Device"}]}}"#,
    ),
    (
        "demo.echo_any",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"Any"}],"params":[{"type":"Any"}]}}"#,
    ),
    (
        "demo.echo_optional_int",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"Optional","args":[{"type":"int"}]}],"params":[{"type":"Optional","args":[{"type":"int"}]}]}}"#,
    ),
    (
        "demo.concat",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.String"}],"params":[{"type":"ffi.String"},{"type":"ffi.String"}]}}"#,
    ),
    (
        "demo.repeat",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.String"}],"params":[{"type":"ffi.String"},{"type":"int"}]}}"#,
    ),
    (
        "demo.string_length",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"ffi.String"}]}}"#,
    ),
    (
        "demo.reverse_bytes",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Bytes"}],"params":[{"type":"ffi.Bytes"}]}}"#,
    ),
    (
        "demo.dtype_bits",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"DataType"}]}}"#,
    ),
    (
        "demo.make_device",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"Device"}],"params":[{"type":"ffi.String"},{"type":"int"}]}}"#,
    ),
    (
        "demo.device_name",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.String"}],"params":[{"type":"Device"}]}}"#,
    ),
    (
        "demo.greet",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.String"}],"params":[{"type":"Optional","args":[{"type":"ffi.String"}]}]}}"#,
    ),
    (
        "demo.safe_divide",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"Optional","args":[{"type":"float"}]}],"params":[{"type":"float"},{"type":"float"}]}}"#,
    ),
    (
        "demo.is_none",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"bool"}],"params":[{"type":"Any"}]}}"#,
    ),
    (
        "demo.sum_array",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"float"}],"params":[{"type":"ffi.Array","args":[{"type":"float"}]}]}}"#,
    ),
    (
        "demo.make_range",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Array","args":[{"type":"int"}]}],"params":[{"type":"int"}]}}"#,
    ),
    (
        "demo.reverse_array",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Array","args":[{"type":"Any"}]}],"params":[{"type":"ffi.Array","args":[{"type":"Any"}]}]}}"#,
    ),
    (
        "demo.array_get",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"Any"}],"params":[{"type":"ffi.Array","args":[{"type":"Any"}]},{"type":"int"}]}}"#,
    ),
    (
        "demo.word_lengths",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Map","args":[{"type":"ffi.String"},{"type":"int"}]}],"params":[{"type":"ffi.Array","args":[{"type":"ffi.String"}]}]}}"#,
    ),
    (
        "demo.map_get",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"ffi.Map","args":[{"type":"ffi.String"},{"type":"int"}]},{"type":"ffi.String"}]}}"#,
    ),
    (
        "demo.map_keys",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Array","args":[{"type":"ffi.String"}]}],"params":[{"type":"ffi.Map","args":[{"type":"ffi.String"},{"type":"Any"}]}]}}"#,
    ),
    (
        "demo.make_nested",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Array","args":[{"type":"ffi.Map","args":[{"type":"ffi.String"},{"type":"ffi.Array","args":[{"type":"int"}]}]}]}],"params":[{"type":"int"}]}}"#,
    ),
    (
        "demo.nested_summary",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Map","args":[{"type":"ffi.String"},{"type":"int"}]}],"params":[{"type":"ffi.Array","args":[{"type":"ffi.Map","args":[{"type":"ffi.String"},{"type":"ffi.Array","args":[{"type":"int"}]}]}]}]}}"#,
    ),
    (
        "demo.echo_shape",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Shape"}],"params":[{"type":"ffi.Shape"}]}}"#,
    ),
    (
        "demo.make_shape",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Shape"}],"params":[{"type":"ffi.Array","args":[{"type":"int"}]}]}}"#,
    ),
    (
        "demo.shape_numel",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"ffi.Shape"}]}}"#,
    ),
    (
        "demo.apply_twice",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"int"}]}},{"type":"int"}]}}"#,
    ),
    (
        "demo.make_multiplier",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Function","named_args":{"return":[{"type":"float"}],"params":[{"type":"float"}]}}],"params":[{"type":"float"}]}}"#,
    ),
    (
        "demo.map_array",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Array","args":[{"type":"Any"}]}],"params":[{"type":"ffi.Function"},{"type":"ffi.Array","args":[{"type":"Any"}]}]}}"#,
    ),
    (
        "demo.make_counter_fn",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[]}}],"params":[{"type":"int"}]}}"#,
    ),
    (
        "demo.compose",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Function"}],"params":[{"type":"ffi.Function"},{"type":"ffi.Function"}]}}"#,
    ),
    (
        "demo.raise_error",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"None"}],"params":[{"type":"ffi.String"},{"type":"ffi.String"}]}}"#,
    ),
    (
        "demo.checked_sqrt",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"float"}],"params":[{"type":"float"}]}}"#,
    ),
    (
        "demo.parse_int",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[{"type":"ffi.String"}]}}"#,
    ),
    (
        "demo.panic",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"None"}],"params":[{"type":"ffi.String"}]}}"#,
    ),
    (
        "demo.add_one_inplace",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"None"}],"params":[{"type":"ffi.Tensor"}]}}"#,
    ),
    (
        "demo.scaled_copy",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Tensor"}],"params":[{"type":"ffi.Tensor"},{"type":"float"}]}}"#,
    ),
    (
        "demo.arange",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Tensor"}],"params":[{"type":"int"}]}}"#,
    ),
    (
        "demo.tensor_sum",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"float"}],"params":[{"type":"ffi.Tensor"}]}}"#,
    ),
    (
        "demo.tensor_info",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.Map","args":[{"type":"ffi.String"},{"type":"Any"}]}],"params":[{"type":"ffi.Tensor"}]}}"#,
    ),
    ("demo.packed_sum", r#"{"type":"ffi.Function"}"#),
    ("demo.arg_types", r#"{"type":"ffi.Function"}"#),
    (
        "demo.live_object_count",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"int"}],"params":[]}}"#,
    ),
    (
        "demo.version",
        r#"{"type":"ffi.Function","named_args":{"return":[{"type":"ffi.String"}],"params":[]}}"#,
    ),
];

/// Demo functions and the testing-library function with the same C++ signature.
const SAME_SIGNATURE_AS_APACHE: &[(&str, &str)] = &[
    ("demo.add_one", "testing.add_one"),
    ("demo.echo_int", "testing.schema_id_int"),
    ("demo.echo_float", "testing.schema_id_float"),
    ("demo.echo_bool", "testing.schema_id_bool"),
    ("demo.echo_string", "testing.schema_id_string"),
    ("demo.echo_bytes", "testing.schema_id_bytes"),
    ("demo.echo_dtype", "testing.schema_id_dtype"),
    ("demo.echo_device", "testing.schema_id_device"),
    ("demo.echo_any", "testing.schema_id_any"),
    ("demo.echo_optional_int", "testing.schema_id_opt_int"),
    ("demo.raise_error", "testing.test_raise_error"),
    ("demo.packed_sum", "testing.schema_packed"),
    ("demo.arg_types", "testing.schema_packed"),
];

/// Parses a metadata string (a flat JSON object).
fn parse(metadata: &str) -> serde_json::Map<String, Value> {
    match serde_json::from_str(metadata) {
        Ok(Value::Object(map)) => map,
        other => panic!("metadata is not a JSON object: {metadata} ({other:?})"),
    }
}

/// The `type_schema` string of a metadata string.
fn type_schema(metadata: &str) -> String {
    parse(metadata)["type_schema"]
        .as_str()
        .unwrap_or_else(|| panic!("no type_schema string in {metadata}"))
        .to_owned()
}

fn global_metadata(name: &str) -> String {
    Function::global_metadata(name)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .to_string()
}

/// Every global function name starting with `prefix`.
fn globals_with_prefix(prefix: &str) -> Vec<String> {
    let names: Function = Function::global("ffi.FunctionListGlobalNamesFunctor")
        .and_then(|f| f.call(()))
        .expect("ffi.FunctionListGlobalNamesFunctor");
    let count: i64 = names.call((-1,)).expect("count");
    let mut found: Vec<String> = (0..count)
        .map(|i| names.call::<String>((i,)).expect("name"))
        .filter(|name| name.starts_with(prefix))
        .collect();
    found.sort();
    found
}

both_runtimes! {
    fn every_global_has_the_apache_type_schema(runtime) {
        global("demo.add_one");
        let mut expected: Vec<String> = EXPECTED.iter().map(|(n, _)| n.to_string()).collect();
        expected.sort();
        assert_eq!(globals_with_prefix("demo."), expected, "the table covers every demo global");
        for (name, schema) in EXPECTED {
            let metadata = global_metadata(name);
            assert!(
                metadata.starts_with(r#"{"type_schema":""#),
                "{name}: metadata does not start with type_schema: {metadata}"
            );
            assert_eq!(type_schema(&metadata), *schema, "{name}");
        }
    }

    fn metadata_strings_match_the_testing_library(runtime) {
        global("demo.add_one");
        Module::load(apache_root().join("lib/libtvm_ffi_testing.so"))
            .expect("load libtvm_ffi_testing.so");
        for (ours, apache) in SAME_SIGNATURE_AS_APACHE {
            assert_eq!(
                type_schema(&global_metadata(ours)),
                type_schema(&global_metadata(apache)),
                "{ours} vs {apache}"
            );
        }
        // Apache writes exactly `{"type_schema":"..."}`; ours adds argument names (and
        // defaults) and the doc comment as extra keys of the same flat object.
        assert_eq!(
            global_metadata("testing.add_one"),
            r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"int\"}],\"params\":[{\"type\":\"int\"}]}}"}"#
        );
        assert_eq!(
            global_metadata("demo.add_one"),
            r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"int\"}],\"params\":[{\"type\":\"int\"}]}}","arg_names":"[\"x\"]","doc":"Returns `x + 1`."}"#
        );
        assert_eq!(
            global_metadata("demo.packed_sum"),
            r#"{"type_schema":"{\"type\":\"ffi.Function\"}","doc":"The sum of all arguments: an int if they are all ints (or bools), a float if any is a float;\n`TypeError` for other kinds of arguments. No arguments give `0`."}"#
        );
    }

    fn types_are_recorded_like_apache_object_defs(runtime) {
        global("demo.add_one");
        // Fields: offset from the header, size, static type index, flags and metadata as in
        // Apache's records (compare testing.TestIntPair and testing.TestObjectBase).
        let fields = |key: &str| -> Vec<(String, i64, i64, i64, i32, String, String)> {
            TypeInfo::from_key(key)
                .unwrap_or_else(|| panic!("{key} is not registered"))
                .fields()
                .iter()
                .map(|f| {
                    (
                        f.name().into_owned(),
                        f.offset(),
                        f.size(),
                        f.flags(),
                        f.static_type_index(),
                        f.metadata().into_owned(),
                        f.doc().into_owned(),
                    )
                })
                .collect()
        };
        let float = r#"{"type_schema":"{\"type\":\"float\"}"}"#.to_owned();
        assert_eq!(
            fields("demo.Point"),
            [
                ("x".into(), 24, 8, 0, 3, float.clone(), "The x coordinate.".into()),
                ("y".into(), 32, 8, 0, 3, float.clone(), "The y coordinate.".into()),
            ]
        );
        assert_eq!(
            fields("demo.Point3D"),
            [("z".into(), 40, 8, 0, 3, float, "The z coordinate.".into())]
        );
        let counter = fields("demo.Counter");
        assert_eq!(
            (counter[0].0.as_str(), counter[0].2, counter[0].3, counter[0].4, counter[0].5.as_str()),
            ("label", 16, 0, -1, r#"{"type_schema":"{\"type\":\"ffi.String\"}"}"#)
        );
        // Writable with a default: flags 3, like testing.TestObjectBase.v_i64.
        assert_eq!(
            (counter[1].0.as_str(), counter[1].3, counter[1].4, counter[1].5.as_str()),
            ("count", 3, 1, r#"{"type_schema":"{\"type\":\"int\"}"}"#)
        );
        let shape2d = fields("demo.Shape2D");
        let schemas: Vec<(&str, &str, i32)> =
            shape2d.iter().map(|f| (f.0.as_str(), f.5.as_str(), f.4)).collect();
        assert_eq!(
            schemas,
            [
                ("name", r#"{"type_schema":"{\"type\":\"ffi.String\"}"}"#, -1),
                ("vertices", r#"{"type_schema":"{\"type\":\"ffi.Array\",\"args\":[{\"type\":\"demo.Point\"}]}"}"#, 71),
                ("tags", r#"{"type_schema":"{\"type\":\"ffi.Map\",\"args\":[{\"type\":\"ffi.String\"},{\"type\":\"ffi.String\"}]}"}"#, 64),
                ("color", r#"{"type_schema":"{\"type\":\"Optional\",\"args\":[{\"type\":\"ffi.String\"}]}"}"#, -1),
            ]
        );
        let spec: Vec<(String, i32)> =
            fields("demo.TensorSpec").into_iter().map(|f| (type_schema(&f.5), f.4)).collect();
        assert_eq!(
            spec,
            [
                (r#"{"type":"DataType"}"#.into(), 5),
                (r#"{"type":"Device"}"#.into(), 6),
                (r#"{"type":"ffi.Shape"}"#.into(), 69),
                (r#"{"type":"Optional","args":[{"type":"ffi.String"}]}"#.into(), -1),
            ]
        );

        // Methods: instance methods list the type as `self`; static methods and the constructor
        // carry flag 4; `__ffi_init__` returns `ffi.Object` (compare testing.TestIntPair).
        let methods = |key: &str| -> Vec<(String, i64, String)> {
            TypeInfo::from_key(key)
                .unwrap()
                .methods()
                .iter()
                .map(|m| (m.name().into_owned(), m.flags(), type_schema(&m.metadata())))
                .collect()
        };
        let f = |ret: &str, params: &[&str]| {
            format!(
                r#"{{"type":"ffi.Function","named_args":{{"return":[{ret}],"params":[{}]}}}}"#,
                params.join(",")
            )
        };
        let (float, point) = (r#"{"type":"float"}"#, r#"{"type":"demo.Point"}"#);
        let object = r#"{"type":"ffi.Object"}"#;
        assert_eq!(
            methods("demo.Point"),
            [
                ("__ffi_init__".into(), 4, f(object, &[float, float])),
                ("norm".into(), 0, f(float, &[point])),
                ("translate".into(), 0, f(point, &[point, float, float])),
                ("distance".into(), 0, f(float, &[point, point])),
                ("origin".into(), 4, f(point, &[])),
            ]
        );
        let point3d = r#"{"type":"demo.Point3D"}"#;
        assert_eq!(
            methods("demo.Point3D"),
            [
                ("__ffi_init__".into(), 4, f(object, &[float, float, float])),
                ("norm".into(), 0, f(float, &[point3d])),
                ("to_2d".into(), 0, f(point, &[point3d])),
            ]
        );
        let counter_init = TypeInfo::from_key("demo.Counter")
            .unwrap()
            .find_method("__ffi_init__")
            .unwrap();
        let extra = parse(&counter_init.metadata());
        assert_eq!(extra["arg_names"], r#"["label","start","step"]"#);
        assert_eq!(extra["arg_defaults"], r#"{"start":0,"step":1}"#);
        assert_eq!(
            counter_init.doc(),
            "Creates a counter `label` starting at `start` (default 0) that counts by `step`\n(default 1)."
        );

        // Every type is constructible from any language: `__ffi_init__` type attribute, and
        // `total_size` / doc in the type metadata.
        for key in ["demo.Point", "demo.Point3D", "demo.Counter", "demo.Shape2D", "demo.TensorSpec"] {
            let info = TypeInfo::from_key(key).unwrap();
            assert!(info.attr("__ffi_init__").is_some(), "{key} has no __ffi_init__ attribute");
            assert!(info.total_size() > 24, "{key}");
            assert!(!info.doc().unwrap_or_default().is_empty(), "{key} has no doc");
        }
        assert_eq!(
            TypeInfo::from_key("demo.Point3D").unwrap().ancestors().iter().map(|t| t.type_key().into_owned()).collect::<Vec<_>>(),
            ["ffi.Object", "demo.Point"]
        );
    }
}
