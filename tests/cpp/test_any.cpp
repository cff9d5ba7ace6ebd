// Any and AnyView: conversions for every kind of the type table in docs/architecture.md, ownership (copy = IncRef,
// move = steal), checked conversions. Needs only the runtime.
#include <map>
#include <tuple>
#include <unordered_map>
#include <variant>

#include "common.hpp"

TEST_CASE(none) {
  ffihub::Any a;
  CHECK(a.is_none());
  CHECK_EQ(a.type_key(), "None");
  CHECK(ffihub::Any(nullptr).is_none());
  CHECK(ffihub::Any(std::nullopt).is_none());
  CHECK(a.as<std::nullptr_t>().has_value());
  CHECK(!a.as<std::optional<int64_t>>()->has_value());
  CHECK(!a.as<int64_t>().has_value());
  CHECK(!a.cast<ffihub::ObjectRef>().defined());  // None is an empty ObjectRef
}

TEST_CASE(integers_bools_floats) {
  ffihub::Any i = int64_t{-5};
  CHECK_EQ(i.type_key(), "int");
  CHECK_EQ(i.cast<int64_t>(), -5);
  CHECK_EQ(i.cast<int32_t>(), -5);
  CHECK(!i.as<uint32_t>().has_value());  // out of range
  CHECK_EQ(i.cast<double>(), -5.0);      // ints convert to float
  CHECK(!ffihub::Any(int64_t{1} << 40).as<int32_t>().has_value());
  ffihub::Any b = true;
  CHECK_EQ(b.type_key(), "bool");
  CHECK_EQ(b.cast<int64_t>(), 1);
  ffihub::Any f = 2.5f;
  CHECK_EQ(f.type_key(), "float");
  CHECK_EQ(f.cast<float>(), 2.5f);
  CHECK(!f.as<int64_t>().has_value());  // floats do not silently truncate
  CHECK_THROWS(ffihub::TypeError, f.cast<std::string>(), "expected str, got float");
}

TEST_CASE(strings_and_bytes) {
  CHECK_EQ(ffihub::Any("abc").type_key(), "ffi.SmallStr");
  CHECK_EQ(ffihub::Any(std::string(10, 'x')).type_key(), "ffi.String");
  CHECK_EQ(ffihub::Any(std::string_view("sv")).cast<std::string>(), "sv");
  CHECK_EQ(ffihub::Any(ffihub::String("s")).cast<ffihub::String>(), "s");
  CHECK_EQ(ffihub::Any(ffihub::Bytes({1, 2, 3})).type_key(), "ffi.SmallBytes");
  CHECK_EQ(ffihub::Any(ffihub::Bytes(std::vector<uint8_t>(9, 1))).type_key(), "ffi.Bytes");
  CHECK(!ffihub::Any("text").as<ffihub::Bytes>().has_value());
  CHECK(!ffihub::Any(ffihub::Bytes({1})).as<std::string>().has_value());
  // AnyView borrows: a std::string passes as a raw C string, copied into an owned string when
  // an Any is made from the view.
  std::string s = "view me, a long string";
  ffihub::AnyView v = s;
  CHECK_EQ(v.type_key(), "const char*");
  CHECK_EQ(v.cast<std::string>(), "view me, a long string");
  ffihub::Any owned(v);
  CHECK_EQ(owned.type_key(), "ffi.String");
}

TEST_CASE(data_types_devices_pointers) {
  ffihub::Any dt = ffihub::dtype("float64");
  CHECK_EQ(dt.type_key(), "DataType");
  CHECK_EQ(dt.cast<DLDataType>().bits, 64);
  CHECK_EQ(ffihub::Any("int16").cast<DLDataType>().bits, 16);  // strings parse as data types
  ffihub::Any dev = ffihub::cuda(2);
  CHECK_EQ(dev.type_key(), "Device");
  CHECK_EQ(dev.cast<DLDevice>().device_id, 2);
  int x = 0;
  ffihub::Any p = static_cast<void*>(&x);
  CHECK_EQ(p.type_key(), "void*");
  CHECK_EQ(p.cast<void*>(), static_cast<void*>(&x));
}

TEST_CASE(containers) {
  ffihub::Any arr = ffihub::Array<int64_t>{1, 2};
  CHECK_EQ(arr.type_key(), "ffi.Array");
  CHECK_EQ(arr.cast<ffihub::Array<double>>()[1], 2.0);  // elements convert when read
  ffihub::Any list = ffihub::List<std::string>{"a"};
  CHECK_EQ(list.type_key(), "ffi.List");
  CHECK_EQ(list.cast<std::vector<std::string>>(), (std::vector<std::string>{"a"}));
  ffihub::Any map = std::map<std::string, int64_t>{{"k", 1}};
  CHECK_EQ((map.cast<ffihub::Map<std::string, int64_t>>().at("k")), 1);
  ffihub::Any hashed = std::unordered_map<int64_t, std::string>{{1, "one"}};
  CHECK_EQ((hashed.cast<std::unordered_map<int64_t, std::string>>().at(1)), "one");
  ffihub::Any dict = ffihub::Dict<std::string, int64_t>{{"d", 4}};
  CHECK_EQ(dict.type_key(), "ffi.Dict");
  CHECK_EQ((dict.cast<std::map<std::string, int64_t>>().at("d")), 4);
  ffihub::Any shape = ffihub::Shape{2, 3};
  CHECK_EQ(shape.cast<ffihub::Shape>().numel(), 6);
  ffihub::Any tuple = std::make_tuple(int64_t{1}, std::string("two"));
  CHECK_EQ(std::get<1>(tuple.cast<std::tuple<int64_t, std::string>>()), "two");
}

