//! Calls every demo function and type through the runtime (ffihub's and Apache's), with the
//! `ffihub` Rust API as the host, and checks the results.

mod common;

use common::{demo, global};
use ffihub::reflection::{call_static, construct, TypeInfo};
use ffihub::{
    Any, AnyView, Array, Bytes, DataType, Device, Error, Function, Map, Object, ObjectRef, Result,
    Shape, String, Tensor, TypedFunction,
};

fn call<R: ffihub::FromAny>(name: &str, args: impl ffihub::IntoArgs) -> R {
    global(name)
        .call(args)
        .unwrap_or_else(|e| panic!("{name} failed: {e}\n{}", e.backtrace()))
}

fn fails<R: std::fmt::Debug + ffihub::FromAny>(name: &str, args: impl ffihub::IntoArgs) -> Error {
    match global(name).call::<R>(args) {
        Ok(value) => panic!("{name} succeeded with {value:?}"),
        Err(error) => error,
    }
}

fn expect_err<T: std::fmt::Debug>(result: Result<T>) -> Error {
    result.expect_err("expected an error")
}

fn s(text: &str) -> String {
    String::from(text)
}

both_runtimes! {
    fn scalars(runtime) {
        assert_eq!(call::<i64>("demo.add_one", (41,)), 42);
        assert_eq!(call::<i64>("demo.echo_int", (i64::MIN,)), i64::MIN);
        assert_eq!(call::<i64>("demo.echo_int", (i64::MAX,)), i64::MAX);
        assert_eq!(call::<f64>("demo.echo_float", (1.25,)), 1.25);
        assert_eq!(call::<f64>("demo.echo_float", (3,)), 3.0);
        assert!(call::<bool>("demo.echo_bool", (true,)));
        assert!(!call::<bool>("demo.echo_bool", (false,)));
        assert!(call::<bool>("demo.echo_bool", (1,)));
        assert_eq!(call::<DataType>("demo.echo_dtype", (DataType::F32,)), DataType::F32);
        let int8: DataType = call("demo.echo_dtype", ("int8",));
        assert_eq!((int8.code(), int8.bits(), int8.lanes()), (0, 8, 1));
        assert_eq!(int8.to_string(), "int8");
        assert_eq!(call::<i64>("demo.dtype_bits", ("float16",)), 16);
        assert_eq!(call::<Device>("demo.echo_device", (Device::cuda(1),)), Device::cuda(1));
        assert_eq!(call::<Device>("demo.make_device", ("rocm", 2)), Device::new(10, 2));
        assert_eq!(fails::<Device>("demo.make_device", ("tpu", 0)).kind(), "ValueError");
        assert_eq!(call::<std::string::String>("demo.device_name", (Device::cuda(1),)), "cuda:1");
        assert_eq!(call::<Option<i64>>("demo.echo_optional_int", (None::<i64>,)), None);
        assert_eq!(call::<Option<i64>>("demo.echo_optional_int", (Some(5),)), Some(5));
        assert_eq!(call::<String>("demo.greet", (None::<String>,)), "Hello, world!");
        assert_eq!(call::<String>("demo.greet", ("Ada",)), "Hello, Ada!");
        assert_eq!(call::<Option<f64>>("demo.safe_divide", (1.0, 0.0)), None);
        assert_eq!(call::<Option<f64>>("demo.safe_divide", (1, 4)), Some(0.25));
        assert!(call::<bool>("demo.is_none", (Any::none(),)));
        assert!(!call::<bool>("demo.is_none", (0,)));
    }

    fn strings_and_bytes(runtime) {
        // Small strings (<= 7 bytes) travel inline, longer ones as objects; both come back.
        let small: Any = call("demo.echo_string", ("hi",));
        assert_eq!(small.type_key(), "ffi.SmallStr");
        assert_eq!(small.cast::<String>().unwrap(), "hi");
        let long_text = "a string that is longer than seven bytes, with UTF-8: héllo wörld";
        let long: Any = call("demo.echo_string", (long_text,));
        assert_eq!(long.type_key(), "ffi.String");
        assert_eq!(long.cast::<std::string::String>().unwrap(), long_text);
        assert_eq!(call::<String>("demo.echo_string", ("",)), "");
        assert_eq!(call::<String>("demo.concat", ("ab", "cd")), "abcd");
        assert_eq!(call::<String>("demo.concat", ("1234", "5678")), "12345678");
        let repeated: String = call("demo.repeat", ("ab", 50));
        assert_eq!(repeated.len(), 100);
        assert_eq!(repeated.to_str().unwrap(), "ab".repeat(50));
        assert_eq!(fails::<String>("demo.repeat", ("ab", -1)).kind(), "ValueError");
        // 2 TiB: the allocation fails and becomes an error (the process aborted before).
        let too_big = fails::<String>("demo.repeat", ("ab", 1i64 << 40));
        assert_eq!(too_big.kind(), "MemoryError");
        assert!(too_big.message().contains("cannot allocate memory"), "{too_big}");
        assert_eq!(fails::<String>("demo.repeat", ("ab", i64::MAX)).kind(), "MemoryError");
        assert_eq!(call::<i64>("demo.string_length", ("héllo",)), 6);

        let small_bytes: Bytes = call("demo.echo_bytes", (Bytes::new(b"\x00\x01\xff").unwrap(),));
        assert_eq!(small_bytes.as_slice(), b"\x00\x01\xff");
        let long_bytes: Vec<u8> = (0..=255).collect();
        let echoed: Bytes = call("demo.echo_bytes", (long_bytes.as_slice(),));
        assert_eq!(echoed.as_slice(), long_bytes.as_slice());
        let reversed: Bytes = call("demo.reverse_bytes", (&b"abc"[..],));
        assert_eq!(reversed.as_slice(), b"cba");
        // A string is not bytes.
        assert_eq!(fails::<Bytes>("demo.echo_bytes", ("abc",)).kind(), "TypeError");
    }

    fn argument_errors(runtime) {
        let error = fails::<i64>("demo.add_one", ("x",));
        assert_eq!(error.kind(), "TypeError");
        assert!(
            error.message().starts_with(
                "Mismatched type on argument #0 when calling: `demo.add_one(0: int) -> int`. Expected `int` but got `"
            ),
            "{}",
            error.message()
        );
        let error = fails::<i64>("demo.add_one", ());
        assert_eq!(error.kind(), "TypeError");
        assert_eq!(
            error.message(),
            "Mismatched number of arguments when calling: `demo.add_one(0: int) -> int`. Expected 1 but got 0 arguments"
        );
        let error = fails::<f64>("demo.sum_array", (Array::new(["x"]).unwrap(),));
        assert_eq!(error.kind(), "TypeError");
        assert!(error.message().contains("Array<float>"), "{}", error.message());
    }

    fn containers(runtime) {
        assert_eq!(call::<f64>("demo.sum_array", (Array::new([1.0, 2.5, 3.0]).unwrap(),)), 6.5);
        assert_eq!(call::<f64>("demo.sum_array", (Array::new([1, 2]).unwrap(),)), 3.0);
        assert_eq!(call::<f64>("demo.sum_array", (Array::<f64>::new([]).unwrap(),)), 0.0);
        let range: Array<i64> = call("demo.make_range", (4,));
        assert_eq!(range.to_vec().unwrap(), vec![0, 1, 2, 3]);

        let mixed = Array::new([
            Any::from_value(1).unwrap(),
            Any::from_value("x").unwrap(),
            Any::from_value(2.5).unwrap(),
        ])
        .unwrap();
        let reversed: Array<Any> = call("demo.reverse_array", (&mixed,));
        assert_eq!(reversed.get(0).unwrap().cast::<f64>().unwrap(), 2.5);
        assert_eq!(reversed.get(1).unwrap().cast::<String>().unwrap(), "x");
        assert_eq!(reversed.get(2).unwrap().cast::<i64>().unwrap(), 1);
        assert_eq!(call::<Any>("demo.array_get", (&mixed, -1)).cast::<f64>().unwrap(), 2.5);
        assert_eq!(call::<Any>("demo.array_get", (&mixed, 0)).cast::<i64>().unwrap(), 1);
        let error = fails::<Any>("demo.array_get", (&mixed, 3));
        assert_eq!(error.kind(), "IndexError");
        assert_eq!(error.message(), "index 3 is out of range for an array of length 3");

        let lengths: Map<String, i64> =
            call("demo.word_lengths", (Array::new(["a", "abc", "héllo"]).unwrap(),));
        assert_eq!(lengths.len(), 3);
        assert_eq!(lengths.get(s("abc")).unwrap(), Some(3));
        assert_eq!(lengths.get(s("héllo")).unwrap(), Some(6));
        assert_eq!(lengths.get(s("zz")).unwrap(), None);
        assert_eq!(call::<i64>("demo.map_get", (&lengths, "a")), 1);
        let error = fails::<i64>("demo.map_get", (&lengths, "zz"));
        assert_eq!(error.kind(), "KeyError");
        assert_eq!(error.message(), "key `zz` is not in the map");

        let map = Map::new([
            (s("b"), Any::from_value(1).unwrap()),
            (s("a"), Any::from_value("x").unwrap()),
        ])
        .unwrap();
        let keys: Array<String> = call("demo.map_keys", (map,));
        assert_eq!(keys.to_vec().unwrap(), vec![s("a"), s("b")]);

        let shape = Shape::new(&[2, 3, 4]).unwrap();
        assert_eq!(call::<Shape>("demo.echo_shape", (&shape,)), shape);
        let made: Shape = call("demo.make_shape", (Array::new([2, 3, 4]).unwrap(),));
        assert_eq!(made.as_slice(), &[2, 3, 4]);
        assert_eq!(call::<i64>("demo.shape_numel", (&shape,)), 24);
        // An element count beyond int64 is a ValueError (a debug build panicked, a release
        // build wrapped).
        let huge = Shape::new(&[1 << 62, 4]).unwrap();
        let error = fails::<i64>("demo.shape_numel", (&huge,));
        assert_eq!(error.kind(), "ValueError");
        assert!(error.message().contains("overflows int64"), "{}", error.message());
        assert_eq!(huge.numel().unwrap_err().kind(), "ValueError");
        assert_eq!(Shape::new(&[0, 1 << 62, 4]).unwrap().numel().unwrap(), 0);
    }

    fn nested_containers(runtime) {
        let nested: Array<Map<String, Array<i64>>> = call("demo.make_nested", (3,));
        assert_eq!(nested.len(), 3);
        let last = nested.get(2).unwrap();
        assert_eq!(last.get(s("index")).unwrap().unwrap().to_vec().unwrap(), vec![2]);
        assert_eq!(last.get(s("range")).unwrap().unwrap().to_vec().unwrap(), vec![0, 1]);
        let summary: Map<String, i64> = call("demo.nested_summary", (&nested,));
        let summary: Vec<(String, i64)> = summary.entries().unwrap();
        let get = |key: &str| summary.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        assert_eq!(get("maps"), Some(3));
        assert_eq!(get("keys"), Some(6));
        assert_eq!(get("values"), Some(6));
        assert_eq!(get("total"), Some(4));

        // Built on the Rust side: an Array of Map of String to Array.
        let built = Array::new([
            Map::new([(s("xs"), Array::new([1, 2, 3]).unwrap())]).unwrap(),
            Map::new([
                (s("ys"), Array::new([10]).unwrap()),
                (s("zs"), Array::<i64>::new([]).unwrap()),
            ])
            .unwrap(),
        ])
        .unwrap();
        let summary: Map<String, i64> = call("demo.nested_summary", (built,));
        assert_eq!(summary.get(s("maps")).unwrap(), Some(2));
        assert_eq!(summary.get(s("keys")).unwrap(), Some(3));
        assert_eq!(summary.get(s("values")).unwrap(), Some(4));
        assert_eq!(summary.get(s("total")).unwrap(), Some(16));
        // An element of the wrong type deep inside is a TypeError, not a crash.
        let wrong = Array::new([Map::new([(s("xs"), Array::new(["no"]).unwrap())]).unwrap()]).unwrap();
        assert_eq!(fails::<Any>("demo.nested_summary", (wrong,)).kind(), "TypeError");
    }

    fn callbacks(runtime) {
        let triple = Function::from_typed(|x: i64| x * 3).unwrap();
        assert_eq!(call::<i64>("demo.apply_twice", (&triple, 2)), 18);
        // An error raised by the callback comes back with its kind and message.
        let failing = Function::from_typed(|x: i64| -> Result<i64> {
            Err(Error::value_error(format!("callback refused {x}")))
        })
        .unwrap();
        let error = fails::<i64>("demo.apply_twice", (&failing, 7));
        assert_eq!(error.kind(), "ValueError");
        assert_eq!(error.message(), "callback refused 7");

        let double: TypedFunction<fn(f64) -> f64> = call("demo.make_multiplier", (2.5,));
        assert_eq!(double.call(4.0).unwrap(), 10.0);
        let error = expect_err(double.function().call::<f64>(("x",)));
        assert_eq!(error.kind(), "TypeError");

        let plus_one = Function::from_typed(|x: i64| x + 1).unwrap();
        let mapped: Array<i64> = call("demo.map_array", (&plus_one, Array::new([1, 2, 3]).unwrap()));
        assert_eq!(mapped.to_vec().unwrap(), vec![2, 3, 4]);

        let counter: TypedFunction<fn() -> i64> = call("demo.make_counter_fn", (10,));
        assert_eq!(
            (counter.call().unwrap(), counter.call().unwrap(), counter.call().unwrap()),
            (10, 11, 12)
        );

        let composed: Function = call("demo.compose", (global("demo.add_one"), double.function()));
        assert_eq!(composed.call::<f64>((5,)).unwrap(), 15.0);
    }

    fn errors(runtime) {
        for kind in ["ValueError", "TypeError", "IndexError", "KeyError", "RuntimeError"] {
            let error = fails::<Any>("demo.raise_error", (kind, "raised on purpose"));
            assert_eq!(error.kind(), kind);
            assert_eq!(error.message(), "raised on purpose");
            let backtrace = error.backtrace();
            assert!(
                backtrace.contains("examples/demo/src/errors.rs")
                    && backtrace.contains("ffihub_demo::errors::raise_error"),
                "no Rust frame of the demo in:\n{backtrace}"
            );
        }
        let error = fails::<f64>("demo.checked_sqrt", (-4.0,));
        assert_eq!(error.kind(), "ValueError");
        assert_eq!(error.message(), "cannot take the square root of -4");
        assert_eq!(call::<f64>("demo.checked_sqrt", (16,)), 4.0);
        assert_eq!(call::<i64>("demo.parse_int", (" 42 ",)), 42);
        assert_eq!(fails::<i64>("demo.parse_int", ("4x2",)).kind(), "ValueError");
        let error = fails::<Any>("demo.panic", ("something went wrong",));
        assert_eq!(error.kind(), "InternalError");
        assert!(error.message().contains("something went wrong"), "{}", error.message());
    }

    fn tensors(runtime) {
        let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        call::<()>("demo.add_one_inplace", (&t,));
        assert_eq!(t.to_vec::<f32>().unwrap(), vec![2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
        let scaled: Tensor = call("demo.scaled_copy", (&t, 0.5));
        assert_eq!(scaled.shape(), &[2, 3]);
        assert!(scaled.is_contiguous());
        assert_eq!(scaled.to_vec::<f32>().unwrap(), vec![1.0, 1.5, 2.0, 2.5, 3.0, 3.5]);
        // The input is untouched.
        assert_eq!(t.to_vec::<f32>().unwrap()[0], 2.0);

        // A transposed (non-contiguous) view over a column-major buffer.
        let (view, buffer) = strided_view();
        assert!(!view.is_contiguous());
        assert_eq!(view.to_vec::<f32>().unwrap(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        call::<()>("demo.add_one_inplace", (&view,));
        // SAFETY: the buffer outlives `view`'s use here and nothing else writes it.
        let data = unsafe { std::slice::from_raw_parts(buffer, 6) }.to_vec();
        assert_eq!(data, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let copy: Tensor = call("demo.scaled_copy", (&view, 2.0));
        assert_eq!(copy.to_vec::<f32>().unwrap(), vec![2.0, 8.0, 4.0, 10.0, 6.0, 12.0]);
        assert_eq!(call::<f64>("demo.tensor_sum", (&view,)), 21.0);
        let info: Map<String, Any> = call("demo.tensor_info", (&view,));
        assert!(!info.get(s("contiguous")).unwrap().unwrap().cast::<bool>().unwrap());
        let strides: Array<i64> = info.get(s("strides")).unwrap().unwrap().cast().unwrap();
        assert_eq!(strides.to_vec().unwrap(), vec![1, 3]);
        let shape: Shape = info.get(s("shape")).unwrap().unwrap().cast().unwrap();
        assert_eq!(shape.as_slice(), &[3, 2]);
        assert_eq!(
            info.get(s("dtype")).unwrap().unwrap().cast::<DataType>().unwrap(),
            DataType::F32
        );
        assert_eq!(
            info.get(s("device")).unwrap().unwrap().cast::<Device>().unwrap(),
            Device::cpu(0)
        );
        drop((view, copy, info));

        let range: Tensor = call("demo.arange", (5,));
        assert_eq!(range.shape(), &[5]);
        assert_eq!(range.to_vec::<f32>().unwrap(), vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(call::<f64>("demo.tensor_sum", (&range,)), 10.0);
        // DLPack out: the exported tensor shares the data and holds a reference.
        let exported = range.to_dlpack_versioned().unwrap();
        // SAFETY: a valid managed tensor from the runtime; its deleter is called once.
        unsafe {
            assert_eq!((*exported).dl_tensor.ndim, 1);
            assert_eq!((*exported).dl_tensor.data, range.dl_tensor().data);
            ((*exported).deleter.unwrap())(exported);
        }

        let ints = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
        let error = fails::<()>("demo.add_one_inplace", (&ints,));
        assert_eq!(error.kind(), "TypeError");
        assert_eq!(fails::<Tensor>("demo.scaled_copy", (1, 2.0)).kind(), "TypeError");
    }

    fn packed(runtime) {
        assert_eq!(call::<Any>("demo.packed_sum", ()).cast::<i64>().unwrap(), 0);
        let sum: Any = call("demo.packed_sum", (1, 2, 3));
        assert_eq!(sum.type_key(), "int");
        assert_eq!(sum.cast::<i64>().unwrap(), 6);
        let sum: Any = call("demo.packed_sum", (1, 2.5, true));
        assert_eq!(sum.type_key(), "float");
        assert_eq!(sum.cast::<f64>().unwrap(), 4.5);
        assert_eq!(fails::<Any>("demo.packed_sum", (1, "x")).kind(), "TypeError");
        let types: Array<String> = call(
            "demo.arg_types",
            (1, 2.5, true, "hi", "a longer string", Any::none(), Array::new([1]).unwrap(), DataType::F32),
        );
        let types: Vec<std::string::String> =
            types.iter().map(|t| t.unwrap().to_string()).collect();
        assert_eq!(
            types,
            ["int", "float", "bool", "ffi.SmallStr", "ffi.String", "None", "ffi.Array", "DataType"]
        );
        // Views of arguments can be passed through unchanged.
        let views = [AnyView::none()];
        assert_eq!(global("demo.arg_types").call::<Array<String>>(&views[..]).unwrap().len(), 1);
    }

    fn module_exports(runtime) {
        let module = demo();
        assert_eq!(module.kind().unwrap(), "library");
        let multiply = module.function("multiply").unwrap();
        assert_eq!(multiply.call::<i64>((6, 7)).unwrap(), 42);
        assert_eq!(
            module.function_metadata("multiply").unwrap().unwrap(),
            r#"{"type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"int\"}],\"params\":[{\"type\":\"int\"},{\"type\":\"int\"}]}}","arg_names":"[\"a\",\"b\"]"}"#
        );
        assert_eq!(
            module.function_doc("multiply").unwrap().unwrap(),
            "Returns `a * b` (module export `multiply`)."
        );
        let version = module.function("version").unwrap().call::<String>(()).unwrap();
        assert!(version.to_str().unwrap().starts_with("ffihub-demo "));
        assert_eq!(call::<String>("demo.version", ()), version);
        assert!(module.get_function("no_such_function").unwrap().is_none());
        // Exports are not globals.
        assert!(Function::get_global("multiply").unwrap().is_none());
    }

    fn points(runtime) {
        let p = construct("demo.Point", (3.0, 4.0)).unwrap();
        assert_eq!(p.type_key(), "demo.Point");
        assert_eq!(p.get_field("x").unwrap().cast::<f64>().unwrap(), 3.0);
        assert_eq!(p.get_field("y").unwrap().cast::<f64>().unwrap(), 4.0);
        assert_eq!(p.call_method::<f64>("norm", ()).unwrap(), 5.0);
        let error = expect_err(p.set_field("x", 1.0));
        assert_eq!(error.kind(), "AttributeError");
        let moved: ObjectRef = p.call_method("translate", (1.0, -1.0)).unwrap();
        assert_eq!(moved.type_key(), "demo.Point");
        assert_eq!(moved.get_field("x").unwrap().cast::<f64>().unwrap(), 4.0);
        assert_eq!(moved.get_field("y").unwrap().cast::<f64>().unwrap(), 3.0);
        let origin: ObjectRef = call_static("demo.Point", "origin", ()).unwrap();
        assert_eq!(p.call_method::<f64>("distance", (&origin,)).unwrap(), 5.0);
        assert_eq!(expect_err(construct("demo.Point", (1.0,))).kind(), "TypeError");
        assert_eq!(expect_err(construct("demo.Point", ("a", 1.0))).kind(), "TypeError");

        // Inheritance: Point3D derives from Point; parent fields first.
        let q = construct("demo.Point3D", (1.0, 2.0, 2.0)).unwrap();
        assert_eq!(q.type_key(), "demo.Point3D");
        assert_eq!(q.get_field("x").unwrap().cast::<f64>().unwrap(), 1.0);
        assert_eq!(q.get_field("z").unwrap().cast::<f64>().unwrap(), 2.0);
        assert_eq!(q.call_method::<f64>("norm", ()).unwrap(), 3.0);
        // An inherited method, and a Point3D passed where a Point is expected.
        let moved: ObjectRef = q.call_method("translate", (1.0, 1.0)).unwrap();
        assert_eq!(moved.type_key(), "demo.Point");
        assert_eq!(origin.call_method::<f64>("distance", (&q,)).unwrap(), 5.0f64.sqrt());
        let flat: ObjectRef = q.call_method("to_2d", ()).unwrap();
        assert_eq!(flat.type_key(), "demo.Point");
        // The default argument of the constructor.
        let r = construct("demo.Point3D", (1.0, 2.0)).unwrap();
        assert_eq!(r.get_field("z").unwrap().cast::<f64>().unwrap(), 0.0);
        // Passing a Point where a Point3D is required fails (no downcast to a subtype).
        let counter = construct("demo.Counter", ("c",)).unwrap();
        let error = expect_err(p.call_method::<f64>("distance", (&counter,)));
        assert_eq!(error.kind(), "TypeError");

        let point = TypeInfo::from_key("demo.Point").unwrap();
        let point3d = TypeInfo::from_key("demo.Point3D").unwrap();
        assert_eq!(point3d.parent().unwrap().type_key(), "demo.Point");
        assert_eq!(point3d.depth(), 2);
        let offsets: Vec<(std::string::String, i64)> = point
            .fields()
            .iter()
            .chain(point3d.fields().iter())
            .map(|f| (f.name().into_owned(), f.offset()))
            .collect();
        assert_eq!(
            offsets,
            [("x".into(), 24), ("y".into(), 32), ("z".into(), 40)]
        );
        assert_eq!(point.total_size(), 40);
        assert_eq!(point3d.total_size(), 48);
        assert_eq!(point.doc().unwrap(), "A point in the plane (immutable).");
        assert_eq!(point.fields()[0].doc(), "The x coordinate.");
        assert_eq!(point.find_method("norm").unwrap().doc(), "The distance from the origin.");
        assert!(point.find_method("origin").unwrap().is_static());
        assert!(!point.find_method("norm").unwrap().is_static());
        // Objects made in Rust downcast by type index on the host side too.
        assert!(q.clone().downcast::<Object>().is_ok());
    }

    fn counters(runtime) {
        let c = construct("demo.Counter", ("clicks",)).unwrap();
        assert_eq!(c.get_field("label").unwrap().cast::<String>().unwrap(), "clicks");
        assert_eq!(c.get_field("count").unwrap().cast::<i64>().unwrap(), 0);
        assert_eq!(c.get_field("step").unwrap().cast::<i64>().unwrap(), 1);
        assert_eq!(c.call_method::<i64>("increment", ()).unwrap(), 1);
        c.set_field("count", 10).unwrap();
        assert_eq!(c.call_method::<i64>("increment", ()).unwrap(), 11);
        c.set_field("step", 5).unwrap();
        assert_eq!(c.call_method::<i64>("increment", ()).unwrap(), 16);
        assert_eq!(c.call_method::<i64>("add", (4,)).unwrap(), 20);
        assert_eq!(c.call_method::<std::string::String>("describe", ()).unwrap(), "clicks: 20");
        c.call_method::<()>("reset", ()).unwrap();
        assert_eq!(c.get_field("count").unwrap().cast::<i64>().unwrap(), 0);
        assert_eq!(expect_err(c.set_field("label", "x")).kind(), "AttributeError");
        assert_eq!(expect_err(c.set_field("count", "x")).kind(), "TypeError");
        assert_eq!(expect_err(c.get_field("missing")).kind(), "AttributeError");

        let c = construct("demo.Counter", ("c", 5, 2)).unwrap();
        assert_eq!(c.call_method::<i64>("increment", ()).unwrap(), 7);
        let c = construct("demo.Counter", ("c", 5)).unwrap();
        assert_eq!(c.call_method::<i64>("increment", ()).unwrap(), 6);
        let c: ObjectRef = call_static("demo.Counter", "with_step", ("s", 3)).unwrap();
        assert_eq!(c.call_method::<i64>("increment", ()).unwrap(), 3);
        let error = expect_err(construct("demo.Counter", ("c", 1, 2, 3)));
        assert_eq!(error.kind(), "TypeError");
        assert!(error.message().contains("Expected 1 to 3 but got 4 arguments"), "{}", error.message());

        let info = TypeInfo::from_key("demo.Counter").unwrap();
        let count = info.find_field("count").unwrap();
        assert!(count.is_writable());
        assert_eq!(count.default_value().unwrap().cast::<i64>().unwrap(), 0);
        assert!(!info.find_field("label").unwrap().is_writable());
    }

    fn shapes(runtime) {
        let square: ObjectRef = call_static("demo.Shape2D", "square", (2.0,)).unwrap();
        assert_eq!(square.call_method::<f64>("area", ()).unwrap(), 4.0);
        assert_eq!(square.call_method::<f64>("perimeter", ()).unwrap(), 8.0);
        assert_eq!(square.call_method::<i64>("num_vertices", ()).unwrap(), 4);
        assert!(square.get_field("color").unwrap().is_none());
        let vertices: Array<ObjectRef> = square.get_field("vertices").unwrap().cast().unwrap();
        assert_eq!(vertices.get(2).unwrap().get_field("x").unwrap().cast::<f64>().unwrap(), 2.0);
        let error: Error = expect_err(call_static::<ObjectRef>("demo.Shape2D", "square", (-1.0,)));
        assert_eq!(error.kind(), "ValueError");

        let tags = Map::new([(s("kind"), s("polygon"))]).unwrap();
        square.set_field("tags", &tags).unwrap();
        let read: Map<String, String> = square.get_field("tags").unwrap().cast().unwrap();
        assert_eq!(read.get(s("kind")).unwrap().unwrap(), "polygon");

        let triangle_points = Array::new([
            construct("demo.Point", (0.0, 0.0)).unwrap(),
            construct("demo.Point", (4.0, 0.0)).unwrap(),
            construct("demo.Point3D", (0.0, 3.0, 9.0)).unwrap(),
        ])
        .unwrap();
        let triangle = construct("demo.Shape2D", ("tri", &triangle_points, "red")).unwrap();
        assert_eq!(triangle.get_field("name").unwrap().cast::<String>().unwrap(), "tri");
        assert_eq!(triangle.get_field("color").unwrap().cast::<String>().unwrap(), "red");
        assert_eq!(triangle.call_method::<f64>("area", ()).unwrap(), 6.0);
        assert_eq!(triangle.call_method::<f64>("perimeter", ()).unwrap(), 12.0);
        // Vertices must be points.
        let bad = Array::new([Any::from_value(1).unwrap()]).unwrap();
        assert_eq!(expect_err(construct("demo.Shape2D", ("bad", bad))).kind(), "TypeError");
    }

    fn one_extension_from_two_paths(runtime) {
        // A copy of the demo library elsewhere (a new one per run: a refused copy stays loaded).
        use std::sync::atomic::{AtomicUsize, Ordering};
        static COPIES: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "ffihub-demo-copy-{}-{}",
            std::process::id(),
            COPIES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let copy = dir.join("libffihub_demo_copy.so");
        std::fs::copy(common::demo_library(), &copy).unwrap();
        let error = expect_err(ffihub::Module::load(&copy));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(error.kind(), "RuntimeError");
        let message = error.message();
        let first = common::demo_library();
        for path in [copy.to_str().unwrap(), first.to_str().unwrap()] {
            assert!(message.contains(path), "{message} does not name {path}");
        }
        assert!(message.contains("is already registered by"), "{message}");
        // The first copy still owns its types and functions.
        let point = construct("demo.Point", (3.0, 4.0)).unwrap();
        assert_eq!(point.call_method::<f64>("norm", ()).unwrap(), 5.0);
        assert_eq!(call::<i64>("demo.add_one", (41,)), 42);
    }

    fn tensor_specs(runtime) {
        let shape = Shape::new(&[2, 3]).unwrap();
        let spec = construct("demo.TensorSpec", (DataType::F32, Device::cuda(0), &shape)).unwrap();
        assert_eq!(spec.call_method::<i64>("numel", ()).unwrap(), 6);
        assert_eq!(spec.call_method::<i64>("nbytes", ()).unwrap(), 24);
        let huge = Shape::new(&[1 << 61, 2]).unwrap();
        let big = construct("demo.TensorSpec", (DataType::F32, Device::cpu(0), &huge)).unwrap();
        assert_eq!(big.call_method::<i64>("numel", ()).unwrap(), 1 << 62);
        assert_eq!(expect_err(big.call_method::<i64>("nbytes", ())).kind(), "ValueError");
        assert_eq!(spec.get_field("dtype").unwrap().cast::<DataType>().unwrap(), DataType::F32);
        assert_eq!(spec.get_field("device").unwrap().cast::<Device>().unwrap(), Device::cuda(0));
        assert_eq!(spec.get_field("shape").unwrap().cast::<Shape>().unwrap(), shape);
        assert!(spec.get_field("label").unwrap().is_none());
        let spec = construct("demo.TensorSpec", ("float64", Device::cpu(0), &shape, "weights")).unwrap();
        assert_eq!(spec.call_method::<i64>("nbytes", ()).unwrap(), 48);
        assert_eq!(spec.get_field("label").unwrap().cast::<String>().unwrap(), "weights");
    }
}

/// A 3x2 float32 view with strides (1, 3) over a 6-element column-major buffer holding 0..6:
/// element (i, j) is `buffer[i + 3 * j]`. Returns the tensor and the buffer's address.
fn strided_view() -> (Tensor, *const f32) {
    use ffihub::abi::dlpack::{DLManagedTensorVersioned, DLPackVersion, DLTensor};

    struct Owner {
        managed: DLManagedTensorVersioned,
        data: Vec<f32>,
        shape: [i64; 2],
        strides: [i64; 2],
    }
    unsafe extern "C" fn delete(managed: *mut DLManagedTensorVersioned) {
        // SAFETY: the manager context is the box made below, freed once here.
        drop(unsafe { Box::from_raw((*managed).manager_ctx.cast::<Owner>()) });
    }
    let mut owner = Box::new(Owner {
        managed: DLManagedTensorVersioned {
            version: DLPackVersion { major: 1, minor: 3 },
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete),
            flags: 0,
            dl_tensor: DLTensor {
                data: std::ptr::null_mut(),
                device: Device::cpu(0).0,
                ndim: 2,
                dtype: DataType::F32.0,
                shape: std::ptr::null_mut(),
                strides: std::ptr::null_mut(),
                byte_offset: 0,
            },
        },
        data: (0..6).map(|i| i as f32).collect(),
        shape: [3, 2],
        strides: [1, 3],
    });
    owner.managed.dl_tensor.data = owner.data.as_mut_ptr().cast();
    owner.managed.dl_tensor.shape = owner.shape.as_mut_ptr();
    owner.managed.dl_tensor.strides = owner.strides.as_mut_ptr();
    let buffer = owner.data.as_ptr();
    let owner = Box::into_raw(owner);
    // SAFETY: `owner` is live; the manager context lets the deleter free it; the managed tensor
    // is handed over to the runtime.
    let tensor = unsafe {
        (*owner).managed.manager_ctx = owner.cast();
        Tensor::from_dlpack_versioned(std::ptr::addr_of_mut!((*owner).managed))
    }
    .expect("adopt a strided DLPack tensor");
    (tensor, buffer)
}
