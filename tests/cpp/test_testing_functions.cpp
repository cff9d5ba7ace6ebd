// Apache's libtvm_ffi_testing.so (built against Apache's C++ headers) through its generated
// header: typed functions of every schema, packed functions, callbacks, errors, tensors.
#include "common.hpp"
#include "tvm_ffi_testing.hpp"

namespace t = tvm_ffi_testing;

TEST_CASE(scalars) {
  CHECK_EQ(t::add_one(41), 42);
  CHECK_EQ(t::schema_id_int(-7), -7);
  CHECK_EQ(t::schema_id_float(0.125), 0.125);
  CHECK_EQ(t::schema_id_bool(true), true);
  CHECK_EQ(t::schema_id_string(std::string(50, 'z')), std::string(50, 'z'));
  CHECK_EQ(t::schema_id_string("tiny"), "tiny");
  CHECK_EQ(t::schema_id_bytes({1, 0, 2}).to_vector(), (std::vector<uint8_t>{1, 0, 2}));
  CHECK_EQ(t::schema_id_device(ffihub::cuda(5)).device_id, 5);
  CHECK_EQ(ffihub::to_string(t::schema_id_dtype(ffihub::dtype("int4"))), "int4");
  CHECK_EQ(t::schema_no_args(), 1);
  t::schema_no_args_no_return();
  t::schema_no_return(5);
  CHECK_EQ(t::schema_id_any(3.5).cast<double>(), 3.5);
  CHECK_EQ(t::schema_id_any("s").cast<std::string>(), "s");
}

// (Separate, not inlined functions: GCC 12 reports a false -Wmaybe-uninitialized for
// std::variant temporaries destroyed in long functions, its bug 80635.)
[[gnu::noinline]] static bool variant_round_trip_int() {
  std::variant<int64_t, std::string> v = t::schema_id_variant_int_str(int64_t{4});
  return std::holds_alternative<int64_t>(v) && std::get<int64_t>(v) == 4;
}

[[gnu::noinline]] static bool variant_round_trip_string() {
  std::variant<int64_t, std::string> v = t::schema_id_variant_int_str(std::string("v"));
  return std::holds_alternative<std::string>(v) && std::get<std::string>(v) == "v";
}

TEST_CASE(optionals_and_variants) {
  CHECK(!t::schema_id_opt_int(std::nullopt).has_value());
  CHECK_EQ(t::schema_id_opt_int(9).value(), 9);
  CHECK_EQ(t::schema_id_opt_str(std::string("o")).value(), "o");
  CHECK(!t::schema_id_opt_str(std::nullopt).has_value());
  ffihub::Array<int64_t> arr{1};
  CHECK(t::schema_id_opt_obj(ffihub::ObjectRef(arr))->same_as(arr));
  CHECK(variant_round_trip_int());
  CHECK(variant_round_trip_string());
  auto mix = t::schema_variant_mix(ffihub::Array<int64_t>{1, 2});
  CHECK_EQ(mix.index(), 2u);
  CHECK_EQ(std::get<2>(mix).size(), 2u);
}

TEST_CASE(containers) {
  CHECK_EQ(t::schema_id_arr_int({1, 2, 3}).to_vector(), (std::vector<int64_t>{1, 2, 3}));
  CHECK_EQ(t::schema_id_arr_str({"a", "b"}).to_vector(), (std::vector<std::string>{"a", "b"}));
  CHECK_EQ(t::schema_id_arr({1, "x"}).size(), 2u);
  ffihub::Array<ffihub::ObjectRef> objs{ffihub::Shape{1}, ffihub::Array<int64_t>{}};
  CHECK(t::schema_id_arr_obj(objs)[0].as<ffihub::Shape>().has_value());
  CHECK_EQ(t::schema_id_list_int({4, 5}).to_vector(), (std::vector<int64_t>{4, 5}));
  CHECK_EQ(t::schema_id_list_str({"l"}).front(), "l");
  CHECK_EQ(t::schema_id_list_obj({ffihub::Shape{2}}).size(), 1u);
  CHECK_EQ(t::schema_id_map({{1, "one"}, {"two", 2}}).size(), 2u);
  CHECK_EQ(t::schema_id_map_str_int({{"a", 1}}).at("a"), 1);
  CHECK_EQ(t::schema_id_map_str_str({{"k", "v"}}).at("k"), "v");
  CHECK(t::schema_id_map_str_obj({{"s", ffihub::Shape{3}}}).at("s").as<ffihub::Shape>().has_value());
  CHECK_EQ(t::schema_id_dict_str_int({{"d", 7}}).at("d"), 7);
  CHECK_EQ(t::schema_id_dict_str_str({{"d", "e"}}).at("d"), "e");
  auto merged = t::schema_arr_map_opt({1, std::nullopt, 3}, {{"x", {9}}}, std::string("label"));
  CHECK(merged.size() >= 1u);
}