TEST_CASE(big_integers) {
  ffihub::BigInt small = 42;
  CHECK(small.fits_int64());
  CHECK_EQ(ffihub::Any(small).type_key(), "int");
  ffihub::BigInt two_64 = ffihub::BigInt::from_words({0, 1});
  CHECK(!two_64.fits_int64());
  CHECK_EQ(two_64.to_string(), "18446744073709551616");
  ffihub::Any a = two_64;
  CHECK_EQ(a.type_key(), "ffi.BigInt");
  CHECK(a.cast<ffihub::BigInt>() == two_64);
  CHECK(!a.as<int64_t>().has_value());
  CHECK_EQ(ffihub::BigInt::from_words({0, ~uint64_t{0}}).to_string(), "-18446744073709551616");
  CHECK_EQ(ffihub::BigInt::from_words({~uint64_t{0}}).to_int64(), -1);
  CHECK_EQ(ffihub::Any(int64_t{7}).cast<ffihub::BigInt>().to_int64(), 7);
  CHECK_THROWS(ffihub::ValueError, two_64.to_int64(), "does not fit");
}

TEST_CASE(optional_and_variant) {
  using V = std::variant<int64_t, std::string, ffihub::Array<int64_t>>;
  ffihub::Any a = V(std::string("s"));
  CHECK_EQ(a.type_key(), "ffi.SmallStr");
  CHECK_EQ(a.cast<V>().index(), 1u);
  CHECK_EQ(ffihub::Any(int64_t{3}).cast<V>().index(), 0u);
  CHECK_EQ(ffihub::Any(ffihub::Array<int64_t>{1}).cast<V>().index(), 2u);
  CHECK(!ffihub::Any(1.5).as<V>().has_value());
  // A variant member of exactly the value's kind wins over one it would convert to.
  using W = std::variant<double, int64_t>;
  CHECK_EQ(ffihub::Any(int64_t{2}).cast<W>().index(), 1u);
  CHECK_EQ(ffihub::Any(std::optional<std::string>("o")).cast<std::optional<std::string>>().value(), "o");
}

TEST_CASE(functions_tensors_errors_objects) {
  ffihub::Any f = [](int64_t x) { return x * 2; };
  CHECK_EQ(f.type_key(), "ffi.Function");
  CHECK_EQ(f.cast<ffihub::Function>().call<int64_t>(4), 8);
  CHECK_EQ(f.cast<ffihub::TypedFunction<int64_t(int64_t)>>()(5), 10);
  CHECK_EQ(f.cast<std::function<int64_t(int64_t)>>()(6), 12);
  std::vector<float> buf{1, 2};
  ffihub::Any t = ffihub::Tensor::from_buffer(buf.data(), {2});
  CHECK_EQ(t.cast<ffihub::Tensor>().numel(), 2);
  ffihub::Any e = ffihub::Error(ffihub::KeyError("k"));
  CHECK_EQ(e.cast<ffihub::Error>().kind(), "KeyError");
  ffihub::ObjectRef obj = t.cast<ffihub::ObjectRef>();
  CHECK(obj.as<ffihub::Tensor>().has_value());
  CHECK(!obj.as<ffihub::Function>().has_value());
}

TEST_CASE(ownership) {
  ffihub::Array<int64_t> arr{1};
  CHECK_EQ(arr.use_count(), 1u);
  ffihub::Any a = arr;  // copy: IncRef
  CHECK_EQ(arr.use_count(), 2u);
  ffihub::Any b = a;
  CHECK_EQ(arr.use_count(), 3u);
  ffihub::Any c = std::move(b);  // move: steals
  CHECK_EQ(arr.use_count(), 3u);
  CHECK(b.is_none());  // NOLINT: moved-from is None
  c = ffihub::Any();
  a = 5;
  CHECK_EQ(arr.use_count(), 1u);
  ffihub::Any stolen = ffihub::Array<int64_t>(arr);
  CHECK_EQ(arr.use_count(), 2u);
  ffihub::AnyView view = arr;  // a view does not count
  CHECK_EQ(arr.use_count(), 2u);
  CHECK_EQ(view.cast<ffihub::Array<int64_t>>()[0], 1);
}

TEST_CASE(repr_and_version) {
  CHECK_EQ(ffihub::repr(ffihub::Array<int64_t>{1, 2}), "(1, 2)");
  CHECK_EQ(ffihub::repr("s"), "\"s\"");
  CHECK_EQ(test::show(ffihub::Any(3)), "3");
  CHECK_EQ(ffihub::runtime_version().rfind("0.1.", 0), 0u);
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS([] {
    ffihub::Any a = std::map<std::string, std::vector<int64_t>>{{"a", {1, 2}}};
    a.cast<std::map<std::string, std::vector<int64_t>>>();
    ffihub::Any f = [](const std::string& s) { return s + s; };
    f.cast<ffihub::Function>().call<std::string>(std::string(20, 'x'));
    ffihub::Any v = std::variant<int64_t, std::string>(std::string(30, 'v'));
    ffihub::Any owned(ffihub::AnyView(std::string("y")));
    ffihub::Any e = ffihub::Error(ffihub::ValueError("v"));
  });
}

TEST_MAIN((void)0)
