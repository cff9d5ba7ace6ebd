// The bad-input matrix (the same cases as tests/node/bad_input.test.mjs and
// tests/julia/generated/test_bad_input.jl): what the C++ type system does not already refuse at
// compile time throws an ffihub::Error naming the function (and the argument), never crashes, and
// leaks nothing.
#include <cmath>
#include <limits>
#include <optional>

#include "common.hpp"
#include "demo.hpp"

static ffihub::Function add_one_raw() { return ffihub::Function::get_global_required("demo.add_one"); }

static int64_t demo_objects() { return demo::live_object_count(); }

TEST_CASE(wrong_type_names_the_function_and_argument) {
  // Generated functions are typed: a wrong type does not compile. Dynamic calls check at run time.
  ffihub::Function f = add_one_raw();
  CHECK_THROWS(ffihub::TypeError, f.call<int64_t>("x"),
               "Mismatched type on argument #0 when calling: `demo.add_one(0: int) -> int`. "
               "Expected `int` but got");
  CHECK_THROWS(ffihub::TypeError, ffihub::Function::get_global_required("demo.concat").call<std::string>("a", 5),
               "argument #1 when calling: `demo.concat");
  // A result of the wrong type: the cast names both types.
  CHECK_THROWS(ffihub::TypeError, demo::echo_any(ffihub::Any("text")).cast<int64_t>(), "int");
  CHECK_NO_LEAKS([&] { CHECK_THROWS(ffihub::TypeError, f.call<int64_t>("not an int"), "demo.add_one"); },
                 demo_objects);
}

TEST_CASE(wrong_count_names_the_function) {
  ffihub::Function f = add_one_raw();
  CHECK_THROWS(ffihub::TypeError, f.call<int64_t>(1, 2),
               "`demo.add_one(0: int) -> int`. Expected 1 but got 2 arguments");
  CHECK_THROWS(ffihub::TypeError, f.call<int64_t>(), "demo.add_one");
}

TEST_CASE(none_and_null_objects) {
  CHECK_THROWS(ffihub::TypeError, add_one_raw().call<int64_t>(ffihub::Any()), "got `None`");
  CHECK_EQ(demo::echo_optional_int(std::nullopt), std::optional<int64_t>());
  // A moved-from (null) object passed where an object is required.
  demo::Point p(3, 4);
  demo::Point moved = std::move(p);
  CHECK_EQ(moved.norm(), 5.0);
  CHECK_THROWS(ffihub::TypeError, add_one_raw().call<int64_t>(p), "got `None`");
}

TEST_CASE(out_of_range_ints) {
  CHECK_EQ(demo::echo_int(std::numeric_limits<int64_t>::max()), std::numeric_limits<int64_t>::max());
  CHECK_EQ(demo::echo_int(std::numeric_limits<int64_t>::min()), std::numeric_limits<int64_t>::min());
  // An unsigned value above INT64_MAX does not fit an int (it wrapped to -1 before).
  CHECK_THROWS(ffihub::ValueError, add_one_raw().call<int64_t>(std::numeric_limits<uint64_t>::max()),
               "the integer 18446744073709551615 does not fit in a TVM-FFI int (int64)");
  CHECK_THROWS(ffihub::ValueError, ffihub::Any(uint64_t{1} << 63), "does not fit");
  CHECK_EQ(add_one_raw().call<int64_t>(uint64_t{41}), 42);
  // An int result that does not fit the requested C++ type.
  CHECK_THROWS(ffihub::Error, demo::echo_any(ffihub::Any(int64_t{1} << 40)).cast<int32_t>(), "");
}

TEST_CASE(nan_and_infinity) {
  CHECK(std::isnan(demo::echo_float(std::nan(""))));
  CHECK_EQ(demo::echo_float(INFINITY), INFINITY);
  CHECK_EQ(demo::echo_float(-INFINITY), -INFINITY);
  CHECK_THROWS(ffihub::TypeError, add_one_raw().call<int64_t>(std::nan("")),
               "argument #0 when calling: `demo.add_one(0: int) -> int`. Expected `int` but got `float`");
}

