// Object types of Apache's libtvm_ffi_testing.so: typed `__ffi_init__` methods, generated
// `__ffi_init__` with defaults and keyword-only fields, inheritance, writable and read-only
// fields of every kind, methods and static methods.
#include "common.hpp"
#include "tvm_ffi_testing.hpp"

namespace t = tvm_ffi_testing;

TEST_CASE(typed_init_methods) {
  t::TestIntPair p(1, 2);
  CHECK_EQ(p.a(), 1);
  CHECK_EQ(p.b(), 2);
  CHECK_EQ(p.sum(), 3);
  t::TestCompare c(1, "n", 9);
  CHECK_EQ(c.name(), "n");
  t::TestHash h(2, "h", 3);
  CHECK_EQ(h.hash_ignored(), 3);
  t::TestNonCopyable nc(5);
  CHECK_EQ(nc.value(), 5);
  t::TestUnregisteredObject u(10, 20);
  CHECK_EQ(u.v1(), 10);  // inherited field
  CHECK_EQ(u.get_v1_plus_one(), 11);  // inherited method
  CHECK_EQ(u.get_v2_plus_two(), 22);
}

TEST_CASE(generated_init_defaults_and_keywords) {
  t::TestObjectBase defaults;
  CHECK_EQ(defaults.v_i64(), 10);
  CHECK_EQ(defaults.v_f64(), 10.0);
  CHECK_EQ(defaults.v_str(), "hello");
  t::TestObjectBase some(10, 2.5);  // the field defaults are spelled: `v_i64` gives 10 again
  CHECK_EQ(some.v_i64(), 10);
  CHECK_EQ(some.v_f64(), 2.5);
  t::TestCxxAutoInit ai(1, 3);  // a, c (keyword-only); b and d keep 42 and 99
  CHECK_EQ(ai.a(), 1);
  CHECK_EQ(ai.b(), 42);
  CHECK_EQ(ai.c(), 3);
  CHECK_EQ(ai.d(), 99);
  t::TestCxxAutoInit ai2(1, 3, 4);
  CHECK_EQ(ai2.d(), 4);
  t::TestCxxKwOnly k(1, 2, 3);
  CHECK_EQ(k.x() + k.y() + k.z(), 6);
  CHECK_EQ(k.w(), 100);
  // Keyword-only parameters with defaults are members of the constructor's options struct.
  t::TestCxxKwOnly::InitOptions wide;
  wide.w = 5;
  CHECK_EQ(t::TestCxxKwOnly(1, 2, 3, wide).w(), 5);
  t::TestCxxAutoInitKwOnlyDefaults kd(1, 2);
  CHECK_EQ(kd.p_default(), 11);
  CHECK_EQ(kd.k_default(), 22);
  CHECK_EQ(kd.hidden(), 33);
  t::TestCxxAutoInitKwOnlyDefaults kd2(1, 2, 3, {4});
  CHECK_EQ(kd2.p_default(), 3);
  CHECK_EQ(kd2.k_default(), 4);
  t::TestCxxInitSubset subset(7);
  CHECK_EQ(subset.required_field(), 7);
  CHECK_EQ(subset.optional_field(), -1);
  CHECK_EQ(subset.note(), "default");
  t::TestCxxAutoInitAllInitOff off;
  CHECK_EQ(off.x(), 7);
  CHECK_EQ(off.y(), 9);
  t::TestCxxAutoInitSimple simple(1, 2);
  CHECK_EQ(simple.y(), 2);
}

TEST_CASE(inheritance) {
  // Required fields first (v_map, v_array), then the ones with defaults.
  t::TestObjectDerived d({{"k", 1}}, {1, 2}, 1, 2.0, std::string("s"));
  CHECK_EQ(d.v_i64(), 1);  // a base-class getter on a derived object
  CHECK_EQ(d.v_str(), "s");
  CHECK_EQ(d.v_array().size(), 2u);
  CHECK_EQ(d.v_map().size(), 1u);
  CHECK_EQ(d.add_i64(5), 6);  // base method
  t::TestObjectBase as_base = d;
  CHECK(as_base.as<t::TestObjectDerived>().has_value());
  CHECK(!t::TestObjectBase().as<t::TestObjectDerived>().has_value());
  t::TestCxxClassDerivedDerived dd(1, 2, 3.0, true, 4.0, std::string("five"));
  CHECK_EQ(dd.v_i32(), 2);
  CHECK_EQ(dd.v_f32(), 4.0);
  CHECK_EQ(dd.v_str(), "five");
  CHECK_EQ(dd.v_bool(), true);
  t::TestCxxClassBase base = dd;
  CHECK_EQ(base.runtime_type_key(), "testing.TestCxxClassDerivedDerived");
  t::TestCxxAutoInitChild child(1, 3, 4);  // parent_default keeps 5
  CHECK_EQ(child.parent_required(), 1);
  CHECK_EQ(child.parent_default(), 5);
  CHECK_EQ(child.child_required(), 3);
  CHECK_EQ(child.child_kw_only(), 4);
  CHECK_EQ(t::TestCxxAutoInitChild(1, 3, 4, 2).parent_default(), 2);
  t::TestCxxClassDerived derived(1, 2, 3.0);  // v_f32 keeps 8
  CHECK_EQ(derived.v_f32(), 8.0);
}