TEST_CASE(callbacks) {
  ffihub::Function twice = [](int64_t x) { return 2 * x; };
  CHECK(t::schema_id_func(twice).same_as(twice));
  std::vector<std::string> seen;
  ffihub::TypedFunction<void(int64_t, double, ffihub::Function)> cb =
      [&seen](int64_t i, double d, const ffihub::Function& f) {
        seen.push_back(std::to_string(i) + "/" + std::to_string(d) + "/" +
                       std::to_string(f.call<int64_t>(int64_t{5})));
      };
  auto back = t::schema_id_func_typed(cb);
  back(1, 2.5, twice);
  CHECK_EQ(seen.size(), 1u);
  CHECK_EQ(seen[0], "1/2.500000/10");
  // Packed functions of the library.
  CHECK_EQ(t::apply(twice, 21).cast<int64_t>(), 42);
  CHECK_EQ(t::echo(7).cast<int64_t>(), 7);
  CHECK(t::nop().is_none());
  CHECK_EQ(t::schema_packed(1, 2).type_key(), t::schema_packed(1, 2).type_key());
}

TEST_CASE(errors) {
  CHECK_THROWS(ffihub::ValueError, t::test_raise_error("ValueError", "from C++"), "ValueError: from C++");
  CHECK_THROWS(ffihub::RuntimeError, t::test_raise_error("RuntimeError", "rt"), "rt");
  try {
    t::test_raise_error("TypeError", "bt");
    CHECK(false);
  } catch (const ffihub::TypeError& e) {
    CHECK(!e.backtrace().empty());
  }
  // An exception from a C++ callback crosses Apache's C++ code unchanged.
  ffihub::Function thrower = [](int64_t) -> int64_t { throw ffihub::KeyError("cb"); };
  CHECK_THROWS(ffihub::KeyError, t::apply(thrower, 1), "KeyError: cb");
  ffihub::Function id_int = ffihub::Function::get_global_required("testing.schema_id_int");
  CHECK_THROWS(ffihub::TypeError, id_int("not an int"), "");
}

TEST_CASE(tensors) {
  std::vector<float> buf{1, 2, 3};
  ffihub::Tensor tensor = ffihub::Tensor::from_buffer(buf.data(), {3});
  CHECK(t::schema_id_tensor(tensor).same_as(tensor));
  t::schema_tensor_view_input(tensor);
  CHECK(t::optional_tensor_view_has_value(tensor));
  CHECK(!t::optional_tensor_view_has_value(std::nullopt));
  auto arr = t::make_array_with_tensor(tensor);
  CHECK(arr[0].cast<ffihub::Tensor>().same_as(tensor));
  CHECK(!t::make_list_with_tensor(tensor, 3).empty());
  CHECK(t::make_map_with_tensor(tensor).size() >= 1u);
  CHECK(t::make_dict_with_tensor(tensor).size() >= 1u);
  CHECK(t::make_empty_array_with_tensor_input(tensor).empty());
  CHECK(t::make_nested_array_with_tensor(tensor).size() >= 1u);
  CHECK(t::make_nested_map_with_tensor(tensor, tensor).size() >= 1u);
  CHECK(t::make_array_with_mixed(tensor, 2).size() >= 1u);
}

TEST_CASE(objects_through_functions) {
  t::TestIntPair p(3, 4);
  CHECK_EQ(t::test_int_pair_sum(p), 7);
  CHECK_EQ(t::schema_id_object(p).downcast<t::TestIntPair>().a(), 3);
  ffihub::Array<int64_t> arr{1};
  CHECK_EQ(t::object_use_count(arr), 1);
  ffihub::Array<int64_t> second = arr;
  CHECK_EQ(t::object_use_count(arr), 2);
  ffihub::ObjectRef unregistered = t::make_unregistered_object();
  CHECK(unregistered.defined());
  ffihub::ObjectRef alpha = t::enum_variant_get("Alpha");
  CHECK_EQ(alpha.runtime_type_key(), "testing.TestEnumVariant");
  CHECK(t::enum_variant_get("Alpha").same_as(alpha));
  CHECK_THROWS(ffihub::ValueError, t::enum_variant_get("Gamma"), "has no instance");
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS([] {
    std::vector<float> buf{1, 2};
    ffihub::Tensor tensor = ffihub::Tensor::from_buffer(buf.data(), {2});
    t::make_nested_map_with_tensor(tensor, tensor);
    t::schema_id_map({{1, std::string(20, 'x')}});
    t::apply(ffihub::Function([](int64_t x) { return x; }), 1);
    try {
      t::test_raise_error("ValueError", "x");
    } catch (const ffihub::Error&) {
    }
    t::TestIntPair p(1, 2);
    t::schema_id_arr_obj({p});
  });
}

TEST_MAIN(test::load_testing())