TEST_CASE(invalid_utf8_and_embedded_nul_keep_their_bytes) {
  const std::string bad("a\xff" "b\xfe" "cdefgh");
  CHECK_EQ(demo::echo_string(bad), bad);
  CHECK_EQ(demo::string_length("\xff\xfe"), 2);
  CHECK_EQ(demo::string_length(std::string("a\0b", 3)), 3);
  const std::string with_nul("a\0b, long enough for the heap", 29);
  CHECK_EQ(demo::echo_string(with_nul), with_nul);
}

TEST_CASE(a_100_mb_string_round_trips) {
  const std::string big(100'000'000, 'x');
  CHECK_EQ(demo::string_length(big), 100'000'000);
  CHECK_EQ(demo::echo_string(big).size(), std::size_t{100'000'000});
}

TEST_CASE(deep_and_cyclic_containers) {
  CHECK_NO_LEAKS(
      [] {
        // 100,000 nested arrays: passed, returned and released without recursion.
        ffihub::Any deep(int64_t{1});
        for (int i = 0; i < 100'000; ++i) deep = ffihub::Any(ffihub::Array<ffihub::Any>{deep});
        ffihub::Any back = demo::echo_any(deep);
        CHECK(back.cast<ffihub::ObjectRef>().same_as(deep.cast<ffihub::ObjectRef>()));
        // Printing and comparing it (Apache's runtime takes minutes for these: ffihub's only).
        if (ffihub::live_object_count()) {
          CHECK(ffihub::Function::get_global_required("ffi.RecursiveEq").call<bool>(back, deep));
          const std::size_t per_level =
              ffihub::repr(ffihub::Any(ffihub::Array<ffihub::Any>{int64_t{1}})).size() - 1;
          CHECK_EQ(ffihub::repr(deep).size(), 1 + 100'000 * per_level);
        }
        // A list that contains itself: passed and returned; the cycle is broken before release.
        ffihub::List<ffihub::Any> cyclic;
        cyclic.push_back(ffihub::Any(int64_t{1}));
        cyclic.push_back(ffihub::Any(cyclic));
        CHECK_EQ(demo::echo_any(ffihub::Any(cyclic)).cast<ffihub::List<ffihub::Any>>().size(), std::size_t{2});
        cyclic.clear();
      },
      demo_objects, 1);
}

TEST_CASE(use_after_move) {
  demo::Point p(3, 4);
  demo::Point q = std::move(p);
  CHECK_THROWS(ffihub::Error, p.norm(), "");
  CHECK_EQ(q.norm(), 5.0);
}

TEST_CASE(unknown_function_and_type_key) {
  CHECK(!ffihub::Function::get_global("no.such.function").has_value());
  CHECK_THROWS(ffihub::Error, ffihub::Function::get_global_required("no.such.function"), "no.such.function");
  CHECK_THROWS(ffihub::Error, ffihub::construct<ffihub::ObjectRef>("no.such.Type"), "no.such.Type");
}

TEST_CASE(missing_library_or_not_a_library) {
  CHECK_THROWS(ffihub::Error, ffihub::load_library("/nonexistent/libnothing.so"), "/nonexistent/libnothing.so");
  CHECK_THROWS(ffihub::Error, ffihub::load_library("/etc/passwd"), "/etc/passwd");
  CHECK_THROWS(ffihub::Error, ffihub::Module::load("/nonexistent/libnothing.so"), "/nonexistent/libnothing.so");
  CHECK_THROWS(ffihub::Error, ffihub::Module::load("/etc/passwd"), "/etc/passwd");
}

TEST_CASE(reentry_10000_deep) {
  // Apache's runtime has no stack guard (10,000 levels crash it): ffihub's runtime only.
  if (!ffihub::live_object_count()) return;
  std::optional<ffihub::Function> self;
  self.emplace([&self](int64_t n) -> int64_t { return n == 0 ? 0 : 1 + self->call<int64_t>(n - 1); });
  try {
    CHECK_EQ(self->call<int64_t>(10'000), 10'000);
  } catch (const ffihub::Error& e) {
    CHECK(std::string(e.what()).find("RecursionError: call nesting too deep") != std::string::npos);
  }
  CHECK_THROWS(ffihub::Error, self->call<int64_t>(1'000'000), "RecursionError: call nesting too deep");
  CHECK_EQ(self->call<int64_t>(10), 10);
}

TEST_MAIN(test::load_demo())