TEST_CASE(fields_of_every_kind) {
  t::SchemaAllTypes s = t::SchemaAllTypes::make_with(1, 2.0, "three");
  CHECK_EQ(s.v_int(), 1);
  CHECK_EQ(s.v_float(), 2.0);
  CHECK_EQ(s.v_string(), "three");
  s.set_v_bool(true);
  CHECK_EQ(s.v_bool(), true);
  s.set_v_device(ffihub::cuda(1));
  CHECK_EQ(s.v_device().device_id, 1);
  s.set_v_dtype(ffihub::dtype("float16"));
  CHECK_EQ(ffihub::to_string(s.v_dtype()), "float16");
  s.set_v_bytes(ffihub::Bytes({9}));
  CHECK_EQ(s.v_bytes().to_vector(), (std::vector<uint8_t>{9}));
  s.set_v_opt_int(5);
  CHECK_EQ(s.v_opt_int().value(), 5);
  s.set_v_opt_int(std::nullopt);
  CHECK(!s.v_opt_int().has_value());
  s.set_v_opt_str(std::string("os"));
  CHECK_EQ(s.v_opt_str().value(), "os");
  s.set_v_arr_int({1, 2});
  CHECK_EQ(s.v_arr_int().to_vector(), (std::vector<int64_t>{1, 2}));
  s.set_v_arr_str({"x"});
  CHECK_EQ(s.v_arr_str()[0], "x");
  s.set_v_map_str_int({{"m", 3}});
  CHECK_EQ(s.v_map_str_int().at("m"), 3);
  s.set_v_map_str_arr_int({{"a", {1, 2, 3}}});
  CHECK_EQ(s.v_map_str_arr_int().at("a").size(), 3u);
  s.set_v_variant(std::string("var"));
  CHECK_EQ(std::get<std::string>(s.v_variant()), "var");
  s.set_v_variant(ffihub::Array<int64_t>{4});
  CHECK_EQ(s.v_variant().index(), 1u);
  s.set_v_opt_arr_variant(ffihub::Array<std::variant<int64_t, std::string>>{int64_t{1}, std::string("b")});
  CHECK_EQ(s.v_opt_arr_variant()->size(), 2u);
  CHECK_EQ(s.add_int(4), 5);
  CHECK_EQ(s.append_int({1}, 2).to_vector(), (std::vector<int64_t>{1, 2}));
  CHECK_EQ(s.maybe_concat(std::string("a"), std::string("b")).value(), "ab");
  CHECK_EQ(s.merge_map({{"a", {1}}}, {{"b", {2}}}).size(), 2u);
  // Writing the wrong kind through reflection by name is a TypeError from the setter.
  CHECK_THROWS(ffihub::TypeError, ffihub::set_field(s, "v_int", "not an int"), "");
}

TEST_CASE(read_only_and_object_fields) {
  t::TestObjectBase b(1, 2.0, std::string("x"));
  CHECK_THROWS(ffihub::AttributeError, ffihub::set_field(b, "v_f64", 3.0), "read-only");
  t::TestObjectPtrHolder holder(b);
  CHECK(holder.value().same_as(b));
  CHECK(!holder.optional_value().has_value());
  holder.set_optional_value(b);
  CHECK(holder.optional_value()->same_as(b));
  t::TestDeepCopyEdges edges(ffihub::Any(5), ffihub::Shape{1});
  CHECK_EQ(edges.v_any().cast<int64_t>(), 5);
  CHECK(edges.v_obj().as<ffihub::Shape>().has_value());
  edges.set_v_any("now a string");
  CHECK_EQ(edges.v_any().cast<std::string>(), "now a string");
}

TEST_CASE(constructor_errors) {
  CHECK_THROWS(ffihub::TypeError, ffihub::construct("testing.TestCxxKwOnly", 1), "");
  CHECK_THROWS(ffihub::TypeError, ffihub::construct("testing.TestCxxNoAutoInit"), "");
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS([] {
    t::TestObjectDerived d({{"k", 1}}, {1, "x"}, 1, 2.0, std::string(20, 's'));
    d.v_map();
    d.add_i64(1);
    t::TestCxxKwOnly k(1, 2, 3);
    t::SchemaAllTypes s = t::SchemaAllTypes::make_with(1, 2.0, std::string(30, 't'));
    s.set_v_map_str_arr_int({{"a", {1}}});
    s.merge_map({{"a", {1}}}, {{"b", {2}}});
    t::TestObjectPtrHolder holder(t::TestObjectBase{});
  });
}

TEST_MAIN(test::load_testing())
