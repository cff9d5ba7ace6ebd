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

// A class with a packed constructor as generated (ADR 0019), next to a typed constructor of
// three arguments and the implicit copy and move constructors: it records how many arguments
// the packed constructor took (counted by the packed global demo.packed_sum), -1 for the typed
// one.
class PackedBuilt : public ffihub::ObjectRef {
 public:
  template <typename... Args,
            ffihub::detail::enable_packed_constructor<PackedBuilt, ffihub::detail::TakenCounts<3>,
                                                      Args...> = 0>
  explicit PackedBuilt(Args&&... args)
      : arguments(demo::packed_sum((static_cast<void>(args), 1)...).template cast<int64_t>()) {}
  PackedBuilt(const std::string&, const std::string&, int64_t) : arguments(-1) {}
  /// How many arguments the packed constructor took (-1: the typed one).
  int64_t arguments = 0;
};
class DerivedFromPacked : public PackedBuilt {
 public:
  DerivedFromPacked() : PackedBuilt("derived") {}
};

TEST_CASE(packed_constructors_leave_copies_moves_and_typed_counts_to_the_other_constructors) {
  PackedBuilt one("llvm");
  CHECK_EQ(one.arguments, 1);
  PackedBuilt two(one, 7);  // two arguments, the first one of the class: packed
  CHECK_EQ(two.arguments, 2);
  // Three arguments are the typed constructor's, though the template would match them better.
  PackedBuilt typed("a", "b", 3);
  CHECK_EQ(typed.arguments, -1);
  // A copy from a non-const lvalue, a const lvalue, an rvalue, a const rvalue, and from a
  // derived class: the copy and move constructors keep what they copy.
  PackedBuilt from_lvalue(two);
  const PackedBuilt& const_two = two;
  PackedBuilt from_const(const_two);
  PackedBuilt from_rvalue(std::move(from_const));
  PackedBuilt from_const_rvalue(std::move(const_two));
  DerivedFromPacked derived;
  PackedBuilt from_derived(derived);
  PackedBuilt from_derived_rvalue(DerivedFromPacked{});
  PackedBuilt assigned = two;
  for (const PackedBuilt* copy : {&from_lvalue, &from_rvalue, &from_const_rvalue, &assigned}) {
    CHECK_EQ(copy->arguments, 2);
  }
  CHECK_EQ(from_derived.arguments, 1);
  CHECK_EQ(from_derived_rvalue.arguments, 1);
  // The same at compile time: the copy and move constructors are noexcept, the others are not.
  static_assert(std::is_nothrow_constructible_v<PackedBuilt, PackedBuilt&>);
  static_assert(std::is_nothrow_constructible_v<PackedBuilt, const PackedBuilt&>);
  static_assert(std::is_nothrow_constructible_v<PackedBuilt, PackedBuilt&&>);
  static_assert(std::is_nothrow_constructible_v<PackedBuilt, const PackedBuilt&&>);
  static_assert(std::is_nothrow_constructible_v<PackedBuilt, DerivedFromPacked&>);
  static_assert(std::is_nothrow_constructible_v<PackedBuilt, DerivedFromPacked&&>);
  static_assert(!std::is_nothrow_constructible_v<PackedBuilt, const char*>);
  static_assert(!std::is_default_constructible_v<PackedBuilt>, "no arguments: no packed call");
  static_assert(!std::is_convertible_v<const char*, PackedBuilt>, "explicit");
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
