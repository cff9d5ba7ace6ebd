// Packed (untyped) functions: generated variadic wrappers and Function's packed call with
// arguments of every kind.
#include "common.hpp"
#include "demo.hpp"

TEST_CASE(packed_generated_functions) {
  CHECK_EQ(demo::packed_sum().cast<int64_t>(), 0);
  CHECK_EQ(demo::packed_sum(1, 2, 3).cast<int64_t>(), 6);
  CHECK_EQ(demo::packed_sum(1, 2.5, true).type_key(), "float");
  CHECK_EQ(demo::packed_sum(1, 2.5, true).cast<double>(), 4.5);
  CHECK_THROWS(ffihub::TypeError, demo::packed_sum(1, "x"), "argument #1 is `const char*`");
}

TEST_CASE(argument_kinds_seen_by_the_extension) {
  std::vector<float> buf(2);
  ffihub::Tensor t = ffihub::Tensor::from_buffer(buf.data(), {2});
  ffihub::Array<std::string> kinds = demo::arg_types(
      1, 2.0, true, nullptr, "small", std::string(20, 'l'), ffihub::Bytes({1, 2}),
      ffihub::dtype("int8"), ffihub::cpu(), demo::Point(0, 0), ffihub::Array<int64_t>{1},
      ffihub::Map<std::string, int64_t>{{"a", 1}}, ffihub::Shape{1}, t,
      ffihub::Function([](int64_t x) { return x; }), std::vector<int64_t>{1, 2},
      std::optional<int64_t>(), std::optional<int64_t>(4), static_cast<void*>(buf.data()))
      .cast<ffihub::Array<std::string>>();
  std::vector<std::string> expected{
      "int",       "float",      "bool",      "None",         "const char*",
      "const char*", "ffi.SmallBytes", "DataType", "Device", "demo.Point",
      "ffi.Array", "ffi.Map",    "ffi.Shape", "ffi.Tensor",   "ffi.Function",
      "ffi.Array", "None",       "int",       "void*"};
  CHECK_EQ(kinds.to_vector(), expected);
}

TEST_CASE(packed_calls_through_function_values) {
  ffihub::Function sum = ffihub::Function::get_global_required("demo.packed_sum");
  CHECK_EQ(sum.call_packed({1, 2, 3, 4}).cast<int64_t>(), 10);
  std::vector<ffihub::Any> args;
  for (int i = 0; i < 100; ++i) args.emplace_back(i);
  CHECK_EQ(sum.call_packed(args).cast<int64_t>(), 4950);
  CHECK_EQ(sum(int8_t{1}, uint16_t{2}, 3u, 4ll).cast<int64_t>(), 10);
}

TEST_CASE(no_leaks) {
  CHECK_NO_LEAKS(
      [] {
        demo::arg_types("x", std::string(30, 'y'), demo::Point(1, 1), std::vector<int64_t>{1},
                        ffihub::Function([](int64_t x) { return x; }));
        demo::packed_sum(1, 2.5);
      },
      [] { return demo::live_object_count(); });
}

TEST_MAIN(test::load_demo())
